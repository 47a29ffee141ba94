// The context gauge's arithmetic: how full the model's window is, from the engine's
// `ContextUsage` (estimates of each part of the request, and the provider's own count of the
// latest request when it reported one), plus what the message being written attaches.
//
// The provider's count wins when there is one (it is exact for the tokenizer it runs); the
// estimate (four characters a token) otherwise. The level says when to look: `near` from the
// compaction threshold (or 80 % when compaction is off) minus ten points, `full` from the
// threshold itself (the next message compacts first) or 95 %.
//
// The instruction files in the system prompt (`CLAUDE.md`, `AGENTS.md`, their imports) come as
// a breakdown of the system part: the gauge lists each file with its size under the system
// part, which keeps only the rest (Gantry's own instructions), so nothing is counted twice.

import type { ContextUsage } from "../bindings/ContextUsage";

/** A part of the request, in the breakdown's order. */
export type GaugePart = "system" | "summary" | "tools" | "transcript" | "attachments";

export type GaugeLevel = "ok" | "near" | "full";

/** One instruction file in the system prompt. */
export interface GaugeFile {
  /** The file as the user sees it (`CLAUDE.md`, `~/.claude/CLAUDE.md`). */
  readonly file: string;
  readonly tokens: number;
  /** Cut at 32 KiB. */
  readonly truncated: boolean;
  /** The file that imports it, when it is an import. */
  readonly importedBy: string | null;
}

export interface Gauge {
  /** Tokens the next request takes. */
  readonly used: number;
  /** The model's window. */
  readonly window: number;
  /** `used` as a whole percent of the window, 0 to 100. */
  readonly percent: number;
  readonly level: GaugeLevel;
  /** Where `used` comes from. */
  readonly source: "reported" | "estimated";
  /** The estimated parts that are not empty, in order. */
  readonly parts: readonly { readonly part: GaugePart; readonly tokens: number }[];
  /** The instruction files, in the order the system prompt carries them (inside `system`). */
  readonly files: readonly GaugeFile[];
  /** The percent at which the next message compacts first; null when compaction is off. */
  readonly compactAt: number | null;
  /** Messages a summary stands in for. */
  readonly summarised: number;
}

/** The default share of the window that counts as near full when compaction is off. */
const NEAR_WITHOUT_COMPACTION = 80;
/** How many points before the threshold the gauge warns. */
const WARN_POINTS = 10;
/** Full, whatever the threshold. */
const FULL_PERCENT = 95;

/** A whole percent of `part` in `whole`, 0 to 100 (0 for an empty window). */
export function percentOf(part: number, whole: number): number {
  if (whole <= 0 || part <= 0) return 0;
  return Math.min(100, Math.round((part / whole) * 100));
}

/** The gauge for `usage`, with `attachmentTokens` more for what the draft attaches. */
export function gaugeOf(usage: ContextUsage, attachmentTokens = 0): Gauge {
  const attachments = usage.attachmentTokens + Math.max(0, attachmentTokens);
  const estimated =
    usage.systemTokens + usage.summaryTokens + usage.toolTokens + usage.transcriptTokens + attachments;
  const reported = usage.reportedTokens;
  const used = reported === null ? estimated : reported + attachments;
  const percent = percentOf(used, usage.windowTokens);
  const compactAt = usage.compactAtTokens > 0 ? percentOf(usage.compactAtTokens, usage.windowTokens) : null;
  const fullAt = Math.min(compactAt ?? FULL_PERCENT, FULL_PERCENT);
  const nearAt = (compactAt ?? NEAR_WITHOUT_COMPACTION) - WARN_POINTS;
  const level: GaugeLevel = percent >= fullAt ? "full" : percent >= nearAt ? "near" : "ok";
  const files: GaugeFile[] = usage.instructions.map((entry) => ({
    file: entry.file,
    tokens: entry.tokens,
    truncated: entry.truncated,
    importedBy: entry.importedBy ?? null,
  }));
  const inFiles = files.reduce((sum, entry) => sum + entry.tokens, 0);
  const all: readonly { part: GaugePart; tokens: number }[] = [
    { part: "system", tokens: Math.max(0, usage.systemTokens - inFiles) },
    { part: "summary", tokens: usage.summaryTokens },
    { part: "tools", tokens: usage.toolTokens },
    { part: "transcript", tokens: usage.transcriptTokens },
    { part: "attachments", tokens: attachments },
  ];
  return {
    used,
    window: usage.windowTokens,
    percent,
    level,
    source: reported === null ? "estimated" : "reported",
    parts: all.filter((entry) => entry.tokens > 0),
    files,
    compactAt,
    summarised: usage.summarisedMessages,
  };
}

/** A token count in few characters: 950, 12.3k, 128k, 1.05M. */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(Math.max(0, Math.round(tokens)));
  if (tokens < 1_000_000) {
    const thousands = tokens / 1000;
    return `${thousands < 100 ? trim(thousands.toFixed(1)) : String(Math.round(thousands))}k`;
  }
  return `${trim((tokens / 1_000_000).toFixed(2))}M`;
}

function trim(number: string): string {
  return number.includes(".") ? number.replace(/\.?0+$/, "") : number;
}
