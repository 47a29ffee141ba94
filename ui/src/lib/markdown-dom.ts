// Puts a Markdown stream's blocks into a container: committed blocks are appended once and
// never touched again; the open blocks after them are replaced, and only those whose HTML changed
// (an unchanged open block keeps its nodes, and so a selection in it). The HTML comes sanitised
// from markdown.ts; it is parsed in an inert `<template>` (nothing loads, nothing runs) and moved
// into the container. A decorator may add to a block's nodes first (the copy buttons of its code
// blocks, made with the DOM).

import type { StreamStep } from "./markdown-stream";

interface Mounted {
  readonly html: string;
  readonly nodes: readonly ChildNode[];
}

/** The nodes of sanitised `html`, parsed inertly. */
function parse(html: string, document: Document): DocumentFragment {
  const template = document.createElement("template");
  template.innerHTML = html;
  return template.content;
}

/** Adds to a block's parsed nodes what the view puts around them (copy buttons). */
export type Decorate = (fragment: DocumentFragment) => void;

export class BlockMount {
  readonly #container: HTMLElement;
  readonly #decorate: Decorate | null;
  /** The open blocks on screen, in order, after every committed one. */
  #open: Mounted[] = [];

  constructor(container: HTMLElement, decorate: Decorate | null = null) {
    this.#container = container;
    this.#decorate = decorate;
  }

  /** Shows what `step` says. */
  apply(step: StreamStep): void {
    if (step.reset) {
      this.#container.replaceChildren();
      this.#open = [];
    }
    // An open block committed as it was shown stays as it is; from the first difference on, the
    // old open blocks go and the new ones are appended.
    const old = this.#open;
    let kept = 0;
    let diverged = false;
    for (const html of step.committed) {
      if (!diverged && old[kept]?.html === html) kept += 1;
      else {
        if (!diverged) this.#remove(old, kept);
        diverged = true;
        this.#append(html);
      }
    }
    const open: Mounted[] = [];
    for (const [index, html] of step.open.entries()) {
      const previous = old[kept + index];
      if (!diverged && previous?.html === html) open.push(previous);
      else {
        if (!diverged) this.#remove(old, kept + index);
        diverged = true;
        open.push(this.#append(html));
      }
    }
    if (!diverged) this.#remove(old, kept + step.open.length);
    this.#open = open;
  }

  /** Removes the old open blocks from `from` on. */
  #remove(old: readonly Mounted[], from: number): void {
    for (const mounted of old.slice(from)) {
      for (const node of mounted.nodes) node.remove();
    }
  }

  #append(html: string): Mounted {
    const fragment = parse(html, this.#container.ownerDocument);
    this.#decorate?.(fragment);
    const nodes = [...fragment.childNodes];
    this.#container.append(fragment);
    return { html, nodes };
  }
}
