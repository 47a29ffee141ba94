import { describe, expect, it } from "vitest";

import { activityKey, activityOf, elapsedSeconds } from "../src/lib/activity";
import { emptyChat, type ChatItem, type ChatState, type ToolCard } from "../src/lib/chat";

function tool(name: string, status: ToolCard["status"], id = `call-${name}`): ToolCard {
  return { id, name, arguments: "{}", status, result: null, durationMs: null, truncated: false, diff: null, reason: null, progress: null, decision: null };
}

function reply(text: string, tools: ToolCard[] = [], live = true): ChatItem {
  return { kind: "assistant", key: 2, text, reasoning: "", tools, status: "complete", live };
}

function running(...items: ChatItem[]): ChatState {
  return { ...emptyChat, running: true, items: [{ kind: "user", key: 1, text: "hi" }, ...items] };
}

describe("what a turn is doing", () => {
  it("is idle when no turn runs, whatever the transcript holds", () => {
    expect(activityOf(emptyChat)).toEqual({ kind: "idle" });
    expect(activityOf({ ...running(reply("", [tool("read_file", "running")])), running: false })).toEqual({ kind: "idle" });
  });

  it("waits for the model until its first words, and again after the tools answered", () => {
    expect(activityOf(running())).toEqual({ kind: "waiting_for_model" });
    expect(activityOf(running(reply("")))).toEqual({ kind: "waiting_for_model" });
    expect(activityOf(running(reply("Reading it.", [tool("read_file", "ok")])))).toEqual({ kind: "waiting_for_model" });
    expect(activityOf(running(reply("done", [], false)))).toEqual({ kind: "waiting_for_model" });
  });

  it("receives while text streams", () => {
    expect(activityOf(running(reply("Hel")))).toEqual({ kind: "receiving" });
  });

  it("names the tool that runs, and an approval before anything else", () => {
    expect(activityOf(running(reply("", [tool("grep_search", "ok"), tool("run_command", "running")])))).toEqual({
      kind: "running_tool",
      id: "call-run_command",
      tool: "run_command",
    });
    expect(
      activityOf(running(reply("", [tool("read_file", "running"), tool("write_file", "awaiting_approval")]))),
    ).toEqual({ kind: "awaiting_approval", id: "call-write_file", tool: "write_file" });
  });

  it("keys each activity so the elapsed time restarts when it changes", () => {
    expect(activityKey({ kind: "running_tool", id: "1", tool: "a" })).not.toBe(activityKey({ kind: "running_tool", id: "2", tool: "b" }));
    expect(activityKey({ kind: "waiting_for_model" })).toBe("waiting_for_model");
  });

  it("restarts the elapsed time for a second call of the same tool", () => {
    const first = activityOf(running(reply("", [tool("run_command", "running", "call-1")])));
    const second = activityOf(running(reply("", [tool("run_command", "ok", "call-1"), tool("run_command", "running", "call-2")])));
    expect(activityKey(first)).not.toBe(activityKey(second));
    const asking = activityOf(running(reply("", [tool("write_file", "awaiting_approval", "call-3")])));
    const askingAgain = activityOf(running(reply("", [tool("write_file", "denied", "call-3"), tool("write_file", "awaiting_approval", "call-4")])));
    expect(activityKey(asking)).not.toBe(activityKey(askingAgain));
  });

  it("shows the elapsed time only once a wait is long enough to wonder about", () => {
    expect(elapsedSeconds(1000, 2500)).toBeNull();
    expect(elapsedSeconds(1000, 3000)).toBe(2);
    expect(elapsedSeconds(0, 61_900)).toBe(61);
  });
});
