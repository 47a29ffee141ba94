import { describe, expect, it } from "vitest";

import type { Message } from "../src/bindings/Message";
import type { TurnEvent } from "../src/bindings/TurnEvent";
import {
  applyTurnEvent,
  type ChatState,
  emptyChat,
  foldedCount,
  fromTranscript,
  sent,
  summaryEdited,
} from "../src/lib/chat";

function message(role: Message["role"], content: string, fields: Partial<Message> = {}): Message {
  return { role, content, status: "complete", ...fields };
}

const compacted: TurnEvent = { type: "compacted", ordinal: 2, summarised: 2, summary: "NOTES" };

describe("summaries in the chat", () => {
  it("a stored summary is an item of its own, and what it replaces folds above it", () => {
    const items = fromTranscript([
      message("user", "first"),
      message("assistant", "One."),
      message("assistant", "NOTES", { kind: "summary" }),
      message("user", "second"),
    ]);
    expect(items.map((item) => item.kind)).toEqual(["user", "assistant", "summary", "user"]);
    expect(items[2]).toMatchObject({ kind: "summary", text: "NOTES", ordinal: 2 });
    expect(foldedCount(items)).toBe(2);
    expect(foldedCount(items.slice(0, 2))).toBe(0);
  });

  it("a summary made as a turn starts goes before the message that started it", () => {
    let state: ChatState = { ...emptyChat, sessionId: "1", items: fromTranscript([message("user", "a"), message("assistant", "b")]), nextKey: 3 };
    state = sent(state, "next");
    state = applyTurnEvent(state, { type: "compaction_started", automatic: true });
    expect(state.compacting).toBe(true);
    state = applyTurnEvent(state, compacted);
    expect(state.compacting).toBe(false);
    expect(state.items.map((item) => item.kind)).toEqual(["user", "assistant", "summary", "user"]);
    expect(foldedCount(state.items)).toBe(2);
  });

  it("a summary asked for between turns comes last, and an edit changes its text", () => {
    let state: ChatState = { ...emptyChat, sessionId: "1", items: fromTranscript([message("user", "a"), message("assistant", "b")]), nextKey: 3 };
    state = applyTurnEvent(state, compacted);
    expect(state.items.at(-1)).toMatchObject({ kind: "summary", text: "NOTES" });
    state = summaryEdited(state, 2, "BETTER");
    expect(state.items.at(-1)).toMatchObject({ kind: "summary", text: "BETTER" });
  });

  it("the gauge follows the context events", () => {
    const usage = {
      windowTokens: 100, systemTokens: 1, summaryTokens: 0, toolTokens: 2, transcriptTokens: 3,
      attachmentTokens: 0, reportedTokens: null, replyReserveTokens: 10, compactAtTokens: 80, summarisedMessages: 0, instructions: [],
    };
    const state = applyTurnEvent({ ...emptyChat, sessionId: "1" }, { type: "context", usage });
    expect(state.context).toEqual(usage);
  });
});
