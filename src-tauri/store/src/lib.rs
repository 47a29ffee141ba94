//! Everything Gantry remembers: projects, tool policies and rules, command settings (network,
//! writable folders, variables passed on purpose), approved MCP files, MCP servers switched off
//! per project, providers, sessions and their messages (and set-aside versions of them), the
//! checkpoints' index, and the audit log, in one SQLite file (with a full-text index of the
//! messages, [`search`]);
//! API keys in the OS keychain.
//!
//! The engine needs memory that outlives a window: which folders the user works in, what they
//! allowed each tool to do there, what was said, and what every tool call did. This crate keeps
//! it behind a typed async API ([`Store::open`], [`Store::projects`], [`Store::sessions`],
//! [`Store::settings`], ...)
//! so no SQL lives anywhere else. It implements the tool system's [`gantry_tools::AuditSink`]
//! ([`StoreAudit`]) and persists its [`gantry_tools::PolicySet`] ([`Policies`]).
//!
//! Secrets never reach the database: provider rows name a keychain entry and an environment
//! variable, the key itself goes through [`Secrets`] as a [`Secret`], and audit rows are
//! redacted ([`gantry_tools::redact_value`]) before they are written.
//!
//! The database is `gantry.db` in the data folder ([`paths`]); queries use sqlx's runtime API,
//! so building needs no live database, and the migrations are embedded and run at open.

mod codec;

pub mod audit;
pub mod branches;
pub mod checkpoints;
pub mod command_settings;
pub mod error;
pub mod hook_runs;
pub mod ids;
pub mod mcp_switches;
pub mod mcp_trust;
pub mod messages;
pub mod paths;
pub mod policies;
pub mod projects;
pub mod providers;
pub mod rules;
pub mod search;
pub mod secrets;
pub mod sessions;
pub mod settings;
pub mod store;
pub mod time;

pub use audit::{AuditEntry, AuditFilter, AuditLog, StoreAudit};
pub use branches::{Branch, Branches};
pub use checkpoints::{
    Change, ChangeOrigin, Checkpoints, FileState, NewChange, NewRestore, Restore, RestoreKind,
    RestoredFile,
};
pub use command_settings::{CommandSettings, ProjectCommandSettings};
pub use error::{Result, StoreError};
pub use hook_runs::{HookRunKey, HookRunRow, HookRuns};
pub use ids::{AuditId, BranchId, ChangeId, MessageId, ProjectId, RestoreId, SessionId};
pub use mcp_switches::McpSwitches;
pub use mcp_trust::{McpApproval, McpTrust};
pub use messages::{Message, MessageKind, MessageStatus, NewMessage, Role};
pub use paths::{DATA_DIR_ENV, DATABASE_FILE, data_dir, default_database_path};
pub use policies::Policies;
pub use projects::{Project, Projects};
pub use providers::{FlagSettings, Provider, ProviderConfig, Providers};
pub use rules::{Rules, StoreRules};
pub use search::{HIT_END, HIT_START, SearchHit, match_query};
pub use secrets::{
    KEYCHAIN_SERVICE, KeyEntry, MCP_TOKENS_SERVICE, Secret, SecretError, Secrets, fallback_hint,
};
pub use sessions::{Session, Sessions};
pub use settings::Settings;
pub use store::Store;
pub use time::Timestamp;
