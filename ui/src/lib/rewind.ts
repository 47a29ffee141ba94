// Rewinding the conversation from the chat: "Edit and resend from here", "Retry", and returning
// to a version set aside. The chat shows the rewound transcript with the new message at once
// (as a plain send does) and goes back to what it showed when the backend refuses; a refusal
// for conflicts (files changed since the agent changed them) comes back as the report, for the
// caller to let the user choose.

import type { OnConflict } from "../bindings/OnConflict";
import type { ResendOutcome } from "../bindings/ResendOutcome";
import type { RestoreReport } from "../bindings/RestoreReport";
import { resentAt } from "./changes";
import { changes } from "./changes-state.svelte";
import { accepted, fromView } from "./chat";
import { call, describeError } from "./ipc";
import type { ProjectChat } from "./project-chat.svelte";

/** Shows the rewound chat, runs `action`, and keeps or undoes what it showed. Returns the
 *  report (`applied: false`: conflicts, nothing happened), or null when the call failed. */
async function rewind(
  chat: ProjectChat,
  resent: { userIndex: number; text: string; dropped?: readonly number[] },
  action: () => Promise<ResendOutcome>,
): Promise<RestoreReport | null> {
  const previous = chat.state;
  chat.state = resentAt(previous, resent.userIndex, resent.text, resent.dropped);
  try {
    const outcome = await action();
    if (!outcome.report.applied || outcome.sessionId === null) {
      chat.state = previous;
      return outcome.report;
    }
    chat.state = accepted(chat.state, outcome.sessionId);
    void changes.refresh();
    void chat.refreshSessions();
    return outcome.report;
  } catch (failure) {
    chat.state = previous;
    chat.error = describeError(failure);
    return null;
  }
}

/** Edit and resend from the user message at `userIndex` (among the user messages, from 0), with
 *  its attachments but those at the positions `dropped` (removed while editing). */
export function resend(chat: ProjectChat, userIndex: number, text: string, dropped: readonly number[], onConflict: OnConflict): Promise<RestoreReport | null> {
  const droppedAttachments = [...dropped];
  return rewind(chat, { userIndex, text, dropped }, () => call("resend_message", { userIndex, text, onConflict, droppedAttachments }));
}

/** Runs the last turn again with its message `text` (the user message at `userIndex`) and its
 *  attachments. */
export function retry(chat: ProjectChat, userIndex: number, text: string, onConflict: OnConflict): Promise<RestoreReport | null> {
  return rewind(chat, { userIndex, text }, () => call("retry_turn", { onConflict }));
}

/** Returns to the version `branchId` set aside earlier. */
export async function switchBranch(chat: ProjectChat, branchId: string, onConflict: OnConflict): Promise<RestoreReport | null> {
  try {
    const outcome = await call("switch_branch", { branchId, onConflict });
    if (outcome.report.applied) {
      chat.state = fromView(outcome.chat);
      void changes.refresh();
      void chat.refreshSessions();
    }
    return outcome.report;
  } catch (failure) {
    chat.error = describeError(failure);
    return null;
  }
}
