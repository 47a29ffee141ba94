import { describe, expect, it } from "vitest";

import { translate } from "../src/lib/i18n.svelte";
import { isHelpKey, SHORTCUTS } from "../src/lib/shortcuts";

function key(value: string, target: unknown = { tagName: "BODY" }, modifiers: Partial<KeyboardEvent> = {}) {
  return {
    key: value,
    ctrlKey: false,
    altKey: false,
    metaKey: false,
    target: target as EventTarget,
    ...modifiers,
  };
}

describe("the help key", () => {
  it("is F1 anywhere and ? outside text fields", () => {
    expect(isHelpKey(key("F1"))).toBe(true);
    expect(isHelpKey(key("F1", { tagName: "TEXTAREA" }))).toBe(true);
    expect(isHelpKey(key("?"))).toBe(true);
    expect(isHelpKey(key("?", { tagName: "textarea" }))).toBe(false);
    expect(isHelpKey(key("?", { tagName: "INPUT" }))).toBe(false);
    expect(isHelpKey(key("?", { tagName: "DIV", isContentEditable: true }))).toBe(false);
    expect(isHelpKey(key("?", null))).toBe(true);
    expect(isHelpKey(key("F1", undefined, { ctrlKey: true }))).toBe(false);
    expect(isHelpKey(key("h"))).toBe(false);
  });

  it("lists the chat's and the dialogs' shortcuts", () => {
    const all = SHORTCUTS.flatMap((group) =>
      group.items.map((item) => `${translate("en", group.area)}: ${item.keys}`),
    );
    expect(all).toContain("Chat: Esc");
    expect(all).toContain("Approval dialog: Enter / Space");
    expect(all).toContain("Everywhere: F1 / ?");
  });

  it("reads in Chinese too", () => {
    const chat = SHORTCUTS.find((group) => group.area === "shortcuts.area.chat");
    expect(chat && translate("zh-CN", chat.area)).toBe("对话");
    expect(chat && chat.items.map((item) => translate("zh-CN", item.action))).toContain("发送消息");
  });
});
