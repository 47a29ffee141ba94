// The chat box's completion list, chips and commands, on the component (the backend mocked;
// the e2e suite drives the real one).

import { flushSync, mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { AttachmentRequest } from "../src/bindings/AttachmentRequest";
import ChatInput from "../src/components/ChatInput.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";
import { settle } from "./support/component";

const { call, handlers } = vi.hoisted(() => ({
  call: vi.fn(),
  handlers: new Map<string, (payload: unknown) => void>(),
}));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const { mockedIpc } = await import("./support/ipc-mock");
  return mockedIpc(await importOriginal(), call, handlers);
});

let component: ReturnType<typeof mount> | null = null;
let sent: { text: string; attachments: AttachmentRequest[] }[] = [];
let newSessions = 0;
let compactions = 0;

beforeEach(() => {
  setLanguage("en");
  sent = [];
  newSessions = 0;
  compactions = 0;
  call.mockReset();
  call.mockImplementation((command: string, request?: Record<string, unknown>) => {
    switch (command) {
      case "complete_mentions":
        return Promise.resolve({
          ready: true,
          items: [
            { path: "src/main.rs", isDir: false },
            { path: "src", isDir: true },
          ].filter((item) => item.path.includes(typeof request?.query === "string" ? request.query : "")),
        });
      case "slash_commands":
        return Promise.resolve([
          { name: "review", description: "Review a file", kind: "command", source: "claude-project", argumentHint: "[file]" },
          { name: "house-style", description: "The team's style", kind: "skill", source: "skill-user", argumentHint: null },
        ]);
      case "expand_slash_command":
        return Promise.resolve(`Review ${String(request?.arguments)} carefully.`);
      case "mention_path":
        return String(request?.path).startsWith("/elsewhere")
          ? Promise.reject(new Error("cannot attach /elsewhere/x: path '/elsewhere/x' is outside the project"))
          : Promise.resolve({ path: "docs/a.md", isDir: false });
      default:
        return Promise.reject(new Error(`unexpected ${command}`));
    }
  });
  component = mount(ChatInput, {
    target: document.body,
    props: {
      running: false,
      onsend: (text: string, attachments: AttachmentRequest[]) => {
        sent.push({ text, attachments });
        return Promise.resolve(true);
      },
      oncancel: () => undefined,
      onnewsession: () => {
        newSessions += 1;
        return Promise.resolve();
      },
      oncompact: () => {
        compactions += 1;
        return Promise.resolve(true);
      },
    },
  });
});

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  document.body.innerHTML = "";
});

function input(): HTMLTextAreaElement {
  const field = document.querySelector<HTMLTextAreaElement>("[data-testid=chat-input]");
  if (!field) throw new Error("no input");
  return field;
}

async function type(text: string): Promise<void> {
  const field = input();
  field.focus();
  field.value = text;
  field.setSelectionRange(text.length, text.length);
  field.dispatchEvent(new Event("input", { bubbles: true }));
  for (let i = 0; i < 6; i += 1) await Promise.resolve();
  flushSync();
}

function key(name: string): void {
  input().dispatchEvent(new KeyboardEvent("keydown", { key: name, bubbles: true, cancelable: true }));
  flushSync();
}

function options(): string[] {
  return [...document.querySelectorAll("[data-testid=completion-option]")].map((option) => option.getAttribute("data-value") ?? "");
}

describe("the chat box's completion", () => {
  it("lists files after @ as a listbox and accepts one with the arrows and Enter", async () => {
    await type("look at @");
    expect(options()).toEqual(["src/main.rs", "src"]);
    const list = document.querySelector("[role=listbox]");
    expect(list).not.toBeNull();
    expect(input().getAttribute("aria-controls")).toBe(list?.id);
    expect(document.querySelector("[role=option][aria-selected=true]")?.getAttribute("data-value")).toBe("src/main.rs");
    key("ArrowDown");
    expect(input().getAttribute("aria-activedescendant")).toBe("chat-completions-1");
    key("Enter");
    await settle();
    expect(input().value).toBe("look at @src ");
    const chips = [...document.querySelectorAll("[data-testid=attach-chip]")];
    expect(chips.map((chip) => chip.textContent.trim())).toEqual(["src/ ×"]);
    expect(options()).toEqual([]);
    expect(sent).toEqual([]);
  });

  it("says when the project is still being indexed, and fills the list in as the walk goes on", async () => {
    let walked = false;
    call.mockImplementation((command: string) =>
      command === "complete_mentions"
        ? Promise.resolve(
            walked
              ? { ready: true, items: [{ path: "main.rs", isDir: false }, { path: "src/main.rs", isDir: false }, { path: "src/main.ts", isDir: false }] }
              : { ready: false, items: [{ path: "src/main.rs", isDir: false }, { path: "src/main.ts", isDir: false }] },
          )
        : Promise.reject(new Error(`unexpected ${command}`)),
    );
    await type("@main");
    expect(options()).toEqual(["src/main.rs", "src/main.ts"]);
    const note = document.querySelector("[data-testid=mention-indexing]");
    expect(note?.getAttribute("role")).toBe("status");
    expect(note?.textContent).toContain("Still indexing");
    key("ArrowDown");
    walked = true;
    await new Promise((resolve) => setTimeout(resolve, 400));
    await settle();
    expect(options()).toEqual(["main.rs", "src/main.rs", "src/main.ts"]);
    expect(document.querySelector("[data-testid=mention-indexing]")).toBeNull();
    // The list filled in under the user's hand: what they highlighted stays highlighted.
    expect(input().getAttribute("aria-activedescendant")).toBe("chat-completions-2");
    expect(document.querySelector("[role=option][aria-selected=true]")?.getAttribute("data-value")).toBe("src/main.ts");
  });

  it("closes with Esc and leaves the text as typed", async () => {
    await type("@ma");
    expect(options()).toEqual(["src/main.rs"]);
    key("Escape");
    expect(options()).toEqual([]);
    expect(input().value).toBe("@ma");
  });

  it("sends the chips as attachments, and a removed chip is not sent", async () => {
    await type("@main");
    key("Tab");
    await settle();
    await type("@src");
    key("ArrowDown");
    key("Enter");
    await settle();
    const remove = document.querySelectorAll<HTMLButtonElement>("[data-testid=attach-remove]");
    expect(remove[1]?.getAttribute("aria-label")).toBe("Remove src");
    remove[1]?.click();
    flushSync();
    await type("what do these do?");
    key("Enter");
    await settle();
    expect(sent).toEqual([{ text: "what do these do?", attachments: [{ kind: "mention", path: "src/main.rs" }] }]);
    expect(document.querySelector("[data-testid=attach-chips]")).toBeNull();
  });

  it("completes commands after a leading slash, the project's with their description", async () => {
    await type("/");
    expect(options()).toEqual(["clear", "compact", "help", "model", "new", "house-style", "review"]);
    await type("/rev");
    expect(options()).toEqual(["review"]);
    const review = document.querySelector("[data-testid=completion-option]");
    expect(review?.textContent).toContain("Review a file");
    expect(review?.textContent).toContain("[file]");
    expect(review?.querySelector("[data-testid=completion-source]")?.textContent).toBe("Claude Code, project");
  });

  it("shows a skill with its source, and no source for a built-in", async () => {
    await type("/house");
    const skill = document.querySelector("[data-testid=completion-option]");
    expect(skill?.getAttribute("data-value")).toBe("house-style");
    expect(skill?.querySelector("[data-testid=completion-source]")?.textContent).toBe("skill, yours");
    await type("/hel");
    const help = document.querySelector("[data-testid=completion-option]");
    expect(help?.getAttribute("data-value")).toBe("help");
    expect(help?.querySelector("[data-testid=completion-source]")).toBeNull();
  });
});

describe("the chat box's commands", () => {
  it("expands a project command with its arguments and sends the prompt", async () => {
    await type("/review src/a.rs");
    key("Enter");
    await settle();
    expect(call).toHaveBeenCalledWith("expand_slash_command", { name: "review", arguments: "src/a.rs" });
    expect(sent).toEqual([{ text: "Review src/a.rs carefully.", attachments: [] }]);
  });

  it("runs the built-ins in the window", async () => {
    const opened = vi.fn();
    window.addEventListener("gantry-open-model-picker", opened);
    await type("/model");
    key("Escape");
    key("Enter");
    await settle();
    expect(opened).toHaveBeenCalledTimes(1);
    window.removeEventListener("gantry-open-model-picker", opened);

    await type("/new");
    key("Escape");
    key("Enter");
    await settle();
    expect(newSessions).toBe(1);

    await type("/help");
    key("Escape");
    key("Enter");
    await settle();
    const help = document.querySelector("[data-testid=slash-help]");
    expect(help?.textContent).toContain("/review");
    expect(help?.textContent).toContain("/compact");

    await type("/compact");
    key("Escape");
    key("Enter");
    await settle();
    expect(compactions).toBe(1);
    expect(sent).toEqual([]);
  });

  it("refuses a path dropped from outside the project with the engine's message", async () => {
    const drop = new Event("drop", { bubbles: true, cancelable: true });
    Object.defineProperty(drop, "dataTransfer", {
      value: {
        files: [],
        types: ["text/uri-list"],
        getData: (type: string) => (type === "text/uri-list" ? "file:///elsewhere/x" : ""),
      },
    });
    input().dispatchEvent(drop);
    await settle();
    expect(call).toHaveBeenCalledWith("mention_path", { path: "/elsewhere/x" });
    expect(document.querySelector("[data-testid=chat-input-problem]")?.textContent).toContain("outside the project");
    expect(document.querySelector("[data-testid=attach-chips]")).toBeNull();
  });
});
