// The chat panel as the user meets it: the transcript from `chat_state`, a turn streamed as
// `chat:event`s, sending with Enter, stopping with Esc (but not while a dialog takes the key),
// and model text rendered inert. The backend is mocked (a component test); the e2e suite runs
// the real one.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ChatEvent } from "../src/bindings/ChatEvent";
import type { ChatView } from "../src/bindings/ChatView";
import type { Message } from "../src/bindings/Message";
import type { TurnEvent } from "../src/bindings/TurnEvent";
import ChatPanel from "../src/components/ChatPanel.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";
import { ProjectChat, RESYNC_AFTER_CANCEL_MS } from "../src/lib/project-chat.svelte";
import { ManualFrames } from "./support/frames";

const { call, handlers } = vi.hoisted(() => ({
  call: vi.fn(),
  handlers: new Map<string, (payload: unknown) => void>(),
}));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const { mockedIpc } = await import("./support/ipc-mock");
  return mockedIpc(await importOriginal(), call, handlers);
});

const PROJECT = 3;
const SESSION = "0194-session";

function message(role: Message["role"], content: string, extra: Partial<Message> = {}): Message {
  return { role, content, status: "complete", ...extra };
}

let view: ChatView;
/** The seq of the last event sent (each test starts from 0, as its view does). */
let seq = 0;
let frames: ManualFrames;

/** Sends an event as the backend would; `frame` runs the next animation frame after it. */
function emit(turn: TurnEvent, sessionId = SESSION, frame = true): void {
  const handler = handlers.get("chat:event");
  if (!handler) throw new Error("nobody listens to chat:event");
  seq += 1;
  const payload: ChatEvent = { projectId: PROJECT, sessionId, seq, event: turn };
  handler(payload);
  if (frame) frames.next();
  flushSync();
}

function q(selector: string): HTMLElement | null {
  return document.querySelector<HTMLElement>(selector);
}

function all(selector: string): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>(selector)];
}

function input(): HTMLTextAreaElement {
  const field = document.querySelector<HTMLTextAreaElement>("[data-testid=chat-input]");
  if (!field) throw new Error("no input");
  return field;
}

function type(text: string): void {
  input().value = text;
  input().dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
}

function key(name: string, init: KeyboardEventInit = {}, target: EventTarget = window): KeyboardEvent {
  const event = new KeyboardEvent("keydown", { key: name, bubbles: true, cancelable: true, ...init });
  target.dispatchEvent(event);
  flushSync();
  return event;
}

let panel: ReturnType<typeof mount> | null = null;
let stop: (() => void) | null = null;

async function open(): Promise<ProjectChat> {
  const chat = new ProjectChat(PROJECT, frames.schedule);
  stop = chat.start();
  panel = mount(ChatPanel, { target: document.body, props: { chat } });
  await vi.waitFor(() => {
    expect(q("[data-testid=chat-empty], [data-testid=chat-message]")).not.toBeNull();
  });
  flushSync();
  return chat;
}

beforeEach(() => {
  frames = new ManualFrames();
  handlers.clear();
  call.mockReset();
  seq = 0;
  view = { session: null, messages: [], running: false, seq: 0, turn: null, queued: null, firstOrdinal: 0, usersBefore: 0, clipped: [] };
  call.mockImplementation((command: string) => {
    switch (command) {
      case "chat_state":
        return Promise.resolve(view);
      case "list_sessions":
        return Promise.resolve([]);
      case "list_tools":
        return Promise.resolve([
          { name: "read_file", description: "Read.", level: "safe", policy: "auto", source: { kind: "builtin" } },
          { name: "write_file", description: "Write.", level: "sensitive", policy: "ask", source: { kind: "builtin" } },
        ]);
      case "send_message":
        return Promise.resolve(SESSION);
      default:
        return Promise.resolve(null);
    }
  });
});

afterEach(() => {
  stop?.();
  if (panel) void unmount(panel);
  panel = null;
  stop = null;
  document.body.innerHTML = "";
  setLanguage("system");
});

describe("the chat panel", () => {
  it("shows the empty state for a fresh chat, and the turn as not running", async () => {
    await open();
    expect(q("[data-testid=chat-empty]")?.textContent).toContain("Ask Gantry about this project…");
    expect(q("[data-testid=turn-status]")?.dataset.running).toBe("false");
    expect(q("[data-testid=chat-stop]")).toBeNull();
  });

  it("renders a stored transcript with tool cards and their levels", async () => {
    view = {
      session: { id: SESSION, title: "Change a.txt", model: null, provider: null, messageCount: 4, createdAt: 0, updatedAt: 0, activity: "idle" },
      running: false,
      seq: 0,
      turn: null, queued: null,
      firstOrdinal: 0,
      usersBefore: 0,
      clipped: [],
      messages: [
        message("user", "Change a.txt"),
        message("assistant", "I'll **write** it.", {
          toolCalls: [{ id: "c1", name: "write_file", arguments: '{"path":"a.txt"}' }],
        }),
        message("tool", "[denied] the user denied tool 'write_file'", { toolCallId: "c1" }),
        message("assistant", "OK."),
      ],
    };
    await open();
    expect(all("[data-testid=chat-message]").map((m) => m.dataset.role)).toEqual(["user", "assistant", "assistant"]);
    expect(q("[data-role=assistant] strong")?.textContent).toBe("write");
    const card = q("[data-testid=tool-card]");
    expect(card?.dataset).toMatchObject({ tool: "write_file", status: "denied", callId: "c1" });
    // One line: the tool, its path, how it ended; the rest opens on a click.
    expect(card?.querySelector("[data-testid=tool-key]")?.textContent).toBe("a.txt");
    expect(card?.querySelector("[data-testid=tool-status]")?.textContent.trim()).toBe("denied");
    expect(card?.querySelector(".tool-args")).toBeNull();
    card?.querySelector<HTMLButtonElement>("[data-testid=tool-line]")?.click();
    flushSync();
    expect(card?.querySelector("[data-testid=tool-line]")?.getAttribute("aria-expanded")).toBe("true");
    expect(card?.querySelector("[data-level] .badge-label")?.textContent).toBe("Sensitive");
    expect(card?.querySelector(".tool-args")?.textContent).toBe('{\n  "path": "a.txt"\n}');
  });

  it("sends with Enter, streams the turn, and stops it with Esc", async () => {
    await open();
    const input = document.querySelector<HTMLTextAreaElement>("[data-testid=chat-input]");
    if (!input) throw new Error("no input");
    input.value = "What is in src?";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    key("Enter", {}, input);
    expect(call).toHaveBeenCalledWith("send_message", { text: "What is in src?", attachments: [] });
    expect(input.value).toBe("");
    expect(q("[data-testid=turn-status]")?.dataset.running).toBe("true");
    expect(q("[data-testid=chat-stop]")).not.toBeNull();
    const activity = () => q("[data-testid=turn-activity]");
    expect(activity()?.textContent).toBe("Waiting for the model…");

    emit({ type: "turn_started", sessionId: SESSION });
    expect(activity()?.dataset.activity).toBe("waiting_for_model");
    emit({ type: "text_delta", text: "Looking" });
    expect(activity()?.textContent).toBe("The model is answering…");
    emit({ type: "tool_call_started", id: "c9", name: "read_file", arguments: '{"path":"src"}' });
    expect(q("[data-role=assistant]")?.textContent).toContain("Looking");
    expect(q("[data-testid=tool-card]")?.dataset.status).toBe("running");
    expect(activity()?.textContent).toBe("Running read_file…");

    // An open dialog takes Esc for itself.
    const dialog = document.createElement("div");
    dialog.setAttribute("aria-modal", "true");
    document.body.append(dialog);
    key("Escape");
    expect(call).not.toHaveBeenCalledWith("cancel_session_turn", expect.anything());
    dialog.remove();

    // An input method's Esc ends its composition, not the turn.
    key("Escape", { isComposing: true });
    expect(call).not.toHaveBeenCalledWith("cancel_session_turn", expect.anything());

    const esc = key("Escape");
    expect(esc.defaultPrevented).toBe(true);
    expect(call).toHaveBeenCalledWith("cancel_session_turn", { id: SESSION });

    emit({ type: "turn_finished", reason: "cancelled", steps: 1, message: null });
    expect(q("[data-testid=turn-status]")?.dataset.running).toBe("false");
    expect(q("[data-testid=chat-stop]")).toBeNull();
    expect(q("[data-testid=tool-card]")?.dataset.status).toBe("cancelled");
    // One "stopped" note, the stopped reply's.
    expect(all("[data-role=assistant] .stopped").map((note) => note.textContent)).toEqual(["(stopped)"]);
    expect(q("[data-testid=chat-notice]")).toBeNull();
  });

  it("keeps Shift+Enter for a new line", async () => {
    await open();
    const input = document.querySelector<HTMLTextAreaElement>("[data-testid=chat-input]");
    if (!input) throw new Error("no input");
    input.value = "line one";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    const event = key("Enter", { shiftKey: true }, input);
    expect(event.defaultPrevented).toBe(false);
    expect(call).not.toHaveBeenCalledWith("send_message", expect.anything());
  });

  it("shows a refused message as a dismissable banner and gives the text back", async () => {
    await open();
    call.mockImplementation((command: string) =>
      command === "send_message"
        ? Promise.reject(new Error("no provider key"))
        : Promise.resolve(command === "list_sessions" ? [] : null),
    );
    const input = document.querySelector<HTMLTextAreaElement>("[data-testid=chat-input]");
    if (!input) throw new Error("no input");
    input.value = "hello";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    key("Enter", {}, input);
    await vi.waitFor(() => {
      expect(q("[data-testid=error-banner]")?.textContent).toContain("no provider key");
    });
    flushSync();
    expect(input.value).toBe("hello");
    expect(all("[data-testid=chat-message]")).toHaveLength(0);
    document.querySelector<HTMLButtonElement>("[data-testid=error-banner] button")?.click();
    flushSync();
    expect(q("[data-testid=error-banner]")).toBeNull();
  });

  it("renders hostile model text inert, through the chat's own Markdown path", async () => {
    await open();
    const input = document.querySelector<HTMLTextAreaElement>("[data-testid=chat-input]");
    if (!input) throw new Error("no input");
    input.value = "hi";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    key("Enter", {}, input);
    emit({ type: "turn_started", sessionId: SESSION });
    emit({
      type: "text_delta",
      text: [
        "<script>window.pwned = 1</script>",
        '<img src=x onerror="window.pwned = 2">',
        '<iframe src="https://evil.example/"></iframe>',
        "[click](javascript:alert(1))",
        "![tracker](https://evil.example/pixel.png)",
      ].join("\n\n"),
    });
    const reply = q("[data-role=assistant]");
    if (!reply) throw new Error("no reply");
    expect(reply.querySelector("script, iframe, img")).toBeNull();
    for (const element of reply.querySelectorAll("*")) {
      for (const attribute of element.attributes) expect(attribute.name).not.toMatch(/^on/);
    }
    expect(reply.innerHTML).not.toMatch(/javascript:/i);
    expect(reply.textContent).toContain("[image: tracker]");
    expect((window as { pwned?: number }).pwned).toBeUndefined();
    // What the renderer words follows the UI's language.
    setLanguage("zh-CN");
    flushSync();
    expect(reply.textContent).toContain("[图片：tracker]");
    expect(reply.querySelector("script, iframe, img")).toBeNull();
  });

  it("applies streamed text once per frame, in order with the other events", async () => {
    await open();
    type("What is in src?");
    key("Enter", {}, input());
    emit({ type: "turn_started", sessionId: SESSION });
    const pieces = "Here is **the plan**:\n\n1. read\n2. write\n\nDone".match(/[\s\S]{1,3}/g) ?? [];
    for (const piece of pieces) emit({ type: "reasoning_delta", text: piece.toUpperCase() }, SESSION, false);
    for (const piece of pieces) emit({ type: "text_delta", text: piece }, SESSION, false);
    // Nothing is shown before the frame, and one frame was asked for.
    expect(q("[data-role=assistant]")).toBeNull();
    expect(frames.waiting).toBe(1);
    frames.next();
    flushSync();
    const reply = q("[data-role=assistant]");
    expect(reply?.querySelector("strong")?.textContent).toBe("the plan");
    expect(reply?.querySelectorAll("ol li")).toHaveLength(2);
    expect(q("[data-testid=reasoning-text]")?.textContent).toBe(pieces.join("").toUpperCase());

    // A tool call applies the text before it at once, without waiting for a frame.
    emit({ type: "text_delta", text: " now." }, SESSION, false);
    emit({ type: "tool_call_started", id: "c1", name: "read_file", arguments: "{}" }, SESSION, false);
    expect(q("[data-role=assistant] .markdown")?.textContent).toContain("Done now.");
    expect(q("[data-testid=tool-card]")).not.toBeNull();

    // So does the end of the turn.
    const observation = { tool: "read_file", text: "ok", kind: "ok", decision: { kind: "auto", by: "policy", detail: null }, duration: 1, truncated: false, diff: null } as const;
    emit({ type: "tool_result", id: "c1", name: "read_file", observation });
    emit({ type: "text_delta", text: "The end" }, SESSION, false);
    emit({ type: "turn_finished", reason: "completed", steps: 2, message: null }, SESSION, false);
    const replies = all("[data-role=assistant]");
    expect(replies.at(-1)?.textContent).toContain("The end");
    expect(replies.at(-1)?.dataset.live).toBe("false");
  });

  it("stops a tab's turn by its session's id, the shown one's too (a switch may be on its way)", async () => {
    const chat = await open();
    type("first");
    key("Enter", {}, input());
    emit({ type: "turn_started", sessionId: SESSION });
    expect(chat.state.sessionId).toBe(SESSION);
    const reads = (): number => call.mock.calls.filter(([command]) => command === "chat_state").length;
    const before = reads();
    vi.useFakeTimers();
    try {
      // A hidden tab's Stop leaves the shown chat alone.
      await chat.cancelSession("0194-hidden");
      expect(call).toHaveBeenCalledWith("cancel_session_turn", { id: "0194-hidden" });
      vi.advanceTimersByTime(RESYNC_AFTER_CANCEL_MS);
      expect(reads()).toBe(before);
      // The shown one's, by its id too; should its end never arrive, the chat reads it again.
      await chat.cancelSession(SESSION);
      expect(call).toHaveBeenCalledWith("cancel_session_turn", { id: SESSION });
      expect(call).not.toHaveBeenCalledWith("cancel_turn");
      vi.advanceTimersByTime(RESYNC_AFTER_CANCEL_MS);
      expect(reads()).toBe(before + 1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps the input usable while an answer streams", async () => {
    await open();
    type("first");
    key("Enter", {}, input());
    emit({ type: "turn_started", sessionId: SESSION });
    for (let i = 0; i < 200; i += 1) emit({ type: "text_delta", text: `word${i} ` }, SESSION, i % 20 === 0);
    type("typed while it streams");
    expect(input().value).toBe("typed while it streams");
    q("[data-testid=chat-stop]")?.click();
    expect(call).toHaveBeenCalledWith("cancel_session_turn", { id: SESSION });
  });

  it("shows Jump to latest once the user scrolls up, and follows again when clicked", async () => {
    await open();
    type("hi");
    key("Enter", {}, input());
    emit({ type: "turn_started", sessionId: SESSION });
    emit({ type: "text_delta", text: "A long answer\n\n".repeat(40) });
    const view = q("[data-testid=transcript]");
    if (!view) throw new Error("no transcript");
    // jsdom lays nothing out: the view's numbers are set by hand.
    let top = 1500;
    Object.defineProperty(view, "scrollHeight", { configurable: true, get: () => 2000 });
    Object.defineProperty(view, "clientHeight", { configurable: true, get: () => 500 });
    Object.defineProperty(view, "scrollTop", { configurable: true, get: () => top, set: (value: number) => { top = Math.min(value, 1500); } });
    const scrollTo = (value: number): void => {
      top = value;
      view.dispatchEvent(new Event("scroll"));
      flushSync();
    };
    scrollTo(1500);
    expect(q("[data-testid=jump-latest]")).toBeNull();
    scrollTo(700);
    const jump = q("[data-testid=jump-latest]");
    expect(jump?.textContent.trim()).toBe("↓ Jump to latest");
    jump?.click();
    flushSync();
    expect(top).toBe(1500);
    expect(q("[data-testid=jump-latest]")).toBeNull();

    // A wheel turn up stops following before the view has even moved.
    view.dispatchEvent(new WheelEvent("wheel", { deltaY: -40 }));
    flushSync();
    expect(q("[data-testid=jump-latest]")).not.toBeNull();
    // Scrolling back down to the end follows again.
    scrollTo(1200);
    scrollTo(1480);
    expect(q("[data-testid=jump-latest]")).toBeNull();

    setLanguage("zh-CN");
    scrollTo(100);
    expect(q("[data-testid=jump-latest]")?.textContent.trim()).toBe("↓ 跳到最新");
  });

  it("ignores another session's events", async () => {
    view = {
      session: { id: SESSION, title: "t", model: null, provider: null, messageCount: 0, createdAt: 0, updatedAt: 0, activity: "idle" },
      messages: [],
      running: false,
      seq: 0,
      turn: null, queued: null,
      firstOrdinal: 0,
      usersBefore: 0,
      clipped: [],
    };
    await open();
    emit({ type: "turn_started", sessionId: "other" }, "other");
    emit({ type: "text_delta", text: "not for you" }, "other");
    expect(all("[data-testid=chat-message]")).toHaveLength(0);
    expect(q("[data-testid=turn-status]")?.dataset.running).toBe("false");
  });

  describe("in Chinese", () => {
    it("shows the empty state, the input and its button in Chinese", async () => {
      setLanguage("zh-CN");
      await open();
      expect(q("[data-testid=chat-empty] h2")?.textContent).toBe("新对话");
      expect(q("[data-testid=chat-empty] p")?.textContent).toBe("就这个项目向 Gantry 提问…");
      const input = document.querySelector<HTMLTextAreaElement>("[data-testid=chat-input]");
      expect(input?.placeholder).toBe("给 Gantry 发消息——Enter 发送，Shift+Enter 换行");
      expect(input?.getAttribute("aria-label")).toBe("消息");
      expect(q("[data-testid=chat-send]")?.textContent).toBe("发送");
    });

    it("words a stored transcript's cards, the running turn and its notices in Chinese", async () => {
      view = {
        session: { id: SESSION, title: "t", model: null, provider: null, messageCount: 2, createdAt: 0, updatedAt: 0, activity: "idle" },
        running: false,
        seq: 0,
        turn: null, queued: null,
        firstOrdinal: 0,
        usersBefore: 0,
        clipped: [],
        messages: [
          message("user", "Change a.txt"),
          message("assistant", "", { toolCalls: [{ id: "c1", name: "write_file", arguments: "{}" }] }),
          message("tool", "[denied] the user denied tool 'write_file': not now", { toolCallId: "c1" }),
        ],
      };
      await open();
      const card = q("[data-testid=tool-card]");
      card?.querySelector<HTMLButtonElement>("[data-testid=tool-line]")?.click();
      flushSync();
      expect(card?.querySelector("[data-level] .badge-label")?.textContent).toBe("Sensitive");
      expect(card?.querySelector("[data-testid=tool-status]")?.textContent.trim()).toBe("denied");
      // Switched while the panel is open: what is on screen follows at once.
      setLanguage("zh-CN");
      flushSync();
      expect(card?.querySelector("[data-level] .badge-label")?.textContent).toBe("敏感");
      expect(card?.querySelector("[data-testid=tool-status]")?.textContent.trim()).toBe("已拒绝");
      expect(card?.querySelector("[data-testid=tool-decider]")?.textContent).toBe("理由：not now");
      expect(card?.querySelector(".tool-details h4:last-of-type")?.textContent).toBe("结果");

      emit({ type: "turn_started", sessionId: SESSION });
      expect(q("[data-testid=turn-activity]")?.textContent.trim()).toBe("正在等待模型…");
      expect(q("[data-testid=chat-stop]")?.textContent).toContain("停止");
      // Stopped before the model replied: the notice is the one note.
      emit({ type: "turn_finished", reason: "cancelled", steps: 1, message: null });
      expect(q("[data-testid=chat-notice]")?.textContent.trim()).toBe("已取消。");
      setLanguage("en");
      flushSync();
      expect(q("[data-testid=chat-notice]")?.textContent.trim()).toBe("Cancelled.");
    });
  });
});

describe("a long session", () => {
  /** Turn `n` of a long session: its question, a call, its result, the answer (ordinals 4n…). */
  const turn = (n: number): Message[] => [
    message("user", `question ${String(n)}`),
    message("assistant", "", { toolCalls: [{ id: `c${String(n)}`, name: "read_file", arguments: '{"path":"a.txt"}' }] }),
    message("tool", `head of result ${String(n)}`, { toolCallId: `c${String(n)}` }),
    message("assistant", `answer ${String(n)}`),
  ];
  const session: Message[] = Array.from({ length: 500 }, (_, n) => turn(n)).flat();

  beforeEach(() => {
    view = {
      session: { id: SESSION, title: "long", model: null, provider: null, messageCount: 2000, createdAt: 0, updatedAt: 0, activity: "idle" },
      messages: session.slice(1800),
      running: false,
      seq: 0,
      turn: null, queued: null,
      firstOrdinal: 1800,
      usersBefore: 450,
      clipped: [1998],
    };
    const base = call.getMockImplementation();
    call.mockImplementation((command: string, args: { before?: number; count?: number; ordinal?: number } | undefined) => {
      if (command === "chat_messages_before") {
        const before = args?.before ?? 0;
        const first = Math.max(0, before - (args?.count ?? 0));
        return Promise.resolve({ firstOrdinal: first, usersBefore: first / 4, messages: session.slice(first, before), clipped: [] });
      }
      if (command === "chat_message_text") return Promise.resolve(`the whole result ${String(args?.ordinal)}`);
      return base?.(command, args) as unknown;
    });
  });

  it("renders the rows near the end only, and reads older ones when scrolled up to them", async () => {
    await open();
    const rows = q("[data-testid=transcript-rows]");
    expect(rows?.dataset.rows).toBe("150");
    expect(all(".transcript-row").length).toBeLessThan(40);
    expect(all("[data-testid=chat-message]").at(-1)?.textContent).toContain("answer 499");
    expect(q("[data-testid=jump-latest]")).toBeNull();

    const scroller = q("[data-testid=transcript]");
    if (!scroller) throw new Error("no transcript");
    let top = 5000;
    Object.defineProperty(scroller, "scrollHeight", { configurable: true, get: () => 20_000 });
    Object.defineProperty(scroller, "clientHeight", { configurable: true, get: () => 500 });
    Object.defineProperty(scroller, "scrollTop", { configurable: true, get: () => top, set: (value: number) => { top = value; } });
    const scrollTo = (value: number): void => {
      top = value;
      scroller.dispatchEvent(new Event("scroll"));
      flushSync();
    };
    scrollTo(5000);
    scrollTo(100);
    await vi.waitFor(() => {
      expect(q("[data-testid=transcript-rows]")?.dataset.rows).toBe("300");
    });
    expect(call).toHaveBeenCalledWith("chat_messages_before", { sessionId: SESSION, before: 1800, count: 200 });
    // The view moved down by what the older rows take: it still shows what it showed.
    expect(top).toBeGreaterThan(100);
    expect(all(".transcript-row").length).toBeLessThan(60);
  });

  it("reads a shortened result whole when the user asks for all of it", async () => {
    await open();
    const card = all("[data-testid=tool-card]").find((element) => element.dataset.callId === "c499");
    card?.querySelector<HTMLButtonElement>("[data-testid=tool-line]")?.click();
    flushSync();
    expect(card?.querySelector("[data-testid=tool-result]")?.textContent).toBe("head of result 499");
    card?.querySelector<HTMLButtonElement>("[data-testid=tool-show-all]")?.click();
    await vi.waitFor(() => {
      expect(card?.querySelector("[data-testid=tool-result]")?.textContent).toBe("the whole result 1998");
    });
    expect(call).toHaveBeenCalledWith("chat_message_text", { sessionId: SESSION, ordinal: 1998 });
  });

  it("reads what is above a search hit far up, then marks it", async () => {
    // jsdom lays nothing out and has no scrollIntoView.
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    const chat = await open();
    await chat.openHit({ sessionId: SESSION, sessionTitle: "long", ordinal: 8, role: "user", snippet: [] });
    flushSync();
    expect(chat.state.firstOrdinal).toBeLessThanOrEqual(8);
    expect(chat.found).toEqual({ sessionId: SESSION, ordinal: 8 });
    await vi.waitFor(() => {
      expect(q(".message.found")?.textContent).toContain("question 2");
    });
    await vi.waitFor(() => {
      expect(scrolled).toHaveBeenCalledWith({ block: "center" });
    });
  });
});
