// The approval dialog's key rules, without a window: what the focus shows is what a key does,
// and only a fresh press after the delay can allow.

import { describe, expect, it } from "vitest";

import { approvalKey, FreshKeys, type KeyState } from "../src/lib/approval-keys";

const ready: KeyState = { armed: true, fresh: true, focus: "allow_once", reason: "" };

describe("the approval keys", () => {
  it("press the focused button with Enter or Space, not a fixed choice", () => {
    for (const key of ["Enter", " "]) {
      expect(approvalKey(key, { ...ready, focus: "allow_once" })).toBe("activate");
      expect(approvalKey(key, { ...ready, focus: "allow_for_session" })).toBe("activate");
      // The old dialog allowed once on Enter wherever the focus was: a keyboard user's "no"
      // became "yes". Now Enter on Deny denies.
      expect(approvalKey(key, { ...ready, focus: "deny" })).toBe("activate");
    }
  });

  it("deny with Esc wherever the focus is, the reason typed included", () => {
    expect(approvalKey("Escape", { ...ready, focus: "allow_once" })).toBe("deny");
    expect(approvalKey("Escape", { ...ready, focus: "reason", reason: "because" })).toBe("deny");
    expect(approvalKey("Escape", { ...ready, armed: false, fresh: false })).toBe("deny");
  });

  it("never allow before the delay, nor from a repeated or earlier press", () => {
    expect(approvalKey("Enter", { ...ready, armed: false })).toBe("block");
    expect(approvalKey("Enter", { ...ready, fresh: false })).toBe("block");
    expect(approvalKey(" ", { ...ready, focus: "allow_for_session", armed: false })).toBe("block");
    expect(approvalKey("Enter", { ...ready, focus: "allow_for_session", fresh: false })).toBe("block");
    // Denying needs no delay (it is the safe way), but a repeat still does nothing.
    expect(approvalKey("Enter", { ...ready, focus: "deny", armed: false })).toBe("activate");
    expect(approvalKey("Enter", { ...ready, focus: "deny", fresh: false })).toBe("block");
  });

  it("deny with Enter in the reason field once a reason is typed, and never allow from there", () => {
    expect(approvalKey("Enter", { ...ready, focus: "reason", reason: "not now" })).toBe("deny");
    expect(approvalKey("Enter", { ...ready, focus: "reason", reason: "   " })).toBe("block");
    expect(approvalKey("Enter", { ...ready, focus: "reason", reason: "x", fresh: false })).toBe("block");
    // Space types a space.
    expect(approvalKey(" ", { ...ready, focus: "reason", reason: "x" })).toBe("pass");
  });

  it("swallow Enter aimed outside the dialog and leave other keys alone", () => {
    expect(approvalKey("Enter", { ...ready, focus: "outside" })).toBe("block");
    expect(approvalKey(" ", { ...ready, focus: "outside" })).toBe("block");
    expect(approvalKey("Enter", { ...ready, focus: "inside" })).toBe("pass");
    expect(approvalKey("Tab", ready)).toBe("pass");
    expect(approvalKey("a", ready)).toBe("pass");
  });
});

describe("fresh key presses", () => {
  it("count a key once per press, and not its repeats", () => {
    const keys = new FreshKeys();
    expect(keys.pressed("Enter", false)).toBe(true);
    expect(keys.pressed("Enter", false)).toBe(false); // auto-repeat without the repeat flag
    expect(keys.pressed("Enter", true)).toBe(false);
    keys.released("Enter");
    expect(keys.pressed("Enter", false)).toBe(true);
    expect(keys.pressed(" ", true)).toBe(false);
  });

  it("ignore a key that was down when the dialog appeared until it is released", () => {
    const keys = new FreshKeys(["Enter"]);
    expect(keys.pressed("Enter", false)).toBe(false);
    expect(keys.pressed(" ", false)).toBe(true);
    keys.released("Enter");
    expect(keys.pressed("Enter", false)).toBe(true);
  });
});
