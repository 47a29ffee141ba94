//! The bubblewrap options that build a command's view of the system from a policy.
//!
//! In order (a later mount covers an earlier one at the same place):
//!
//! 1. new user, PID and IPC namespaces (a network namespace too when the network is off), no
//!    capabilities, no nested user namespaces, a new terminal session, and death with Gantry;
//! 2. the host's `/` read-only; a fresh `/dev` (null, zero, random, tty, a private `/dev/shm`)
//!    and a `/proc` that shows only the sandbox's processes;
//! 3. the session's temporary folder as `/tmp`, and with the network off an empty read-only
//!    `/run` (its sockets are local services);
//! 4. the project and the extra writable folders, read-write, at their own paths (parents
//!    before children);
//! 5. the hidden paths that exist and would be visible: folders become empty and read-only,
//!    files and sockets become a device that cannot be opened;
//! 6. the repository's protected paths ([`crate::git`]).
//!
//! Every path is canonical (links resolved) before it is compared or mounted, so a link cannot
//! make a hidden path look like another one.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::git::git_mounts;
use crate::policy::{PathRole, PolicyError, SandboxPolicy};
use crate::secrets::environment_hidden_paths;

/// Where the session's temporary folder appears inside.
pub(crate) const SANDBOX_TMP: &str = "/tmp";

/// The host folders the sandbox replaces with its own: `/tmp`, `/dev`, `/proc`, and `/run`
/// when the network is off (its sockets are local services: databases, print and container
/// daemons, buses).
fn replaced_folders(network: bool) -> &'static [&'static str] {
    if network {
        &[SANDBOX_TMP, "/dev", "/proc"]
    } else {
        &[SANDBOX_TMP, "/dev", "/proc", "/run"]
    }
}

/// What the installed bubblewrap can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Features {
    /// `--disable-userns` (bubblewrap 0.8.0 and later).
    pub disable_userns: bool,
}

/// What covers a path inside the sandbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cover {
    /// The host's read-only `/`.
    Host,
    /// A folder the sandbox replaces (`/tmp`, `/dev`, `/proc`, maybe `/run`): the host path is
    /// not visible.
    Replaced,
    /// A writable folder.
    Writable,
}

/// The bubblewrap options (everything before `--`) that run a command under `policy` in `cwd`.
pub(crate) fn bwrap_options(
    policy: &SandboxPolicy,
    env: &[(OsString, OsString)],
    cwd: &Path,
    features: Features,
) -> Result<Vec<OsString>, PolicyError> {
    let layout = Layout::resolve(policy, env, cwd)?;
    let mut options = Options::default();
    namespaces(&mut options, policy.network, features);
    layout.mount(&mut options, policy.network);
    Ok(options.0)
}

/// Step 1: the namespaces and the process's standing.
fn namespaces(options: &mut Options, network: bool, features: Features) {
    options.flags(&["--unshare-user"]);
    if features.disable_userns {
        options.flags(&["--disable-userns"]);
    }
    options.flags(&["--unshare-pid", "--unshare-ipc"]);
    if !network {
        options.flags(&["--unshare-net"]);
    }
    options.flags(&["--cap-drop", "ALL", "--die-with-parent", "--new-session"]);
}

/// The canonical paths a command's view is built from.
struct Layout {
    temp: PathBuf,
    /// The project and the extra writable folders, parents first.
    writable: Vec<PathBuf>,
    /// Hidden paths to mask, with whether each is a folder.
    masked: Vec<(PathBuf, bool)>,
    /// Repository folders to pin.
    pinned: Vec<PathBuf>,
    /// Repository paths to make read-only.
    read_only: Vec<PathBuf>,
    cwd: PathBuf,
}

impl Layout {
    /// Resolves and checks every path of `policy` (and the environment's hidden ones).
    fn resolve(
        policy: &SandboxPolicy,
        env: &[(OsString, OsString)],
        cwd: &Path,
    ) -> Result<Self, PolicyError> {
        let replaced = replaced_folders(policy.network);
        let project = canonical_folder(&policy.project_root, PathRole::Project)?;
        let temp = canonical_folder(&policy.temp_dir, PathRole::Temp)?;
        let mut roles = vec![(project.clone(), PathRole::Project)];
        for extra in &policy.extra_writable {
            let path = canonical_folder(extra, PathRole::ExtraWritable)?;
            roles.push((path, PathRole::ExtraWritable));
        }
        for (path, role) in &roles {
            // Writable `/` (or any parent of a replaced folder) would cover the sandbox's own.
            let too_broad = replaced.iter().any(|replaced| {
                Path::new(replaced).starts_with(path) && path != Path::new(SANDBOX_TMP)
            });
            if too_broad {
                return Err(PolicyError::TooBroad {
                    role: *role,
                    path: path.clone(),
                });
            }
        }
        let mut writable: Vec<PathBuf> = roles.iter().map(|(path, _)| path.clone()).collect();
        sort_parents_first(&mut writable);
        let covers = Covers {
            replaced,
            writable: &writable,
        };
        let masked = masked_paths(policy, env, &roles, covers)?;
        let cwd = canonical_folder(cwd, PathRole::WorkingDirectory)?;
        if covers.of(&cwd) == Cover::Replaced
            || masked.iter().any(|(hidden, _)| cwd.starts_with(hidden))
        {
            return Err(PolicyError::CwdNotVisible { path: cwd });
        }
        let (pinned, read_only) = protected_git_paths(&project, covers, &masked);
        Ok(Self {
            temp,
            writable,
            masked,
            pinned,
            read_only,
            cwd,
        })
    }

    /// Steps 2 to 6: the mounts, then the working directory.
    fn mount(&self, options: &mut Options, network: bool) {
        options.same("--ro-bind", Path::new("/"));
        options.flags(&["--dev", "/dev", "--proc", "/proc"]);
        options.pair("--bind", &self.temp, Path::new(SANDBOX_TMP));
        if !network {
            options.flags(&["--tmpfs", "/run"]);
        }
        for path in &self.writable {
            options.same("--bind", path);
        }
        if !network {
            // After the binds, which may need mount points in it.
            options.flags(&["--remount-ro", "/run"]);
        }
        for (path, is_folder) in &self.masked {
            if *is_folder {
                options.same("--tmpfs", path);
                options.same("--remount-ro", path);
            } else {
                options.pair("--ro-bind", Path::new("/dev/null"), path);
            }
        }
        for path in &self.pinned {
            options.same("--bind", path);
        }
        for path in &self.read_only {
            options.same("--ro-bind", path);
        }
        options.same("--chdir", &self.cwd);
    }
}

/// The hidden paths to mask, canonical, with whether each is a folder: those that exist, are
/// visible inside, and are not inside another masked path. Fails if a writable folder lies
/// inside one.
fn masked_paths(
    policy: &SandboxPolicy,
    env: &[(OsString, OsString)],
    writable: &[(PathBuf, PathRole)],
    covers: Covers<'_>,
) -> Result<Vec<(PathBuf, bool)>, PolicyError> {
    let mut candidates: Vec<PathBuf> = policy
        .hidden_paths
        .iter()
        .cloned()
        .chain(environment_hidden_paths(env))
        .filter_map(|path| fs::canonicalize(path).ok())
        .filter(|path| covers.of(path) != Cover::Replaced)
        .collect();
    sort_parents_first(&mut candidates);
    candidates.dedup();
    let mut masked: Vec<(PathBuf, bool)> = Vec::new();
    for hidden in candidates {
        if let Some((path, role)) = writable.iter().find(|(path, _)| path.starts_with(&hidden)) {
            return Err(PolicyError::InsideHidden {
                role: *role,
                path: path.clone(),
                hidden,
            });
        }
        if masked.iter().any(|(outer, _)| hidden.starts_with(outer)) {
            continue;
        }
        let is_folder = fs::metadata(&hidden).is_ok_and(|meta| meta.is_dir());
        masked.push((hidden, is_folder));
    }
    Ok(masked)
}

/// The repository paths to pin and to make read-only, canonical, limited to those a command
/// could otherwise change (inside a writable folder, not masked). Creates the missing folders
/// that are to be read-only (an empty `hooks/`), where a command could otherwise create them.
fn protected_git_paths(
    project: &Path,
    covers: Covers<'_>,
    masked: &[(PathBuf, bool)],
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mounts = git_mounts(project);
    let changeable = |path: &Path| {
        covers.of(path) == Cover::Writable
            && !masked.iter().any(|(hidden, _)| path.starts_with(hidden))
    };
    for folder in &mounts.missing {
        let parent = folder
            .parent()
            .and_then(|parent| fs::canonicalize(parent).ok());
        if parent.is_some_and(|parent| changeable(&parent))
            && let Err(error) = fs::create_dir(folder)
        {
            tracing::warn!(
                path = %folder.display(),
                %error,
                "cannot create a repository folder to protect it"
            );
        }
    }
    let keep = |paths: Vec<PathBuf>| {
        let mut kept: Vec<PathBuf> = paths
            .into_iter()
            .filter_map(|path| fs::canonicalize(path).ok())
            .filter(|path| changeable(path))
            .collect();
        sort_parents_first(&mut kept);
        kept.dedup();
        kept
    };
    (keep(mounts.pinned), keep(mounts.read_only))
}

/// The folders mounted over the host's `/`.
#[derive(Clone, Copy)]
struct Covers<'a> {
    replaced: &'a [&'a str],
    writable: &'a [PathBuf],
}

impl Covers<'_> {
    /// What covers `path` inside the sandbox: the deepest of the replaced folders and the
    /// writable ones that contains it (a writable folder wins a tie: it is mounted later).
    fn of(&self, path: &Path) -> Cover {
        let mut best = (0, Cover::Host);
        for replaced in self.replaced {
            let replaced = Path::new(replaced);
            if path.starts_with(replaced) && depth(replaced) > best.0 {
                best = (depth(replaced), Cover::Replaced);
            }
        }
        for folder in self.writable {
            if path.starts_with(folder) && depth(folder) >= best.0 {
                best = (depth(folder), Cover::Writable);
            }
        }
        best.1
    }
}

fn depth(path: &Path) -> usize {
    path.components().count()
}

/// Sorts so that a folder comes before anything inside it (mounting a parent later would
/// cover its children), then by path for a stable command line.
fn sort_parents_first(paths: &mut [PathBuf]) {
    paths.sort_by(|a, b| depth(a).cmp(&depth(b)).then_with(|| a.cmp(b)));
}

/// The canonical form of a folder the policy names.
fn canonical_folder(path: &Path, role: PathRole) -> Result<PathBuf, PolicyError> {
    let unusable = |source: io::Error| PolicyError::Unusable {
        role,
        path: path.to_path_buf(),
        source,
    };
    let canonical = fs::canonicalize(path).map_err(unusable)?;
    let metadata = fs::metadata(&canonical).map_err(unusable)?;
    if !metadata.is_dir() {
        return Err(PolicyError::NotAFolder {
            role,
            path: path.to_path_buf(),
        });
    }
    Ok(canonical)
}

/// A bubblewrap command line under construction.
#[derive(Default)]
struct Options(Vec<OsString>);

impl Options {
    fn flags(&mut self, flags: &[&str]) {
        self.0.extend(flags.iter().map(OsString::from));
    }

    /// `OPTION SOURCE DEST`.
    fn pair(&mut self, option: &str, source: &Path, dest: &Path) {
        self.0.push(option.into());
        self.0.push(source.into());
        self.0.push(dest.into());
    }

    /// `OPTION PATH` for options that take one path, or `OPTION PATH PATH` for binds onto
    /// the same place.
    fn same(&mut self, option: &str, path: &Path) {
        self.0.push(option.into());
        self.0.push(path.into());
        if option.ends_with("bind") {
            self.0.push(path.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::temp::SessionTemp;

    const FEATURES: Features = Features {
        disable_userns: true,
    };

    fn text(options: &[OsString]) -> String {
        options
            .iter()
            .map(|option| option.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    struct Fixture {
        _base: tempfile::TempDir,
        root: PathBuf,
        temp: SessionTemp,
    }

    impl Fixture {
        fn new() -> Self {
            // Outside /tmp, so the project is visible at its own path.
            let base = tempfile::tempdir_in("/var/tmp").unwrap();
            let root = base.path().canonicalize().unwrap();
            fs::create_dir_all(root.join("project")).unwrap();
            fs::create_dir_all(root.join("home/.ssh")).unwrap();
            fs::write(root.join("home/.netrc"), "machine x").unwrap();
            Self {
                _base: base,
                root,
                temp: SessionTemp::new().unwrap(),
            }
        }

        fn policy(&self) -> SandboxPolicy {
            SandboxPolicy::new(
                self.root.join("project"),
                &self.temp,
                &self.root.join("home"),
            )
        }

        fn options(&self, policy: &SandboxPolicy) -> Result<String, PolicyError> {
            bwrap_options(policy, &[], &self.root.join("project"), FEATURES).map(|o| text(&o))
        }
    }

    #[test]
    fn the_layout_is_in_order_and_hides_what_exists() {
        let fx = Fixture::new();
        let options = fx.options(&fx.policy()).unwrap();
        let (root, temp) = (fx.root.display(), fx.temp.path().display());
        let expected = format!(
            "--unshare-user --disable-userns --unshare-pid --unshare-ipc --unshare-net \
             --cap-drop ALL --die-with-parent --new-session --ro-bind / / --dev /dev --proc /proc \
             --bind {temp} /tmp --tmpfs /run --bind {root}/project {root}/project --remount-ro /run \
             --ro-bind /dev/null {root}/home/.netrc \
             --tmpfs {root}/home/.ssh --remount-ro {root}/home/.ssh --chdir {root}/project"
        );
        assert_eq!(options, expected);
        assert!(!options.contains(".gnupg"));
    }

    #[test]
    fn the_network_switch_keeps_the_host_network() {
        let fx = Fixture::new();
        let options = fx.options(&fx.policy().with_network(true)).unwrap();
        assert!(!options.contains("--unshare-net"), "{options}");
        // The host's /run stays, minus the services that act for the user.
        assert!(!options.contains("--tmpfs /run "), "{options}");
        if Path::new("/run/user").is_dir() {
            assert!(
                options.contains("--tmpfs /run/user --remount-ro /run/user"),
                "{options}"
            );
        }
    }

    #[test]
    fn a_writable_folder_inside_a_hidden_one_is_refused() {
        let fx = Fixture::new();
        let policy = fx.policy().allow_writing(fx.root.join("home/.ssh"));
        match fx.options(&policy) {
            Err(PolicyError::InsideHidden { role, hidden, .. }) => {
                assert_eq!(role, PathRole::ExtraWritable);
                assert_eq!(hidden, fx.root.join("home/.ssh"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_root_as_writable_folder_is_refused_and_missing_folders_are_named() {
        let fx = Fixture::new();
        assert!(matches!(
            fx.options(&fx.policy().allow_writing("/")),
            Err(PolicyError::TooBroad { .. })
        ));
        let err = fx
            .options(&fx.policy().allow_writing(fx.root.join("nope")))
            .unwrap_err();
        assert!(
            err.to_string().starts_with("the extra writable folder "),
            "{err}"
        );
        assert!(matches!(err, PolicyError::Unusable { .. }));
    }

    #[test]
    fn hidden_paths_inside_the_project_are_masked_after_it_and_nested_ones_once() {
        let fx = Fixture::new();
        let project = fx.root.join("project");
        fs::create_dir_all(project.join("secret/inner")).unwrap();
        let policy = fx
            .policy()
            .hide(project.join("secret/inner"))
            .hide(project.join("secret"));
        let options = fx.options(&policy).unwrap();
        let secret = format!("--tmpfs {}", project.join("secret").display());
        assert!(options.contains(&secret), "{options}");
        assert!(!options.contains("inner"), "{options}");
    }

    #[test]
    fn the_working_directory_must_be_visible() {
        let fx = Fixture::new();
        let policy = fx.policy();
        let err = bwrap_options(&policy, &[], fx.temp.path(), FEATURES).unwrap_err();
        assert!(matches!(err, PolicyError::CwdNotVisible { .. }), "{err}");
        let err = bwrap_options(&policy, &[], &fx.root.join("home/.ssh"), FEATURES).unwrap_err();
        assert!(matches!(err, PolicyError::CwdNotVisible { .. }), "{err}");
    }

    #[test]
    fn the_repository_is_pinned_and_its_hooks_read_only() {
        let fx = Fixture::new();
        let git = fx.root.join("project/.git");
        fs::create_dir_all(git.join("hooks")).unwrap();
        fs::write(git.join("config"), "").unwrap();
        let options = fx.options(&fx.policy()).unwrap();
        let path = |name: &str| git.join(name).display().to_string();
        let (g, c, h, i) = (path(""), path("config"), path("hooks"), path("info"));
        let g = g.trim_end_matches('/');
        let expected =
            format!("--bind {g} {g} --ro-bind {c} {c} --ro-bind {h} {h} --ro-bind {i} {i} --chdir");
        assert!(options.contains(&expected), "{options}");
        // The missing `info/` was made, empty, to be mounted.
        assert_eq!(fs::read_dir(git.join("info")).unwrap().count(), 0);
    }

    #[test]
    fn cover_prefers_the_deepest_folder() {
        let writable = vec![PathBuf::from("/tmp/p"), PathBuf::from("/home/u/p")];
        let covers = Covers {
            replaced: replaced_folders(false),
            writable: &writable,
        };
        assert_eq!(covers.of(Path::new("/tmp/p/x")), Cover::Writable);
        assert_eq!(covers.of(Path::new("/tmp/q")), Cover::Replaced);
        assert_eq!(covers.of(Path::new("/run/user/1")), Cover::Replaced);
        assert_eq!(covers.of(Path::new("/home/u/p2")), Cover::Host);
        let online = Covers {
            replaced: replaced_folders(true),
            writable: &writable,
        };
        assert_eq!(online.of(Path::new("/run/user/1")), Cover::Host);
        let tmp = [PathBuf::from("/tmp")];
        let covers = Covers {
            replaced: replaced_folders(true),
            writable: &tmp,
        };
        assert_eq!(covers.of(Path::new("/tmp")), Cover::Writable);
    }
}
