//! A server's resources and prompts: listing them, reading a resource, rendering a prompt.
//!
//! Resources are context the user attaches to a message (a document, a database schema, an
//! image); prompts are message templates the user picks. Both are read on the user's request, not
//! the model's, so they go around the tool gate. What comes back is reduced to what a chat can
//! hold: a resource's text, or an image (base64 with its MIME type) when it is one; a prompt's
//! messages as role and text (images and embedded resources as they would read in a tool result).

use rmcp::RoleClient;
use rmcp::model::{
    ContentBlock, GetPromptRequestParams, ReadResourceRequestParams, ResourceContents, Role,
};
use rmcp::service::Peer;
use serde::{Deserialize, Serialize};

use crate::status::{McpPromptArgument, McpPromptInfo, McpResourceInfo, McpResourceTemplateInfo};

/// The largest resource text handed to the chat (characters); longer text is cut.
pub const MAX_RESOURCE_CHARS: usize = 200_000;
/// The largest image handed to the chat (decoded bytes).
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

/// One part of a read resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ResourcePart {
    /// Text (a text resource, or a blob whose MIME type is textual, decoded).
    Text {
        /// The part's URI.
        uri: String,
        /// Its MIME type, when known.
        mime_type: Option<String>,
        /// The text (cut at [`MAX_RESOURCE_CHARS`]).
        text: String,
        /// Whether it was cut.
        truncated: bool,
    },
    /// An image (`image/*`), base64 as the server sent it.
    Image {
        /// The part's URI.
        uri: String,
        /// Its MIME type.
        mime_type: String,
        /// The base64 data.
        data: String,
    },
    /// Binary content that is neither text nor an image: named, not included.
    Binary {
        /// The part's URI.
        uri: String,
        /// Its MIME type, when known.
        mime_type: Option<String>,
        /// Its decoded size.
        bytes: usize,
    },
}

/// A message of a rendered prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptMessageView {
    /// `user` or `assistant`.
    pub role: String,
    /// The content as text.
    pub text: String,
}

/// A rendered prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderedPrompt {
    /// The server's description of the result, when given.
    pub description: Option<String>,
    /// The messages to insert into the conversation, in order.
    pub messages: Vec<PromptMessageView>,
}

/// Why a resource or prompt could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// No such server.
    #[error("no MCP server named '{0}' is configured")]
    UnknownServer(String),
    /// The server is not connected.
    #[error("MCP server '{server}' is not running: {reason}")]
    NotRunning {
        /// The server.
        server: String,
        /// Why.
        reason: String,
    },
    /// The server does not offer that.
    #[error("MCP server '{server}' {what}")]
    Unsupported {
        /// The server.
        server: String,
        /// What it lacks ("lists no resources").
        what: String,
    },
    /// The server answered with an error.
    #[error("MCP server '{server}' could not {action}: {reason}")]
    Failed {
        /// The server.
        server: String,
        /// What was asked ("read demo://x").
        action: String,
        /// Its answer.
        reason: String,
    },
}

pub(crate) fn resource_info(resource: &rmcp::model::Resource) -> McpResourceInfo {
    McpResourceInfo {
        uri: resource.uri.clone(),
        name: resource.name.clone(),
        title: resource.title.clone(),
        description: resource.description.clone(),
        mime_type: resource.mime_type.clone(),
    }
}

pub(crate) fn template_info(template: &rmcp::model::ResourceTemplate) -> McpResourceTemplateInfo {
    McpResourceTemplateInfo {
        uri_template: template.uri_template.clone(),
        name: template.name.clone(),
        title: template.title.clone(),
        description: template.description.clone(),
        mime_type: template.mime_type.clone(),
    }
}

pub(crate) fn prompt_info(prompt: &rmcp::model::Prompt) -> McpPromptInfo {
    McpPromptInfo {
        name: prompt.name.clone(),
        title: prompt.title.clone(),
        description: prompt.description.clone(),
        arguments: prompt
            .arguments
            .iter()
            .flatten()
            .map(|argument| McpPromptArgument {
                name: argument.name.clone(),
                description: argument.description.clone(),
                required: argument.required == Some(true),
            })
            .collect(),
    }
}

/// Reads resource `uri` from `peer`.
pub(crate) async fn read(
    peer: &Peer<RoleClient>,
    server: &str,
    uri: &str,
) -> Result<Vec<ResourcePart>, CatalogError> {
    let result = peer
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .map_err(|error| CatalogError::Failed {
            server: server.to_owned(),
            action: format!("read {uri}"),
            reason: service_error_sentence(&error),
        })?;
    Ok(result.contents.iter().map(part).collect())
}

/// Renders prompt `name` with `arguments` on `peer`.
pub(crate) async fn render(
    peer: &Peer<RoleClient>,
    server: &str,
    name: &str,
    arguments: serde_json::Map<String, serde_json::Value>,
) -> Result<RenderedPrompt, CatalogError> {
    let mut params = GetPromptRequestParams::new(name);
    if !arguments.is_empty() {
        params = params.with_arguments(arguments);
    }
    let result = peer
        .get_prompt(params)
        .await
        .map_err(|error| CatalogError::Failed {
            server: server.to_owned(),
            action: format!("render the prompt '{name}'"),
            reason: service_error_sentence(&error),
        })?;
    Ok(RenderedPrompt {
        description: result.description.clone(),
        messages: result
            .messages
            .iter()
            .map(|message| PromptMessageView {
                role: match message.role {
                    Role::Assistant => "assistant",
                    _ => "user",
                }
                .to_owned(),
                text: content_text(&message.content),
            })
            .collect(),
    })
}

fn content_text(block: &ContentBlock) -> String {
    crate::convert::block_text(block).unwrap_or_default()
}

/// One content of a read result as a chat can hold it.
fn part(contents: &ResourceContents) -> ResourcePart {
    match contents {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => {
            let (text, truncated) = gantry_tools::text::truncate_middle(text, MAX_RESOURCE_CHARS);
            ResourcePart::Text {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text,
                truncated,
            }
        }
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => blob_part(uri, mime_type.as_deref(), blob),
        #[allow(unreachable_patterns)]
        _ => ResourcePart::Binary {
            uri: String::new(),
            mime_type: None,
            bytes: 0,
        },
    }
}

fn blob_part(uri: &str, mime_type: Option<&str>, blob: &str) -> ResourcePart {
    use base64::Engine as _;
    let bytes = blob.len() / 4 * 3;
    match mime_type {
        Some(mime) if mime.starts_with("image/") && bytes <= MAX_IMAGE_BYTES => {
            ResourcePart::Image {
                uri: uri.to_owned(),
                mime_type: mime.to_owned(),
                data: blob.to_owned(),
            }
        }
        Some(mime) if is_textual(mime) => {
            match base64::engine::general_purpose::STANDARD
                .decode(blob)
                .ok()
                .and_then(|decoded| String::from_utf8(decoded).ok())
            {
                Some(text) => {
                    let (text, truncated) =
                        gantry_tools::text::truncate_middle(&text, MAX_RESOURCE_CHARS);
                    ResourcePart::Text {
                        uri: uri.to_owned(),
                        mime_type: Some(mime.to_owned()),
                        text,
                        truncated,
                    }
                }
                None => ResourcePart::Binary {
                    uri: uri.to_owned(),
                    mime_type: Some(mime.to_owned()),
                    bytes,
                },
            }
        }
        _ => ResourcePart::Binary {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            bytes,
        },
    }
}

/// Whether a MIME type is text a chat can show.
fn is_textual(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(
            mime,
            "application/json" | "application/xml" | "application/yaml" | "application/x-yaml"
        )
}

/// An rmcp service error as a sentence: the server's own message for a JSON-RPC error, the
/// connection's cause otherwise.
pub(crate) fn service_error_sentence(error: &rmcp::ServiceError) -> String {
    match error {
        rmcp::ServiceError::McpError(data) => data.message.to_string(),
        other if other.is_authorization_required() => {
            "the server asked for sign-in (401)".to_owned()
        }
        other => crate::errors::chain_sentence(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_become_images_text_or_names() {
        use base64::Engine as _;
        let png = base64::engine::general_purpose::STANDARD.encode([0x89, b'P', b'N', b'G']);
        assert!(matches!(
            blob_part("a", Some("image/png"), &png),
            ResourcePart::Image { mime_type, .. } if mime_type == "image/png"
        ));
        let text = base64::engine::general_purpose::STANDARD.encode("hello");
        assert_eq!(
            blob_part("b", Some("application/json"), &text),
            ResourcePart::Text {
                uri: "b".into(),
                mime_type: Some("application/json".into()),
                text: "hello".into(),
                truncated: false
            }
        );
        assert!(matches!(
            blob_part("c", Some("application/gzip"), &text),
            ResourcePart::Binary { .. }
        ));
    }
}
