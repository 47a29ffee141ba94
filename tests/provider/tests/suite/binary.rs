//! The `gantry-scripted-provider` binary, as end-to-end tests run it.

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use super::WAIT;

const BINARY: &str = env!("CARGO_BIN_EXE_gantry-scripted-provider");

/// Starts the binary and reads the base URL from its first stdout line.
async fn spawn(args: &[&str]) -> (Child, String) {
    let mut child = Command::new(BINARY)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let first = tokio::time::timeout(WAIT, lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .expect("the binary printed no base URL");
    (child, first)
}

#[tokio::test]
async fn serves_a_script_file_and_records_requests_as_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let record = dir.path().join("requests.jsonl");
    std::fs::write(
        &script,
        json!({
            "models": ["e2e-model"],
            "turns": [{"expect": {"last_contains": "ping"},
                       "reply": {"type": "completion", "events": [{"text": "pong"}]}}]
        })
        .to_string(),
    )
    .unwrap();
    let (mut child, base_url) = spawn(&[
        "--script",
        script.to_str().unwrap(),
        "--record",
        record.to_str().unwrap(),
    ])
    .await;
    assert!(
        base_url.starts_with("http://127.0.0.1:") && base_url.ends_with("/v1"),
        "{base_url}"
    );

    let client = reqwest::Client::new();
    let models = client
        .get(format!("{base_url}/models"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&models).unwrap()["data"][0]["id"],
        "e2e-model"
    );
    let body = json!({"model": "e2e-model", "stream": true,
                      "messages": [{"role": "user", "content": "ping"}]});
    let sse = client
        .post(format!("{base_url}/chat/completions"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(sse.contains("\"content\":\"pong\""));
    assert!(sse.ends_with("data: [DONE]\n\n"));

    // The recorder flushes each line as it goes; wait for both.
    let lines = tokio::time::timeout(WAIT, async {
        loop {
            let text = tokio::fs::read_to_string(&record).await.unwrap_or_default();
            if text.lines().count() >= 2 {
                return text;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap();
    let recorded: Vec<Value> = lines
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(recorded[0]["path"], "/v1/models");
    assert_eq!(recorded[1]["path"], "/v1/chat/completions");
    assert_eq!(recorded[1]["body"]["messages"][0]["content"], "ping");
    assert_eq!(recorded[1]["turn"], 0);

    child.start_kill().unwrap();
    child.wait().await.unwrap();
}

#[tokio::test]
async fn an_invalid_script_is_refused_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.json");
    std::fs::write(
        &script,
        r#"{"turns": [{"reply": {"type": "completion", "evnts": []}}]}"#,
    )
    .unwrap();
    let output = Command::new(BINARY)
        .args(["--script", script.to_str().unwrap()])
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("evnts"), "{stderr}");
    assert!(output.stdout.is_empty());
}
