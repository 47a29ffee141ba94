// The approval dialog's keys. A key press approves only what the user meant to approve:
//
// - Enter and Space activate the button that has the focus (Tab moves it), never a fixed choice;
//   Esc denies (with the reason typed, if any).
// - A press that allows (Allow once, Allow for this session) counts only once the dialog has been
//   shown for `ENTER_DELAY_MS`, and only when it is a fresh press: not a key repeat, not a key
//   that was already down when the dialog appeared (an Enter meant for the chat box, held or
//   pressed twice), and not a key whose target is outside the dialog.
// - Enter in the reason field denies with that reason once one is typed; it never allows.
//
// The component reports what has the focus and whether the press is fresh; these functions say
// what the press does, so the rules are tested without a window.

/** How long the dialog is shown before a key press can allow the call, in milliseconds. */
export const ENTER_DELAY_MS = 800;

/** What has the focus when a key is pressed. */
export type FocusRole = "allow_once" | "allow_for_session" | "allow_in_project" | "deny" | "reason" | "inside" | "outside";

/** What the component knows about a key press. */
export interface KeyState {
  /** The dialog has been shown for at least {@link ENTER_DELAY_MS}. */
  readonly armed: boolean;
  /** The key went down while the dialog was open, and this is not a repeat. */
  readonly fresh: boolean;
  readonly focus: FocusRole;
  /** The reason typed so far. */
  readonly reason: string;
}

/** What a key press does: click the focused button, deny, swallow it, or leave it be. */
export type KeyOutcome = "activate" | "deny" | "block" | "pass";

/** Whether `key` activates a button (Enter, Space). */
function activates(key: string): boolean {
  return key === "Enter" || key === " " || key === "Spacebar";
}

/** What the key press `key` does in the approval dialog. */
export function approvalKey(key: string, state: KeyState): KeyOutcome {
  if (key === "Escape") return "deny";
  if (!activates(key)) return "pass";
  switch (state.focus) {
    case "allow_once":
    case "allow_for_session":
    case "allow_in_project":
      return state.armed && state.fresh ? "activate" : "block";
    case "deny":
      return state.fresh ? "activate" : "block";
    case "reason":
      if (key !== "Enter") return "pass";
      return state.fresh && state.reason.trim() !== "" ? "deny" : "block";
    case "inside":
      return "pass";
    case "outside":
      return "block";
  }
}

/**
 * Which key presses are fresh: a key counts once per press, from its first keydown after the
 * dialog appeared, and not at all when it was already down then (it must be released first).
 */
export class FreshKeys {
  private readonly down = new Set<string>();

  /** `held`: the keys that were down when the dialog appeared. */
  constructor(held: Iterable<string> = []) {
    for (const key of held) this.down.add(key);
  }

  /** A keydown: true when it starts a new press. */
  pressed(key: string, repeat: boolean): boolean {
    const fresh = !repeat && !this.down.has(key);
    this.down.add(key);
    return fresh;
  }

  /** A keyup: the next keydown of `key` is a new press. */
  released(key: string): void {
    this.down.delete(key);
  }
}
