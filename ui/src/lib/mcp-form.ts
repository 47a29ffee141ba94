// The MCP server editor's two views of one server: a form, and the `mcpServers` JSON the form
// stands for. The form edits the keys people change (command, arguments, environment, working
// folder, URL, headers, level, call timeout, disabled); every other key of the entry (per-tool
// levels, startupTimeout, other clients' keys) is carried along untouched. An entry read into the
// form saves back as it was written except where the user changed a field: a key whose field
// still shows what it showed at load keeps its original value (its type, its spelling, or its
// absence), and an entry the form could not show faithfully (a line break inside an argument,
// say) stays in the JSON tab. What is saved is always JSON text, checked again by the backend's
// parser. Errors are kept as messages (UiText),
// put into words when shown, so an error on screen follows a change of language.

import type { UiText } from "./i18n.svelte";

/** How a server is reached, as the form offers it. */
export type FormTransport = "stdio" | "http";

/** The permission level the form sets for every tool ("" = the server's own hints). */
export type FormLevel = "" | "safe" | "sensitive" | "dangerous";

/** The form's fields, as typed. */
export interface ServerForm {
  name: string;
  transport: FormTransport;
  command: string;
  /** One argument per line. */
  args: string;
  /** `KEY=VALUE`, one per line. */
  env: string;
  cwd: string;
  url: string;
  /** `Name: value`, one per line. */
  headers: string;
  level: FormLevel;
  /** Seconds; "" for the default. */
  timeout: string;
  /** `"disabled": true`: off in every project. */
  disabled: boolean;
  /** The entry's other keys, kept as written. */
  extra: Record<string, unknown>;
  /** The entry the form was read from, and what the form showed for it; `null` for a new server. */
  loaded: LoadedEntry | null;
}

/** The form's fields, without what it carries along. */
export type FormFields = Omit<ServerForm, "extra" | "loaded">;

/** An entry read into the form ({@link snippetToForm}). */
export interface LoadedEntry {
  /** The server's name, as written. */
  readonly name: string;
  /** The entry, as written (its keys in their order). */
  readonly entry: Readonly<Record<string, unknown>>;
  /** The fields as the form showed them when it read the entry. */
  readonly shown: Readonly<FormFields>;
}

/** An error for the user (worded when shown), or a value. */
export type Outcome<T> = { ok: T } | { error: UiText };

/** The keys the form edits, in the order a new entry writes them; the rest of an entry is
 *  {@link ServerForm.extra}. */
const FORM_KEY_ORDER = ["type", "command", "args", "env", "cwd", "url", "headers", "level", "timeout", "disabled"] as const;
type FormKey = (typeof FORM_KEY_ORDER)[number];
const FORM_KEYS: ReadonlySet<string> = new Set(FORM_KEY_ORDER);

const LEVELS: readonly FormLevel[] = ["", "safe", "sensitive", "dangerous"];

/** The longest call timeout the config accepts, in seconds (a day). */
const MAX_TIMEOUT = 86_400;

/** The two shapes of a snippet, as the messages and the editor show them (JSON: the same in
 *  every language). */
export const SNIPPET_SHAPES = { wrapped: '{"mcpServers": {…}}', bare: '{"name": {…}}' } as const;

/** A blank form (a local program). */
export function emptyForm(): ServerForm {
  return {
    name: "",
    transport: "stdio",
    command: "",
    args: "",
    env: "",
    cwd: "",
    url: "",
    headers: "",
    level: "",
    timeout: "",
    disabled: false,
    extra: {},
    loaded: null,
  };
}

/** True when nothing was typed in the form. */
export function isBlank(form: ServerForm): boolean {
  const blank = emptyForm();
  return (
    form.name.trim() === "" &&
    form.command.trim() === "" &&
    form.url.trim() === "" &&
    form.args.trim() === "" &&
    form.env.trim() === "" &&
    form.headers.trim() === "" &&
    form.cwd.trim() === "" &&
    form.level === blank.level &&
    form.timeout.trim() === "" &&
    !form.disabled &&
    Object.keys(form.extra).length === 0
  );
}

/** The form's fields alone (a copy). */
export function fieldsOf(form: ServerForm): FormFields {
  const { name, transport, command, args, env, cwd, url, headers, level, timeout, disabled } = form;
  return { name, transport, command, args, env, cwd, url, headers, level, timeout, disabled };
}

/** The arguments field as a list: one argument per line, exactly as typed (spaces and empty
 *  lines are arguments too); only the empty line after a last newline is not one. */
export function argsOf(text: string): string[] {
  const args = text.split("\n");
  if (args.at(-1) === "") args.pop();
  return args;
}

/** Arguments as the field shows them: what {@link argsOf} reads back as the same list (a last
 *  empty argument gets the extra newline that keeps it). */
export function argsText(args: readonly string[]): string {
  const text = args.join("\n");
  return args.at(-1) === "" ? `${text}\n` : text;
}

/** `KEY=VALUE` (environment) or `Name: value` (headers) lines as an object. */
function pairs(text: string, separator: "=" | ":"): Outcome<Record<string, string>> {
  const result: Record<string, string> = {};
  const rows = text.split(/\r?\n/);
  for (const [index, row] of rows.entries()) {
    if (row.trim() === "") continue;
    const at = row.indexOf(separator);
    const key = at < 0 ? "" : row.slice(0, at).trim();
    if (at < 0 || key === "" || /\s/.test(key)) {
      const message = separator === "=" ? "mcpForm.error.envLine" : "mcpForm.error.headerLine";
      return { error: { key: message, params: { line: index + 1 } } };
    }
    // An environment value is kept as typed; a header value loses the space after the colon.
    const value = row.slice(at + 1);
    result[key] = separator === "=" ? value : value.trim();
  }
  return { ok: result };
}

/** How a pair's value reads back from the line the form shows for it. */
function shownValue(item: unknown, separator: "=" | ":"): string {
  const value = String(item);
  return separator === "=" ? value : value.trim();
}

/** Typed pairs, each value whose line reads as the original's kept as written (a number stays a
 *  number, a header's spaces stay). */
function withOriginalValues(typed: Record<string, string>, original: unknown, separator: "=" | ":"): Record<string, unknown> {
  if (!isObject(original)) return typed;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(typed)) {
    const before = Object.hasOwn(original, key) ? original[key] : undefined;
    result[key] = before !== undefined && shownValue(before, separator) === value ? before : value;
  }
  return result;
}

/**
 * The server's name and `mcpServers` entry. `strict` (saving) requires the fields a server needs;
 * without it (switching to the JSON tab) whatever was typed is converted. For an entry read into
 * the form, a key whose field was not changed keeps its original value (or stays absent), and the
 * entry keeps its keys' order.
 */
export function formToEntry(form: ServerForm, strict: boolean): Outcome<{ name: string; entry: Record<string, unknown> }> {
  const loaded = form.loaded;
  const original: Readonly<Record<string, unknown>> = loaded?.entry ?? {};
  const transportChanged = loaded === null || form.transport !== loaded.shown.transport;
  /** Whether a field differs from what the form showed at load (always, for a new server). */
  const changed = (field: keyof FormFields): boolean => loaded === null || form[field] !== loaded.shown[field];
  /** A transport's field: all new once the transport changed. */
  const changedHere = (field: keyof FormFields): boolean => transportChanged || changed(field);
  /** The original value of a key (`undefined`: absent). */
  const kept = (key: FormKey): unknown => (Object.hasOwn(original, key) ? original[key] : undefined);

  if (strict && form.name.trim() === "") return { error: { key: "mcpForm.error.name" } };
  const name = loaded !== null && !changed("name") ? loaded.name : form.name.trim();
  /** Each form key's value; `undefined` leaves the key out. */
  const values: Partial<Record<FormKey, unknown>> = {};
  if (!transportChanged) values.type = kept("type");
  else if (form.transport === "http") values.type = "http";
  if (form.transport === "stdio") {
    const command = form.command.trim();
    if (strict && command === "") return { error: { key: "mcpForm.error.command" } };
    values.command = changedHere("command") ? command : kept("command");
    if (changedHere("args")) {
      const args = argsOf(form.args);
      if (args.length > 0) values.args = args;
    } else {
      values.args = kept("args");
    }
    const env = pairs(form.env, "=");
    if ("error" in env) return env;
    if (!changedHere("env")) values.env = kept("env");
    else if (Object.keys(env.ok).length > 0) values.env = withOriginalValues(env.ok, kept("env"), "=");
    if (!changedHere("cwd")) values.cwd = kept("cwd");
    else if (form.cwd.trim() !== "") values.cwd = form.cwd.trim();
    // Keys of the other transport (an unusual entry): kept unless the transport changed.
    if (!transportChanged) {
      values.url = kept("url");
      values.headers = kept("headers");
    }
  } else {
    const url = form.url.trim();
    if (strict && url === "") return { error: { key: "mcpForm.error.url" } };
    if (strict && !/^https?:\/\//i.test(url)) return { error: { key: "mcpForm.error.urlScheme" } };
    values.url = changedHere("url") ? url : kept("url");
    const headers = pairs(form.headers, ":");
    if ("error" in headers) return headers;
    if (!changedHere("headers")) values.headers = kept("headers");
    else if (Object.keys(headers.ok).length > 0) values.headers = withOriginalValues(headers.ok, kept("headers"), ":");
    if (!transportChanged) {
      for (const key of ["command", "args", "env", "cwd"] as const) values[key] = kept(key);
    }
  }
  if (!changed("level")) values.level = kept("level");
  else if (form.level !== "") values.level = form.level;
  const timeout = form.timeout.trim();
  if (timeout !== "") {
    const seconds = Number(timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_TIMEOUT) {
      return { error: { key: "mcpForm.error.timeout", params: { max: MAX_TIMEOUT } } };
    }
    if (changed("timeout")) values.timeout = seconds;
  }
  if (!changed("timeout")) values.timeout = kept("timeout");
  if (!changed("disabled")) values.disabled = kept("disabled");
  else if (form.disabled) values.disabled = true;

  // The original keys in their order, then new ones in the form's order, then the rest.
  const entry: Record<string, unknown> = {};
  for (const key of Object.keys(original)) {
    if (FORM_KEYS.has(key)) {
      const value = values[key as FormKey];
      if (value !== undefined) entry[key] = value;
    } else if (Object.hasOwn(form.extra, key)) {
      entry[key] = form.extra[key];
    }
  }
  for (const key of FORM_KEY_ORDER) {
    const value = values[key];
    if (value !== undefined && !Object.hasOwn(entry, key)) entry[key] = value;
  }
  for (const [key, value] of Object.entries(form.extra)) {
    if (!FORM_KEYS.has(key) && !Object.hasOwn(entry, key)) entry[key] = value;
  }
  return { ok: { name, entry } };
}

/** The form as `{"mcpServers": {name: entry}}` text, pretty-printed. */
export function formToSnippet(form: ServerForm, strict: boolean): Outcome<string> {
  const converted = formToEntry(form, strict);
  if ("error" in converted) return converted;
  const snippet = { mcpServers: { [converted.ok.name]: converted.ok.entry } };
  return { ok: `${JSON.stringify(snippet, null, 2)}\n` };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A save's error as the Form tab shows it: without the `pasted JSON:<line>:<col>:` place the
 *  backend names, a line of JSON the user never saw there (the message itself stays). */
export function withoutPastedPlace(message: string): string {
  const place = /pasted JSON:\d+(?::\d+)?:\s*/.exec(message);
  if (place === null) return message;
  const before = message.slice(0, place.index).trimEnd();
  const after = message.slice(place.index + place[0].length);
  return before === "" ? after : `${before}: ${after}`;
}

/** The servers of a snippet: `{"mcpServers": {...}}` or a bare `{"name": {...}}` map. */
export function snippetServers(text: string): Outcome<[string, unknown][]> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (failure) {
    const message = failure instanceof Error ? failure.message : String(failure);
    // The parser's words, as the webview's engine writes them.
    return { error: { key: "mcpForm.error.unreadable", params: { message } } };
  }
  if (!isObject(value)) return { error: { key: "mcpForm.error.notObject", params: SNIPPET_SHAPES } };
  const servers = "mcpServers" in value ? value.mcpServers : value;
  if (!isObject(servers)) return { error: { key: "mcpForm.error.serversNotObject" } };
  return { ok: Object.entries(servers) };
}

/** A line break: a one-line field can't hold it, and a multi-line one would split there. */
const LINE_BREAK = /[\r\n]/;

/** A text field of the entry, or why the form can't show it. */
function text(entry: Record<string, unknown>, key: string): Outcome<string> {
  const value = entry[key];
  if (value === undefined || value === null) return { ok: "" };
  if (typeof value !== "string") return { error: { key: "mcpForm.error.keyNotString", params: { key } } };
  if (LINE_BREAK.test(value)) return { error: { key: "mcpForm.error.lineBreak", params: { key } } };
  return { ok: value };
}

/** An object of strings (numbers and booleans allowed, as the config allows them) as lines, or
 *  why the form can't show it as lines that read back the same. */
function pairLines(entry: Record<string, unknown>, key: string, separator: "=" | ":"): Outcome<string> {
  const value = entry[key];
  if (value === undefined || value === null) return { ok: "" };
  if (!isObject(value)) return { error: { key: "mcpForm.error.keyNotObject", params: { key } } };
  const rows: string[] = [];
  for (const [name, item] of Object.entries(value)) {
    if (name === "" || /\s/.test(name) || name.includes(separator)) {
      return { error: { key: "mcpForm.error.pairName", params: { key, name } } };
    }
    if (typeof item !== "string" && typeof item !== "number" && typeof item !== "boolean") {
      return { error: { key: "mcpForm.error.keyNotString", params: { key: `${key}.${name}` } } };
    }
    if (LINE_BREAK.test(String(item))) return { error: { key: "mcpForm.error.lineBreak", params: { key: `${key}.${name}` } } };
    rows.push(separator === "=" ? `${name}=${String(item)}` : `${name}: ${String(item)}`);
  }
  return { ok: rows.join("\n") };
}

/**
 * The form for a snippet of exactly one server, or why the form can't show it (the JSON tab
 * can). A blank text is a blank form.
 */
export function snippetToForm(source: string): Outcome<ServerForm> {
  if (source.trim() === "") return { ok: emptyForm() };
  const servers = snippetServers(source);
  if ("error" in servers) return servers;
  if (servers.ok.length !== 1) {
    return { error: { key: "mcpForm.error.several", params: { count: servers.ok.length } } };
  }
  const [name, entry] = servers.ok[0] ?? ["", null];
  if (!isObject(entry)) return { error: { key: "mcpForm.error.serverNotObject", params: { name } } };
  if (LINE_BREAK.test(name)) return { error: { key: "mcpForm.error.lineBreak", params: { key: name } } };
  const kind = entry.type;
  if (kind === "sse") return { error: { key: "mcpForm.error.sse" } };
  const remote = typeof entry.url === "string" || (typeof kind === "string" && kind !== "stdio");
  const form = emptyForm();
  form.name = name;
  form.transport = remote ? "http" : "stdio";
  const fields: [keyof ServerForm & ("command" | "cwd" | "url"), string][] = [
    ["command", "command"],
    ["cwd", "cwd"],
    ["url", "url"],
  ];
  for (const [field, key] of fields) {
    const value = text(entry, key);
    if ("error" in value) return value;
    form[field] = value.ok;
  }
  const args = entry.args;
  if (args !== undefined && args !== null) {
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
      return { error: { key: "mcpForm.error.argsNotList" } };
    }
    if (args.some((arg) => LINE_BREAK.test(arg))) return { error: { key: "mcpForm.error.lineBreak", params: { key: "args" } } };
    form.args = argsText(args);
  }
  const env = pairLines(entry, "env", "=");
  if ("error" in env) return env;
  form.env = env.ok;
  const headers = pairLines(entry, "headers", ":");
  if ("error" in headers) return headers;
  form.headers = headers.ok;
  const level = entry.level;
  if (level !== undefined && level !== null) {
    if (typeof level !== "string" || !LEVELS.includes(level as FormLevel) || level === "") {
      return { error: { key: "mcpForm.error.level" } };
    }
    form.level = level as FormLevel;
  }
  const timeout = entry.timeout;
  if (timeout !== undefined && timeout !== null) {
    if (typeof timeout !== "number") return { error: { key: "mcpForm.error.timeoutNotNumber" } };
    form.timeout = String(timeout);
  }
  const disabled = entry.disabled;
  if (disabled !== undefined && disabled !== null && typeof disabled !== "boolean") {
    return { error: { key: "mcpForm.error.disabled" } };
  }
  form.disabled = disabled === true;
  for (const [key, value] of Object.entries(entry)) {
    if (!FORM_KEYS.has(key)) form.extra[key] = value;
  }
  form.loaded = { name, entry, shown: fieldsOf(form) };
  return { ok: form };
}
