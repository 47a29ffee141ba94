// Small display helpers, in the UI's language (read when rendered, so a template that shows
// them follows a change of language).

import { currentLocale, t } from "./i18n.svelte";

/** "1.2 KB", "3 bytes". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return t("format.bytes", { count: bytes });
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit] ?? "TB"}`;
}

/** Pretty JSON for arguments. */
export function formatJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", or the date for anything older than a month. */
export function timeAgo(epochMs: number, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - epochMs) / 1000));
  if (seconds < 45) return t("time.justNow");
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return t("time.minutesAgo", { count: minutes });
  const hours = Math.round(minutes / 60);
  if (hours < 24) return t("time.hoursAgo", { count: hours });
  const days = Math.round(hours / 24);
  if (days < 31) return t("time.daysAgo", { count: days });
  return new Date(epochMs).toLocaleDateString(currentLocale());
}

/** "850 ms", "2.4 s", "1 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return t("format.milliseconds", { value: Math.round(ms) });
  const seconds = ms / 1000;
  if (seconds < 60) return t("format.seconds", { value: formatSeconds(seconds) });
  const whole = Math.round(seconds);
  return t("format.minutesSeconds", { minutes: Math.floor(whole / 60), seconds: whole % 60 });
}

/** Seconds as a number: one decimal under ten ("2.4"), whole above ("42"). */
export function formatSeconds(seconds: number): string {
  return seconds < 10 ? seconds.toFixed(1) : String(Math.round(seconds));
}
