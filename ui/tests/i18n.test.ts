import { afterEach, describe, expect, it } from "vitest";

import {
  currentLocale,
  languageChoice,
  localeFor,
  placeholders,
  setLanguage,
  STORAGE_KEY,
  t,
  translate,
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
