//! What a command's prompt pulls in before it is sent: `@path` files (inlined, confined to the
//! project, capped). Its `` !`cmd` `` commands are [`crate::chat::slash_shell`]'s.

use std::io::Read;

use gantry_tools::ProjectRoot;

/// The most bytes of one inlined file.
pub const MAX_INLINE_BYTES: u64 = 64 * 1024;
/// The most files one prompt inlines.
pub const MAX_INLINE_FILES: usize = 10;

/// `prompt` with each `@path` (at a line's start or after whitespace) that names a regular text
/// file inside the project followed, at the end, by that file's content in a fenced block.
/// Paths that do not resolve inside the project, are missing or are not text stay as written.
pub fn inline_files(root: &ProjectRoot, prompt: &str) -> String {
    let mut attached: Vec<(String, String)> = Vec::new();
    for word in prompt.split_whitespace() {
        let Some(path) = word.strip_prefix('@') else {
            continue;
        };
        let path = path.trim_end_matches([',', '.', ';', ':', ')', '!', '?']);
        if path.is_empty() || attached.iter().any(|(known, _)| known == path) {
            continue;
        }
        if attached.len() >= MAX_INLINE_FILES {
            break;
        }
        if let Some(text) = read_confined(root, path) {
            attached.push((path.to_owned(), text));
        }
    }
    let mut out = prompt.trim_end().to_owned();
    for (path, text) in attached {
        out.push_str(&format!(
            "\n\nContents of {path}:\n```\n{}\n```",
            text.trim_end()
        ));
    }
    out
}

fn read_confined(root: &ProjectRoot, path: &str) -> Option<String> {
    let resolved = root.resolve(path).ok()?;
    let (file, metadata) = root.open_regular(&resolved).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_INLINE_BYTES).read_to_end(&mut bytes).ok()?;
    if bytes.contains(&0) {
        return None;
    }
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if metadata.len() > MAX_INLINE_BYTES {
        text.push_str(&format!(
            "\n[... cut: the first {} KiB of {path} shown]",
            MAX_INLINE_BYTES / 1024
        ));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_inside_the_project_are_inlined_and_others_left_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        std::fs::write(outside.path().join("secret"), "token").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link")).unwrap();
        let root = ProjectRoot::new(dir.path()).unwrap();
        let out = inline_files(&root, "Review @a.rs, not @link or @missing.rs or @../x");
        assert_eq!(
            out,
            "Review @a.rs, not @link or @missing.rs or @../x\n\nContents of a.rs:\n```\nfn a() {}\n```"
        );
    }
}
