import { afterEach, describe, expect, it } from "vitest";

import {
  currentLocale,
  joinList,
  languageChoice,
  languageName,
  localeFor,
  parseLanguageChoice,
  placeholders,
  setLanguage,
  setSystemLanguages,
  STORAGE_KEY,
  systemLocale,
  t,
  tAround,
  translate,
  tSlots,
  tText,
} from "../src/lib/i18n.svelte";
import { en, type MessageKey } from "../src/lib/locales/en";
import { zhCN } from "../src/lib/locales/zh-CN";

const keys = Object.keys(en) as MessageKey[];

describe("the catalogs", () => {
  it("have the same keys, none empty", () => {
    expect(Object.keys(zhCN).sort()).toEqual([...keys].sort());
    for (const key of keys) {
      expect(en[key].trim(), key).not.toBe("");
      expect(zhCN[key].trim(), key).not.toBe("");
    }
  });

  it("use the same placeholders in both languages", () => {
    for (const key of keys) expect(placeholders(zhCN[key]), key).toEqual(placeholders(en[key]));
  });

  it("are really translated: a Chinese message is not the English one, except names and symbols", () => {
    const untranslated = keys.filter((key) => zhCN[key] === en[key] && /[a-z]{3}/.test(en[key]));
    expect(untranslated).toEqual([]);
  });

  it("give every `_one` form a plural companion", () => {
    for (const key of keys.filter((candidate) => candidate.endsWith("_one"))) {
      expect(keys, key).toContain(key.slice(0, -"_one".length));
    }
  });
});

describe("choosing the language", () => {
  afterEach(() => {
    setLanguage("system");
  });

  it("follows the system's first known language", () => {
    expect(localeFor(["zh-CN", "en-US"])).toBe("zh-CN");
    expect(localeFor(["zh-TW"])).toBe("zh-CN");
    expect(localeFor(["zh_CN.UTF-8"])).toBe("zh-CN");
    expect(localeFor(["fr-FR", "en-GB", "zh-CN"])).toBe("en");
    expect(localeFor(["fr-FR"])).toBe("en");
    expect(localeFor([])).toBe("en");
  });

  it("follows the system's languages as the backend read them, unless the user chose", () => {
    setSystemLanguages(["zh-CN", "en-US"]);
    expect(currentLocale()).toBe("zh-CN");
    setLanguage("en");
    setSystemLanguages(["zh-CN"]);
    expect(currentLocale()).toBe("en");
    setLanguage("system");
    expect(currentLocale()).toBe("zh-CN");
    setSystemLanguages([]);
    expect(currentLocale()).toBe("en");
  });

  it("switches at once, marks the document and remembers the choice", () => {
    setLanguage("zh-CN");
    expect(currentLocale()).toBe("zh-CN");
    expect(languageChoice()).toBe("zh-CN");
    expect(document.documentElement.lang).toBe("zh-CN");
    expect(localStorage.getItem(STORAGE_KEY)).toBe("zh-CN");
    expect(t("common.close")).toBe("关闭");
    setLanguage("system");
    expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
    expect(languageChoice()).toBe("system");
  });
});

describe("filling a message", () => {
  it("puts values into placeholders and leaves unknown ones visible", () => {
    const template = "shortcuts.send" satisfies MessageKey;
    expect(translate("en", template)).toBe("Send the message");
    expect(translate("en", template, { unused: 1 })).toBe("Send the message");
    expect(translate("en", "activity.runningTool")).toBe("Running {tool}…");
    expect(translate("zh-CN", "activity.runningTool", { tool: "run_command" })).toBe("正在运行 run_command…");
  });

  it("picks the singular form for a count of one", () => {
    expect(translate("en", "mcpGlance.ready", { count: 1 })).toBe("MCP · 1 tool");
    expect(translate("en", "mcpGlance.ready", { count: 3 })).toBe("MCP · 3 tools");
    expect(translate("en", "mcpGlance.ready", { count: 0 })).toBe("MCP · 0 tools");
    expect(translate("zh-CN", "mcpGlance.ready", { count: 1 })).toBe("MCP · 1 个工具");
  });
});

describe("the helpers for components", () => {
  afterEach(() => {
    setLanguage("system");
  });

  it("names the system's language and reads a stored choice", () => {
    expect(systemLocale()).toBe("en");
    expect(languageName("zh-CN")).toBe("简体中文");
    expect(parseLanguageChoice("zh-CN")).toBe("zh-CN");
    expect(parseLanguageChoice("fr")).toBe("system");
  });

  it("cuts a sentence around the markup's place, in each language's order", () => {
    expect(tAround("approval.title", "tool")).toEqual(["Allow ", "?"]);
    expect(tAround("why.policyAsk", "tool")).toEqual(["", " is set to Ask in this project"]);
    setLanguage("zh-CN");
    expect(tAround("approval.title", "tool")).toEqual(["允许 ", " 吗？"]);
    expect(tAround("why.policyAsk", "tool")).toEqual(["此项目中 ", " 设为“询问”"]);
  });

  it("cuts a sentence at several slots, putting their values where each language puts them", () => {
    const codes = { file: ".mcp.json", format: "mcpServers" };
    expect(tSlots("mcp.empty.projectFile", codes)).toEqual([
      "A project can also bring its own in a ",
      ".mcp.json",
      " at its root (the ",
      "mcpServers",
      " format of Claude Desktop).",
    ]);
    // Slots in the other order than the language's come out in the language's order.
    expect(tSlots("mcp.empty.projectFile", { format: "mcpServers", file: ".mcp.json" })[1]).toBe(".mcp.json");
    // Params fill the rest, a `count` picks the singular, a message without the slots stays whole.
    expect(tSlots("mcp.trust.request", { file: "F" }, { count: 1 })).toEqual([
      "This project's ",
      "F",
      " wants to start this program. Trust it only if you trust the project.",
    ]);
    expect(tSlots("common.close", codes)).toEqual(["Close"]);
    setLanguage("zh-CN");
    expect(tSlots("mcp.empty.projectFile", codes)).toEqual([
      "项目也可以在其根目录的 ",
      ".mcp.json",
      " 中自带服务器（采用 Claude Desktop 的 ",
      "mcpServers",
      " 格式）。",
    ]);
  });

  it("lists items and renders a message kept for later, with its listed details", () => {
    const kept = {
      key: "chat.notice.contextFittedDetails",
      params: { estimated: 10, budget: 20 },
      details: [
        { key: "chat.notice.olderDropped", params: { count: 1 } },
        { key: "chat.notice.resultsShortened", params: { count: 2 } },
      ],
    } as const;
    expect(joinList(["a", "b"])).toBe("a, b");
    expect(tText(kept)).toBe(
      "The conversation was fitted into the context window: 1 older message left out, 2 tool results shortened; about 10 of 20 tokens.",
    );
    setLanguage("zh-CN");
    expect(joinList(["a", "b"])).toBe("a，b");
    expect(tText(kept)).toBe("对话已压缩以放入上下文窗口：省略了 1 条较早的消息，截短了 2 个工具结果；约 10 个 token，上限 20。");
  });
});

describe("the Chinese catalog", () => {
  it("writes its sentences with Chinese punctuation", () => {
    // A Chinese sentence ends in a Chinese full stop, and brackets/colons next to Chinese text are
    // the full-width ones (names, code and placeholders aside).
    const offenders = keys.filter((key) => {
      const text = zhCN[key].replace(/\{\w+\}/g, "");
      return /[\u4e00-\u9fff][.,:;!?()]|[.,:;!?(][\u4e00-\u9fff]/.test(text) || /[\u4e00-\u9fff]\.$/.test(text);
    });
    expect(offenders).toEqual([]);
  });
});
