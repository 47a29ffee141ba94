//! Gantry's tool system.
//!
//! The model calls tools; Gantry owns them and decides what may run. A tool is a typed async
//! function whose argument struct yields its JSON Schema ([`ToolFn`], usually through the
//! [`macro@tool`] attribute). The [`ToolManager`] registers tools, holds the project's [`PolicySet`]
//! and the session's grants, asks the [`Approver`] when a policy says Ask, and turns every call —
//! good, bad, denied, failed or cancelled — into an [`Observation`] the model can read, with one
//! [`AuditRecord`] per call.
//!
//! Module chain (one way, as in the seed): `permission` → `tool` → `manager`; the built-in tools
//! depend on the core, never on each other.

// Lets the `#[tool]` attribute's generated `::gantry_tools::...` paths resolve inside this crate.
extern crate self as gantry_tools;

pub mod approval;
pub mod audit;
pub mod builtin;
pub mod coerce;
pub mod command_scope;
pub mod confine;
pub mod context;
pub mod fsutil;
pub mod gate;
pub mod ledger;
pub mod manager;
pub mod observation;
pub mod permission;
pub mod process;
pub mod prompt;
pub mod schema;
pub mod secret_env;
pub mod text;
pub mod tool;
pub mod walk;

pub use approval::{
    ApprovalDecision, ApprovalRequest, ApprovalScope, Approver, FixedApprover, Preview,
    SessionGrant,
};
pub use audit::{AuditRecord, AuditSink, MemoryAudit, NoAudit};
pub use coerce::ArgumentProblem;
pub use confine::{ConfineError, ProjectRoot, ResolvedPath};
pub use context::ToolContext;
pub use gantry_tools_macros::tool;
pub use gate::{Decider, Decision, DecisionKind};
pub use ledger::{FileLedger, FileStamp, Freshness};
pub use manager::{ManagerError, ToolArguments, ToolInfo, ToolManager};
pub use observation::{Observation, ObservationKind};
pub use permission::{PermissionLevel, Policy, PolicySet};
pub use prompt::{PromptError, UserPrompter, UserQuestion};
pub use secret_env::{is_secret_env, register_secret_env, scrubbed_environment};
pub use tool::{
    IntoTool, PreparedCall, Tool, ToolError, ToolFn, ToolOutput, ToolResult, ToolSource, TypedTool,
};
