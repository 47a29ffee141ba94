//! Turning SIGINT/SIGTERM into cancellation, so work started by the CLI (a command's process
//! group, an approval prompt) is stopped cleanly instead of outliving the process.

use tokio::signal::unix::{SignalKind, signal};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Cancels `token` at the first SIGINT or SIGTERM. Abort the returned task to stop listening.
pub(crate) fn cancel_on_signal(token: CancellationToken) -> SignalGuard {
    let task = tokio::spawn(async move {
        let (Ok(mut interrupt), Ok(mut terminate)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            tracing::warn!(
                "cannot listen for signals; Ctrl-C will end the process without cleanup"
            );
            return;
        };
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        token.cancel();
    });
    SignalGuard(task)
}

/// Stops listening for signals when dropped.
pub(crate) struct SignalGuard(JoinHandle<()>);

impl Drop for SignalGuard {
    fn drop(&mut self) {
        self.0.abort();
    }
}
