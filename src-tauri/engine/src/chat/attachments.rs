//! Building what a chat message attaches: a mentioned file or folder, and a pasted image.
//!
//! - A **file** is attached as read_file would show it (the same header and numbered lines,
//!   the first [`MENTION_LINES`] lines; the header says how many there are, so the model can
//!   read on with read_file). It is opened through the project's [`ProjectRoot`] exactly as
//!   read_file opens it: no `..`, no absolute path outside the root, no symlink that leads out,
//!   opened below the root's descriptor; binary files are refused.
//! - A **folder** is attached as the tree's listing of it (the same ignore rules), at most
//!   [`MAX_FOLDER_ENTRIES`] entries.
//! - An **image** is checked (PNG, JPEG, WebP or GIF, by its bytes, not its name; at most
//!   [`MAX_IMAGE_INPUT_BYTES`]), downscaled so its longest side is at most
//!   [`MAX_IMAGE_SIDE`] pixels, and kept under [`MAX_IMAGE_STORED_BYTES`] (re-encoded as JPEG if
//!   PNG is too large), so what is stored with the session and sent stays within what providers
//!   accept.

use std::io::Cursor;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
pub use gantry_agent::Attachment;
use gantry_tools::builtin::read_file::{Window, read_window, render_text};
use gantry_tools::{ProjectRoot, ResolvedPath};
use gantry_watch::{EntryKind, ProjectTree};
use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::error::{CommandError, ErrorKind};

/// Lines of a mentioned file attached (read_file's window from line 1).
pub const MENTION_LINES: usize = 1000;
/// Entries of a mentioned folder listed.
pub const MAX_FOLDER_ENTRIES: usize = 500;
/// Files and folders one message may mention.
pub const MAX_MENTIONS: usize = 20;
/// Images one message may carry.
pub const MAX_IMAGES: usize = 8;
/// The largest image accepted from a paste or a drop, in bytes.
pub const MAX_IMAGE_INPUT_BYTES: usize = 20 * 1024 * 1024;
/// The longest side, in pixels, of an image as sent (larger ones are downscaled).
pub const MAX_IMAGE_SIDE: u32 = 2048;
/// The largest image kept and sent, in bytes (before base64).
pub const MAX_IMAGE_STORED_BYTES: usize = 4 * 1024 * 1024;
/// The largest image dimensions decoded at all (a guard against decompression bombs).
const MAX_DECODED_SIDE: u32 = 20_000;

/// What the chat box attaches to a message it sends.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AttachmentRequest {
    /// A file or folder of the project, read when the message is sent.
    Mention {
        /// Its path, relative to the project root.
        path: String,
    },
    /// An image already checked and downscaled for sending.
    Image {
        /// The prepared image ([`Attachment::Image`]).
        image: Attachment,
    },
}

/// A path of the project that can be mentioned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct MentionTarget {
    /// Relative to the project root, `/`-separated.
    pub path: String,
    /// True for a folder.
    pub is_dir: bool,
}

/// A path to mention: one the user typed or a file dropped on the chat box.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct MentionPathRequest {
    /// A path relative to the project root, or an absolute one (a file dropped from the
    /// desktop), which must lie inside the project.
    pub path: String,
}

/// An image pasted or dropped, to check and downscale for sending.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct PrepareImageRequest {
    /// The file's name (`pasted image` when it has none).
    pub name: String,
    /// Its bytes, base64.
    pub data: String,
}

fn confinement_error(path: &str, error: gantry_tools::ConfineError) -> CommandError {
    let mut refused = CommandError::from(error);
    refused.message = format!("cannot attach {path}: {}", refused.message);
    refused
}

/// Checks that `path` (relative, or absolute inside the project) names an existing file or
/// folder of the project, and returns it relative to the root.
pub fn mention_target(root: &ProjectRoot, path: &str) -> Result<MentionTarget, CommandError> {
    let resolved = root
        .resolve(path.trim())
        .map_err(|error| confinement_error(path, error))?;
    let metadata = root.metadata_beneath(&resolved).map_err(|_| {
        CommandError::new(
            ErrorKind::NotFound,
            format!("cannot attach {path}: it does not exist"),
        )
    })?;
    if !metadata.is_dir() && !metadata.is_file() {
        return Err(CommandError::invalid(format!(
            "cannot attach {path}: it is not a regular file or a folder"
        )));
    }
    Ok(MentionTarget {
        path: resolved.relative().to_owned(),
        is_dir: metadata.is_dir(),
    })
}

/// The attachment for mentioned `path`: a file's first [`MENTION_LINES`] lines as read_file
/// shows them, or a folder's listing. Blocking.
pub fn mention_attachment(
    root: &ProjectRoot,
    tree: &ProjectTree,
    path: &str,
) -> Result<Attachment, CommandError> {
    let target = mention_target(root, path)?;
    let resolved = root
        .resolve(&target.path)
        .map_err(|error| confinement_error(path, error))?;
    if target.is_dir {
        return folder_attachment(tree, &target.path);
    }
    file_attachment(root, &resolved)
}

fn file_attachment(
    root: &ProjectRoot,
    resolved: &ResolvedPath,
) -> Result<Attachment, CommandError> {
    let window = Window {
        first: 1,
        limit: MENTION_LINES,
    };
    let path = resolved.relative();
    let read = read_window(root, resolved, window, &CancellationToken::new())
        .map_err(|error| CommandError::invalid(format!("cannot attach {}", error.message(path))))?;
    let (text, _cut) = render_text(path, window, &read.scan);
    Ok(Attachment::File {
        path: path.to_owned(),
        text,
    })
}

fn folder_attachment(tree: &ProjectTree, path: &str) -> Result<Attachment, CommandError> {
    let listed = if path == "." { "" } else { path };
    let entries = tree
        .children(listed)
        .map_err(|error| CommandError::invalid(format!("cannot attach {path}: {error}")))?;
    let total = entries.len();
    let mut text = format!(
        "[folder: {path} | {total} {}]",
        if total == 1 { "entry" } else { "entries" }
    );
    for entry in entries.iter().take(MAX_FOLDER_ENTRIES) {
        text.push('\n');
        text.push_str(&entry.name);
        match (entry.kind, entry.size) {
            (EntryKind::Dir, _) => text.push('/'),
            (_, Some(size)) => text.push_str(&format!(" ({size} bytes)")),
            _ => {}
        }
    }
    if total > MAX_FOLDER_ENTRIES {
        text.push_str(&format!(
            "\n[{} more entries not shown]",
            total - MAX_FOLDER_ENTRIES
        ));
    }
    Ok(Attachment::Folder {
        path: path.to_owned(),
        text,
    })
}

/// Why an image was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ImageError {
    /// Not base64.
    #[error("the image data is not valid base64")]
    Encoding,
    /// Nothing in it.
    #[error("the image is empty")]
    Empty,
    /// Larger than [`MAX_IMAGE_INPUT_BYTES`].
    #[error("the image is {0} MiB; images up to 20 MiB are accepted")]
    TooLarge(usize),
    /// Not one of the four formats.
    #[error("only PNG, JPEG, WebP and GIF images can be attached")]
    Format,
    /// Its bytes do not decode.
    #[error("the image cannot be read: {0}")]
    Decode(String),
    /// Still too large after downscaling and re-encoding.
    #[error("the image is still over 4 MiB after downscaling")]
    StillTooLarge,
}

/// Checks and downscales the image `name` whose bytes are `data` (base64): see the module docs.
/// Blocking (decoding and resizing take a moment for large images).
pub fn image_from_base64(name: &str, data: &str) -> Result<Attachment, ImageError> {
    // Base64 is 4/3 the size: refuse before decoding what could not be accepted anyway.
    if data.len() / 4 * 3 > MAX_IMAGE_INPUT_BYTES + 3 {
        return Err(ImageError::TooLarge(data.len() / 4 * 3 / (1024 * 1024)));
    }
    let bytes = BASE64
        .decode(data.trim())
        .map_err(|_| ImageError::Encoding)?;
    image_from_bytes(name, &bytes)
}

/// [`image_from_base64`] for raw bytes.
pub fn image_from_bytes(name: &str, bytes: &[u8]) -> Result<Attachment, ImageError> {
    if bytes.is_empty() {
        return Err(ImageError::Empty);
    }
    if bytes.len() > MAX_IMAGE_INPUT_BYTES {
        return Err(ImageError::TooLarge(bytes.len() / (1024 * 1024)));
    }
    let format = image::guess_format(bytes).map_err(|_| ImageError::Format)?;
    let mime = match format {
        ImageFormat::Png => "image/png",
        ImageFormat::Jpeg => "image/jpeg",
        ImageFormat::WebP => "image/webp",
        ImageFormat::Gif => "image/gif",
        _ => return Err(ImageError::Format),
    };
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DECODED_SIDE);
    limits.max_image_height = Some(MAX_DECODED_SIDE);
    reader.limits(limits);
    let decoded = reader
        .decode()
        .map_err(|error| ImageError::Decode(error.to_string()))?;
    let name = match name.trim() {
        "" => "pasted image".to_owned(),
        name => name.chars().take(200).collect(),
    };
    let fits = decoded.width().max(decoded.height()) <= MAX_IMAGE_SIDE;
    if fits && bytes.len() <= MAX_IMAGE_STORED_BYTES {
        // Sent as it came (a GIF keeps its frames).
        return Ok(image_attachment(name, mime, bytes, &decoded));
    }
    let scaled = if fits {
        decoded
    } else {
        decoded.resize(
            MAX_IMAGE_SIDE,
            MAX_IMAGE_SIDE,
            image::imageops::FilterType::Triangle,
        )
    };
    // Photographs stay JPEG; everything else becomes PNG (lossless), or JPEG if that is too big.
    let encoded = if format == ImageFormat::Jpeg {
        None
    } else {
        encode(&scaled, ImageFormat::Png).filter(|png| png.len() <= MAX_IMAGE_STORED_BYTES)
    };
    let (mime, out) = match encoded {
        Some(png) => ("image/png", png),
        None => {
            let rgb = DynamicImage::ImageRgb8(scaled.to_rgb8());
            let jpeg = encode(&rgb, ImageFormat::Jpeg).ok_or(ImageError::StillTooLarge)?;
            ("image/jpeg", jpeg)
        }
    };
    if out.len() > MAX_IMAGE_STORED_BYTES {
        return Err(ImageError::StillTooLarge);
    }
    Ok(image_attachment(name, mime, &out, &scaled))
}

fn encode(image: &DynamicImage, format: ImageFormat) -> Option<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).ok()?;
    Some(out.into_inner())
}

fn image_attachment(name: String, mime: &str, bytes: &[u8], image: &DynamicImage) -> Attachment {
    Attachment::Image {
        name,
        mime: mime.to_owned(),
        data: BASE64.encode(bytes),
        width: image.width(),
        height: image.height(),
    }
}

/// Checks an image prepared earlier (what the webview sends back with the message): one of the
/// four types, within the stored size, valid base64 that decodes as that type.
pub fn check_prepared(image: &Attachment) -> Result<(), ImageError> {
    let Attachment::Image { mime, data, .. } = image else {
        return Err(ImageError::Format);
    };
    if !matches!(
        mime.as_str(),
        "image/png" | "image/jpeg" | "image/webp" | "image/gif"
    ) {
        return Err(ImageError::Format);
    }
    if data.len() / 4 * 3 > MAX_IMAGE_STORED_BYTES + 3 {
        return Err(ImageError::StillTooLarge);
    }
    let bytes = BASE64.decode(data).map_err(|_| ImageError::Encoding)?;
    let format = image::guess_format(&bytes).map_err(|_| ImageError::Format)?;
    if format.to_mime_type() != mime {
        return Err(ImageError::Format);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
