import { afterEach, describe, expect, it } from "vitest";

import { setLanguage, tText, type UiText } from "../src/lib/i18n.svelte";
import {
  argsOf,
  argsText,
  emptyForm,
  formToEntry,
  formToSnippet,
  isBlank,
  type ServerForm,
  snippetServers,
  snippetToForm,
  withoutPastedPlace,
} from "../src/lib/mcp-form";

function form(fields: Partial<ServerForm>): ServerForm {
  return { ...emptyForm(), ...fields };
}

function ok<T>(outcome: { ok: T } | { error: UiText }): T {
  if ("error" in outcome) throw new Error(tText(outcome.error));
  return outcome.ok;
}

/** The error, as the UI words it (in English: the tests run without a language chosen). */
function error(outcome: { ok: unknown } | { error: UiText }): string {
  if (!("error" in outcome)) throw new Error(`expected an error, got ${JSON.stringify(outcome.ok)}`);
  return tText(outcome.error);
}

describe("the MCP server form", () => {
  it("turns a local program into an mcpServers entry", () => {
    const entry = ok(
      formToEntry(
        form({
          name: " files ",
          command: "npx",
          args: "-y\n@modelcontextprotocol/server-filesystem\n/home/u/src\n",
          env: "DEBUG=1\nTOKEN=${GITHUB_TOKEN}\nPADDED= kept as typed",
          cwd: "tools",
          level: "sensitive",
          timeout: "90",
        }),
        true,
      ),
    );
    expect(entry).toEqual({
      name: "files",
      entry: {
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/u/src"],
        env: { DEBUG: "1", TOKEN: "${GITHUB_TOKEN}", PADDED: " kept as typed" },
        cwd: "tools",
        level: "sensitive",
        timeout: 90,
      },
    });
  });

  it("takes each line of the arguments as typed: spaces and empty lines are arguments, a last newline is not", () => {
    const args = (text: string) => ok(formToEntry(form({ name: "x", command: "c", args: text }), true)).entry.args;
    expect(args("--x\n")).toEqual(["--x"]);
    expect(args("--x\n\n")).toEqual(["--x", ""]);
    expect(args(" --name  with spaces \n\n--y")).toEqual([" --name  with spaces ", "", "--y"]);
    expect(args("")).toBeUndefined();
    expect(args("\n")).toEqual([""]);
    // What the form shows reads back as the same list.
    for (const list of [["--x", ""], [""], ["a", "", ""], [" a ", "b"]]) {
      expect(argsOf(argsText(list))).toEqual(list);
    }
  });

  it("turns a remote server into an entry with its headers", () => {
    const entry = ok(
      formToEntry(
        form({ name: "remote", transport: "http", url: "https://example.com/mcp", headers: "Authorization: Bearer ${API_TOKEN}", disabled: true }),
        true,
      ),
    );
    expect(entry.entry).toEqual({
      type: "http",
      url: "https://example.com/mcp",
      headers: { Authorization: "Bearer ${API_TOKEN}" },
      disabled: true,
    });
  });

  it("says what is missing or malformed when saving", () => {
    expect(error(formToEntry(form({ command: "npx" }), true))).toBe("Give the server a name.");
    expect(error(formToEntry(form({ name: "x" }), true))).toBe("Enter the program to run (for example npx).");
    expect(error(formToEntry(form({ name: "x", transport: "http" }), true))).toBe("Enter the server's URL.");
    expect(error(formToEntry(form({ name: "x", transport: "http", url: "ftp://h" }), true))).toBe(
      "The URL must start with http:// or https://.",
    );
    expect(error(formToEntry(form({ name: "x", command: "c", env: "A=1\nno equals sign" }), true))).toBe(
      "Environment, line 2: expected KEY=VALUE",
    );
    expect(error(formToEntry(form({ name: "x", transport: "http", url: "http://h", headers: "X-Key value" }), true))).toBe(
      "Headers, line 1: expected Name: value",
    );
    expect(error(formToEntry(form({ name: "x", command: "c", timeout: "soon" }), true))).toBe("The call timeout must be a number of seconds greater than 0 and at most 86400.");
    expect(error(formToEntry(form({ name: "x", command: "c", timeout: "0" }), true))).toBe("The call timeout must be a number of seconds greater than 0 and at most 86400.");
  });

  it("converts an unfinished form to JSON when switching tabs", () => {
    const text = ok(formToSnippet(form({ command: "npx" }), false));
    expect(JSON.parse(text)).toEqual({ mcpServers: { "": { command: "npx" } } });
    // A malformed line still stops the switch: it would be lost otherwise.
    expect(error(formToSnippet(form({ env: "oops" }), false))).toMatch(/Environment, line 1/);
  });

  it("reads a snippet back into the form, keeping the keys it does not edit", () => {
    const source = JSON.stringify({
      mcpServers: {
        github: {
          command: "docker",
          args: ["run", "-i", "ghcr.io/github/github-mcp-server"],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GH}", DEBUG: 1 },
          level: "dangerous",
          timeout: 1.5,
          tools: { get_me: { level: "safe" } },
          startupTimeout: 10,
          autoApprove: ["x"],
        },
      },
    });
    const read = ok(snippetToForm(source));
    expect(read).toMatchObject({
      name: "github",
      transport: "stdio",
      command: "docker",
      args: "run\n-i\nghcr.io/github/github-mcp-server",
      env: "GITHUB_PERSONAL_ACCESS_TOKEN=${GH}\nDEBUG=1",
      level: "dangerous",
      timeout: "1.5",
      disabled: false,
      extra: { tools: { get_me: { level: "safe" } }, startupTimeout: 10, autoApprove: ["x"] },
    });
    // And back: nothing the form does not show is lost.
    const again = JSON.parse(ok(formToSnippet(read, true))) as { mcpServers: { github: Record<string, unknown> } };
    expect(again.mcpServers.github).toEqual({
      command: "docker",
      args: ["run", "-i", "ghcr.io/github/github-mcp-server"],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GH}", DEBUG: 1 },
      level: "dangerous",
      timeout: 1.5,
      tools: { get_me: { level: "safe" } },
      startupTimeout: 10,
      autoApprove: ["x"],
    });
  });

  it("saves an entry it read unchanged when nothing was touched, however it was written", () => {
    const entries: Record<string, unknown>[] = [
      {
        type: "stdio",
        command: " npx ",
        args: ["--x", "", " spaced arg ", "", ""],
        env: { DEBUG: 1, FLAG: true, PADDED: " padded " },
        cwd: " tools ",
        level: "safe",
        timeout: 30,
        disabled: false,
        tools: { get_me: { level: "safe" } },
        startupTimeout: 5,
      },
      { type: "streamable-http", url: " https://example.com/mcp ", headers: { "X-Key": " spaced ", "X-Count": 5 } },
      { url: "http://127.0.0.1:3001/mcp" },
      { disabled: true, command: "x", tools: {}, args: ["a"], env: {}, cwd: null },
      { command: "x", args: [] },
      { command: "x", args: [""] },
      { command: "x", level: null, timeout: 1.5, type: "stdio", url: null },
    ];
    for (const entry of entries) {
      for (const name of ["server", " spaced name "]) {
        const read = ok(snippetToForm(JSON.stringify({ mcpServers: { [name]: entry } })));
        for (const strict of [true, false]) {
          const saved = ok(formToEntry(read, strict));
          expect(saved.name).toBe(name);
          // The same keys, in the same order, with the same values.
          expect(JSON.stringify(saved.entry)).toBe(JSON.stringify(entry));
        }
      }
    }
  });

  it("changes only the keys whose field changed", () => {
    const entry = {
      type: "stdio",
      command: "node",
      args: ["server.js", "", " --flag "],
      env: { DEBUG: 1, TOKEN: "${T}" },
      timeout: 30,
      tools: { x: { level: "safe" } },
    };
    const read = ok(snippetToForm(JSON.stringify({ mine: entry })));
    // An environment line added: the other values keep their type.
    const withEnv = ok(formToEntry({ ...read, env: `${read.env}\nNEW=2` }, true)).entry;
    expect(withEnv).toEqual({ ...entry, env: { DEBUG: 1, TOKEN: "${T}", NEW: "2" } });
    // An argument added: the others stay as typed, empty and spaced ones too.
    const withArg = ok(formToEntry({ ...read, args: `${read.args}\n--verbose` }, true)).entry;
    expect(withArg).toEqual({ ...entry, args: ["server.js", "", " --flag ", "--verbose"] });
    // The level set: only "level" is new, at the end.
    const withLevel = ok(formToEntry({ ...read, level: "dangerous" }, true)).entry;
    expect(Object.keys(withLevel)).toEqual([...Object.keys(entry), "level"]);
    // A changed value replaces the original one in its place.
    expect(Object.keys(ok(formToEntry({ ...read, timeout: "45" }, true)).entry)).toEqual(Object.keys(entry));

    // Another transport: the old one's keys go, "type" follows.
    const remote = ok(formToEntry({ ...read, transport: "http", url: "https://h/mcp" }, true)).entry;
    expect(remote).toEqual({ type: "http", url: "https://h/mcp", timeout: 30, tools: { x: { level: "safe" } } });
    const streamable = ok(snippetToForm('{"r": {"type": "streamable-http", "url": "https://h/mcp", "headers": {"A": "1"}}}'));
    expect(ok(formToEntry({ ...streamable, url: "https://other/mcp" }, true)).entry).toEqual({
      type: "streamable-http",
      url: "https://other/mcp",
      headers: { A: "1" },
    });
    expect(ok(formToEntry({ ...streamable, transport: "stdio", command: "node" }, true)).entry).toEqual({ command: "node" });
    const untyped = ok(snippetToForm('{"r": {"url": "https://h/mcp"}}'));
    expect(ok(formToEntry({ ...untyped, headers: "A: 1" }, true)).entry).toEqual({ url: "https://h/mcp", headers: { A: "1" } });
  });

  it("leaves to the JSON tab an entry whose text the form would change", () => {
    expect(error(snippetToForm('{"a": {"command": "x", "args": ["--message", "two\\nlines"]}}'))).toBe(
      '"args" holds a line break, which the form can\'t show. Keep editing it as JSON.',
    );
    expect(error(snippetToForm('{"a": {"command": "x", "env": {"NOTE": "a\\nb"}}}'))).toMatch(/"env.NOTE" holds a line break/);
    expect(error(snippetToForm('{"a": {"command": "x\\ny"}}'))).toMatch(/"command" holds a line break/);
    expect(error(snippetToForm('{"a": {"command": "x", "env": {"A=B": "c"}}}'))).toBe(
      '"env" has a name the form can\'t show (“A=B”). Keep editing it as JSON.',
    );
    expect(error(snippetToForm('{"a": {"url": "http://h", "headers": {"With space": "c"}}}'))).toMatch(/"headers" has a name/);
  });

  it("reads bare maps and remote servers", () => {
    const read = ok(snippetToForm('{"remote": {"url": "http://127.0.0.1:3001/mcp", "headers": {"X-Key": "k"}, "disabled": true}}'));
    expect(read).toMatchObject({ name: "remote", transport: "http", url: "http://127.0.0.1:3001/mcp", headers: "X-Key: k", disabled: true });
    expect(ok(snippetToForm("  "))).toEqual(emptyForm());
  });

  it("explains what the form can't show, so the JSON tab keeps it", () => {
    expect(error(snippetToForm('{"a": {'))).toMatch(/^The JSON can't be read: /);
    expect(error(snippetToForm("[1, 2]"))).toMatch(/must be an object/);
    expect(error(snippetToForm('{"a": {"command": "x"}, "b": {"command": "y"}}'))).toBe(
      "The form edits one server at a time, and this JSON holds 2. Keep editing it as JSON.",
    );
    expect(error(snippetToForm('{"a": {"command": "x", "args": "-y"}}'))).toMatch(/"args" must be a list of strings/);
    expect(error(snippetToForm('{"a": {"command": "x", "env": {"K": ["v"]}}}'))).toMatch(/"env.K" must be a string/);
    expect(error(snippetToForm('{"a": {"type": "sse", "url": "http://h/sse"}}'))).toMatch(/SSE/);
    expect(error(snippetToForm('{"a": {"command": "x", "level": "harmless"}}'))).toMatch(/"level" must be/);
    expect(error(snippetToForm('{"mcpServers": []}'))).toMatch(/"mcpServers" must be an object/);
  });

  it("takes the pasted JSON's place out of a save's error for the Form tab, keeping the message", () => {
    expect(withoutPastedPlace("MCP config pasted JSON:3: key 'mcpServers.a.command': expected a string")).toBe(
      "MCP config: key 'mcpServers.a.command': expected a string",
    );
    expect(withoutPastedPlace("MCP config pasted JSON:4:7: not valid JSON: trailing comma")).toBe(
      "MCP config: not valid JSON: trailing comma",
    );
    expect(withoutPastedPlace("pasted JSON:1: key '': expected a JSON object")).toBe("key '': expected a JSON object");
    expect(withoutPastedPlace("the entry changed since you opened it")).toBe("the entry changed since you opened it");
  });

  it("lists a snippet's servers in order", () => {
    expect(ok(snippetServers('{"mcpServers": {"b": {}, "a": {}}}')).map(([name]) => name)).toEqual(["b", "a"]);
    expect(ok(snippetServers('{"b": {}}')).map(([name]) => name)).toEqual(["b"]);
  });

  it("knows a blank form", () => {
    expect(isBlank(emptyForm())).toBe(true);
    expect(isBlank(form({ name: "x" }))).toBe(false);
    expect(isBlank(form({ extra: { tools: {} } }))).toBe(false);
  });
});

describe("the MCP server form's errors in Chinese", () => {
  afterEach(() => {
    setLanguage("system");
  });

  it("says what is missing or malformed in Chinese, the JSON parser's words as they come", () => {
    setLanguage("zh-CN");
    expect(error(formToEntry(form({ command: "npx" }), true))).toBe("请为服务器填写名称。");
    expect(error(formToEntry(form({ name: "x" }), true))).toBe("请填写要运行的程序（例如 npx）。");
    expect(error(formToEntry(form({ name: "x", transport: "http", url: "ftp://h" }), true))).toBe(
      "URL 必须以 http:// 或 https:// 开头。",
    );
    expect(error(formToEntry(form({ name: "x", command: "c", env: "A=1\nno equals sign" }), true))).toBe(
      "环境变量第 2 行：应为 KEY=VALUE 格式",
    );
    expect(error(formToEntry(form({ name: "x", command: "c", timeout: "0" }), true))).toBe(
      "调用超时须大于 0 且不超过 86400 秒。",
    );
    expect(error(snippetToForm("[1, 2]"))).toBe('JSON 必须是一个对象：{"mcpServers": {…}} 或 {"name": {…}}。');
    expect(error(snippetToForm('{"a": {"command": "x", "env": {"K": ["v"]}}}'))).toBe(
      '"env.K" 必须是字符串，才能在表单中编辑此服务器。',
    );
    expect(error(snippetToForm('{"a": {"command": "x", "level": "harmless"}}'))).toBe(
      '"level" 必须是 "safe"、"sensitive" 或 "dangerous"。',
    );
    expect(error(snippetToForm('{"a": 1}'))).toBe('服务器 "a" 必须是一个对象。');
    const unreadable = snippetToForm('{"a": {');
    expect(error(unreadable)).toMatch(/^无法读取 JSON：\S/);
    // The same error, worded again in English once the language changes.
    setLanguage("en");
    expect(error(unreadable)).toMatch(/^The JSON can't be read: \S/);
  });
});
