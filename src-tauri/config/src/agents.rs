//! Custom agents from Claude Code's `.claude/agents/**.md` and `~/.claude/agents/`
//! (`shared/reference/extensibility-specs.md` §3, Claude Code part).
//!
//! Each file is Markdown with YAML front matter; the body is the agent's system prompt. Its
//! identity is the front matter's `name` (not the file name); `name` and `description` are
//! required, and a file lacking either, with a `name` holding `:`, or with front matter that does
//! not parse is skipped (Claude Code skips silently; here it is reported). The project's folder
//! is read recursively and wins over the user's on a name clash ("closest wins"). The list is
//! what the subagents of the "Ways of working" issue use; nothing here runs an agent.

use std::path::PathBuf;

use crate::frontmatter;
use crate::listing::markdown_files;
use crate::source::read_text;
use crate::{ConfigReport, ConfigScope, Locations, SourceFile};

/// The largest agent file read.
pub const MAX_AGENT_BYTES: usize = 128 * 1024;

/// The folders agents come from, closest first.
pub const AGENT_FOLDERS: [(&str, ConfigScope); 2] = [
    (".claude/agents", ConfigScope::Project),
    ("~/.claude/agents", ConfigScope::User),
];

/// The front matter fields read into [`AgentDefinition`].
const KNOWN_FIELDS: [&str; 9] = [
    "name",
    "description",
    "tools",
    "disallowedTools",
    "model",
    "permissionMode",
    "maxTurns",
    "skills",
    "color",
];

/// A custom agent defined by a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    /// Its name (lower-case letters and hyphens).
    pub name: String,
    /// When to use it.
    pub description: String,
    /// The tools it may use (`None`: all the tools a subagent gets).
    pub tools: Option<Vec<String>>,
    /// Tools taken away from it.
    pub disallowed_tools: Vec<String>,
    /// The model (`sonnet`, a full id, `inherit`); `None` means inherit.
    pub model: Option<String>,
    /// `permissionMode` as written (`default`, `acceptEdits`, `plan`, …).
    pub permission_mode: Option<String>,
    /// The most turns it runs.
    pub max_turns: Option<u32>,
    /// Skills whose content is preloaded into it.
    pub skills: Vec<String>,
    /// Its system prompt (the file's body).
    pub system_prompt: String,
    /// Its file.
    pub source: SourceFile,
}

/// The agents found, the project's first, each name once; what each file gave goes to
/// `report` (kind `agent`).
pub fn discover(at: &Locations, report: &mut ConfigReport) -> Vec<AgentDefinition> {
    let mut agents: Vec<AgentDefinition> = Vec::new();
    for (folder, scope) in AGENT_FOLDERS {
        let dir: PathBuf = match folder.strip_prefix("~/") {
            Some(relative) => match at.in_home(relative) {
                Some(dir) => dir,
                None => continue,
            },
            None => at.in_project(folder),
        };
        for (stem, entry) in markdown_files(at, scope, &dir, 4) {
            let file = SourceFile::at(at, entry.path.clone(), scope);
            if stem.rsplit('/').next().is_some_and(|n| n.starts_with('-')) || stem.contains(':') {
                report
                    .file_mut(&file, "agent")
                    .not_understood
                    .push("a file name starting with `-` or holding `:` is skipped".into());
                continue;
            }
            let Some(agent) = read_agent(at, &file, report) else {
                continue;
            };
            if let Some(winner) = agents.iter().find(|known| known.name == agent.name) {
                report.file_mut(&file, "agent").not_understood.push(format!(
                    "agent {} is also defined by {}, which wins",
                    agent.name, winner.source.shown
                ));
                continue;
            }
            agents.push(agent);
        }
    }
    agents
}

fn read_agent(
    at: &Locations,
    file: &SourceFile,
    report: &mut ConfigReport,
) -> Option<AgentDefinition> {
    let text = match read_text(at, file, MAX_AGENT_BYTES) {
        Ok(Some(text)) => text,
        Ok(None) => return None,
        Err(problem) => {
            report.file_mut(file, "agent").problem = Some(problem.to_string());
            return None;
        }
    };
    let entry = report.file_mut(file, "agent");
    entry.sha256.clone_from(&text.sha256);
    entry.trusted = !file.scope.needs_trust();
    let (front, body) = frontmatter::split(&text.text);
    if let Some(problem) = &front.problem {
        entry.problem = Some(format!(
            "the front matter does not parse ({problem}): skipped"
        ));
        return None;
    }
    let name = front.text("name").filter(|n| !n.is_empty());
    let description = front.text("description").filter(|d| !d.is_empty());
    let (Some(name), Some(description)) = (name, description) else {
        entry
            .not_understood
            .push("no name or no description (both are required): skipped".into());
        return None;
    };
    if name.contains(':') {
        entry
            .not_understood
            .push(format!("name `{name}` holds `:`: skipped"));
        return None;
    }
    for key in front.fields.keys() {
        if !KNOWN_FIELDS.contains(&key.as_str()) {
            entry
                .not_understood
                .push(format!("field `{key}` is not supported: ignored"));
        }
    }
    let max_turns = match front.text("maxTurns") {
        Some(turns) => match turns.parse::<u32>() {
            Ok(turns) if turns > 0 => Some(turns),
            _ => {
                entry.not_understood.push(format!(
                    "maxTurns `{turns}` is not a positive number: ignored"
                ));
                None
            }
        },
        None => None,
    };
    entry.read.push(format!("agent {name}: {description}"));
    Some(AgentDefinition {
        name,
        description,
        tools: front.list("tools"),
        disallowed_tools: front.list("disallowedTools").unwrap_or_default(),
        model: front.text("model").filter(|m| !m.is_empty()),
        permission_mode: front.text("permissionMode"),
        max_turns,
        skills: front.list("skills").unwrap_or_default(),
        system_prompt: body.trim().to_owned(),
        source: file.clone(),
    })
}
