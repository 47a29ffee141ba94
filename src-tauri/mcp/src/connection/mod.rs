//! One server: starting it, watching it, restarting it, stopping it.
//!
//! A server is someone else's program, so every way it can misbehave is expected: it may fail to
//! start, crash mid-call, hang, print garbage on stdout or refuse the handshake. Each server
//! therefore lives behind an [`McpServerHandle`] that owns a supervisor task. The supervisor
//! starts the server (spawning the program in its own process group, a
//! [`ProcessGroup`](gantry_tools::process::ProcessGroup), or opening the HTTP session), lists its
//! tools into the [`ToolManager`], then waits for the connection to end — the process exiting, the
//! transport closing, garbage on stdout, a restart request or shutdown. A crash fails the calls in flight at once (each call watches its
//! connection's `dead` token) and is followed by a restart with bounded exponential backoff; a
//! protocol violation (garbage) or a configuration problem is not retried until the user asks.
//! Shutdown closes stdin, then signals the process group (TERM, then KILL) and reaps the child,
//! so nothing is left behind; dropping the `ProcessGroup` kills the group too, should a
//! session end any other way.
//!
//! Gantry owns the child process instead of using rmcp's child-process transport so that it can
//! read the exit status (the reason a user needs), kill the whole process group (`npx` starts
//! grandchildren) and inspect each stdout line before the protocol sees it.
//!
//! The parts, one job each: `handle` is what the hub and the front ends hold (status, restart,
//! resources and prompts, sign-in, shutdown); `shared` keeps the state they and the supervisor
//! share and registers the server's tools; `supervisor` runs the start–watch–restart loop;
//! `stdio` and `http` open the two kinds of connection; `client` answers what the server sends
//! back (list changes, resource updates, progress).

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use gantry_tools::{CallObserver, ToolManager};
use rmcp::RoleClient;
use rmcp::service::{Peer, RunningService};
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::config::ServerConfig;
use crate::oauth::TokenVault;
use crate::review::RunFile;
use crate::status::{
    McpNotice, McpPromptInfo, McpResourceInfo, McpResourceTemplateInfo, McpToolInfo, ServerState,
    SignInState,
};
use crate::stderr::StderrTail;

mod client;
mod handle;
mod http;
mod shared;
mod stdio;
mod supervisor;

pub(crate) use client::progress_token_text;
pub use handle::McpServerHandle;

/// How many stderr lines an error message quotes.
pub(crate) const STDERR_LINES_IN_ERRORS: usize = 10;

/// Timeouts and restart policy. The defaults suit real use; tests shorten them.
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// How long start-up and the handshake may take (a server's `startupTimeout` wins).
    pub startup_timeout: Duration,
    /// How long one call may take (a server's `timeout` wins).
    pub call_timeout: Duration,
    /// The wait before the first restart after a failure; doubled each time.
    pub restart_backoff: Duration,
    /// The longest wait between restarts.
    pub max_restart_backoff: Duration,
    /// How many failed starts in a row before giving up until the user restarts the server.
    pub max_restarts: u32,
    /// A connection that lived this long resets the failure count.
    pub stable_after: Duration,
    /// How long a server gets to exit after its stdin closes (and again after SIGTERM).
    pub shutdown_grace: Duration,
}

impl Default for McpOptions {
    fn default() -> Self {
        Self {
            startup_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(60),
            restart_backoff: Duration::from_millis(500),
            max_restart_backoff: Duration::from_secs(30),
            max_restarts: 5,
            stable_after: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(2),
        }
    }
}

/// One live connection to a server.
pub(crate) struct Link {
    /// Sends requests.
    pub(crate) peer: Peer<RoleClient>,
    /// Cancelled when the connection ends, after `reason` is set.
    pub(crate) dead: CancellationToken,
    reason: Mutex<Option<String>>,
    epoch: u64,
}

impl Link {
    /// Why the connection ended ("" while it is alive).
    pub(crate) fn reason(&self) -> String {
        self.reason
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .unwrap_or_default()
    }

    fn end(&self, reason: &str) {
        self.reason
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert_with(|| reason.to_owned());
        self.dead.cancel();
    }
}

struct Inner {
    state: ServerState,
    link: Option<Arc<Link>>,
    tools: Vec<McpToolInfo>,
    applied_generation: u64,
    listings: u64,
    restarts: u32,
    pid: Option<u32>,
    started: bool,
    session_stop: CancellationToken,
    resources: Vec<McpResourceInfo>,
    templates: Vec<McpResourceTemplateInfo>,
    prompts: Vec<McpPromptInfo>,
    sign_in: Option<SignInState>,
    /// The `WWW-Authenticate` of the server's last 401 (where sign-in discovery starts).
    challenge: Option<String>,
}

pub(crate) struct Shared {
    pub(crate) config: ServerConfig,
    options: McpOptions,
    trust_hints: AtomicBool,
    manager: Weak<ToolManager>,
    inner: Mutex<Inner>,
    changed: watch::Sender<u64>,
    pub(crate) stderr: StderrTail,
    shutdown: CancellationToken,
    restart: Notify,
    restart_requested: AtomicBool,
    issued_generation: AtomicU64,
    epochs: AtomicU64,
    supervisor: Mutex<Option<JoinHandle<()>>>,
    /// For a project server: the in-project files it runs as the user approved them; every
    /// start checks them again (see [`crate::review`]).
    pinned: std::sync::OnceLock<Vec<RunFile>>,
    /// Where a remote server's sign-in tokens are kept (none: no sign-in).
    vault: std::sync::OnceLock<Arc<dyn TokenVault>>,
    /// Where notices for the front ends go.
    notices: std::sync::OnceLock<tokio::sync::broadcast::Sender<McpNotice>>,
    /// The calls waiting for progress, by progress token: who hears it and for which call.
    progress: Mutex<std::collections::HashMap<String, ProgressListener>>,
}

/// Who hears a call's progress, and for which call.
type ProgressListener = (Arc<dyn CallObserver>, String);

/// Why a start or a connection ended.
struct Ending {
    reason: String,
    /// False for problems a restart can't fix (bad config, garbage on stdout).
    retry: bool,
}

impl Ending {
    fn retry(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            retry: true,
        }
    }

    fn fatal(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            retry: false,
        }
    }
}

/// The protocol side of one connection, as rmcp runs it.
type Running = RunningService<RoleClient, client::ClientSide>;
