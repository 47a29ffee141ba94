//! How a project's commands are sandboxed: the system's sandbox (or why there is none), the
//! project's switches, and each session's private temporary folder.
//!
//! run_command runs every command under [`gantry_sandbox`] (bubblewrap): it writes only in the
//! project, the session's temporary folder (`TMPDIR`) and the folders the user made writable
//! for the project; it cannot read the user's secret stores or Gantry's own folders; it has no
//! network unless the project's switch is on. The pieces that live longer than a call are here:
//!
//! - [`CommandSandbox`], one per project (the [`crate::ToolManager`] holds it): whether this
//!   system can sandbox at all (probed once per process), the project's [`SandboxSettings`]
//!   (network switch, extra writable folders, read at every call so a change holds for the next
//!   one), the home folder whose secret stores are hidden, and the extra paths to hide (the
//!   engine adds Gantry's data and configuration folders).
//! - [`SessionTemp`](gantry_sandbox::SessionTemp) per session, created at the session's first
//!   command and removed with the session ([`crate::ToolSession`] owns it through a
//!   [`SessionTempSlot`]).
//!
//! When the system cannot sandbox (no bubblewrap, user namespaces off), nothing pretends: the
//! gate makes every run_command call ask, even under Auto, with "Allow once" as the only way to
//! run it (no session grant or rule covers it), the observation starts with the reason, and the
//! Tools panel shows it.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};

use gantry_sandbox::{Availability, Sandbox, SandboxPolicy, SessionTemp};
use serde::{Deserialize, Serialize};

/// The sandbox state of one command, as the approval dialog and the tool card show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SandboxState {
    /// It runs in the OS sandbox.
    Sandboxed {
        /// The project lets its commands use the network.
        network: bool,
    },
    /// It runs without a sandbox, because this system has none.
    Unsandboxed {
        /// Why, as a sentence for the user ("Commands are not sandboxed on this system: ...").
        why: String,
    },
}

/// What a project chose for its commands (saved per project by the engine).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSettings {
    /// Commands may use the network (off by default).
    pub network: bool,
    /// Folders outside the project that commands may write to (absolute).
    pub writable: Vec<PathBuf>,
}

/// One project's command sandbox. Cheap to share (`Arc`); settings change in place.
#[derive(Debug)]
pub struct CommandSandbox {
    /// The system's sandbox, probed on first use unless given.
    availability: OnceLock<Availability>,
    /// Whose secret stores are hidden.
    home: PathBuf,
    /// More paths no command may read.
    hidden: RwLock<Vec<PathBuf>>,
    settings: RwLock<SandboxSettings>,
}

impl Default for CommandSandbox {
    fn default() -> Self {
        Self::system()
    }
}

impl CommandSandbox {
    /// The system's sandbox (probed on first use: a trial command, some milliseconds, once per
    /// process), hiding the secret stores under `$HOME`, with the network off.
    pub fn system() -> Self {
        Self {
            availability: OnceLock::new(),
            home: std::env::var_os("HOME")
                .filter(|home| !home.is_empty())
                .map_or_else(|| PathBuf::from("/nonexistent"), PathBuf::from),
            hidden: RwLock::default(),
            settings: RwLock::default(),
        }
    }

    /// Probes the system's sandbox for the whole process (a trial command, some milliseconds,
    /// the first time): call it from blocking code before the first command, so the probe does
    /// not run on an async thread.
    pub fn probe() {
        let _ = Sandbox::probe();
    }

    /// The same with a given availability instead of the probe's (tests, and a front end that
    /// probed with another bubblewrap).
    #[must_use]
    pub fn with_availability(self, availability: Availability) -> Self {
        let slot = OnceLock::new();
        let _ = slot.set(availability);
        Self {
            availability: slot,
            ..self
        }
    }

    /// The same hiding the secret stores under `home` instead of `$HOME`.
    #[must_use]
    pub fn with_home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = home.into();
        self
    }

    /// Also hides `path` from every command (Gantry's data and configuration folders).
    pub fn hide(&self, path: impl Into<PathBuf>) {
        let path = path.into();
        let mut hidden = self.hidden.write().unwrap_or_else(PoisonError::into_inner);
        if !hidden.contains(&path) {
            hidden.push(path);
        }
    }

    /// Whether commands can be sandboxed here (probing on the first call: call it once from
    /// blocking code before the first command to keep the probe off the async threads).
    pub fn availability(&self) -> &Availability {
        self.availability.get_or_init(|| Sandbox::probe().clone())
    }

    /// The sandbox, or why commands run without one (a sentence for the user).
    pub fn sandbox(&self) -> Result<&Sandbox, String> {
        self.availability()
            .sandbox()
            .map_err(|reason| reason.to_string())
    }

    /// The project's choices for its commands.
    pub fn settings(&self) -> SandboxSettings {
        self.settings
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the project's choices; the next command follows them.
    pub fn set_settings(&self, settings: SandboxSettings) {
        *self
            .settings
            .write()
            .unwrap_or_else(PoisonError::into_inner) = settings;
    }

    /// The state the next command would run in.
    pub fn state(&self) -> SandboxState {
        match self.sandbox() {
            Ok(_) => SandboxState::Sandboxed {
                network: self.settings().network,
            },
            Err(why) => SandboxState::Unsandboxed { why },
        }
    }

    /// How the sandbox falls short on this system (empty on a current one, or without one).
    pub fn limits(&self) -> Vec<String> {
        self.sandbox()
            .map(|sandbox| sandbox.limits().iter().map(ToString::to_string).collect())
            .unwrap_or_default()
    }

    /// The home folder whose secret stores are hidden.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The policy for one command in `project_root` with `temp` as its temporary folder.
    pub fn policy(&self, project_root: &Path, temp: &SessionTemp) -> SandboxPolicy {
        let settings = self.settings();
        let mut policy =
            SandboxPolicy::new(project_root, temp, &self.home).with_network(settings.network);
        for path in self
            .hidden
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
        {
            policy = policy.hide(path.clone());
        }
        for path in settings.writable {
            policy = policy.allow_writing(path);
        }
        policy
    }
}

/// A session's private temporary folder, created at its first use and removed when the last
/// owner (the session, and any call still running) lets go of it.
#[derive(Debug, Default)]
pub struct SessionTempSlot {
    temp: Mutex<Option<SessionTemp>>,
}

impl SessionTempSlot {
    /// The folder, creating it on first use. `f` runs while the folder is held, so it cannot
    /// be removed under it.
    pub fn with<T>(&self, f: impl FnOnce(&SessionTemp) -> T) -> io::Result<T> {
        let mut slot = self.temp.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(SessionTemp::new()?);
        }
        match slot.as_ref() {
            Some(temp) => Ok(f(temp)),
            None => Err(io::Error::other(
                "the session's temporary folder is missing",
            )),
        }
    }

    /// The folder's path, if it was created.
    pub fn path(&self) -> Option<PathBuf> {
        self.temp
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|temp| temp.path().to_path_buf())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_system_without_bubblewrap_says_why_in_the_state() {
        let sandbox = CommandSandbox::system()
            .with_availability(Sandbox::probe_with(Path::new("/nonexistent/bwrap")));
        let state = sandbox.state();
        assert!(
            matches!(&state, SandboxState::Unsandboxed { why }
                if why.starts_with("Commands are not sandboxed on this system: bubblewrap is not installed")),
            "{state:?}"
        );
        assert!(sandbox.limits().is_empty());
    }

    #[test]
    fn settings_hold_for_the_next_policy() {
        let sandbox = CommandSandbox::system().with_home("/home/someone");
        let temp = SessionTemp::new().unwrap();
        let policy = sandbox.policy(Path::new("/srv/project"), &temp);
        assert!(!policy.network);
        assert!(policy.extra_writable.is_empty());
        assert!(
            policy
                .hidden_paths
                .contains(&PathBuf::from("/home/someone/.ssh"))
        );
        sandbox.hide("/var/lib/gantry-data");
        sandbox.hide("/var/lib/gantry-data");
        sandbox.set_settings(SandboxSettings {
            network: true,
            writable: vec!["/srv/cache".into()],
        });
        let policy = sandbox.policy(Path::new("/srv/project"), &temp);
        assert!(policy.network);
        assert_eq!(policy.extra_writable, [PathBuf::from("/srv/cache")]);
        let hidden = policy
            .hidden_paths
            .iter()
            .filter(|path| path.as_path() == Path::new("/var/lib/gantry-data"))
            .count();
        assert_eq!(hidden, 1);
    }

    #[test]
    fn the_session_folder_is_made_once_and_goes_with_the_slot() {
        let slot = SessionTempSlot::default();
        assert_eq!(slot.path(), None);
        let first = slot.with(|temp| temp.path().to_path_buf()).unwrap();
        let second = slot.with(|temp| temp.path().to_path_buf()).unwrap();
        assert_eq!(first, second);
        assert!(first.is_dir());
        drop(slot);
        assert!(!first.exists());
    }
}
