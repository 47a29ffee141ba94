// The chat box's grammar: which token is being completed, how a completion is applied, slash
// parsing, command ranking, chips and drops.

import { describe, expect, it } from "vitest";

import {
  activeToken,
  addChip,
  applyCompletion,
  attachmentRequests,
  chipKey,
  type Chip,
  type CommandOption,
  droppedPaths,
  isAcceptedImage,
  knownSource,
  parseSlash,
  rankCommands,
  removeChip,
} from "../src/lib/composer";

describe("the token at the caret", () => {
  it("is a mention after @ at the start or after a space", () => {
    expect(activeToken("@src/ma", 7)).toEqual({ kind: "mention", query: "src/ma", start: 0, end: 7 });
    expect(activeToken("look at @ma", 11)).toEqual({ kind: "mention", query: "ma", start: 8, end: 11 });
    expect(activeToken("look at @", 9)).toEqual({ kind: "mention", query: "", start: 8, end: 9 });
  });

  it("is no mention inside a word (an e-mail address) or after the caret moved on", () => {
    expect(activeToken("me@example.com", 14)).toBeNull();
    expect(activeToken("@src now", 8)).toBeNull();
  });

  it("is a command only as the whole text so far", () => {
    expect(activeToken("/rev", 4)).toEqual({ kind: "slash", query: "rev", start: 0, end: 4 });
    expect(activeToken("/", 1)).toEqual({ kind: "slash", query: "", start: 0, end: 1 });
    expect(activeToken("see /rev", 8)).toBeNull();
    expect(activeToken("/review now", 11)).toBeNull();
  });
});

describe("applying a completion", () => {
  it("replaces the token and adds one space", () => {
    const token = activeToken("see @ma please", 7);
    if (!token) throw new Error("no token");
    expect(applyCompletion("see @ma please", token, "@src/main.rs")).toEqual({ text: "see @src/main.rs please", caret: 17 });
    const end = activeToken("see @ma", 7);
    if (!end) throw new Error("no token");
    expect(applyCompletion("see @ma", end, "@src/main.rs")).toEqual({ text: "see @src/main.rs ", caret: 17 });
  });
});

describe("slash commands", () => {
  it("parse into a name and arguments", () => {
    expect(parseSlash("/review src/a.rs  and b")).toEqual({ name: "review", arguments: "src/a.rs  and b" });
    expect(parseSlash("  /help ")).toEqual({ name: "help", arguments: "" });
    expect(parseSlash("/fix\nline two")).toEqual({ name: "fix", arguments: "line two" });
  });

  it("are not paths or plain text", () => {
    expect(parseSlash("/usr/bin/env is missing")).toBeNull();
    expect(parseSlash("// a comment")).toBeNull();
    expect(parseSlash("hello /help")).toBeNull();
  });

  it("rank prefixes first, then substrings, then letters in order, built-ins first at a tie", () => {
    const commands: CommandOption[] = [
      { name: "new", description: "", builtin: true },
      { name: "model", description: "", builtin: true },
      { name: "compact", description: "", builtin: true },
      { name: "commit", description: "", builtin: false },
      { name: "review-model", description: "", builtin: false },
      { name: "mend", description: "", builtin: false },
    ];
    expect(rankCommands(commands, "mo").map((c) => c.name)).toEqual(["model", "review-model"]);
    expect(rankCommands(commands, "co").map((c) => c.name)).toEqual(["compact", "commit"]);
    expect(rankCommands(commands, "cmi").map((c) => c.name)).toEqual(["commit"]);
    expect(rankCommands(commands, "").map((c) => c.name)).toEqual(["compact", "model", "new", "commit", "mend", "review-model"]);
  });
});

describe("chips", () => {
  const file: Chip = { kind: "mention", path: "src/a.rs", isDir: false };
  const folder: Chip = { kind: "mention", path: "src", isDir: true };
  const picture = { kind: "image", name: "shot.png", mime: "image/png", data: "iVBORw0KGgo", width: 2, height: 2 } as const;
  const image: Chip = { kind: "image", image: picture };

  it("are added once and removed by key", () => {
    let chips = addChip([], file);
    chips = addChip(chips, folder);
    chips = addChip(chips, file);
    chips = addChip(chips, image);
    expect(chips.map(chipKey)).toEqual(["mention:src/a.rs", "mention:src", chipKey(image)]);
    chips = removeChip(chips, "mention:src");
    expect(chips).toEqual([file, image]);
  });

  it("become the attachments send_message takes", () => {
    expect(attachmentRequests([file, image])).toEqual([
      { kind: "mention", path: "src/a.rs" },
      { kind: "image", image: picture },
    ]);
  });
});

describe("drops", () => {
  it("read local paths from a uri list", () => {
    expect(droppedPaths("file:///home/me/My%20Project/a.rs\r\n# comment\nhttps://example.com/x\nfile:///tmp/b")).toEqual([
      "/home/me/My Project/a.rs",
      "/tmp/b",
    ]);
  });

  it("take the four image types only", () => {
    expect(["image/png", "image/jpeg", "image/webp", "image/gif"].every(isAcceptedImage)).toBe(true);
    expect(isAcceptedImage("image/bmp")).toBe(false);
    expect(isAcceptedImage("image/svg+xml")).toBe(false);
  });
});

describe("command sources", () => {
  it("names only the sources the catalogs know", () => {
    expect(knownSource("claude-project")).toBe("claude-project");
    expect(knownSource("skill-user")).toBe("skill-user");
    expect(knownSource(undefined)).toBeNull();
    expect(knownSource("plugin")).toBeNull();
  });
});
