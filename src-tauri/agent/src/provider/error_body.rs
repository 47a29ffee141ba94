//! What an error response says, whatever shape the server gave it.
//!
//! Providers answer errors as `{"error": {"message", "code"}}`, `{"error": "text"}`,
//! `{"message": "text"}`, the same wrapped in an array (Gemini), a validation report
//! (`{"detail": [{"loc", "msg"}]}`, Mistral and FastAPI), a proxy's HTML page, or plain text.
//! Each becomes one short message (and the code, when there is one) the user can act on.

use gantry_tools::text::excerpt;
use serde_json::Value;

/// The message and code of an error body in any of the shapes servers use:
/// `{"error": {"message", "code"}}`, `{"error": "text"}`, `{"message": "text"}`, those wrapped in
/// an array (Gemini), a message that is itself a validation report (Mistral's and FastAPI's
/// `{"detail": [{"loc", "msg"}]}`), an HTML page (a proxy's: its title, or first line of text),
/// or plain text.
pub(super) fn error_message(body: &str, status: reqwest::StatusCode) -> (String, Option<String>) {
    let fallback = || {
        let trimmed = body.trim();
        if trimmed.is_empty() {
            status.canonical_reason().unwrap_or("no message").to_owned()
        } else if looks_like_html(trimmed) {
            html_summary(trimmed).unwrap_or_else(|| {
                status
                    .canonical_reason()
                    .unwrap_or("an HTML page")
                    .to_owned()
            })
        } else {
            excerpt(trimmed, 1_000)
        }
    };
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return (fallback(), None);
    };
    let value = match value {
        Value::Array(mut items) if !items.is_empty() => items.swap_remove(0),
        other => other,
    };
    let error = value.get("error").unwrap_or(&value);
    let message = error_value_message(error);
    let code = error.get("code").and_then(|code| match code {
        Value::String(code) => Some(code.clone()),
        Value::Number(code) => Some(code.to_string()),
        _ => None,
    });
    if message.is_empty() {
        (fallback(), code)
    } else {
        (excerpt(&message, 1_000), code)
    }
}

/// The words of an error value, or the value itself as JSON when it has none.
pub(super) fn error_value_message(error: &Value) -> String {
    message_text(error).unwrap_or_else(|| error.to_string())
}

/// The words of an error value: a string, an object's `message`, `detail`, `msg` (with its
/// `loc`) or `error`, or the items of a list joined.
fn message_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(message_text).collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        Value::Object(object) => {
            if let Some(msg) = object.get("msg").and_then(Value::as_str) {
                let location: Vec<String> = object
                    .get("loc")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|part| match part {
                        Value::String(part) => part.clone(),
                        other => other.to_string(),
                    })
                    .collect();
                return Some(if location.is_empty() {
                    msg.to_owned()
                } else {
                    format!("{}: {msg}", location.join("."))
                });
            }
            ["message", "detail", "error"]
                .iter()
                .find_map(|key| object.get(*key).and_then(message_text))
        }
        _ => None,
    }
}

fn looks_like_html(text: &str) -> bool {
    let start: String = text
        .chars()
        .take(200)
        .collect::<String>()
        .to_ascii_lowercase();
    start.starts_with('<')
        && (start.contains("<html")
            || start.contains("<!doctype")
            || start.contains("<head")
            || start.contains("<title")
            || start.contains("<body"))
}

/// An HTML page's `<title>`, else its first line of text.
fn html_summary(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    if let Some(start) = lower.find("<title") {
        let open_end = lower[start..].find('>').map(|offset| start + offset + 1)?;
        if let Some(close) = lower[open_end..].find("</title") {
            let title = collapse(&html[open_end..open_end + close]);
            if !title.is_empty() {
                return Some(excerpt(&title, 200));
            }
        }
    }
    let mut text = String::new();
    let mut in_tag = false;
    let mut skipping = false;
    for (index, ch) in html.char_indices() {
        match ch {
            '<' => {
                in_tag = true;
                let rest = &lower[index..];
                if rest.starts_with("<script") || rest.starts_with("<style") {
                    skipping = true;
                } else if rest.starts_with("</script") || rest.starts_with("</style") {
                    skipping = false;
                }
            }
            '>' if in_tag => {
                in_tag = false;
                text.push('\n');
            }
            _ if !in_tag && !skipping => text.push(ch),
            _ => {}
        }
    }
    text.lines()
        .map(collapse)
        .find(|line| !line.is_empty())
        .map(|line| excerpt(&line, 200))
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
