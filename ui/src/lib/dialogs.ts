// The queue of approvals and questions the backend awaits. Requests arrive as events (and, after
// a reload, from `pending_dialogs`); the first one of the session shown is shown as a modal (a
// background session's request waits, and the session list says so); each leaves the queue when
// answered here or when the backend closes it (timeout, cancelled turn).

import type { ApprovalDecision } from "../bindings/ApprovalDecision";
import type { DialogRequest } from "../bindings/DialogRequest";

export type DialogQueue = readonly DialogRequest[];

/** A request arrived; duplicates (an event and a resync) are kept once, in id order. */
export function opened(queue: DialogQueue, request: DialogRequest): DialogQueue {
  if (queue.some((pending) => pending.id === request.id)) return queue;
  return [...queue, request].sort((a, b) => a.id - b.id);
}

/** A request ended (answered, timed out, cancelled, window closing). */
export function closed(queue: DialogQueue, id: number): DialogQueue {
  return queue.filter((pending) => pending.id !== id);
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

/** The backend's list of what is pending replaces ours. */
export function synced(pending: readonly DialogRequest[]): DialogQueue {
  return [...pending].sort((a, b) => a.id - b.id);
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
