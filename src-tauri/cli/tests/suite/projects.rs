//! `projects`, `sessions list` and `tools policy`: what the CLI remembers between runs.

use gantry_store::Store;
use serde_json::Value;

use super::support::Sandbox;

#[test]
fn projects_are_added_listed_and_removed_without_touching_the_folder() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.project.path().join("keep.txt"), "mine").unwrap();
    let canonical = sandbox.project.path().canonicalize().unwrap();
    let root = canonical.to_str().unwrap();

    let run = sandbox.run(&["projects", "add", root, "--name", "Demo"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, format!("added project 1 'Demo' at {root}\n"));
    let run = sandbox.run(&["projects", "add", "."], "");
    assert_eq!(
        run.stdout,
        format!("opened known project 1 'Demo' at {root}\n")
    );

    let run = sandbox.run(&["projects", "list"], "");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(lines[0].starts_with("ID  NAME  LAST OPENED") && lines[0].ends_with("ROOT"));
    assert!(
        lines[1].starts_with("1   Demo  20") && lines[1].ends_with(root),
        "{}",
        lines[1]
    );

    let run = sandbox.run(&["projects", "list", "--json"], "");
    let list: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["id"], 1);
    assert_eq!(list[0]["name"], "Demo");
    assert_eq!(list[0]["root"], root);
    assert!(list[0]["lastOpenedAt"].is_i64());

    let run = sandbox.run(&["projects", "remove", "1"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!("removed project 1 'Demo' (its folder {root} was not touched)\n")
    );
    assert_eq!(
        std::fs::read_to_string(sandbox.project.path().join("keep.txt")).unwrap(),
        "mine"
    );
    let run = sandbox.run(&["projects", "remove", "1"], "");
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr, "gantry-cli: no project with id 1\n");
    let run = sandbox.run(&["projects", "list", "--json"], "");
    assert_eq!(run.stdout.trim(), "[]");
}

#[test]
fn bad_folders_and_ids_are_usage_errors() {
    let sandbox = Sandbox::new();
    for args in [
        &["projects", "add", "/no/such/folder"][..],
        &["projects", "remove", "one"],
        &["sessions", "list", "--root", "/no/such/folder", "--bogus"],
    ] {
        let run = sandbox.run(args, "");
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
    }
}

#[test]
fn sessions_are_listed_newest_first() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["sessions", "list", "--root", "."], "");
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("is not a Gantry project yet (add it with: gantry-cli projects add"),
        "{}",
        run.stderr
    );

    // Sessions come from the agent loop; here the store makes them.
    let (old, new) = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let store = Store::open(sandbox.database()).await.unwrap();
        let project = store.projects().open(sandbox.project.path()).await.unwrap();
        let old = store
            .sessions()
            .create(project.id, "Old chat", None)
            .await
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let new = store
            .sessions()
            .create(project.id, "New chat", Some("gpt-test"))
            .await
            .unwrap();
        store.close().await;
        (old.id, new.id)
    });

    let run = sandbox.run(&["sessions", "list", "--root", sandbox.root()], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(lines[0].starts_with("ID  UPDATED") && lines[0].ends_with("MODEL     TITLE"));
    assert!(
        lines[1].starts_with(&format!("{new}   20")) && lines[1].ends_with("gpt-test  New chat")
    );
    assert!(
        lines[2].starts_with(&format!("{old}   20")) && lines[2].ends_with("-         Old chat")
    );

    let run = sandbox.run(&["sessions", "list", "--json"], "");
    let list: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    let titles: Vec<&str> = list.iter().map(|s| s["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["New chat", "Old chat"]);
    assert_eq!(list[0]["messageCount"], 0);
}

/// The words of an output line (column widths depend on the longest tool name).
fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

fn policy_of(sandbox: &Sandbox, tool: &str) -> String {
    let run = sandbox.run(&["tools", "list", "--json"], "");
    let tools: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    let tool = tools.iter().find(|t| t["name"] == tool).unwrap();
    tool["policy"].as_str().unwrap().to_owned()
}

#[test]
fn saved_policies_hold_for_later_runs_and_enable_holds_for_one_call() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["tools", "policy", "ask_user"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        words(&run.stdout),
        ["ask_user", "auto", "default", "for", "a", "safe", "tool"]
    );

    let run = sandbox.run(&["tools", "policy", "ask_user", "disabled"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(words(&run.stdout), ["ask_user", "disabled", "saved"]);
    assert_eq!(policy_of(&sandbox, "ask_user"), "disabled");
    let call = ["tools", "call", "ask_user", r#"{"question": "?"}"#];
    let run = sandbox.run(&call, "");
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .starts_with("[disabled] tool 'ask_user' is disabled"),
        "{}",
        run.stdout
    );

    // --enable is for this call only.
    let run = sandbox.run(&[&call[..], &["--enable", "ask_user"]].concat(), "");
    assert_eq!(run.stdout, "[error] no user is available to answer\n");
    assert_eq!(policy_of(&sandbox, "ask_user"), "disabled");

    let run = sandbox.run(&["tools", "policy", "--reset"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .lines()
            .any(|line| words(line) == ["ask_user", "auto", "default", "for", "a", "safe", "tool"]),
        "{}",
        run.stdout
    );
    assert_eq!(policy_of(&sandbox, "ask_user"), "auto");

    sandbox.run(&["tools", "policy", "ask_user", "ask"], "");
    let run = sandbox.run(&["tools", "policy", "ask_user", "--reset"], "");
    assert_eq!(
        words(&run.stdout),
        ["ask_user", "auto", "default", "for", "a", "safe", "tool"]
    );

    for bad in [
        &["tools", "policy", "ask_user", "sometimes"][..],
        &["tools", "policy", "no_such_tool", "auto"],
        &["tools", "policy", "ask_user", "auto", "--reset"],
    ] {
        let run = sandbox.run(bad, "");
        assert_eq!(run.code, 2, "{bad:?}: {}", run.stderr);
    }
}
