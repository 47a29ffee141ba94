// The queue of approvals and questions the backend awaits. Requests arrive as events (and, after
// a reload, from `pending_dialogs`), each known by its call: the session and the model's call id
// (`DialogKey`), which the answer names too; the first one of the session shown is shown as a
// modal (a background session's request waits, and the session list says so); each leaves the
// queue when answered here or when the backend closes it (timeout, cancelled turn).

import type { ApprovalDecision } from "../bindings/ApprovalDecision";
import type { DialogRequest } from "../bindings/DialogRequest";

export type DialogQueue = readonly DialogRequest[];

/** The call a request is for: its session (`null`: none) and the model's call id. */
export interface DialogKey {
  readonly sessionId: string | null;
  readonly callId: string;
}

/** The call `request` is for. */
export function keyOf(request: DialogRequest): DialogKey {
  return {
    sessionId: sessionOf(request),
    callId: request.kind === "approval" ? request.request.callId : request.question.callId,
  };
}

/** Whether `request` is for call `key`. */
export function isFor(request: DialogRequest, key: DialogKey): boolean {
  const own = keyOf(request);
  return own.sessionId === key.sessionId && own.callId === key.callId;
}

/** A request arrived; duplicates (an event and a resync) are kept once, in arrival order. */
export function opened(queue: DialogQueue, request: DialogRequest): DialogQueue {
  if (queue.some((pending) => isFor(pending, keyOf(request)))) return queue;
  return [...queue, request];
}

/** The request for call `key` ended (answered, timed out, cancelled, window closing). */
export function closed(queue: DialogQueue, key: DialogKey): DialogQueue {
  return queue.filter((pending) => !isFor(pending, key));
}

/** The session a request belongs to (`null` when it names none). */
export function sessionOf(request: DialogRequest): string | null {
  return request.kind === "approval" ? request.request.sessionId : request.question.sessionId;
}

/** The requests the user sees while session `shown` is shown: that session's, and any that names
 *  no session. */
export function shownIn(queue: DialogQueue, shown: string | null): DialogQueue {
  return queue.filter((request) => {
    const session = sessionOf(request);
    return session === null || session === shown;
  });
}

/** The backend's list of what is pending (oldest first) replaces ours. */
export function synced(pending: readonly DialogRequest[]): DialogQueue {
  return [...pending];
}

/** The decision sent for a button. An empty reason is no reason. */
export function decision(
  choice: "allow_once" | "allow_for_session" | "allow_in_project" | "deny",
  reason = "",
): ApprovalDecision {
  switch (choice) {
    case "allow_once":
      return { decision: "allow_once" };
    case "allow_for_session":
      return { decision: "allow_for_session" };
    case "allow_in_project":
      return { decision: "allow_in_project" };
    case "deny": {
      const trimmed = reason.trim();
      return { decision: "deny", reason: trimmed === "" ? null : trimmed };
    }
  }
}
