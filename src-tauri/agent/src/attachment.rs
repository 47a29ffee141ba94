//! What a user message carries beyond its text: mentioned files and folders, and images.
//!
//! Attachments are built by the engine (which reads them through the project's confinement and
//! downscales images) and kept with the message in the transcript, so a restored session shows
//! them and a later request sends them again exactly as the model first saw them.
//!
//! On the wire, a user message with attachments becomes:
//! - its text, followed by each file's or folder's text in a fenced block that names it (files
//!   carry read_file's header and window, folders their listing);
//! - with images, Chat Completions' content parts: one `text` part, then one
//!   `{"type":"image_url","image_url":{"url":"data:<mime>;base64,<data>"}}` part per image.
//!   Without images the content stays a plain string, which every provider accepts.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Estimated tokens of one image in a request (a 2048-pixel image tiles to about this many at
/// OpenAI's high detail; other providers charge less).
pub const IMAGE_TOKENS: u32 = 1_100;

/// One thing attached to a user message.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Attachment {
    /// A file of the project, as its (windowed) content with read_file's header.
    File {
        /// Its path relative to the project root, `/`-separated.
        path: String,
        /// What the model reads.
        text: String,
    },
    /// A folder of the project, as its listing.
    Folder {
        /// Its path relative to the project root, `/`-separated (`.` for the root).
        path: String,
        /// What the model reads.
        text: String,
    },
    /// An image, already validated and downscaled.
    Image {
        /// The name it had (a file name, or `pasted image`).
        name: String,
        /// Its type: `image/png`, `image/jpeg`, `image/webp` or `image/gif`.
        mime: String,
        /// Its bytes, base64 (standard alphabet, padded).
        data: String,
        /// Its width in pixels.
        width: u32,
        /// Its height in pixels.
        height: u32,
    },
}

impl Attachment {
    /// True for an image.
    pub fn is_image(&self) -> bool {
        matches!(self, Self::Image { .. })
    }

    /// The text the model reads for a file or folder (`None` for an image).
    pub fn text_block(&self) -> Option<String> {
        match self {
            Self::File { path, text } => Some(format!(
                "<attached_file path=\"{path}\">\n{text}\n</attached_file>"
            )),
            Self::Folder { path, text } => Some(format!(
                "<attached_folder path=\"{path}\">\n{text}\n</attached_folder>"
            )),
            Self::Image { .. } => None,
        }
    }

    /// The `image_url` content part of an image (`None` for a file or folder).
    pub fn image_part(&self) -> Option<Value> {
        match self {
            Self::Image { mime, data, .. } => Some(json!({
                "type": "image_url",
                "image_url": {"url": format!("data:{mime};base64,{data}")},
            })),
            _ => None,
        }
    }
}

/// The text of a user message as sent: `text`, then every file's and folder's block.
pub fn message_text(text: &str, attachments: &[Attachment]) -> String {
    let blocks: Vec<String> = attachments
        .iter()
        .filter_map(Attachment::text_block)
        .collect();
    if blocks.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + blocks.iter().map(String::len).sum::<usize>());
    out.push_str(text);
    for block in blocks {
        out.push_str("\n\n");
        out.push_str(&block);
    }
    out
}

/// The `content` of a user message as sent: a string, or content parts when it has images.
pub fn user_content(text: &str, attachments: &[Attachment]) -> Value {
    let text = message_text(text, attachments);
    let images: Vec<Value> = attachments
        .iter()
        .filter_map(Attachment::image_part)
        .collect();
    if images.is_empty() {
        return Value::String(text);
    }
    let mut parts = vec![json!({"type": "text", "text": text})];
    parts.extend(images);
    Value::Array(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image() -> Attachment {
        Attachment::Image {
            name: "a.png".into(),
            mime: "image/png".into(),
            data: "AAAA".into(),
            width: 1,
            height: 1,
        }
    }

    #[test]
    fn text_only_messages_stay_a_string() {
        let file = Attachment::File {
            path: "src/a.rs".into(),
            text: "1\tfn a() {}".into(),
        };
        let content = user_content("look", &[file]);
        let text = content.as_str().unwrap();
        assert!(text.starts_with("look\n\n<attached_file path=\"src/a.rs\">\n1\tfn a() {}"));
        assert_eq!(user_content("plain", &[]), Value::String("plain".into()));
    }

    #[test]
    fn images_become_image_url_parts_after_the_text() {
        let folder = Attachment::Folder {
            path: "src".into(),
            text: "a.rs".into(),
        };
        let content = user_content("see", &[image(), folder]);
        assert_eq!(content[0]["type"], "text");
        assert!(
            content[0]["text"]
                .as_str()
                .unwrap()
                .contains("<attached_folder path=\"src\">")
        );
        assert_eq!(
            content[1],
            json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}})
        );
        assert_eq!(content.as_array().unwrap().len(), 2);
    }

    #[test]
    fn attachments_round_trip_through_json_with_a_kind_tag() {
        let value = serde_json::to_value(image()).unwrap();
        assert_eq!(value["kind"], "image");
        let back: Attachment = serde_json::from_value(value).unwrap();
        assert_eq!(back, image());
    }
}
