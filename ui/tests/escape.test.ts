import { describe, expect, it } from "vitest";

import { hasInvisible, visibleSegments, visibleText } from "../src/lib/escape";

describe("invisible characters", () => {
  it("pass plain text through as one piece", () => {
    expect(visibleSegments("cargo test --all\n\tdone → ok\r\n")).toEqual([{ text: "cargo test --all\n\tdone → ok\r\n", escaped: false }]);
    expect(hasInvisible("héllo 世界")).toBe(false);
  });

  it("show bidi overrides and isolates, controls and lone carriage returns as escapes, as the CLI does", () => {
    for (const [input, shown] of [
      ["rtl \u202egnp.exe", "rtl \\u{202e}gnp.exe"],
      ["isolate \u2066x\u2069", "isolate \\u{2066}x\\u{2069}"],
      ["safe\rrm -rf ~", "safe\\rrm -rf ~"],
      ["\u001b[2J", "\\e[2J"],
      ["bell\u0007", "bell\\x07"],
      ["del\u007f", "del\\x7f"],
      ["c1 \u009b31m", "c1 \\u{9b}31m"],
      ["zero\u200bwidth", "zero\\u{200b}width"],
      ["mark\u200f", "mark\\u{200f}"],
      ["bom\ufeff", "bom\\u{feff}"],
      ["crlf\r\nstays", "crlf\r\nstays"],
    ] as const) {
      expect(visibleText(input), JSON.stringify(input)).toBe(shown);
    }
  });

  it("mark each escape as one, so it can be styled apart from the text", () => {
    expect(visibleSegments("a\u202eb")).toEqual([
      { text: "a", escaped: false },
      { text: "\\u{202e}", escaped: true },
      { text: "b", escaped: false },
    ]);
    expect(hasInvisible("echo ok \u2067; rm -rf ~")).toBe(true);
  });

  it("leave no invisible character in what is shown", () => {
    let all = "";
    for (let code = 0; code < 0x3000; code += 1) all += String.fromCodePoint(code);
    const shown = visibleText(all);
    expect(hasInvisible(shown)).toBe(false);
    expect(shown).not.toContain("\u202e");
  });
});
