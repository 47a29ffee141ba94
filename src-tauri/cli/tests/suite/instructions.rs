//! The instruction files reach the model: the user's (from `HOME`), the project's with their
//! imports, and a folder's own `CLAUDE.md` once the model read a file there.

use std::path::Path;
use std::sync::Arc;

use gantry_scripted_provider::{Handle, Script, ScriptedProvider, ToolCall, Turn};
use serde_json::json;

use super::support::{Run, Sandbox};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The system prompt of the provider's request `index`.
fn system_of(provider: &Handle, index: usize) -> String {
    let body = provider.chat_requests()[index].body.clone().unwrap();
    body["messages"][0]["content"].as_str().unwrap().to_owned()
}

/// `gantry-cli chat MESSAGE ARGS...` against `provider`, with `home` as the user's home, off the
/// test's runtime (the provider answers on it).
async fn chat(
    sandbox: &Arc<Sandbox>,
    home: &Path,
    provider: &Handle,
    message: &str,
    more: &[&str],
) -> Run {
    let sandbox = Arc::clone(sandbox);
    let home = home.to_str().unwrap().to_owned();
    let url = provider.base_url();
    let mut args: Vec<String> = [
        "chat",
        "--base-url",
        &url,
        "--model",
        "scripted-model",
        message,
    ]
    .map(str::to_owned)
    .to_vec();
    args.extend(more.iter().map(|arg| (*arg).to_owned()));
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        sandbox.run_env(&args, "", &[("HOME", &home)])
    })
    .await
    .unwrap()
}

fn session_of(run: &Run) -> String {
    run.stderr
        .lines()
        .find_map(|line| line.strip_prefix("session: "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no session line in {}", run.stderr))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_users_and_the_projects_files_and_a_folders_own_reach_the_model() {
    let sandbox = Arc::new(Sandbox::new());
    let home = tempfile::tempdir().unwrap();
    let project = sandbox.project.path();
    write(
        &home.path().join(".claude/CLAUDE.md"),
        "User rule: answer briefly.",
    );
    write(
        &project.join("CLAUDE.md"),
        "Project rule: run the tests.\n@docs/style.md\n",
    );
    write(
        &project.join("docs/style.md"),
        "Imported rule: short lines.",
    );
    write(&project.join("CLAUDE.local.md"), "Local rule: my machine.");
    write(
        &project.join("pkg/CLAUDE.md"),
        "Folder rule: pkg is frozen.",
    );
    write(&project.join("pkg/notes.txt"), "the notes\n");
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "read_file",
            json!({"path": "pkg/notes.txt"}),
        )]),
        Turn::text("Read them."),
        Turn::text("Still here."),
    ]))
    .await
    .unwrap();

    let first = chat(&sandbox, home.path(), &provider, "read the notes", &[]).await;
    assert_eq!(first.code, 0, "{}", first.stderr);
    let before = system_of(&provider, 0);
    let order: Vec<usize> = [
        "--- from ~/.claude/CLAUDE.md ---\nUser rule: answer briefly.",
        "--- from CLAUDE.md ---\nProject rule: run the tests.",
        "--- from docs/style.md, imported by CLAUDE.md ---\nImported rule: short lines.",
        "--- from CLAUDE.local.md ---\nLocal rule: my machine.",
    ]
    .iter()
    .map(|needle| {
        before
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} in {before}"))
    })
    .collect();
    assert!(order.is_sorted(), "{order:?}");
    assert!(!before.contains("pkg is frozen"), "{before}");
    let after = system_of(&provider, 1);
    assert!(
        after.contains("--- from pkg/CLAUDE.md ---\nFolder rule: pkg is frozen."),
        "{after}"
    );

    // Reopened, the session still knows the model worked in pkg/.
    let id = session_of(&first);
    let second = chat(
        &sandbox,
        home.path(),
        &provider,
        "more",
        &["--session", &id],
    )
    .await;
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(system_of(&provider, 2).contains("pkg is frozen"));
    provider.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planted_link_out_and_an_import_out_are_not_sent() {
    let sandbox = Arc::new(Sandbox::new());
    let home = tempfile::tempdir().unwrap();
    let secret = home.path().join("credentials");
    write(&secret, "aws_secret_access_key = planted");
    let project = sandbox.project.path();
    std::os::unix::fs::symlink(&secret, project.join("AGENTS.md")).unwrap();
    write(
        &project.join("CLAUDE.md"),
        &format!("Rules.\n@{}\n@../../etc/passwd\n", secret.display()),
    );
    let provider = ScriptedProvider::start(Script::new([Turn::text("ok")]))
        .await
        .unwrap();
    let run = chat(&sandbox, home.path(), &provider, "hi", &[]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let system = system_of(&provider, 0);
    assert!(
        system.contains("--- from CLAUDE.md ---\nRules."),
        "{system}"
    );
    assert!(
        !system.contains("planted") && !system.contains("root:x"),
        "{system}"
    );
    provider.verify().unwrap();
}
