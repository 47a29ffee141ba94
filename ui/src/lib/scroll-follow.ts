// Whether the transcript follows its tail. It does until the user goes up (a wheel turn up, or
// the view moved up from the end: a key, the scroll bar), and again once they come back down
// near the end or ask for it ("Jump to latest"). Plain logic over the numbers the view reads:
// Transcript.svelte reads the layout only when the user scrolls, and scrolls to the bottom only
// after the content's size changed (a resize observer, after layout), so a streamed answer
// forces no extra layout.

/** How close to the bottom counts as at the bottom, in CSS pixels. */
export const BOTTOM_SLACK_PX = 48;

/** The scroll container's `scrollTop`, `scrollHeight` and `clientHeight`. */
export interface ScrollPosition {
  readonly top: number;
  readonly height: number;
  readonly client: number;
}

/** How far below the view the content goes, in CSS pixels. */
function below(position: ScrollPosition): number {
  return position.height - position.top - position.client;
}

/** Whether `position` shows the end of the content, or nearly (or all of it). */
export function atBottom(position: ScrollPosition): boolean {
  return below(position) < BOTTOM_SLACK_PX;
}

export class ScrollFollow {
  #following = true;
  #lastTop = 0;

  /** Whether new content should scroll the view to the bottom. */
  get following(): boolean {
    return this.#following;
  }

  /** The view scrolled (by the user or by following). Moved up, it stops following, unless it
   *  sits at the very end (content that shrank pulls the view up with it); moved down near the
   *  end, it follows again. Content that grows below keeps it as it was. */
  scrolled(position: ScrollPosition): void {
    const up = position.top < this.#lastTop;
    if (up && below(position) > 1) this.#following = false;
    else if (!up && atBottom(position)) this.#following = true;
    this.#lastTop = position.top;
  }

  /** The user turned the wheel up in a view that can scroll (before the view moves: a frame
   *  that follows the tail in between must not pull it back down). */
  wentUp(): void {
    this.#following = false;
  }

  /** Follow again (the user jumped to the latest, sent a message, or opened another chat). */
  follow(): void {
    this.#following = true;
  }
}
