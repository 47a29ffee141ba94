import { describe, expect, it } from "vitest";

import type { DialogRequest } from "../src/bindings/DialogRequest";
import { closed, decision, opened, synced } from "../src/lib/dialogs";

function approval(id: number): DialogRequest {
  return {
    kind: "approval",
    id,
    request: {
      callId: `call_${id}`,
      sessionId: "1",
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
  return { kind: "question", id, question: { callId: `call_${id}`, sessionId: "1", question: "Which?", options: ["a", "b"] } };
}

describe("the dialog queue", () => {
  it("queues requests in id order, once each", () => {
    let queue = opened([], approval(2));
    queue = opened(queue, question(1));
    queue = opened(queue, approval(2));
    expect(queue.map((r) => r.id)).toEqual([1, 2]);
  });

  it("drops a request when it closes, whoever closed it", () => {
    const queue = closed([approval(1), question(2), approval(3)], 2);
    expect(queue.map((r) => r.id)).toEqual([1, 3]);
    expect(closed(queue, 99)).toEqual(queue);
  });

  it("takes the backend's pending list after a reload", () => {
    expect(synced([approval(5), question(4)]).map((r) => r.id)).toEqual([4, 5]);
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
