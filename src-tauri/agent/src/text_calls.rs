//! Tool calls a model writes as text.
//!
//! Small local models (Qwen, Hermes, Llama) often put a tool call in the content instead of
//! `tool_calls`, in one of a few shapes:
//!
//! - `<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>` (Hermes, Qwen 2.5);
//! - `<function=read_file>{"path": "a"}</function>` (Llama 3.1), or with
//!   `<parameter=path>a</parameter>` inside (Qwen3-Coder, often itself inside `<tool_call>`);
//! - the whole reply being one JSON object `{"name": …, "arguments"|"parameters": {…}}` (or a
//!   list of them), possibly in a code fence (Llama 3.x).
//!
//! [`TextCallFilter`] sits on the streamed text of a turn that offered tools: text that cannot be
//! a call passes at once; text that may start one is held until it is clearly a call (it then
//! becomes a [`ToolCall`] and never reaches the answer) or clearly not (it is released as text).
//! Only calls naming an offered tool count, so a model quoting markup about something else is
//! shown as written. A reply whose first visible character is `{` or a code fence is held to its
//! end, since only the whole reply can be a bare call.

use serde_json::{Map, Value};

use crate::transcript::ToolCall;

const TOOL_CALL_OPEN: &str = "<tool_call>";
const TOOL_CALL_CLOSE: &str = "</tool_call>";
const FUNCTION_OPEN: &str = "<function=";
const FUNCTION_CLOSE: &str = "</function>";
const MARKERS: [&str; 2] = [TOOL_CALL_OPEN, FUNCTION_OPEN];

/// Separates tool calls written as text from the answer, as the text streams in.
#[derive(Debug, Clone)]
pub struct TextCallFilter {
    tools: Vec<String>,
    /// Text received and not yet released or turned into calls.
    pending: String,
    /// Whether visible text was released (then the reply can no longer be a bare JSON call).
    released_text: bool,
    calls: Vec<ToolCall>,
}

impl TextCallFilter {
    /// A filter recognising calls to `tools` (the names the turn offered).
    pub fn new(tools: Vec<String>) -> Self {
        Self {
            tools,
            pending: String::new(),
            released_text: false,
            calls: Vec::new(),
        }
    }

    /// Adds streamed text; returns the text that is certainly not part of a call.
    pub fn push(&mut self, text: &str) -> String {
        self.pending.push_str(text);
        self.drain(false)
    }

    /// The stream ended: returns the rest of the text that is not a call.
    pub fn end(&mut self) -> String {
        self.drain(true)
    }

    /// What is held back now (for a reply cut short: kept as text).
    pub fn held(&self) -> &str {
        &self.pending
    }

    /// The calls recognised so far, in order.
    pub fn take_calls(&mut self) -> Vec<ToolCall> {
        std::mem::take(&mut self.calls)
    }

    fn drain(&mut self, at_end: bool) -> String {
        let mut out = String::new();
        loop {
            if !self.released_text && out.trim().is_empty() && may_be_bare_json(&self.pending) {
                if !at_end {
                    return out;
                }
                let bare = std::mem::take(&mut self.pending);
                match self.bare_calls(&bare) {
                    Some(calls) => self.calls.extend(calls),
                    None => out.push_str(&bare),
                }
                return out;
            }
            let Some(start) = first_marker(&self.pending) else {
                // Keep a tail that may be the start of a marker (`<tool_c`).
                let keep = if at_end {
                    0
                } else {
                    partial_marker_len(&self.pending)
                };
                let cut = self.pending.len() - keep;
                out.extend(self.pending.drain(..cut));
                break;
            };
            out.extend(self.pending.drain(..start));
            match self.block_end() {
                Some(end) => {
                    let block: String = self.pending.drain(..end).collect();
                    match self.block_calls(&block) {
                        Some(calls) => self.calls.extend(calls),
                        None => out.push_str(&block),
                    }
                }
                None if at_end => {
                    // An unclosed block at the end (models often stop before the closing tag).
                    let block = std::mem::take(&mut self.pending);
                    match self.block_calls(&block) {
                        Some(calls) => self.calls.extend(calls),
                        None => out.push_str(&block),
                    }
                    break;
                }
                None => break,
            }
        }
        if !out.trim().is_empty() {
            self.released_text = true;
        }
        out
    }

    /// The end (exclusive) of the block starting `pending`, once its closing tag arrived.
    fn block_end(&self) -> Option<usize> {
        let close = if self.pending.starts_with(TOOL_CALL_OPEN) {
            TOOL_CALL_CLOSE
        } else {
            FUNCTION_CLOSE
        };
        self.pending
            .find(close)
            .map(|position| position + close.len())
    }

    fn offered(&self, name: &str) -> bool {
        self.tools.iter().any(|tool| tool == name)
    }

    /// The calls in one `<tool_call>` or `<function=…>` block; `None` when it is not a call
    /// to an offered tool.
    fn block_calls(&self, block: &str) -> Option<Vec<ToolCall>> {
        let inner = match block.strip_prefix(TOOL_CALL_OPEN) {
            Some(rest) => rest.strip_suffix(TOOL_CALL_CLOSE).unwrap_or(rest).trim(),
            None => block.trim(),
        };
        let call = if inner.starts_with(FUNCTION_OPEN) {
            self.function_call(inner)?
        } else {
            self.json_call(&serde_json::from_str::<Value>(strip_fence(inner)).ok()?)?
        };
        Some(vec![call])
    }

    /// `<function=NAME>{json}</function>` or with `<parameter=K>V</parameter>` inside.
    fn function_call(&self, text: &str) -> Option<ToolCall> {
        let rest = text.strip_prefix(FUNCTION_OPEN)?;
        let name_end = rest.find('>')?;
        let name = rest[..name_end].trim();
        if !self.offered(name) {
            return None;
        }
        let body = &rest[name_end + 1..];
        let body = body.strip_suffix(FUNCTION_CLOSE).unwrap_or(body).trim();
        let arguments = if body.is_empty() {
            Value::Object(Map::new())
        } else if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(body) {
            value
        } else {
            Value::Object(parameters(body)?)
        };
        Some(ToolCall::new("", name, arguments.to_string()))
    }

    /// `{"name": …, "arguments"|"parameters": {…} or "…"}`.
    fn json_call(&self, value: &Value) -> Option<ToolCall> {
        let object = value.as_object()?;
        let name = object.get("name")?.as_str()?;
        if !self.offered(name) {
            return None;
        }
        let arguments = match object.get("arguments").or_else(|| object.get("parameters")) {
            None | Some(Value::Null) => "{}".to_owned(),
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
        };
        Some(ToolCall::new("", name, arguments))
    }

    /// A whole reply that is one call, or a list of calls, as JSON.
    fn bare_calls(&self, text: &str) -> Option<Vec<ToolCall>> {
        let value: Value = serde_json::from_str(strip_fence(text.trim())).ok()?;
        match &value {
            Value::Array(items) if !items.is_empty() => {
                items.iter().map(|item| self.json_call(item)).collect()
            }
            _ => self.json_call(&value).map(|call| vec![call]),
        }
    }
}

/// Whether `text` (the reply so far, nothing released yet) may still turn out to be a bare JSON
/// call: it starts with `{`, `[{`, or a code fence that is (or may become) a `json` or plain
/// fence around one. Other fences (a reply opening with Rust code) stream at once.
fn may_be_bare_json(text: &str) -> bool {
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return false;
    }
    if trimmed.starts_with('{') || trimmed.starts_with("[{") || trimmed == "[" {
        return true;
    }
    if "```".starts_with(trimmed) {
        return true;
    }
    let Some(after) = trimmed.strip_prefix("```") else {
        return false;
    };
    match after.split_once('\n') {
        None => "json".starts_with(&after.to_ascii_lowercase()),
        Some((language, body)) => {
            let language = language.trim().to_ascii_lowercase();
            let body = body.trim_start();
            (language.is_empty() || language == "json")
                && (body.is_empty() || body.starts_with('{') || body.starts_with('['))
        }
    }
}

/// The first complete marker's position.
fn first_marker(text: &str) -> Option<usize> {
    MARKERS.iter().filter_map(|marker| text.find(marker)).min()
}

/// How many bytes at the end of `text` could begin a marker.
fn partial_marker_len(text: &str) -> usize {
    MARKERS
        .iter()
        .flat_map(|marker| {
            (1..marker.len())
                .rev()
                .filter(move |len| text.ends_with(&marker[..*len]))
        })
        .max()
        .unwrap_or(0)
}

/// The text inside a ``` fence (with or without a language), or the text itself.
fn strip_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let body = rest.find('\n').map_or(rest, |newline| &rest[newline + 1..]);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

/// `<parameter=K>V</parameter>` pairs; values that read as JSON (numbers, booleans, objects)
/// are kept as such, others as text.
fn parameters(body: &str) -> Option<Map<String, Value>> {
    let mut arguments = Map::new();
    let mut rest = body;
    while let Some(start) = rest.find("<parameter=") {
        let after = &rest[start + "<parameter=".len()..];
        let key_end = after.find('>')?;
        let key = after[..key_end].trim().to_owned();
        let value_start = &after[key_end + 1..];
        let value_end = value_start.find("</parameter>")?;
        let raw = value_start[..value_end]
            .strip_prefix('\n')
            .unwrap_or(&value_start[..value_end]);
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        let value = match serde_json::from_str::<Value>(raw.trim()) {
            Ok(
                value @ (Value::Number(_) | Value::Bool(_) | Value::Object(_) | Value::Array(_)),
            ) => value,
            _ => Value::String(raw.to_owned()),
        };
        arguments.insert(key, value);
        rest = &value_start[value_end + "</parameter>".len()..];
    }
    (!arguments.is_empty()).then_some(arguments)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn filter() -> TextCallFilter {
        TextCallFilter::new(vec!["read_file".into(), "grep_search".into()])
    }

    /// Streams `text` in pieces of `size` characters; returns the visible text and the calls.
    fn stream(text: &str, size: usize) -> (String, Vec<ToolCall>) {
        let mut filter = filter();
        let chars: Vec<char> = text.chars().collect();
        let mut shown = String::new();
        for piece in chars.chunks(size) {
            shown.push_str(&filter.push(&piece.iter().collect::<String>()));
        }
        shown.push_str(&filter.end());
        (shown, filter.take_calls())
    }

    fn args(call: &ToolCall) -> Value {
        serde_json::from_str(&call.arguments).unwrap()
    }

    #[test]
    fn hermes_tool_call_blocks_become_calls_at_any_chunking() {
        let text = "Let me look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n</tool_call>\n<tool_call>{\"name\": \"grep_search\", \"arguments\": \"{\\\"pattern\\\": \\\"x\\\"}\"}</tool_call>";
        for size in [1, 3, 7, 1000] {
            let (shown, calls) = stream(text, size);
            assert_eq!(shown.trim(), "Let me look.", "size {size}");
            assert_eq!(calls.len(), 2, "size {size}");
            assert_eq!(calls[0].name, "read_file");
            assert_eq!(args(&calls[0]), json!({"path": "a.txt"}));
            assert_eq!(args(&calls[1]), json!({"pattern": "x"}));
        }
    }

    #[test]
    fn function_tags_with_json_or_parameters_become_calls() {
        let (shown, calls) = stream(
            r#"<function=read_file>{"path": "src/main.rs"}</function>"#,
            4,
        );
        assert_eq!(shown, "");
        assert_eq!(args(&calls[0]), json!({"path": "src/main.rs"}));

        let qwen = "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/lib.rs\n</parameter>\n<parameter=offset>\n10\n</parameter>\n</function>\n</tool_call>";
        let (shown, calls) = stream(qwen, 5);
        assert_eq!(shown.trim(), "");
        assert_eq!(args(&calls[0]), json!({"path": "src/lib.rs", "offset": 10}));
    }

    #[test]
    fn a_whole_reply_that_is_a_json_call_becomes_calls() {
        let (shown, calls) = stream(r#"{"name": "read_file", "parameters": {"path": "a"}}"#, 6);
        assert_eq!(shown, "");
        assert_eq!(args(&calls[0]), json!({"path": "a"}));
        let fenced = "```json\n[{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}, {\"name\": \"grep_search\", \"arguments\": {}}]\n```";
        let (shown, calls) = stream(fenced, 2);
        assert_eq!(shown, "");
        assert_eq!(calls.len(), 2);
    }

    #[test]
    fn text_that_is_no_call_is_shown_as_written() {
        let cases = [
            "Plain answer with a < sign and <b>tags</b>.",
            "{\"name\": \"unknown_tool\", \"arguments\": {}}",
            "{ not json at all }",
            "Use <tool_call>{\"name\": \"delete_everything\"}</tool_call> never.",
            "```rust\nfn main() {}\n```",
            "```json\n{\"config\": true}\n```",
            "ends with <tool_c",
        ];
        for text in cases {
            for size in [1, 4, 1000] {
                let (shown, calls) = stream(text, size);
                assert_eq!(shown, text, "size {size}");
                assert!(calls.is_empty(), "{text}");
            }
        }
    }

    #[test]
    fn text_before_a_bare_object_rules_out_a_bare_call() {
        let mut filter = filter();
        assert_eq!(filter.push("Here: "), "Here: ");
        let shown = filter.push(r#"{"name": "read_file", "arguments": {}}"#);
        assert_eq!(shown, r#"{"name": "read_file", "arguments": {}}"#);
        assert_eq!(filter.end(), "");
        assert!(filter.take_calls().is_empty());
    }

    #[test]
    fn an_unclosed_block_at_the_end_still_counts() {
        let (shown, calls) = stream(
            "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}",
            3,
        );
        assert_eq!(shown, "");
        assert_eq!(calls.len(), 1);
    }
}

#[cfg(test)]
mod streaming {
    use super::*;

    #[test]
    fn a_reply_opening_with_code_streams_at_once() {
        let mut filter = TextCallFilter::new(vec!["read_file".into()]);
        assert_eq!(filter.push("``"), "");
        assert_eq!(filter.push("`rust\nfn"), "```rust\nfn");
        let mut json = TextCallFilter::new(vec!["read_file".into()]);
        assert_eq!(json.push("```json\n{\"na"), "", "may be a call: held");
    }
}
