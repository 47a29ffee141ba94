// The Tools panel's logic: tools grouped by where they come from, each policy compared with its
// level's default, and the panel's labels. The components only render what these return.

import type { PermissionLevel } from "../bindings/PermissionLevel";
import type { Policy } from "../bindings/Policy";
import type { ToolInfo } from "../bindings/ToolInfo";
import { t } from "./i18n.svelte";
import type { MessageKey } from "./locales/en";

/** The three choices, in the order the segmented control shows them. */
export const POLICIES: readonly Policy[] = ["disabled", "ask", "auto"];

/** Tools of one source: the built-ins, or one MCP server's. */
export interface ToolGroup {
  /** Stable key: `builtin` or `mcp:<server>`. */
  key: string;
  /** The heading: "Built-in" or "MCP: <server>" (in the UI's language). */
  label: string;
  tools: ToolInfo[];
}

/** The policy a tool of `level` has until the user picks one (mirrors the engine's table). */
export function defaultPolicy(level: PermissionLevel): Policy {
  switch (level) {
    case "safe":
      return "auto";
    case "sensitive":
      return "ask";
    case "dangerous":
      return "disabled";
  }
}

/** True when the tool's policy is its level's default. */
export function isDefault(tool: Pick<ToolInfo, "level" | "policy">): boolean {
  return tool.policy === defaultPolicy(tool.level);
}

/** How many tools differ from their defaults. */
export function changedCount(tools: readonly ToolInfo[]): number {
  return tools.filter((tool) => !isDefault(tool)).length;
}

/** "Built-in" first, then one group per MCP server in name order; tools by name within each. */
export function groupTools(tools: readonly ToolInfo[]): ToolGroup[] {
  const groups = new Map<string, ToolGroup>();
  for (const tool of tools) {
    const key = tool.source.kind === "builtin" ? "builtin" : `mcp:${tool.source.server}`;
    const label = tool.source.kind === "builtin" ? t("tools.group.builtin") : t("tools.group.mcp", { server: tool.source.server });
    let group = groups.get(key);
    if (group === undefined) {
      group = { key, label, tools: [] };
      groups.set(key, group);
    }
    group.tools.push(tool);
  }
  const sorted = [...groups.values()].sort((a, b) => {
    if (a.key === "builtin") return -1;
    if (b.key === "builtin") return 1;
    return a.key.localeCompare(b.key);
  });
  for (const group of sorted) group.tools.sort((a, b) => a.name.localeCompare(b.name));
  return sorted;
}

/** "Disabled", "Ask", "Auto" (in the UI's language). */
export function policyLabel(policy: Policy): string {
  switch (policy) {
    case "disabled":
      return t("policy.disabled");
    case "ask":
      return t("policy.ask");
    case "auto":
      return t("policy.auto");
  }
}

/** What a policy means, for the control's tooltip. */
export function policyHint(policy: Policy): string {
  switch (policy) {
    case "disabled":
      return t("policy.hint.disabled");
    case "ask":
      return t("policy.hint.ask");
    case "auto":
      return t("policy.hint.auto");
  }
}

/** The first non-empty line of a description (the rest shows on expand). */
export function firstLine(description: string): string {
  return description.split("\n").map((line) => line.trim()).find((line) => line !== "") ?? "";
}

/** True when moving a tool of `level` to `policy` turns a DANGEROUS tool on (needs a confirm). */
export function needsConfirmation(level: PermissionLevel, policy: Policy): boolean {
  return level === "dangerous" && policy !== "disabled";
}

/** The built-in tools' descriptions for people (the model reads its own, in English). */
const BUILTIN_WORDS: Readonly<Record<string, MessageKey>> = {
  read_file: "toolWords.read_file",
  write_file: "toolWords.write_file",
  edit_file: "toolWords.edit_file",
  glob_search: "toolWords.glob_search",
  grep_search: "toolWords.grep_search",
  run_command: "toolWords.run_command",
  ask_user: "toolWords.ask_user",
};

/** What a tool does, in one line for people: the built-ins' own words in the UI's language, an
 *  MCP tool's first line of its description (the only words it has). */
export function humanDescription(tool: Pick<ToolInfo, "name" | "description" | "source">): string {
  const key = tool.source.kind === "builtin" ? BUILTIN_WORDS[tool.name] : undefined;
  return key === undefined ? firstLine(tool.description) : t(key);
}
