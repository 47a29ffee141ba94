//! Agent Skills: `SKILL.md` folders in `.claude/skills/`, `.agents/skills/` and the user's
//! `~/.claude/skills/`, `~/.agents/skills/` (`shared/reference/extensibility-specs.md` §2).
//!
//! Each folder holding a `SKILL.md` is a skill. The front matter's `name` must follow the
//! specification's rules (1–64 characters of `[a-z0-9-]`, no leading, trailing or doubled `-`,
//! equal to the folder's name) and `description` is required (≤ 1024 characters). Parsing is
//! lenient as the client guide asks: a name that breaks the rules or differs from the folder is
//! reported but the skill still loads under its folder's name (as Claude Code names it); a
//! skill without a description or with front matter that does not parse is skipped and
//! reported. On a name clash the project's skill wins over the user's (the spec's convention),
//! and within one scope `.claude/skills` is read before `.agents/skills`. A skill folder that
//! is a symlink (`.claude/skills/x -> ../../.agents/skills/x`) is followed when its target stays
//! inside the project; the user's folders are never read from a secret store.
//!
//! Only the name and description go into the system prompt ([`SkillFiles`] is the library the
//! `skill` tool loads from); `allowed-tools` of a project skill applies only once the user
//! trusted that `SKILL.md` as it is now.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::frontmatter::{self, FrontMatter};
use crate::listing::{self, real_location};
use crate::source::{in_secret_store, read_text};
use crate::{ConfigReport, ConfigScope, Locations, SourceFile, TrustedFiles};

/// Where skills are looked for, in precedence order (project first).
pub const SKILL_FOLDERS: [(&str, ConfigScope); 4] = [
    (".claude/skills", ConfigScope::Project),
    (".agents/skills", ConfigScope::Project),
    ("~/.claude/skills", ConfigScope::User),
    ("~/.agents/skills", ConfigScope::User),
];
/// The largest `SKILL.md` read.
pub const MAX_SKILL_BYTES: usize = 256 * 1024;
/// The longest description the specification allows.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// The longest name the specification allows.
pub const MAX_NAME_CHARS: usize = 64;
/// The most files of one skill's folder listed.
pub const MAX_SKILL_FILES: usize = 200;

/// The front matter fields Gantry reads; any other field of Claude Code's is reported as not
/// supported.
const KNOWN_FIELDS: [&str; 11] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "argument-hint",
    "disable-model-invocation",
    "user-invocable",
    "model",
    "when_to_use",
];

/// A skill found.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    /// Its name: the folder's name (the command `/name`).
    pub name: String,
    /// What it does and when to use it (with `when_to_use` appended when given).
    pub description: String,
    /// Its folder, real location (symlinks followed).
    pub dir: PathBuf,
    /// Its `SKILL.md` as found.
    pub source: SourceFile,
    /// The SHA-256 of `SKILL.md`.
    pub sha256: String,
    /// The instructions (the body after the front matter).
    pub body: String,
    /// False when `disable-model-invocation` is set: kept out of the catalog.
    pub model_invocable: bool,
    /// False when `user-invocable: false`: no `/name` command.
    pub user_invocable: bool,
    /// The `argument-hint`, if any.
    pub argument_hint: Option<String>,
    /// The `model` asked for, if any.
    pub model: Option<String>,
    /// The `allowed-tools` (grants for the invoking turn).
    pub allowed_tools: Vec<String>,
    /// True when `allowed-tools` may apply (a user skill, or a trusted project file).
    pub allowed_tools_trusted: bool,
    /// Every front matter field, as written.
    pub fields: Map<String, Value>,
}

/// Why a name breaks the specification's rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameProblem {
    /// Empty.
    #[error("the name is empty")]
    Empty,
    /// Over 64 characters.
    #[error("the name is over {MAX_NAME_CHARS} characters")]
    TooLong,
    /// A character outside `[a-z0-9-]`.
    #[error("the name may hold only lower-case letters, digits and `-`")]
    BadCharacter,
    /// `-` at the start or end, or `--`.
    #[error("the name may not start or end with `-` or hold `--`")]
    BadHyphen,
}

/// Checks `name` against the specification: `^[a-z0-9]+(-[a-z0-9]+)*$`, 1–64 characters.
pub fn check_name(name: &str) -> Result<(), NameProblem> {
    if name.is_empty() {
        return Err(NameProblem::Empty);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(NameProblem::TooLong);
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(NameProblem::BadCharacter);
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Err(NameProblem::BadHyphen);
    }
    Ok(())
}

/// True for a folder name usable as a command even when it breaks the strict rules (upper
/// case, `_`, `.`): nothing that would split or confuse a `/name`.
fn usable_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The skills found, project first, each name once; what each `SKILL.md` gave goes to `report`
/// (kind `skill`).
pub fn discover(at: &Locations, trusted: &TrustedFiles, report: &mut ConfigReport) -> Vec<Skill> {
    let mut skills: Vec<Skill> = Vec::new();
    for (folder, scope) in SKILL_FOLDERS {
        let dir = match folder.strip_prefix("~/") {
            Some(relative) => match at.in_home(relative) {
                Some(dir) => dir,
                None => continue,
            },
            None => at.in_project(folder),
        };
        for entry in listing::list(at, scope, &dir) {
            if !entry.is_dir {
                continue;
            }
            let file = SourceFile::at(at, entry.path.join("SKILL.md"), scope);
            let Some(skill) = read_skill(at, trusted, &file, &entry.name, &entry.real, report)
            else {
                continue;
            };
            if let Some(winner) = skills.iter().find(|known| known.name == skill.name) {
                if winner.dir == skill.dir {
                    // One folder linked under both `.claude/skills` and `.agents/skills`.
                    continue;
                }
                report.file_mut(&file, "skill").not_understood.push(format!(
                    "skill /{} is also defined by {}, which wins",
                    skill.name, winner.source.shown
                ));
                continue;
            }
            skills.push(skill);
        }
    }
    skills
}

/// Reads one `SKILL.md`; `None` (reported) when it is skipped.
fn read_skill(
    at: &Locations,
    trusted: &TrustedFiles,
    file: &SourceFile,
    folder: &str,
    real_dir: &Path,
    report: &mut ConfigReport,
) -> Option<Skill> {
    let text = match read_text(at, file, MAX_SKILL_BYTES) {
        Ok(Some(text)) => text,
        Ok(None) => return None,
        Err(problem) => {
            report.file_mut(file, "skill").problem = Some(problem.to_string());
            return None;
        }
    };
    let is_trusted = trusted.covers(file, &text.sha256);
    let entry = report.file_mut(file, "skill");
    entry.sha256.clone_from(&text.sha256);
    entry.trusted = is_trusted;
    let (front, body) = frontmatter::split(&text.text);
    if let Some(problem) = &front.problem {
        entry.problem = Some(format!(
            "the front matter does not parse ({problem}): skipped"
        ));
        return None;
    }
    if !usable_name(folder) {
        entry.not_understood.push(format!(
            "the folder name `{folder}` cannot be a command: skipped"
        ));
        return None;
    }
    check_front_name(&front, folder, &mut entry.not_understood);
    let Some(mut description) = front.text("description").filter(|d| !d.is_empty()) else {
        entry
            .not_understood
            .push("no description (the specification requires one): skipped".into());
        return None;
    };
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        entry.not_understood.push(format!(
            "the description is over {MAX_DESCRIPTION_CHARS} characters: cut"
        ));
        description = description.chars().take(MAX_DESCRIPTION_CHARS).collect();
    }
    if let Some(when) = front.text("when_to_use").filter(|w| !w.is_empty()) {
        description = format!("{description} {when}");
    }
    for key in front.fields.keys() {
        if !KNOWN_FIELDS.contains(&key.as_str()) {
            entry
                .not_understood
                .push(format!("field `{key}` is not supported: ignored"));
        }
    }
    let allowed_tools = front.list("allowed-tools").unwrap_or_default();
    note_unapplied(entry, folder, &front, body, is_trusted);
    let model_invocable = front.flag("disable-model-invocation") != Some(true);
    entry.read.push(format!(
        "skill /{folder}{}",
        if model_invocable {
            ""
        } else {
            " (not offered to the model: disable-model-invocation)"
        }
    ));
    Some(Skill {
        name: folder.to_owned(),
        description,
        dir: real_dir.to_path_buf(),
        source: file.clone(),
        sha256: text.sha256,
        body: body.to_owned(),
        model_invocable,
        user_invocable: front.flag("user-invocable") != Some(false),
        argument_hint: argument_hint(&front),
        model: front.text("model"),
        allowed_tools,
        allowed_tools_trusted: is_trusted,
        fields: front.fields,
    })
}

/// Reports a front matter `name` that breaks the rules or differs from the folder.
fn check_front_name(front: &FrontMatter, folder: &str, notes: &mut Vec<String>) {
    match front.text("name") {
        None => notes.push(format!(
            "no name (the specification requires one): the folder's name `{folder}` is used"
        )),
        Some(name) => {
            if let Err(problem) = check_name(&name) {
                notes.push(format!("name `{name}`: {problem}"));
            }
            if name != folder {
                notes.push(format!(
                    "name `{name}` differs from its folder `{folder}`: the folder's name is used"
                ));
            }
        }
    }
    if let Err(problem) = check_name(folder) {
        notes.push(format!("folder name `{folder}`: {problem}"));
    }
}

/// `argument-hint` as written: YAML reads an unquoted `[file] [line]` as a list, which is put
/// back in brackets.
pub(crate) fn argument_hint(front: &FrontMatter) -> Option<String> {
    match front.fields.get("argument-hint")? {
        Value::Array(items) => Some(
            items
                .iter()
                .map(|item| match item {
                    Value::String(text) => format!("[{text}]"),
                    Value::Array(inner) if inner.len() == 1 => {
                        format!("[{}]", inner[0].as_str().unwrap_or_default())
                    }
                    other => format!("[{other}]"),
                })
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => front.text("argument-hint"),
    }
}

/// Records what a skill's or command's front matter asks beyond its prompt: `allowed-tools`
/// (allowed without asking in the turn it starts, once `trusted`; see
/// [`crate::allowed_tools`]), `model` (not supported: the session's model is used) and
/// `` !`cmd` `` lines in the body (run before sending, each asking as the model's commands do).
pub(crate) fn note_unapplied(
    entry: &mut crate::FileReport,
    name: &str,
    front: &FrontMatter,
    body: &str,
    trusted: bool,
) {
    let tools = front.list("allowed-tools").unwrap_or_default();
    if !tools.is_empty() {
        let line = format!("allowed-tools for /{name} ({})", tools.join(", "));
        if trusted {
            entry.read.push(format!(
                "{line}: allowed without asking in the turn it starts"
            ));
        } else {
            entry.waits_for_trust.push(line);
        }
    }
    if let Some(model) = front.text("model").filter(|m| !m.is_empty()) {
        entry.not_understood.push(format!(
            "model `{model}` for /{name}: not supported; the session's model is used"
        ));
    }
    if has_shell_line(body) {
        entry.read.push(format!(
            "/{name} runs commands before sending (!`…`): each asks as the model's commands do"
        ));
    }
}

/// True when `body` holds `` !`cmd` `` at a line's start or after whitespace.
fn has_shell_line(body: &str) -> bool {
    body.lines().any(|line| {
        line.match_indices("!`").any(|(at, _)| {
            line[..at]
                .chars()
                .next_back()
                .is_none_or(char::is_whitespace)
                && line[at + 2..].contains('`')
        })
    })
}

/// The files of the skill folder `dir` besides `SKILL.md`, relative to it, sorted; hidden
/// entries, links leading out of the folder and secret stores are left out, at most
/// [`MAX_SKILL_FILES`], three folders deep.
pub fn skill_files(at: &Locations, dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    collect_files(at, dir, dir, 3, &mut files);
    files.sort();
    files
}

fn collect_files(at: &Locations, top: &Path, dir: &Path, depth: usize, files: &mut Vec<String>) {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = listing.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        if files.len() >= MAX_SKILL_FILES {
            return;
        }
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(real) = std::fs::canonicalize(entry.path()) else {
            continue;
        };
        if !real.starts_with(top) || in_secret_store(at, &real) {
            continue;
        }
        let Ok(meta) = std::fs::metadata(&real) else {
            continue;
        };
        if meta.is_dir() {
            if depth > 0 {
                collect_files(at, top, &entry.path(), depth - 1, files);
            }
        } else if meta.is_file()
            && let Ok(relative) = entry.path().strip_prefix(top)
            && relative != Path::new("SKILL.md")
        {
            files.push(relative.display().to_string());
        }
    }
}

/// A skill's instructions as the model gets them: `${CLAUDE_SKILL_DIR}` is the skill's folder
/// and `${CLAUDE_PROJECT_DIR}` the project (§2, string substitutions).
pub fn body_for_model(skill: &Skill, at: &Locations) -> String {
    skill
        .body
        .replace("${CLAUDE_SKILL_DIR}", &skill.dir.display().to_string())
        .replace("${CLAUDE_PROJECT_DIR}", &at.project.display().to_string())
}

/// True when `dir` is a secret store, lies in one, or holds one.
fn holds_secret_store(at: &Locations, dir: &Path) -> bool {
    let Some(home) = &at.home else {
        return false;
    };
    in_secret_store(at, dir)
        || gantry_sandbox::home_secret_paths(home)
            .iter()
            .any(|secret| secret.starts_with(dir))
}

/// The skills of a project, read again at every use (edits apply at once): the library the
/// `skill` tool loads from and the catalog of the system prompt.
#[derive(Debug, Clone)]
pub struct SkillFiles {
    at: Locations,
}

impl SkillFiles {
    /// The skills of the project and user at `at`.
    pub fn new(at: Locations) -> Self {
        Self { at }
    }

    fn skills(&self) -> Vec<Skill> {
        discover(
            &self.at,
            &TrustedFiles::none(),
            &mut ConfigReport::default(),
        )
    }
}

impl gantry_tools::skills::SkillLibrary for SkillFiles {
    fn catalog(&self) -> Vec<gantry_tools::skills::SkillSummary> {
        self.skills()
            .into_iter()
            .filter(|skill| skill.model_invocable)
            .map(|skill| gantry_tools::skills::SkillSummary {
                name: skill.name,
                description: skill.description,
                location: skill.dir.join("SKILL.md"),
            })
            .collect()
    }

    fn load(&self, name: &str) -> Result<gantry_tools::skills::LoadedSkill, String> {
        let skills = self.skills();
        let Some(skill) = skills.iter().find(|skill| skill.name == name) else {
            let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
            return Err(if names.is_empty() {
                format!("there is no skill {name}: this project has no skills")
            } else {
                format!(
                    "there is no skill {name}; the skills are: {}",
                    names.join(", ")
                )
            });
        };
        // The folder was confined when found; checked again now that it is opened to reading,
        // and it may not hold a secret store (a skill folder linked to the home would open
        // `~/.ssh` to read_file).
        if real_location(&self.at, skill.source.scope, &skill.dir).is_none()
            || holds_secret_store(&self.at, &skill.dir)
        {
            return Err(format!("the folder of skill {name} cannot be read"));
        }
        Ok(gantry_tools::skills::LoadedSkill {
            name: skill.name.clone(),
            dir: skill.dir.clone(),
            body: body_for_model(skill, &self.at),
            files: skill_files(&self.at, &skill.dir),
        })
    }
}
