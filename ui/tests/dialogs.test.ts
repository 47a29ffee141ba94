import { describe, expect, it } from "vitest";

import type { DialogRequest } from "../src/bindings/DialogRequest";
import { closed, decision, opened, sessionOf, shownIn, synced } from "../src/lib/dialogs";

function approval(id: number, sessionId: string | null = "1"): DialogRequest {
  return {
    kind: "approval",
    id,
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
  return { kind: "question", id, projectId: 1, question: { callId: `call_${id}`, sessionId: "1", question: "Which?", options: ["a", "b"] } };
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

  it("shows the shown session's requests and those that name no session", () => {
    const elsewhere = approval(3, "2");
    const nowhere = approval(4, null);
    const queue = [approval(1), question(2), elsewhere, nowhere];
    expect(sessionOf(question(2))).toBe("1");
    expect(sessionOf(elsewhere)).toBe("2");
    expect(shownIn(queue, "1").map((r) => r.id)).toEqual([1, 2, 4]);
    expect(shownIn(queue, "2").map((r) => r.id)).toEqual([3, 4]);
    expect(shownIn(queue, null).map((r) => r.id)).toEqual([4]);
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
