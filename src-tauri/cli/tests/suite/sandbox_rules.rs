//! The real binary with the OS sandbox, rules that last and the variables a project passes:
//! each run is a new process, so what holds across runs holds across restarts.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::time::Duration;

use super::support::{Run, Sandbox};

/// `tools call NAME ARGS` in the sandbox's project, with `more` arguments.
fn call(sandbox: &Sandbox, name: &str, arguments: &str, more: &[&str]) -> Run {
    let mut args = vec!["tools", "call", name, arguments, "--root", sandbox.root()];
    args.extend_from_slice(more);
    sandbox.run(&args, "")
}

/// `tools SUBCOMMAND ... --root ROOT`; must succeed.
fn tools(sandbox: &Sandbox, args: &[&str]) -> String {
    let mut all = vec!["tools"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--root", sandbox.root()]);
    let run = sandbox.run(&all, "");
    assert_eq!(run.code, 0, "{args:?}: {}{}", run.stdout, run.stderr);
    run.stdout
}

/// run_command set to Ask in the project (saved).
fn ask_for_commands(sandbox: &Sandbox) {
    tools(sandbox, &["policy", "run_command", "ask"]);
}

#[test]
fn a_planted_ssh_key_under_home_is_not_readable_from_a_command() {
    let sandbox = Sandbox::new();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".ssh")).unwrap();
    std::fs::write(home.path().join(".ssh/id_ed25519"), "PLANTED-PRIVATE-KEY\n").unwrap();
    let home_path = home.path().to_str().unwrap();
    let command = serde_json::json!({
        "command": format!("cat {home_path}/.ssh/id_ed25519; cat ~/.ssh/id_ed25519; echo done")
    })
    .to_string();
    let run = sandbox.run_env(
        &[
            "tools",
            "call",
            "run_command",
            &command,
            "--enable",
            "run_command",
            "--approve",
            "once",
            "--root",
            sandbox.root(),
        ],
        "",
        &[("HOME", home_path)],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("done"), "{}", run.stdout);
    assert!(!run.stdout.contains("PLANTED"), "{}", run.stdout);
}

#[test]
fn database_url_reaches_commands_only_once_the_project_passes_it_and_that_is_kept() {
    let sandbox = Sandbox::new();
    ask_for_commands(&sandbox);
    let secrets = [
        ("DATABASE_URL", "postgres://app:pw-db-1@db:5432/app"),
        ("REDIS_URL", "redis://:pw-redis-2@cache:6379"),
        (
            "MONGODB_URI",
            "mongodb+srv://admin:pw-mongo-3@c0.example.net/db",
        ),
        (
            "SENTRY_DSN",
            "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/1",
        ),
        (
            "SLACK_WEBHOOK_URL",
            "https://hooks.slack.com/services/T0/B0/webhook4",
        ),
        (
            "CI_JOB_JWT",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2lnbmF0dXJlLTU",
        ),
        ("NPM_CONFIG__AUTH", "bnBtOnRva2VuLTY="),
    ];
    let env_of = |sandbox: &Sandbox| {
        let run = sandbox.run_env(
            &[
                "tools",
                "call",
                "run_command",
                r#"{"command": "env"}"#,
                "--approve",
                "once",
                "--root",
                sandbox.root(),
            ],
            "",
            &secrets,
        );
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        run.stdout
    };
    let before = env_of(&sandbox);
    assert!(before.contains("PATH="), "{before}");
    for (name, value) in secrets {
        assert!(!before.contains(value), "{name} leaked: {before}");
    }
    assert!(!before.contains("DBUS_SESSION_BUS_ADDRESS"), "{before}");

    assert_eq!(
        tools(&sandbox, &["env", "pass", "DATABASE_URL"]),
        "DATABASE_URL\n"
    );
    // A new process: the pass list comes from the database.
    assert_eq!(tools(&sandbox, &["env", "list"]), "DATABASE_URL\n");
    let after = env_of(&sandbox);
    assert!(
        after
            .lines()
            .any(|line| line == "DATABASE_URL=postgres://app:pw-db-1@db:5432/app"),
        "{after}"
    );
    for (name, value) in &secrets[1..] {
        assert!(!after.contains(value), "{name} leaked: {after}");
    }
    // Gantry's own are refused.
    let refused = sandbox.run(
        &[
            "tools",
            "env",
            "pass",
            "GANTRY_DATA_DIR",
            "--root",
            sandbox.root(),
        ],
        "",
    );
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("never reach a command"),
        "{}",
        refused.stderr
    );
    assert_eq!(tools(&sandbox, &["env", "unpass", "DATABASE_URL"]), "");
    assert!(!env_of(&sandbox).contains("pw-db-1"));
}

#[test]
fn an_allow_rule_for_cargo_test_holds_across_runs_and_does_not_cover_cargo_publish() {
    let sandbox = Sandbox::new();
    ask_for_commands(&sandbox);
    assert!(tools(&sandbox, &["rules", "add", "run_command", "cargo test"]).contains("cargo test"));
    // No approver (stdin is not a terminal): only the rule can let it run.
    let test = call(&sandbox, "run_command", r#"{"command": "cargo test"}"#, &[]);
    assert!(test.stdout.starts_with("[exit "), "{}", test.stdout);
    for command in [
        "cargo publish",
        "cargo test; cargo publish",
        "cargo test --config x=1",
    ] {
        let arguments = serde_json::json!({ "command": command }).to_string();
        let run = call(&sandbox, "run_command", &arguments, &[]);
        assert_eq!(run.code, 1, "{command}");
        assert!(
            run.stdout.starts_with("[denied] "),
            "{command}: {}",
            run.stdout
        );
    }
    let audit = sandbox.run(&["audit", "--root", sandbox.root(), "--json"], "");
    let entries: serde_json::Value = serde_json::from_str(&audit.stdout).unwrap();
    let last = entries.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["decision"]["by"], "rule", "{last}");
    assert_eq!(last["decision"]["rule"], 1, "{last}");
    let table = sandbox.run(&["audit", "--root", sandbox.root()], "");
    assert!(table.stdout.contains("rule:1"), "{}", table.stdout);
    let listed = tools(&sandbox, &["rules", "list"]);
    let row = listed.lines().nth(1).unwrap();
    assert!(
        row.split_whitespace().collect::<Vec<_>>()
            == ["1", "allow", "run_command", "1", "cargo", "test"],
        "{listed}"
    );
    tools(&sandbox, &["rules", "remove", "1"]);
    let run = call(&sandbox, "run_command", r#"{"command": "cargo test"}"#, &[]);
    assert!(run.stdout.starts_with("[denied] "), "{}", run.stdout);
    let missing = sandbox.run(
        &["tools", "rules", "remove", "1", "--root", sandbox.root()],
        "",
    );
    assert_eq!(missing.code, 2);
}

#[test]
fn a_deny_rule_refuses_without_asking_and_tells_the_model_which_rule() {
    let sandbox = Sandbox::new();
    ask_for_commands(&sandbox);
    tools(
        &sandbox,
        &["rules", "add", "run_command", "git push", "--deny"],
    );
    let run = call(
        &sandbox,
        "run_command",
        r#"{"command": "git status && git push origin main"}"#,
        &["--approve", "once"],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .starts_with("[denied] a rule of this project refuses this call")
            && run.stdout.contains("deny run_command: git push"),
        "{}",
        run.stdout
    );
}

#[test]
fn allowing_in_the_project_saves_a_rule_the_next_run_follows() {
    let sandbox = Sandbox::new();
    ask_for_commands(&sandbox);
    let first = call(
        &sandbox,
        "run_command",
        r#"{"command": "echo hello"}"#,
        &["--approve", "project"],
    );
    assert!(
        first.stdout.starts_with("[exit 0 in ") && first.stdout.ends_with("s]\nhello\n\n"),
        "{}",
        first.stdout
    );
    assert!(tools(&sandbox, &["rules", "list"]).contains("echo hello"));
    let second = call(&sandbox, "run_command", r#"{"command": "echo hello"}"#, &[]);
    assert!(second.stdout.ends_with("hello\n\n"), "{}", second.stdout);
    let other = call(&sandbox, "run_command", r#"{"command": "echo bye"}"#, &[]);
    assert!(other.stdout.starts_with("[denied] "), "{}", other.stdout);
    // A write_file rule is a glob.
    tools(&sandbox, &["rules", "add", "write_file", "notes/**"]);
    let note = call(
        &sandbox,
        "write_file",
        r#"{"path": "notes/a/b.md", "content": "x"}"#,
        &[],
    );
    assert_eq!(note.code, 0, "{}", note.stdout);
    let src = call(
        &sandbox,
        "write_file",
        r#"{"path": "src/main.rs", "content": "x"}"#,
        &[],
    );
    assert_eq!(src.code, 1, "{}", src.stdout);
}

#[test]
fn a_write_to_git_config_asks_under_auto_and_even_with_a_rule() {
    let sandbox = Sandbox::new();
    std::fs::create_dir(sandbox.project.path().join(".git")).unwrap();
    tools(&sandbox, &["policy", "write_file", "auto"]);
    tools(&sandbox, &["rules", "add", "write_file", ".git/**"]);
    let attack = r#"{"path": ".git/config", "content": "[core]\n\tfsmonitor = touch pwned\n"}"#;
    let run = call(&sandbox, "write_file", attack, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.starts_with("[denied] "), "{}", run.stdout);
    assert!(!sandbox.project.path().join(".git/config").exists());
    let ok = call(
        &sandbox,
        "write_file",
        r#"{"path": "notes.md", "content": "x"}"#,
        &[],
    );
    assert_eq!(ok.code, 0, "{}", ok.stdout);
}

#[test]
fn the_network_switch_is_kept_per_project_and_opens_the_hosts_loopback() {
    let sandbox = Sandbox::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (sender, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut line = String::new();
            let _ = BufReader::new(stream).read_line(&mut line);
            let _ = sender.send(line);
        }
    });
    let command = serde_json::json!({
        "command": format!("bash -c 'echo over-tcp > /dev/tcp/127.0.0.1/{port}' 2>/dev/null && echo CONNECTED; true")
    })
    .to_string();
    let connect = || {
        call(
            &sandbox,
            "run_command",
            &command,
            &["--enable", "run_command", "--approve", "once"],
        )
    };
    assert!(tools(&sandbox, &["sandbox"]).contains("network:  off"));
    assert!(!connect().stdout.contains("CONNECTED"));
    assert!(received.recv_timeout(Duration::from_millis(300)).is_err());
    assert!(tools(&sandbox, &["sandbox", "--network", "on"]).contains("network:  on"));
    let run = connect();
    assert!(run.stdout.contains("CONNECTED"), "{}", run.stdout);
    assert_eq!(
        received.recv_timeout(Duration::from_secs(5)).unwrap(),
        "over-tcp\n"
    );
    assert!(tools(&sandbox, &["sandbox"]).contains("network:  on"));
}
