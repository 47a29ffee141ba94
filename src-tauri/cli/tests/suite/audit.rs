//! `tools call` records its audit row; `audit` shows them newest first.

use gantry_store::{Store, Timestamp};
use serde_json::Value;

use super::support::{Sandbox, contains};

#[test]
fn every_call_is_audited_and_listed_newest_first() {
    let sandbox = Sandbox::new();
    let calls: [&[&str]; 3] = [
        &["tools", "call", "ask_user", r#"{"question": "Colour?"}"#],
        &["tools", "call", "nope", r#"{"x": 1}"#],
        &[
            "tools",
            "call",
            "ask_user",
            r#"{"question": "?"}"#,
            "--approve",
            "ask",
        ],
    ];
    let stdins = ["", "", "blue\n"];
    for (args, stdin) in calls.iter().zip(stdins) {
        sandbox.run(args, stdin);
    }

    let run = sandbox.run(&["audit", "--root", sandbox.root()], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", run.stdout);
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "ID",
            "TIME",
            "SESSION",
            "TOOL",
            "DECISION",
            "BY",
            "OUTCOME",
            "DURATION",
            "ARGUMENTS"
        ]
    );
    let row = |line: &str| {
        line.split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let newest = row(lines[1]);
    assert_eq!(newest[0], "3");
    assert!(newest[1].ends_with('Z'), "an RFC 3339 time: {}", newest[1]);
    assert_eq!(newest[2..7], ["-", "ask_user", "auto", "policy", "ok"]);
    assert!(newest[7].ends_with("ms"));
    assert_eq!(newest[8], r#"{"question":"?"}"#);
    assert_eq!(
        row(lines[2])[2..7],
        ["-", "nope", "not_evaluated", "engine", "error"]
    );
    assert_eq!(row(lines[3])[3..7], ["ask_user", "auto", "policy", "error"]);

    let run = sandbox.run(&["audit", "--tool", "ask_user", "--json"], "");
    let entries: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["id"], 3);
    assert_eq!(entries[0]["decision"]["kind"], "auto");
    assert_eq!(entries[0]["decision"]["by"], "policy");
    assert_eq!(entries[0]["outcome"], "ok");
    assert_eq!(entries[0]["resultExcerpt"], "user answered: blue");
    assert!(entries[0]["durationMs"].is_u64());
    assert_eq!(
        entries[1]["resultExcerpt"],
        "[error] no user is available to answer"
    );

    let run = sandbox.run(
        &["audit", "--outcome", "error", "--limit", "1", "--json"],
        "",
    );
    let entries: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["tool"], "nope");
    let run = sandbox.run(&["audit", "--decision", "sometimes"], "");
    assert_eq!(run.code, 2);
}

#[test]
fn the_session_filter_shows_one_conversation() {
    let sandbox = Sandbox::new();
    sandbox.run(&["tools", "call", "nope"], "");
    let session = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let store = Store::open(sandbox.database()).await.unwrap();
        let project = store
            .projects()
            .find(sandbox.project.path())
            .await
            .unwrap()
            .unwrap();
        let session = store
            .sessions()
            .create(project.id, "chat", None)
            .await
            .unwrap();
        let record = gantry_tools::AuditRecord {
            session_id: Some(session.id.to_string()),
            tool: "read_file".into(),
            level: Some(gantry_tools::PermissionLevel::Safe),
            arguments: serde_json::json!({"path": "a.rs"}),
            decision: gantry_tools::Decision::new(
                gantry_tools::DecisionKind::Auto,
                gantry_tools::Decider::Policy,
            ),
            outcome: gantry_tools::ObservationKind::Ok,
            duration: std::time::Duration::from_millis(7),
            result_excerpt: "1: fn main() {}".into(),
            started_at_ms: Timestamp::now().as_millis(),
        };
        store.audit().record(project.id, &record).await.unwrap();
        store.close().await;
        session.id
    });
    let run = sandbox.run(&["audit", "--session", &session.to_string()], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    let cells: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        cells[2..8],
        [
            &session.to_string()[..],
            "read_file",
            "auto",
            "policy",
            "ok",
            "7ms"
        ]
    );
}

#[test]
fn secrets_in_call_arguments_are_redacted_in_the_log() {
    let sandbox = Sandbox::new();
    let key = "sk-proj-CLIaudit0123456789abcdefghij";
    let arguments = format!(r#"{{"api_key": "{key}", "note": "Bearer {key}"}}"#);
    sandbox.run(&["tools", "call", "nope", &arguments], "");
    let run = sandbox.run(&["audit", "--json"], "");
    let entries: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        entries[0]["arguments"],
        serde_json::json!({"api_key": "[redacted]", "note": "Bearer [redacted]"})
    );
    assert!(!run.stdout.contains(key));
    assert!(!contains(&sandbox.database_bytes(), key));
}
