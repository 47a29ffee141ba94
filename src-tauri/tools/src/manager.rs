//! The ToolManager: the registry, the permission gate, and dispatch.
//!
//! One manager serves one open project (all its sessions). Dispatch never fails: whatever the model sends
//! (an unknown name, broken JSON, wrong types) and whatever the tool does (errors, panics,
//! cancellation), the result is an [`Observation`] the model can read, and one audit record.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use futures::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::approval::Approver;
use crate::audit::{AuditRecord, AuditSink, NoAudit, RESULT_EXCERPT_CHARS};
use crate::call::CallContext;
use crate::changes::{CallChanges, ChangeCall, ChangeSink, ChangeWatch, NoChanges};
use crate::coerce::{ArgumentProblem, coerce_arguments};
use crate::confine::ProjectRoot;
use crate::context::ToolContext;
use crate::gate::{Decider, Decision, DecisionKind, Gate, Gated};
use crate::hooks::{HookPermission, ToolHooks};
use crate::observation::{Observation, ObservationKind};
use crate::permission::{PermissionLevel, Policy, PolicySet};
use crate::prompt::UserPrompter;
use crate::rules::RuleBook;
use crate::sandboxing::CommandSandbox;
use crate::text::excerpt;
use crate::tool::{IntoTool, PreparedCall, Tool, ToolOutput, ToolSource};

/// Errors of the manager's own API (dispatch never returns one).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManagerError {
    /// A tool with this name is already registered.
    #[error("a tool named '{0}' is already registered")]
    DuplicateTool(String),
    /// No tool has this name.
    #[error("unknown tool '{0}'")]
    UnknownTool(String),
    /// The name does not match `^[a-zA-Z0-9_-]{{1,64}}$`.
    #[error("invalid tool name '{0}': use 1 to 64 letters, digits, '_' or '-'")]
    InvalidName(String),
    /// The project folder could not be opened.
    #[error("project folder '{path}' is not usable: {reason}")]
    BadRoot {
        /// The folder as given.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// Arguments as the model sent them: a JSON string (the wire format) or a parsed value.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolArguments {
    /// Raw JSON text; an empty string means `{}`.
    Json(String),
    /// An already parsed value.
    Value(Value),
}

impl From<&str> for ToolArguments {
    fn from(json: &str) -> Self {
        Self::Json(json.to_owned())
    }
}

impl From<String> for ToolArguments {
    fn from(json: String) -> Self {
        Self::Json(json)
    }
}

impl From<Value> for ToolArguments {
    fn from(value: Value) -> Self {
        Self::Value(value)
    }
}

/// A registered tool as lists and the UI show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ToolInfo {
    /// The name the model calls it by.
    pub name: String,
    /// One paragraph for the model.
    pub description: String,
    /// How much harm a call can do.
    pub level: PermissionLevel,
    /// The policy in force in this project.
    pub policy: Policy,
    /// Where it comes from.
    pub source: ToolSource,
}

/// Registry, gate and dispatcher for one project. Sessions' grants and file ledgers are not
/// kept here: each call brings its session in its [`CallContext`], so sessions of one project
/// can run at once on one manager.
pub struct ToolManager {
    project: Arc<ProjectRoot>,
    tools: RwLock<BTreeMap<String, Arc<dyn Tool>>>,
    policies: RwLock<PolicySet>,
    approver: Option<Arc<dyn Approver>>,
    prompter: Option<Arc<dyn UserPrompter>>,
    audit: Arc<dyn AuditSink>,
    /// Why the tools whose names start with a prefix are missing (a server that failed to
    /// start): a call to one says so instead of "unknown tool".
    unavailable: RwLock<BTreeMap<String, String>>,
    /// Bumped whenever the set of tools changes.
    changes: tokio::sync::watch::Sender<u64>,
    rules: RuleBook,
    sandbox: Arc<CommandSandbox>,
    change_sink: Arc<dyn ChangeSink>,
    skills: Arc<crate::skills::SkillShelf>,
    hooks: Option<Arc<dyn ToolHooks>>,
}

impl std::fmt::Debug for ToolManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolManager")
            .field("root", &self.root())
            .field("tools", &self.tool_names())
            .field("approver", &self.approver.is_some())
            .field("prompter", &self.prompter.is_some())
            .finish_non_exhaustive()
    }
}

/// True for names providers accept: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl ToolManager {
    /// A manager for the project folder `root`, with no tools, default policies, no rules, no
    /// approver (so Ask means deny), no prompter, no audit, and the system's command sandbox
    /// (probed at the first command) with the network off.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, ManagerError> {
        let given = root.as_ref();
        let project = ProjectRoot::new(given).map_err(|error| ManagerError::BadRoot {
            path: given.to_owned(),
            reason: error.to_string(),
        })?;
        Ok(Self {
            project: Arc::new(project),
            tools: RwLock::default(),
            policies: RwLock::default(),
            approver: None,
            prompter: None,
            audit: Arc::new(NoAudit),
            unavailable: RwLock::default(),
            changes: tokio::sync::watch::channel(0).0,
            rules: RuleBook::default(),
            sandbox: Arc::new(CommandSandbox::system()),
            change_sink: Arc::new(NoChanges),
            skills: Arc::default(),
            hooks: None,
        })
    }

    /// The project's skills: set its library to offer skills to the `skill` tool
    /// ([`crate::builtin::skill`]); the folders it opens become readable to read_file.
    pub fn skills(&self) -> &Arc<crate::skills::SkillShelf> {
        &self.skills
    }

    /// Sets how commands are sandboxed (tests, a front end that probed already).
    #[must_use]
    pub fn with_sandbox(mut self, sandbox: CommandSandbox) -> Self {
        self.sandbox = Arc::new(sandbox);
        self
    }

    /// How the project's commands are sandboxed; its settings change in place and hold for the
    /// next command.
    pub fn sandbox(&self) -> &Arc<CommandSandbox> {
        &self.sandbox
    }

    /// The project's rules (replace them after an edit in the store; set where the dialog's
    /// "always allow in this project" saves them).
    pub fn rules(&self) -> &RuleBook {
        &self.rules
    }

    /// The project folder with its settings (the variables its commands receive on purpose:
    /// [`ProjectRoot::set_env_pass`]); shared with every call's context.
    pub fn project(&self) -> &Arc<ProjectRoot> {
        &self.project
    }

    /// Sets who decides calls whose policy is Ask.
    #[must_use]
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Sets who answers the model's questions.
    #[must_use]
    pub fn with_prompter(mut self, prompter: Arc<dyn UserPrompter>) -> Self {
        self.prompter = Some(prompter);
        self
    }

    /// Sets where audit records go.
    #[must_use]
    pub fn with_audit(mut self, audit: Arc<dyn AuditSink>) -> Self {
        self.audit = audit;
        self
    }

    /// Sets the user's hooks around tool calls (see [`crate::hooks`]).
    #[must_use]
    pub fn with_hooks(mut self, hooks: Arc<dyn ToolHooks>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// Sets where the changes of calls go (checkpoints): see [`crate::ChangeSink`].
    #[must_use]
    pub fn with_changes(mut self, changes: Arc<dyn ChangeSink>) -> Self {
        self.change_sink = changes;
        self
    }

    /// Starts with these policies (loaded from the store).
    #[must_use]
    pub fn with_policies(self, policies: PolicySet) -> Self {
        *self
            .policies
            .write()
            .unwrap_or_else(PoisonError::into_inner) = policies;
        self
    }

    /// The project folder (canonical).
    pub fn root(&self) -> &Path {
        self.project.path()
    }

    /// Whether someone answers the model's questions (ask_user works).
    pub fn has_prompter(&self) -> bool {
        self.prompter.is_some()
    }

    /// A receiver that sees a new value whenever a tool is added, removed or replaced (an MCP
    /// server's `tools/list_changed`), so front ends can refresh their lists.
    pub fn subscribe_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    fn changed(&self) {
        self.changes.send_modify(|version| *version += 1);
    }

    /// Records why the tools named `prefix...` are missing (`None`: they are not missing any
    /// more). A call to such a name answers `why` instead of "unknown tool".
    pub fn set_unavailable(&self, prefix: &str, why: Option<String>) {
        let mut unavailable = self
            .unavailable
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        match why {
            Some(why) => {
                unavailable.insert(prefix.to_owned(), why);
            }
            None => {
                unavailable.remove(prefix);
            }
        }
    }

    /// Why `name` is missing, when a source said.
    fn why_unavailable(&self, name: &str) -> Option<String> {
        self.unavailable
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|(prefix, _)| name.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, why)| why.clone())
    }

    /// The names of the tools the model may call (not Disabled, not removed by a deny rule of
    /// another agent naming the whole tool), sorted.
    pub fn callable_tool_names(&self) -> Vec<String> {
        let external = self.rules.external();
        self.tools()
            .into_iter()
            .filter(|tool| tool.policy != Policy::Disabled && !external.removes(&tool.name))
            .map(|tool| tool.name)
            .collect()
    }

    // ----- registry -------------------------------------------------------------------------

    /// Adds a tool. A name already taken is an error, never a silent overwrite.
    pub fn register(&self, tool: impl IntoTool) -> Result<(), ManagerError> {
        let tool = tool.into_tool();
        let name = tool.name().to_owned();
        if !is_valid_tool_name(&name) {
            return Err(ManagerError::InvalidName(name));
        }
        let mut tools = self.tools.write().unwrap_or_else(PoisonError::into_inner);
        if tools.contains_key(&name) {
            return Err(ManagerError::DuplicateTool(name));
        }
        tools.insert(name, tool);
        drop(tools);
        self.changed();
        Ok(())
    }

    /// Removes a tool; true when it was registered.
    pub fn unregister(&self, name: &str) -> bool {
        let removed = self
            .tools
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(name)
            .is_some();
        if removed {
            self.changed();
        }
        removed
    }

    /// Replaces every tool from `source` by `tools` in one step (an MCP server's new listing).
    /// Tools whose names clash with another source's are skipped and returned.
    pub fn replace_source(&self, source: &ToolSource, tools: Vec<Arc<dyn Tool>>) -> Vec<String> {
        let mut registry = self.tools.write().unwrap_or_else(PoisonError::into_inner);
        registry.retain(|_, tool| tool.source() != *source);
        let mut clashes = Vec::new();
        for tool in tools {
            let name = tool.name().to_owned();
            if !is_valid_tool_name(&name) || registry.contains_key(&name) {
                clashes.push(name);
            } else {
                registry.insert(name, tool);
            }
        }
        drop(registry);
        self.changed();
        clashes
    }

    /// A registered tool.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .cloned()
    }

    /// Every tool name, sorted.
    pub fn tool_names(&self) -> Vec<String> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }

    /// Every tool with its policy in this project, sorted by name.
    pub fn tools(&self) -> Vec<ToolInfo> {
        let tools = self.tools.read().unwrap_or_else(PoisonError::into_inner);
        let policies = self.policies.read().unwrap_or_else(PoisonError::into_inner);
        tools
            .values()
            .map(|tool| ToolInfo {
                name: tool.name().to_owned(),
                description: tool.description().to_owned(),
                level: tool.level(),
                policy: policies.effective(tool.name(), tool.level()),
                source: tool.source(),
            })
            .collect()
    }

    /// The OpenAI function schemas of every registered tool, sorted by name.
    pub fn openai_schemas(&self) -> Vec<Value> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .map(|tool| tool.to_openai_schema())
            .collect()
    }

    /// The OpenAI function schemas of the tools the model may call (not Disabled, not removed
    /// by a deny rule of another agent naming the whole tool).
    pub fn enabled_openai_schemas(&self) -> Vec<Value> {
        let external = self.rules.external();
        let tools = self.tools.read().unwrap_or_else(PoisonError::into_inner);
        let policies = self.policies.read().unwrap_or_else(PoisonError::into_inner);
        tools
            .values()
            .filter(|tool| policies.effective(tool.name(), tool.level()) != Policy::Disabled)
            .filter(|tool| !external.removes(tool.name()))
            .map(|tool| tool.to_openai_schema())
            .collect()
    }

    // ----- policies -------------------------------------------------------------------------

    /// The project's explicit policy choices (what the store persists).
    pub fn policies(&self) -> PolicySet {
        self.policies
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The policy in force for a tool.
    pub fn policy(&self, name: &str) -> Result<Policy, ManagerError> {
        let tool = self
            .get(name)
            .ok_or_else(|| ManagerError::UnknownTool(name.to_owned()))?;
        Ok(self
            .policies
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .effective(name, tool.level()))
    }

    /// Sets a tool's policy for this project.
    pub fn set_policy(&self, name: &str, policy: Policy) -> Result<(), ManagerError> {
        self.get(name)
            .ok_or_else(|| ManagerError::UnknownTool(name.to_owned()))?;
        self.policies
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .set(name, policy);
        Ok(())
    }

    /// Returns a tool to its level's default policy.
    pub fn reset_policy(&self, name: &str) {
        self.policies
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .clear(name);
    }

    /// Returns every tool to its level's default policy.
    pub fn reset_policies(&self) {
        *self
            .policies
            .write()
            .unwrap_or_else(PoisonError::into_inner) = PolicySet::new();
    }

    /// Enables a disabled tool. A DANGEROUS tool is set to Ask (it still asks each call); a
    /// tool whose default is not Disabled returns to its default. An enabled tool is unchanged.
    pub fn enable(&self, name: &str) -> Result<Policy, ManagerError> {
        let tool = self
            .get(name)
            .ok_or_else(|| ManagerError::UnknownTool(name.to_owned()))?;
        let mut policies = self
            .policies
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let current = policies.effective(name, tool.level());
        if current != Policy::Disabled {
            return Ok(current);
        }
        let enabled = match tool.level().default_policy() {
            Policy::Disabled => Policy::Ask,
            default => default,
        };
        policies.set(name, enabled);
        Ok(enabled)
    }

    /// Disables a tool for this project.
    pub fn disable(&self, name: &str) -> Result<(), ManagerError> {
        self.set_policy(name, Policy::Disabled)
    }

    // ----- dispatch ---------------------------------------------------------------------------

    /// Runs one call as the model asked for it and returns what the model should read. The
    /// call's context says which call and session it is (the session's grants and file ledger
    /// apply), who hears about its approval step, and when to stop: on cancellation a pending
    /// approval is withdrawn, a running tool is dropped (tools clean up on drop, e.g.
    /// run_command kills its process group), and the observation says the call was cancelled.
    ///
    /// Three steps, each of which can end the call with an observation: [`Self::validate`]
    /// (the tool exists, the arguments read and coerce), the gate (policy, session grants, the
    /// approver) and the run.
    pub async fn dispatch(
        &self,
        name: &str,
        arguments: impl Into<ToolArguments>,
        call: &CallContext,
    ) -> Observation {
        let started = Instant::now();
        let started_at_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|since| i64::try_from(since.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or_default();
        let mut outcome = match self.validate(name, arguments.into()) {
            Ok(valid) => self.hooked_gate_and_run(valid, call).await,
            Err(outcome) => *outcome,
        };
        let duration = started.elapsed();
        let observation = Observation {
            tool: name.to_owned(),
            text: outcome.output.text,
            kind: outcome.kind,
            decision: outcome.decision,
            duration,
            truncated: outcome.output.truncated,
            diff: outcome.output.diff.take(),
            sandbox: outcome.output.sandbox.take(),
        };
        let record = AuditRecord {
            session_id: call.session().id().map(str::to_owned),
            tool: name.to_owned(),
            level: outcome.level,
            arguments: outcome.arguments,
            decision: observation.decision.clone(),
            outcome: observation.kind,
            duration,
            result_excerpt: excerpt(&observation.text, RESULT_EXCERPT_CHARS),
            started_at_ms,
        };
        self.audit.record(record).await;
        observation
    }

    /// The first step: finds the tool, reads the arguments, coerces them against its schema and
    /// lets the tool check them. A failure is the call's outcome.
    fn validate(&self, name: &str, arguments: ToolArguments) -> Result<ValidCall, Box<Outcome>> {
        let Some(tool) = self.get(name) else {
            let text = match self.why_unavailable(name) {
                Some(why) => format!("[error] tool '{name}' is unavailable: {why}"),
                None => {
                    // Only what the model may call: a disabled tool is not an option.
                    let available = self.callable_tool_names().join(", ");
                    format!("[error] unknown tool '{name}'; available: {available}")
                }
            };
            return Err(Box::new(Outcome::engine(
                arguments.into_value_lossy(),
                ObservationKind::Error,
                text,
            )));
        };
        let level = tool.level();
        let value = match arguments.parse() {
            Ok(value) => value,
            Err(message) => {
                return Err(Box::new(
                    Outcome::engine(Value::Null, ObservationKind::Error, message).at(level),
                ));
            }
        };
        prepare_call(tool, value)
    }

    /// The gate, then (if it allows) the run; `hook` is what a PreToolUse hook said.
    async fn gate_and_run(
        &self,
        valid: ValidCall,
        call: &CallContext,
        hook: Option<(HookPermission, String, Option<String>)>,
    ) -> Outcome {
        let ValidCall { tool, prepared } = valid;
        let name = tool.name().to_owned();
        let level = tool.level();
        let context = ToolContext::new(Arc::clone(&self.project))
            .with_call_id(call.call_id())
            .with_session_id(call.session().id().map(str::to_owned))
            .with_files(Arc::clone(call.session().files()))
            .with_cancel(call.cancel_token().child_token())
            .with_prompter(self.prompter.clone())
            .with_observer(call.shared_observer())
            .with_sandbox(Arc::clone(&self.sandbox))
            .with_session_temp(Arc::clone(call.session().temp()))
            .with_skills(Arc::clone(&self.skills));
        let policy = self
            .policies
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .effective(&name, level);
        let gated = Gate {
            tool: tool.as_ref(),
            policy,
            prepared: prepared.as_ref(),
            context: &context,
            call,
            rules: &self.rules,
            hook,
        }
        .decide(self.approver.as_deref())
        .await;
        let arguments = prepared.arguments().clone();
        let decision = match gated {
            Gated::Allowed(decision) => decision,
            Gated::Cancelled => {
                return Outcome::cancelled(arguments, Decision::not_evaluated()).at(level);
            }
            Gated::Refused(decision) => {
                let kind = if decision.kind == DecisionKind::Disabled {
                    ObservationKind::Disabled
                } else {
                    ObservationKind::Denied
                };
                let output = ToolOutput::text(refusal_text(&name, level, &decision));
                return Outcome {
                    level: Some(level),
                    arguments,
                    decision,
                    kind,
                    output,
                };
            }
        };
        let changes = match change_watch(tool.as_ref()) {
            None => None,
            Some(watch) => {
                let change_call = ChangeCall {
                    session_id: call.session().id(),
                    call_id: call.call_id(),
                    tool: &name,
                    watch,
                };
                let started = self.change_sink.call_started(&change_call);
                tokio::select! {
                    biased;
                    () = call.cancel_token().cancelled() => {
                        return Outcome::cancelled(arguments, decision).at(level);
                    }
                    changes = started => changes,
                }
            }
        };
        let context = context.with_changes(changes.clone());
        let outcome = run(&name, prepared, context, call.cancel_token(), decision).await;
        if let Some(changes) = changes {
            finish_changes(changes).await;
        }
        outcome.at(level).with_arguments(arguments)
    }
}

/// How the change sink learns what a call of `tool` changes: not at all for a SAFE tool (it
/// reads), by the tool's own reports for one that records its changes, by comparing the
/// project before and after for any other.
fn change_watch(tool: &dyn Tool) -> Option<ChangeWatch> {
    if tool.level() == PermissionLevel::Safe {
        None
    } else if tool.records_changes() {
        Some(ChangeWatch::Reported)
    } else {
        Some(ChangeWatch::Snapshot)
    }
}

/// Tells the call's change record that the call ended (also when it was cancelled: what it
/// changed up to then is recorded). Once started it runs to its end on its own task, even if
/// the dispatch future is dropped meanwhile.
async fn finish_changes(changes: Arc<dyn CallChanges>) {
    let finishing = tokio::spawn(async move { changes.finished().await });
    if let Err(error) = finishing.await {
        tracing::error!(%error, "recording a call's changes failed");
    }
}

/// Coerces `value` against `tool`'s schema and lets the tool check it.
fn prepare_call(tool: Arc<dyn Tool>, mut value: Value) -> Result<ValidCall, Box<Outcome>> {
    let mut problems = coerce_arguments(tool.parameters(), &mut value);
    if problems.is_empty() {
        match tool.prepare(value.clone()) {
            Ok(prepared) => return Ok(ValidCall { tool, prepared }),
            Err(more) => problems = more,
        }
    }
    let level = tool.level();
    Err(Box::new(
        Outcome::engine(
            value,
            ObservationKind::BadArguments,
            bad_arguments_text(tool.name(), &problems),
        )
        .at(level),
    ))
}

/// A call whose tool exists and whose arguments the tool accepted.
struct ValidCall {
    tool: Arc<dyn Tool>,
    prepared: Box<dyn PreparedCall>,
}

/// The last step: runs an allowed call, turning errors, panics and cancellation into its outcome.
async fn run(
    name: &str,
    prepared: Box<dyn PreparedCall>,
    context: ToolContext,
    cancel: &CancellationToken,
    decision: Decision,
) -> Outcome {
    let running = std::panic::AssertUnwindSafe(prepared.run(context)).catch_unwind();
    let result = tokio::select! {
        biased;
        () = cancel.cancelled() => return Outcome::cancelled(Value::Null, decision),
        result = running => result,
    };
    let (kind, output) = match result {
        Ok(Ok(output)) if output.is_error => (ObservationKind::Error, output),
        Ok(Ok(output)) => (ObservationKind::Ok, output),
        Ok(Err(error)) => (
            ObservationKind::Error,
            ToolOutput::text(format!("[error] {error}")),
        ),
        Err(_panic) => {
            tracing::error!(tool = name, "tool panicked");
            (
                ObservationKind::Error,
                ToolOutput::text(format!(
                    "[error] tool '{name}' failed unexpectedly (internal error)"
                )),
            )
        }
    };
    Outcome {
        level: None,
        arguments: Value::Null,
        decision,
        kind,
        output,
    }
}

/// Everything dispatch learned about a call, before it becomes an observation and a record.
struct Outcome {
    level: Option<PermissionLevel>,
    arguments: Value,
    decision: Decision,
    kind: ObservationKind,
    output: ToolOutput,
}

impl Outcome {
    fn engine(arguments: Value, kind: ObservationKind, text: String) -> Self {
        Self {
            level: None,
            arguments,
            decision: Decision::not_evaluated(),
            kind,
            output: ToolOutput::text(text),
        }
    }

    fn cancelled(arguments: Value, decision: Decision) -> Self {
        Self {
            level: None,
            arguments,
            decision,
            kind: ObservationKind::Cancelled,
            output: ToolOutput::text("[cancelled] the call was cancelled before it finished"),
        }
    }

    fn at(mut self, level: PermissionLevel) -> Self {
        self.level = Some(level);
        self
    }

    fn with_arguments(mut self, arguments: Value) -> Self {
        self.arguments = arguments;
        self
    }
}

impl ToolArguments {
    /// The arguments as a JSON object (`""` and `null` mean `{}`), or the error text.
    fn parse(self) -> Result<Value, String> {
        let value = match self {
            ToolArguments::Value(value) => value,
            ToolArguments::Json(text) if text.trim().is_empty() => {
                Value::Object(serde_json::Map::new())
            }
            ToolArguments::Json(text) => serde_json::from_str(&text)
                .map_err(|error| format!("[error] arguments are not valid JSON: {error}"))?,
        };
        Ok(if value.is_null() {
            Value::Object(serde_json::Map::new())
        } else {
            value
        })
    }

    /// The arguments for the audit log of a call that never got further.
    fn into_value_lossy(self) -> Value {
        match self {
            ToolArguments::Value(value) => value,
            ToolArguments::Json(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        }
    }
}

fn bad_arguments_text(tool: &str, problems: &[ArgumentProblem]) -> String {
    let mut text = format!("[error] invalid arguments for tool '{tool}':");
    for problem in problems {
        text.push_str("\n- ");
        text.push_str(&problem.to_string());
    }
    text
}

fn refusal_text(tool: &str, level: PermissionLevel, decision: &Decision) -> String {
    match (decision.kind, decision.by, &decision.detail) {
        (DecisionKind::Disabled, ..) => {
            format!(
                "[disabled] tool '{tool}' is disabled (level: {level}); enable it for this project to use it"
            )
        }
        (_, Decider::NoApprover, _) => {
            format!("[denied] the user denied tool '{tool}' (no one was available to approve it)")
        }
        (_, Decider::ExternalRule, detail) => format!(
            "[denied] the {} refuses this call of '{tool}'; do not retry it, ask the user if \
             it is needed",
            detail
                .as_deref()
                .unwrap_or("rule of another agent's settings")
        ),
        (_, Decider::Rule, detail) => format!(
            "[denied] a rule of this project refuses this call of '{tool}'{}; do not retry it, \
             ask the user if it is needed",
            detail
                .as_deref()
                .map(|rule| format!(" ({rule})"))
                .unwrap_or_default()
        ),
        (_, _, Some(reason)) => format!("[denied] the user denied tool '{tool}': {reason}"),
        _ => format!("[denied] the user denied tool '{tool}'"),
    }
}

mod hooked;
#[cfg(test)]
mod tests;
