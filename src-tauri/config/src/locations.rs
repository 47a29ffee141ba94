//! Where other agents keep their configuration: the project root and the user's home.

use std::path::{Path, PathBuf};

/// The two places configuration comes from. The home folder is explicit (not read from the
/// environment inside the crate) so tests and the CLI can point it anywhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// The project folder (canonical).
    pub project: PathBuf,
    /// The user's home folder, when known; without it no user file is read.
    pub home: Option<PathBuf>,
}

impl Locations {
    /// The project at `project` and the current user's home (from the environment).
    pub fn for_project(project: impl Into<PathBuf>) -> Self {
        Self {
            project: project.into(),
            home: directories::BaseDirs::new().map(|dirs| dirs.home_dir().to_path_buf()),
        }
    }

    /// The project at `project` with `home` as the user's home (tests, `HOME` overrides).
    pub fn new(project: impl Into<PathBuf>, home: Option<PathBuf>) -> Self {
        Self {
            project: project.into(),
            home,
        }
    }

    /// `relative` under the user's home (`~/.claude/settings.json`), when the home is known.
    pub fn in_home(&self, relative: &str) -> Option<PathBuf> {
        self.home.as_ref().map(|home| home.join(relative))
    }

    /// `relative` under the project root.
    pub fn in_project(&self, relative: &str) -> PathBuf {
        self.project.join(relative)
    }

    /// How a path is shown: project-relative (`.claude/settings.json`), `~/`-relative for the
    /// home, else as it is.
    pub fn display(&self, path: &Path) -> String {
        if let Ok(relative) = path.strip_prefix(&self.project) {
            return relative.display().to_string();
        }
        if let Some(home) = &self.home
            && let Ok(relative) = path.strip_prefix(home)
        {
            return format!("~/{}", relative.display());
        }
        path.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_show_relative_to_the_project_or_the_home() {
        let at = Locations::new("/p/proj", Some("/home/u".into()));
        assert_eq!(
            at.display(&at.in_project(".claude/settings.json")),
            ".claude/settings.json"
        );
        assert_eq!(
            at.display(&at.in_home(".claude/CLAUDE.md").unwrap()),
            "~/.claude/CLAUDE.md"
        );
        assert_eq!(at.display(Path::new("/etc/x")), "/etc/x");
        assert_eq!(Locations::new("/p", None).in_home(".claude"), None);
    }
}
