//! The session's hook events around a turn (spec §1.1): SessionStart before a session's first
//! turn (its output is context for the model), UserPromptSubmit before the prompt is
//! sent (a block keeps it from the model and tells the user why; context goes to the model
//! in the system prompt's hook context, never into the user's message) and Stop when a turn ends (a block makes the turn go on with the reason as
//! the next instruction, at most [`MAX_STOP_BLOCKS`] times in a row, with `stop_hook_active`
//! set). Before each event the session's transcript is written where `transcript_path` says,
//! one JSON line per message, in Claude Code's shape (`{type, message: {role, content},
//! session_id}`).

use std::io::Write;
use std::path::Path;

use gantry_agent::{Message, Role, Session};
use gantry_config::hooks::{EventOutcome, HookEvent};
use serde_json::{Map, Value, json};

use crate::config::hooks::ProjectHooks;

/// The most consecutive times Stop hooks can make a turn go on.
pub const MAX_STOP_BLOCKS: u32 = 8;

/// Writes `session`'s transcript as JSONL where its hooks read it. A failure is logged: a hook
/// then reads an older transcript, as Claude Code's may lag.
pub fn write_transcript(hooks: &ProjectHooks, session: &Session) {
    let Some(path) = hooks.transcript_path(session.id()) else {
        return;
    };
    if let Err(error) = write_lines(&path, session) {
        tracing::warn!(%error, path = %path.display(), "cannot write the transcript hooks read");
    }
}

fn write_lines(path: &Path, session: &Session) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut text = Vec::new();
    for message in session.transcript().messages() {
        let role = serde_json::to_value(message.role).unwrap_or(Value::Null);
        let line = json!({
            "type": role,
            "message": {"role": role, "content": message.content},
            "session_id": session.id(),
        });
        serde_json::to_writer(&mut text, &line).map_err(std::io::Error::other)?;
        text.push(b'\n');
    }
    let mut file = tempfile::NamedTempFile::new_in(path.parent().unwrap_or(Path::new(".")))?;
    file.write_all(&text)?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}

/// Runs the SessionStart hooks the first time this process drives `session`: source
/// `startup` for a new session, `resume` for a stored one continued (the CLI's `--session`, the
/// app reopening a session). Their context (plain stdout or `additionalContext`) goes to the
/// model as the hooks' context (see [`gantry_agent::hook_context`]), not in the user's message.
async fn session_start(hooks: &ProjectHooks, session: &mut Session) {
    let mut contexts = Vec::new();
    if hooks.first_sight(session.id()) && hooks.wants(HookEvent::SessionStart).await {
        let source = if session.transcript().is_empty() {
            "startup"
        } else {
            write_transcript(hooks, session);
            "resume"
        };
        contexts.extend(fire_session_start(hooks, session.id(), source).await);
    }
    for context in contexts {
        session.add_hook_context("SessionStart", &context);
    }
}

/// Fires SessionStart with `source` (`startup`, `resume`, `compact`) and returns the context
/// its hooks gave.
pub(crate) async fn fire_session_start(
    hooks: &ProjectHooks,
    session: &str,
    source: &str,
) -> Vec<String> {
    let mut input = Map::new();
    input.insert("source".into(), json!(source));
    hooks
        .fire(
            HookEvent::SessionStart,
            Some(session),
            Some(source),
            None,
            input,
        )
        .await
        .context()
}

/// Runs the SessionStart hooks before a session's first turn, then the UserPromptSubmit hooks
/// on `message`: `Err(reason)` when one blocks it; otherwise their context goes to the model
/// as the hooks' context, the message stays the user's words.
pub async fn before_prompt(
    hooks: &ProjectHooks,
    session: &mut Session,
    message: &Message,
) -> Result<(), String> {
    session_start(hooks, session).await;
    if !hooks.wants(HookEvent::UserPromptSubmit).await {
        return Ok(());
    }
    write_transcript(hooks, session);
    let mut input = Map::new();
    input.insert("prompt".into(), json!(message.content));
    let outcome = hooks
        .fire(
            HookEvent::UserPromptSubmit,
            Some(session.id()),
            None,
            None,
            input,
        )
        .await;
    if let Some((ran, reason)) = outcome.block() {
        hooks.notices().take_stop();
        return Err(format!(
            "A UserPromptSubmit hook ({}) blocked this prompt: {reason}",
            ran.hook.source.shown
        ));
    }
    if let Some(reason) = outcome.stop() {
        // Said once, as the refusal.
        hooks.notices().take_stop();
        return Err(reason.to_owned());
    }
    for context in outcome.context() {
        session.add_hook_context("UserPromptSubmit", &context);
    }
    Ok(())
}

/// Runs the Stop hooks after a turn: the instruction to go on with, when one blocks.
pub async fn after_turn(hooks: &ProjectHooks, session: &Session, active: bool) -> Option<String> {
    if !hooks.wants(HookEvent::Stop).await {
        return None;
    }
    write_transcript(hooks, session);
    let last = session
        .transcript()
        .messages()
        .iter()
        .rev()
        .find(|message| message.role == Role::Assistant)
        .map(|message| message.content.clone())
        .unwrap_or_default();
    let mut input = Map::new();
    input.insert("stop_hook_active".into(), json!(active));
    input.insert("last_assistant_message".into(), json!(last));
    let outcome: EventOutcome = hooks
        .fire(HookEvent::Stop, Some(session.id()), None, None, input)
        .await;
    if outcome.stop().is_some() {
        return None;
    }
    outcome
        .block()
        .map(|(ran, reason)| format!("[Stop hook {}] {reason}", ran.hook.source.shown))
}
