// Streamed text reaches the chat state at most once per frame. Text and reasoning deltas wait in
// a buffer (adjacent ones of the same kind and session joined, so the text is exactly what came,
// in order) and are applied together on the next animation frame. Every other event applies the
// buffer first, at once, so nothing changes order: a tool call starts after the text before it,
// the turn ends after its last words.

import type { ChatEvent } from "../bindings/ChatEvent";

/** Runs a callback before the next paint; returns what cancels it. */
export type FrameScheduler = (callback: () => void) => () => void;

/** How long a frame may keep the buffer when the webview does not paint (a hidden window
 *  pauses animation frames): the text still arrives, just less often. */
export const HIDDEN_FLUSH_MS = 250;

/** The window's animation frames, with a timer in case frames do not come. */
export const animationFrames: FrameScheduler = (callback) => {
  let done = false;
  const run = (): void => {
    if (done) return;
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    callback();
  };
  const frame = requestAnimationFrame(run);
  const timer = setTimeout(run, HIDDEN_FLUSH_MS);
  return () => {
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
};

type DeltaEvent = ChatEvent & { event: { type: "text_delta" | "reasoning_delta" } };

/** Whether `event` is streamed text (or reasoning) that may wait for the frame. */
export function isDelta(event: ChatEvent): event is DeltaEvent {
  return event.event.type === "text_delta" || event.event.type === "reasoning_delta";
}

/** Holds streamed text until the next frame. */
export class DeltaBatcher {
  readonly #apply: (events: readonly ChatEvent[]) => void;
  readonly #schedule: FrameScheduler;
  #pending: DeltaEvent[] = [];
  #cancel: (() => void) | null = null;

  /** `apply` receives the buffered events, in order, once per frame (or on `flush`). */
  constructor(apply: (events: readonly ChatEvent[]) => void, schedule: FrameScheduler = animationFrames) {
    this.#apply = apply;
    this.#schedule = schedule;
  }

  /** Whether text waits for the next frame. */
  get pending(): boolean {
    return this.#pending.length > 0;
  }

  /** Buffers a delta until the next frame. */
  push(event: DeltaEvent): void {
    const last = this.#pending.at(-1);
    if (
      last !== undefined &&
      last.event.type === event.event.type &&
      last.projectId === event.projectId &&
      last.sessionId === event.sessionId
    ) {
      this.#pending[this.#pending.length - 1] = { ...last, event: { type: last.event.type, text: last.event.text + event.event.text } };
    } else {
      this.#pending.push(event);
    }
    this.#cancel ??= this.#schedule(() => {
      this.#cancel = null;
      this.flush();
    });
  }

  /** Applies what waits, now. */
  flush(): void {
    this.#cancel?.();
    this.#cancel = null;
    if (this.#pending.length === 0) return;
    const events = this.#pending;
    this.#pending = [];
    this.#apply(events);
  }

  /** Drops what waits and stops the frame. */
  dispose(): void {
    this.#cancel?.();
    this.#cancel = null;
    this.#pending = [];
  }
}
