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
});
