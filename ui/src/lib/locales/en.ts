// The English catalog: the source of every message key. Keys are grouped by where the text
// shows (`area.what`); a key ending in `_one` is the singular form `t` picks for `count: 1`.

export const en = {
  "app.startFailed": "Gantry could not start its window",
  "app.loading": "Loading…",
  "common.close": "Close",
  "common.loading": "Loading…",

  "help.title": "Keyboard shortcuts",
  "shortcuts.area.chat": "Chat",
  "shortcuts.area.approval": "Approval dialog",
  "shortcuts.area.question": "Question from the model",
  "shortcuts.area.everywhere": "Everywhere",
  "shortcuts.send": "Send the message",
  "shortcuts.newLine": "New line in the message",
  "shortcuts.stop": "Stop the running turn",
  "shortcuts.allowOnce": "Allow once",
  "shortcuts.deny": "Deny (with the reason typed, if any)",
  "shortcuts.moreChoices": "Move to Allow for this session and the other choices",
  "shortcuts.sendAnswer": "Send the answer typed",
  "shortcuts.dismiss": "Dismiss",
  "shortcuts.help": "Show or hide this help",
  "shortcuts.closePanel": "Close a panel or a dialog",
  "shortcuts.moveFocus": "Move between controls",
} as const;

/** A message's key. */
export type MessageKey = keyof typeof en;
