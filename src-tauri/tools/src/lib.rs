//! Gantry's tool system.
//!
//! The model calls tools; Gantry owns them and decides what may run. A tool is a typed async
//! function whose argument struct yields its JSON Schema ([`ToolFn`], usually through the
//! [`macro@tool`] attribute). The [`ToolManager`] registers tools, holds the project's
//! [`PolicySet`], asks the [`Approver`] when a policy says Ask, and turns every call — good, bad,
//! denied, failed or cancelled — into an [`Observation`] the model can read, with one
//! [`AuditRecord`] per call. Each call brings its [`CallContext`]: its id, its session's grants
//! and file ledger ([`ToolSession`]), who hears about its approval, and its cancellation. What
//! a call changes in the project goes to the project's [`ChangeSink`] (checkpoints).
//!
//! Module chain (one way, as in the seed): `permission` → `tool` → `manager`; the built-in tools
//! depend on the core, never on each other.

// Lets the `#[tool]` attribute's generated `::gantry_tools::...` paths resolve inside this crate.
extern crate self as gantry_tools;

// The core's modules are private: their public items are re-exported below, so other crates
// depend on one flat API and the module layout can change freely.
pub(crate) mod approval;
pub(crate) mod audit;
pub(crate) mod beneath;
pub(crate) mod call;
pub(crate) mod changes;
pub(crate) mod coerce;
pub(crate) mod command_scope;
pub(crate) mod confine;
pub(crate) mod context;
pub(crate) mod fsutil;
pub(crate) mod gate;
pub(crate) mod ledger;
pub(crate) mod manager;
pub(crate) mod observation;
pub(crate) mod path_scope;
pub(crate) mod permission;
pub(crate) mod prompt;
pub(crate) mod rules;
pub(crate) mod sandboxing;
pub(crate) mod secret_env;
pub(crate) mod secrets;
pub(crate) mod session;
pub(crate) mod tool;

// Public modules: the built-in tools, and utilities other crates use as a group (the
// project walker for the file tree, text clipping, schema cleaning for MCP tools, process
// groups for MCP servers).
pub mod builtin;
pub mod external_rules;
pub mod hooks;
pub mod process;
pub mod schema;
pub mod skills;
pub mod text;
pub mod walk;

pub use approval::{
    ApprovalDecision, ApprovalRequest, ApprovalScope, Approver, AskReason, FixedApprover, Preview,
    ScriptedApprover, SessionGrant,
};
pub use audit::{AuditRecord, AuditSink, MemoryAudit, NoAudit};
pub use beneath::OpenError;
pub use call::{CallContext, CallObserver, CallProgress, NoObserver};
pub use changes::{
    CallChanges, ChangeCall, ChangeError, ChangeSink, ChangeWatch, MAX_PRIOR_BYTES, NoChanges,
    Prior,
};
pub use coerce::ArgumentProblem;
pub use command_scope::{OptionEffect, ShellConstruct, Unscoped, command_scope};
pub use confine::{ConfineError, ProjectRoot, ResolvedPath};
pub use context::ToolContext;
pub use external_rules::{ExternalAction, ExternalRule, ExternalRules, RuleForm};
pub use fsutil::atomic::{
    AtomicWriteError, remove_beneath, write_atomic, write_atomic_beneath,
    write_atomic_beneath_with_mode, write_atomic_private,
};
pub use gantry_tools_macros::tool;
pub use gate::{Decider, Decision, DecisionKind};
pub use ledger::{FileLedger, FileStamp, Freshness};
pub use manager::{ManagerError, ToolArguments, ToolInfo, ToolManager, is_valid_tool_name};
pub use observation::{Observation, ObservationKind, duration_millis};
pub use path_scope::{
    EXECUTION_SENSITIVE, PATH_SCOPED_TOOLS, execution_sensitive, glob_matches, path_glob,
};
pub use permission::{ParseNameError, PermissionLevel, Policy, PolicySet};
pub use prompt::{PromptError, UserPrompter, UserQuestion};
pub use rules::{RuleAction, RuleBook, RuleSpec, RuleStore, ToolRule};
pub use sandboxing::{CommandSandbox, SandboxSettings, SandboxState, SessionTempSlot};
pub use secret_env::{
    DBUS_BLOCKED, DBUS_SESSION, PassList, is_secret_env, is_secret_var, key_from_env, pass_refusal,
    register_secret_env, scrub_environment, scrubbed_environment, scrubbed_environment_passing,
};
pub use secrets::{
    REDACTED, is_secret_env_name, is_secret_key, is_secret_value, is_secret_word,
    looks_like_credential, mentions_auth, redact_text, redact_value,
};
pub use session::ToolSession;
pub use tool::{
    IntoTool, PreparedCall, Tool, ToolError, ToolFn, ToolOutput, ToolResult, ToolSource, ToolSpec,
    TypedTool,
};
