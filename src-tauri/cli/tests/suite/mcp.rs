//! `gantry-cli mcp list | serve` and MCP tools in `tools list | call`.

use std::path::Path;

use serde_json::{Value, json};

use super::support::{Sandbox, everything_with_dangerous_echo, gantry};

/// Writes the user-wide MCP file the CLI reads in `cwd` (see `support::gantry`).
fn user_config(cwd: &Path, config: &Value) {
    let dir = cwd.join(".config/gantry");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("mcp.json"),
        serde_json::to_string_pretty(config).unwrap(),
    )
    .unwrap();
}

/// A user config whose one server is `gantry-cli mcp serve` for `project`.
fn gantry_as_a_server(cwd: &Path, project: &Path) {
    user_config(
        cwd,
        &json!({"mcpServers": {"gantry": {
            "command": env!("CARGO_BIN_EXE_gantry-cli"),
            "args": ["mcp", "serve", "--root", project.to_str().unwrap()]
        }}}),
    );
}

#[test]
fn list_without_servers_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let run = gantry(dir.path(), &["mcp", "list"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "no MCP servers are configured\n");
}

#[test]
fn gantrys_client_round_trips_through_gantry_as_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let served = tempfile::tempdir().unwrap();
    gantry_as_a_server(dir.path(), served.path());
    std::fs::write(served.path().join("hello.txt"), "hello over MCP\n").unwrap();

    let run = gantry(dir.path(), &["mcp", "list"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let first = run.stdout.lines().next().unwrap();
    assert!(
        first.starts_with("gantry  [connected]  stdio: ")
            && first.ends_with(&format!("mcp serve --root {}", served.path().display())),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "  tools: mcp__gantry__edit_file (sensitive), mcp__gantry__glob_search (safe)"
        ),
        "{}",
        run.stdout
    );
    // Nobody can answer the model's questions through a served Gantry: ask_user is not offered.
    assert!(!run.stdout.contains("ask_user"), "{}", run.stdout);

    let run = gantry(dir.path(), &["mcp", "list", "--json"], "");
    let statuses: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(statuses[0]["state"]["state"], "connected");
    assert_eq!(statuses[0]["transport"]["kind"], "stdio");
    assert_eq!(statuses[0]["tools"][0]["remoteName"], "edit_file");

    // MCP tools are listed and callable beside the built-ins.
    let run = gantry(dir.path(), &["tools", "list", "--json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tools: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    let mcp = tools
        .iter()
        .find(|t| t["name"] == "mcp__gantry__read_file")
        .unwrap();
    assert_eq!(mcp["level"], "safe");
    assert_eq!(mcp["source"], json!({"kind": "mcp", "server": "gantry"}));
    let run = gantry(dir.path(), &["tools", "schema"], "");
    let schemas: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    let schema = schemas
        .iter()
        .find(|s| s["function"]["name"] == "mcp__gantry__read_file")
        .unwrap();
    assert_eq!(
        schema["function"]["parameters"]["required"],
        json!(["path"])
    );

    // Called through the served Gantry, on its project.
    let run = gantry(
        dir.path(),
        &[
            "tools",
            "call",
            "mcp__gantry__read_file",
            r#"{"path": "hello.txt"}"#,
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("hello over MCP"), "{}", run.stdout);
}

#[test]
fn project_servers_start_only_when_trusted() {
    let project = tempfile::tempdir().unwrap();
    let served = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join(".mcp.json"),
        serde_json::to_string(&json!({"mcpServers": {"proj": {
            "command": env!("CARGO_BIN_EXE_gantry-cli"),
            "args": ["mcp", "serve", "--root", served.path().to_str().unwrap()]
        }}}))
        .unwrap(),
    )
    .unwrap();
    let run = gantry(project.path(), &["mcp", "list"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("proj  [untrusted]  stdio: "),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("--trust-project-mcp"), "{}", run.stdout);
    let run = gantry(project.path(), &["tools", "list"], "");
    assert!(!run.stdout.contains("mcp__proj__"), "{}", run.stdout);

    let run = gantry(project.path(), &["mcp", "list", "--trust-project-mcp"], "");
    assert!(
        run.stdout.starts_with("proj  [connected]"),
        "{}",
        run.stdout
    );
    let run = gantry(
        project.path(),
        &["tools", "list", "--trust-project-mcp"],
        "",
    );
    assert!(
        run.stdout.contains("mcp__proj__read_file"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_broken_config_is_an_error_for_mcp_list_and_a_warning_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    user_config(dir.path(), &json!({"mcpServers": {"x": {"command": 42}}}));
    let run = gantry(dir.path(), &["mcp", "list"], "");
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("mcp.json:4: key 'mcpServers.x.command': expected a string"),
        "{}",
        run.stderr
    );
    let run = gantry(dir.path(), &["tools", "list"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("MCP servers not started"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("ask_user"));
}

#[test]
fn failed_servers_show_their_reason_and_stderr() {
    let dir = tempfile::tempdir().unwrap();
    user_config(
        dir.path(),
        &json!({"mcpServers": {"broken": {
            "command": "sh",
            "args": ["-c", "echo 'fatal: no token' >&2; exit 4"],
            "startupTimeout": 5
        }}}),
    );
    let run = gantry(dir.path(), &["mcp", "list"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("broken  [failed: exited with status 4 during start-up]  stdio: sh -c"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("    fatal: no token"), "{}", run.stdout);
}

#[test]
fn serve_rejects_unknown_auto_tools() {
    let dir = tempfile::tempdir().unwrap();
    let run = gantry(dir.path(), &["mcp", "serve", "--auto", "nope"], "");
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("unknown tool 'nope'"), "{}", run.stderr);
}

#[test]
fn mcp_trust_is_remembered_until_the_file_changes() {
    let sandbox = Sandbox::new();
    let served = tempfile::tempdir().unwrap();
    let config_path = sandbox.project.path().join(".mcp.json");
    let config = serde_json::to_string(&json!({"mcpServers": {"proj": {
        "command": env!("CARGO_BIN_EXE_gantry-cli"),
        "args": ["mcp", "serve", "--root", served.path().to_str().unwrap()]
    }}}))
    .unwrap();
    std::fs::write(&config_path, &config).unwrap();
    let run = sandbox.run(&["mcp", "list"], "");
    assert!(
        run.stdout.starts_with("proj  [untrusted]"),
        "{}",
        run.stdout
    );

    // Without an answer nothing is approved.
    let run = sandbox.run(&["mcp", "trust"], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.ends_with("not approved\n"), "{}", run.stdout);
    let run = sandbox.run(&["mcp", "list"], "");
    assert!(
        run.stdout.starts_with("proj  [untrusted]"),
        "{}",
        run.stdout
    );

    let run = sandbox.run(&["mcp", "trust"], "y\n");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("(1 servers):\n  proj  stdio: "),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("[y/N]"), "{}", run.stderr);
    let run = sandbox.run(&["mcp", "list"], "");
    assert!(
        run.stdout.starts_with("proj  [connected]"),
        "{}",
        run.stdout
    );

    // Any change to the file withdraws the approval.
    std::fs::write(&config_path, format!("{config}\n")).unwrap();
    let run = sandbox.run(&["mcp", "list"], "");
    assert!(
        run.stdout.starts_with("proj  [untrusted]"),
        "{}",
        run.stdout
    );

    std::fs::remove_file(&config_path).unwrap();
    let run = sandbox.run(&["mcp", "trust", "--yes"], "");
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains(".mcp.json does not exist"),
        "{}",
        run.stderr
    );
}

#[test]
fn mcp_trust_shows_commands_env_values_variables_and_levels_but_no_secrets() {
    let sandbox = Sandbox::new();
    let config = json!({"mcpServers": {
        "files": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/src"],
            "env": {
                "GITHUB_TOKEN": "${GH_SECRET_SOURCE}",
                "DEBUG": "value-shown-1",
                "API_KEY": "sk-live-secret-not-shown-0123456789",
                "PATH": "./.devtools:/usr/bin"
            },
            "cwd": "tools",
            "level": "dangerous",
            "tools": {"read_file": {"level": "sensitive"}}
        },
        "remote": {
            "type": "http",
            "url": "https://example.invalid/${TENANT}/mcp",
            "headers": {"Authorization": "Bearer ${API_TOKEN}", "X-Extra": "value-not-shown-2"}
        },
        "evil\u{1b}[2J": {"command": "sh\u{1b}]0;x\u{7}"}
    }});
    std::fs::write(
        sandbox.project.path().join(".mcp.json"),
        serde_json::to_string(&config).unwrap(),
    )
    .unwrap();
    let run = sandbox.run(&["mcp", "trust"], "no\n");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = &run.stdout;
    for expected in [
        "(3 servers):\n",
        "  files  stdio: npx -y @modelcontextprotocol/server-filesystem ${HOME}/src\n",
        "    working folder: tools\n",
        "    env API_KEY=••••••\n",
        "    env DEBUG=value-shown-1\n",
        "    env GITHUB_TOKEN=${GH_SECRET_SOURCE}\n",
        "    env PATH=./.devtools:/usr/bin   <- ! chooses which programs run\n",
        "    reads from your environment: ${GH_SECRET_SOURCE}, ${HOME}\n",
        "    level of every tool: dangerous\n",
        "    level of read_file: sensitive\n",
        "  remote  http: https://example.invalid/${TENANT}/mcp\n",
        "    headers: Authorization, X-Extra\n",
        "    reads from your environment: ${API_TOKEN}, ${TENANT}\n",
        "  evil\\e[2J  stdio: sh\\e]0;x\\x07\n",
        "not approved\n",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in:\n{out}");
    }
    assert!(!out.contains("value-not-shown"), "{out}");
    assert!(!out.contains("secret-not-shown"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out}");
}

#[test]
fn enable_and_tools_policy_apply_to_mcp_tools() {
    let sandbox = Sandbox::new();
    everything_with_dangerous_echo(sandbox.project.path());
    let echo = ["tools", "call", "mcp__ev__echo", r#"{"message": "hi"}"#];

    // DANGEROUS: disabled until enabled.
    let run = sandbox.run(&echo, "");
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);

    // --enable holds for that one call.
    let mut enabled = echo.to_vec();
    enabled.extend(["--enable", "mcp__ev__echo", "--approve", "once"]);
    let run = sandbox.run(&enabled, "");
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "Echo: hi\n");
    assert_eq!(sandbox.run(&echo, "").code, 1);

    // tools policy lists, saves and resets an MCP tool's policy.
    let run = sandbox.run(&["tools", "policy", "mcp__ev__echo"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        words(&run.stdout),
        "mcp__ev__echo disabled default for a dangerous tool"
    );
    let run = sandbox.run(&["tools", "policy", "mcp__ev__echo", "auto"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(words(&run.stdout), "mcp__ev__echo auto saved");
    let run = sandbox.run(&echo, "");
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "Echo: hi\n");
    let run = sandbox.run(&["tools", "policy", "mcp__ev__echo", "--reset"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(sandbox.run(&echo, "").code, 1);

    // A name no server has is still a usage error.
    let run = sandbox.run(&["tools", "policy", "mcp__ev__nope", "auto"], "");
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn disable_switches_a_server_off_for_one_project_only() {
    let sandbox = Sandbox::new();
    let other = tempfile::tempdir().unwrap();
    let served = tempfile::tempdir().unwrap();
    // The user-wide file is read from the working folder's .config (see support::run).
    gantry_as_a_server(sandbox.project.path(), served.path());
    let user_file = sandbox.project.path().join(".config/gantry/mcp.json");
    let before = std::fs::read(&user_file).unwrap();

    let run = sandbox.run(&["mcp", "disable", "gantry"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "'gantry' is switched off in this project\n");
    let run = sandbox.run(&["mcp", "list"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("gantry  [disabled]  stdio: "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("switched off in this project (gantry-cli mcp enable gantry)"),
        "{}",
        run.stdout
    );
    let run = sandbox.run(&["tools", "list"], "");
    assert!(!run.stdout.contains("mcp__gantry__"), "{}", run.stdout);
    // The file is the user's, shared by every project: untouched.
    assert_eq!(std::fs::read(&user_file).unwrap(), before);

    // Another project (same data folder, same user file) still starts it.
    let run = sandbox.run(
        &["mcp", "list", "--root", other.path().to_str().unwrap()],
        "",
    );
    assert!(
        run.stdout.starts_with("gantry  [connected]"),
        "{}",
        run.stdout
    );

    // A name no file configures is refused.
    let run = sandbox.run(&["mcp", "disable", "gantyr"], "");
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("no MCP server named 'gantyr' is configured (configured: gantry)"),
        "{}",
        run.stderr
    );

    let run = sandbox.run(&["mcp", "enable", "gantry"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "'gantry' is switched on again in this project\n"
    );
    let run = sandbox.run(&["mcp", "list"], "");
    assert!(
        run.stdout.starts_with("gantry  [connected]"),
        "{}",
        run.stdout
    );
}

/// The OAuth fixture server (the MCP TypeScript SDK's auth router), killed when dropped.
struct OauthServer {
    url: String,
    child: std::process::Child,
}

impl OauthServer {
    fn start() -> Self {
        use std::io::BufRead;
        let fixtures =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/mcp-servers");
        let mut child = std::process::Command::new("node")
            .arg(fixtures.join("oauth-server.mjs"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = serde_json::from_str::<Value>(&line).unwrap()["url"]
            .as_str()
            .unwrap()
            .to_owned();
        Self { url, child }
    }
}

impl Drop for OauthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn mcp_login_signs_in_through_the_browser_and_logout_forgets_it() {
    let Some(sandbox) = Sandbox::with_keyring() else {
        return;
    };
    let server = OauthServer::start();
    user_config(
        sandbox.project.path(),
        &json!({"mcpServers": {"remote": {"url": server.url, "level": "safe"}}}),
    );
    let follow = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/mcp-servers/follow-url.mjs");
    let browser = format!("node {}", follow.display());
    let env = [("BROWSER", browser.as_str())];

    // Before: the server asks for sign-in, and the list says so in a sentence.
    let run = sandbox.run(&["mcp", "list"], "");
    assert!(
        run.stdout.contains("failed: the server asked for sign-in (401); sign in (MCP panel, or gantry-cli mcp login remote)"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );

    let run = sandbox.run_env(&["mcp", "login", "remote"], "", &env);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .starts_with("signed in to 'remote' as 127.0.0.1:"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("/authorize?"), "{}", run.stderr);

    // Later runs use the stored tokens.
    let run = sandbox.run(&["tools", "call", "mcp__remote__whoami"], "");
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("signed in as client "),
        "{}",
        run.stdout
    );

    let run = sandbox.run(&["mcp", "logout", "remote"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "signed out of 'remote'\n");
    let run = sandbox.run(&["mcp", "logout", "remote"], "");
    assert_eq!(run.stdout, "'remote' was not signed in\n");
    let run = sandbox.run(&["tools", "call", "mcp__remote__whoami"], "");
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains(
            "is unavailable: MCP server 'remote' is not running: the server asked for sign-in (401)"
        ),
        "{}",
        run.stdout
    );

    // A stdio server can't sign in.
    user_config(
        sandbox.project.path(),
        &json!({"mcpServers": {"local": {"command": "true"}}}),
    );
    let run = sandbox.run(&["mcp", "login", "local"], "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("only those sign in"), "{}", run.stderr);
}
