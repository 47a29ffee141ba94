//! A project's own slash commands: Markdown prompts in `.gantry/commands/NAME.md`.
//!
//! The convention of Claude Code and OpenCode: the file's body is a prompt, `$ARGUMENTS` in it
//! is replaced by what follows the command (`/review src/a.rs` → `$ARGUMENTS` = `src/a.rs`),
//! and a YAML front matter may give a `description:`. Without one, the description is the
//! body's first non-empty line (without a heading's `#`). The built-in commands (`/new`,
//! `/compact`, `/model`, `/clear`, `/help`) act in the chat box and are not files; a project file
//! with a built-in's name is ignored, so `/help` always means help.
//!
//! Files are read through the project's confinement (a `.gantry/commands` that is a symlink
//! leading out is refused like any other path) and capped at [`MAX_COMMAND_BYTES`].

use std::io::Read;

use gantry_tools::ProjectRoot;
use serde::{Deserialize, Serialize};

use crate::error::{CommandError, ErrorKind};

/// Where a project keeps its commands, relative to its root.
pub const COMMANDS_DIR: &str = ".gantry/commands";
/// The built-in commands, which a project file cannot replace.
pub const BUILTIN_COMMANDS: [&str; 5] = ["new", "compact", "model", "clear", "help"];
/// The largest command file read.
pub const MAX_COMMAND_BYTES: u64 = 64 * 1024;
/// The longest description shown.
const MAX_DESCRIPTION_CHARS: usize = 120;

/// A project command, as the completion list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SlashCommandView {
    /// Its name (the file's name without `.md`).
    pub name: String,
    /// Its description (front matter's, else the first line).
    pub description: String,
}

/// A project slash command to expand into its prompt, with what follows it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ExpandCommandRequest {
    /// The command's name, without the `/`.
    pub name: String,
    /// What followed it.
    pub arguments: String,
}

/// True for a name a command file may have: letters, digits, `-`, `_`, `.`, `:`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

/// The file's front matter's description (if any) and its body.
fn split_front_matter(text: &str) -> (Option<String>, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    let Some(end) = rest.find("\n---") else {
        return (None, text);
    };
    let front = &rest[..end];
    let body = rest[end + 4..].trim_start_matches(['\r', '\n']);
    let description = front.lines().find_map(|line| {
        let value = line.strip_prefix("description:")?.trim();
        Some(value.trim_matches(['"', '\'']).to_owned())
    });
    (description.filter(|d| !d.is_empty()), body)
}

fn describe(text: &str) -> String {
    let (front, body) = split_front_matter(text);
    let line = front.unwrap_or_else(|| {
        body.lines()
            .map(|line| line.trim().trim_start_matches('#').trim())
            .find(|line| !line.is_empty())
            .unwrap_or_default()
            .to_owned()
    });
    line.chars().take(MAX_DESCRIPTION_CHARS).collect()
}

/// Reads command file `name`'s text through the project's confinement.
fn read_command(root: &ProjectRoot, name: &str) -> Result<String, CommandError> {
    let not_found = || CommandError::new(ErrorKind::NotFound, format!("no command /{name}"));
    if !valid_name(name) || BUILTIN_COMMANDS.contains(&name) {
        return Err(not_found());
    }
    let resolved = root
        .resolve(&format!("{COMMANDS_DIR}/{name}.md"))
        .map_err(|error| CommandError::invalid(format!("cannot read /{name}: {error}")))?;
    let (file, metadata) = root.open_regular(&resolved).map_err(|_| not_found())?;
    if metadata.len() > MAX_COMMAND_BYTES {
        return Err(CommandError::invalid(format!(
            "/{name} is over {} KiB",
            MAX_COMMAND_BYTES / 1024
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_COMMAND_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|error| CommandError::invalid(format!("cannot read /{name}: {error}")))?;
    String::from_utf8(bytes)
        .map_err(|_| CommandError::invalid(format!("/{name} is not UTF-8 text")))
}

/// The project's commands, sorted by name. A project without the folder has none; files that
/// cannot be read are left out. Blocking.
pub fn project_commands(root: &ProjectRoot) -> Vec<SlashCommandView> {
    let Ok(dir) = root.resolve(COMMANDS_DIR) else {
        return Vec::new();
    };
    let Ok(listing) = std::fs::read_dir(dir.path()) else {
        return Vec::new();
    };
    let mut commands: Vec<SlashCommandView> = listing
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let file = entry.file_name();
            let name = file.to_str()?.strip_suffix(".md")?.to_owned();
            let text = read_command(root, &name).ok()?;
            Some(SlashCommandView {
                description: describe(&text),
                name,
            })
        })
        .collect();
    commands.sort_by(|a, b| a.name.cmp(&b.name));
    commands
}

/// Project command `name`'s prompt with `$ARGUMENTS` replaced by `arguments` (trimmed); when the
/// prompt has no `$ARGUMENTS`, arguments given are appended after a blank line. Blocking.
pub fn expand(root: &ProjectRoot, name: &str, arguments: &str) -> Result<String, CommandError> {
    let text = read_command(root, name)?;
    let (_, body) = split_front_matter(&text);
    let arguments = arguments.trim();
    let prompt = if body.contains("$ARGUMENTS") {
        body.replace("$ARGUMENTS", arguments)
    } else if arguments.is_empty() {
        body.to_owned()
    } else {
        format!("{}\n\n{arguments}", body.trim_end())
    };
    let prompt = prompt.trim().to_owned();
    if prompt.is_empty() {
        return Err(CommandError::invalid(format!("/{name} is empty")));
    }
    Ok(prompt)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, ProjectRoot) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(COMMANDS_DIR)).unwrap();
        for (name, text) in files {
            fs::write(dir.path().join(COMMANDS_DIR).join(name), text).unwrap();
        }
        let root = ProjectRoot::new(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn commands_are_listed_with_their_first_line_or_front_matter() {
        let (_dir, root) = project(&[
            (
                "review.md",
                "# Review a file\n\nReview $ARGUMENTS for bugs.",
            ),
            (
                "fix.md",
                "---\ndescription: \"Fix an issue\"\nmodel: x\n---\nFix issue $ARGUMENTS.",
            ),
            ("help.md", "not the built-in"),
            ("bad name.md", "x"),
            ("notes.txt", "x"),
        ]);
        assert_eq!(
            project_commands(&root),
            [
                SlashCommandView {
                    name: "fix".into(),
                    description: "Fix an issue".into()
                },
                SlashCommandView {
                    name: "review".into(),
                    description: "Review a file".into()
                },
            ]
        );
    }

    #[test]
    fn arguments_replace_the_placeholder_or_follow_the_prompt() {
        let (_dir, root) = project(&[
            (
                "review.md",
                "# Review\n\nReview $ARGUMENTS for bugs ($ARGUMENTS).",
            ),
            ("fix.md", "---\ndescription: Fix\n---\nFix it."),
        ]);
        assert_eq!(
            expand(&root, "review", "  src/a.rs ").unwrap(),
            "# Review\n\nReview src/a.rs for bugs (src/a.rs)."
        );
        assert_eq!(expand(&root, "fix", "").unwrap(), "Fix it.");
        assert_eq!(expand(&root, "fix", "#12").unwrap(), "Fix it.\n\n#12");
        assert_eq!(
            expand(&root, "missing", "").unwrap_err().kind,
            ErrorKind::NotFound
        );
        assert_eq!(
            expand(&root, "../../etc/passwd", "").unwrap_err().kind,
            ErrorKind::NotFound
        );
        assert_eq!(
            expand(&root, "help", "").unwrap_err().kind,
            ErrorKind::NotFound
        );
    }

    #[test]
    fn a_commands_folder_leading_out_of_the_project_is_not_read() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("steal.md"), "outside").unwrap();
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(".gantry")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(COMMANDS_DIR)).unwrap();
        let root = ProjectRoot::new(dir.path()).unwrap();
        assert!(project_commands(&root).is_empty());
        assert!(expand(&root, "steal", "").is_err());
    }
}
