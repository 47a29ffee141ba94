//! What other agents' configuration a project carries, read as their documentation says.
//!
//! Projects arrive set up for Claude Code or Codex: instructions in `CLAUDE.md` and `AGENTS.md`,
//! permission rules and hooks in `.claude/settings.json`, slash commands, skills and custom
//! agents. This crate finds those files (the project's and the user's), reads them through the
//! same confinement as the tools (a project file that is a symlink out of the project is not
//! read), and turns them into plain values with their source file: what was read, what was not
//! understood, and what waits for the user's trust. It decides nothing, and runs nothing but the
//! hooks the engine asks it to ([`hooks::run`]); the engine applies what it returns under Gantry's own guarantees (deny rules, disabled tools,
//! files that make programs run, the sandbox). The formats, with sources:
//! `shared/reference/extensibility-specs.md`.
//!
//! - [`Locations`]: where the files are (the project root, the user's home).
//! - [`source`]: a file found, its scope (user, project, local) and reading it safely.
//! - [`frontmatter`]: the YAML front matter of Markdown files (commands, skills, agents).
//! - [`instructions`]: `CLAUDE.md`, `AGENTS.md` and their `@path` imports, in order, each cut at 32 KiB.
//! - [`settings`]: `.claude/settings*.json` and `.codex/hooks.json`, parsed once for rules and hooks.
//! - [`permissions`]: Claude Code's `permissions.allow/ask/deny` as Gantry's external rules.
//! - [`hooks`]: the hooks of those files, and running one (a child process, outside the sandbox,
//!   as in the agents they come from; only the engine calls it, for trusted hooks).
//! - [`trust`]: which project files wait for the user's trust, bound to their content.
//! - [`report`]: what one file gave, for `gantry-cli config` and the configuration view.
//! - [`commands`]: slash commands from `.gantry/commands`, `.claude/commands`, Codex prompts;
//!   [`arguments`]: how each source puts arguments into its prompt.
//! - [`skills`]: Agent Skills (`SKILL.md` folders), and the library the `skill` tool loads from.
//! - [`agents`]: custom agents (`.claude/agents/*.md`) for subagents.
//! - [`extensions`]: the three together, with one report.

pub mod agents;
pub mod allowed_tools;
pub mod arguments;
pub mod commands;
pub mod extensions;
pub mod frontmatter;
pub mod hooks;
pub mod instructions;
mod listing;
mod locations;
pub mod permissions;
pub mod report;
pub mod settings;
pub mod skills;
pub mod source;
pub mod trust;

pub use locations::Locations;
pub use report::{ConfigReport, FileReport};
pub use source::{ConfigScope, SourceFile};
pub use trust::TrustedFiles;
