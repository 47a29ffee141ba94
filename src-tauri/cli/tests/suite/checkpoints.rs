//! `gantry-cli changes` and `gantry-cli revert` after a `chat` turn changed files.

use std::sync::Arc;

use gantry_scripted_provider::{Script, ScriptedProvider, ToolCall, Turn};
use serde_json::{Value, json};

use super::support::{Run, Sandbox};

/// Runs `gantry-cli args...` off the runtime (the scripted provider answers on it meanwhile).
async fn run(sandbox: &Arc<Sandbox>, args: &[&str]) -> Run {
    let sandbox = Arc::clone(sandbox);
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        sandbox.run(&args, "")
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turns_changes_are_listed_diffed_and_reverted() {
    let sandbox = Arc::new(Sandbox::new());
    let root = sandbox.project.path().to_owned();
    std::fs::write(root.join("notes.txt"), "one\ntwo\n").unwrap();
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![
            ToolCall::new(
                "w1",
                "write_file",
                json!({"path": "notes.txt", "content": "one\n2\n"}),
            ),
            ToolCall::new(
                "c1",
                "run_command",
                json!({"command": "echo made > made.txt"}),
            ),
        ]),
        Turn::text("Done."),
    ]))
    .await
    .unwrap();
    let url = provider.base_url();
    let chat = run(
        &sandbox,
        &[
            "chat",
            "change the notes",
            "--base-url",
            &url,
            "--model",
            "scripted-model",
            "--enable",
            "run_command",
            "--approve",
            "once",
        ],
    )
    .await;
    assert_eq!(chat.code, 0, "{}", chat.stderr);
    provider.verify().unwrap();

    let listed = run(&sandbox, &["changes", "--diff"]).await;
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert!(
        listed.stdout.contains("A made.txt  +1 -0  (run_command)"),
        "{}",
        listed.stdout
    );
    assert!(
        listed.stdout.contains("M notes.txt  +1 -1  (write_file)"),
        "{}",
        listed.stdout
    );
    assert!(
        listed
            .stdout
            .contains("1 \"change the notes\": made.txt, notes.txt")
    );
    assert!(listed.stdout.contains("-two\n+2\n"), "{}", listed.stdout);
    let json: Value =
        serde_json::from_str(&run(&sandbox, &["changes", "--json"]).await.stdout).unwrap();
    assert_eq!(json["files"].as_array().unwrap().len(), 2);

    // The user edits the notes by hand: the turn's revert refuses and writes nothing.
    std::fs::write(root.join("notes.txt"), "mine\n").unwrap();
    let refused = run(&sandbox, &["revert", "--turn", "1"]).await;
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(
        refused
            .stdout
            .contains("conflict: notes.txt (edited since)")
    );
    assert!(root.join("made.txt").exists());

    let file = run(&sandbox, &["revert", "--file", "made.txt"]).await;
    assert_eq!(file.code, 0, "{}{}", file.stdout, file.stderr);
    assert!(!root.join("made.txt").exists());

    let forced = run(&sandbox, &["revert", "--turn", "1", "--force"]).await;
    assert_eq!(forced.code, 0, "{}", forced.stdout);
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "one\ntwo\n"
    );
    let undo_id = forced
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("undo with: gantry-cli revert --undo "))
        .unwrap()
        .to_owned();
    let undone = run(&sandbox, &["revert", "--undo", &undo_id]).await;
    assert_eq!(undone.code, 0, "{}", undone.stdout);
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "mine\n"
    );

    let usage = run(&sandbox, &["revert", "--turn", "9"]).await;
    assert_eq!(usage.code, 2, "{}", usage.stderr);
    let nothing = run(&sandbox, &["revert"]).await;
    assert_eq!(nothing.code, 2);
}
