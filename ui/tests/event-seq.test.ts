import { describe, expect, it } from "vitest";
import type { ChatEvent } from "../src/bindings/ChatEvent";
import { SeqGate } from "../src/lib/event-seq";

function event(seq: number, text = String(seq)): ChatEvent {
  return { projectId: 1, sessionId: "s", seq, event: { type: "text_delta", text } };
}

describe("SeqGate", () => {
  it("applies events in order and skips what was already applied", () => {
    const gate = new SeqGate(2);
    expect(gate.accept(event(1))).toBe("skip");
    expect(gate.accept(event(2))).toBe("skip");
    expect(gate.accept(event(3))).toBe("apply");
    expect(gate.accept(event(3))).toBe("skip");
    expect(gate.accept(event(4))).toBe("apply");
    expect(gate.last).toBe(4);
  });

  it("reports a hole once and holds later events until the catch-up answers", () => {
    const gate = new SeqGate(1);
    expect(gate.accept(event(4))).toBe("gap");
    expect(gate.catching).toBe(true);
    expect(gate.accept(event(5))).toBe("skip");
    // The catch-up brings 2..4 (4 twice: fetched and held); 5 was held.
    const applied = gate.caughtUp([event(2), event(3), event(4)]);
    expect(applied.map((e) => e.seq)).toEqual([2, 3, 4, 5]);
    expect(gate.last).toBe(5);
    expect(gate.catching).toBe(false);
    expect(gate.accept(event(6))).toBe("apply");
  });

  it("stops at a hole the catch-up did not fill", () => {
    const gate = new SeqGate(0);
    expect(gate.accept(event(3))).toBe("gap");
    const applied = gate.caughtUp([event(1)]);
    expect(applied.map((e) => e.seq)).toEqual([1]);
    expect(gate.last).toBe(1);
    expect(gate.accept(event(3))).toBe("gap");
  });

  it("starts again from a loaded view", () => {
    const gate = new SeqGate(0);
    gate.accept(event(5));
    gate.reset(7);
    expect(gate.catching).toBe(false);
    expect(gate.accept(event(7))).toBe("skip");
    expect(gate.accept(event(8))).toBe("apply");
    gate.abandon(0);
    expect(gate.last).toBe(0);
  });
});
