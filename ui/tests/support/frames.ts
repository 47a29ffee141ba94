// Animation frames a test steps by hand: `schedule` is a FrameScheduler, `next` runs the frame's
// callbacks (those asked for while it runs wait for the following one).

import type { FrameScheduler } from "../../src/lib/delta-batch";

export class ManualFrames {
  #callbacks = new Map<number, () => void>();
  #next = 1;
  /** Frames asked for so far. */
  requested = 0;

  readonly schedule: FrameScheduler = (callback) => {
    const id = this.#next++;
    this.requested += 1;
    this.#callbacks.set(id, callback);
    return () => {
      this.#callbacks.delete(id);
    };
  };

  /** Callbacks waiting for the next frame. */
  get waiting(): number {
    return this.#callbacks.size;
  }

  /** Runs one frame. */
  next(): void {
    const callbacks = [...this.#callbacks.values()];
    this.#callbacks.clear();
    for (const callback of callbacks) callback();
  }
}
