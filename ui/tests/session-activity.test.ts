import { describe, expect, it } from "vitest";

import type { SessionSummary } from "../src/bindings/SessionSummary";
import { activityLabel, withActivity } from "../src/lib/session-activity";

function session(id: string): SessionSummary {
  return {
    id,
    title: `Session ${id}`,
    createdAt: 1,
    updatedAt: 2,
    messageCount: 3,
    provider: null,
    model: null,
    activity: "idle",
  };
}

describe("what the session list says each session does", () => {
  it("changes the one session an event names, and nothing when it is unchanged", () => {
    const list = [session("1"), session("2")];
    const next = withActivity(list, { projectId: 1, sessionId: "2", state: "waiting" });
    expect(next?.map((s) => s.activity)).toEqual(["idle", "waiting"]);
    expect(list[1]?.activity, "the list it was given stays as it was").toBe("idle");
    expect(withActivity(list, { projectId: 1, sessionId: "1", state: "idle" })).toBe(list);
  });

  it("asks for the list again for a session it does not hold", () => {
    expect(withActivity([session("1")], { projectId: 1, sessionId: "9", state: "running" })).toBeNull();
  });

  it("marks every state but idle", () => {
    expect(activityLabel("idle")).toBeNull();
    expect(activityLabel("queued")).toBe("session.activity.queued");
    expect(activityLabel("running")).toBe("session.activity.running");
    expect(activityLabel("waiting")).toBe("session.activity.waiting");
  });
});
