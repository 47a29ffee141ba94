// When the chat loads the Markdown renderer: never for a fresh chat; before it shows a chat with
// messages (so none shows as raw text first); as soon as a message is sent (the answer is
// Markdown). The loader and the backend are mocked.

import { describe, expect, it, vi } from "vitest";

import type { ChatView } from "../src/bindings/ChatView";
import { ProjectChat } from "../src/lib/project-chat.svelte";
import { ManualFrames } from "./support/frames";

const { call, handlers, loader } = vi.hoisted(() => {
  let loaded: object | null = null;
  let finish: (() => void) | null = null;
  return {
    call: vi.fn(),
    handlers: new Map<string, (payload: unknown) => void>(),
    loader: {
      loadMarkdown: vi.fn(
        () =>
          new Promise<object>((resolve) => {
            finish = () => {
              loaded = {};
              resolve(loaded);
            };
          }),
      ),
      markdownRenderer: () => loaded,
      /** Ends the pending load. */
      finish: () => finish?.(),
    },
  };
});

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const { mockedIpc } = await import("./support/ipc-mock");
  return mockedIpc(await importOriginal(), call, handlers);
});

vi.mock("../src/lib/markdown-loader", () => ({
  loadMarkdown: loader.loadMarkdown,
  markdownRenderer: loader.markdownRenderer,
  onMarkdownLoaded: () => () => undefined,
}));

function view(messages: ChatView["messages"]): ChatView {
  return { session: null, messages, running: false, seq: 0, turn: null, queued: null, firstOrdinal: 0, usersBefore: 0, clipped: [] };
}

describe("the chat and the Markdown renderer", () => {
  it("loads it for a chat with messages before showing them, never for a fresh one, and when a message is sent", async () => {
    let shown = view([]);
    call.mockImplementation((command: string) => {
      if (command === "chat_state") return Promise.resolve(shown);
      if (command === "list_sessions") return Promise.resolve([]);
      return new Promise(() => undefined);
    });
    const chat = new ProjectChat(3, new ManualFrames().schedule);
    await chat.reload();
    expect(chat.loaded).toBe(true);
    expect(loader.loadMarkdown).not.toHaveBeenCalled();

    shown = view([{ role: "assistant", content: "**done**", status: "complete" }]);
    const reloaded = chat.reload();
    await vi.waitFor(() => {
      expect(loader.loadMarkdown).toHaveBeenCalledTimes(1);
    });
    await Promise.resolve();
    expect(chat.state.items).toHaveLength(0);
    loader.finish();
    await reloaded;
    expect(chat.state.items.length).toBeGreaterThan(0);

    const fresh = new ProjectChat(4, new ManualFrames().schedule);
    shown = view([]);
    await fresh.reload();
    void fresh.send("hello");
    expect(loader.loadMarkdown).toHaveBeenCalledTimes(2);
  });
});
