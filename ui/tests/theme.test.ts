// The theme: every colour comes from a token, and every pair of tokens the stylesheet can put
// together reads (WCAG 2.2 AA): text at 4.5:1 or more on every surface, control borders and the
// focus ring at 3:1 or more, in the dark theme and in the light one. Sizes come from tokens of
// 12px or more, and no heading is uppercased or letter-spaced (they are read in Chinese too).
// The e2e suite checks the same in the real window with axe-core; this finds the pair at fault.

/// <reference types="vite/client" />
/// <reference types="node" />

import { readFileSync } from "node:fs";
import { resolve } from "node:path";

import { describe, expect, it } from "vitest";

import { contrast } from "./support/contrast";

// Read from disk: Vitest does not load stylesheets.
const STYLESHEET = readFileSync(resolve(import.meta.dirname, "../src/styles.css"), "utf8");

const COMPONENTS: Readonly<Record<string, string>> = import.meta.glob(["../src/App.svelte", "../src/components/*.svelte"], {
  query: "?raw",
  import: "default",
  eager: true,
});

/** A filled surface and the only text that sits on it (the primary button). */
const FILLED: Readonly<Record<string, string>> = { "--accent": "--accent-text" };
/** Lines that only separate areas: never text, never a surface. */
const DECORATIVE = ["--border", "--user-border", "--warn-border", "--error-border"];
/** The translucent layers behind dialogs (the backdrop, the shadow): never text; no text sits
 *  on them directly. */
const LAYERS = ["--backdrop", "--shadow"];
/** Lines that show a control or the focus: 3:1 against every surface. */
const CONTROL_LINES = ["--control-border", "--focus"];

/** The declarations of the block that starts at `open` (the index of its `{`). */
function block(css: string, open: number): string {
  let depth = 0;
  for (let index = open; index < css.length; index += 1) {
    if (css[index] === "{") depth += 1;
    if (css[index] === "}" && --depth === 0) return css.slice(open + 1, index);
  }
  throw new Error("unbalanced braces");
}

const css = STYLESHEET.replace(/\/\*[\s\S]*?\*\//g, "");
const darkBlock = block(css, css.indexOf("{", css.indexOf(":root")));
const lightMedia = block(css, css.indexOf("{", css.indexOf("@media (prefers-color-scheme: light)")));
const lightBlock = block(lightMedia, lightMedia.indexOf("{", lightMedia.indexOf(":root")));

function tokens(declarations: string): Map<string, string> {
  return new Map([...declarations.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)].map((match) => [match[1] ?? "", (match[2] ?? "").trim()]));
}

const THEMES = { dark: tokens(darkBlock), light: tokens(lightBlock) };
const colourTokens = (theme: Map<string, string>): string[] =>
  [...theme].filter(([, value]) => /^(#|rgb|hsl)/.test(value)).map(([name]) => name);

/** The rules outside the theme blocks (where no colour may be written). */
const rules = css.replace(darkBlock, "").replace(lightMedia, "");

/** The tokens used by declarations of `properties`. */
function usedBy(properties: RegExp): Set<string> {
  const used = new Set<string>();
  for (const match of rules.matchAll(/([\w-]+)\s*:\s*([^;{}]+)/g)) {
    if (!properties.test(match[1] ?? "")) continue;
    for (const token of (match[2] ?? "").matchAll(/var\((--[\w-]+)\)/g)) used.add(token[1] ?? "");
  }
  return used;
}

const texts = usedBy(/^color$/);
const surfaces = usedBy(/^background(-color)?$/);

describe("the theme's tokens", () => {
  it("are the same colours in both themes, and the stylesheet uses each", () => {
    expect(colourTokens(THEMES.light).sort()).toEqual(colourTokens(THEMES.dark).sort());
    const used = new Set([...texts, ...surfaces, ...usedBy(/^(border|outline|box-shadow)/)]);
    for (const token of colourTokens(THEMES.dark)) expect(used.has(token), `${token} is unused`).toBe(true);
  });

  it("are the only colours: none written in a rule or a component", () => {
    const literal = /#[0-9a-fA-F]{3,8}\b|\b(rgba?|hsla?)\(/;
    expect(rules.match(literal)?.[0] ?? null).toBeNull();
    const named = /\b(?:color|background(?:-color)?|border(?:-\w+)?|outline|fill|stroke)\s*:[^;]*\b(white|black|red|green|blue|gray|grey|orange|yellow)\b/;
    expect(rules.replace(/var\(--[\w-]+\)/g, "var()").match(named)?.[0] ?? null).toBeNull();
    for (const [path, source] of Object.entries(COMPONENTS)) {
      const markup = source.replace(/<script[\s\S]*?<\/script>/g, "");
      expect(markup.replace(/&#\d+;/g, "").match(literal)?.[0] ?? null, path).toBeNull();
      expect(/<style[\s>]/.test(markup), `${path} has a <style> of its own`).toBe(false);
    }
  });

  it("keep decorative lines out of text and surfaces, and layers out of text", () => {
    for (const token of DECORATIVE) {
      expect(texts.has(token), `${token} used as a text colour`).toBe(false);
      expect(surfaces.has(token), `${token} used as a surface`).toBe(false);
    }
    for (const token of LAYERS) expect(texts.has(token), `${token} used as a text colour`).toBe(false);
  });
});

describe.each(Object.entries(THEMES))("the %s theme", (_name, theme) => {
  const colour = (token: string): string => {
    const value = theme.get(token);
    if (value === undefined) throw new Error(`${token} is not defined`);
    return value;
  };
  const generalSurfaces = [...surfaces].filter((token) => !(token in FILLED) && !LAYERS.includes(token));
  const generalTexts = [...texts].filter((token) => !Object.values(FILLED).includes(token));

  it("has every text at 4.5:1 or more on every surface", () => {
    const failing: string[] = [];
    for (const text of generalTexts) {
      for (const surface of generalSurfaces) {
        const ratio = contrast(colour(text), colour(surface));
        if (ratio < 4.5) failing.push(`${text} on ${surface}: ${ratio.toFixed(2)}`);
      }
    }
    for (const [surface, text] of Object.entries(FILLED)) {
      const ratio = contrast(colour(text), colour(surface));
      if (ratio < 4.5) failing.push(`${text} on ${surface}: ${ratio.toFixed(2)}`);
    }
    expect(failing).toEqual([]);
    // The pairs checked are the ones the stylesheet uses (not an empty list).
    expect(generalTexts.length).toBeGreaterThan(6);
    expect(generalSurfaces.length).toBeGreaterThan(6);
  });

  it("has control borders and the focus ring at 3:1 or more on every surface", () => {
    const failing: string[] = [];
    for (const line of CONTROL_LINES) {
      for (const surface of generalSurfaces) {
        const ratio = contrast(colour(line), colour(surface));
        if (ratio < 3) failing.push(`${line} on ${surface}: ${ratio.toFixed(2)}`);
      }
    }
    expect(failing).toEqual([]);
  });
});

describe("type", () => {
  const rootSize = 14;
  const px = (value: string): number => {
    const match = /^([\d.]+)(px|rem)$/.exec(value);
    if (!match) throw new Error(`unexpected size ${value}`);
    return Number(match[1]) * (match[2] === "rem" ? rootSize : 1);
  };

  it("uses size tokens of 12px or more, and nothing else", () => {
    const sizes = [...THEMES.dark].filter(([name]) => name.startsWith("--fs-"));
    expect(sizes.length).toBeGreaterThan(3);
    for (const [name, value] of sizes) expect(px(value), name).toBeGreaterThanOrEqual(12);
    expect(THEMES.dark.get("--fs-md")).toBe(`${String(rootSize)}px`);
    for (const match of rules.matchAll(/font-size\s*:\s*([^;}]+)/g)) {
      expect(match[1]?.trim(), "a font size not from a token").toMatch(/^var\(--fs-[\w-]+\)$/);
    }
  });

  it("never uppercases or letter-spaces text", () => {
    expect(rules).not.toMatch(/text-transform\s*:\s*uppercase/);
    expect(rules).not.toMatch(/letter-spacing/);
  });
});
