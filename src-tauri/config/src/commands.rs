//! Slash commands from files: `.gantry/commands/`, `.claude/commands/`, `~/.claude/commands/`
//! and Codex's `~/.codex/prompts/` (`shared/reference/extensibility-specs.md` §4).
//!
//! A command is a Markdown prompt; its name is its file's name without `.md`. Under
//! `.claude/commands/` a subfolder makes `/folder:name`; Codex prompts are `/prompts:name` and
//! only the folder's top level is read. Front matter: `description` (else the body's first
//! line), `argument-hint`, `model`, `allowed-tools` (grants for the invoking turn, for a project
//! file only once the user trusted it). Arguments are put in per source ([`Numbering`]).
//! Precedence: the built-in commands are never replaced; `.gantry/commands` comes first, then
//! the project's `.claude/commands`, then the user's; a skill beats a same-named command
//! ([`shadow_by_skills`]).

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::arguments::Numbering;
use crate::frontmatter;
use crate::listing::markdown_files;
use crate::skills::{Skill, argument_hint, note_unapplied};
use crate::source::read_text;
use crate::{ConfigReport, ConfigScope, Locations, SourceFile, TrustedFiles};

/// The largest command file read.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;

/// A folder commands come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandFolder {
    /// The folder (`~/` for the home).
    pub folder: &'static str,
    /// Whose it is.
    pub scope: ConfigScope,
    /// How its prompts take arguments.
    pub numbering: Numbering,
    /// What goes before each name (`prompts:`).
    pub prefix: &'static str,
    /// How many subfolders down commands are read (each adds `folder:` to the name).
    pub depth: usize,
    /// The source as a stable key the front ends name in their language (`gantry`,
    /// `claude-project`, `claude-user`, `codex-user`).
    pub label: &'static str,
}

/// The folders commands come from, in precedence order.
pub const COMMAND_FOLDERS: [CommandFolder; 4] = [
    CommandFolder {
        folder: ".gantry/commands",
        scope: ConfigScope::Project,
        numbering: Numbering::Gantry,
        prefix: "",
        depth: 0,
        label: "gantry",
    },
    CommandFolder {
        folder: ".claude/commands",
        scope: ConfigScope::Project,
        numbering: Numbering::Claude,
        prefix: "",
        depth: 3,
        label: "claude-project",
    },
    CommandFolder {
        folder: "~/.claude/commands",
        scope: ConfigScope::User,
        numbering: Numbering::Claude,
        prefix: "",
        depth: 3,
        label: "claude-user",
    },
    CommandFolder {
        folder: "~/.codex/prompts",
        scope: ConfigScope::User,
        numbering: Numbering::Codex,
        prefix: "prompts:",
        depth: 0,
        label: "codex-user",
    },
];

/// A command found.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// Its name, without the `/` (`review`, `frontend:lint`, `prompts:draft`).
    pub name: String,
    /// Its description (front matter's, else the body's first line).
    pub description: String,
    /// Where it comes from, as a key ([`CommandFolder::label`]).
    pub label: String,
    /// Its file.
    pub source: SourceFile,
    /// The SHA-256 of the file.
    pub sha256: String,
    /// The prompt (the body after the front matter).
    pub body: String,
    /// How arguments go into the prompt.
    pub numbering: Numbering,
    /// The `argument-hint`, if any.
    pub argument_hint: Option<String>,
    /// The `model` asked for, if any.
    pub model: Option<String>,
    /// The `allowed-tools` (grants for the invoking turn).
    pub allowed_tools: Vec<String>,
    /// True when `allowed-tools` may apply (a user file, or a trusted project file).
    pub allowed_tools_trusted: bool,
    /// Every front matter field, as written.
    pub fields: Map<String, Value>,
}

/// The front matter fields Gantry reads.
const KNOWN_FIELDS: [&str; 5] = [
    "description",
    "argument-hint",
    "model",
    "allowed-tools",
    "disable-model-invocation",
];

/// True for a name segment: letters, digits, `-`, `_`, `.`.
fn valid_segment(segment: &str) -> bool {
    !segment.is_empty()
        && segment.len() <= 64
        && segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The commands found, each name once, in precedence order; `builtins` (without `/`) are never
/// replaced. What each file gave goes to `report` (kind `command`).
pub fn discover(
    at: &Locations,
    trusted: &TrustedFiles,
    builtins: &[&str],
    report: &mut ConfigReport,
) -> Vec<Command> {
    let mut commands: Vec<Command> = Vec::new();
    for folder in COMMAND_FOLDERS {
        let dir: PathBuf = match folder.folder.strip_prefix("~/") {
            Some(relative) => match at.in_home(relative) {
                Some(dir) => dir,
                None => continue,
            },
            None => at.in_project(folder.folder),
        };
        for (stem, entry) in markdown_files(at, folder.scope, &dir, folder.depth) {
            let file = SourceFile::at(at, entry.path.clone(), folder.scope);
            if !stem.split('/').all(valid_segment) {
                report
                    .file_mut(&file, "command")
                    .not_understood
                    .push(format!("`{stem}` cannot be a command name: skipped"));
                continue;
            }
            let name = format!("{}{}", folder.prefix, stem.replace('/', ":"));
            if builtins.contains(&name.as_str()) {
                report
                    .file_mut(&file, "command")
                    .not_understood
                    .push(format!(
                        "/{name} is a built-in command, which a file cannot replace: skipped"
                    ));
                continue;
            }
            if let Some(winner) = commands.iter().find(|known| known.name == name) {
                report
                    .file_mut(&file, "command")
                    .not_understood
                    .push(format!(
                        "/{name} is also defined by {}, which wins",
                        winner.source.shown
                    ));
                continue;
            }
            if let Some(command) = read_command(at, trusted, &file, name, folder, report) {
                commands.push(command);
            }
        }
    }
    commands
}

fn read_command(
    at: &Locations,
    trusted: &TrustedFiles,
    file: &SourceFile,
    name: String,
    folder: CommandFolder,
    report: &mut ConfigReport,
) -> Option<Command> {
    let text = match read_text(at, file, MAX_COMMAND_BYTES) {
        Ok(Some(text)) => text,
        Ok(None) => return None,
        Err(problem) => {
            report.file_mut(file, "command").problem = Some(problem.to_string());
            return None;
        }
    };
    let is_trusted = trusted.covers(file, &text.sha256);
    let entry = report.file_mut(file, "command");
    entry.sha256.clone_from(&text.sha256);
    entry.trusted = is_trusted;
    if text.truncated {
        entry.problem = Some(format!("over {} KiB: skipped", MAX_COMMAND_BYTES / 1024));
        return None;
    }
    let (front, body) = frontmatter::split(&text.text);
    if let Some(problem) = &front.problem {
        entry.not_understood.push(format!(
            "the front matter does not parse ({problem}): its fields are ignored"
        ));
    }
    if body.trim().is_empty() {
        entry
            .not_understood
            .push(format!("/{name} is empty: skipped"));
        return None;
    }
    for key in front.fields.keys() {
        if !KNOWN_FIELDS.contains(&key.as_str()) {
            entry
                .not_understood
                .push(format!("field `{key}` is not supported: ignored"));
        }
    }
    let allowed_tools = front.list("allowed-tools").unwrap_or_default();
    note_unapplied(entry, &name, &front, body, is_trusted);
    entry.read.push(format!("command /{name}"));
    let description = front
        .text("description")
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| first_line(body));
    Some(Command {
        name,
        description,
        label: folder.label.to_owned(),
        source: file.clone(),
        sha256: text.sha256,
        body: body.to_owned(),
        numbering: folder.numbering,
        argument_hint: argument_hint(&front),
        model: front.text("model"),
        allowed_tools,
        allowed_tools_trusted: is_trusted,
        fields: front.fields,
    })
}

/// The body's first non-empty line, without a heading's `#`, at most 120 characters.
fn first_line(body: &str) -> String {
    body.lines()
        .map(|line| line.trim().trim_start_matches('#').trim())
        .find(|line| !line.is_empty())
        .unwrap_or_default()
        .chars()
        .take(120)
        .collect()
}

/// Drops the commands a user-invocable skill of the same name replaces (a skill beats a
/// same-named command, §4), noting it in `report`.
pub fn shadow_by_skills(commands: &mut Vec<Command>, skills: &[Skill], report: &mut ConfigReport) {
    commands.retain(|command| {
        let Some(skill) = skills
            .iter()
            .find(|skill| skill.user_invocable && skill.name == command.name)
        else {
            return true;
        };
        report
            .file_mut(&command.source, "command")
            .not_understood
            .push(format!(
                "/{} is replaced by the skill of the same name ({})",
                command.name, skill.source.shown
            ));
        false
    });
}
