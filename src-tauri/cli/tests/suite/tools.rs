//! `gantry-cli tools list | schema | call`.

use serde_json::Value;

use super::support::gantry;

#[test]
fn list_shows_every_tool_with_level_and_policy() {
    let dir = tempfile::tempdir().unwrap();
    let run = gantry(dir.path(), &["tools", "list"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let header = run.stdout.lines().next().unwrap();
    assert!(
        header.starts_with("NAME") && header.contains("LEVEL") && header.contains("POLICY"),
        "{header}"
    );
    let row = run
        .stdout
        .lines()
        .find(|l| l.starts_with("ask_user"))
        .expect("ask_user listed");
    assert!(row.contains("safe") && row.contains("auto"), "{row}");
}

#[test]
fn list_json_is_machine_readable() {
    let dir = tempfile::tempdir().unwrap();
    let run = gantry(dir.path(), &["tools", "list", "--json", "--root", "."], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tools: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    let ask = tools.iter().find(|t| t["name"] == "ask_user").unwrap();
    assert_eq!(ask["level"], "safe");
    assert_eq!(ask["policy"], "auto");
    assert_eq!(ask["source"]["kind"], "builtin");
}

#[test]
fn schema_prints_openai_function_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let run = gantry(
        dir.path(),
        &["tools", "schema", "--root", dir.path().to_str().unwrap()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let schemas: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    assert!(!schemas.is_empty());
    for schema in &schemas {
        assert_eq!(schema["type"], "function");
        let parameters = &schema["function"]["parameters"];
        assert_eq!(parameters["type"], "object");
        assert_eq!(parameters["additionalProperties"], false);
        assert!(parameters["required"].is_array());
    }
    let ask = schemas
        .iter()
        .find(|s| s["function"]["name"] == "ask_user")
        .unwrap();
    assert_eq!(
        ask["function"]["parameters"]["required"],
        serde_json::json!(["question"])
    );
}

#[test]
fn call_prints_the_observation_and_exits_zero_on_ok() {
    let dir = tempfile::tempdir().unwrap();
    let args = r#"{"question": "Colour?", "options": ["red", "blue"]}"#;
    let run = gantry(
        dir.path(),
        &["tools", "call", "ask_user", args, "--approve", "ask"],
        "2\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "user answered: blue\n");
    assert!(
        run.stderr.contains("The model asks: Colour?") && run.stderr.contains("2. blue"),
        "{}",
        run.stderr
    );
}

#[test]
fn without_a_terminal_nobody_answers() {
    let dir = tempfile::tempdir().unwrap();
    let run = gantry(
        dir.path(),
        &["tools", "call", "ask_user", r#"{"question": "?"}"#],
        "ignored\n",
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "[error] no user is available to answer\n");
}

#[test]
fn every_non_ok_observation_exits_one() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            vec!["tools", "call", "nope"],
            "[error] unknown tool 'nope'; available: ",
        ),
        (
            vec!["tools", "call", "ask_user", "{bad"],
            "[error] arguments are not valid JSON: ",
        ),
        (
            vec!["tools", "call", "ask_user", r#"{"question": 5}"#],
            "[error] invalid arguments for tool 'ask_user':",
        ),
    ];
    for (args, expected) in cases {
        let run = gantry(dir.path(), &args, "");
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(run.stdout.starts_with(expected), "{args:?}: {}", run.stdout);
    }
}

#[test]
fn usage_errors_exit_two() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [&[&str]; 4] = [
        &["tools", "call"],
        &["tools", "call", "ask_user", "--approve", "sometimes"],
        &["tools", "call", "ask_user", "--root", "/no/such/folder"],
        &["tools", "call", "ask_user", "--enable", "no_such_tool"],
    ];
    for args in cases {
        let run = gantry(dir.path(), args, "");
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(!run.stderr.is_empty());
    }
}
