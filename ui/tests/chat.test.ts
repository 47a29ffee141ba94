import { afterEach, describe, expect, it } from "vitest";

import type { ChatEvent } from "../src/bindings/ChatEvent";
import type { Message } from "../src/bindings/Message";
import type { Observation } from "../src/bindings/Observation";
import type { TurnEvent } from "../src/bindings/TurnEvent";
import {
  accepted,
  applyEvent,
  type AssistantItem,
  type ChatItem,
  type ChatState,
  emptyChat,
  fromTranscript,
  fromView,
  hasOlder,
  isLongResult,
  itemAt,
  resultHead,
  noticeText,
  prettyArguments,
  sendFailed,
  sent,
  statusFromText,
  type ToolCard,
  withOlder,
} from "../src/lib/chat";
import { resentAt, userIndexes } from "../src/lib/changes";
import { setLanguage } from "../src/lib/i18n.svelte";

const PROJECT = 7;
const SESSION = "s-1";

function event(turn: TurnEvent, sessionId = SESSION, projectId = PROJECT): ChatEvent {
  return { projectId, sessionId, seq: 0, event: turn };
}

/** Applies each event in order. */
function play(state: ChatState, ...turns: (TurnEvent | ChatEvent)[]): ChatState {
  return turns.reduce(
    (current, turn) => applyEvent(current, "event" in turn ? turn : event(turn), PROJECT),
    state,
  );
}

/** A session that is shown and idle. */
function shown(sessionId = SESSION): ChatState {
  return { ...emptyChat, sessionId };
}

function assistants(state: ChatState): AssistantItem[] {
  return state.items.filter((item): item is AssistantItem => item.kind === "assistant");
}

function cards(state: ChatState): ToolCard[] {
  return assistants(state).flatMap((item) => item.tools);
}

function notices(state: ChatState): Extract<ChatItem, { kind: "notice" }>[] {
  return state.items.filter((item): item is Extract<ChatItem, { kind: "notice" }> => item.kind === "notice");
}

function observation(kind: Observation["kind"], text: string, extra: Partial<Observation> = {}): Observation {
  return {
    tool: "read_file",
    text,
    kind,
    decision: { kind: kind === "denied" ? "denied" : "auto", by: kind === "denied" ? "user" : "policy", detail: null },
    duration: 12,
    truncated: false,
    diff: null,
    ...extra,
  };
}

function message(role: Message["role"], content: string, extra: Partial<Message> = {}): Message {
  // The engine leaves empty optional fields out of the JSON: build messages the same way.
  return { role, content, status: "complete", ...extra };
}

const started: TurnEvent = { type: "turn_started", sessionId: SESSION };
const completed: TurnEvent = { type: "turn_finished", reason: "completed", steps: 1, message: null };

describe("a streamed turn", () => {
  it("appends text deltas to one assistant message and ends with the turn", () => {
    let state = sent(shown(), "What is in src?");
    expect(state.running).toBe(true);
    state = play(
      state,
      started,
      { type: "reasoning_delta", text: "Let me " },
      { type: "reasoning_delta", text: "look." },
      { type: "text_delta", text: "It holds " },
      { type: "text_delta", text: "**main.rs**." },
      { type: "usage", promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    );
    expect(state.items.map((item) => item.kind)).toEqual(["user", "assistant"]);
    const [reply] = assistants(state);
    expect(reply).toMatchObject({ text: "It holds **main.rs**.", reasoning: "Let me look.", live: true });
    expect(state.running).toBe(true);

    state = play(state, completed);
    expect(state.running).toBe(false);
    expect(assistants(state)[0]).toMatchObject({ live: false, status: "complete" });
    expect(notices(state)).toEqual([]);
    expect(state.usage).toEqual({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    // Keys stay unique.
    expect(new Set(state.items.map((item) => item.key)).size).toBe(state.items.length);
  });

  it("starts a new assistant message for the reply after tool calls", () => {
    const state = play(
      sent(shown(), "go"),
      started,
      { type: "text_delta", text: "Reading." },
      { type: "tool_call_started", id: "c1", name: "read_file", arguments: '{"path":"a"}' },
      { type: "tool_result", id: "c1", name: "read_file", observation: observation("ok", "1\tfn a() {}") },
      { type: "text_delta", text: "Done." },
      completed,
    );
    const replies = assistants(state);
    expect(replies.map((reply) => reply.text)).toEqual(["Reading.", "Done."]);
    expect(replies[0]?.tools.map((tool) => tool.id)).toEqual(["c1"]);
    expect(replies[1]?.tools).toEqual([]);
  });
});

describe("tool calls", () => {
  it("pairs two interleaved calls with results that arrive out of order", () => {
    let state = play(
      sent(shown(), "compare"),
      started,
      { type: "tool_call_started", id: "a", name: "read_file", arguments: '{"path":"a.txt"}' },
      { type: "tool_call_started", id: "b", name: "grep_search", arguments: '{"pattern":"x"}' },
    );
    expect(cards(state).map((tool) => [tool.id, tool.status])).toEqual([
      ["a", "running"],
      ["b", "running"],
    ]);
    state = play(state, {
      type: "tool_result",
      id: "b",
      name: "grep_search",
      observation: observation("error", "[error] invalid regex", { tool: "grep_search", duration: 40 }),
    });
    expect(cards(state).map((tool) => [tool.id, tool.status])).toEqual([
      ["a", "running"],
      ["b", "error"],
    ]);
    state = play(state, {
      type: "tool_result",
      id: "a",
      name: "read_file",
      observation: observation("ok", "1\thello", { duration: 3, diff: null, truncated: true }),
    });
    const [a, b] = cards(state);
    expect(a).toMatchObject({ status: "ok", result: "1\thello", durationMs: 3, truncated: true });
    expect(b).toMatchObject({ status: "error", result: "[error] invalid regex", durationMs: 40 });
    // Both cards sit in the one reply that called them.
    expect(assistants(state)).toHaveLength(1);
  });

  it("marks a card awaiting approval, then denied with the user's reason", () => {
    let state = play(
      sent(shown(), "write it"),
      started,
      { type: "tool_call_started", id: "w1", name: "write_file", arguments: '{"path":"a.txt","content":"x"}' },
      { type: "approval_requested", toolCallId: "w1" },
    );
    expect(cards(state)[0]?.status).toBe("awaiting_approval");
    state = play(state, {
      type: "tool_result",
      id: "w1",
      name: "write_file",
      observation: {
        ...observation("denied", "[denied] the user denied tool 'write_file': not that file"),
        decision: { kind: "denied", by: "user", detail: "not that file" },
      },
    });
    expect(cards(state)[0]).toMatchObject({ status: "denied", reason: "not that file" });
  });

  it("runs a card again once its approval is granted", () => {
    const state = play(
      sent(shown(), "write two"),
      started,
      { type: "tool_call_started", id: "w1", name: "write_file", arguments: "{}" },
      { type: "approval_requested", toolCallId: "w1" },
    );
    expect(cards(state)[0]?.status).toBe("awaiting_approval");
    const allowed = play(state, { type: "approval_resolved", toolCallId: "w1", allowed: true });
    expect(cards(allowed)[0]?.status).toBe("running");
    // A denial leaves the card waiting for its result, which says denied.
    const denied = play(state, { type: "approval_resolved", toolCallId: "w1", allowed: false });
    expect(cards(denied)[0]?.status).toBe("awaiting_approval");
  });

  it("shows a running call's progress on its card until its result", () => {
    const state = play(
      sent(shown(), "index"),
      started,
      { type: "tool_call_started", id: "p1", name: "mcp__idx__slow", arguments: "{}" },
      { type: "tool_progress", id: "p1", progress: { progress: 2, total: 5, message: "indexing src" } },
      { type: "tool_progress", id: "other", progress: { progress: 9, total: null, message: null } },
    );
    expect(cards(state)[0]?.progress).toEqual({ progress: 2, total: 5, message: "indexing src" });
    const done = play(state, { type: "tool_result", id: "p1", name: "mcp__idx__slow", observation: observation("ok", "done") });
    expect(cards(done)[0]?.progress).toBeNull();
  });

  it("links an approval to its card by the call id only, never by the tool's name", () => {
    const state = play(
      sent(shown(), "run"),
      started,
      { type: "tool_call_started", id: "r1", name: "run_command", arguments: "{}" },
      { type: "tool_call_started", id: "r2", name: "run_command", arguments: "{}" },
      { type: "approval_requested", toolCallId: "r1" },
    );
    expect(cards(state).map((card) => card.status)).toEqual(["awaiting_approval", "running"]);
    // An approval for a call this view never saw changes no card.
    const unknown = play(state, { type: "approval_requested", toolCallId: "elsewhere" });
    expect(cards(unknown).map((card) => card.status)).toEqual(["awaiting_approval", "running"]);
  });

  it("shows a call's arguments arriving in bytes, then its card", () => {
    let state = play(
      sent(shown(), "write a big file"),
      started,
      { type: "text_delta", text: "Writing it now." },
      { type: "tool_call_streaming", index: 0, name: "write_file", bytes: 2048 },
    );
    expect(assistants(state)[0]?.receiving).toEqual({ name: "write_file", bytes: 2048 });
    state = play(state, { type: "tool_call_streaming", index: 0, name: "write_file", bytes: 90_000 });
    expect(assistants(state)).toHaveLength(1);
    expect(assistants(state)[0]?.receiving?.bytes).toBe(90_000);
    state = play(state, { type: "tool_call_started", id: "w1", name: "write_file", arguments: "{}" });
    expect(assistants(state)[0]?.receiving ?? null).toBeNull();
    expect(cards(state)).toHaveLength(1);
  });

  it("keeps the diff of a result", () => {
    const diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n";
    const state = play(
      sent(shown(), "edit"),
      started,
      { type: "tool_call_started", id: "e1", name: "edit_file", arguments: "{}" },
      { type: "tool_result", id: "e1", name: "edit_file", observation: observation("ok", "edited", { diff }) },
    );
    expect(cards(state)[0]?.diff).toBe(diff);
  });
});

describe("retries, cancellation, errors", () => {
  it("drops the text streamed before a retry, keeping earlier replies", () => {
    let state = play(
      sent(shown(), "go"),
      started,
      { type: "text_delta", text: "Reading." },
      { type: "tool_call_started", id: "c1", name: "read_file", arguments: "{}" },
      { type: "tool_result", id: "c1", name: "read_file", observation: observation("ok", "x") },
      { type: "reasoning_delta", text: "hmm" },
      { type: "text_delta", text: "The answer is 4" },
      { type: "retrying", attempt: 1, maxRetries: 3, delayMs: 1500, reason: "HTTP 429: slow down" },
    );
    expect(assistants(state).map((reply) => reply.text)).toEqual(["Reading."]);
    const [retry] = notices(state);
    expect(retry?.notice).toBe("retrying");
    const said = retry ? noticeText(retry) : "";
    expect(said).toContain("HTTP 429: slow down");
    expect(said).toContain("retrying in 1.5 s");
    expect(said).toContain("attempt 1 of 3");

    state = play(state, { type: "text_delta", text: "The answer is 42." }, completed);
    expect(assistants(state).map((reply) => reply.text)).toEqual(["Reading.", "The answer is 42."]);
  });

  it("ends a cancelled turn: partial text kept, running cards cancelled, a marker shown", () => {
    const state = play(
      sent(shown(), "go"),
      started,
      { type: "text_delta", text: "Let me check" },
      { type: "tool_call_started", id: "c1", name: "run_command", arguments: '{"command":"sleep 100"}' },
      { type: "turn_finished", reason: "cancelled", steps: 1, message: null },
    );
    expect(state.running).toBe(false);
    expect(assistants(state)[0]).toMatchObject({ text: "Let me check", status: "cancelled", live: false });
    expect(cards(state)[0]?.status).toBe("cancelled");
    // The stopped reply says so itself: no second note.
    expect(notices(state)).toEqual([]);
  });

  it("says 'stopped' once however many replies the turn had", () => {
    const state = play(
      sent(shown(), "go"),
      started,
      { type: "text_delta", text: "First I read" },
      { type: "tool_call_started", id: "c1", name: "read_file", arguments: '{"path":"a"}' },
      {
        type: "tool_result",
        id: "c1",
        name: "read_file",
        observation: { tool: "read_file", text: "a", kind: "ok", decision: { kind: "auto", by: "policy", detail: null }, duration: 3, truncated: false, diff: null },
      },
      { type: "text_delta", text: "Now I run" },
      { type: "tool_call_started", id: "c2", name: "run_command", arguments: '{"command":"sleep 100"}' },
      { type: "turn_finished", reason: "cancelled", steps: 2, message: null },
    );
    expect(assistants(state).map((item) => item.status)).toEqual(["complete", "cancelled"]);
    expect(cards(state).map((card) => card.status)).toEqual(["ok", "cancelled"]);
    expect(notices(state)).toEqual([]);
  });

  it("notes a turn stopped before the model replied", () => {
    const state = play(sent(shown(), "go"), started, { type: "turn_finished", reason: "cancelled", steps: 0, message: null });
    expect(notices(state).map((notice) => [notice.notice, noticeText(notice)])).toEqual([["cancelled", "Cancelled."]]);
  });

  it("shows the step limit's and a fatal error's message once", () => {
    const limited = play(sent(shown(), "go"), started, {
      type: "turn_finished",
      reason: "step_limit",
      steps: 25,
      message: "Stopped after 25 steps.",
    });
    expect(notices(limited).map((notice) => [notice.notice, notice.text])).toEqual([
      ["step_limit", "Stopped after 25 steps."],
    ]);

    const failed = play(
      sent(shown(), "go"),
      started,
      { type: "error", message: "the provider refused: 401", fatal: true },
      { type: "turn_finished", reason: "error", steps: 1, message: "the provider refused: 401" },
    );
    expect(notices(failed).map((notice) => [notice.notice, notice.text])).toEqual([
      ["error", "the provider refused: 401"],
    ]);
    expect(failed.running).toBe(false);
  });

  it("notes a shortened context", () => {
    const state = play(shown(), started, {
      type: "context_shortened",
      shortened: 2,
      dropped: 4,
      estimatedTokens: 7000,
      budgetTokens: 8192,
    });
    const [fitted] = notices(state);
    expect(fitted && noticeText(fitted)).toContain("4 older messages left out, 2 tool results shortened");
    expect(fitted && noticeText(fitted)).toContain("about 7000 of 8192 tokens");
  });

  it("notes one dropped message in the singular", () => {
    const state = play(shown(), started, {
      type: "context_shortened",
      shortened: 0,
      dropped: 1,
      estimatedTokens: 100,
      budgetTokens: 200,
    });
    const [fitted] = notices(state);
    expect(fitted && noticeText(fitted)).toBe(
      "The conversation was fitted into the context window: 1 older message left out; about 100 of 200 tokens.",
    );
  });

  describe("in Chinese", () => {
    afterEach(() => {
      setLanguage("system");
    });

    it("words the UI's notices in the language shown, even after they arrived; the engine's stay as they came", () => {
      const state = play(
        shown(),
        started,
        { type: "context_shortened", shortened: 2, dropped: 4, estimatedTokens: 7000, budgetTokens: 8192 },
        { type: "retrying", attempt: 2, maxRetries: 3, delayMs: 12_000, reason: "HTTP 503" },
        { type: "turn_finished", reason: "step_limit", steps: 25, message: "Stopped after 25 steps." },
      );
      setLanguage("zh-CN");
      expect(notices(state).map(noticeText)).toEqual([
        "对话已压缩以放入上下文窗口：省略了 4 条较早的消息，截短了 2 个工具结果；约 7000 个 token，上限 8192。",
        "提供方请求失败（HTTP 503），12 秒后重试（第 2 次，共 3 次）。",
        "Stopped after 25 steps.",
      ]);
    });
  });
});

describe("sessions", () => {
  it("ignores events of another session or project", () => {
    const before = sent(shown(), "hi");
    const after = play(
      before,
      event({ type: "text_delta", text: "other session" }, "s-2"),
      event({ type: "text_delta", text: "other project" }, SESSION, PROJECT + 1),
      event({ type: "turn_finished", reason: "completed", steps: 1, message: null }, "s-2"),
    );
    expect(after).toBe(before);
    expect(after.running).toBe(true);
  });

  it("lets a fresh chat adopt its session from turn_started, not from another session's events", () => {
    let state = sent(emptyChat, "first message");
    expect(state.awaitingSession).toBe(true);
    // A finishing turn of the session left behind says nothing to the fresh chat.
    state = play(state, event({ type: "text_delta", text: "late" }, "old"));
    expect(state.items).toHaveLength(1);
    state = play(state, event({ type: "turn_started", sessionId: "new" }, "new"));
    expect(state.sessionId).toBe("new");
    state = play(state, event({ type: "text_delta", text: "Hello" }, "new"));
    expect(assistants(state)[0]?.text).toBe("Hello");
    // The command's answer agrees.
    expect(accepted(state, "new").sessionId).toBe("new");
  });

  it("does not adopt a session while no message is on its way", () => {
    const state = play(emptyChat, event({ type: "turn_started", sessionId: "x" }, "x"));
    expect(state).toBe(emptyChat);
  });

  it("takes the message back when sending failed", () => {
    const state = sendFailed(sent(shown(), "hello"), "hello");
    expect(state.items).toEqual([]);
    expect(state.running).toBe(false);
  });
});

describe("the stored transcript", () => {
  const transcript: Message[] = [
    message("user", "Change a.txt"),
    message("assistant", "I'll write it.", {
      reasoning: "The user wants a change.",
      toolCalls: [
        { id: "c1", name: "write_file", arguments: '{"path":"a.txt"}' },
        { id: "c2", name: "read_file", arguments: '{"path":"b.txt"}' },
      ],
    }),
    message("tool", "[denied] the user denied tool 'write_file': use b.txt instead", { toolCallId: "c1" }),
    message("tool", "1\tcontent of b", { toolCallId: "c2" }),
    message("assistant", "Understood, I won't."),
  ];

  it("pairs tool messages with their calls and reads their status from the text", () => {
    const items = fromTranscript(transcript);
    expect(items.map((item) => item.kind)).toEqual(["user", "assistant", "assistant"]);
    const first = items[1] as AssistantItem;
    expect(first.reasoning).toBe("The user wants a change.");
    expect(first.tools).toMatchObject([
      { id: "c1", name: "write_file", status: "denied", reason: "use b.txt instead" },
      { id: "c2", name: "read_file", status: "ok", result: "1\tcontent of b" },
    ]);
    expect((items[2] as AssistantItem).tools).toEqual([]);
  });

  it("marks calls without a result cancelled, unless the turn still runs", () => {
    const cut = [message("user", "go"), message("assistant", "", { toolCalls: [{ id: "x", name: "run_command", arguments: "{}" }] })];
    expect((fromTranscript(cut)[1] as AssistantItem).tools[0]?.status).toBe("cancelled");
    const live = fromView({ session: null, messages: cut, running: true, seq: 0, turn: null, queued: null, firstOrdinal: 0, usersBefore: 0, clipped: [] });
    expect((live.items[1] as AssistantItem).tools[0]?.status).toBe("running");
    expect(live.running).toBe(true);
  });

  it("restores a card from its stored outcome exactly as it was live", () => {
    const outcome = {
      kind: "ok" as const,
      decision: { kind: "allowed_by_rule" as const, by: "rule" as const, detail: "writes under src", rule: 4 },
      durationMs: 31,
      truncated: false,
      diff: "--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1 @@\n+v1\n",
      level: "sensitive" as const,
    };
    const stored = [
      message("user", "write"),
      message("assistant", "", { toolCalls: [{ id: "w", name: "write_file", arguments: '{"path":"a.txt"}' }] }),
      message("tool", "[denied] looks denied but the outcome says ok", { toolCallId: "w", outcome }),
    ];
    const tool = (fromTranscript(stored)[1] as AssistantItem).tools[0];
    const live = play(
      shown(),
      { type: "tool_call_started", id: "w", name: "write_file", arguments: '{"path":"a.txt"}' },
      {
        type: "tool_result",
        id: "w",
        name: "write_file",
        observation: {
          tool: "write_file",
          text: "[denied] looks denied but the outcome says ok",
          kind: "ok",
          decision: outcome.decision,
          duration: 31,
          truncated: false,
          diff: outcome.diff,
        },
      },
    );
    const liveTool = (live.items.at(-1) as AssistantItem).tools[0];
    expect(tool).toEqual({ ...liveTool, level: "sensitive", ordinal: 2, clipped: false });
    expect(tool?.diff).toContain("+v1");
    expect(tool?.decision?.rule).toBe(4);
  });

  it("finds the item that shows a stored message", () => {
    const state = fromView({ session: null, messages: transcript, running: false, seq: 0, turn: null, queued: null, firstOrdinal: 0, usersBefore: 0, clipped: [] });
    const keys = state.items.map((item) => item.key);
    expect(itemAt(state, 0)).toBe(keys[0]);
    expect(itemAt(state, 1)).toBe(keys[1]);
    // A tool result is shown by the reply that called it.
    expect(itemAt(state, 3)).toBe(keys[1]);
    expect(itemAt(state, 4)).toBe(keys[2]);
    expect(itemAt(state, 9)).toBeNull();
  });

  it("rebuilds a running turn from its user message and its events", () => {
    const session = { id: SESSION, title: "t", model: null, provider: null, messageCount: 4, createdAt: 0, updatedAt: 0, activity: "idle" as const };
    const messages = [
      message("user", "one"),
      message("assistant", "First."),
      message("user", "two"),
      // Saved while the turn ran: the replayed events show it again, so it is not taken.
      message("assistant", "", { toolCalls: [{ id: "r", name: "read_file", arguments: "{}" }] }),
    ];
    const replay = [
      event({ type: "turn_started", sessionId: SESSION }),
      event({ type: "tool_call_started", id: "r", name: "read_file", arguments: "{}" }),
      event({ type: "text_delta", text: "Reading" }),
    ];
    const state = fromView(
      { session, messages, running: true, seq: 3, turn: { firstOrdinal: 2, startSeq: 1 }, queued: null, firstOrdinal: 0, usersBefore: 0, clipped: [] },
      replay,
    );
    expect(state.running).toBe(true);
    expect(state.items.map((item) => item.kind)).toEqual(["user", "assistant", "user", "assistant", "assistant"]);
    const tools = state.items.flatMap((item) => (item.kind === "assistant" ? item.tools : []));
    expect(tools.map((tool) => [tool.id, tool.status])).toEqual([["r", "running"]]);
    expect((state.items.at(-1) as AssistantItem).text).toBe("Reading");
  });

  it.each([
    ["[denied] the user denied tool 'x'", "denied"],
    ["[disabled] tool 'shell' is disabled (level: dangerous)", "disabled"],
    ["[error] nope", "error"],
    ["[cancelled] the call was cancelled before it finished", "cancelled"],
    ["[error] invalid arguments for tool 'echo':\n- missing field", "bad_arguments"],
    ["[error] arguments are not valid JSON: EOF", "bad_arguments"],
    ["[bad arguments] x", "bad_arguments"],
    ["[bad_arguments] x", "bad_arguments"],
    ["1\tfn main() {} // [error] inside", "ok"],
    ["", "ok"],
  ])("reads %j as %s", (text, status) => {
    expect(statusFromText(text)).toBe(status);
  });
});

describe("a long session, a page at a time", () => {
  const session = { id: SESSION, title: "t", model: null, provider: null, messageCount: 12, createdAt: 0, updatedAt: 0, activity: "idle" as const };
  /** Turn `n`: its question, a call, its result, the answer (ordinals 4n to 4n + 3). */
  const turn = (n: number): Message[] => [
    message("user", `question ${String(n)}`),
    message("assistant", "", { toolCalls: [{ id: `c${String(n)}`, name: "read_file", arguments: "{}" }] }),
    message("tool", `head of result ${String(n)}`, { toolCallId: `c${String(n)}` }),
    message("assistant", `answer ${String(n)}`),
  ];
  const tail = fromView({
    session,
    messages: [...turn(1), ...turn(2)].slice(1),
    running: false,
    seq: 0,
    turn: null, queued: null,
    firstOrdinal: 5,
    usersBefore: 2,
    clipped: [6],
  });

  it("opens at the tail: ordinals, shortened results and user numbers count what is not read", () => {
    expect(tail.firstOrdinal).toBe(5);
    expect(hasOlder(tail)).toBe(true);
    expect(itemAt(tail, 8)).toBe(tail.items[2]?.key);
    const card = (tail.items[0] as AssistantItem).tools[0];
    expect(card).toMatchObject({ ordinal: 6, clipped: true, result: "head of result 1" });
    expect((tail.items[3] as AssistantItem).tools[0]).toMatchObject({ ordinal: 10, clipped: false });
    // The only user message shown is the session's third.
    expect([...userIndexes(tail.items, tail.usersBefore).values()]).toEqual([2]);
  });

  it("puts an older page before the items, which keep their keys", () => {
    const keys = tail.items.map((item) => item.key);
    const older = withOlder(tail, SESSION, { firstOrdinal: 0, usersBefore: 0, messages: [...turn(0), message("user", "question 1")], clipped: [2] });
    expect(older.firstOrdinal).toBe(0);
    expect(older.usersBefore).toBe(0);
    expect(hasOlder(older)).toBe(false);
    expect(older.items.slice(-keys.length).map((item) => item.key)).toEqual(keys);
    expect(new Set(older.items.map((item) => item.key)).size).toBe(older.items.length);
    expect(older.nextKey).toBe(tail.nextKey + 4);
    expect(itemAt(older, 0)).toBe(older.items[0]?.key);
    expect((older.items[1] as AssistantItem).tools[0]).toMatchObject({ ordinal: 2, clipped: true });
    expect([...userIndexes(older.items, older.usersBefore).values()]).toEqual([0, 1, 2]);
    // A resend at the session's third user message cuts at the same item, however much is read.
    const third = (state: ChatState) => resentAt(state, 2, "again").items.at(-1);
    expect(third(tail)).toMatchObject({ kind: "user", text: "again", key: tail.items[2]?.key });
    expect(third(older)).toMatchObject({ kind: "user", text: "again", key: tail.items[2]?.key });
  });

  it("ignores a page that does not end where the items start, or of another session", () => {
    const stale = { firstOrdinal: 0, usersBefore: 0, messages: turn(0), clipped: [] };
    expect(withOlder(tail, SESSION, stale)).toBe(tail);
    expect(withOlder(tail, "other", { ...stale, messages: [...turn(0), message("user", "q")] })).toBe(tail);
  });

  it("marks a live card whose result came shortened", () => {
    const live = play(
      sent(shown(), "read it"),
      { type: "turn_started", sessionId: SESSION },
      { type: "tool_call_started", id: "big", name: "read_file", arguments: "{}" },
      { ...event({ type: "tool_result", id: "big", name: "read_file", observation: observation("ok", "the head") }), clippedBytes: 90_000 },
      { type: "tool_call_started", id: "small", name: "read_file", arguments: "{}" },
      { type: "tool_result", id: "small", name: "read_file", observation: observation("ok", "all of it") },
    );
    const tools = live.items.flatMap((item) => (item.kind === "assistant" ? item.tools : []));
    expect(tools.map((tool) => [tool.id, tool.result, tool.clipped === true])).toEqual([
      ["big", "the head", true],
      ["small", "all of it", false],
    ]);
  });

  it("shows a queued turn's message (not stored yet) where it will be stored", () => {
    const queued = message("user", "question 3");
    const view = { session, messages: turn(2), running: true, seq: 0, firstOrdinal: 4, usersBefore: 1, clipped: [], queued };
    for (const state of [
      fromView({ ...view, turn: { firstOrdinal: 8, startSeq: 1 } }, []),
      fromView({ ...view, turn: null }),
    ]) {
      expect(state.running).toBe(true);
      expect(state.items.map((item) => item.kind)).toEqual(["user", "assistant", "assistant", "user"]);
      expect(state.items.at(-1)).toMatchObject({ kind: "user", text: "question 3" });
      expect([...userIndexes(state.items, state.usersBefore).values()]).toEqual([1, 2]);
    }
    // Once its turn starts the events follow it as for any turn.
    const started = fromView({ ...view, turn: { firstOrdinal: 8, startSeq: 1 } }, [
      event({ type: "turn_started", sessionId: SESSION }),
      event({ type: "text_delta", text: "Now" }),
    ]);
    expect((started.items.at(-1) as AssistantItem).text).toBe("Now");
    expect(started.items.filter((item) => item.kind === "user")).toHaveLength(2);
  });

  it("replays a running turn from its first message within the page", () => {
    const running = fromView(
      { session, messages: [...turn(1), message("user", "question 2")], running: true, seq: 1, turn: { firstOrdinal: 8, startSeq: 1 }, queued: null, firstOrdinal: 4, usersBefore: 1, clipped: [] },
      [event({ type: "turn_started", sessionId: SESSION }), event({ type: "text_delta", text: "Live" })],
    );
    expect(running.items.map((item) => item.kind)).toEqual(["user", "assistant", "assistant", "user", "assistant"]);
    expect((running.items.at(-1) as AssistantItem).text).toBe("Live");
    expect(running.firstOrdinal).toBe(4);
  });
});

describe("display helpers", () => {
  it("pretty-prints JSON arguments and keeps invalid ones as written", () => {
    expect(prettyArguments('{"path":"a","n":1}')).toBe('{\n  "path": "a",\n  "n": 1\n}');
    expect(prettyArguments('{"path": "a"')).toBe('{"path": "a"');
    expect(prettyArguments("")).toBe("{}");
  });

  it("folds results longer than twenty lines, showing their first twenty", () => {
    const lines = (count: number): string => Array.from({ length: count }, (_, index) => `line ${String(index + 1)}`).join("\n");
    expect(isLongResult("a\nb\nc")).toBe(false);
    expect(isLongResult(lines(20))).toBe(false);
    expect(isLongResult(lines(21))).toBe(true);
    expect(isLongResult("x".repeat(5000))).toBe(true);
    expect(resultHead(lines(30)).split("\n")).toHaveLength(20);
    expect(resultHead(lines(30)).endsWith("line 20")).toBe(true);
    expect(resultHead(lines(5))).toBe(lines(5));
  });
});
