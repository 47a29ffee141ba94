//! The config module's unit tests: reading files safely, parsing the format, locating keys.

use std::path::PathBuf;
use std::time::Duration;

use gantry_tools::PermissionLevel;

use super::*;

fn user() -> ConfigOrigin {
    ConfigOrigin::User {
        path: PathBuf::from("/home/u/.config/gantry/mcp.json"),
    }
}

const SMALL: &str = r#"{"mcpServers": {"a": {"command": "x"}}}"#;

fn project(root: &std::path::Path) -> ConfigOrigin {
    ConfigOrigin::Project {
        path: root.join(PROJECT_FILE),
        root: root.to_path_buf(),
    }
}

fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

fn unreadable_reason(result: Result<Option<ConfigFile>, ConfigError>) -> String {
    match result {
        Err(ConfigError::Unreadable { reason, .. }) => reason,
        other => panic!("expected Unreadable, got {other:?}"),
    }
}

#[test]
fn config_files_must_be_regular_files() {
    let dir = tempfile::tempdir().unwrap();
    // A FIFO would block the read forever: refused without opening it.
    let fifo = dir.path().join("fifo.json");
    mkfifo(&fifo);
    let reason = unreadable_reason(read_config(ConfigOrigin::User { path: fifo }));
    assert!(reason.contains("not a regular file"), "{reason}");
    let reason = unreadable_reason(read_config(ConfigOrigin::User {
        path: dir.path().to_path_buf(),
    }));
    assert!(reason.contains("folder"), "{reason}");
    let device = dir.path().join("device.json");
    std::os::unix::fs::symlink("/dev/zero", &device).unwrap();
    let reason = unreadable_reason(read_config(ConfigOrigin::User { path: device }));
    assert!(reason.contains("device"), "{reason}");

    let project_dir = tempfile::tempdir().unwrap();
    mkfifo(&project_dir.path().join(PROJECT_FILE));
    let reason = unreadable_reason(read_config(project(project_dir.path())));
    assert!(reason.contains("not a regular file"), "{reason}");
}

#[test]
fn config_files_are_size_capped() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("mcp.json");
    let padding = " ".repeat(usize::try_from(MAX_CONFIG_BYTES).unwrap());
    std::fs::write(&big, format!("{SMALL}{padding}")).unwrap();
    let reason = unreadable_reason(read_config(ConfigOrigin::User { path: big.clone() }));
    assert_eq!(reason, "larger than 1024 KiB");
    let error = read_config(ConfigOrigin::User { path: big }).unwrap_err();
    assert!(
        error.to_string().contains("mcp.json: larger than 1024 KiB"),
        "{error}"
    );
    // Exactly at the limit is fine.
    let fits = dir.path().join("fits.json");
    let padding = " ".repeat(usize::try_from(MAX_CONFIG_BYTES).unwrap() - SMALL.len());
    std::fs::write(&fits, format!("{SMALL}{padding}")).unwrap();
    assert!(
        read_config(ConfigOrigin::User { path: fits })
            .unwrap()
            .is_some()
    );
}

#[test]
fn the_user_file_may_be_a_symlink_to_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("dotfiles-mcp.json");
    std::fs::write(&real, SMALL).unwrap();
    let link = dir.path().join("mcp.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let file = read_config(ConfigOrigin::User { path: link })
        .unwrap()
        .unwrap();
    assert_eq!(file.servers.len(), 1);
    let missing = dir.path().join("none.json");
    assert!(
        read_config(ConfigOrigin::User { path: missing })
            .unwrap()
            .is_none()
    );
}

#[test]
fn a_project_file_must_stay_inside_the_project() {
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = outside.path().join("secret.json");
    std::fs::write(&elsewhere, SMALL).unwrap();
    let root = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.path().join(PROJECT_FILE)).unwrap();
    let reason = unreadable_reason(read_config(project(root.path())));
    assert!(reason.contains("must stay inside the project"), "{reason}");

    // A symlink to a file inside the project is followed.
    let inside = tempfile::tempdir().unwrap();
    std::fs::create_dir(inside.path().join("config")).unwrap();
    std::fs::write(inside.path().join("config/mcp.json"), SMALL).unwrap();
    std::os::unix::fs::symlink("config/mcp.json", inside.path().join(PROJECT_FILE)).unwrap();
    let file = read_config(project(inside.path())).unwrap().unwrap();
    assert_eq!(file.servers.len(), 1);

    let empty = tempfile::tempdir().unwrap();
    assert!(read_config(project(empty.path())).unwrap().is_none());
}

#[test]
fn the_user_file_is_gantry_mcp_json_in_the_xdg_config_folder() {
    let expected_dir = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .unwrap();
    assert_eq!(
        user_config_path().unwrap(),
        expected_dir.join("gantry/mcp.json")
    );
}

#[test]
fn reads_the_ecosystem_format_with_gantry_overrides() {
    let text = r#"{
  "mcpServers": {
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/src"],
      "env": {"TOKEN": "${GITHUB_TOKEN}", "DEBUG": 1},
      "cwd": "tools",
      "level": "safe",
      "tools": {"write_file": {"level": "dangerous"}},
      "timeout": 90,
      "startupTimeout": 5.5,
      "autoApprove": ["x"]
    },
    "remote": {"type": "http", "url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}},
    "plain-url": {"url": "http://127.0.0.1:3001/mcp"},
    "old": {"type": "sse", "url": "http://127.0.0.1:3001/sse"},
    "off": {"command": "x", "disabled": true}
  }
}"#;
    let file = parse_config(text, user()).unwrap();
    let names: Vec<&str> = file.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["files", "remote", "plain-url", "old", "off"]);
    let files = &file.servers[0];
    assert_eq!(
        files.transport,
        TransportConfig::Stdio {
            command: "npx".into(),
            args: vec![
                "-y".into(),
                "@modelcontextprotocol/server-filesystem".into(),
                "${HOME}/src".into()
            ],
            env: [
                ("DEBUG".to_owned(), "1".to_owned()),
                ("TOKEN".to_owned(), "${GITHUB_TOKEN}".to_owned())
            ]
            .into(),
            cwd: Some("tools".into()),
        }
    );
    assert_eq!(files.level, Some(PermissionLevel::Safe));
    assert_eq!(
        files.tool_levels.get("write_file"),
        Some(&PermissionLevel::Dangerous)
    );
    assert_eq!(files.call_timeout, Some(Duration::from_secs(90)));
    assert_eq!(files.startup_timeout, Some(Duration::from_millis(5500)));
    assert!(matches!(
        &file.servers[1].transport,
        TransportConfig::Http { headers, .. } if headers["Authorization"] == "Bearer ${API_KEY}"
    ));
    assert_eq!(file.servers[2].transport.kind(), "http");
    assert_eq!(file.servers[3].transport.kind(), "sse");
    assert!(file.servers[4].disabled);
    assert_eq!(file.warnings.len(), 1);
    assert_eq!(
        file.warnings[0],
        "/home/u/.config/gantry/mcp.json:12: server 'files': unknown key 'autoApprove' ignored"
    );
    assert_eq!(file.sha256, sha256_hex(text.as_bytes()));
}

#[test]
fn a_wrong_type_names_the_file_the_line_and_the_key() {
    let text = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n    \"b\": {\n      \"command\": \"y\",\n      \"args\": \"--flag\"\n    }\n  }\n}\n";
    let error = parse_config(text, user()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "MCP config /home/u/.config/gantry/mcp.json:6: key 'mcpServers.b.args': expected an array of strings"
    );
}

#[test]
fn bad_levels_transports_and_json_are_explained() {
    let cases = [
        (
            r#"{"mcpServers": {"a": {"command": "x", "level": "harmless"}}}"#,
            "key 'mcpServers.a.level': unknown permission level 'harmless' (expected one of: safe, sensitive, dangerous)",
        ),
        (
            r#"{"mcpServers": {"a": {"type": "websocket", "url": "ws://x"}}}"#,
            "key 'mcpServers.a.type': unknown transport 'websocket'",
        ),
        (
            r#"{"mcpServers": {"a": {"args": []}}}"#,
            "key 'mcpServers.a': a server needs \"command\"",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "timeout": -1}}}"#,
            "key 'mcpServers.a.timeout': expected a number of seconds",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "env": {"K": ["v"]}}}}"#,
            "key 'mcpServers.a.env.K': expected a string",
        ),
        (
            r#"{"mcpServers": []}"#,
            "key 'mcpServers': expected an object",
        ),
    ];
    for (text, expected) in cases {
        let error = parse_config(text, user()).unwrap_err().to_string();
        assert!(error.contains(expected), "{text}\n{error}");
    }
    let error = parse_config("{\n  \"mcpServers\": {,\n}", user()).unwrap_err();
    assert!(
        matches!(&error, ConfigError::Syntax { line: 2, .. }),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .starts_with("MCP config /home/u/.config/gantry/mcp.json:2:"),
        "{error}"
    );
}

#[test]
fn unknown_top_level_keys_are_warnings_and_missing_servers_are_fine() {
    let file = parse_config(r#"{"globalShortcut": "x"}"#, user()).unwrap();
    assert!(file.servers.is_empty());
    assert_eq!(file.warnings.len(), 1);
    assert!(file.warnings[0].contains("unknown key 'globalShortcut' ignored"));
}

#[test]
fn keys_are_located_by_path_not_by_first_occurrence() {
    let text = "{\n\"x\": {\"args\": 1},\n\"mcpServers\": {\n \"s\": {\n  \"args\": 2\n }\n}\n}";
    assert_eq!(locate_key(text, &["mcpServers", "s", "args"]), Some(5));
    assert_eq!(locate_key(text, &["x", "args"]), Some(2));
    assert_eq!(locate_key(text, &["mcpServers", "nope"]), None);
}

#[test]
fn missing_files_are_not_errors() {
    let origin = ConfigOrigin::User {
        path: PathBuf::from("/definitely/not/here/mcp.json"),
    };
    assert_eq!(read_config(origin), Ok(None));
}
