// The UI's language: English or Simplified Chinese, following the system unless the user chose
// one in Settings. Every string the user reads goes through `t`, whose keys are the English
// catalog's; the Chinese catalog must have exactly the same keys (the compiler checks) and the
// same `{placeholders}` (a test checks). Text that comes from the engine (errors, tool output,
// the model's words) is shown as it comes.

import { en, type MessageKey } from "./locales/en";
import { zhCN } from "./locales/zh-CN";

/** A language the UI is written in. */
export type Locale = "en" | "zh-CN";

/** What the user chose in Settings: a language, or whatever the system uses. */
export type LanguageChoice = Locale | "system";

/** The languages offered, each named in itself. */
export const LANGUAGES: readonly { readonly value: Locale; readonly name: string }[] = [
  { value: "en", name: "English" },
  { value: "zh-CN", name: "简体中文" },
];

const CATALOGS: Readonly<Record<Locale, Readonly<Record<MessageKey, string>>>> = {
  en,
  "zh-CN": zhCN,
};

/** Where the webview keeps a copy of the choice, for its first frame (the app's settings keep
 *  the choice itself: lib/preferences.ts). */
export const STORAGE_KEY = "gantry.language";

/** The language for the system's preferred languages (BCP 47 or POSIX tags, preferred first):
 *  any Chinese reads the Simplified catalog (closer than English for a Traditional reader too). */
export function localeFor(preferred: readonly string[]): Locale {
  for (const tag of preferred) {
    const lower = tag.toLowerCase();
    if (lower === "zh" || lower.startsWith("zh-") || lower.startsWith("zh_")) return "zh-CN";
    if (lower === "en" || lower.startsWith("en-") || lower.startsWith("en_")) return "en";
  }
  return "en";
}

/** The system's languages: as the backend read them from the environment once it said, the
 *  webview's `navigator.languages` until then. */
function systemLanguages(): readonly string[] {
  if (state.system.length > 0) return state.system;
  if (typeof navigator === "undefined") return [];
  return navigator.languages.length > 0 ? navigator.languages : [navigator.language];
}

/** Takes the system's languages as the backend read them (the webview's own idea depends on the
 *  locales the C library has installed), and follows them if the user chose none. */
export function setSystemLanguages(tags: readonly string[]): void {
  state.system = [...tags];
  apply(state.choice);
}

/** The language the system asks for (what the `system` choice shows). */
export function systemLocale(): Locale {
  return localeFor(systemLanguages());
}

/** A language's name, written in that language ("English", "简体中文"). */
export function languageName(locale: Locale): string {
  return LANGUAGES.find((language) => language.value === locale)?.name ?? locale;
}

function readChoice(): LanguageChoice {
  try {
    return parseLanguageChoice(localStorage.getItem(STORAGE_KEY) ?? "system");
  } catch {
    // Storage can be unavailable (private mode, tests): follow the system.
  }
  return "system";
}

const state = $state<{ choice: LanguageChoice; locale: Locale; system: readonly string[] }>({
  choice: "system",
  locale: "en",
  system: [],
});

function apply(choice: LanguageChoice): void {
  state.choice = choice;
  state.locale = choice === "system" ? systemLocale() : choice;
  if (typeof document !== "undefined") document.documentElement.lang = state.locale;
}

apply(readChoice());

/** The language the UI shows now. */
export function currentLocale(): Locale {
  return state.locale;
}

/** What the user chose (`system` unless they picked a language). */
export function languageChoice(): LanguageChoice {
  return state.choice;
}

/** A select's value as a choice (anything unknown follows the system). */
export function parseLanguageChoice(value: string): LanguageChoice {
  return value === "en" || value === "zh-CN" ? value : "system";
}

/** Switches the UI's language at once and remembers the choice. */
export function setLanguage(choice: LanguageChoice): void {
  try {
    if (choice === "system") localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // Not remembered, but still applied for this run.
  }
  apply(choice);
}

/** Values put into a message's `{placeholders}`. A `count` of 1 picks the `_one` form when the
 *  catalog has one. */
export type MessageParams = Readonly<Record<string, string | number>>;

/** The text of `key` in the current language, with `params` filled in. */
export function t(key: MessageKey, params?: MessageParams): string {
  return translate(state.locale, key, params);
}

/** The text of `key` in `locale` (what `t` does, for a given language). */
export function translate(locale: Locale, key: MessageKey, params?: MessageParams): string {
  const catalog = CATALOGS[locale];
  const singular = `${key}_one`;
  const template =
    params?.count === 1 && singular in catalog ? catalog[singular as MessageKey] : catalog[key];
  if (params === undefined) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    return value === undefined ? whole : String(value);
  });
}

/** Words the UI writes, kept as a message rather than a string so that they are put into the
 *  language shown when they are rendered (a notice already on screen follows a change). */
export interface UiText {
  readonly key: MessageKey;
  readonly params?: MessageParams;
  /** Items listed, in the language's way, in the message's `{details}` placeholder. */
  readonly details?: readonly UiText[];
}

/** The text of a {@link UiText} in the current language. */
export function tText(text: UiText): string {
  if (text.details === undefined) return t(text.key, text.params);
  return t(text.key, { ...text.params, details: joinList(text.details.map(tText)) });
}

/** The text of `key` cut where `{slot}` stands: what comes before it and after it, so markup (a
 *  `<code>` around a tool name or a path) can sit in the sentence wherever the language puts it. */
export function tAround(key: MessageKey, slot: string, params?: MessageParams): [string, string] {
  const marker = "\u0000";
  const text = t(key, { ...params, [slot]: marker });
  const at = text.indexOf(marker);
  return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + marker.length)];
}

/** The text of `key` cut at each of its `slots` (markup such as `<code>`, more than one): the
 *  words at even indices, the slots' values at odd ones, in the order the language puts them
 *  (`["Paste ", "{…}", " or ", "[…]", "."]`). With one slot, {@link tAround} reads simpler. */
export function tSlots(key: MessageKey, slots: Readonly<Record<string, string>>, params?: MessageParams): string[] {
  const names = Object.keys(slots);
  // Private-use characters mark each slot with its index; no message or value holds them.
  const markers = Object.fromEntries(names.map((name, index) => [name, `\uE000${String(index)}\uE001`]));
  const pieces = t(key, { ...params, ...markers }).split(/\uE000(\d+)\uE001/);
  return pieces.map((piece, index) => (index % 2 === 0 ? piece : (slots[names[Number(piece)] ?? ""] ?? "")));
}

/** Joins the items of a list the way the current language does (", " or "，"). */
export function joinList(items: readonly string[]): string {
  return items.join(t("common.listSeparator"));
}

/** The `{placeholders}` a template uses, sorted (for the catalog test). */
export function placeholders(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? "").sort();
}
