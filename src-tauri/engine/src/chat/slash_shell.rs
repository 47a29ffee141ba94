//! A command's or skill's `` !`cmd` `` and ```` ```! ```` blocks, run before its prompt is sent
//! (`shared/reference/extensibility-specs.md` §2 "Dynamic context").
//!
//! Each one runs through `run_command` with the permissions, sandbox and approval of the
//! model's own calls: it is dispatched by the project's [`ToolManager`] as a call of the session
//! the prompt is sent in (its grants apply; an approval dialog is keyed by that session and the
//! call's id; the audit log records it). Its output replaces the placeholder. A refused, failed
//! (non-zero exit, except exit 1 of a grep/diff-like program, which means "nothing found" or
//! "they differ") or cancelled command stops the expansion: nothing is sent.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use gantry_tools::{CallContext, ExternalRule, ObservationKind, ToolManager, ToolSession};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use gantry_agent::Provider;
use gantry_config::Locations;

use crate::chat::ProjectChat;
use crate::chat::slash;
use crate::error::CommandError;

/// Programs whose exit 1 is an answer rather than a failure (Claude Code tolerates it).
const EXIT_ONE_IS_AN_ANSWER: [&str; 9] = [
    "grep", "egrep", "fgrep", "rg", "ag", "diff", "cmp", "test", "[",
];

/// One command to run before sending: where its placeholder is and what it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellSpan {
    /// The placeholder's bytes in the prompt (`` !`cmd` ``, or the whole ```` ```! ```` block).
    pub range: Range<usize>,
    /// The command.
    pub command: String,
}

/// The commands of `prompt` that Claude Code runs before sending, in order: `` !`cmd` `` with
/// the `!` at a line's start or after whitespace (the command up to the closing backtick on the
/// same line), and fenced blocks opened by a line ```` ```! ```` (the block's lines, up to a
/// line ```` ``` ````).
pub fn shell_spans(prompt: &str) -> Vec<ShellSpan> {
    let mut found = Vec::new();
    let mut offset = 0;
    let mut block: Option<(usize, usize)> = None;
    for line in prompt.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let bare = line.trim_end_matches(['\n', '\r']);
        if let Some((opened, body)) = block {
            if bare.trim() == "```" {
                let command = prompt[body..start].trim().to_owned();
                let end = start + bare.len();
                if !command.is_empty() {
                    found.push(ShellSpan {
                        range: opened..end,
                        command,
                    });
                }
                block = None;
            }
            continue;
        }
        if bare.trim_start().starts_with("```!") && bare.trim_start()[4..].trim().is_empty() {
            block = Some((start, offset));
            continue;
        }
        found.extend(inline_spans(bare, start));
    }
    found
}

fn inline_spans(line: &str, start: usize) -> Vec<ShellSpan> {
    let mut found = Vec::new();
    let mut previous: Option<char> = None;
    let mut skip_to = 0;
    for (at, c) in line.char_indices() {
        if at >= skip_to
            && c == '!'
            && previous.is_none_or(char::is_whitespace)
            && let Some(rest) = line[at + 1..].strip_prefix('`')
            && let Some(end) = rest.find('`')
            && !rest[..end].trim().is_empty()
        {
            let close = at + 2 + end + 1;
            found.push(ShellSpan {
                range: start + at..start + close,
                command: rest[..end].trim().to_owned(),
            });
            skip_to = close;
        }
        previous = Some(c);
    }
    found
}

impl ProjectChat {
    /// Command or skill `name`'s prompt with `arguments` put in, `@file`s inlined and its
    /// `` !`cmd` ``s run in the session the prompt is sent in (the shown one; for a fresh chat
    /// the session is created now, talking to `provider`, as the message would create it).
    pub async fn expand_command(
        &self,
        name: &str,
        arguments: &str,
        provider: &Provider,
    ) -> Result<String, CommandError> {
        let at = crate::config::locations(self.tools.project().path());
        self.expand_command_at(at, name, arguments, provider).await
    }

    /// [`ProjectChat::expand_command`] for explicit locations (tests pass a home of their own).
    pub async fn expand_command_at(
        &self,
        at: Locations,
        name: &str,
        arguments: &str,
        provider: &Provider,
    ) -> Result<String, CommandError> {
        let root = self.tools.project().clone();
        let trusted = crate::config::trusted_files(&self.store, self.project).await;
        let prepared = {
            let (name, arguments) = (name.to_owned(), arguments.to_owned());
            tokio::task::spawn_blocking(move || {
                slash::prepare_at(&root, &at, &trusted, &name, &arguments)
            })
            .await??
        };
        let rules = prepared.turn_rules.clone();
        let prompt = if prepared.shell_spans().is_empty() {
            let body = prepared.body.clone();
            prepared.finish(body)?
        } else {
            let runtime = self.runtime_for_message(provider).await?;
            let cancel = CancellationToken::new();
            let body = run_shell_spans(&self.tools, runtime.tools(), name, &prepared.body, &cancel)
                .await?;
            prepared.finish(body)?
        };
        *super::lock(&self.pending_turn_rules) = Some((prompt.clone(), rules));
        Ok(prompt)
    }

    /// The allow rules for a turn sending `prompt`: the last expanded command's, when `prompt`
    /// is its prompt as expanded (an edited prompt gets none).
    pub(crate) fn take_turn_rules(&self, prompt: &str) -> Vec<ExternalRule> {
        match super::lock(&self.pending_turn_rules).take() {
            Some((expanded, rules)) if expanded == prompt => rules,
            _ => Vec::new(),
        }
    }
}

/// `text` typed as a prompt, expanded when it is `/name arguments` naming a command or skill of
/// the project at `at` (its `` !`cmd` ``s run as calls of `session` through `tools`), with its
/// `allowed-tools` as allow rules for the turn (applying when `trusted` covers its file: give
/// them to [`ToolSession::set_turn_rules`] and end them after the turn); `None` when it names
/// none (it is sent as typed). The CLI's `chat` calls this.
pub async fn expand_typed(
    tools: &ToolManager,
    session: &Arc<ToolSession>,
    at: Locations,
    trusted: gantry_config::TrustedFiles,
    text: &str,
    cancel: &CancellationToken,
) -> Result<Option<(String, Vec<ExternalRule>)>, CommandError> {
    let Some(typed) = text.trim_start().strip_prefix('/') else {
        return Ok(None);
    };
    let (name, arguments) = typed.split_once(char::is_whitespace).unwrap_or((typed, ""));
    if name.is_empty() {
        return Ok(None);
    }
    let root = tools.project().clone();
    let prepared = {
        let (name, arguments) = (name.to_owned(), arguments.to_owned());
        tokio::task::spawn_blocking(move || {
            slash::prepare_at(&root, &at, &trusted, &name, &arguments)
        })
        .await?
    };
    let prepared = match prepared {
        Ok(prepared) => prepared,
        Err(error) if error.kind == crate::error::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    let rules = prepared.turn_rules.clone();
    let body = run_shell_spans(tools, session, name, &prepared.body, cancel).await?;
    prepared.finish(body).map(|prompt| Some((prompt, rules)))
}

/// `prompt` with each command of [`shell_spans`] run as a `run_command` call of `session`
/// through `tools`, its output in place of its placeholder. `name` is the command's name, for
/// the messages. Stops at the first command that is refused, fails or is cancelled.
pub async fn run_shell_spans(
    tools: &ToolManager,
    session: &Arc<ToolSession>,
    name: &str,
    prompt: &str,
    cancel: &CancellationToken,
) -> Result<String, CommandError> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let spans = shell_spans(prompt);
    let mut out = String::with_capacity(prompt.len());
    let mut last = 0;
    for span in spans {
        let call_id = format!("slash_{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let context = CallContext::new(call_id, Arc::clone(session)).with_cancel(cancel.clone());
        let observation = tools
            .dispatch("run_command", json!({ "command": span.command }), &context)
            .await;
        let stop = |why: &str| {
            CommandError::invalid(format!(
                "/{name}: !`{}` {why}; nothing was sent",
                span.command
            ))
        };
        let first_line = observation.text.lines().next().unwrap_or_default();
        match observation.kind {
            ObservationKind::Ok => {}
            ObservationKind::Cancelled => return Err(stop("was cancelled")),
            ObservationKind::Denied | ObservationKind::Disabled => {
                return Err(stop(&format!("was refused ({first_line})")));
            }
            ObservationKind::Error | ObservationKind::BadArguments => {
                return Err(stop(&format!("failed ({first_line})")));
            }
        }
        let (code, output) = split_header(&observation.text);
        if code != Some(0) && !(code == Some(1) && exit_one_is_an_answer(&span.command)) {
            return Err(stop(&format!("failed ({first_line})")));
        }
        out.push_str(&prompt[last..span.range.start]);
        out.push_str(output.trim_end());
        last = span.range.end;
    }
    out.push_str(&prompt[last..]);
    Ok(out)
}

/// run_command's `[exit CODE in SECSs]` header's code (`None`: a signal, unknown) and the
/// output after it.
fn split_header(text: &str) -> (Option<i32>, &str) {
    let (header, output) = text.split_once('\n').unwrap_or((text, ""));
    let code = header
        .strip_prefix("[exit ")
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|code| code.parse().ok());
    (code, output)
}

/// True when `command`'s first program is one whose exit 1 answers (nothing found, differs).
fn exit_one_is_an_answer(command: &str) -> bool {
    let program = command
        .split_whitespace()
        .find(|word| !word.contains('='))
        .unwrap_or_default();
    let program = program.rsplit('/').next().unwrap_or(program);
    EXIT_ONE_IS_AN_ANSWER.contains(&program)
        || (program == "git" && command.split_whitespace().nth(1) == Some("diff"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_commands_and_blocks_are_found_where_claude_code_runs_them() {
        let prompt = "Status: !`git status`\n!`git diff HEAD` and a!`not this`\n!` `\n\
                      ```!\nls -a\n```\nSay hi!";
        let spans = shell_spans(prompt);
        let commands: Vec<&str> = spans.iter().map(|s| s.command.as_str()).collect();
        assert_eq!(commands, ["git status", "git diff HEAD", "ls -a"]);
        assert_eq!(&prompt[spans[0].range.clone()], "!`git status`");
        assert_eq!(&prompt[spans[2].range.clone()], "```!\nls -a\n```");
        assert!(shell_spans("Say hi! ```! not a block").is_empty());
    }

    #[test]
    fn exit_one_is_tolerated_only_for_programs_that_answer_with_it() {
        for (command, tolerated) in [
            ("grep -n TODO src", true),
            ("LC_ALL=C /usr/bin/diff a b", true),
            ("git diff --exit-code", true),
            ("git status", false),
            ("cargo test", false),
        ] {
            assert_eq!(exit_one_is_an_answer(command), tolerated, "{command}");
        }
        assert_eq!(split_header("[exit 1 in 0.1s]\nout\n"), (Some(1), "out\n"));
        assert_eq!(split_header("[exit signal 9 in 0.1s]"), (None, ""));
    }
}
