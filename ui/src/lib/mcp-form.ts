// The MCP server editor's two views of one server: a form, and the `mcpServers` JSON the form
// stands for. The form edits the keys people change (command, arguments, environment, working
// folder, URL, headers, level, call timeout, disabled); every other key of the entry (per-tool
// levels, startupTimeout, other clients' keys) is carried along untouched. What is saved is
// always JSON text, checked again by the backend's parser. Errors are kept as messages (UiText),
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
}

/** An error for the user (worded when shown), or a value. */
export type Outcome<T> = { ok: T } | { error: UiText };

/** The keys the form edits; the rest of an entry is {@link ServerForm.extra}. */
const FORM_KEYS = new Set(["type", "command", "args", "env", "cwd", "url", "headers", "level", "timeout", "disabled"]);

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

function lines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
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

/**
 * The server's name and `mcpServers` entry. `strict` (saving) requires the fields a server needs;
 * without it (switching to the JSON tab) whatever was typed is converted.
 */
export function formToEntry(form: ServerForm, strict: boolean): Outcome<{ name: string; entry: Record<string, unknown> }> {
  const name = form.name.trim();
  if (strict && name === "") return { error: { key: "mcpForm.error.name" } };
  const entry: Record<string, unknown> = {};
  if (form.transport === "stdio") {
    const command = form.command.trim();
    if (strict && command === "") return { error: { key: "mcpForm.error.command" } };
    entry.command = command;
    const args = lines(form.args);
    if (args.length > 0) entry.args = args;
    const env = pairs(form.env, "=");
    if ("error" in env) return env;
    if (Object.keys(env.ok).length > 0) entry.env = env.ok;
    if (form.cwd.trim() !== "") entry.cwd = form.cwd.trim();
  } else {
    const url = form.url.trim();
    if (strict && url === "") return { error: { key: "mcpForm.error.url" } };
    if (strict && !/^https?:\/\//i.test(url)) return { error: { key: "mcpForm.error.urlScheme" } };
    entry.type = "http";
    entry.url = url;
    const headers = pairs(form.headers, ":");
    if ("error" in headers) return headers;
    if (Object.keys(headers.ok).length > 0) entry.headers = headers.ok;
  }
  if (form.level !== "") entry.level = form.level;
  const timeout = form.timeout.trim();
  if (timeout !== "") {
    const seconds = Number(timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_TIMEOUT) {
      return { error: { key: "mcpForm.error.timeout", params: { max: MAX_TIMEOUT } } };
    }
    entry.timeout = seconds;
  }
  if (form.disabled) entry.disabled = true;
  for (const [key, value] of Object.entries(form.extra)) {
    if (!FORM_KEYS.has(key)) entry[key] = value;
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

/** A text field of the entry, or why the form can't show it. */
function text(entry: Record<string, unknown>, key: string): Outcome<string> {
  const value = entry[key];
  if (value === undefined || value === null) return { ok: "" };
  if (typeof value === "string") return { ok: value };
  return { error: { key: "mcpForm.error.keyNotString", params: { key } } };
}

/** An object of strings (numbers and booleans allowed, as the config allows them) as lines. */
function pairLines(entry: Record<string, unknown>, key: string, separator: string): Outcome<string> {
  const value = entry[key];
  if (value === undefined || value === null) return { ok: "" };
  if (!isObject(value)) return { error: { key: "mcpForm.error.keyNotObject", params: { key } } };
  const rows: string[] = [];
  for (const [name, item] of Object.entries(value)) {
    if (typeof item !== "string" && typeof item !== "number" && typeof item !== "boolean") {
      return { error: { key: "mcpForm.error.keyNotString", params: { key: `${key}.${name}` } } };
    }
    rows.push(`${name}${separator}${String(item)}`);
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
    form.args = args.join("\n");
  }
  const env = pairLines(entry, "env", "=");
  if ("error" in env) return env;
  form.env = env.ok;
  const headers = pairLines(entry, "headers", ": ");
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
  return { ok: form };
}
