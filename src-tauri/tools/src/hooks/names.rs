//! Claude Code's names for Gantry's tools and their arguments (spec §1.1 "Tool names" and
//! "`tool_input` shapes"), both ways: hooks see `Bash {command, timeout (ms)}`,
//! `Read {file_path (absolute), offset, limit}` and so on, and a rewritten input comes back in
//! those names. MCP tools are already called `mcp__<server>__<tool>`; a tool with no
//! counterpart keeps its name and arguments.

use std::path::Path;

use serde_json::{Map, Value, json};

/// Gantry's tool name → Claude Code's.
const NAMES: [(&str, &str); 10] = [
    ("run_command", "Bash"),
    ("read_file", "Read"),
    ("write_file", "Write"),
    ("edit_file", "Edit"),
    ("glob_search", "Glob"),
    ("grep_search", "Grep"),
    ("ask_user", "AskUserQuestion"),
    ("web_fetch", "WebFetch"),
    ("task", "Task"),
    ("todo_write", "TodoWrite"),
];

/// The name hooks match against (`Bash` for run_command).
pub fn hook_tool_name(tool: &str) -> &str {
    NAMES
        .iter()
        .find(|(gantry, _)| *gantry == tool)
        .map_or(tool, |(_, theirs)| theirs)
}

/// The arguments as `tool_input`, in Claude Code's field names, paths absolute.
pub fn hook_tool_input(tool: &str, arguments: &Value, root: &Path) -> Value {
    let Some(args) = arguments.as_object() else {
        return arguments.clone();
    };
    let get = |key: &str| args.get(key).cloned();
    let absolute = |key: &str| {
        args.get(key).and_then(Value::as_str).map(|path| {
            let path = if path == "." {
                root.to_path_buf()
            } else {
                root.join(path)
            };
            Value::String(path.to_string_lossy().into_owned())
        })
    };
    let mut input = Map::new();
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            input.insert(key.to_owned(), value);
        }
    };
    match tool {
        "run_command" => {
            put("command", get("command"));
            put(
                "timeout",
                args.get("timeout")
                    .and_then(Value::as_u64)
                    .map(|secs| json!(secs.saturating_mul(1000))),
            );
            put("workdir", get("workdir").filter(|dir| dir != "."));
        }
        "read_file" => {
            put("file_path", absolute("path"));
            put("offset", get("offset"));
            put("limit", get("limit"));
        }
        "write_file" => {
            put("file_path", absolute("path"));
            put("content", get("content"));
        }
        "edit_file" => {
            put("file_path", absolute("path"));
            put("old_string", get("old_string"));
            put("new_string", get("new_string"));
            put("replace_all", get("replace_all"));
        }
        "glob_search" => {
            put("pattern", get("pattern"));
            put("path", absolute("path"));
        }
        "grep_search" => {
            put("pattern", get("pattern"));
            put("path", absolute("path"));
            put("glob", get("include"));
            put("-i", get("case_insensitive"));
        }
        _ => return arguments.clone(),
    }
    Value::Object(input)
}

/// A rewritten `tool_input` back in Gantry's argument names (paths inside the project made
/// relative; a path outside stays absolute, and the confinement refuses it).
pub fn gantry_arguments(tool: &str, input: &Value, root: &Path) -> Value {
    let Some(input) = input.as_object() else {
        return input.clone();
    };
    let get = |key: &str| input.get(key).cloned();
    let relative = |key: &str| {
        input.get(key).and_then(Value::as_str).map(|path| {
            let path = Path::new(path);
            let inside = path.strip_prefix(root).unwrap_or(path);
            let shown = inside.to_string_lossy();
            Value::String(if shown.is_empty() {
                ".".into()
            } else {
                shown.into_owned()
            })
        })
    };
    let mut args = Map::new();
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            args.insert(key.to_owned(), value);
        }
    };
    match tool {
        "run_command" => {
            put("command", get("command"));
            put(
                "timeout",
                input
                    .get("timeout")
                    .and_then(Value::as_u64)
                    .map(|ms| json!(ms.div_ceil(1000).max(1))),
            );
            put("workdir", get("workdir"));
        }
        "read_file" => {
            put("path", relative("file_path"));
            put("offset", get("offset"));
            put("limit", get("limit"));
        }
        "write_file" => {
            put("path", relative("file_path"));
            put("content", get("content"));
        }
        "edit_file" => {
            put("path", relative("file_path"));
            put("old_string", get("old_string"));
            put("new_string", get("new_string"));
            put("replace_all", get("replace_all"));
        }
        "glob_search" => {
            put("pattern", get("pattern"));
            put("path", relative("path"));
        }
        "grep_search" => {
            put("pattern", get("pattern"));
            put("path", relative("path"));
            put("include", get("glob"));
            put("case_insensitive", get("-i"));
        }
        _ => return Value::Object(input.clone()),
    }
    Value::Object(args)
}

/// The input an `if` condition tests (`Bash(rm *)`, `Edit(*.ts)`): the command, the file
/// path, the pattern or the URL.
pub fn hook_subject(input: &Value) -> Option<&str> {
    ["command", "file_path", "pattern", "url"]
        .iter()
        .find_map(|key| input.get(*key).and_then(Value::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_inputs_map_both_ways() {
        let root = Path::new("/p");
        assert_eq!(hook_tool_name("run_command"), "Bash");
        assert_eq!(hook_tool_name("edit_file"), "Edit");
        assert_eq!(hook_tool_name("mcp__memory__read"), "mcp__memory__read");
        let bash = hook_tool_input(
            "run_command",
            &json!({"command": "ls", "workdir": ".", "timeout": 30}),
            root,
        );
        assert_eq!(bash, json!({"command": "ls", "timeout": 30_000}));
        assert_eq!(hook_subject(&bash), Some("ls"));
        assert_eq!(
            gantry_arguments(
                "run_command",
                &json!({"command": "ls -a", "timeout": 1500}),
                root
            ),
            json!({"command": "ls -a", "timeout": 2})
        );
        let edit = hook_tool_input(
            "edit_file",
            &json!({"path": "src/a.rs", "old_string": "a", "new_string": "b", "replace_all": false}),
            root,
        );
        assert_eq!(
            edit,
            json!({"file_path": "/p/src/a.rs", "old_string": "a", "new_string": "b", "replace_all": false})
        );
        assert_eq!(
            gantry_arguments("edit_file", &edit, root),
            json!({"path": "src/a.rs", "old_string": "a", "new_string": "b", "replace_all": false})
        );
        let read = hook_tool_input(
            "read_file",
            &json!({"path": "x", "offset": 1, "limit": 200}),
            root,
        );
        assert_eq!(read["file_path"], "/p/x");
        assert_eq!(
            gantry_arguments("read_file", &json!({"file_path": "/etc/passwd"}), root),
            json!({"path": "/etc/passwd"})
        );
        let grep = hook_tool_input(
            "grep_search",
            &json!({"pattern": "fn", "path": ".", "include": "*.rs", "case_insensitive": true}),
            root,
        );
        assert_eq!(
            grep,
            json!({"pattern": "fn", "path": "/p", "glob": "*.rs", "-i": true})
        );
        let mcp = json!({"anything": 1});
        assert_eq!(hook_tool_input("mcp__s__t", &mcp, root), mcp);
        assert_eq!(gantry_arguments("mcp__s__t", &mcp, root), mcp);
    }
}
