// The gauge as the chat shows it: a meter with its value in words, the breakdown on click, and
// "Compact now" (off while a turn runs).

import { flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it } from "vitest";

import type { ContextUsage } from "../src/bindings/ContextUsage";
import ContextGauge from "../src/components/ContextGauge.svelte";
import SummaryMessage from "../src/components/SummaryMessage.svelte";

let component: ReturnType<typeof mount> | null = null;

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  document.body.innerHTML = "";
});

const usage: ContextUsage = {
  windowTokens: 32_000, systemTokens: 1_200, summaryTokens: 0, toolTokens: 2_400,
  transcriptTokens: 20_400, attachmentTokens: 0, reportedTokens: null, replyReserveTokens: 4_096,
  compactAtTokens: 25_600, summarisedMessages: 0, instructions: [],
};

describe("ContextGauge", () => {
  it("is a meter that says its value in words, with the parts on click", () => {
    let compacted = 0;
    component = mount(ContextGauge, {
      target: document.body,
      props: { usage, canCompact: true, oncompact: () => { compacted += 1; } },
    });
    const meter = document.querySelector("[role=meter]");
    expect(meter?.getAttribute("aria-valuenow")).toBe("24000");
    expect(meter?.getAttribute("aria-valuemax")).toBe("32000");
    expect(meter?.getAttribute("aria-valuetext")).toBe("75% of the context window used: 24k of 32k tokens (estimated)");
    expect(document.querySelector("[data-testid=context-gauge]")?.getAttribute("data-level")).toBe("near");
    expect(document.querySelector("[data-testid=context-details]")).toBeNull();
    document.querySelector<HTMLButtonElement>("[data-testid=context-toggle]")?.click();
    flushSync();
    const details = document.querySelector("[data-testid=context-details]");
    expect(details?.textContent).toContain("Tool descriptions");
    expect(details?.textContent).toContain("20.4k");
    expect(details?.textContent).toContain("Compacts at 80%");
    document.querySelector<HTMLButtonElement>("[data-testid=context-compact]")?.click();
    flushSync();
    expect(compacted).toBe(1);
  });

  it("lists the instruction files with their sizes and says which were cut", () => {
    component = mount(ContextGauge, {
      target: document.body,
      props: {
        usage: {
          ...usage,
          instructions: [
            { file: "CLAUDE.md", tokens: 8_200, truncated: true },
            { file: "docs/style.md", tokens: 40, truncated: false, importedBy: "CLAUDE.md" },
          ],
          systemTokens: 9_000,
        },
        canCompact: true,
        oncompact: () => undefined,
      },
    });
    document.querySelector<HTMLButtonElement>("[data-testid=context-toggle]")?.click();
    flushSync();
    const rows = [...document.querySelectorAll("[data-testid=context-files] > div")];
    expect(rows.map((row) => row.textContent.replace(/\s+/g, " ").trim())).toEqual([
      "CLAUDE.md cut at 32 KiB 8.2k",
      "docs/style.md imported by CLAUDE.md 40",
    ]);
    expect(rows[0]?.getAttribute("data-truncated")).toBe("true");
    expect(document.querySelector("[data-testid=context-details]")?.textContent).toContain("Gantry's instructions");
  });

  it("offers no compaction while a turn runs", () => {
    component = mount(ContextGauge, {
      target: document.body,
      props: { usage, canCompact: false, oncompact: () => undefined },
    });
    document.querySelector<HTMLButtonElement>("[data-testid=context-toggle]")?.click();
    flushSync();
    expect(document.querySelector<HTMLButtonElement>("[data-testid=context-compact]")?.disabled).toBe(true);
  });
});

describe("SummaryMessage", () => {
  it("is edited in place and saved through the callback", async () => {
    const saved: string[] = [];
    component = mount(SummaryMessage, {
      target: document.body,
      props: {
        text: "NOTES",
        editable: true,
        onsave: (text: string) => {
          saved.push(text);
          return Promise.resolve(true);
        },
      },
    });
    document.querySelector<HTMLButtonElement>("[data-testid=summary-edit]")?.click();
    flushSync();
    const field = document.querySelector<HTMLTextAreaElement>("[data-testid=summary-text]");
    expect(field?.value).toBe("NOTES");
    if (field) {
      field.value = "BETTER NOTES";
      field.dispatchEvent(new Event("input", { bubbles: true }));
    }
    flushSync();
    document.querySelector<HTMLButtonElement>("[data-testid=summary-save]")?.click();
    await new Promise((resolve) => {
      setTimeout(resolve, 0);
    });
    flushSync();
    expect(saved).toEqual(["BETTER NOTES"]);
    expect(document.querySelector("[data-testid=summary-text]")).toBeNull();
  });
});
