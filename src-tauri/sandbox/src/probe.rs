//! Whether this system can sandbox commands, and exactly why not when it cannot.
//!
//! The probe looks for bubblewrap in the system's folders, reads its version, starts the
//! spawner thread (which tells whether Landlock scoping is available), and then runs `true`
//! under the same options a real command gets, from the same thread. A system passes only if
//! that trial exits 0; otherwise the kernel settings that usually explain a failure are read
//! to name the cause. The answer is computed once per process ([`Sandbox::probe`]).

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::OnceLock;

use crate::command::SandboxedCommand;
use crate::mounts::{Features, bwrap_options};
use crate::policy::{PolicyError, SandboxPolicy};
use crate::spawner::{self, Scoping};
use crate::temp::SessionTemp;

/// Where bubblewrap is looked for, in order. Only system folders: `PATH` could name a folder
/// a sandboxed command can write to, whose `bwrap` would then run Gantry's next commands
/// unsandboxed.
pub const BWRAP_LOCATIONS: &[&str] = &["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];

/// The oldest bubblewrap whose options this crate uses (`--die-with-parent`, `--cap-drop`,
/// `--remount-ro`, `--new-session` with `--unshare-user`).
pub const MIN_BWRAP: Version = Version(0, 4, 0);

/// The first bubblewrap with `--disable-userns`.
const DISABLE_USERNS_SINCE: Version = Version(0, 8, 0);

/// A bubblewrap version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32, pub u32);

impl Version {
    /// Reads `bubblewrap 0.8.0` (the output of `bwrap --version`).
    fn parse(text: &str) -> Option<Self> {
        let number = text
            .split_whitespace()
            .find(|word| word.starts_with(|c: char| c.is_ascii_digit()))?;
        let mut parts = number.split('.').map(|part| {
            part.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse::<u32>()
                .ok()
        });
        let major = parts.next()??;
        let minor = parts.next().flatten().unwrap_or(0);
        let patch = parts.next().flatten().unwrap_or(0);
        Some(Self(major, minor, patch))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// The probe's answer.
#[derive(Clone, Debug)]
pub enum Availability {
    /// Commands can be sandboxed.
    Available(Sandbox),
    /// They cannot; the caller must not run commands it would have sandboxed.
    Unavailable(Unavailable),
}

impl Availability {
    /// The sandbox, or why there is none.
    pub fn sandbox(&self) -> Result<&Sandbox, &Unavailable> {
        match self {
            Self::Available(sandbox) => Ok(sandbox),
            Self::Unavailable(reason) => Err(reason),
        }
    }
}

/// Why commands cannot be sandboxed here. Its `Display` is a whole sentence for the user,
/// starting "Commands are not sandboxed on this system: ".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    /// Not Linux.
    #[error("Commands are not sandboxed on this system: the sandbox needs Linux.")]
    UnsupportedOs,
    /// bubblewrap is not installed.
    #[error(
        "Commands are not sandboxed on this system: bubblewrap is not installed (looked for \
         {}); install the `bubblewrap` package.",
        .searched.join(", ")
    )]
    BwrapMissing {
        /// Where it was looked for.
        searched: Vec<String>,
    },
    /// bubblewrap is there but does not run or does not say its version.
    #[error("Commands are not sandboxed on this system: {path} does not run: {detail}.")]
    BwrapBroken {
        /// The program.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// bubblewrap is older than [`MIN_BWRAP`].
    #[error(
        "Commands are not sandboxed on this system: bubblewrap {found} is too old (at least \
         {minimum} is needed)."
    )]
    BwrapTooOld {
        /// The installed version.
        found: Version,
        /// The oldest usable one.
        minimum: Version,
    },
    /// The kernel does not let ordinary users create user namespaces.
    #[error(
        "Commands are not sandboxed on this system: the kernel does not let ordinary users \
         create user namespaces ({setting}); bubblewrap needs them. Set it with sysctl (as \
         root) to allow them. bubblewrap said: {detail}"
    )]
    UserNamespacesDisabled {
        /// The setting that forbids them, as `name = value`.
        setting: String,
        /// bubblewrap's error.
        detail: String,
    },
    /// AppArmor (Ubuntu 23.10 and later) confines user namespaces and bubblewrap has no
    /// profile that allows them.
    #[error(
        "Commands are not sandboxed on this system: AppArmor restricts unprivileged user \
         namespaces (kernel.apparmor_restrict_unprivileged_userns = 1) and bubblewrap has no \
         AppArmor profile allowing them. Install one for /usr/bin/bwrap with the `userns` \
         permission (as Gantry's package does), or set the sysctl to 0. bubblewrap said: \
         {detail}"
    )]
    UserNamespacesRestricted {
        /// bubblewrap's error.
        detail: String,
    },
    /// The trial command failed for another reason.
    #[error(
        "Commands are not sandboxed on this system: bubblewrap could not set up a sandbox: \
         {detail}"
    )]
    SetupFailed {
        /// What failed (bubblewrap's error, or the exit status).
        detail: String,
    },
}

/// A way the sandbox is weaker on this system than it is at its best. The commands are still
/// sandboxed; show these next to the network switch or in the about box.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Limit {
    /// Without Landlock ABI 6, abstract Unix sockets stay reachable with the network on.
    #[error(
        "With the network switched on, commands can reach the host's abstract Unix sockets \
         (some D-Bus and X11 sockets): {reason}."
    )]
    AbstractSocketsReachable {
        /// Why the scoping is unavailable.
        reason: String,
    },
    /// bubblewrap before 0.8.0 cannot stop nested user namespaces.
    #[error(
        "Commands can create user namespaces of their own: bubblewrap {found} predates \
         --disable-userns ({DISABLE_USERNS_SINCE})."
    )]
    NestedUserNamespaces {
        /// The installed version.
        found: Version,
    },
}

/// A working sandbox: turns a command into a sandboxed one ([`Sandbox::command`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sandbox {
    bwrap: PathBuf,
    version: Version,
    scoping: Scoping,
}

static PROBE: OnceLock<Availability> = OnceLock::new();

impl Sandbox {
    /// Whether commands can be sandboxed here, probed once per process (the first call runs a
    /// trial command: some milliseconds; call it off the async threads or at start-up).
    pub fn probe() -> &'static Availability {
        PROBE.get_or_init(|| {
            if !cfg!(target_os = "linux") {
                return Availability::Unavailable(Unavailable::UnsupportedOs);
            }
            match BWRAP_LOCATIONS
                .iter()
                .map(Path::new)
                .find(|path| path.is_file())
            {
                Some(bwrap) => Self::probe_with(bwrap),
                None => Availability::Unavailable(Unavailable::BwrapMissing {
                    searched: BWRAP_LOCATIONS
                        .iter()
                        .map(|path| (*path).to_owned())
                        .collect(),
                }),
            }
        })
    }

    /// Probes with the bubblewrap at `bwrap`, without caching (tests, or a bubblewrap the
    /// user installed elsewhere).
    pub fn probe_with(bwrap: &Path) -> Availability {
        match Self::check(bwrap) {
            Ok(sandbox) => Availability::Available(sandbox),
            Err(reason) => Availability::Unavailable(reason),
        }
    }

    fn check(bwrap: &Path) -> Result<Self, Unavailable> {
        if !bwrap.is_file() {
            return Err(Unavailable::BwrapMissing {
                searched: vec![bwrap.display().to_string()],
            });
        }
        let version = bwrap_version(bwrap)?;
        if version < MIN_BWRAP {
            return Err(Unavailable::BwrapTooOld {
                found: version,
                minimum: MIN_BWRAP,
            });
        }
        let scoping = spawner::scoping().map_err(|error| Unavailable::SetupFailed {
            detail: error.to_string(),
        })?;
        let sandbox = Self {
            bwrap: bwrap.to_path_buf(),
            version,
            scoping,
        };
        sandbox.trial()?;
        Ok(sandbox)
    }

    /// Runs `true` under a policy like a real one (network off, so a network namespace is
    /// made too) and explains a failure.
    fn trial(&self) -> Result<(), Unavailable> {
        let failed = |detail: String| Unavailable::SetupFailed { detail };
        let project = SessionTemp::new_in("/var/tmp")
            .or_else(|_| SessionTemp::new())
            .map_err(|error| failed(format!("cannot create a trial folder: {error}")))?;
        let temp = SessionTemp::new()
            .map_err(|error| failed(format!("cannot create a trial folder: {error}")))?;
        let policy = SandboxPolicy::new(project.path(), &temp, project.path());
        let env = [("PATH", "/usr/bin:/bin")];
        let command = self
            .command(&policy, "true", Vec::<OsString>::new(), env, project.path())
            .map_err(|error| failed(error.to_string()))?;
        let output = command
            .spawn_with(|command| {
                command
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped());
                command.as_std_mut().output()
            })
            .map_err(|error| failed(format!("cannot start {}: {error}", self.bwrap.display())))?;
        if output.status.success() {
            return Ok(());
        }
        Err(explain_failure(&output))
    }

    /// Where bubblewrap is.
    pub fn bwrap(&self) -> &Path {
        &self.bwrap
    }

    /// bubblewrap's version.
    pub fn version(&self) -> Version {
        self.version
    }

    /// How this system's sandbox falls short of the best one (empty on a current system).
    pub fn limits(&self) -> Vec<Limit> {
        let mut limits = Vec::new();
        if let Scoping::Unavailable(reason) = &self.scoping {
            limits.push(Limit::AbstractSocketsReachable {
                reason: reason.clone(),
            });
        }
        if self.version < DISABLE_USERNS_SINCE {
            limits.push(Limit::NestedUserNamespaces {
                found: self.version,
            });
        }
        limits
    }

    /// `program` with `args`, `env` and working directory `cwd`, wrapped to run under
    /// `policy`. `program` is looked up in `env`'s `PATH` inside the sandbox; `env` is
    /// passed on without the variables that name hidden sockets (`DBUS_SESSION_BUS_ADDRESS`,
    /// `SSH_AUTH_SOCK`, `XDG_RUNTIME_DIR`, ...) and with `TMPDIR=/tmp`. The folders are
    /// checked now; the hidden paths and the repository's protected paths are looked up now,
    /// so build the command right before starting it. A project repository without `hooks/` or
    /// `info/` gets an empty one here, so that it can be mounted read-only.
    pub fn command<A, K, V>(
        &self,
        policy: &SandboxPolicy,
        program: impl AsRef<OsStr>,
        args: impl IntoIterator<Item = A>,
        env: impl IntoIterator<Item = (K, V)>,
        cwd: &Path,
    ) -> Result<SandboxedCommand, PolicyError>
    where
        A: AsRef<OsStr>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        let env: Vec<(OsString, OsString)> = env
            .into_iter()
            .map(|(key, value)| (key.into(), value.into()))
            .collect();
        let features = Features {
            disable_userns: self.version >= DISABLE_USERNS_SINCE,
        };
        let options = bwrap_options(policy, &env, cwd, features)?;
        let args = args
            .into_iter()
            .map(|arg| arg.as_ref().to_os_string())
            .collect();
        Ok(SandboxedCommand::new(
            &self.bwrap,
            options,
            program.as_ref(),
            args,
            env,
        ))
    }
}

fn bwrap_version(bwrap: &Path) -> Result<Version, Unavailable> {
    let broken = |detail: String| Unavailable::BwrapBroken {
        path: bwrap.to_path_buf(),
        detail,
    };
    let output = std::process::Command::new(bwrap)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|error| broken(error.to_string()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(broken(format!("`--version` exited with {}", output.status)));
    }
    Version::parse(&text).ok_or_else(|| broken(format!("unexpected `--version` output {text:?}")))
}

/// Names the cause of a failed trial from the kernel's settings.
fn explain_failure(output: &Output) -> Unavailable {
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    let detail = if stderr.is_empty() {
        format!("the trial command exited with {}", output.status)
    } else {
        stderr
    };
    let setting = |path: &str| {
        fs::read_to_string(path)
            .ok()
            .map(|value| value.trim().to_owned())
    };
    if setting("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
        return Unavailable::UserNamespacesDisabled {
            setting: "kernel.unprivileged_userns_clone = 0".into(),
            detail,
        };
    }
    if setting("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        return Unavailable::UserNamespacesDisabled {
            setting: "user.max_user_namespaces = 0".into(),
            detail,
        };
    }
    if setting("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
        return Unavailable::UserNamespacesRestricted { detail };
    }
    Unavailable::SetupFailed { detail }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_from_bwrap_output() {
        assert_eq!(Version::parse("bubblewrap 0.8.0\n"), Some(Version(0, 8, 0)));
        assert_eq!(
            Version::parse("bubblewrap 0.11.1-rc2"),
            Some(Version(0, 11, 1))
        );
        assert_eq!(Version::parse("bubblewrap 1"), Some(Version(1, 0, 0)));
        assert_eq!(Version::parse("bubblewrap"), None);
        assert!(Version(0, 10, 0) > Version(0, 9, 9));
        assert_eq!(Version(0, 8, 0).to_string(), "0.8.0");
    }

    #[test]
    fn a_missing_bwrap_is_named_in_a_sentence() {
        let availability = Sandbox::probe_with(Path::new("/nonexistent/bwrap"));
        let reason = availability.sandbox().unwrap_err();
        assert_eq!(
            reason.to_string(),
            "Commands are not sandboxed on this system: bubblewrap is not installed (looked for \
             /nonexistent/bwrap); install the `bubblewrap` package."
        );
    }

    #[test]
    fn a_program_that_is_not_bwrap_is_reported_broken() {
        let availability = Sandbox::probe_with(Path::new("/bin/false"));
        let reason = availability.sandbox().unwrap_err();
        assert!(
            matches!(reason, Unavailable::BwrapBroken { .. }),
            "{reason}"
        );
        assert!(
            reason.to_string().contains("/bin/false does not run"),
            "{reason}"
        );
    }

    #[test]
    fn limits_say_what_is_missing() {
        let sandbox = Sandbox {
            bwrap: "/usr/bin/bwrap".into(),
            version: Version(0, 6, 1),
            scoping: Scoping::Unavailable("Landlock ABI 4".into()),
        };
        let limits: Vec<String> = sandbox.limits().iter().map(ToString::to_string).collect();
        assert_eq!(limits.len(), 2);
        assert!(limits[0].ends_with("Landlock ABI 4."), "{}", limits[0]);
        assert!(
            limits[1].contains("0.6.1 predates --disable-userns (0.8.0)"),
            "{}",
            limits[1]
        );
    }
}
