//! A command's `` !`cmd` `` and ```` ```! ```` blocks run before its prompt is sent, end to end:
//! through run_command as calls of the session (the approver decides; the audit log has them),
//! and a refused or failing command stops the expansion with nothing sent; a command's
//! `allowed-tools` for its turn only; the skill tool once a skill appears.

use gantry_agent::{ProviderConfig, ProviderOptions};
use gantry_scripted_provider::{Expect, Script, ScriptedProvider, Turn};
use gantry_store::AuditFilter;
use gantry_tools::{ApprovalDecision, FixedApprover, ObservationKind};

use super::*;
use crate::events::RecordingSink;
use crate::project::open::{People, open_tools};

fn write(root: &std::path::Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

struct Rig {
    chat: ProjectChat,
    store: Store,
    at: gantry_config::Locations,
    _dirs: Vec<tempfile::TempDir>,
}

async fn rig(approve: ApprovalDecision) -> Rig {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = project.path();
    write(
        root,
        ".claude/commands/hi.md",
        "Say: !`echo hi`\n```!\nprintf 'a\\nb\\n'\n```\nDone with $0.",
    );
    write(root, ".claude/commands/nope.md", "Then: !`exit 3`");
    write(
        root,
        ".claude/commands/grep.md",
        "Found: !`grep -c zzz hi.md`",
    );
    write(root, "hi.md", "nothing here\n");
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    let people = People {
        approver: Some(Arc::new(FixedApprover(approve))),
        prompter: None,
    };
    let opened = open_tools(store.clone(), root, people).await.unwrap();
    let chat = ProjectChat::open(
        1,
        opened.project.id,
        store.clone(),
        Arc::new(opened.manager),
        opened.checkpoints,
        Arc::new(RecordingSink::default()),
    )
    .await
    .unwrap();
    let at = gantry_config::Locations::new(root, Some(home.path().to_path_buf()));
    Rig {
        chat,
        store,
        at,
        _dirs: vec![project, home, data],
    }
}

fn model(provider: &gantry_scripted_provider::Handle) -> Provider {
    let config = ProviderConfig::new("scripted", provider.base_url(), "m", None, 32_000);
    Provider::new(config, None, ProviderOptions::default()).unwrap()
}

async fn run_command_audit(rig: &Rig) -> Vec<gantry_store::AuditEntry> {
    let filter = AuditFilter {
        tool: Some("run_command".into()),
        ..AuditFilter::default()
    };
    rig.store
        .audit()
        .list(rig.chat.store_project(), &filter)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_run_through_run_command_in_the_session_and_their_output_is_sent() {
    let rig = rig(ApprovalDecision::AllowOnce).await;
    rig.chat.tools.enable("run_command").unwrap();
    let provider = ScriptedProvider::start(Script::new(vec![
        Turn::text("Hello.").expect(Expect::new().last_contains("Say: hi\na\nb\nDone with x.")),
    ]))
    .await
    .unwrap();
    let model = model(&provider);
    let prompt = rig
        .chat
        .expand_command_at(rig.at.clone(), "hi", "x", &model)
        .await
        .unwrap();
    assert_eq!(prompt, "Say: hi\na\nb\nDone with x.");
    let session = rig.chat.current().expect("the expansion made the session");
    let audit = run_command_audit(&rig).await;
    assert_eq!(audit.len(), 2, "{audit:?}");
    for entry in &audit {
        assert_eq!(
            entry.session_id.map(|id| id.to_string()).as_deref(),
            session.id()
        );
        assert_eq!(entry.outcome, ObservationKind::Ok);
    }
    let commands: Vec<&str> = audit
        .iter()
        .filter_map(|entry| entry.arguments["command"].as_str())
        .collect();
    assert!(commands.contains(&"echo hi"), "{commands:?}");
    assert!(commands.contains(&"printf 'a\\nb\\n'"), "{commands:?}");

    // exit 1 of grep is an answer (no match); another non-zero exit stops the expansion.
    let found = rig
        .chat
        .expand_command_at(rig.at.clone(), "grep", "", &model)
        .await
        .unwrap();
    assert_eq!(found, "Found: 0");
    let failed = rig
        .chat
        .expand_command_at(rig.at.clone(), "nope", "", &model)
        .await
        .unwrap_err();
    assert!(
        failed.message.contains("!`exit 3` failed"),
        "{}",
        failed.message
    );
    assert!(failed.message.contains("[exit 3"), "{}", failed.message);
    assert!(failed.message.contains("nothing was sent"));

    let sent = rig.chat.send(&prompt, model).await.unwrap();
    assert_eq!(Some(sent.as_str()), session.id());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while rig.chat.is_running() || provider.requests().is_empty() {
        assert!(std::time::Instant::now() < deadline);
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    provider.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_or_disabled_command_stops_the_expansion_and_nothing_is_sent() {
    // run_command disabled (its default): the expansion stops at once.
    let rig = rig(ApprovalDecision::AllowOnce).await;
    let provider = ScriptedProvider::start(Script::new(vec![])).await.unwrap();
    let model = model(&provider);
    let disabled = rig
        .chat
        .expand_command_at(rig.at.clone(), "hi", "", &model)
        .await
        .unwrap_err();
    assert!(
        disabled.message.contains("!`echo hi`") && disabled.message.contains("nothing was sent"),
        "{}",
        disabled.message
    );

    // Enabled but the user says no: refused, recorded as denied, and the second command
    // never runs.
    let rig = rig_denying().await;
    let denied = rig
        .chat
        .expand_command_at(rig.at.clone(), "hi", "", &model)
        .await
        .unwrap_err();
    assert!(denied.message.contains("was refused"), "{}", denied.message);
    let audit = run_command_audit(&rig).await;
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(audit[0].outcome, ObservationKind::Denied);
    assert!(provider.requests().is_empty(), "nothing was sent");
}

async fn rig_denying() -> Rig {
    let rig = rig(ApprovalDecision::Deny { reason: None }).await;
    rig.chat.tools.enable("run_command").unwrap();
    rig
}

/// A project command with `allowed-tools: Bash(echo ok:*)`, trusted or not: its turn's
/// `echo ok` runs without asking when trusted, and the next turn asks again (the approver
/// denies every ask, so an asked call comes back denied).
async fn allowed_tools_turns(trust: bool) -> Vec<gantry_store::AuditEntry> {
    let rig = rig(ApprovalDecision::Deny { reason: None }).await;
    write(
        &rig.at.project,
        ".claude/commands/ok.md",
        "---\nallowed-tools: Bash(echo ok:*)\n---\nRun echo ok.",
    );
    if trust {
        let mut report = gantry_config::ConfigReport::default();
        let found = gantry_config::commands::discover(
            &rig.at,
            &gantry_config::TrustedFiles::none(),
            &[],
            &mut report,
        );
        let ok = found.iter().find(|c| c.name == "ok").unwrap();
        rig.store
            .mcp_trust()
            .approve(rig.chat.store_project(), &ok.source.path, &ok.sha256)
            .await
            .unwrap();
    }
    rig.chat.tools.enable("run_command").unwrap();
    let echo = |id: &str| {
        Turn::tool_calls(vec![gantry_scripted_provider::ToolCall::new(
            id,
            "run_command",
            serde_json::json!({"command": "echo ok"}),
        )])
    };
    let provider = ScriptedProvider::start(Script::new(vec![
        echo("call_1"),
        Turn::text("Ran it."),
        echo("call_2"),
        Turn::text("Asked."),
    ]))
    .await
    .unwrap();
    let model = model(&provider);
    let prompt = rig
        .chat
        .expand_command_at(rig.at.clone(), "ok", "", &model)
        .await
        .unwrap();
    assert_eq!(prompt, "Run echo ok.");
    for (text, turns) in [(prompt.as_str(), 2), ("again", 4)] {
        rig.chat.send(text, model.clone()).await.unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while provider.requests().len() < turns || rig.chat.is_running() {
            assert!(std::time::Instant::now() < deadline);
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
    provider.verify().unwrap();
    let mut audit = run_command_audit(&rig).await;
    audit.sort_by_key(|entry| entry.id);
    audit
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_commands_allowed_tools_spare_the_dialog_in_its_turn_only() {
    let audit = allowed_tools_turns(true).await;
    assert_eq!(audit.len(), 2, "{audit:?}");
    assert_eq!(audit[0].outcome, ObservationKind::Ok);
    assert_eq!(
        audit[0].decision.decided_by(),
        "claude-rule:command:.claude/commands/ok.md"
    );
    assert_eq!(audit[1].outcome, ObservationKind::Denied);
    assert_eq!(audit[1].decision.by, gantry_tools::Decider::User);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_commands_allowed_tools_do_nothing() {
    let audit = allowed_tools_turns(false).await;
    assert_eq!(audit.len(), 2, "{audit:?}");
    for entry in &audit {
        assert_eq!(entry.outcome, ObservationKind::Denied);
        assert_eq!(entry.decision.by, gantry_tools::Decider::User);
    }
}

/// The skill tool: not offered while the project has no skill, offered from the turn after one
/// appears.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_skill_tool_comes_with_the_first_skill_added_while_the_project_is_open() {
    let rig = rig(ApprovalDecision::Deny { reason: None }).await;
    assert!(rig.chat.tools.get("skill").is_none());
    let provider = ScriptedProvider::start(Script::new(vec![
        Turn::text("No skills.").expect(Expect::new().tool_not_offered("skill")),
        Turn::text("A skill.").expect(
            Expect::new()
                .tool_offered("skill")
                .any_contains("<name>late</name>"),
        ),
    ]))
    .await
    .unwrap();
    let model = model(&provider);
    for (text, requests) in [("first", 1), ("second", 2)] {
        if requests == 2 {
            write(
                &rig.at.project,
                ".claude/skills/late/SKILL.md",
                "---\nname: late\ndescription: Added later\n---\nDo it late.",
            );
        }
        rig.chat.send(text, model.clone()).await.unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while provider.requests().len() < requests || rig.chat.is_running() {
            assert!(std::time::Instant::now() < deadline);
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
    provider.verify().unwrap();
}
