//! Checks a turn makes on the request that consumes it.
//!
//! A scripted conversation is only meaningful if the client sent what the test thinks it sent:
//! the tool result came back, the tools were offered, the user's words arrived. These checks
//! run on the parsed JSON body; each failure becomes one line naming what was expected and what
//! arrived, which the server answers with (a 500) and records.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How much of an offending value a mismatch message quotes.
const QUOTE_CHARS: usize = 200;

/// Checks on one chat-completion request; every field set must hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `model` equals this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `stream` is this (absent counts as `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// The last message's `role` equals this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_role: Option<String>,
    /// The last message's text content contains this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_contains: Option<String>,
    /// The last message's `tool_call_id` equals this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_tool_call_id: Option<String>,
    /// Some message's text content contains this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub any_contains: Option<String>,
    /// There are exactly this many messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_count: Option<usize>,
    /// Tools offered (`tools[].function.name`) include each of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools_include: Vec<String>,
    /// Tools offered include none of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools_exclude: Vec<String>,
    /// JSON pointers into the body (`/messages/0/role`) and the values found there.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pointers: BTreeMap<String, Value>,
    /// JSON pointers where the body has nothing (`/stream_options`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<String>,
}

impl Expect {
    /// No checks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether no check is set.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// Expects `model`.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Expects a streamed (or non-streamed) request.
    pub fn stream(mut self, stream: bool) -> Self {
        self.stream = Some(stream);
        self
    }

    /// Expects the last message's role.
    pub fn last_role(mut self, role: impl Into<String>) -> Self {
        self.last_role = Some(role.into());
        self
    }

    /// Expects the last message's text to contain `needle`.
    pub fn last_contains(mut self, needle: impl Into<String>) -> Self {
        self.last_contains = Some(needle.into());
        self
    }

    /// Expects the last message to be the result of tool call `id`.
    pub fn last_tool_call_id(mut self, id: impl Into<String>) -> Self {
        self.last_tool_call_id = Some(id.into());
        self
    }

    /// Expects some message's text to contain `needle`.
    pub fn any_contains(mut self, needle: impl Into<String>) -> Self {
        self.any_contains = Some(needle.into());
        self
    }

    /// Expects exactly `count` messages.
    pub fn message_count(mut self, count: usize) -> Self {
        self.message_count = Some(count);
        self
    }

    /// Expects the tool `name` to be offered.
    pub fn tool_offered(mut self, name: impl Into<String>) -> Self {
        self.tools_include.push(name.into());
        self
    }

    /// Expects the tool `name` not to be offered.
    pub fn tool_not_offered(mut self, name: impl Into<String>) -> Self {
        self.tools_exclude.push(name.into());
        self
    }

    /// Expects `value` at the JSON `pointer` of the body.
    pub fn pointer(mut self, pointer: impl Into<String>, value: Value) -> Self {
        self.pointers.insert(pointer.into(), value);
        self
    }

    /// Expects nothing at the JSON `pointer` of the body.
    pub fn absent(mut self, pointer: impl Into<String>) -> Self {
        self.absent.push(pointer.into());
        self
    }

    /// Runs every check on a request body; returns one line per failed check.
    pub fn check(&self, body: &Value) -> Vec<String> {
        let mut problems = Vec::new();
        let messages = body
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let last = messages.last();

        if let Some(model) = &self.model {
            let got = body.get("model").and_then(Value::as_str);
            if got != Some(model.as_str()) {
                problems.push(format!("model is {got:?}, expected {model:?}"));
            }
        }
        if let Some(stream) = self.stream {
            let got = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
            if got != stream {
                problems.push(format!("stream is {got}, expected {stream}"));
            }
        }
        if let Some(role) = &self.last_role {
            let got = last.and_then(|m| m.get("role")).and_then(Value::as_str);
            if got != Some(role.as_str()) {
                problems.push(format!("last message role is {got:?}, expected {role:?}"));
            }
        }
        if let Some(needle) = &self.last_contains {
            let text = last.map(message_text).unwrap_or_default();
            if !text.contains(needle.as_str()) {
                problems.push(format!(
                    "last message does not contain {needle:?} (it is {:?})",
                    quote(&text)
                ));
            }
        }
        if let Some(id) = &self.last_tool_call_id {
            let got = last
                .and_then(|m| m.get("tool_call_id"))
                .and_then(Value::as_str);
            if got != Some(id.as_str()) {
                problems.push(format!(
                    "last message tool_call_id is {got:?}, expected {id:?}"
                ));
            }
        }
        if let Some(needle) = &self.any_contains
            && !messages
                .iter()
                .any(|m| message_text(m).contains(needle.as_str()))
        {
            problems.push(format!(
                "no message contains {needle:?} ({} messages)",
                messages.len()
            ));
        }
        if let Some(count) = self.message_count
            && messages.len() != count
        {
            problems.push(format!(
                "there are {} messages, expected {count}",
                messages.len()
            ));
        }
        let offered = offered_tools(body);
        for name in &self.tools_include {
            if !offered.contains(name) {
                problems.push(format!("tool {name:?} not offered (offered: {offered:?})"));
            }
        }
        for name in &self.tools_exclude {
            if offered.contains(name) {
                problems.push(format!("tool {name:?} offered but should not be"));
            }
        }
        for (pointer, expected) in &self.pointers {
            let got = body.pointer(pointer);
            if got != Some(expected) {
                let got = got.map_or_else(|| "nothing".to_owned(), Value::to_string);
                problems.push(format!(
                    "{pointer} is {}, expected {}",
                    quote(&got),
                    quote(&expected.to_string())
                ));
            }
        }
        for pointer in &self.absent {
            if let Some(got) = body.pointer(pointer) {
                problems.push(format!(
                    "{pointer} is {}, expected nothing",
                    quote(&got.to_string())
                ));
            }
        }
        problems
    }
}

/// The text of a message: its `content` string, or its text parts joined.
pub fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// Names of the tools a request offers (function and custom tools).
pub fn offered_tools(body: &Value) -> Vec<String> {
    body.get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|tool| {
                    tool.pointer("/function/name")
                        .or_else(|| tool.pointer("/custom/name"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn quote(text: &str) -> String {
    if text.chars().count() <= QUOTE_CHARS {
        text.to_owned()
    } else {
        let head: String = text.chars().take(QUOTE_CHARS).collect();
        format!("{head}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body() -> Value {
        json!({
            "model": "m",
            "stream": true,
            "messages": [
                {"role": "system", "content": "You are helpful."},
                {"role": "user", "content": [{"type": "text", "text": "list "}, {"type": "text", "text": "files"}]},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "a.txt\nb.txt"}
            ],
            "tools": [{"type": "function", "function": {"name": "ls", "parameters": {}}}]
        })
    }

    #[test]
    fn matching_checks_report_nothing() {
        let expect = Expect::new()
            .model("m")
            .stream(true)
            .last_role("tool")
            .last_contains("b.txt")
            .last_tool_call_id("call_1")
            .any_contains("list files")
            .message_count(4)
            .tool_offered("ls")
            .tool_not_offered("rm")
            .pointer("/messages/0/role", json!("system"))
            .absent("/stream_options");
        assert_eq!(expect.check(&body()), Vec::<String>::new());
        let problems = Expect::new().absent("/stream").check(&body());
        assert_eq!(problems, ["/stream is true, expected nothing"]);
    }

    #[test]
    fn each_failed_check_is_named() {
        let expect = Expect::new()
            .model("other")
            .stream(false)
            .last_role("user")
            .last_contains("c.txt")
            .tool_offered("read_file")
            .tool_not_offered("ls")
            .pointer("/messages/9/role", json!("user"));
        let problems = expect.check(&body());
        assert_eq!(problems.len(), 7, "{problems:#?}");
        assert!(problems[2].contains(r#"last message role is Some("tool"), expected "user""#));
        assert!(problems[4].contains(r#"tool "read_file" not offered (offered: ["ls"])"#));
        assert!(problems[6].contains("/messages/9/role is nothing"));
    }

    #[test]
    fn a_body_without_messages_fails_message_checks_without_panicking() {
        let problems = Expect::new()
            .last_role("user")
            .check(&json!("not an object"));
        assert_eq!(problems, [r#"last message role is None, expected "user""#]);
    }
}
