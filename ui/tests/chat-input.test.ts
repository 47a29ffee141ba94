// The chat box gives the focus back to itself after sending, but never takes it from a dialog
// that opened meanwhile (an approval asked before send_message answered would otherwise lose
// its focus, and Enter would go to the chat box instead of the focused choice).

import { flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it } from "vitest";

import ChatInput from "../src/components/ChatInput.svelte";

let component: ReturnType<typeof mount> | null = null;

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  document.body.innerHTML = "";
});

function setUp(): { input: HTMLTextAreaElement; resolve: () => void } {
  let resolve: () => void = () => undefined;
  component = mount(ChatInput, {
    target: document.body,
    props: {
      running: false,
      onsend: () =>
        new Promise<boolean>((done) => {
          resolve = () => {
            done(true);
          };
        }),
      oncancel: () => undefined,
    },
  });
  const input = document.querySelector<HTMLTextAreaElement>("[data-testid=chat-input]");
  if (!input) throw new Error("no input");
  input.value = "hello";
  input.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
  return { input, resolve: () => { resolve(); } };
}

describe("the chat box", () => {
  it("takes the focus back after a click on Send", async () => {
    const { input, resolve } = setUp();
    const send = document.querySelector<HTMLButtonElement>("[data-testid=chat-send]");
    send?.focus();
    send?.click();
    resolve();
    await Promise.resolve();
    await Promise.resolve();
    expect(document.activeElement).toBe(input);
  });

  it("leaves the focus where a dialog put it while the message was being sent", async () => {
    const { input, resolve } = setUp();
    input.focus();
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    const dialogButton = document.createElement("button");
    document.body.append(dialogButton);
    dialogButton.focus();
    resolve();
    await Promise.resolve();
    await Promise.resolve();
    expect(document.activeElement).toBe(dialogButton);
  });
});
