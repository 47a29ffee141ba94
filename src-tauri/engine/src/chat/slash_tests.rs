//! Commands and skills from a project set up for Claude Code, end to end against a scripted
//! provider: `/review x` from `.claude/commands/review.md` sends the expanded prompt, the skill
//! is listed in the system prompt, and the `skill` tool returns its body.

use std::time::{Duration, Instant};

use gantry_agent::{ProviderConfig, ProviderOptions};
use gantry_scripted_provider::{Expect, Script, ScriptedProvider, ToolCall, Turn};
use serde_json::json;

use super::*;
use crate::error::ErrorKind;
use crate::events::RecordingSink;
use crate::project::open::{People, open_tools};
use gantry_tools::ProjectRoot;

fn write(root: &std::path::Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_command_is_sent_expanded_and_a_skill_is_listed_and_loaded() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    write(
        root,
        ".claude/commands/review.md",
        "---\ndescription: Review a file\nargument-hint: [file]\n---\nReview $0 for bugs.\n@notes.md",
    );
    write(root, "notes.md", "Focus on error handling.\n");
    write(
        root,
        ".claude/skills/house-style/SKILL.md",
        "---\nname: house-style\ndescription: The team's code style; use when writing Rust\n---\nPrefer small modules.",
    );
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    let opened = open_tools(store.clone(), root, People::default())
        .await
        .unwrap();
    let project_root = opened.manager.project().clone();
    let sink = Arc::new(RecordingSink::default());
    let chat = ProjectChat::open(
        1,
        opened.project.id,
        store,
        Arc::new(opened.manager),
        opened.checkpoints,
        sink.clone(),
    )
    .await
    .unwrap();

    // The completion list shows both, with their source.
    let listed = slash::project_commands(&project_root);
    let review = listed.iter().find(|c| c.name == "review").unwrap();
    assert_eq!(review.source, "claude-project");
    assert_eq!(review.kind, "command");
    assert_eq!(review.argument_hint.as_deref(), Some("[file]"));
    let skill = listed.iter().find(|c| c.name == "house-style").unwrap();
    assert_eq!(skill.kind, "skill");
    assert_eq!(skill.source, "skill-project");

    let prompt = slash::expand(&project_root, "review", "src/a.rs").unwrap();
    assert!(
        prompt.starts_with("Review src/a.rs for bugs.\n@notes.md"),
        "{prompt}"
    );
    assert!(prompt.contains("Contents of notes.md:\n```\nFocus on error handling.\n```"));

    let provider = ScriptedProvider::start(Script::new(vec![
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "skill",
            json!({"name": "house-style"}),
        )])
        .expect(
            Expect::new()
                .last_contains("Review src/a.rs for bugs.")
                .tool_offered("skill"),
        ),
        Turn::text("Reviewed.").expect(Expect::new().last_contains("Prefer small modules.")),
    ]))
    .await
    .unwrap();
    let config = ProviderConfig::new("scripted", provider.base_url(), "m", None, 32_000);
    let model = Provider::new(config, None, ProviderOptions::default()).unwrap();
    chat.send(&prompt, model).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !sink
        .named(ChatEvent::NAME)
        .iter()
        .any(|event| event["event"]["type"] == "turn_finished")
    {
        assert!(
            Instant::now() < deadline,
            "{:?}",
            sink.named(ChatEvent::NAME)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    provider.verify().unwrap();
    let requests = provider.requests();
    let first = requests
        .iter()
        .find(|request| request.is_chat_completion())
        .unwrap();
    let body = first.body.as_ref().unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains(
            "<skill><name>house-style</name><description>The team's code style; use when \
             writing Rust</description>"
        ),
        "{system}"
    );
    assert!(system.contains("<available_skills>"));
}

#[test]
fn every_source_expands_with_its_numbering_and_builtins_stay() {
    let base = tempfile::tempdir().unwrap();
    let base_path = std::fs::canonicalize(base.path()).unwrap();
    let (project, home) = (base_path.join("p"), base_path.join("h"));
    write(&project, ".gantry/commands/fix.md", "Fix it.");
    write(&project, ".gantry/commands/help.md", "not the built-in");
    write(
        &project,
        ".claude/commands/git/status.md",
        "Status: !`git status`",
    );
    write(
        &project,
        ".claude/commands/deploy.md",
        "the command, replaced",
    );
    write(
        &project,
        ".claude/skills/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploys\n---\nDeploy from ${CLAUDE_SKILL_DIR}.",
    );
    write(&home, ".codex/prompts/draft.md", "Draft $1 as $KIND ($$)");
    let root = ProjectRoot::new(&project).unwrap();
    let at = gantry_config::Locations::new(&project, Some(home));
    let names: Vec<(String, String)> = slash::commands_at(&at)
        .into_iter()
        .map(|c| (c.name, c.source))
        .collect();
    assert_eq!(
        names,
        [
            ("deploy".to_owned(), "skill-project".to_owned()),
            ("fix".into(), "gantry".into()),
            ("git:status".into(), "claude-project".into()),
            ("prompts:draft".into(), "codex-user".into()),
        ]
    );
    assert_eq!(
        slash::expand_at(&root, &at, "fix", "#12").unwrap(),
        "Fix it.\n\n#12"
    );
    assert_eq!(
        slash::expand_at(&root, &at, "prompts:draft", "memo KIND=email").unwrap(),
        "Draft memo as email ($)"
    );
    assert_eq!(
        slash::expand_at(&root, &at, "deploy", "prod").unwrap(),
        format!(
            "Deploy from {}.\n\nARGUMENTS: prod",
            project.join(".claude/skills/deploy").display()
        )
    );
    let refused = slash::expand_at(&root, &at, "git:status", "").unwrap_err();
    assert!(
        refused.message.contains("!`git status`"),
        "{}",
        refused.message
    );
    assert_eq!(
        slash::expand_at(&root, &at, "help", "").unwrap_err().kind,
        ErrorKind::NotFound
    );
}
