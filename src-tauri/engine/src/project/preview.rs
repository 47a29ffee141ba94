//! The read-only file preview: what the webview shows when a file in the tree is clicked.
//!
//! The path comes from the webview, so it is treated like a path from the model: resolved by the
//! engine's confinement ([`ProjectRoot::resolve`]), which refuses `..`, absolute paths outside
//! the project, `~` and symbolic links that lead out. Only regular files are read, at most
//! [`MAX_PREVIEW_BYTES`] of them; a file with a NUL byte near its start, or that is not UTF-8, is
//! reported as binary rather than shown.

use std::io::Read;

use gantry_tools::ProjectRoot;
use serde::{Deserialize, Serialize};

use crate::error::{CommandError, ErrorKind};

/// The most bytes of a file the preview reads and shows.
pub const MAX_PREVIEW_BYTES: u64 = 512 * 1024;

/// How far into a file a NUL byte marks it as binary (what git and grep look at).
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// The longest path the webview may send.
const MAX_PATH_BYTES: usize = 4096;

/// A file to preview.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct PreviewRequest {
    /// The file, project-relative (as the tree lists it).
    pub path: String,
}

/// A file as the preview shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(
    rename_all = "snake_case",
    tag = "kind",
    rename_all_fields = "camelCase"
)]
pub enum FilePreview {
    /// A text file, or its first [`MAX_PREVIEW_BYTES`].
    Text {
        /// Project-relative path of the file.
        path: String,
        /// The text (cut at a character boundary when truncated).
        text: String,
        /// The file's size in bytes.
        size: u64,
        /// True when the file is longer than what is shown.
        truncated: bool,
    },
    /// A file that is not shown as text.
    Binary {
        /// Project-relative path of the file.
        path: String,
        /// The file's size in bytes.
        size: u64,
    },
}

/// Reads the preview of `user_path` inside `root`. Blocking.
pub fn preview_file(root: &ProjectRoot, user_path: &str) -> Result<FilePreview, CommandError> {
    if user_path.len() > MAX_PATH_BYTES {
        return Err(CommandError::invalid("the path is too long"));
    }
    let resolved = root.resolve(user_path)?;
    let path = resolved.relative().to_owned();
    let io_error = |error: std::io::Error| {
        let kind = if error.kind() == std::io::ErrorKind::NotFound {
            ErrorKind::NotFound
        } else {
            ErrorKind::Io
        };
        CommandError::new(kind, format!("cannot read {path}: {error}"))
    };
    let metadata = std::fs::metadata(resolved.path()).map_err(io_error)?;
    if !metadata.is_file() {
        return Err(CommandError::new(
            ErrorKind::NotAFile,
            format!("{path} is not a regular file"),
        ));
    }
    let size = metadata.len();
    let mut bytes = Vec::new();
    std::fs::File::open(resolved.path())
        .map_err(io_error)?
        .take(MAX_PREVIEW_BYTES)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    let truncated = size > bytes.len() as u64;
    if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return Ok(FilePreview::Binary { path, size });
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        // A cut in the middle of a character is not a sign of a binary file.
        Err(error) if truncated && error.utf8_error().error_len().is_none() => {
            let valid = error.utf8_error().valid_up_to();
            let mut bytes = error.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).map_err(|_| CommandError::internal("bad UTF-8 cut"))?
        }
        Err(_) => return Ok(FilePreview::Binary { path, size }),
    };
    Ok(FilePreview::Text {
        path,
        text,
        size,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, ProjectRoot) {
        let dir = tempfile::tempdir().unwrap();
        let root = ProjectRoot::new(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn a_text_file_is_shown_whole() {
        let (dir, root) = project();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
        assert_eq!(
            preview_file(&root, "src/main.rs").unwrap(),
            FilePreview::Text {
                path: "src/main.rs".into(),
                text: "fn main() {}\n".into(),
                size: 13,
                truncated: false
            }
        );
    }

    #[test]
    fn a_large_file_is_cut_at_a_character_boundary() {
        let (dir, root) = project();
        // 'é' is two bytes; an odd prefix puts a character across the cut.
        let text = format!("x{}", "é".repeat(MAX_PREVIEW_BYTES as usize));
        std::fs::write(dir.path().join("big.txt"), &text).unwrap();
        let FilePreview::Text {
            text: shown,
            truncated,
            size,
            ..
        } = preview_file(&root, "big.txt").unwrap()
        else {
            panic!("text expected")
        };
        assert!(truncated);
        assert_eq!(size, text.len() as u64);
        assert_eq!(shown.len() as u64, MAX_PREVIEW_BYTES - 1);
        assert!(text.starts_with(&shown));
    }

    #[test]
    fn binary_files_are_not_shown() {
        let (dir, root) = project();
        std::fs::write(dir.path().join("a.bin"), b"PK\x03\x04\x00\x00rest").unwrap();
        std::fs::write(dir.path().join("latin1.txt"), b"caf\xe9\n").unwrap();
        assert_eq!(
            preview_file(&root, "a.bin").unwrap(),
            FilePreview::Binary {
                path: "a.bin".into(),
                size: 10
            }
        );
        assert!(matches!(
            preview_file(&root, "latin1.txt").unwrap(),
            FilePreview::Binary { .. }
        ));
    }

    #[test]
    fn paths_outside_the_project_are_refused() {
        let outer = tempfile::tempdir().unwrap();
        std::fs::write(outer.path().join("secret.txt"), "secret").unwrap();
        std::fs::create_dir(outer.path().join("project")).unwrap();
        let project = outer.path().join("project");
        std::os::unix::fs::symlink(outer.path().join("secret.txt"), project.join("link")).unwrap();
        let root = ProjectRoot::new(&project).unwrap();
        let secret = outer.path().join("secret.txt");
        for path in [
            "../secret.txt",
            "link",
            secret.to_str().unwrap(),
            "/etc/passwd",
            "~/x",
        ] {
            let error = preview_file(&root, path).unwrap_err();
            assert_eq!(error.kind, ErrorKind::OutsideProject, "{path}: {error}");
        }
    }

    #[test]
    fn folders_missing_files_and_bad_input_are_errors() {
        let (dir, root) = project();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        assert_eq!(
            preview_file(&root, "src").unwrap_err().kind,
            ErrorKind::NotAFile
        );
        assert_eq!(
            preview_file(&root, "nope.txt").unwrap_err().kind,
            ErrorKind::NotFound
        );
        assert_eq!(
            preview_file(&root, "").unwrap_err().kind,
            ErrorKind::InvalidInput
        );
        assert_eq!(
            preview_file(&root, "a\0b").unwrap_err().kind,
            ErrorKind::InvalidInput
        );
        assert_eq!(
            preview_file(&root, &"a/".repeat(3000)).unwrap_err().kind,
            ErrorKind::InvalidInput
        );
    }
}
