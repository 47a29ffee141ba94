//! One rule's text → what Gantry understood of it ([`RuleForm`]).
//!
//! The syntax is Claude Code's (`shared/reference/extensibility-specs.md` §6): `Tool` or
//! `Tool(specifier)`, with `Bash(*)` ≡ `Bash`.
//!
//! | Written | Gantry |
//! | --- | --- |
//! | `Bash`, `Bash(*)` | run_command, whole tool |
//! | `Bash(npm run test:*)`, `Bash(git diff)` | run_command lines ([`gantry_tools::external_rules::bash`]) |
//! | `Read`, `Edit` | read_file, glob_search, grep_search / write_file, edit_file |
//! | `Read(path)`, `Edit(path)` | those tools on paths ([`gantry_tools::external_rules::paths`]) |
//! | `Write`, `MultiEdit`, `Glob`, `Grep`, `WebFetch`, `AskUserQuestion` | write_file, edit_file, glob_search, grep_search, web_fetch, ask_user |
//! | `WebFetch(domain:x)`, `WebFetch(domain:*.x)` | web_fetch by host |
//! | `mcp__server`, `mcp__server__*`, `mcp__server__tool`, `mcp__*` (deny/ask) | MCP tools by name |
//!
//! Paths: `//abs` from `/`, `~/x` from the home, `/x` from the settings file's root (the
//! project for project and local files, `~/.claude` for the user's), `./x` and `x` from the
//! project root; a single-segment `x/**` in a deny or ask rule matches at any depth. Not
//! understood (kept with the reason, never matching): path rules on `Write`, `Glob`,
//! `MultiEdit`, `NotebookEdit` and `Grep` (Claude Code ignores them; Read and Edit rules
//! cover those tools), parameter rules (`Bash(run_in_background:true)`), `Agent(...)`,
//! `Skill(...)`, `Cd(...)`, and any tool Gantry does not have.

use std::path::PathBuf;

use gantry_tools::external_rules::paths::glob_problem;
use gantry_tools::{ExternalAction, RuleForm};

use crate::{ConfigScope, Locations, SourceFile};

/// What Gantry understood of `text`, a rule of `source` with `action`.
pub fn parse(text: &str, action: ExternalAction, source: &SourceFile, at: &Locations) -> RuleForm {
    let text = text.trim();
    let (tool, specifier) = match text.split_once('(') {
        Some((tool, rest)) => match rest.strip_suffix(')') {
            Some(specifier) => (tool.trim(), Some(specifier.trim())),
            None => return not_understood("the parentheses are not closed"),
        },
        None => (text, None),
    };
    if tool.is_empty() {
        return not_understood("a rule starts with a tool name");
    }
    if let Some(rest) = tool.strip_prefix("mcp__") {
        return match specifier {
            None => mcp(rest, action),
            Some(_) => not_understood("an MCP rule names tools only, without parentheses"),
        };
    }
    let specifier = specifier.filter(|specifier| *specifier != "*");
    match (tool, specifier) {
        ("Bash", None) => tools(&["run_command"]),
        ("Bash", Some(specifier)) => bash(specifier),
        ("Read", None) => tools(&["read_file", "glob_search", "grep_search"]),
        ("Edit", None) => tools(&["write_file", "edit_file"]),
        ("Read", Some(path)) => path_form(path, false, action, source, at),
        ("Edit", Some(path)) => path_form(path, true, action, source, at),
        ("Write", None) => tools(&["write_file"]),
        ("MultiEdit", None) => tools(&["edit_file"]),
        ("Glob", None) => tools(&["glob_search"]),
        ("Grep", None) => tools(&["grep_search"]),
        ("WebFetch", None) => tools(&["web_fetch"]),
        ("AskUserQuestion", None) => tools(&["ask_user"]),
        ("Write" | "Glob" | "MultiEdit" | "NotebookEdit" | "Grep", Some(_)) => not_understood(
            "Claude Code ignores path rules on this tool; use Read(...) or Edit(...)",
        ),
        ("WebFetch", Some(specifier)) => match specifier.strip_prefix("domain:") {
            Some(domain) if valid_domain(domain.trim()) => RuleForm::Domain {
                domain: domain.trim().to_ascii_lowercase(),
            },
            _ => not_understood("a WebFetch rule is domain:host or domain:*.host"),
        },
        ("Agent" | "Task", _) => not_understood("Gantry has no subagent tool for this rule"),
        ("Skill", _) => not_understood("Gantry does not apply rules to skills"),
        ("Cd", _) => not_understood("Gantry has no /cd command"),
        (other, _) => not_understood(&format!("Gantry has no tool called {other}")),
    }
}

fn not_understood(reason: &str) -> RuleForm {
    RuleForm::NotUnderstood {
        reason: reason.to_owned(),
    }
}

fn tools(names: &[&str]) -> RuleForm {
    RuleForm::Tools {
        tools: names.iter().map(|name| (*name).to_owned()).collect(),
    }
}

/// `Bash(specifier)`: a command pattern, unless it is a parameter rule.
fn bash(specifier: &str) -> RuleForm {
    if specifier.is_empty() {
        return not_understood("the command pattern is empty");
    }
    let parameter = specifier.split_once(':').is_some_and(|(name, value)| {
        value != "*"
            && !name.contains(' ')
            && matches!(name, "run_in_background" | "timeout" | "description")
    });
    if parameter {
        return not_understood("Gantry does not match rules on a tool's parameters");
    }
    if specifier.chars().any(char::is_control) {
        return not_understood("the command pattern holds control characters");
    }
    RuleForm::Command {
        pattern: specifier.to_owned(),
    }
}

/// `host` or `*.host`, without a scheme, path or blanks.
fn valid_domain(domain: &str) -> bool {
    let host = domain.strip_prefix("*.").unwrap_or(domain);
    !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
}

/// `mcp__{rest}`: a server, a server's tools, or one tool (sanitised as Gantry names them).
fn mcp(rest: &str, action: ExternalAction) -> RuleForm {
    let (server, tool) = match rest.split_once("__") {
        Some((server, tool)) => (server, Some(tool)),
        None => (rest, None),
    };
    if server.is_empty() {
        return not_understood("an MCP rule names a server: mcp__server or mcp__server__tool");
    }
    if server.contains('*') && action == ExternalAction::Allow {
        return not_understood("an allow rule for MCP tools needs a literal server name");
    }
    if server == "*" && tool.is_some() {
        return not_understood("mcp__* stands alone");
    }
    let pattern = match (server, tool) {
        ("*", None) => "mcp__*".to_owned(),
        (server, None | Some("" | "*")) => format!("mcp__{}__*", sanitize(server)),
        (server, Some(tool)) => format!("mcp__{}__{}", sanitize(server), sanitize(tool)),
    };
    RuleForm::Mcp { pattern }
}

/// Every character outside `[a-zA-Z0-9_-]` (and the `*` of a pattern) as `_`, as Gantry
/// names MCP tools (`gantry-mcp`'s naming).
fn sanitize(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `Read(path)` / `Edit(path)`: the folder it is anchored at and the gitignore pattern.
fn path_form(
    written: &str,
    edit: bool,
    action: ExternalAction,
    source: &SourceFile,
    at: &Locations,
) -> RuleForm {
    let (base, glob): (PathBuf, String) = if let Some(rest) = written.strip_prefix("//") {
        (PathBuf::from("/"), format!("/{rest}"))
    } else if let Some(rest) = written.strip_prefix("~/") {
        match &at.home {
            Some(home) => (home.clone(), format!("/{rest}")),
            None => return not_understood("the home folder is not known"),
        }
    } else if written.starts_with('/') {
        let root = match source.scope {
            ConfigScope::User => match &at.home {
                Some(home) => home.join(".claude"),
                None => return not_understood("the home folder is not known"),
            },
            ConfigScope::Project | ConfigScope::Local => at.project.clone(),
        };
        (root, written.to_owned())
    } else if let Some(rest) = written.strip_prefix("./") {
        (at.project.clone(), format!("/{rest}"))
    } else {
        let any_depth = action != ExternalAction::Allow
            && written
                .strip_suffix("/**")
                .is_some_and(|segment| !segment.is_empty() && !segment.contains(['/', '*']));
        let glob = if any_depth {
            format!("**/{written}")
        } else {
            written.to_owned()
        };
        (at.project.clone(), glob)
    };
    if let Some(problem) = glob_problem(&glob) {
        return not_understood(&problem);
    }
    RuleForm::Path { edit, base, glob }
}
