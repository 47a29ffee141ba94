//! A server's `tools/call` result as the text the model reads.
//!
//! Models read text, so each content block becomes text: text as is, an embedded text resource
//! as its text, an image or audio clip as a one-line placeholder with its type and size (the
//! bytes would only burn context), a resource link as its URI. A result with no text but
//! structured content shows that JSON. `isError: true` makes the observation an error. The whole
//! text is cut like run_command's output (head and tail kept).

use gantry_tools::ToolOutput;
use gantry_tools::text::truncate_middle;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

/// How much result text the model sees: the same bound as run_command.
pub const MAX_RESULT_CHARS: usize = 10_000;

/// Prefixes that already classify an error text.
const ALREADY_MARKED: &[&str] = &["[error]", "[denied]", "[disabled]", "[cancelled]"];

/// The observation text of a result.
pub fn result_to_output(result: &CallToolResult) -> ToolOutput {
    let parts: Vec<String> = result.content.iter().filter_map(block_text).collect();
    let mut text = parts.join("\n");
    if text.is_empty()
        && let Some(structured) = &result.structured_content
    {
        text = serde_json::to_string_pretty(structured).unwrap_or_else(|_| structured.to_string());
    }
    let (text, truncated) = truncate_middle(&text, MAX_RESULT_CHARS);
    let output = if result.is_error == Some(true) {
        ToolOutput::error(if text.is_empty() {
            "[error] the tool reported an error without a message".to_owned()
        } else if ALREADY_MARKED.iter().any(|mark| text.starts_with(mark)) {
            // Another Gantry (or a server following the same convention) already said what it is.
            text
        } else {
            format!("[error] {text}")
        })
    } else {
        ToolOutput::text(text)
    };
    output.with_truncated(truncated)
}

pub(crate) fn block_text(block: &ContentBlock) -> Option<String> {
    match block {
        ContentBlock::Text(text) => Some(text.text.clone()),
        ContentBlock::Image(image) => Some(format!(
            "[image: {}, {} bytes]",
            image.mime_type,
            base64_len(&image.data)
        )),
        ContentBlock::Audio(audio) => Some(format!(
            "[audio: {}, {} bytes]",
            audio.mime_type,
            base64_len(&audio.data)
        )),
        ContentBlock::Resource(embedded) => Some(match &embedded.resource {
            ResourceContents::TextResourceContents { text, .. } => text.clone(),
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "[resource: {uri}, {}, {} bytes]",
                mime_type.as_deref().unwrap_or("application/octet-stream"),
                base64_len(blob)
            ),
            #[allow(unreachable_patterns)]
            _ => "[resource of an unsupported kind]".to_owned(),
        }),
        ContentBlock::ResourceLink(link) => Some(format!("[resource: {}]", link.uri)),
        // The content union is non-exhaustive; a future kind still tells the model it was there.
        #[allow(unreachable_patterns)]
        _ => Some("[content of an unsupported kind]".to_owned()),
    }
}

/// The decoded size of base64 text, without decoding it.
fn base64_len(data: &str) -> usize {
    let clean = data.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    let padding = data
        .trim_end()
        .bytes()
        .rev()
        .take_while(|b| *b == b'=')
        .count();
    (clean / 4 * 3 + (clean % 4).saturating_sub(1)).saturating_sub(padding.min(2))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_kind_of_content_becomes_text() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "demo://1", "mimeType": "text/plain", "text": "inside"}},
                {"type": "resource_link", "uri": "demo://2", "name": "two"},
                {"type": "audio", "data": "AAAAAA==", "mimeType": "audio/wav"}
            ]
        }))
        .unwrap();
        let output = result_to_output(&result);
        assert_eq!(
            output.text,
            "hello\n[image: image/png, 3 bytes]\ninside\n[resource: demo://2]\n[audio: audio/wav, 4 bytes]"
        );
        assert!(!output.is_error && !output.truncated);
    }

    #[test]
    fn structured_content_shows_when_there_is_no_text() {
        let result = CallToolResult::structured(json!({"t": 1}));
        let mut result = result;
        result.content.clear();
        assert_eq!(result_to_output(&result).text, "{\n  \"t\": 1\n}");
    }

    #[test]
    fn errors_and_long_results() {
        let error = CallToolResult::error(vec![ContentBlock::text("bad input")]);
        let output = result_to_output(&error);
        assert!(output.is_error);
        assert_eq!(output.text, "[error] bad input");
        let long = CallToolResult::success(vec![ContentBlock::text("x".repeat(25_000))]);
        let output = result_to_output(&long);
        assert!(output.truncated);
        assert!(output.text.chars().count() < 10_100);
        assert!(output.text.contains("characters cut"));
    }

    #[test]
    fn base64_sizes() {
        assert_eq!(base64_len(""), 0);
        assert_eq!(base64_len("AA=="), 1);
        assert_eq!(base64_len("AAA="), 2);
        assert_eq!(base64_len("AAAA"), 3);
    }
}
