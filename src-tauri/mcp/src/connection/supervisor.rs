//! The supervisor: start, watch, restart, until shutdown.
//!
//! One task per server runs [`supervise`]: it connects (the process or the HTTP session, the
//! handshake and the first tool listing), waits for the connection to end, closes it and
//! decides what comes next. A crash is retried with exponential backoff, up to
//! [`McpOptions::max_restarts`](super::McpOptions::max_restarts) failures in a row (a connection
//! that lived long enough resets the count); a fatal ending (a configuration problem, garbage on
//! stdout, a changed project file) waits for the user to restart the server. Every ending fails
//! the calls in flight with its reason, at once.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::client::ClientSide;
use super::http::connect_http;
use super::stdio::{ChildProcess, connect_stdio, describe_exit, end_process};
use super::{Ending, Link, Running, Shared};
use crate::config::TransportConfig;
use crate::expand::ProcessEnv;
use crate::review::run_files;
use crate::status::ServerState;

/// A connected server.
struct Session {
    running: Running,
    child: Option<ChildProcess>,
    link: Arc<Link>,
}

/// Runs the server until shutdown: connects, waits for the connection to end, then restarts it
/// (after a backoff), gives up until the user restarts it, or stops.
pub(super) async fn supervise(shared: Arc<Shared>) {
    let mut failures = 0u32;
    loop {
        if shared.shutdown.is_cancelled() {
            break;
        }
        let session_stop = CancellationToken::new();
        {
            let mut inner = shared.lock();
            inner.state = ServerState::Starting;
            inner.session_stop = session_stop.clone();
        }
        shared.bump();
        let ending = match connect(&shared).await {
            Ok(session) => {
                let since = Instant::now();
                let ending = run_session(&shared, session, &session_stop).await;
                if since.elapsed() >= shared.options.stable_after {
                    failures = 0;
                }
                ending
            }
            Err(ending) => ending,
        };
        {
            let mut inner = shared.lock();
            inner.link = None;
            inner.pid = None;
        }
        if shared.shutdown.is_cancelled() {
            break;
        }
        if shared.restart_requested.swap(false, Ordering::SeqCst) {
            failures = 0;
            shared.set_state(ServerState::Starting);
            continue;
        }
        failures += 1;
        tracing::warn!(server = %shared.config.name, reason = %ending.reason, "MCP server is not running");
        let give_up = !ending.retry || failures > shared.options.max_restarts;
        let reason = if ending.retry && give_up {
            format!(
                "{} (gave up after {} attempts; restart it to try again)",
                ending.reason, failures
            )
        } else {
            ending.reason
        };
        shared.set_state(ServerState::Failed { reason });
        if give_up {
            tokio::select! {
                () = shared.shutdown.cancelled() => break,
                () = shared.restart.notified() => {}
            }
            shared.restart_requested.store(false, Ordering::SeqCst);
            failures = 0;
            continue;
        }
        let exponent = (failures - 1).min(16);
        let backoff = shared
            .options
            .restart_backoff
            .saturating_mul(1 << exponent)
            .min(shared.options.max_restart_backoff);
        tokio::select! {
            () = shared.shutdown.cancelled() => break,
            () = shared.restart.notified() => {
                shared.restart_requested.store(false, Ordering::SeqCst);
                failures = 0;
            }
            () = tokio::time::sleep(backoff) => {}
        }
        shared.lock().restarts += 1;
    }
}

/// Starts the server and completes the handshake and the first listing.
async fn connect(shared: &Arc<Shared>) -> Result<Session, Ending> {
    let epoch = shared.epochs.fetch_add(1, Ordering::SeqCst) + 1;
    let client = ClientSide {
        shared: Arc::downgrade(shared),
        epoch,
    };
    check_pinned_files(shared).await?;
    let lookup = ProcessEnv;
    let (running, child) = match &shared.config.transport {
        TransportConfig::Sse { .. } => {
            return Err(Ending::fatal(format!(
                "server '{}' uses the legacy SSE transport (\"type\": \"sse\"), which Gantry does not support; point it at the server's streamable HTTP endpoint (\"type\": \"http\") instead",
                shared.config.name
            )));
        }
        TransportConfig::Http { url, headers } => {
            let running = connect_http(shared, client, url, headers, &lookup).await?;
            (running, None)
        }
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let (running, child) =
                connect_stdio(shared, client, command, args, env, cwd.as_deref(), &lookup).await?;
            (running, Some(child))
        }
    };
    let link = Arc::new(Link {
        peer: running.peer().clone(),
        dead: CancellationToken::new(),
        reason: Mutex::new(None),
        epoch,
    });
    let session = Session {
        running,
        child,
        link: Arc::clone(&link),
    };
    // The first listing happens before the server counts as connected, so "connected" means
    // its tools are registered.
    {
        let mut inner = shared.lock();
        inner.link = Some(Arc::clone(&link));
        inner.pid = session.child.as_ref().map(|child| child.group.id());
    }
    if let Err(error) = shared.refresh_tools(&link).await {
        shared.lock().link = None;
        let reason = close_session(shared, session, &error).await;
        return Err(Ending::retry(reason));
    }
    shared.refresh_catalog(&link).await;
    shared.set_state(ServerState::Connected);
    Ok(session)
}

/// Refuses to start a project server whose in-project files changed since the user approved
/// them: the approval covered their content, not their names.
async fn check_pinned_files(shared: &Arc<Shared>) -> Result<(), Ending> {
    let (Some(pinned), crate::config::ConfigOrigin::Project { root, .. }) =
        (shared.pinned.get(), &shared.config.origin)
    else {
        return Ok(());
    };
    let (config, root) = (shared.config.clone(), root.clone());
    let now = tokio::task::spawn_blocking(move || run_files(&config, &root))
        .await
        .unwrap_or_default();
    if &now == pinned {
        return Ok(());
    }
    let changed: Vec<&str> = now
        .iter()
        .filter(|file| !pinned.contains(file))
        .map(|file| file.path.as_str())
        .chain(
            pinned
                .iter()
                .filter(|file| !now.iter().any(|current| current.path == file.path))
                .map(|file| file.path.as_str()),
        )
        .collect();
    Err(Ending::fatal(format!(
        "{} changed since you trusted this project's .mcp.json, so Gantry did not start it; restart it to review the file again",
        changed.join(", ")
    )))
}

/// Waits for the connection to end, then cleans up; returns why it ended.
async fn run_session(
    shared: &Arc<Shared>,
    mut session: Session,
    session_stop: &CancellationToken,
) -> Ending {
    let ending = {
        let (process, garbage) = match session.child.as_mut() {
            Some(process) => (Some(&mut process.group), Some(&mut process.garbage)),
            None => (None, None),
        };
        let child_exit = async move {
            match process {
                Some(group) => group.wait().await,
                None => std::future::pending().await,
            }
        };
        let garbage = async move {
            match garbage {
                Some(receiver) => match receiver.await {
                    Ok(reason) => reason,
                    // The filter ended without finding garbage (end of output): not this branch.
                    Err(_) => std::future::pending().await,
                },
                None => std::future::pending().await,
            }
        };
        let running = &session.running;
        let closed = async move {
            // Remote servers have no process to watch: the protocol loop ending is the sign.
            while !running.is_transport_closed() {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        };
        tokio::select! {
            biased;
            () = shared.shutdown.cancelled() => None,
            () = session_stop.cancelled() => None,
            reason = garbage => Some(Ending::fatal(reason)),
            status = child_exit => Some(Ending::retry(match status {
                Ok(status) => describe_exit(status),
                Err(error) => format!("could not be watched: {error}"),
            })),
            () = closed => Some(Ending::retry(CLOSED)),
        }
    };
    match ending {
        None => {
            // Shutdown or a restart: close politely.
            let reason = if shared.shutdown.is_cancelled() {
                "it was stopped"
            } else {
                "it is being restarted"
            };
            Ending::retry(close_session(shared, session, reason).await)
        }
        Some(ending) => {
            let reason = close_session(shared, session, &ending.reason).await;
            Ending {
                reason,
                retry: ending.retry,
            }
        }
    }
}

const CLOSED: &str = "closed the connection";

/// Ends the session: stops the protocol loop (which closes the server's stdin), ends the process
/// (politely first when it is still running), waits for its last stderr lines, then fails the
/// calls in flight with `reason` (refined by the exit status when the process ended on its own).
/// Returns the final reason.
async fn close_session(shared: &Arc<Shared>, session: Session, reason: &str) -> String {
    let Session {
        running,
        child,
        link,
    } = session;
    let grace = shared.options.shutdown_grace;
    let mut reason = reason.to_owned();
    if let Some(mut process) = child {
        let exited_on_its_own = process.group.try_wait().ok().flatten();
        let _ = tokio::time::timeout(grace, running.cancel()).await;
        let status = end_process(&mut process.group, grace).await;
        if reason == CLOSED
            && let Some(status) = exited_on_its_own.or(status)
        {
            reason = describe_exit(status);
        }
        let _ = tokio::time::timeout(Duration::from_millis(500), process.stderr_task).await;
    } else {
        let _ = tokio::time::timeout(grace, running.cancel()).await;
    }
    link.end(&reason);
    reason
}
