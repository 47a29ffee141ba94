// What the chat box understands beyond plain text, as pure functions (the component holds the
// state): the token being completed at the caret (`@path` or a leading `/command`), applying a
// completion, parsing a slash command on send, ranking commands, and the chips of what the
// message attaches (mentioned files and folders, images).

import type { Attachment } from "../bindings/Attachment";
import type { AttachmentRequest } from "../bindings/AttachmentRequest";

/** The token at the caret that a completion list follows. */
export interface ActiveToken {
  readonly kind: "mention" | "slash";
  /** What follows the `@` or `/`, up to the caret. */
  readonly query: string;
  /** Where the token starts (at the `@` or `/`). */
  readonly start: number;
  /** Where it ends (the caret). */
  readonly end: number;
}

/**
 * The token being typed at `caret`: `@query` after a space or at the start of the text (a
 * mention), or `/query` as the whole text so far (a command). `null` when neither.
 */
export function activeToken(text: string, caret: number): ActiveToken | null {
  const before = text.slice(0, caret);
  const slash = /^\/([\w.:-]*)$/.exec(before);
  if (slash) return { kind: "slash", query: slash[1] ?? "", start: 0, end: caret };
  const mention = /(?:^|\s)@([^\s@]*)$/.exec(before);
  if (mention) {
    const query = mention[1] ?? "";
    return { kind: "mention", query, start: caret - query.length - 1, end: caret };
  }
  return null;
}

/** `text` with `token` replaced by `replacement` and a space, and where the caret goes. */
export function applyCompletion(text: string, token: ActiveToken, replacement: string): { text: string; caret: number } {
  const after = text.slice(token.end);
  const inserted = after.startsWith(" ") ? replacement : `${replacement} `;
  const next = text.slice(0, token.start) + inserted + after;
  return { text: next, caret: token.start + inserted.length + (after.startsWith(" ") ? 1 : 0) };
}

/** A slash command as typed: `/name arguments`. */
export interface SlashInput {
  readonly name: string;
  readonly arguments: string;
}

/** The command a message is, when it starts with `/name` (and not `//` or a path like `/usr/…`). */
export function parseSlash(text: string): SlashInput | null {
  const match = /^\/([\w.:-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return null;
  return { name: match[1] ?? "", arguments: (match[2] ?? "").trim() };
}

/** The commands built into the chat box (they act in the window, not through the model). */
export const BUILTIN_COMMANDS = ["new", "compact", "model", "clear", "help"] as const;
export type BuiltinCommand = (typeof BUILTIN_COMMANDS)[number];

export function isBuiltin(name: string): name is BuiltinCommand {
  return (BUILTIN_COMMANDS as readonly string[]).includes(name);
}

/** A command in the completion list. */
export interface CommandOption {
  readonly name: string;
  readonly description: string;
  readonly builtin: boolean;
  /** Where a file's command comes from (`claude-project`, `skill-user`, …; see `SlashCommandView`). */
  readonly source?: string;
  /** The arguments it takes (`[file]`), when its file says. */
  readonly argumentHint?: string | null;
}

/** The sources a command or skill may come from, each named in the locale catalogs (`slash.source.*`). */
export const COMMAND_SOURCES = ["gantry", "claude-project", "claude-user", "codex-user", "skill-project", "skill-user"] as const;

/** A known command source. */
export type CommandSource = (typeof COMMAND_SOURCES)[number];

/** `source` when it is one the catalogs name, else null (a built-in, or a source this build does not know). */
export function knownSource(source: string | undefined): CommandSource | null {
  return (COMMAND_SOURCES as readonly string[]).includes(source ?? "") ? (source as CommandSource) : null;
}

/**
 * The commands matching `query`, best first: names starting with it, then names containing it,
 * then names holding its letters in order; built-ins before the project's at equal rank, then
 * by name.
 */
export function rankCommands(commands: readonly CommandOption[], query: string): CommandOption[] {
  const q = query.toLowerCase();
  const rank = (name: string): number => {
    const n = name.toLowerCase();
    if (n.startsWith(q)) return 0;
    if (n.includes(q)) return 1;
    let at = 0;
    for (const char of n) if (char === q[at]) at += 1;
    return at === q.length ? 2 : -1;
  };
  return commands
    .map((command) => ({ command, rank: rank(command.name) }))
    .filter((entry) => entry.rank >= 0)
    .sort(
      (a, b) =>
        a.rank - b.rank ||
        Number(b.command.builtin) - Number(a.command.builtin) ||
        a.command.name.localeCompare(b.command.name),
    )
    .map((entry) => entry.command);
}

/** Something the message attaches, as a chip above the chat box. */
export type Chip =
  | { readonly kind: "mention"; readonly path: string; readonly isDir: boolean }
  | { readonly kind: "image"; readonly image: Extract<Attachment, { kind: "image" }> };

/** A chip's identity (a path is mentioned once; an image by its content). */
export function chipKey(chip: Chip): string {
  return chip.kind === "mention" ? `mention:${chip.path}` : `image:${chip.image.name}:${chip.image.data.length}:${chip.image.data.slice(-32)}`;
}

/** `chips` with `chip` added at the end, unless it is there already. */
export function addChip(chips: readonly Chip[], chip: Chip): Chip[] {
  const key = chipKey(chip);
  return chips.some((existing) => chipKey(existing) === key) ? [...chips] : [...chips, chip];
}

/** `chips` without the one whose key is `key`. */
export function removeChip(chips: readonly Chip[], key: string): Chip[] {
  return chips.filter((chip) => chipKey(chip) !== key);
}

/** What `send_message` is given for the chips. */
export function attachmentRequests(chips: readonly Chip[]): AttachmentRequest[] {
  return chips.map((chip) => (chip.kind === "mention" ? { kind: "mention", path: chip.path } : { kind: "image", image: chip.image }));
}

/** The image types the chat box takes. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;

export function isAcceptedImage(type: string): boolean {
  return (IMAGE_TYPES as readonly string[]).includes(type);
}

/** The local paths of a drop's `text/uri-list` (`file://` URIs only, decoded). */
export function droppedPaths(uriList: string): string[] {
  return uriList
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.startsWith("file://"))
    .map((line) => {
      try {
        return decodeURIComponent(new URL(line).pathname);
      } catch {
        return "";
      }
    })
    .filter((path) => path !== "");
}

/** The data URL an image attachment is shown with. */
export function imageUrl(image: { readonly mime: string; readonly data: string }): string {
  return `data:${image.mime};base64,${image.data}`;
}

/** The drag data type the file tree puts a dragged entry's project path under. */
export const GANTRY_PATH_TYPE = "application/x-gantry-path";

/** The window event that opens the title bar's model picker (/model). */
export const OPEN_MODEL_PICKER = "gantry-open-model-picker";
