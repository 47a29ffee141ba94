//! `provider set | key | list | remove`: settings in the database, keys only in the keychain.

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::support::{Sandbox, contains};

/// A provider name no other test (or person) uses: the keychain is shared by the test run.
fn unique_provider() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("cli-test-{}-{nanos}", std::process::id())
}

#[test]
fn settings_are_stored_and_listed_with_the_default_key_variable() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(
        &[
            "provider",
            "set",
            "openai",
            "--base-url",
            "https://api.openai.com/v1",
            "--model",
            "gpt-4.1",
            "--context-window",
            "128000",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "provider 'openai': model gpt-4.1 at https://api.openai.com/v1; key: OS keychain \
         (service 'gantry', account 'openai'), else $OPENAI_API_KEY\n"
    );
    // Changing the model keeps the variable.
    sandbox.run(
        &[
            "provider",
            "set",
            "local",
            "--base-url",
            "http://127.0.0.1:8080/v1",
            "--model",
            "a",
            "--api-key-env",
            "LOCAL_KEY",
        ],
        "",
    );
    sandbox.run(
        &[
            "provider",
            "set",
            "local",
            "--base-url",
            "http://127.0.0.1:8080/v1",
            "--model",
            "b",
        ],
        "",
    );

    // No Secret Service here: the list says so once and still shows every provider.
    let run = sandbox.run_env(&["provider", "list"], "", &[("LOCAL_KEY", "from-env")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("gantry-cli: warning: the OS keychain (Secret Service) is not available"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("; set OPENAI_API_KEY in the environment"),
        "{}",
        run.stderr
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(lines[0].starts_with("NAME    MODEL    BASE URL") && lines[0].ends_with("KEY"));
    assert!(lines[1].starts_with("local   b        http://127.0.0.1:8080/v1"));
    assert!(
        lines[1].ends_with("$LOCAL_KEY (keychain unavailable)"),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("openai  gpt-4.1  https://api.openai.com/v1"));
    assert!(
        lines[2].ends_with("none (keychain unavailable, $OPENAI_API_KEY unset)"),
        "{}",
        lines[2]
    );

    let run = sandbox.run(&["provider", "list", "--json"], "");
    let list: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(list[1]["name"], "openai");
    assert_eq!(list[1]["apiKeyEnv"], "OPENAI_API_KEY");
    assert_eq!(list[1]["contextWindow"], 128_000);
    assert_eq!(
        list[1]["keyEntry"],
        serde_json::json!({"service": "gantry", "account": "openai"})
    );
    assert_eq!(list[1]["key"], "unavailable");
    assert_eq!(list[0]["apiKeyEnv"], "LOCAL_KEY");
    assert_eq!(list[0]["model"], "b");

    let run = sandbox.run(&["provider", "remove", "local"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "removed provider 'local'\n");
    assert!(
        run.stderr.starts_with(
            "gantry-cli: warning: the keychain entry (service 'gantry', account 'local') could not be deleted"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_settings_and_unknown_providers_are_usage_errors() {
    let sandbox = Sandbox::new();
    let cases: [&[&str]; 4] = [
        &[
            "provider",
            "set",
            "bad name",
            "--base-url",
            "https://x.invalid",
            "--model",
            "m",
        ],
        &[
            "provider",
            "set",
            "p",
            "--base-url",
            "not a url",
            "--model",
            "m",
        ],
        &["provider", "set", "p", "--base-url", "https://x.invalid"],
        &["provider", "key", "never-set"],
    ];
    for args in cases {
        let run = sandbox.run(args, "sk-whatever\n");
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
    }
}

#[test]
fn without_a_keychain_the_key_is_refused_with_the_fallback_and_never_written() {
    let sandbox = Sandbox::new();
    let key = "sk-proj-NOKEYCHAIN0123456789abcdef";
    sandbox.run(
        &[
            "provider",
            "set",
            "openai",
            "--base-url",
            "https://api.openai.com/v1",
            "--model",
            "m",
        ],
        "",
    );
    let run = sandbox.run_env(
        &["provider", "key", "openai"],
        &format!("{key}\n"),
        &[("GANTRY_LOG", "trace")],
    );
    assert_eq!(run.code, 1);
    let last = run.stderr.lines().last().unwrap();
    assert!(
        last.starts_with("gantry-cli: the OS keychain (Secret Service) is not available ("),
        "{last}"
    );
    assert!(
        last.contains("; set OPENAI_API_KEY in the environment"),
        "{last}"
    );
    assert!(!run.stdout.contains(key) && !run.stderr.contains(key));
    assert!(!contains(&sandbox.database_bytes(), key));
}

#[test]
fn a_key_goes_to_the_secret_service_and_nowhere_else() {
    let Some(sandbox) = Sandbox::with_keyring() else {
        return;
    };
    let name = unique_provider();
    let key = "sk-proj-KEYCHAINcli0123456789abcdefgh";
    let trace = [("GANTRY_LOG", "trace")];
    let mut output = String::new();
    let mut run = |args: &[&str], stdin: &str| {
        let run = sandbox.run_env(args, stdin, &trace);
        output.push_str(&run.stdout);
        output.push_str(&run.stderr);
        run
    };

    let set = run(
        &[
            "provider",
            "set",
            &name,
            "--base-url",
            "https://api.example.invalid/v1",
            "--model",
            "m",
        ],
        "",
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    let stored = run(&["provider", "key", &name], &format!("  {key}  \n"));
    assert_eq!(stored.code, 0, "{}", stored.stderr);
    assert_eq!(
        stored.stdout,
        format!(
            "stored the API key of '{name}' in the OS keychain (service 'gantry', account '{name}')\n"
        )
    );
    let lookup = Command::new("secret-tool")
        .args(["lookup", "service", "gantry", "username", &name])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&lookup.stdout),
        key,
        "trimmed, in the Secret Service"
    );

    let list = run(&["provider", "list"], "");
    assert_eq!(list.code, 0, "{}", list.stderr);
    let row = list.stdout.lines().find(|l| l.starts_with(&name)).unwrap();
    assert!(row.ends_with("  keychain"), "{row}");

    // A call that carries the key, then the audit log.
    let arguments = format!(r#"{{"token": "{key}"}}"#);
    run(&["tools", "call", "nope", &arguments], "");
    let audit = run(&["audit", "--json"], "");
    assert_eq!(audit.code, 0, "{}", audit.stderr);

    let deleted = run(&["provider", "key", &name, "--delete"], "");
    assert_eq!(
        deleted.stdout,
        format!("deleted the API key of '{name}' from the OS keychain\n")
    );
    let list = run(&["provider", "list", "--json"], "");
    let listed: Vec<Value> = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(
        listed.iter().find(|p| p["name"] == name.as_str()).unwrap()["key"],
        "missing"
    );
    run(&["provider", "remove", &name], "");

    assert!(output.contains("sqlx::query"), "trace logs were captured");
    assert!(
        !output.contains(key),
        "the key is in the output or the logs"
    );
    assert!(
        !contains(&sandbox.database_bytes(), key),
        "the key is in the database"
    );
}
