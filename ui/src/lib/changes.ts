// The Changes panel's pure parts: a file's diff cut into its hunks (each can be reverted on its
// own: hunk n here is hunk n of the engine's diff), the words for kinds, notes, conflicts and
// restores, and the chat taken back to an earlier user message (edit and resend, retry).

import type { ChangeKind } from "../bindings/ChangeKind";
import type { ConflictReason } from "../bindings/ConflictReason";
import type { FileNote } from "../bindings/FileNote";
import type { RestoreKindView } from "../bindings/RestoreKindView";
import type { RestoreReport } from "../bindings/RestoreReport";
import type { ChatItem, ChatState } from "./chat";
import { t } from "./i18n.svelte";

/** A file's unified diff cut into hunks, each a diff of its own (the file headers repeated). */
export interface DiffHunks {
  readonly header: string;
  readonly hunks: readonly string[];
}

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/** Cuts `diff` at its hunk headers. A hunk header's counts say how many lines it holds, so a
 *  removed line that looks like a header is not taken for one. */
export function splitHunks(diff: string): DiffHunks {
  const lines = diff.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const header: string[] = [];
  const hunks: string[][] = [];
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of lines) {
    const inHunk = oldLeft > 0 || newLeft > 0;
    const match = inHunk ? null : HUNK.exec(line);
    if (match) {
      oldLeft = Number(match[1] ?? "1");
      newLeft = Number(match[2] ?? "1");
      hunks.push([line]);
      continue;
    }
    const current = hunks.at(-1);
    if (current === undefined) {
      header.push(line);
      continue;
    }
    current.push(line);
    if (line.startsWith("+")) newLeft = Math.max(0, newLeft - 1);
    else if (line.startsWith("-")) oldLeft = Math.max(0, oldLeft - 1);
    else if (line.startsWith(" ") || line === "") {
      oldLeft = Math.max(0, oldLeft - 1);
      newLeft = Math.max(0, newLeft - 1);
    }
  }
  const head = header.join("\n");
  return {
    header: head,
    hunks: hunks.map((hunk) => `${head}\n${hunk.join("\n")}\n`),
  };
}

/** A file's change in a word. */
export function kindLabel(kind: ChangeKind): string {
  switch (kind) {
    case "created":
      return t("changes.kind.created");
    case "modified":
      return t("changes.kind.modified");
    case "deleted":
      return t("changes.kind.deleted");
  }
}

/** Why a change has no diff. */
export function noteLabel(note: FileNote): string {
  switch (note) {
    case "binary":
      return t("changes.note.binary");
    case "too_large":
      return t("changes.note.tooLarge");
    case "not_kept":
      return t("changes.note.notKept");
  }
}

/** Why a file is a conflict. */
export function conflictLabel(reason: ConflictReason): string {
  return reason === "edited_since" ? t("changes.conflict.editedSince") : t("changes.conflict.changedLater");
}

/** What a restore restored, in words. */
export function restoreLabel(kind: RestoreKindView, label: string): string {
  switch (kind) {
    case "file":
      return t("changes.restore.file", { path: label });
    case "hunk":
      return t("changes.restore.hunk", { path: label });
    case "turn":
      return t("changes.restore.turn", { number: label });
    case "session":
      return t("changes.restore.session");
    case "rewind":
      return t("changes.restore.rewind");
    case "undo":
      return t("changes.restore.undo");
    case "branch":
      return t("changes.restore.branch");
  }
}

/** A successful restore in one sentence. */
export function reportSummary(report: RestoreReport): string {
  const count = report.restored.length;
  let text = count === 0 ? t("changes.report.nothing") : t("changes.report.restored", { count });
  if (report.failed.length > 0) text += " " + t("changes.report.failed", { count: report.failed.length });
  if (report.unrestorable.length > 0) text += " " + t("changes.report.unrestorable", { count: report.unrestorable.length });
  return text;
}

/** The position (among the session's user messages, from 0) of each user item, by item key;
 *  `before` user messages come before the items (older ones not read yet). */
export function userIndexes(items: readonly ChatItem[], before = 0): ReadonlyMap<number, number> {
  const indexes = new Map<number, number>();
  for (const item of items) {
    if (item.kind === "user") indexes.set(item.key, before + indexes.size);
  }
  return indexes;
}

/** The chat as it reads once the user message at `userIndex` (and all after it) is taken back
 *  and `text` sent in its place with its attachments but those at the positions `dropped`, as a
 *  running turn: what a rewind shows at once. The message keeps its item key, so its view (and what it shows, such as a conflict) stays. */
export function resentAt(state: ChatState, userIndex: number, text: string, dropped: readonly number[] = []): ChatState {
  let seen = state.usersBefore - 1;
  const cut = state.items.findIndex((item) => item.kind === "user" && ++seen === userIndex);
  const at = state.items[cut];
  if (at?.kind !== "user") return state;
  const attachments = (at.attachments ?? []).filter((_, position) => !dropped.includes(position));
  const resent = attachments.length > 0 ? { kind: "user" as const, key: at.key, text, attachments } : { kind: "user" as const, key: at.key, text };
  return {
    ...state,
    items: [...state.items.slice(0, cut), resent],
    running: true,
    awaitingSession: false,
    usage: null,
  };
}
