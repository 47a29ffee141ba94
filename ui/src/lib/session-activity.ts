// What each session is doing (idle, queued behind the limit of turns, running, waiting for the
// user), as the session list shows it: the backend's `session:activity` events update the list
// it loaded.

import type { ActivityState } from "../bindings/ActivityState";
import type { SessionActivity } from "../bindings/SessionActivity";
import type { SessionSummary } from "../bindings/SessionSummary";
import type { MessageKey } from "./locales/en";

/** The list with `event`'s session in its new state; `null` when the list does not hold that
 *  session (it is new: read the list again). */
export function withActivity(
  sessions: readonly SessionSummary[],
  event: SessionActivity,
): readonly SessionSummary[] | null {
  const at = sessions.findIndex((session) => session.id === event.sessionId);
  if (at < 0) return null;
  const session = sessions[at];
  if (session === undefined || session.activity === event.state) return sessions;
  const next = [...sessions];
  next[at] = { ...session, activity: event.state };
  return next;
}

/** The words for a state the list marks (`null`: idle, nothing to mark). */
export function activityLabel(state: ActivityState): MessageKey | null {
  switch (state) {
    case "idle":
      return null;
    case "queued":
      return "session.activity.queued";
    case "running":
      return "session.activity.running";
    case "waiting":
      return "session.activity.waiting";
  }
}
