//! Runs a command under an OS sandbox on Linux, or says plainly why it cannot.
//!
//! A command the user lets the model run can otherwise do anything the user can: write
//! anywhere, reach the network, read `~/.ssh`, or ask the Secret Service over D-Bus for the
//! very API key Gantry stores. Under this sandbox a command and every process it starts:
//!
//! - **write** only in the project folder, the session's private temporary folder (which is
//!   `/tmp` inside, `TMPDIR=/tmp`; [`SessionTemp`] creates and removes it) and the extra
//!   folders the user made writable for the project; everything else is read-only;
//! - **cannot change the project repository's code paths**: `.git/hooks`, `.git/config`,
//!   `.git/info` (and the same in submodules and linked worktrees, and a `.git` file) are
//!   read-only, and `.git` cannot be renamed or deleted, so no hook or `core.hooksPath` can
//!   be planted to run *outside* the sandbox on the user's next `git commit` (a repository
//!   without `hooks/` or `info/` gets an empty one, as `git init` makes, to mount read-only);
//!   objects, refs and the index stay writable, so `git add`/`commit`/`checkout` work;
//! - **cannot read secret stores**: `~/.ssh`, `~/.gnupg`, `~/.aws`, `~/.config/gcloud`,
//!   `~/.kube`, `~/.docker/config.json`, `~/.netrc`, `~/.pgpass`, the keyrings, browser and mail
//!   profiles, token files of package registries and CLIs (the full list, each with its reason,
//!   is [`hidden_path_reasons`]), and Gantry's own data and configuration folders (passed in by
//!   the caller with [`SandboxPolicy::hide`]);
//! - **cannot reach services acting for the user**: `/run/user/*` (session D-Bus and so the
//!   Secret Service, gnome-keyring, ssh-agent and gpg-agent, `systemctl --user`, PipeWire,
//!   Wayland), the system D-Bus, Docker/containerd/podman/snapd sockets, smart cards, the
//!   host's `/tmp` (X11 and other sockets), the bus address given in the environment; the
//!   variables naming such sockets (`DBUS_SESSION_BUS_ADDRESS`, `SSH_AUTH_SOCK`, ...) are
//!   removed;
//! - **have no network** unless the policy turns it on: a network namespace of its own with
//!   only its own loopback (a test server it starts itself works; the host's `127.0.0.1` does
//!   not), and an empty `/run` (its sockets are local services too: databases, daemons). The
//!   namespace also cuts off the host's *abstract* Unix sockets (X11, some buses); with the
//!   network on, Landlock scoping does that instead (Linux 6.12+, see [`Limit`]);
//! - **see only their own processes** (a PID namespace with its own `/proc`: no other
//!   process's command line or environment, no signals to them) and **die together**: when the
//!   command's first process exits, or Gantry dies, every process inside is killed, background
//!   jobs and daemons included;
//! - run in a **new terminal session** (no controlling terminal to inject keystrokes into) with
//!   **no capabilities** and no nested user namespaces.
//!
//! # How, and why this way
//!
//! The sandbox is [bubblewrap] (`bwrap`), the unprivileged sandbox Flatpak uses, packaged by
//! every distribution: it builds the view above from user, mount, PID, IPC and network
//! namespaces, needs no root (on Debian 12 and Ubuntu 24.04 it is not setuid) and no `unsafe`
//! here, and it applies to the whole process tree by construction. A mount namespace is what
//! can express "read everything except these folders" and "this folder read-only inside that
//! writable one"; a PID namespace is what makes the tree die together.
//!
//! [Landlock] alone was the alternative, and was not chosen for the file rules: it only
//! *allows* (hiding `~/.ssh` from a readable `/` would mean allowing every sibling of every
//! hidden path, and missing what appears later), it does not cover connecting to Unix socket
//! files, its network rules cover TCP only, it needs `pre_exec` (`unsafe`) or a helper binary,
//! and it cannot stack under bubblewrap's mounts (a Landlock domain with file rules forbids
//! mounting). Landlock *is* used for the one thing namespaces cannot do with the network on:
//! scoping abstract Unix sockets. A domain with only that scope allows mounts, so bubblewrap
//! runs inside it. The domain is entered once by a dedicated thread that starts every sandboxed
//! command, so each inherits it without `unsafe` (`src/spawner.rs` explains).
//!
//! The caller keeps its own process handling: [`Sandbox::command`] returns a
//! [`SandboxedCommand`] whose [`spawn_with`](SandboxedCommand::spawn_with) hands a
//! `tokio::process::Command` to the caller's closure (stdio, process group, kill on drop,
//! timeouts stay the caller's).
//!
//! # Failing closed
//!
//! [`Sandbox::probe`] finds bubblewrap, reads its version and runs a trial command under the
//! same options; when anything is missing it returns an [`Unavailable`] whose `Display` is one
//! sentence for the user ("Commands are not sandboxed on this system: ..."), naming the cause:
//! bubblewrap missing, too old or broken, user namespaces disabled by sysctl, or restricted by
//! AppArmor (Ubuntu 23.10 and later, which needs an AppArmor profile granting `userns` to
//! `/usr/bin/bwrap`). The result is cached. Policy problems (a missing project folder, a
//! writable folder inside a hidden one, `/` as writable) are [`PolicyError`]s and nothing runs.
//!
//! # Known limits
//!
//! - Reading is allowed everywhere else the user can read: other projects, `~/.bash_history`,
//!   shell rc files, files of other programs not in the list. The list names the common secret
//!   stores, not all of them; the caller can add paths with [`SandboxPolicy::hide`].
//! - A hidden path that does not exist when the command starts is not mounted over: if it lies
//!   in a writable folder (the user made `~` writable, or opened `~` as a project), a command
//!   can create it (say `~/.ssh/authorized_keys`).
//! - Only the project's own repository is protected: a repository a command creates (`git
//!   init` in a project without one, or in a subfolder, or a new submodule) has writable
//!   hooks. A `.git` or `.git/hooks` that is a symbolic link protects its target, but the
//!   link itself can be replaced. A linked worktree's or submodule's repository outside the
//!   writable folders is simply read-only, so git cannot commit there unless the user makes
//!   it writable.
//! - The home folder is read-only: tools that write caches there (`~/.cargo/registry`,
//!   `~/.cache/pip`, `~/.npm`) need `--offline`-style use or an extra writable folder.
//! - Files of the project that other tools run later (`Makefile`, `package.json` scripts,
//!   `.vscode/tasks.json`, `.envrc`) are project content and stay writable.
//! - With the network on, the host's abstract Unix sockets are reachable on kernels before
//!   6.12 (no Landlock ABI 6): [`Sandbox::limits`] says so.
//! - Unix socket *files* in readable folders other than `/tmp`, `/run` (network off) and the
//!   hidden ones stay connectable: a read-only mount does not stop `connect`.
//! - A signal to the caller's process group kills the sandbox outright (bubblewrap does not
//!   pass signals on); [`signal_inside`] signals the processes inside for a polite stop.
//! - Resource use (CPU, memory, disk, process count) is not limited.
//!
//! # Tests and cost
//!
//! The integration tests (`tests/`) run real commands that try each escape above and do
//! normal work (git, scripts, a C build, `target/`), as root and, when run as root, again as
//! the ordinary user `nobody` (`tests/suite/as_nobody.rs` re-runs the test binary through
//! `runuser`). Under `scripts/with-keyring` they also try the session bus and the keyring.
//! `cargo bench -p gantry-sandbox --bench overhead` measures the overhead against the same
//! commands run directly: about 10 ms per command (bubblewrap setting up and tearing down the
//! namespaces); the work inside runs at the host's speed.
//!
//! [bubblewrap]: https://github.com/containers/bubblewrap
//! [Landlock]: https://docs.kernel.org/userspace-api/landlock.html

mod command;
mod git;
mod mounts;
mod policy;
mod probe;
mod secrets;
mod spawner;
mod temp;

pub use command::{SandboxedCommand, signal_inside};
pub use policy::{PathRole, PolicyError, SandboxPolicy};
pub use probe::{Availability, BWRAP_LOCATIONS, Limit, MIN_BWRAP, Sandbox, Unavailable, Version};
pub use rustix::process::Signal;
pub use secrets::{hidden_path_reasons, home_secret_paths};
pub use temp::{SESSION_TEMP_PREFIX, SessionTemp};
