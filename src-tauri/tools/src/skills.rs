//! Agent Skills as the tools see them: a library to load them from, the skill folders
//! read_file may read, and the catalog the system prompt lists.
//!
//! A skill is a folder with a `SKILL.md` (`shared/reference/extensibility-specs.md` §2). The
//! model sees only each skill's name and description (the catalog); calling the `skill` tool
//! loads the body and lists the folder's files. A skill may live outside the project (the
//! user's `~/.claude/skills/x`), so once loaded its folder becomes an extra **read-only** root
//! for read_file — a confinement root of its own ([`ProjectRoot`]), so a symlink inside it
//! leading elsewhere is still refused, and nothing but read_file looks there: write_file,
//! edit_file and the searches resolve in the project only. Which skills exist is decided by
//! whoever implements [`SkillLibrary`] (gantry-config reads the folders; it never offers a
//! secret store).

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use crate::confine::{ConfineError, ProjectRoot, ResolvedPath};

/// One skill as the catalog lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillSummary {
    /// Its name (`pdf-processing`).
    pub name: String,
    /// What it does and when to use it.
    pub description: String,
    /// Its `SKILL.md` (absolute).
    pub location: PathBuf,
}

/// A skill loaded for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedSkill {
    /// Its name.
    pub name: String,
    /// Its folder (canonical).
    pub dir: PathBuf,
    /// Its instructions (the body of `SKILL.md`, `${CLAUDE_SKILL_DIR}` substituted).
    pub body: String,
    /// The files of its folder besides `SKILL.md`, relative to it.
    pub files: Vec<String>,
}

/// Where skills come from.
pub trait SkillLibrary: Send + Sync {
    /// The skills the model may load by itself, in the order listed.
    fn catalog(&self) -> Vec<SkillSummary>;
    /// Loads skill `name` (blocking); the error says why not, for the model.
    fn load(&self, name: &str) -> Result<LoadedSkill, String>;
}

/// A project's skills: the library (if any) and the skill folders opened for reading.
#[derive(Default)]
pub struct SkillShelf {
    library: RwLock<Option<Arc<dyn SkillLibrary>>>,
    roots: RwLock<Vec<Arc<ProjectRoot>>>,
}

impl std::fmt::Debug for SkillShelf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillShelf")
            .field("library", &self.library().is_some())
            .field("roots", &self.roots.read().map(|r| r.len()).unwrap_or(0))
            .finish()
    }
}

impl SkillShelf {
    /// Sets where skills come from (replacing any earlier library).
    pub fn set_library(&self, library: Arc<dyn SkillLibrary>) {
        *self.library.write().unwrap_or_else(PoisonError::into_inner) = Some(library);
    }

    /// Where skills come from, if anywhere.
    pub fn library(&self) -> Option<Arc<dyn SkillLibrary>> {
        self.library
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The skills the model may load by itself (none without a library). Blocking.
    pub fn catalog(&self) -> Vec<SkillSummary> {
        self.library()
            .map(|library| library.catalog())
            .unwrap_or_default()
    }

    /// Lets read_file read below `dir` (a loaded skill's folder), read-only.
    pub fn open_folder(&self, dir: &Path) -> Result<(), ConfineError> {
        let root = ProjectRoot::new(dir)?;
        let mut roots = self.roots.write().unwrap_or_else(PoisonError::into_inner);
        if !roots.iter().any(|known| known.path() == root.path()) {
            roots.push(Arc::new(root));
        }
        Ok(())
    }

    /// The opened skill folder `user_path` (absolute) lies in, and the path resolved in it;
    /// `None` when it is in none of them or leads out of the one it is in.
    pub fn resolve(&self, user_path: &str) -> Option<(Arc<ProjectRoot>, ResolvedPath)> {
        let path = Path::new(user_path);
        if !path.is_absolute() {
            return None;
        }
        let roots = self.roots.read().unwrap_or_else(PoisonError::into_inner);
        let root = roots.iter().find(|root| path.starts_with(root.path()))?;
        let resolved = root.resolve(user_path).ok()?;
        Some((Arc::clone(root), resolved))
    }
}

/// The share of the context window the catalog may take, in percent.
pub const CATALOG_WINDOW_PERCENT: usize = 2;

/// The catalog for the system prompt (`<available_skills>`, per the Agent Skills client guide),
/// at most [`CATALOG_WINDOW_PERCENT`] of `window_tokens` (about four characters a token), with a
/// note when skills had to be left out; `None` without skills.
pub fn catalog_text(skills: &[SkillSummary], window_tokens: u32) -> Option<String> {
    if skills.is_empty() {
        return None;
    }
    let budget =
        usize::try_from(window_tokens).unwrap_or(usize::MAX) * 4 * CATALOG_WINDOW_PERCENT / 100;
    let head = "Skills: folders of instructions and files for particular tasks. When a task \
                matches a skill's description, call the skill tool with its name to load its \
                instructions before you start, then follow them; read_file can read the files \
                it lists.\n<available_skills>\n";
    let mut text = String::from(head);
    let mut listed = 0;
    for skill in skills {
        let entry = format!(
            "<skill><name>{}</name><description>{}</description><location>{}</location></skill>\n",
            escape(&skill.name),
            escape(&skill.description),
            escape(&skill.location.display().to_string()),
        );
        if text.len() + entry.len() > budget {
            break;
        }
        text.push_str(&entry);
        listed += 1;
    }
    text.push_str("</available_skills>\n");
    let left = skills.len() - listed;
    if left > 0 {
        text.push_str(&format!(
            "({left} more skill{} not listed: the list is capped at {CATALOG_WINDOW_PERCENT}% of \
             the context window.)\n",
            if left == 1 { " is" } else { "s are" }
        ));
    }
    Some(text)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(name: &str) -> SkillSummary {
        SkillSummary {
            name: name.into(),
            description: format!("Use for {name} <tasks>"),
            location: PathBuf::from(format!("/h/.claude/skills/{name}/SKILL.md")),
        }
    }

    #[test]
    fn the_catalog_lists_skills_escaped_and_notes_a_cut() {
        let all: Vec<_> = (0..40).map(|i| summary(&format!("skill-{i}"))).collect();
        let whole = catalog_text(&all[..2], 200_000).unwrap();
        assert!(whole.contains(
            "<skill><name>skill-0</name><description>Use for skill-0 &lt;tasks&gt;</description>\
             <location>/h/.claude/skills/skill-0/SKILL.md</location></skill>"
        ));
        assert!(!whole.contains("not listed"));
        // 2% of 32k tokens ≈ 2560 characters: not all 40 entries (~130 characters each) fit.
        let cut = catalog_text(&all, 32_000).unwrap();
        assert!(cut.len() <= 2_560 + 200, "{}", cut.len());
        assert!(cut.contains("skills are not listed"), "{cut}");
        assert!(cut.contains("skill-0"));
        assert!(!cut.contains("skill-39<"));
        assert_eq!(catalog_text(&[], 32_000), None);
    }

    #[test]
    fn only_opened_folders_resolve_and_links_out_of_them_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let skill = base.join("skills/pdf");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join("guide.md"), "g").unwrap();
        std::fs::write(base.join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(base.join("secret.txt"), skill.join("link.txt")).unwrap();
        let shelf = SkillShelf::default();
        let guide = skill.join("guide.md").display().to_string();
        assert!(shelf.resolve(&guide).is_none());
        shelf.open_folder(&skill).unwrap();
        let (root, resolved) = shelf.resolve(&guide).unwrap();
        assert_eq!(root.path(), skill);
        assert_eq!(resolved.path(), skill.join("guide.md"));
        assert!(
            shelf
                .resolve(&skill.join("link.txt").display().to_string())
                .is_none()
        );
        assert!(
            shelf
                .resolve(&base.join("secret.txt").display().to_string())
                .is_none()
        );
        assert!(shelf.resolve("guide.md").is_none());
    }
}
