import { afterEach, describe, expect, it } from "vitest";

import { formatDuration, formatSize, timeAgo } from "../src/lib/format";
import { setLanguage } from "../src/lib/i18n.svelte";

describe("format", () => {
  it("says how long ago", () => {
    const now = Date.UTC(2026, 0, 10, 12, 0, 0);
    expect(timeAgo(now - 10_000, now)).toBe("just now");
    expect(timeAgo(now + 5_000, now)).toBe("just now");
    expect(timeAgo(now - 5 * 60_000, now)).toBe("5 min ago");
    expect(timeAgo(now - 3 * 3_600_000, now)).toBe("3 h ago");
    expect(timeAgo(now - 2 * 86_400_000, now)).toBe("2 d ago");
    expect(timeAgo(now - 90 * 86_400_000, now)).not.toMatch(/ago/);
  });

  it("formats durations", () => {
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(2400)).toBe("2.4 s");
    expect(formatDuration(42_000)).toBe("42 s");
    expect(formatDuration(65_000)).toBe("1 min 5 s");
  });

  it("formats sizes", () => {
    expect(formatSize(1)).toBe("1 byte");
    expect(formatSize(2)).toBe("2 bytes");
    expect(formatSize(1536)).toBe("1.5 KB");
  });
});

describe("format in Chinese", () => {
  afterEach(() => {
    setLanguage("system");
  });

  it("says how long ago, how long and how big", () => {
    setLanguage("zh-CN");
    const now = Date.UTC(2026, 0, 10, 12, 0, 0);
    expect(timeAgo(now - 10_000, now)).toBe("刚刚");
    expect(timeAgo(now - 5 * 60_000, now)).toBe("5 分钟前");
    expect(timeAgo(now - 3 * 3_600_000, now)).toBe("3 小时前");
    expect(timeAgo(now - 2 * 86_400_000, now)).toBe("2 天前");
    expect(formatDuration(850)).toBe("850 毫秒");
    expect(formatDuration(2400)).toBe("2.4 秒");
    expect(formatDuration(65_000)).toBe("1 分 5 秒");
    expect(formatSize(1)).toBe("1 字节");
    expect(formatSize(1536)).toBe("1.5 KB");
  });
});
