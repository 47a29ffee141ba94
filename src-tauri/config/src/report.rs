//! What each configuration file gave: read, not understood, waiting for trust.
//!
//! `gantry-cli config --root DIR` and the app's "Project configuration" view show one entry per
//! file found. Each part of the crate (instructions, rules, hooks, commands, skills, agents)
//! adds what it read from a file to that file's entry, so a user can see exactly why a rule of
//! theirs does nothing ("not understood") or why a hook has not run yet ("waits for trust").

use serde::{Deserialize, Serialize};

use crate::SourceFile;

/// One file found and what came of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    /// The file.
    pub source: SourceFile,
    /// What kind of file it is to Gantry: `instructions`, `settings`, `hooks`, `command`,
    /// `skill`, `agent`, `mcp`.
    pub kind: String,
    /// What was read from it and applies, one line each (`deny rule Read(./.env)`).
    pub read: Vec<String>,
    /// What Gantry does not understand or support, one line each, with why; it never widens
    /// anything.
    pub not_understood: Vec<String>,
    /// What applies only once the user trusts the project's configuration, one line each
    /// (`hook PreToolUse Bash: .claude/hooks/block-rm.sh`, `allow rule Bash(npm run test:*)`).
    pub waits_for_trust: Vec<String>,
    /// Why the file could not be read at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub problem: Option<String>,
    /// The SHA-256 of the content read (what a trust binds to); empty when unreadable.
    pub sha256: String,
    /// True when what the file widens applies: a user file, or a project file the user trusted
    /// with this content.
    pub trusted: bool,
}

impl FileReport {
    /// An entry with nothing read yet.
    pub fn new(source: SourceFile, kind: &str) -> Self {
        Self {
            source,
            kind: kind.to_owned(),
            read: Vec::new(),
            not_understood: Vec::new(),
            waits_for_trust: Vec::new(),
            problem: None,
            sha256: String::new(),
            trusted: false,
        }
    }
}

/// Every file found for a project, in the order they were read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ConfigReport {
    /// One entry per file.
    pub files: Vec<FileReport>,
}

impl ConfigReport {
    /// The entry for `source`, added (as `kind`) when it is not there yet.
    pub fn file_mut(&mut self, source: &SourceFile, kind: &str) -> &mut FileReport {
        let index = match self.files.iter().position(|file| file.source == *source) {
            Some(index) => index,
            None => {
                self.files.push(FileReport::new(source.clone(), kind));
                self.files.len() - 1
            }
        };
        &mut self.files[index]
    }

    /// The files whose trust is missing: each has something waiting and is not trusted.
    pub fn untrusted(&self) -> impl Iterator<Item = &FileReport> {
        self.files
            .iter()
            .filter(|file| !file.trusted && !file.waits_for_trust.is_empty())
    }

    /// Adds `other`'s entries (merging entries of the same file).
    pub fn merge(&mut self, other: ConfigReport) {
        for file in other.files {
            let entry = self.file_mut(&file.source, &file.kind);
            entry.read.extend(file.read);
            entry.not_understood.extend(file.not_understood);
            entry.waits_for_trust.extend(file.waits_for_trust);
            if entry.problem.is_none() {
                entry.problem = file.problem;
            }
            if entry.sha256.is_empty() {
                entry.sha256 = file.sha256;
            }
            entry.trusted |= file.trusted;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ConfigScope, Locations};

    #[test]
    fn entries_of_one_file_merge_and_untrusted_lists_what_waits() {
        let at = Locations::new("/p", None);
        let settings = SourceFile::in_project(&at, ".claude/settings.json", ConfigScope::Project);
        let mut report = ConfigReport::default();
        report
            .file_mut(&settings, "settings")
            .read
            .push("deny rule Read(./.env)".into());
        let mut hooks = ConfigReport::default();
        hooks
            .file_mut(&settings, "settings")
            .waits_for_trust
            .push("hook PreToolUse".into());
        report.merge(hooks);
        assert_eq!(report.files.len(), 1);
        assert_eq!(report.files[0].read.len(), 1);
        assert_eq!(report.untrusted().count(), 1);
        report.files[0].trusted = true;
        assert_eq!(report.untrusted().count(), 0);
    }
}
