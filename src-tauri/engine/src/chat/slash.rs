//! Slash commands from files and skills: the completion list and the expansion into a prompt.
//!
//! The commands come from `.gantry/commands/`, Claude Code's `.claude/commands/` (a subfolder
//! makes `/folder:name`) and `~/.claude/commands/`, and Codex's `~/.codex/prompts/`
//! (`/prompts:name`); every user-invocable Agent Skill is `/name` too (a skill beats a
//! same-named command). gantry-config finds and reads them (confined; see
//! [`gantry_config::commands`], [`gantry_config::skills`]). The built-in commands (`/new`,
//! `/compact`, `/model`, `/clear`, `/help`) act in the chat box and are never replaced.
//!
//! Expanding puts the arguments in as the file's source documents it
//! ([`gantry_config::arguments`]) and inlines each `@path` naming a project file (confined,
//! capped, see [`crate::chat::slash_files`]). A prompt that runs commands before sending
//! (`` !`cmd` ``) runs them in the session it is sent in ([`crate::chat::slash_shell`]).

use gantry_config::allowed_tools::turn_rules;
use gantry_config::arguments::{Numbering, substitute};
use gantry_config::skills::{Skill, body_for_model};
use gantry_config::{ConfigReport, Locations, TrustedFiles, commands, skills};
use gantry_tools::{ExternalRule, ProjectRoot};
use serde::{Deserialize, Serialize};

use crate::chat::slash_files::inline_files;
use crate::chat::slash_shell::{ShellSpan, shell_spans};
use crate::error::{CommandError, ErrorKind};

/// The built-in commands, which a file cannot replace.
pub const BUILTIN_COMMANDS: [&str; 5] = ["new", "compact", "model", "clear", "help"];
/// The longest description shown.
const MAX_DESCRIPTION_CHARS: usize = 120;

/// A command or skill, as the completion list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SlashCommandView {
    /// Its name, without the `/` (`review`, `frontend:lint`, `prompts:draft`).
    pub name: String,
    /// Its description (front matter's, else the first line).
    pub description: String,
    /// `command` or `skill`.
    pub kind: String,
    /// Where it comes from, a key the chat box names in the user's language: `gantry`
    /// (`.gantry/commands`), `claude-project`, `claude-user`, `codex-user` (`~/.codex/prompts`),
    /// `skill-project`, `skill-user`.
    pub source: String,
    /// What arguments it takes (`[file] [line]`), when its file says.
    pub argument_hint: Option<String>,
}

/// A slash command to expand into its prompt, with what follows it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ExpandCommandRequest {
    /// The command's name, without the `/`.
    pub name: String,
    /// What followed it.
    pub arguments: String,
}

/// The commands and user-invocable skills of the project at `at`, a skill replacing a command
/// of its name.
fn gather(at: &Locations, trusted: &TrustedFiles) -> (Vec<commands::Command>, Vec<Skill>) {
    let mut report = ConfigReport::default();
    let mut found = commands::discover(at, trusted, &BUILTIN_COMMANDS, &mut report);
    let skills: Vec<Skill> = skills::discover(at, trusted, &mut report)
        .into_iter()
        .filter(|skill| skill.user_invocable && !BUILTIN_COMMANDS.contains(&skill.name.as_str()))
        .collect();
    commands::shadow_by_skills(&mut found, &skills, &mut report);
    (found, skills)
}

fn cut(text: &str) -> String {
    text.chars().take(MAX_DESCRIPTION_CHARS).collect()
}

/// The commands and skills of the project at `root` (the user's home from the environment),
/// sorted by name. Blocking.
pub fn project_commands(root: &ProjectRoot) -> Vec<SlashCommandView> {
    commands_at(&crate::config::locations(root.path()))
}

/// [`project_commands`] for explicit locations (tests pass a home of their own).
pub fn commands_at(at: &Locations) -> Vec<SlashCommandView> {
    let (found, skills) = gather(at, &TrustedFiles::none());
    let mut views: Vec<SlashCommandView> = found
        .into_iter()
        .map(|command| SlashCommandView {
            name: command.name,
            description: cut(&command.description),
            kind: "command".into(),
            source: command.label,
            argument_hint: command.argument_hint,
        })
        .chain(skills.into_iter().map(|skill| SlashCommandView {
            description: cut(&skill.description),
            kind: "skill".into(),
            source: format!("skill-{}", skill.source.scope.as_str()),
            argument_hint: skill.argument_hint,
            name: skill.name,
        }))
        .collect();
    views.sort_by(|a, b| a.name.cmp(&b.name));
    views
}

/// Command or skill `name`'s prompt with `arguments` put in, `@file`s inlined. Blocking.
pub fn expand(root: &ProjectRoot, name: &str, arguments: &str) -> Result<String, CommandError> {
    expand_at(
        root,
        &crate::config::locations(root.path()),
        name,
        arguments,
    )
}

/// [`expand`] for explicit locations. A prompt that runs commands before sending
/// (`` !`cmd` ``) is refused here, where there is no session to run them in: the chat expands it
/// with [`crate::chat::ProjectChat::expand_command`].
pub fn expand_at(
    root: &ProjectRoot,
    at: &Locations,
    name: &str,
    arguments: &str,
) -> Result<String, CommandError> {
    let prepared = prepare_at(root, at, &TrustedFiles::none(), name, arguments)?;
    if let Some(span) = prepared.shell_spans().first() {
        return Err(CommandError::invalid(format!(
            "/{name} runs a command before sending (!`{}`), which needs a session; nothing was \
             sent",
            span.command
        )));
    }
    let body = prepared.body.clone();
    prepared.finish(body)
}

/// A command's or skill's prompt with its arguments put in and its `@file`s read, before its
/// `` !`cmd` ``s run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedPrompt {
    /// The command's name.
    pub name: String,
    /// The prompt, with the `` !`cmd` `` placeholders still in.
    pub body: String,
    /// The inlined files that follow it (read from the body's `@path`s, so a command's output
    /// never names a file to inline).
    pub files: String,
    /// Its `allowed-tools`, as allow rules for the turn it starts (waiting for trust unless
    /// its file is trusted; see [`gantry_config::allowed_tools`]).
    pub turn_rules: Vec<ExternalRule>,
}

impl PreparedPrompt {
    /// The commands to run before sending.
    pub fn shell_spans(&self) -> Vec<ShellSpan> {
        shell_spans(&self.body)
    }

    /// The prompt to send: `body` (the placeholders replaced) and the files; an error when
    /// empty.
    pub fn finish(self, body: String) -> Result<String, CommandError> {
        let prompt = format!("{}{}", body.trim_end(), self.files)
            .trim()
            .to_owned();
        if prompt.is_empty() {
            return Err(CommandError::invalid(format!("/{} is empty", self.name)));
        }
        Ok(prompt)
    }
}

/// Command or skill `name`'s [`PreparedPrompt`] at `at`, its `allowed-tools` applying when
/// `trusted` covers its file. Blocking.
pub fn prepare_at(
    root: &ProjectRoot,
    at: &Locations,
    trusted: &TrustedFiles,
    name: &str,
    arguments: &str,
) -> Result<PreparedPrompt, CommandError> {
    let not_found = || CommandError::new(ErrorKind::NotFound, format!("no command /{name}"));
    if BUILTIN_COMMANDS.contains(&name) {
        return Err(not_found());
    }
    let (found, skills) = gather(at, trusted);
    let (body, turn_rules) = if let Some(skill) = skills.iter().find(|skill| skill.name == name) {
        (
            substitute(&body_for_model(skill, at), arguments, Numbering::Claude),
            turn_rules(
                &skill.allowed_tools,
                &skill.source,
                skill.allowed_tools_trusted,
                at,
            ),
        )
    } else if let Some(command) = found.iter().find(|command| command.name == name) {
        let body = command
            .body
            .replace("${CLAUDE_PROJECT_DIR}", &at.project.display().to_string());
        (
            substitute(&body, arguments, command.numbering),
            turn_rules(
                &command.allowed_tools,
                &command.source,
                command.allowed_tools_trusted,
                at,
            ),
        )
    } else {
        return Err(not_found());
    };
    let body = body.trim_end().to_owned();
    let inlined = inline_files(root, &body);
    let files = inlined[body.len()..].to_owned();
    Ok(PreparedPrompt {
        name: name.to_owned(),
        body,
        files,
        turn_rules,
    })
}
