import { describe, expect, it } from "vitest";

import type { DialogRequest } from "../src/bindings/DialogRequest";
import { closed, decision, keyOf, opened, sessionOf, shownIn, synced } from "../src/lib/dialogs";

function approval(id: number, sessionId: string | null = "1"): DialogRequest {
  return {
    kind: "approval",
    projectId: 1,
    request: {
      callId: `call_${id}`,
      sessionId,
      tool: "write_file",
      level: "sensitive",
      description: "Write a file.",
      arguments: { path: "a.txt" },
      preview: { kind: "diff", path: "a.txt", unified: "@@ -0,0 +1 @@\n+x\n" },
      sessionScope: ["write_file"],
      reason: { kind: "policy" as const },
    },
  };
}
function question(id: number): DialogRequest {
  return { kind: "question", projectId: 1, question: { callId: `call_${id}`, sessionId: "1", question: "Which?", options: ["a", "b"] } };
}

/** The calls of `queue`'s requests, in order. */
function calls(queue: readonly DialogRequest[]): string[] {
  return queue.map((request) => keyOf(request).callId);
}

describe("the dialog queue", () => {
  it("queues requests in arrival order, once each (by session and call)", () => {
    let queue = opened([], approval(2));
    queue = opened(queue, question(1));
    queue = opened(queue, approval(2));
    expect(calls(queue)).toEqual(["call_2", "call_1"]);
    // The same call id in another session is another request.
    queue = opened(queue, approval(2, "9"));
    expect(queue.map((request) => keyOf(request).sessionId)).toEqual(["1", "1", "9"]);
  });

  it("drops a request when it closes, whoever closed it", () => {
    const queue = closed([approval(1), question(2), approval(3)], { sessionId: "1", callId: "call_2" });
    expect(calls(queue)).toEqual(["call_1", "call_3"]);
    expect(closed(queue, { sessionId: "1", callId: "call_99" })).toEqual(queue);
    // A call of another session is not this one.
    expect(closed(queue, { sessionId: "2", callId: "call_1" })).toEqual(queue);
  });

  it("shows the shown session's requests and those that name no session", () => {
    const elsewhere = approval(3, "2");
    const nowhere = approval(4, null);
    const queue = [approval(1), question(2), elsewhere, nowhere];
    expect(sessionOf(question(2))).toBe("1");
    expect(sessionOf(elsewhere)).toBe("2");
    expect(calls(shownIn(queue, "1"))).toEqual(["call_1", "call_2", "call_4"]);
    expect(calls(shownIn(queue, "2"))).toEqual(["call_3", "call_4"]);
    expect(calls(shownIn(queue, null))).toEqual(["call_4"]);
  });

  it("takes the backend's pending list after a reload", () => {
    expect(calls(synced([question(4), approval(5)]))).toEqual(["call_4", "call_5"]);
  });
});

describe("the approval decisions", () => {
  it("builds the decisions the backend expects", () => {
    expect(decision("allow_once")).toEqual({ decision: "allow_once" });
    expect(decision("allow_for_session")).toEqual({ decision: "allow_for_session" });
    expect(decision("deny", "  too risky ")).toEqual({ decision: "deny", reason: "too risky" });
    expect(decision("deny", "  ")).toEqual({ decision: "deny", reason: null });
  });
});
