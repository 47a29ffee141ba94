// Streamed text reaches the state once per frame, exactly as it came and in order; any other
// event applies what waits first. Frames are stepped by hand (and, for the window's scheduler,
// by fake timers).

import { afterEach, describe, expect, it, vi } from "vitest";

import type { ChatEvent } from "../src/bindings/ChatEvent";
import type { TurnEvent } from "../src/bindings/TurnEvent";
import { animationFrames, DeltaBatcher, HIDDEN_FLUSH_MS, isDelta } from "../src/lib/delta-batch";
import { ManualFrames } from "./support/frames";

function event(turn: TurnEvent, sessionId = "s1", projectId = 1): ChatEvent {
  return { projectId, sessionId, seq: 0, event: turn };
}

const text = (value: string, sessionId = "s1"): ChatEvent => event({ type: "text_delta", text: value }, sessionId);
const reasoning = (value: string): ChatEvent => event({ type: "reasoning_delta", text: value });

/** A batcher over manual frames, and every batch it applied. */
function setup(): { batcher: DeltaBatcher; frames: ManualFrames; applied: (readonly ChatEvent[])[] } {
  const frames = new ManualFrames();
  const applied: (readonly ChatEvent[])[] = [];
  const batcher = new DeltaBatcher((events) => applied.push(events), frames.schedule);
  return { batcher, frames, applied };
}

function push(batcher: DeltaBatcher, delta: ChatEvent): void {
  if (!isDelta(delta)) throw new Error("not a delta");
  batcher.push(delta);
}

describe("the delta batcher", () => {
  it("applies a frame's deltas once, joined, on the frame", () => {
    const { batcher, frames, applied } = setup();
    const pieces = Array.from({ length: 500 }, (_, index) => `w${index} `);
    for (const piece of pieces) push(batcher, text(piece));
    expect(applied).toEqual([]);
    expect(frames.requested).toBe(1);
    frames.next();
    expect(applied).toEqual([[text(pieces.join(""))]]);
    // Nothing waits: no frame is asked for.
    frames.next();
    expect(applied).toHaveLength(1);
    expect(frames.waiting).toBe(0);
  });

  it("keeps text and reasoning in the order they came, and sessions apart", () => {
    const { batcher, frames, applied } = setup();
    push(batcher, reasoning("think "));
    push(batcher, reasoning("more"));
    push(batcher, text("Hello"));
    push(batcher, text(" world"));
    push(batcher, reasoning(" again"));
    push(batcher, text("elsewhere", "s2"));
    frames.next();
    expect(applied).toEqual([
      [reasoning("think more"), text("Hello world"), reasoning(" again"), text("elsewhere", "s2")],
    ]);
  });

  it("applies what waits at once when flushed, and not again on the frame", () => {
    const { batcher, frames, applied } = setup();
    push(batcher, text("before the tool"));
    expect(batcher.pending).toBe(true);
    batcher.flush();
    expect(applied).toEqual([[text("before the tool")]]);
    expect(batcher.pending).toBe(false);
    expect(frames.waiting).toBe(0);
    frames.next();
    expect(applied).toHaveLength(1);
    // The next delta asks for a new frame.
    push(batcher, text("after"));
    expect(frames.waiting).toBe(1);
  });

  it("drops what waits when disposed", () => {
    const { batcher, frames, applied } = setup();
    push(batcher, text("late"));
    batcher.dispose();
    frames.next();
    batcher.flush();
    expect(applied).toEqual([]);
  });

  it("tells deltas from other events", () => {
    expect(isDelta(text("x"))).toBe(true);
    expect(isDelta(reasoning("x"))).toBe(true);
    expect(isDelta(event({ type: "turn_started", sessionId: "s1" }))).toBe(false);
    expect(isDelta(event({ type: "tool_call_started", id: "c", name: "read_file", arguments: "{}" }))).toBe(false);
  });
});

describe("the window's frames", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("run a callback once, on the next animation frame", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "requestAnimationFrame", "cancelAnimationFrame"] });
    const callback = vi.fn();
    animationFrames(callback);
    expect(callback).not.toHaveBeenCalled();
    vi.advanceTimersByTime(17);
    expect(callback).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(HIDDEN_FLUSH_MS * 2);
    expect(callback).toHaveBeenCalledTimes(1);
  });

  it("fall back to a timer when frames do not come (a hidden window)", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    vi.stubGlobal("requestAnimationFrame", () => 1);
    vi.stubGlobal("cancelAnimationFrame", () => undefined);
    const callback = vi.fn();
    animationFrames(callback);
    vi.advanceTimersByTime(HIDDEN_FLUSH_MS - 1);
    expect(callback).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(callback).toHaveBeenCalledTimes(1);
  });

  it("can be cancelled", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "requestAnimationFrame", "cancelAnimationFrame"] });
    const callback = vi.fn();
    const cancel = animationFrames(callback);
    cancel();
    vi.advanceTimersByTime(HIDDEN_FLUSH_MS * 2);
    expect(callback).not.toHaveBeenCalled();
  });
});
