//! Instruction files: `CLAUDE.md`, `AGENTS.md` and what they import, in the order the agents
//! that wrote them read them (spec §5, "Memory / instruction files").
//!
//! **Order.** The user's files first, then the project's: `~/.claude/CLAUDE.md`; Codex's
//! `~/.codex/AGENTS.override.md`, else `~/.codex/AGENTS.md` (the first that is not empty);
//! at the project root Codex's `AGENTS.override.md`, else `AGENTS.md` (one file per folder);
//! Claude Code's `CLAUDE.md`, `.claude/CLAUDE.md` and `CLAUDE.local.md`. A folder below the root
//! adds its own files (the same names but `.claude/CLAUDE.md`) once the model read or changed a
//! file in it ([`gather`]'s `folders`, kept by the engine per session). Each file is a separate
//! [`InstructionPart`], so the context gauge can show each with its size.
//!
//! **Imports** (`@path`, Claude Code's form): relative to the importing file, `~/` for the home,
//! or absolute; at most [`MAX_IMPORT_HOPS`] hops; not inside code spans or fenced blocks. An
//! imported file is a part of its own, right after the file that imports it. A project file
//! imports only inside the project, through the same confinement as read_file (so
//! `@../../etc/passwd` or a symlink out is refused); a user file imports only inside the home,
//! never from a secret store nor from inside the project (which may have come from anywhere).
//! A cycle is cut, and the report says so.
//!
//! **Once each.** A file already included (by its real path), a file with the same text as one
//! included, and a file that says nothing but its imports are not parts of their own.
//!
//! **Cut.** Each file is read up to [`MAX_INSTRUCTION_BYTES`] (32 KiB, Codex's
//! `project_doc_max_bytes`); a longer one is cut with a note, and its part says so. Block HTML
//! comments are stripped (Claude Code does).
//!
//! **No trust step.** Instructions only steer the model: they neither widen nor narrow what it
//! may do (every call still passes Gantry's permissions), so they are read without the project
//! trust that allow rules and hooks wait for. This keeps Gantry's behaviour of reading the
//! project's `AGENTS.md` at once (Codex reads no project file of an untrusted project; Claude
//! Code reads `CLAUDE.md` before asking).

mod markdown;

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use crate::source::{ReadProblem, in_secret_store, read_text};
use crate::{ConfigReport, ConfigScope, Locations, SourceFile};

pub use markdown::{imports, only_imports, strip_block_comments};

/// The most bytes of one instruction file used (32 KiB); the rest is cut with a note.
pub const MAX_INSTRUCTION_BYTES: usize = 32 * 1024;

/// The most hops of `@path` imports followed from a file the agent reads by itself.
pub const MAX_IMPORT_HOPS: usize = 4;

/// The report's kind for instruction files.
pub const KIND: &str = "instructions";

/// The note a part cut at [`MAX_INSTRUCTION_BYTES`] ends with.
pub const CUT_NOTE: &str = "[cut at 32 KiB: the rest of this file is not shown]";

/// One instruction file's share of the system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstructionPart {
    /// The file.
    pub source: SourceFile,
    /// What the model reads: the file's text (comments stripped), with [`CUT_NOTE`] when cut.
    pub text: String,
    /// True when the file was longer than [`MAX_INSTRUCTION_BYTES`].
    pub truncated: bool,
    /// What the user should know about the file (an import refused, a cycle cut).
    pub notes: Vec<String>,
    /// The file that imports this one (as shown), when it is an import.
    pub imported_by: Option<String>,
}

/// The instruction parts of a project, in order, and what each file gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Instructions {
    /// The parts, in the order they go into the system prompt.
    pub parts: Vec<InstructionPart>,
    /// One entry per instruction file found (kind [`KIND`]).
    pub report: ConfigReport,
}

/// The instructions of the project at `at`, with the files of each folder in `folders` (below
/// the root, absolute, in the order the model first touched them).
pub fn gather(at: &Locations, folders: &[PathBuf]) -> Instructions {
    let mut loader = Loader::new(at);
    if let Some(source) = SourceFile::in_home(at, ".claude/CLAUDE.md") {
        loader.top(source);
    }
    loader.first_of(&user_codex_files(at));
    loader.folder(&at.project, true);
    for folder in folders {
        if folder.starts_with(&at.project) && *folder != at.project {
            loader.folder(folder, false);
        }
    }
    Instructions {
        parts: loader.parts,
        report: loader.report,
    }
}

/// What the instruction files of the project at `at` (the root's and the user's) gave, for
/// `gantry-cli config` and the configuration view.
pub fn report(at: &Locations) -> ConfigReport {
    gather(at, &[]).report
}

/// The folders between the project root (excluded) and the file at `path` (its folder
/// included), outermost first: the folders whose own instructions a read of `path` adds.
/// `path` is absolute or relative to the root; a path that leaves the project gives none.
pub fn folders_of(at: &Locations, path: &str) -> Vec<PathBuf> {
    let joined = normalize(&at.project.join(path));
    let Ok(relative) = joined.strip_prefix(&at.project) else {
        return Vec::new();
    };
    let mut folders = Vec::new();
    let mut current = at.project.clone();
    let components: Vec<_> = relative.components().collect();
    for component in components.iter().take(components.len().saturating_sub(1)) {
        current.push(component);
        folders.push(current.clone());
    }
    folders
}

/// Codex's user file candidates: the override first.
fn user_codex_files(at: &Locations) -> Vec<SourceFile> {
    [".codex/AGENTS.override.md", ".codex/AGENTS.md"]
        .iter()
        .filter_map(|name| SourceFile::in_home(at, name))
        .collect()
}

/// `path` with `.` and `..` resolved lexically (no file system access).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Reads files and their imports into parts, each file once.
struct Loader<'a> {
    at: &'a Locations,
    parts: Vec<InstructionPart>,
    report: ConfigReport,
    /// Real paths of the files included (or only importing), so each counts once.
    included: HashSet<PathBuf>,
    /// The trimmed texts included, so a copy counts once.
    texts: HashSet<String>,
}

/// A file read, before it becomes a part.
struct Read {
    text: String,
    truncated: bool,
    sha256: String,
}

impl<'a> Loader<'a> {
    fn new(at: &'a Locations) -> Self {
        Self {
            at,
            parts: Vec::new(),
            report: ConfigReport::default(),
            included: HashSet::new(),
            texts: HashSet::new(),
        }
    }

    /// The files of one folder: Codex's one file (the override, else `AGENTS.md`), then Claude
    /// Code's (`.claude/CLAUDE.md` only at the root).
    fn folder(&mut self, folder: &Path, root: bool) {
        let file = |name: &str, scope| SourceFile::at(self.at, folder.join(name), scope);
        let codex = [
            file("AGENTS.override.md", ConfigScope::Project),
            file("AGENTS.md", ConfigScope::Project),
        ];
        self.first_of(&codex);
        self.top(file("CLAUDE.md", ConfigScope::Project));
        if root {
            self.top(file(".claude/CLAUDE.md", ConfigScope::Project));
        }
        self.top(file("CLAUDE.local.md", ConfigScope::Local));
    }

    /// The first of `candidates` that exists and is not empty (Codex's override rule).
    fn first_of(&mut self, candidates: &[SourceFile]) {
        for source in candidates {
            if self.top(source.clone()) {
                return;
            }
        }
    }

    /// A file the agent reads by itself; true when it exists and is not empty.
    fn top(&mut self, source: SourceFile) -> bool {
        self.file(source, None, &mut Vec::new())
    }

    /// Reads `source` (imported by `by`, along `chain` of real paths) and its imports; true when
    /// it exists and is not empty.
    fn file(
        &mut self,
        source: SourceFile,
        by: Option<&SourceFile>,
        chain: &mut Vec<PathBuf>,
    ) -> bool {
        let read = match self.read(&source) {
            Ok(Some(read)) => read,
            Ok(None) => return false,
            Err(problem) => {
                self.report_problem(&source, by, problem.to_string());
                return by.is_some();
            }
        };
        if read.text.trim().is_empty() {
            return false;
        }
        let real = std::fs::canonicalize(&source.path).unwrap_or_else(|_| source.path.clone());
        let entry = self.report.file_mut(&source, KIND);
        entry.sha256.clone_from(&read.sha256);
        if !self.included.insert(real.clone()) {
            entry.read.push("already included: counted once".to_owned());
            return true;
        }
        let trimmed = read.text.trim().to_owned();
        let only_imports = only_imports(&trimmed);
        if !only_imports && !self.texts.insert(trimmed) {
            entry
                .read
                .push("the same text as a file already included: counted once".to_owned());
            return true;
        }
        entry.read.push(match (only_imports, read.truncated) {
            (true, _) => "only imports other files: counted as those".to_owned(),
            (false, true) => format!("instructions, cut at {} KiB", MAX_INSTRUCTION_BYTES / 1024),
            (false, false) => format!("instructions, {} bytes", read.text.len()),
        });
        let index = self.parts.len();
        if !only_imports {
            self.parts.push(InstructionPart {
                text: if read.truncated {
                    format!("{}\n{CUT_NOTE}", read.text.trim_end())
                } else {
                    read.text.clone()
                },
                source: source.clone(),
                truncated: read.truncated,
                notes: Vec::new(),
                imported_by: by.map(|importer| importer.shown.clone()),
            });
        }
        chain.push(real);
        let notes = self.follow_imports(&source, &read.text, chain);
        chain.pop();
        if let Some(part) = self.parts.get_mut(index).filter(|_| !only_imports) {
            part.notes.extend(notes.iter().cloned());
        }
        self.report
            .file_mut(&source, KIND)
            .not_understood
            .extend(notes);
        true
    }

    /// Follows the imports of `source` (whose text is `text`); returns the notes for its part.
    fn follow_imports(
        &mut self,
        source: &SourceFile,
        text: &str,
        chain: &mut Vec<PathBuf>,
    ) -> Vec<String> {
        let mut notes = Vec::new();
        for reference in imports(text) {
            if chain.len() > MAX_IMPORT_HOPS {
                notes.push(format!(
                    "@{reference} is not imported: more than {MAX_IMPORT_HOPS} hops of imports"
                ));
                continue;
            }
            let target = match self.import_target(source, &reference) {
                Ok(target) => target,
                Err(why) => {
                    notes.push(format!("@{reference} is not imported: {why}"));
                    continue;
                }
            };
            let real = std::fs::canonicalize(&target.path).unwrap_or_else(|_| target.path.clone());
            if chain.contains(&real) {
                notes.push(format!(
                    "@{reference} is not imported: it imports {} again (a cycle, cut here)",
                    source.shown
                ));
                continue;
            }
            if !target.path.exists() {
                notes.push(format!("@{reference} is not imported: no such file"));
                continue;
            }
            self.file(target, Some(source), chain);
        }
        notes
    }

    /// The file `reference` names from `source`, or why it may not be imported.
    fn import_target(&self, source: &SourceFile, reference: &str) -> Result<SourceFile, String> {
        let path = if let Some(rest) = reference.strip_prefix("~/") {
            let home = self
                .at
                .home
                .as_ref()
                .ok_or("the home folder is not known")?;
            home.join(rest)
        } else if Path::new(reference).is_absolute() {
            PathBuf::from(reference)
        } else {
            source
                .path
                .parent()
                .map_or_else(|| PathBuf::from(reference), |folder| folder.join(reference))
        };
        let path = normalize(&path);
        match source.scope {
            ConfigScope::Project | ConfigScope::Local => {
                if !path.starts_with(&self.at.project) {
                    return Err("a project file imports only inside the project".to_owned());
                }
                // The confinement of read_file (symlinks out) applies when it is read.
                Ok(SourceFile::at(self.at, path, source.scope))
            }
            ConfigScope::User => {
                let home = self
                    .at
                    .home
                    .as_ref()
                    .ok_or("the home folder is not known")?;
                let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                if in_secret_store(self.at, &path) || in_secret_store(self.at, &real) {
                    return Err("it is in a secret store".to_owned());
                }
                if !real.starts_with(home) || !path.starts_with(home) {
                    return Err("a user file imports only inside the home folder".to_owned());
                }
                if real.starts_with(&self.at.project) || path.starts_with(&self.at.project) {
                    return Err("a user file does not import from the project".to_owned());
                }
                Ok(SourceFile::at(self.at, path, ConfigScope::User))
            }
        }
    }

    fn read(&self, source: &SourceFile) -> Result<Option<Read>, ReadProblem> {
        Ok(
            read_text(self.at, source, MAX_INSTRUCTION_BYTES)?.map(|file| Read {
                text: strip_block_comments(&file.text),
                truncated: file.truncated,
                sha256: file.sha256,
            }),
        )
    }

    /// Records why `source` could not be read (for an import, on the importer too).
    fn report_problem(&mut self, source: &SourceFile, by: Option<&SourceFile>, problem: String) {
        match by {
            Some(importer) => {
                let note = format!("@{} is not imported: {problem}", source.shown);
                self.report
                    .file_mut(importer, KIND)
                    .not_understood
                    .push(note.clone());
                if let Some(part) = self
                    .parts
                    .iter_mut()
                    .rev()
                    .find(|part| part.source == *importer)
                {
                    part.notes.push(note);
                }
            }
            None => self.report.file_mut(source, KIND).problem = Some(problem),
        }
    }
}

#[cfg(test)]
mod tests;
