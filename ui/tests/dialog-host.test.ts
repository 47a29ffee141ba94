// The dialog host as the user meets it: requests arrive as backend events, one modal shows at a
// time, keys and buttons send the answers the backend expects. The backend is mocked here (this
// is a component test); the real path is exercised by the Rust tests of the registry.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { DialogRequest } from "../src/bindings/DialogRequest";
import DialogHost from "../src/components/DialogHost.svelte";
import { ENTER_DELAY_MS } from "../src/lib/approval-keys";
import { setLanguage } from "../src/lib/i18n.svelte";
import { shownSession } from "../src/lib/shown-session.svelte";

const { call, handlers } = vi.hoisted(() => ({
  call: vi.fn(),
  handlers: new Map<string, (payload: unknown) => void>(),
}));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const { mockedIpc } = await import("./support/ipc-mock");
  return mockedIpc(await importOriginal(), call, handlers);
});

function approval(id: number, tool = "write_file", sessionId = "1"): DialogRequest {
  return {
    kind: "approval",
    projectId: 1,
    request: {
      callId: `call_${id}`,
      sessionId,
      tool,
      level: tool === "run_command" ? "dangerous" : "sensitive",
      description: "Write a file.",
      arguments: { path: "a.txt" },
      preview:
        tool === "run_command"
          ? { kind: "command", command: "cargo test", workdir: "" }
          : { kind: "diff", path: "a.txt", unified: "@@ -1 +1 @@\n-old\n+<b>new</b>\n" },
      sessionScope: tool === "run_command" ? [] : ["write_file"],
      reason: { kind: "policy" as const },
    },
  };
}

function question(id: number, text = "Which one?"): DialogRequest {
  return { kind: "question", projectId: 1, question: { callId: `call_${id}`, sessionId: "1", question: text, options: ["a", "b"] } };
}

function emit(event: string, payload: unknown): void {
  const handler = handlers.get(event);
  if (!handler) throw new Error(`nobody listens to ${event}`);
  handler(payload);
  flushSync();
}

function key(name: string, target: EventTarget = window): void {
  target.dispatchEvent(new KeyboardEvent("keydown", { key: name, bubbles: true }));
  flushSync();
}

/** A key pressed and released where the focus is, as a user's press reaches the page. */
function press(name: string, init: KeyboardEventInit = {}): KeyboardEvent {
  const target = document.activeElement ?? document.body;
  const down = new KeyboardEvent("keydown", { key: name, bubbles: true, cancelable: true, ...init });
  target.dispatchEvent(down);
  flushSync();
  (document.activeElement ?? document.body).dispatchEvent(new KeyboardEvent("keyup", { key: name, bubbles: true, cancelable: true }));
  flushSync();
  return down;
}

/** Lets the approval dialog's Enter delay pass. */
function waitForArming(): void {
  vi.advanceTimersByTime(ENTER_DELAY_MS);
  flushSync();
}

function dialog(): HTMLElement | null {
  return document.querySelector("[data-testid$=-dialog]");
}

let host: ReturnType<typeof mount> | null = null;

beforeEach(async () => {
  shownSession.id = "1";
  handlers.clear();
  call.mockReset();
  call.mockImplementation((command: string) => Promise.resolve(command === "pending_dialogs" ? [] : null));
  host = mount(DialogHost, { target: document.body });
  await vi.waitFor(() => {
    expect(call).toHaveBeenCalledWith("pending_dialogs");
  });
  flushSync();
});

afterEach(() => {
  if (host) void unmount(host);
  host = null;
  document.body.innerHTML = "";
  setLanguage("system");
});

describe("the dialog host", () => {
  it("shows a session's request only while that session is shown, and the shown one's first", () => {
    emit("dialog:opened", approval(1, "write_file", "2"));
    expect(dialog(), "another session's approval waits").toBeNull();
    emit("dialog:opened", question(2));
    expect(dialog()?.dataset.testid).toBe("question-dialog");
    shownSession.id = "2";
    flushSync();
    expect(dialog()?.dataset.testid, "its session is shown: its approval shows").toBe("approval-dialog");
    shownSession.id = null;
    flushSync();
    expect(dialog(), "a fresh chat shows neither").toBeNull();
  });

  it("shows one request at a time and answers with Enter on the focused Allow once, then the next", () => {
    vi.useFakeTimers();
    emit("dialog:opened", approval(1));
    emit("dialog:opened", question(2));
    expect(dialog()?.dataset.testid).toBe("approval-dialog");
    expect(dialog()?.textContent).toContain("1 more waiting");
    expect(dialog()?.querySelector("[data-level] .badge-label")?.textContent).toBe("Sensitive");
    // The diff is rendered as text lines, markup included.
    expect(dialog()?.querySelector(".diff-add .text")?.textContent).toBe("<b>new</b>");
    expect(dialog()?.querySelector(".diff b")).toBeNull();
    expect(document.activeElement?.getAttribute("data-testid")).toBe("allow-once");

    // Too early: the press that may have been meant for the chat box does nothing.
    const early = press("Enter");
    expect(early.defaultPrevented).toBe(true);
    expect(call).not.toHaveBeenCalledWith("resolve_approval", expect.anything());
    waitForArming();
    expect(dialog()?.dataset.armed).toBe("true");
    press("Enter");
    expect(call).toHaveBeenCalledWith("resolve_approval", { sessionId: "1", callId: "call_1", decision: { decision: "allow_once" } });
    expect(dialog()?.dataset.testid).toBe("question-dialog");
    vi.useRealTimers();
  });

  it("presses the focused button: Tab to Deny and Enter denies, Space on Allow for this session allows for it", () => {
    vi.useFakeTimers();
    emit("dialog:opened", approval(11));
    waitForArming();
    press("Tab");
    // Tab order: Allow once, Allow for this session, Deny, the reason, the arguments.
    (document.querySelector("[data-testid=allow-session]") as HTMLElement).focus();
    press("Tab");
    (document.querySelector("[data-testid=deny]") as HTMLElement).focus();
    press("Enter");
    expect(call).toHaveBeenCalledWith("resolve_approval", { sessionId: "1", callId: "call_11", decision: { decision: "deny", reason: null } });
    expect(call).not.toHaveBeenCalledWith("resolve_approval", { sessionId: "1", callId: "call_11", decision: { decision: "allow_once" } });

    emit("dialog:opened", approval(12));
    waitForArming();
    (document.querySelector("[data-testid=allow-session]") as HTMLElement).focus();
    press(" ");
    expect(call).toHaveBeenCalledWith("resolve_approval", { sessionId: "1", callId: "call_12", decision: { decision: "allow_for_session" } });
    vi.useRealTimers();
  });

  it("takes no Enter that was down when the dialog appeared, nor its repeats", () => {
    vi.useFakeTimers();
    emit("dialog:opened", approval(13));
    // The Enter that sent the message is still down: its repeats arrive.
    const focused = document.activeElement ?? document.body;
    focused.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    waitForArming();
    for (let repeat = 0; repeat < 3; repeat += 1) {
      focused.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true, repeat: true }));
      focused.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    }
    flushSync();
    expect(call).not.toHaveBeenCalledWith("resolve_approval", expect.anything());
    // Released, then pressed again: that one counts.
    focused.dispatchEvent(new KeyboardEvent("keyup", { key: "Enter", bubbles: true }));
    press("Enter");
    expect(call).toHaveBeenCalledWith("resolve_approval", { sessionId: "1", callId: "call_13", decision: { decision: "allow_once" } });
    vi.useRealTimers();
  });

  it("keeps Tab inside the dialog, in the order of the choices", () => {
    emit("dialog:opened", approval(14));
    const order = [...(dialog()?.querySelectorAll<HTMLElement>("button:not([disabled]), input, summary") ?? [])].map(
      (element) => element.dataset.testid ?? element.textContent.trim(),
    );
    expect(order).toEqual(["allow-once", "allow-session", "deny", "allow-project", "approval-reason", "Arguments", "What the model was told"]);
    (document.querySelector("[data-testid=approval-model-description] summary") as HTMLElement).focus();
    press("Tab");
    expect(document.activeElement?.getAttribute("data-testid")).toBe("allow-once");
    press("Tab", { shiftKey: true });
    expect(document.activeElement?.closest("[data-testid=approval-model-description]")).not.toBeNull();
  });

  it("says what the call will do and why it asks, showing hidden characters", () => {
    emit("dialog:opened", approval(15));
    expect(dialog()?.querySelector("[data-testid=approval-summary]")?.textContent).toBe("Change 1 line in a.txt");
    expect(dialog()?.querySelector("[data-testid=approval-why]")?.textContent).toBe("write_file is set to Ask in this project");
    press("Escape");
    const command: DialogRequest = {
      kind: "approval",
      projectId: 1,
      request: {
        ...((approval(16, "run_command") as Extract<DialogRequest, { kind: "approval" }>).request),
        preview: { kind: "command", command: "echo safe \u202e; rm -rf ~ #", workdir: "" },
        sessionScope: [],
        reason: { kind: "unscoped", why: "`;` runs a second command" },
      },
    };
    emit("dialog:opened", command);
    expect(dialog()?.querySelector("[data-testid=approval-command]")?.textContent).toBe("echo safe \\u{202e}; rm -rf ~ #");
    expect(dialog()?.querySelector("[data-testid=approval-command] [data-testid=escape]")?.textContent).toBe("\\u{202e}");
    expect(dialog()?.querySelector("[data-testid=approval-hidden-characters]")).not.toBeNull();
    expect(dialog()?.querySelector("[data-testid=approval-summary]")?.textContent).toBe("Run echo safe \\u{202e}; rm -rf ~ # in .");
    const why = dialog()?.querySelector("[data-testid=approval-why]");
    expect(why?.textContent).toBe("; runs a second command: no grant can cover this call, so it asks every time");
    expect(why?.querySelector("code")?.textContent).toBe(";");
    press("Escape");

    // A diff shows them too: a file written with a right-to-left override reads as it is.
    emit("dialog:opened", {
      kind: "approval",
      projectId: 1,
      request: {
        ...((approval(17) as Extract<DialogRequest, { kind: "approval" }>).request),
        preview: { kind: "diff", path: "a.sh", unified: "@@ -0,0 +1 @@\n+echo ok \u202e# ls\n" },
      },
    });
    expect(dialog()?.querySelector(".diff-add .text")?.textContent).toBe("echo ok \\u{202e}# ls");
    expect(dialog()?.querySelector(".diff-add .text")?.textContent).not.toContain("\u202e");
  });

  it("denies with Esc, with the reason typed", () => {
    emit("dialog:opened", approval(3));
    const reason = dialog()?.querySelector<HTMLInputElement>("input[type=text]");
    if (!reason) throw new Error("no reason field");
    reason.value = "  not in this repo ";
    reason.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    press("Escape");
    expect(call).toHaveBeenCalledWith("resolve_approval", {
      sessionId: "1",
      callId: "call_3",
      decision: { decision: "deny", reason: "not in this repo" },
    });
    expect(dialog()).toBeNull();
  });

  it("allows for the session with its button, and only when the call can be", () => {
    emit("dialog:opened", approval(4, "run_command"));
    const session = document.querySelector<HTMLButtonElement>("[data-testid=allow-session]");
    expect(session?.disabled).toBe(true);
    expect(document.querySelector("[data-testid=approval-command]")?.textContent).toBe("cargo test");
    document.querySelector<HTMLButtonElement>("[data-testid=deny]")?.click();
    flushSync();
    emit("dialog:opened", approval(5));
    document.querySelector<HTMLButtonElement>("[data-testid=allow-session]")?.click();
    flushSync();
    expect(call).toHaveBeenCalledWith("resolve_approval", { sessionId: "1", callId: "call_4", decision: { decision: "deny", reason: null } });
    expect(call).toHaveBeenCalledWith("resolve_approval", { sessionId: "1", callId: "call_5", decision: { decision: "allow_for_session" } });
  });

  it("answers a question with an option, free text, or dismisses it", () => {
    emit("dialog:opened", question(6));
    const option = [...document.querySelectorAll<HTMLButtonElement>(".options button")].find((b) => b.textContent === "b");
    option?.click();
    flushSync();
    expect(call).toHaveBeenCalledWith("answer_question", { sessionId: "1", callId: "call_6", answer: { kind: "answer", text: "b" } });

    emit("dialog:opened", question(7));
    const field = document.querySelector<HTMLTextAreaElement>("textarea");
    if (!field) throw new Error("no answer field");
    field.value = "the second one";
    field.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    key("Enter", field);
    expect(call).toHaveBeenCalledWith("answer_question", {
      sessionId: "1",
      callId: "call_7",
      answer: { kind: "answer", text: "the second one" },
    });

    emit("dialog:opened", question(8));
    key("Escape");
    expect(call).toHaveBeenCalledWith("answer_question", { sessionId: "1", callId: "call_8", answer: { kind: "dismiss" } });
  });

  it("renders the model's question as sanitised Markdown", () => {
    emit("dialog:opened", question(9, "Use **this**? <img src=x onerror=alert(1)> <script>alert(2)</script>"));
    expect(dialog()?.querySelector("strong")?.textContent).toBe("this");
    expect(dialog()?.querySelector("img, script")).toBeNull();
  });

  it("drops a request the backend closed (timeout, cancelled turn)", () => {
    emit("dialog:opened", approval(10));
    emit("dialog:closed", { projectId: 1, sessionId: "1", callId: "call_10", reason: "timed_out" });
    expect(dialog()).toBeNull();
    expect(call).not.toHaveBeenCalledWith("resolve_approval", expect.anything());
  });

  describe("in Chinese", () => {
    function button(testId: string): string {
      return dialog()?.querySelector(`[data-testid=${testId}]`)?.textContent.trim() ?? "";
    }

    it("offers the approval's choices in Chinese, the tool name kept in its <code>", () => {
      setLanguage("zh-CN");
      emit("dialog:opened", approval(1));
      emit("dialog:opened", question(2));
      expect(button("allow-once")).toBe("允许一次 Enter");
      expect(button("allow-session")).toBe("在本次会话中始终允许");
      expect(button("deny")).toBe("拒绝 Esc");
      const title = dialog()?.querySelector("h2");
      expect(title?.textContent).toBe("允许 write_file 吗？");
      expect(title?.querySelector("code")?.textContent).toBe("write_file");
      expect(dialog()?.querySelector("[data-level] .badge-label")?.textContent).toBe("敏感");
      expect(dialog()?.querySelector(".queued")?.textContent).toBe("还有 1 个在等待");
      expect(dialog()?.querySelector("[data-testid=approval-summary]")?.textContent).toBe("修改 a.txt 中的 1 行");
      expect(dialog()?.querySelector("[data-testid=approval-why]")?.textContent).toBe("此项目中 write_file 设为“询问”");
      expect(dialog()?.querySelector("[data-testid=allow-session]")?.getAttribute("title")).toBe("在本次会话结束前，还将允许：write_file");
      expect(dialog()?.querySelector(".reason")?.textContent.trim()).toBe("拒绝理由（可选，模型会读到）");

      press("Escape");
      expect(dialog()?.dataset.testid).toBe("question-dialog");
      expect(dialog()?.querySelector("h2")?.textContent).toBe("模型提问");
      expect([...(dialog()?.querySelectorAll("footer button") ?? [])].map((b) => b.textContent.trim())).toEqual([
        "发送 Enter",
        "暂不回答 Esc",
      ]);
    });

    it("shows a command's working directory in Chinese", () => {
      setLanguage("zh-CN");
      emit("dialog:opened", approval(5, "run_command"));
      expect(dialog()?.querySelector("[data-level] .badge-label")?.textContent).toBe("危险");
      expect(dialog()?.querySelector("[data-testid=approval-summary]")?.textContent).toBe("在 . 中运行 cargo test");
      expect(dialog()?.querySelector("[data-testid=allow-session]")?.getAttribute("title")).toBe("此调用不能设为在整个会话中允许");
    });
  });
});
