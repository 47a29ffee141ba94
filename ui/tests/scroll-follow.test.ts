// When the transcript follows its tail, as plain logic over scroll positions.

import { describe, expect, it } from "vitest";

import { atBottom, BOTTOM_SLACK_PX, ScrollFollow } from "../src/lib/scroll-follow";

/** A 500-pixel view of `height` pixels scrolled to `top`. */
const at = (top: number, height = 2000) => ({ top, height, client: 500 });

describe("following the tail", () => {
  it("counts the last few pixels as the bottom, and content that fits as all shown", () => {
    expect(atBottom(at(1500))).toBe(true);
    expect(atBottom(at(1500 - BOTTOM_SLACK_PX + 1))).toBe(true);
    expect(atBottom(at(1500 - BOTTOM_SLACK_PX))).toBe(false);
    expect(atBottom({ top: 0, height: 300, client: 500 })).toBe(true);
  });

  it("follows from the start, and keeps following while content grows below", () => {
    const follow = new ScrollFollow();
    expect(follow.following).toBe(true);
    follow.scrolled(at(1500));
    // The answer grew by a screen before the view caught up: not the user's doing.
    follow.scrolled(at(1500, 2600));
    expect(follow.following).toBe(true);
    follow.scrolled(at(2100, 2600));
    expect(follow.following).toBe(true);
  });

  it("stops when the view moves up, however little", () => {
    const follow = new ScrollFollow();
    follow.scrolled(at(1500));
    follow.scrolled(at(1490));
    expect(follow.following).toBe(false);
    follow.scrolled(at(1200));
    expect(follow.following).toBe(false);
    // Growing content or scrolling down short of the bottom does not bring it back.
    follow.scrolled(at(1200, 3000));
    follow.scrolled(at(1800, 3000));
    expect(follow.following).toBe(false);
  });

  it("keeps following when content that shrank pulls the view up to its new end", () => {
    const follow = new ScrollFollow();
    follow.scrolled(at(1500));
    follow.scrolled(at(900, 1400));
    expect(follow.following).toBe(true);
  });

  it("follows again once scrolled down near the end, or when asked", () => {
    const follow = new ScrollFollow();
    follow.scrolled(at(1500));
    follow.scrolled(at(100));
    follow.scrolled(at(1400));
    expect(follow.following).toBe(false);
    follow.scrolled(at(1490));
    expect(follow.following).toBe(true);
    follow.wentUp();
    expect(follow.following).toBe(false);
    follow.follow();
    expect(follow.following).toBe(true);
  });

  it("stops on a wheel turn up before the view has moved", () => {
    const follow = new ScrollFollow();
    follow.scrolled(at(1500));
    follow.wentUp();
    expect(follow.following).toBe(false);
    // The view then scrolls up a little (a smooth scroll's first steps): still not following.
    follow.scrolled(at(1480));
    follow.scrolled(at(1440));
    expect(follow.following).toBe(false);
  });
});
