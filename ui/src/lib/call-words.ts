// Tool calls in words for people: what a call will do ("Create `src/util.rs` (24 lines)"), why
// Gantry asks about it ("`write_file` is set to Ask in this project"), the argument that tells
// calls apart on a tool card (a path, a command, `server:tool`) and who let a call run or stopped
// it ("you: allowed once", "session grant: `git log`"). Each sentence is a message key with the
// parts that go in `<code>` kept apart, so the component can mark them up wherever the language
// puts them (see `Words.svelte`).

import type { ApprovalRequest } from "../bindings/ApprovalRequest";
import type { Decision } from "../bindings/Decision";
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import type { PermissionLevel } from "../bindings/PermissionLevel";
import type { Preview } from "../bindings/Preview";
import { parseUnifiedDiff } from "./diff";
import type { MessageParams } from "./i18n.svelte";
import type { MessageKey } from "./locales/en";

/** A sentence: its message, plain parameters, and the parameters shown as code. */
export interface Words {
  readonly key: MessageKey;
  readonly params?: MessageParams;
  /** Parameters shown in `<code>` (paths, commands, tool names), as they come. */
  readonly code?: Readonly<Record<string, string>>;
}

/** A tool of an MCP server, read from its registry name (`mcp__{server}__{tool}`). */
export function mcpParts(name: string): { server: string; tool: string } | null {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  if (!match?.[1] || !match[2]) return null;
  return { server: match[1], tool: match[2] };
}

/** A string argument, if the arguments hold one under `key`. */
function stringArg(args: JsonValue | undefined, key: string): string | null {
  if (args === null || args === undefined || typeof args !== "object" || Array.isArray(args)) return null;
  const value = (args as Record<string, JsonValue | undefined>)[key];
  return typeof value === "string" ? value : null;
}

/** The arguments of a card (JSON text as the model wrote it), parsed when they parse. */
export function parseArguments(text: string): JsonValue | undefined {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/** How much of a command the first line shows; the dialog shows all of it below. */
export const SUMMARY_COMMAND_CHARS = 80;

/** `text` cut to `limit` characters, with an ellipsis when it was longer. */
export function shorten(text: string, limit: number): string {
  const chars = Array.from(text);
  return chars.length <= limit ? text : `${chars.slice(0, limit).join("")}…`;
}

/** A working directory as the user reads it: the project root is `.`. */
function dirLabel(dir: string | null): string {
  return dir === null || dir === "" ? "." : dir;
}

/** What a diff does to its file, in words. */
function diffWords(path: string, unified: string): Words {
  const parsed = parseUnifiedDiff(unified);
  const hunks = parsed.lines.filter((line) => line.kind === "hunk");
  const created = hunks.length === 1 && /^@@ -0,0 /.test(hunks[0]?.text ?? "") && parsed.deletions === 0;
  const code = { path };
  if (created) return { key: "words.create", params: { count: parsed.additions }, code };
  if (parsed.additions === 0 && parsed.deletions === 0) return { key: "words.noChange", code };
  if (parsed.deletions === 0) return { key: "words.addLines", params: { count: parsed.additions }, code };
  if (parsed.additions === 0) return { key: "words.removeLines", params: { count: parsed.deletions }, code };
  return { key: "words.changeLines", params: { count: Math.max(parsed.additions, parsed.deletions) }, code };
}

/**
 * What a call will do, in one line: from its preview when the tool made one (a diff, a command),
 * from its arguments otherwise.
 */
export function callSummary(tool: string, args: JsonValue | undefined, preview: Preview | null): Words {
  if (preview?.kind === "diff") return diffWords(preview.path, preview.unified);
  if (preview?.kind === "command") {
    return { key: "words.run", code: { command: shorten(preview.command, SUMMARY_COMMAND_CHARS), dir: dirLabel(preview.workdir) } };
  }
  const mcp = mcpParts(tool);
  if (mcp) return { key: "words.mcp", code: { tool: mcp.tool, server: mcp.server } };
  const path = stringArg(args, "path");
  switch (tool) {
    case "read_file":
      if (path !== null) return { key: "words.read", code: { path } };
      break;
    case "write_file":
    case "edit_file":
      if (path !== null) return { key: "words.write", code: { path } };
      break;
    case "run_command": {
      const command = stringArg(args, "command");
      if (command !== null) {
        return { key: "words.run", code: { command: shorten(command, SUMMARY_COMMAND_CHARS), dir: dirLabel(stringArg(args, "workdir")) } };
      }
      break;
    }
    case "glob_search": {
      const pattern = stringArg(args, "pattern");
      if (pattern !== null) return { key: "words.glob", code: { pattern, dir: dirLabel(path) } };
      break;
    }
    case "grep_search": {
      const pattern = stringArg(args, "pattern");
      if (pattern !== null) return { key: "words.grep", code: { pattern, dir: dirLabel(path) } };
      break;
    }
    case "ask_user":
      return { key: "words.ask" };
  }
  return { key: "words.call", code: { tool } };
}

/** The argument that tells one call of a tool from another, for the card's one line. */
export function keyArgument(tool: string, args: JsonValue | undefined): string | null {
  const mcp = mcpParts(tool);
  if (mcp) return `${mcp.server}:${mcp.tool}`;
  switch (tool) {
    case "run_command":
      return stringArg(args, "command");
    case "glob_search":
    case "grep_search":
      return stringArg(args, "pattern");
    case "ask_user":
      return stringArg(args, "question");
    default:
      return stringArg(args, "path");
  }
}

/** The key of a keyed session scope entry (`run_command: git push` → `git push`). */
function scopeKey(tool: string, entry: string): string | null {
  const prefix = `${tool}: `;
  return entry.startsWith(prefix) ? entry.slice(prefix.length) : null;
}

/** Why Gantry asks about this call, in one line. */
export function askReason(request: Pick<ApprovalRequest, "tool" | "reason" | "sessionScope">): Words {
  switch (request.reason.kind) {
    case "always":
      return { key: "why.always", params: { why: request.reason.why } };
    case "unscoped":
      return { key: "why.unscoped", params: { why: request.reason.why } };
    case "policy": {
      const keys = request.sessionScope.map((entry) => scopeKey(request.tool, entry));
      if (keys.length > 0 && keys.every((key) => key !== null)) {
        return { key: "why.noGrant", code: { keys: keys.join(", ") } };
      }
      return { key: "why.policyAsk", code: { tool: request.tool } };
    }
  }
}

/**
 * Who let a call run or stopped it, for the card's chip; `null` when nobody decided (the call
 * never reached the gate: bad arguments, an unknown tool).
 */
export function decidedBy(decision: Decision, tool: string, level: PermissionLevel | null): Words | null {
  switch (decision.by) {
    case "user":
      switch (decision.kind) {
        case "allowed_once":
          return { key: "decidedBy.youOnce" };
        case "allowed_for_session":
          return { key: "decidedBy.youSession" };
        case "denied":
          return decision.detail
            ? { key: "decidedBy.youDeniedBecause", params: { reason: decision.detail } }
            : { key: "decidedBy.youDenied" };
        default:
          return null;
      }
    case "session_grant": {
      const grant = decision.detail ?? tool;
      return { key: "decidedBy.sessionGrant", code: { grant: scopeKey(tool, grant) ?? grant } };
    }
    case "policy":
      if (decision.kind === "disabled") return { key: "decidedBy.disabled" };
      if (decision.kind !== "auto") return null;
      return mcpParts(tool) !== null && level === "safe" ? { key: "decidedBy.readOnlyMcp" } : { key: "decidedBy.auto" };
    case "rule":
      return decision.kind === "denied" ? null : { key: "decidedBy.rule", params: { rule: decision.detail ?? "" } };
    case "external_rule":
      // The detail names the rule and its file: "allow rule Bash(npm test) of .claude/settings.json".
      return decision.kind === "denied" ? null : { key: "decidedBy.rule", params: { rule: decision.detail ?? decision.source ?? "" } };
    case "no_approver":
      return { key: "decidedBy.nobody" };
    case "hook":
      // A hook that refused: the result says why; one that allowed: which file's hook.
      return decision.kind === "denied" ? null : { key: "decidedBy.hook", params: { file: decision.detail ?? "" } };
    case "engine":
      return null;
  }
}

/** `text` cut at its backticked spans ("`--output` writes a file"): the engine's way of marking
 *  code in the reasons it gives. */
export function codeSpans(text: string): { text: string; code: boolean }[] {
  const spans: { text: string; code: boolean }[] = [];
  const pattern = /`([^`\n]+)`/g;
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > at) spans.push({ text: text.slice(at, match.index), code: false });
    spans.push({ text: match[1] ?? "", code: true });
    at = match.index + match[0].length;
  }
  if (at < text.length) spans.push({ text: text.slice(at), code: false });
  return spans;
}
