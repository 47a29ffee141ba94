//! The parts of the project's git repository a command may not change.
//!
//! Git runs hooks (`.git/hooks/*`) and configured commands (`core.hooksPath`, `core.fsmonitor`,
//! filters, `core.sshCommand`, aliases in `.git/config`) whenever the user later runs git in
//! the project *outside* the sandbox. A command that could write them would plant code that
//! escapes the sandbox on the user's next `git commit`, and nothing in the working tree's diff
//! would show it. So the repository stays usable (objects, refs, index, logs are writable:
//! `git add`/`commit`/`checkout` work) while these are mounted read-only:
//!
//! - `hooks/`, `config`, `info/`, `config.worktree` and `commondir` of the repository, of each
//!   submodule's repository under `modules/`, and (`config.worktree`, `commondir`) of each
//!   linked worktree's folder under `worktrees/`. A repository without `hooks/` or `info/`
//!   gets an empty one (as `git init` makes them), so there is something to mount read-only
//!   rather than a place to create hooks in;
//! - a `.git` *file* (a linked worktree's or a submodule's checkout: `gitdir: ...`), so it
//!   cannot be pointed at a repository the command made up;
//! - the `.git` folder itself and each submodule's checkout folder are bound onto themselves
//!   (still writable), which makes them mount points: a command cannot rename or delete them
//!   to put a new `.git` with its own hooks in their place. (A `.git` that is a symbolic link
//!   protects the repository it points to, but the link can be replaced.)

use std::fs;
use std::path::{Path, PathBuf};

/// How deep submodules of submodules are followed.
const MAX_MODULE_DEPTH: usize = 6;

/// The files and folders of a repository whose changes would run code outside the sandbox.
const GITDIR_PROTECTED: &[&str] = &["hooks", "config", "info", "config.worktree", "commondir"];

/// The folders of [`GITDIR_PROTECTED`] made empty when missing (a missing `config` is a broken
/// repository, a missing `config.worktree` is not read while `config` does not ask for it).
const MADE_IF_MISSING: &[&str] = &["hooks", "info"];

/// What the sandbox mounts to protect a project's repository. Paths are as found on disk
/// (not yet filtered for visibility inside the sandbox).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct GitMounts {
    /// Folders bound onto themselves, writable, so they cannot be renamed or removed.
    pub pinned: Vec<PathBuf>,
    /// Files and folders bound onto themselves read-only.
    pub read_only: Vec<PathBuf>,
    /// Folders of `read_only` that do not exist yet: created empty before mounting.
    pub missing: Vec<PathBuf>,
}

/// The mounts that protect the repository at `project_root` (none when it has no `.git`).
pub(crate) fn git_mounts(project_root: &Path) -> GitMounts {
    let mut mounts = GitMounts::default();
    let dot_git = project_root.join(".git");
    let Ok(metadata) = fs::symlink_metadata(&dot_git) else {
        return mounts;
    };
    if metadata.is_dir() {
        mounts.pinned.push(dot_git.clone());
        protect_gitdir(&dot_git, 0, &mut mounts);
    } else if metadata.is_symlink() {
        // A link to the repository: its target is protected; the link itself cannot be
        // mounted over (see the crate's limits).
        if dot_git.is_dir() {
            protect_gitdir(&dot_git, 0, &mut mounts);
        }
    } else if metadata.is_file() {
        mounts.read_only.push(dot_git.clone());
        if let Some(gitdir) = gitdir_of_file(&dot_git) {
            protect_gitdir(&gitdir, 0, &mut mounts);
            if let Some(common) = common_dir(&gitdir) {
                protect_gitdir(&common, 0, &mut mounts);
            }
        }
    }
    protect_submodule_checkouts(project_root, &mut mounts);
    mounts.pinned.sort();
    mounts.pinned.dedup();
    mounts.read_only.sort();
    mounts.read_only.dedup();
    mounts.missing.sort();
    mounts.missing.dedup();
    mounts
}

/// Protects one repository folder, its linked worktrees' folders and its submodules.
fn protect_gitdir(gitdir: &Path, depth: usize, mounts: &mut GitMounts) {
    // A folder with a `commondir` file is a linked worktree's: its hooks are the common ones.
    let is_repository = fs::symlink_metadata(gitdir.join("commondir")).is_err();
    for name in GITDIR_PROTECTED {
        let path = gitdir.join(name);
        if fs::symlink_metadata(&path).is_ok() {
            mounts.read_only.push(path);
        } else if is_repository && MADE_IF_MISSING.contains(name) {
            mounts.missing.push(path.clone());
            mounts.read_only.push(path);
        }
    }
    for worktree in subfolders(&gitdir.join("worktrees")) {
        for name in ["config.worktree", "commondir"] {
            let path = worktree.join(name);
            if fs::symlink_metadata(&path).is_ok() {
                mounts.read_only.push(path);
            }
        }
    }
    if depth < MAX_MODULE_DEPTH {
        protect_modules(&gitdir.join("modules"), depth, mounts);
    }
}

/// Submodule repositories live under `modules/NAME`, where NAME may contain slashes: a folder
/// with a `HEAD` is a repository, any other folder is searched further.
fn protect_modules(folder: &Path, depth: usize, mounts: &mut GitMounts) {
    for sub in subfolders(folder) {
        if sub.join("HEAD").is_file() {
            protect_gitdir(&sub, depth + 1, mounts);
        } else if depth < MAX_MODULE_DEPTH {
            protect_modules(&sub, depth + 1, mounts);
        }
    }
}

/// The checkouts listed in `.gitmodules` whose `.git` is a file: the file is made read-only and
/// the checkout folder pinned.
fn protect_submodule_checkouts(project_root: &Path, mounts: &mut GitMounts) {
    let Ok(text) = fs::read_to_string(project_root.join(".gitmodules")) else {
        return;
    };
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() != "path" {
            continue;
        }
        let relative = Path::new(value.trim());
        if relative.is_absolute()
            || relative
                .components()
                .any(|part| !matches!(part, std::path::Component::Normal(_)))
        {
            continue;
        }
        let checkout = project_root.join(relative);
        let dot_git = checkout.join(".git");
        let is_real_folder = fs::symlink_metadata(&checkout).is_ok_and(|meta| meta.is_dir());
        let has_git_file = fs::symlink_metadata(&dot_git).is_ok_and(|meta| meta.is_file());
        if is_real_folder && has_git_file {
            mounts.pinned.push(checkout);
            mounts.read_only.push(dot_git);
        }
    }
}

/// The repository folder a `.git` file points to (`gitdir: PATH`, relative to the file's
/// folder), if it exists.
fn gitdir_of_file(dot_git: &Path) -> Option<PathBuf> {
    let text = fs::read_to_string(dot_git).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let path = dot_git.parent()?.join(target);
    path.is_dir().then_some(path)
}

/// The common folder a linked worktree's repository folder shares (`commondir`).
fn common_dir(gitdir: &Path) -> Option<PathBuf> {
    let text = fs::read_to_string(gitdir.join("commondir")).ok()?;
    let path = gitdir.join(text.trim());
    path.is_dir().then_some(path)
}

/// The real folders (not links) directly inside `folder`.
fn subfolders(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .map(|entry| entry.path())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "").unwrap();
    }

    #[test]
    fn no_repository_needs_no_mounts() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(git_mounts(dir.path()), GitMounts::default());
    }

    #[test]
    fn a_repository_folder_is_pinned_and_its_code_paths_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let git = root.join(".git");
        fs::create_dir_all(git.join("hooks")).unwrap();
        fs::create_dir_all(git.join("info")).unwrap();
        touch(&git.join("config"));
        touch(&git.join("HEAD"));
        touch(&git.join("worktrees/wt/commondir"));
        touch(&git.join("modules/libs/a/HEAD"));
        touch(&git.join("modules/libs/a/config"));
        fs::create_dir_all(git.join("modules/libs/a/hooks")).unwrap();
        fs::create_dir_all(root.join("libs/a")).unwrap();
        fs::write(
            root.join("libs/a/.git"),
            "gitdir: ../../.git/modules/libs/a\n",
        )
        .unwrap();
        fs::write(
            root.join(".gitmodules"),
            "[submodule \"a\"]\n\tpath = libs/a\n\turl = x\n[submodule \"b\"]\n\tpath = ../out\n",
        )
        .unwrap();
        let mounts = git_mounts(root);
        assert_eq!(mounts.pinned, vec![git.clone(), root.join("libs/a")]);
        assert_eq!(
            mounts.read_only,
            vec![
                git.join("config"),
                git.join("hooks"),
                git.join("info"),
                git.join("modules/libs/a/config"),
                git.join("modules/libs/a/hooks"),
                git.join("modules/libs/a/info"),
                git.join("worktrees/wt/commondir"),
                root.join("libs/a/.git"),
            ]
        );
        assert_eq!(mounts.missing, vec![git.join("modules/libs/a/info")]);
    }

    #[test]
    fn a_linked_git_folder_protects_its_target_without_pinning() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store.git");
        fs::create_dir_all(store.join("hooks")).unwrap();
        touch(&store.join("config"));
        let project = dir.path().join("project");
        fs::create_dir_all(&project).unwrap();
        std::os::unix::fs::symlink(&store, project.join(".git")).unwrap();
        let mounts = git_mounts(&project);
        assert!(mounts.pinned.is_empty());
        let git = project.join(".git");
        assert_eq!(
            mounts.read_only,
            vec![git.join("config"), git.join("hooks"), git.join("info")]
        );
    }

    #[test]
    fn a_git_file_is_read_only_and_its_repository_protected() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main/.git");
        let linked = main.join("worktrees/wt");
        fs::create_dir_all(main.join("hooks")).unwrap();
        touch(&main.join("config"));
        fs::create_dir_all(&linked).unwrap();
        fs::write(linked.join("commondir"), "../..\n").unwrap();
        let project = dir.path().join("wt");
        fs::create_dir_all(&project).unwrap();
        fs::write(
            project.join(".git"),
            format!("gitdir: {}\n", linked.display()),
        )
        .unwrap();
        let mounts = git_mounts(&project);
        assert!(mounts.pinned.is_empty());
        assert!(mounts.read_only.contains(&project.join(".git")));
        assert!(mounts.read_only.contains(&linked.join("commondir")));
        assert!(mounts.read_only.contains(&linked.join("../../hooks")));
        assert!(mounts.read_only.contains(&linked.join("../../config")));
        // The main repository lacks `info/`; the linked worktree's folder gets nothing made.
        assert_eq!(mounts.missing, vec![linked.join("../../info")]);
    }
}
