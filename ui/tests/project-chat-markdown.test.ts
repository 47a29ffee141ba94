// When the chat loads the Markdown renderer: never for a fresh chat; before it shows a chat with
// messages (so none shows as raw text first); as soon as a message is sent (the answer is
// Markdown). The loader and the backend are mocked.

import { beforeEach, describe, expect, it, vi } from "vitest";

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
      /** Back to nothing loaded. */
      reset: () => {
        loaded = null;
      },
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
}));

function view(messages: ChatView["messages"]): ChatView {
  return { session: null, messages, running: false, seq: 0, turn: null, queued: null, firstOrdinal: 0, usersBefore: 0, clipped: [] };
}

beforeEach(() => {
  loader.reset();
  loader.loadMarkdown.mockClear();
  call.mockReset();
});

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

  it("drops a view that waited for the renderer when a later one was shown meanwhile", async () => {
    const older = { ...view([{ role: "assistant", content: "**A**", status: "complete" }]), session: session("A") };
    const newer = view([]);
    call.mockImplementation((command: string) => {
      if (command === "chat_state") return Promise.resolve(older);
      if (command === "new_session") return Promise.resolve(newer);
      if (command === "list_sessions") return Promise.resolve([]);
      return new Promise(() => undefined);
    });
    const chat = new ProjectChat(3, new ManualFrames().schedule);
    const first = chat.reload();
    await vi.waitFor(() => {
      expect(loader.loadMarkdown).toHaveBeenCalledTimes(1);
    });
    await chat.newSession();
    expect(chat.state.sessionId).toBeNull();
    loader.finish();
    await first;
    expect(chat.state.sessionId).toBeNull();
    expect(chat.state.items).toHaveLength(0);
  });
});

function session(id: string): ChatView["session"] {
  return { id, title: id, model: null, provider: null, messageCount: 1, createdAt: 0, updatedAt: 0, activity: "idle" };
}
