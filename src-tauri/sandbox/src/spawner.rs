//! The thread every sandboxed command is started from.
//!
//! With the network on, a command shares the host's network namespace, and with it the
//! host's *abstract* Unix sockets (names in a kernel table, not files: no mount can hide
//! them). Some D-Bus buses and every X11 server listen on one. Landlock (ABI 6, Linux 6.12)
//! can forbid connecting to abstract sockets made outside a domain, but a Landlock domain is
//! inherited by every process started after it is entered, and entering one is forever: it
//! cannot be done in Gantry's own threads, and doing it in the child between `fork` and `exec`
//! needs `pre_exec`, which is `unsafe`.
//!
//! So one dedicated thread enters the domain once, at start, and then does nothing but start
//! sandboxed commands: each child inherits the domain (Landlock restricts the calling *thread*
//! and what it spawns, not the rest of the process). The thread lives as long as Gantry, which
//! also matters for bubblewrap's `--die-with-parent`: the kernel's parent-death signal fires
//! when the *thread* that forked the child ends, so a short-lived thread would kill the sandbox
//! at once. On a kernel without the scoping the thread starts commands all the same, and
//! [`crate::Sandbox::limits`] says what is missing.

use std::io;
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;
use std::sync::mpsc;

use landlock::{ABI, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetStatus, Scope};

type Job = Box<dyn FnOnce() + Send>;

/// The spawner thread's mailbox and what it could enforce.
struct Spawner {
    jobs: mpsc::Sender<Job>,
    scoping: Scoping,
}

/// Whether the spawner's children are kept from the host's abstract Unix sockets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Scoping {
    /// Landlock scopes abstract Unix sockets.
    Scoped,
    /// Not available on this kernel; the reason.
    Unavailable(String),
}

static SPAWNER: OnceLock<Result<Spawner, String>> = OnceLock::new();

fn spawner() -> io::Result<&'static Spawner> {
    SPAWNER
        .get_or_init(start)
        .as_ref()
        .map_err(|reason| io::Error::other(reason.clone()))
}

/// What the spawner thread enforces (starting it if needed).
pub(crate) fn scoping() -> io::Result<Scoping> {
    spawner().map(|spawner| spawner.scoping.clone())
}

/// Runs `job` on the spawner thread and returns its result. `job` should only start a
/// process: every sandboxed command waits for the previous one to be started.
pub(crate) fn run<T, F>(job: F) -> io::Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let spawner = spawner()?;
    let (reply, answer) = mpsc::sync_channel(1);
    // tokio's `Command::spawn` registers the child with the caller's runtime.
    let runtime = tokio::runtime::Handle::try_current().ok();
    let job: Job = Box::new(move || {
        let _entered = runtime.as_ref().map(tokio::runtime::Handle::enter);
        let _ = reply.send(job());
    });
    spawner.jobs.send(job).map_err(|_| stopped())?;
    answer.recv().map_err(|_| stopped())
}

fn stopped() -> io::Error {
    io::Error::other("the sandbox's spawner thread stopped")
}

fn start() -> Result<Spawner, String> {
    let (jobs, inbox) = mpsc::channel::<Job>();
    let (ready, scoping) = mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("gantry-sandbox-spawner".into())
        .spawn(move || {
            let _ = ready.send(enter_scope());
            for job in inbox {
                // A panicking job drops its reply, which its caller reports; the thread stays.
                let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
            }
        })
        .map_err(|error| format!("cannot start the sandbox's spawner thread: {error}"))?;
    let scoping = scoping
        .recv()
        .map_err(|_| "the sandbox's spawner thread ended at start".to_owned())?;
    if let Scoping::Unavailable(reason) = &scoping {
        tracing::info!(%reason, "abstract Unix sockets are not scoped for sandboxed commands");
    }
    Ok(Spawner { jobs, scoping })
}

/// Puts the calling thread in a Landlock domain that only scopes abstract Unix sockets: no file
/// or network rule, so bubblewrap, started inside it, can still mount (Landlock forbids mounts
/// only to domains that restrict the file system).
fn enter_scope() -> Scoping {
    let status = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .scope(Scope::AbstractUnixSocket)
        .and_then(Ruleset::create)
        .and_then(|ruleset| ruleset.restrict_self());
    match status {
        Ok(status) if status.ruleset == RulesetStatus::FullyEnforced => Scoping::Scoped,
        Ok(status) => Scoping::Unavailable(format!(
            "Landlock did not enforce the scoping ({:?})",
            status.ruleset
        )),
        Err(error) => Scoping::Unavailable(format!(
            "this kernel's Landlock cannot scope abstract Unix sockets (it needs ABI {}): {error}",
            ABI::V6 as i32
        )),
    }
}
