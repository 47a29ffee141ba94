//! The user's hooks (Claude Code's and Codex's), run for a project: the tool events through the
//! tool manager's seam ([`gantry_tools::hooks::ToolHooks`]), the session events from the chat
//! ([`ProjectHooks::fire`]), and the list the Tools panel shows ([`ProjectHooks::list`]).
//!
//! The hook files are read again at every event, and the trust with them, so a hook edited or
//! a trust given takes effect at the next event, and a project hook changed since it was
//! trusted does not run. Hooks run outside the command sandbox, as in the agents they come
//! from, with Gantry's environment minus every secret (see gantry-config's `hooks::run`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use gantry_config::hooks::{
    EventOutcome, HookEvent, HookKey, HookSet, Permission, RunEnv, fire, load_hooks,
};
use gantry_config::{ConfigReport, Locations};
use gantry_store::{HookRunKey, HookRunRow, ProjectId, Store};
use gantry_tools::ObservationKind;
use gantry_tools::hooks::names::{gantry_arguments, hook_subject, hook_tool_input, hook_tool_name};
use gantry_tools::hooks::{
    HookPermission, HookedCall, HookedResult, PostToolVerdict, PreToolVerdict, ToolHooks,
};
use serde_json::{Map, Value, json};

pub use gantry_config::hooks::HookListing;

use super::trusted_files;

/// The hooks of one open project.
pub struct ProjectHooks {
    store: Store,
    project: ProjectId,
    at: Locations,
    transcripts: Option<PathBuf>,
    /// The sessions whose SessionStart (startup or resume) already fired in this process.
    started: Mutex<BTreeSet<String>>,
    /// What hooks said for the user and no turn showed yet (see [`HookNotices`]).
    notices: HookNotices,
}

/// What the hooks said for the user (`systemMessage`, stderr meant for the user, a hook's
/// error) and a `continue: false` with its `stopReason`, kept until the turn running shows
/// them: the tool events fire inside the tool manager, which has no way to the turn's events.
#[derive(Debug, Clone, Default)]
pub struct HookNotices {
    inner: Arc<Mutex<NoticeQueue>>,
}

#[derive(Debug, Default)]
struct NoticeQueue {
    messages: Vec<String>,
    stop: Option<String>,
}

impl HookNotices {
    fn queue(&self) -> std::sync::MutexGuard<'_, NoticeQueue> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `outcome`'s messages for the user, and its stop.
    pub fn keep(&self, outcome: &EventOutcome) {
        let mut queue = self.queue();
        queue.messages.extend(outcome.user_messages());
        if let Some(reason) = outcome.stop()
            && queue.stop.is_none()
        {
            queue.stop = Some(reason.to_owned());
        }
    }

    /// Keeps one more message for the user.
    pub fn push(&self, message: String) {
        self.queue().messages.push(message);
    }

    /// The messages kept, oldest first, now forgotten.
    pub fn take_messages(&self) -> Vec<String> {
        std::mem::take(&mut self.queue().messages)
    }

    /// The `stopReason` of a hook that answered `continue: false`, now forgotten.
    pub fn take_stop(&self) -> Option<String> {
        self.queue().stop.take()
    }
}

impl std::fmt::Debug for ProjectHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProjectHooks")
            .field("project", &self.at.project)
            .finish_non_exhaustive()
    }
}

impl ProjectHooks {
    /// The hooks of the project `project` at `at` (its folder and the user's home), with the
    /// trust the store keeps.
    pub fn new(store: Store, project: ProjectId, at: Locations) -> Self {
        let transcripts = store.path().parent().map(|data| data.join("transcripts"));
        Self {
            store,
            project,
            at,
            transcripts,
            started: Mutex::default(),
            notices: HookNotices::default(),
        }
    }

    /// What the hooks said for the user that no turn showed yet.
    pub fn notices(&self) -> &HookNotices {
        &self.notices
    }

    /// The sessions whose SessionStart fired in this process, now forgotten (they end).
    pub fn take_started(&self) -> Vec<String> {
        std::mem::take(&mut *self.started.lock().unwrap_or_else(PoisonError::into_inner))
            .into_iter()
            .collect()
    }

    /// Forgets `session` (it ended: deleted or cleared).
    pub fn forget(&self, session: &str) {
        self.started
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(session);
    }

    /// True the first time it is asked about `session` (its SessionStart is then due).
    pub fn first_sight(&self, session: &str) -> bool {
        self.started
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(session.to_owned())
    }

    /// The project folder.
    pub fn root(&self) -> &Path {
        &self.at.project
    }

    /// Every hook of the five files, with the report of what each file gave.
    pub async fn load(&self) -> (HookSet, ConfigReport) {
        let trusted = trusted_files(&self.store, self.project).await;
        load_hooks(&self.at, &trusted)
    }

    /// True when some hook would run for `event` (trusted, hooks not disabled).
    pub async fn wants(&self, event: HookEvent) -> bool {
        self.load().await.0.has(event)
    }

    /// Every hook (trusted or not, disabled or not) with its last run (kept in the store, so
    /// runs of the CLI and of the app show alike), in file order.
    pub async fn list(&self) -> Vec<HookListing> {
        let (set, _report) = self.load().await;
        let last: BTreeMap<HookRunKey, HookRunRow> =
            match self.store.hook_runs().list(self.project).await {
                Ok(rows) => rows.into_iter().map(|row| (row.key.clone(), row)).collect(),
                Err(error) => {
                    tracing::warn!(%error, "cannot read the hooks' last runs");
                    BTreeMap::new()
                }
            };
        set.hooks
            .iter()
            .map(|hook| {
                let mut listing = HookListing::of(hook, set.disabled_by.is_some());
                if let Some(row) = last.get(&run_key(&listing.key())) {
                    listing.last_run_at_ms = Some(row.finished_at_ms);
                    listing.last_result = Some(row.result.clone());
                }
                listing
            })
            .collect()
    }

    /// Where the JSONL transcript of `session` is kept (`transcript_path`).
    pub fn transcript_path(&self, session: &str) -> Option<PathBuf> {
        self.transcripts
            .as_ref()
            .map(|dir| dir.join(format!("{session}.jsonl")))
    }

    /// The input fields every event carries: `session_id`, `transcript_path`, `cwd`,
    /// `permission_mode`.
    pub fn common_input(&self, session: Option<&str>) -> Map<String, Value> {
        let mut input = Map::new();
        input.insert("session_id".into(), json!(session.unwrap_or_default()));
        let transcript = session.and_then(|session| self.transcript_path(session));
        input.insert(
            "transcript_path".into(),
            transcript.map_or(Value::Null, |path| json!(path)),
        );
        input.insert("cwd".into(), json!(self.at.project));
        input.insert("permission_mode".into(), json!("default"));
        input
    }

    /// Runs the trusted hooks of `event` matching `subject` (a tool name, a session source, a
    /// trigger) with `input` (the event's own fields; the common ones are added), and
    /// remembers how each ended for the list.
    pub async fn fire(
        &self,
        event: HookEvent,
        session: Option<&str>,
        subject: Option<&str>,
        tool_subject: Option<&str>,
        input: Map<String, Value>,
    ) -> EventOutcome {
        let (set, _report) = self.load().await;
        if !set.has(event) {
            return EventOutcome::default();
        }
        let mut all = self.common_input(session);
        all.extend(input);
        let env = RunEnv::scrubbed(&self.at.project);
        let outcome = fire(&set, event, subject, tool_subject, Value::Object(all), &env).await;
        for ran in &outcome.ran {
            let row = HookRunRow {
                key: run_key(&HookListing::of(&ran.hook, false).key()),
                finished_at_ms: ran.finished_at_ms,
                result: ran.outcome.summary.clone(),
            };
            if let Err(error) = self.store.hook_runs().record(self.project, &row).await {
                tracing::warn!(%error, "cannot keep a hook's last run");
            }
            for message in ran.outcome.user_message.iter().chain(&ran.outcome.error) {
                tracing::info!(hook = %ran.hook.describe(), "{message}");
            }
        }
        self.notices.keep(&outcome);
        outcome
    }
}

/// The store's key of a hook.
fn run_key((path, event, matcher, command): &HookKey) -> HookRunKey {
    HookRunKey {
        source_path: path.to_string_lossy().into_owned(),
        event: event.as_str().to_owned(),
        matcher: matcher.clone(),
        command: command.clone(),
    }
}

/// `tool_input` and the `if` subject of a call.
fn tool_fields(call: &HookedCall<'_>) -> (Map<String, Value>, String, Value) {
    let name = hook_tool_name(call.tool).to_owned();
    let input = hook_tool_input(call.tool, call.arguments, call.root);
    let mut fields = Map::new();
    fields.insert("tool_name".into(), json!(name));
    fields.insert("tool_input".into(), input.clone());
    fields.insert("tool_use_id".into(), json!(call.call_id));
    (fields, name, input)
}

#[async_trait]
impl ToolHooks for ProjectHooks {
    async fn pre_tool_use(&self, call: &HookedCall<'_>) -> PreToolVerdict {
        let (fields, name, input) = tool_fields(call);
        let outcome = self
            .fire(
                HookEvent::PreToolUse,
                call.session_id,
                Some(&name),
                hook_subject(&input),
                fields,
            )
            .await;
        let mut verdict = PreToolVerdict {
            context: outcome.context(),
            ..PreToolVerdict::default()
        };
        if let Some((permission, ran)) = outcome.permission() {
            verdict.permission = Some(match permission {
                Permission::Allow => HookPermission::Allow,
                Permission::Ask => HookPermission::Ask,
                Permission::Deny => HookPermission::Deny,
            });
            verdict.reason = match permission {
                Permission::Deny => ran.outcome.block.clone(),
                _ => ran.outcome.permission_reason.clone(),
            };
            // An `allow`'s reason is for the user (an `ask`'s is the dialog's "why").
            if permission == Permission::Allow
                && let Some(reason) = &verdict.reason
            {
                self.notices.push(format!(
                    "a PreToolUse hook ({}) allowed {name}: {reason}",
                    ran.hook.source.shown
                ));
            }
            verdict.decided_by = Some(ran.hook.source.shown.clone());
        }
        if let Some((updated, ran)) = outcome.updated_input() {
            verdict.updated_arguments = Some(gantry_arguments(call.tool, updated, call.root));
            verdict
                .decided_by
                .get_or_insert_with(|| ran.hook.source.shown.clone());
        }
        verdict
    }

    async fn post_tool_use(
        &self,
        call: &HookedCall<'_>,
        result: &HookedResult<'_>,
    ) -> PostToolVerdict {
        let (mut fields, name, input) = tool_fields(call);
        let event = if result.kind == ObservationKind::Ok {
            let response = if call.tool == "run_command" {
                json!({"stdout": result.text, "stderr": "", "interrupted": false, "isImage": false})
            } else {
                json!({"output": result.text})
            };
            fields.insert("tool_response".into(), response);
            HookEvent::PostToolUse
        } else {
            fields.insert("error".into(), json!(result.text));
            HookEvent::PostToolUseFailure
        };
        let duration = u64::try_from(result.duration.as_millis()).unwrap_or(u64::MAX);
        fields.insert("duration_ms".into(), json!(duration));
        let outcome = self
            .fire(
                event,
                call.session_id,
                Some(&name),
                hook_subject(&input),
                fields,
            )
            .await;
        PostToolVerdict {
            feedback: outcome
                .ran
                .iter()
                .filter_map(|ran| ran.outcome.block.clone())
                .collect(),
            context: outcome.context(),
        }
    }
}
