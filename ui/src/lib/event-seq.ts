// The chat's numbered events: the engine numbers each session's events (`seq`, from 1, one more
// each), so the webview can tell an event it already applied (skip it), the next one (apply it)
// and one after a hole (it missed some: ask `chat_events_since` for what came after the last one
// it applied, and apply those in order). Pure bookkeeping, no Tauri: project-chat.svelte.ts owns
// one `SeqGate` per shown session.

import type { ChatEvent } from "../bindings/ChatEvent";

/** What to do with an event that arrived. */
export type Verdict = "apply" | "skip" | "gap";

export class SeqGate {
  /** The seq of the last event applied (0: none). */
  #last: number;
  /** Whether a catch-up is under way (events wait in `#held` meanwhile). */
  #catching = false;
  #held: ChatEvent[] = [];

  constructor(last = 0) {
    this.#last = last;
  }

  get last(): number {
    return this.#last;
  }

  get catching(): boolean {
    return this.#catching;
  }

  /** Starts again from `last` (a view was loaded that shows everything up to it). */
  reset(last: number): void {
    this.#last = last;
    this.#catching = false;
    this.#held = [];
  }

  /**
   * Judges a live event. "apply": the next one (now counted as applied); "skip": already
   * applied; "gap": events are missing before it — it is held until {@link caughtUp}, and the
   * caller asks for what came after {@link last}. While catching up every event is held.
   */
  accept(event: ChatEvent): Verdict {
    if (event.seq <= this.#last) return "skip";
    if (this.#catching) {
      this.#held.push(event);
      return "skip";
    }
    if (event.seq === this.#last + 1) {
      this.#last = event.seq;
      return "apply";
    }
    this.#catching = true;
    this.#held.push(event);
    return "gap";
  }

  /**
   * The catch-up answered with `events` (after {@link last}, in order): returns every event to
   * apply, those fetched then those held, each once, in seq order, without holes. Events after a
   * hole that remains are dropped (the next live event finds the hole again).
   */
  caughtUp(events: readonly ChatEvent[]): ChatEvent[] {
    const pending = [...events, ...this.#held].sort((a, b) => a.seq - b.seq);
    this.#catching = false;
    this.#held = [];
    const applied: ChatEvent[] = [];
    for (const event of pending) {
      if (event.seq <= this.#last) continue;
      if (event.seq !== this.#last + 1) break;
      this.#last = event.seq;
      applied.push(event);
    }
    return applied;
  }

  /** The catch-up failed or came back incomplete: the caller reloads; held events are dropped. */
  abandon(last: number): void {
    this.reset(last);
  }
}
