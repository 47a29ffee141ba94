// What a running turn is doing right now, for the line under the chat: waiting for the model's
// first words, receiving its answer, running a tool, or waiting for the user's approval. Read
// from the chat state alone (pure), so the line is right after a reload as well as live.

import type { ChatState } from "./chat";

/** What the running turn waits for. */
export type Activity =
  | { readonly kind: "idle" }
  /** The request is out and nothing came back yet (the slow part with a large model). */
  | { readonly kind: "waiting_for_model" }
  /** The model's answer is streaming in. */
  | { readonly kind: "receiving" }
  /** A tool runs (`id`: the call's, so a second call of the same tool is a new activity). */
  | { readonly kind: "running_tool"; readonly id: string; readonly tool: string }
  /** A tool call waits for the user's answer in the approval dialog. */
  | { readonly kind: "awaiting_approval"; readonly id: string; readonly tool: string };

/** What `state`'s running turn is doing (`idle` when no turn runs). */
export function activityOf(state: ChatState): Activity {
  if (!state.running) return { kind: "idle" };
  const last = state.items.at(-1);
  if (last?.kind !== "assistant" || !last.live) return { kind: "waiting_for_model" };
  const approval = last.tools.find((tool) => tool.status === "awaiting_approval");
  if (approval) return { kind: "awaiting_approval", id: approval.id, tool: approval.name };
  const running = last.tools.find((tool) => tool.status === "running");
  if (running) return { kind: "running_tool", id: running.id, tool: running.name };
  // Tools all answered: the next model call is out, nothing streamed yet.
  if (last.tools.length > 0) return { kind: "waiting_for_model" };
  return last.text === "" && last.reasoning === "" ? { kind: "waiting_for_model" } : { kind: "receiving" };
}

/** A stable identity for an activity: the elapsed-time counter restarts when it changes (a
 *  tool call's identity is its id: two calls of the same tool in a row are two waits). */
export function activityKey(activity: Activity): string {
  return "id" in activity ? `${activity.kind}:${activity.id}` : activity.kind;
}

/** Elapsed whole seconds, shown only once a wait is long enough to wonder about (≥ 2 s). */
export function elapsedSeconds(startedAt: number, now: number): number | null {
  const seconds = Math.floor((now - startedAt) / 1000);
  return seconds >= 2 ? seconds : null;
}
