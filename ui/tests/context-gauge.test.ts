import { describe, expect, it } from "vitest";

import type { ContextUsage } from "../src/bindings/ContextUsage";
import { formatTokens, gaugeOf, percentOf } from "../src/lib/context-gauge";

function usage(fields: Partial<ContextUsage> = {}): ContextUsage {
  return {
    windowTokens: 10_000,
    systemTokens: 1_000,
    summaryTokens: 0,
    toolTokens: 2_000,
    transcriptTokens: 1_500,
    attachmentTokens: 0,
    reportedTokens: null,
    replyReserveTokens: 1_000,
    compactAtTokens: 8_000,
    summarisedMessages: 0,
    instructions: [],
    ...fields,
  };
}

describe("the context gauge", () => {
  it("adds the estimated parts when the provider counted nothing", () => {
    const gauge = gaugeOf(usage());
    expect(gauge.used).toBe(4_500);
    expect(gauge.percent).toBe(45);
    expect(gauge.source).toBe("estimated");
    expect(gauge.level).toBe("ok");
    expect(gauge.parts.map((part) => part.part)).toEqual(["system", "tools", "transcript"]);
    expect(gauge.compactAt).toBe(80);
  });

  it("prefers the provider's count, and adds what the draft attaches to either", () => {
    const gauge = gaugeOf(usage({ reportedTokens: 6_000 }), 1_200);
    expect(gauge.used).toBe(7_200);
    expect(gauge.source).toBe("reported");
    expect(gauge.parts.at(-1)).toEqual({ part: "attachments", tokens: 1_200 });
    expect(gaugeOf(usage(), 500).used).toBe(5_000);
  });

  it("warns ten points before the compaction threshold and is full at it", () => {
    expect(gaugeOf(usage({ transcriptTokens: 3_900 })).level).toBe("ok"); // 69 %
    expect(gaugeOf(usage({ transcriptTokens: 4_000 })).level).toBe("near"); // 70 %
    expect(gaugeOf(usage({ transcriptTokens: 5_000 })).level).toBe("full"); // 80 %
  });

  it("without compaction, warns from 70 % and is full from 95 %", () => {
    const off = { compactAtTokens: 0 };
    expect(gaugeOf(usage({ ...off, transcriptTokens: 4_000 })).level).toBe("near");
    expect(gaugeOf(usage({ ...off, transcriptTokens: 6_400 })).level).toBe("near"); // 94 %
    expect(gaugeOf(usage({ ...off, transcriptTokens: 6_500 })).level).toBe("full");
    expect(gaugeOf(usage(off)).compactAt).toBeNull();
  });

  it("clamps the percent and survives an unknown window", () => {
    expect(gaugeOf(usage({ reportedTokens: 50_000 })).percent).toBe(100);
    expect(percentOf(10, 0)).toBe(0);
    expect(percentOf(-5, 100)).toBe(0);
    expect(percentOf(1, 3)).toBe(33);
  });

  it("lists each instruction file inside the system part, with its cut and its importer", () => {
    const gauge = gaugeOf(
      usage({
        instructions: [
          { file: "~/.claude/CLAUDE.md", tokens: 100, truncated: false },
          { file: "CLAUDE.md", tokens: 8_200, truncated: true },
          { file: "docs/style.md", tokens: 50, truncated: false, importedBy: "CLAUDE.md" },
        ],
        systemTokens: 9_000,
      }),
    );
    expect(gauge.files).toEqual([
      { file: "~/.claude/CLAUDE.md", tokens: 100, truncated: false, importedBy: null },
      { file: "CLAUDE.md", tokens: 8_200, truncated: true, importedBy: null },
      { file: "docs/style.md", tokens: 50, truncated: false, importedBy: "CLAUDE.md" },
    ]);
    // Counted once: the system part keeps only what the files do not.
    expect(gauge.parts[0]).toEqual({ part: "system", tokens: 650 });
    expect(gauge.used).toBe(12_500);
    expect(gaugeOf(usage()).files).toEqual([]);
  });

  it("formats token counts in few characters", () => {
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(1_000)).toBe("1k");
    expect(formatTokens(12_345)).toBe("12.3k");
    expect(formatTokens(128_000)).toBe("128k");
    expect(formatTokens(1_048_576)).toBe("1.05M");
  });
});
