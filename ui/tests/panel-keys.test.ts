// Esc in the app's panels: it closes them, except under an approval or a question.
import { afterEach, describe, expect, it, vi } from "vitest";

import { closeOnEscape } from "../src/lib/panel-keys";

afterEach(() => {
  document.body.innerHTML = "";
});

describe("Esc in a panel", () => {
  it("closes the panel, and leaves other keys alone", () => {
    const onclose = vi.fn();
    const handler = closeOnEscape(onclose);
    handler(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(onclose).not.toHaveBeenCalled();
    const escape = new KeyboardEvent("keydown", { key: "Escape", cancelable: true });
    handler(escape);
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(escape.defaultPrevented).toBe(true);
  });

  it("is left to an approval or question open on top", () => {
    const onclose = vi.fn();
    document.body.innerHTML = '<div data-testid="dialog-backdrop"></div>';
    closeOnEscape(onclose)(new KeyboardEvent("keydown", { key: "Escape", cancelable: true }));
    expect(onclose).not.toHaveBeenCalled();
  });

  it("is left to an input method composing text", () => {
    const onclose = vi.fn();
    const handler = closeOnEscape(onclose);
    const composingEscape = new KeyboardEvent("keydown", { key: "Escape", isComposing: true, cancelable: true });
    handler(composingEscape);
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- what WebKit sends during an IME composition
    const imeKey = new KeyboardEvent("keydown", { key: "Escape", keyCode: 229, cancelable: true });
    handler(imeKey);
    expect(onclose).not.toHaveBeenCalled();
    expect(composingEscape.defaultPrevented).toBe(false);
    expect(imeKey.defaultPrevented).toBe(false);
  });
});
