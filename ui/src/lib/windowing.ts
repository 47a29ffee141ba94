// The transcript's windowing: only the rows near the viewport are in the DOM. Rows have any
// height; each one's is measured once it rendered (and again when it changes), and an estimate
// stands for the rows never rendered. Plain arithmetic over the rows' keys and heights, no DOM:
// Transcript.svelte measures and scrolls, this decides what to render and where the view goes.
//
// - `RowHeights` keeps the measured heights by row key and sums them (with estimates) into the
//   rows' offsets.
// - `windowOf` picks the rows that cross the viewport widened by `overscan` above and below.
// - `pushedDown` says how far older rows put before the first one move it, which the view
//   scrolls by (and Transcript.svelte does the same for rows above the view that were measured
//   at last), so what the user reads stays where it was on screen.

/** The height assumed for a row never rendered, in CSS pixels. */
export const ESTIMATED_ROW_PX = 96;

/** What is rendered: rows `start` to `end` (excluded), with the space of the others above and
 *  below them. */
export interface RowWindow {
  readonly start: number;
  readonly end: number;
  /** Pixels above the first row rendered (the rows before it). */
  readonly before: number;
  /** Pixels below the last row rendered (the rows after it). */
  readonly after: number;
}

/** The measured heights of rows, by key. */
export class RowHeights {
  readonly #measured = new Map<number, number>();
  readonly #estimate: number;

  constructor(estimate = ESTIMATED_ROW_PX) {
    this.#estimate = estimate;
  }

  /** Row `key`'s height: measured, or the estimate. */
  height(key: number): number {
    return this.#measured.get(key) ?? this.#estimate;
  }

  /** Whether row `key` was measured. */
  measured(key: number): boolean {
    return this.#measured.has(key);
  }

  /** Row `key` measured `height`; true when that changed what was known. */
  set(key: number, height: number): boolean {
    if (!(height >= 0) || this.#measured.get(key) === height) return false;
    this.#measured.set(key, height);
    return true;
  }

  /** Forgets the rows not in `keys` (they left the transcript). */
  keep(keys: readonly number[]): void {
    const present = new Set(keys);
    for (const key of [...this.#measured.keys()]) if (!present.has(key)) this.#measured.delete(key);
  }

  /** Where each row starts, and (last) the total height: `keys.length + 1` numbers. */
  offsets(keys: readonly number[]): number[] {
    const offsets = new Array<number>(keys.length + 1);
    let at = 0;
    offsets[0] = 0;
    keys.forEach((key, index) => {
      at += this.height(key);
      offsets[index + 1] = at;
    });
    return offsets;
  }
}

/** The index of the row that holds pixel `y` (the first row for y < 0, the last past the end). */
export function rowAt(offsets: readonly number[], y: number): number {
  const rows = offsets.length - 1;
  if (rows <= 0) return 0;
  let low = 0;
  let high = rows - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((offsets[middle] ?? 0) <= y) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The rows to render for a viewport of `height` pixels scrolled to `top`, with `overscan`
 *  pixels more above and below. */
export function windowOf(offsets: readonly number[], top: number, height: number, overscan: number): RowWindow {
  const rows = offsets.length - 1;
  const total = offsets[rows] ?? 0;
  if (rows <= 0) return { start: 0, end: 0, before: 0, after: 0 };
  const start = rowAt(offsets, top - overscan);
  const end = Math.min(rows, rowAt(offsets, top + height + overscan) + 1);
  return { start, end, before: offsets[start] ?? 0, after: total - (offsets[end] ?? total) };
}

/** How far rows put before the row `first` (the first one until then) push it down, in
 *  pixels: its offset now; 0 when it is gone. */
export function pushedDown(first: number, keys: readonly number[], offsets: readonly number[]): number {
  const index = keys.indexOf(first);
  return index < 0 ? 0 : (offsets[index] ?? 0);
}

/** The scroll position that puts row `index` in the middle of a view of `height` pixels. */
export function centredTop(offsets: readonly number[], index: number, height: number): number {
  const top = offsets[index] ?? 0;
  const bottom = offsets[index + 1] ?? top;
  return Math.max(0, (top + bottom) / 2 - height / 2);
}
