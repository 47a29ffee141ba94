//! Starting the provider and the [`Handle`] tests hold while it runs.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::error::Error;
use crate::record::{Failure, RecordedRequest};
use crate::routes;
use crate::script::{Script, Turn};
use crate::state::Shared;

/// Entry point: starts a scripted provider on loopback.
#[derive(Debug, Clone, Copy)]
pub struct ScriptedProvider;

impl ScriptedProvider {
    /// Starts serving `script` on `127.0.0.1` at a free port. Needs a running tokio runtime;
    /// the server runs as a task of it until the [`Handle`] is dropped or shut down.
    pub async fn start(script: Script) -> Result<Handle, Error> {
        Self::start_on_port(script, 0).await
    }

    /// Starts serving `script` on `127.0.0.1:port` (0 picks a free port).
    pub async fn start_on_port(script: Script, port: u16) -> Result<Handle, Error> {
        script.validate()?;
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .await
            .map_err(|source| Error::Bind { port, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| Error::Bind { port, source })?;
        let shared = Arc::new(Shared::new(script));
        let shutdown = shared.shutdown.clone();
        let app = routes::router(Arc::clone(&shared));
        let server = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await
        });
        tracing::debug!(%addr, "scripted provider listening");
        Ok(Handle {
            addr,
            shared,
            server: Some(server),
        })
    }
}

/// A running scripted provider. Dropping it shuts the server down (open streams are broken off).
#[derive(Debug)]
pub struct Handle {
    addr: SocketAddr,
    shared: Arc<Shared>,
    server: Option<JoinHandle<std::io::Result<()>>>,
}

impl Handle {
    /// The OpenAI base URL to configure a client with: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far (admin requests excepted), in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests()
    }

    /// The `POST /v1/chat/completions` requests received so far.
    pub fn chat_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(RecordedRequest::is_chat_completion)
            .collect()
    }

    /// Requests that were not answered as scripted: exhausted script, failed expectations,
    /// unknown paths, bodies that are not JSON.
    pub fn failures(&self) -> Vec<Failure> {
        self.shared.failures()
    }

    /// Turns queued and not yet played.
    pub fn remaining_turns(&self) -> usize {
        self.shared.remaining_turns()
    }

    /// Appends a turn to the running script.
    pub fn push_turn(&self, turn: impl Into<Turn>) -> Result<(), Error> {
        self.push_turns([turn.into()])
    }

    /// Appends turns to the running script (all or none: each is validated first).
    pub fn push_turns(&self, turns: impl IntoIterator<Item = Turn>) -> Result<(), Error> {
        let turns: Vec<Turn> = turns.into_iter().collect();
        for (index, turn) in turns.iter().enumerate() {
            turn.validate().map_err(|problem| {
                Error::InvalidScript(format!("pushed turn {index}: {problem}"))
            })?;
        }
        self.shared.push_turns(turns);
        Ok(())
    }

    /// Replaces the model ids listed by `GET /v1/models`.
    pub fn set_models(&self, models: impl IntoIterator<Item = impl Into<String>>) {
        self.shared
            .set_models(models.into_iter().map(Into::into).collect());
    }

    /// A channel receiving each request as it is recorded (on arrival, so its
    /// [`RecordedRequest::delivery`] is usually still pending).
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<RecordedRequest> {
        self.shared.subscribe()
    }

    /// Waits until `condition` holds for the recorded requests (re-checked on every change:
    /// a new request, a response finishing), returning them; `what` names the wait in the
    /// timeout error.
    pub async fn wait_until(
        &self,
        timeout: Duration,
        what: &str,
        condition: impl Fn(&[RecordedRequest]) -> bool,
    ) -> Result<Vec<RecordedRequest>, Error> {
        let mut changes = self.shared.watch();
        let waiting = async {
            loop {
                let requests = self.requests();
                if condition(&requests) {
                    return Ok(requests);
                }
                if changes.changed().await.is_err() {
                    return Err(Error::Server("provider state was dropped".to_owned()));
                }
            }
        };
        match tokio::time::timeout(timeout, waiting).await {
            Ok(result) => result,
            Err(_) => Err(Error::Timeout {
                waited: timeout,
                what: format!("{what} ({} requests recorded)", self.requests().len()),
            }),
        }
    }

    /// Waits until at least `count` requests were recorded.
    pub async fn wait_for_requests(
        &self,
        count: usize,
        timeout: Duration,
    ) -> Result<Vec<RecordedRequest>, Error> {
        self.wait_until(timeout, &format!("{count} requests"), |requests| {
            requests.len() >= count
        })
        .await
    }

    /// Ok when every request was answered as scripted and every turn was played; otherwise
    /// an error listing each failure and the number of unplayed turns.
    pub fn verify(&self) -> Result<(), Error> {
        let mut problems: Vec<String> = self
            .failures()
            .into_iter()
            .map(|failure| format!("request {}: {}", failure.seq, failure.message))
            .collect();
        let remaining = self.remaining_turns();
        if remaining > 0 {
            problems.push(format!("{remaining} turns were never played"));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::NotAsScripted(problems.join("\n")))
        }
    }

    /// Stops accepting connections, breaks off open responses, and waits for the server to end.
    pub async fn shutdown(mut self) -> Result<(), Error> {
        self.shared.shutdown.cancel();
        match self.server.take() {
            Some(server) => match server.await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(error)) => Err(Error::Server(error.to_string())),
                Err(error) => Err(Error::Server(error.to_string())),
            },
            None => Ok(()),
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.shutdown.cancel();
    }
}
