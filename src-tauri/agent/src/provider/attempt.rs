//! One attempt at a model call: the HTTP request and the SSE stream that answers it.
//!
//! An attempt posts the encoded request, waits for the headers and then for each event under
//! the idle timeout, and feeds every chunk to the [`ReplyAssembler`]. An error status becomes a
//! [`ProviderError::Status`] with the provider's own message and its `Retry-After`; a server that
//! ignored `"stream": true` and answered with one JSON completion is read as one chunk. The
//! attempt ends at `[DONE]`, or shortly after the finish reason when the trailer never comes; a
//! stream that ends before that is incomplete (and worth a retry).

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use gantry_tools::text::excerpt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use tokio_util::sync::CancellationToken;

use super::error_body::{error_message, error_value_message};
use super::{Provider, StreamSignal};
use crate::error::ProviderError;
use crate::stream::{Chunk, Completion, ReplyAssembler};

/// How long to wait, after the finish reason, for the usage chunk and `[DONE]`.
const TRAILER_WAIT: Duration = Duration::from_secs(5);

/// How an attempt ended without a complete reply.
pub(super) enum AttemptEnd {
    /// The turn was cancelled.
    Cancelled,
    /// The attempt failed; the caller decides whether to retry.
    Failed(ProviderError),
}

impl Provider {
    /// One attempt: send, then read the stream into `assembler` until it completes.
    pub(super) async fn attempt(
        &self,
        body: &[u8],
        cancel: &CancellationToken,
        assembler: &mut ReplyAssembler,
        signal: &mut (dyn FnMut(StreamSignal) + Send),
    ) -> Result<(), AttemptEnd> {
        let idle = self.options.idle_timeout;
        let mut builder = self
            .http
            .post(&self.url)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "text/event-stream")
            .body(body.to_vec());
        if let Some(key) = &self.key {
            builder = builder.bearer_auth(key.expose());
        }
        tracing::debug!(provider = %self.config.name, url = %self.url, "sending chat completion request");
        let response = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(AttemptEnd::Cancelled),
            sent = tokio::time::timeout(idle, builder.send()) => match sent {
                Err(_) => return Err(AttemptEnd::Failed(ProviderError::Timeout(idle))),
                Ok(Err(error)) => return Err(AttemptEnd::Failed(self.transport_error(&error))),
                Ok(Ok(response)) => response,
            },
        };

        let status = response.status();
        if !status.is_success() {
            let retry_after = retry_after(response.headers());
            let text = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(AttemptEnd::Cancelled),
                text = tokio::time::timeout(idle, response.text()) => match text {
                    Ok(Ok(text)) => text,
                    _ => String::new(),
                },
            };
            let (message, code) = error_message(&text, status);
            return Err(AttemptEnd::Failed(ProviderError::Status {
                provider: self.config.name.clone(),
                status: status.as_u16(),
                message,
                code,
                retry_after,
            }));
        }

        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.contains("json") && !value.contains("event-stream"));
        if is_json {
            // A server that ignored "stream": true: read the whole completion.
            let text = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(AttemptEnd::Cancelled),
                text = tokio::time::timeout(idle, response.text()) => match text {
                    Err(_) => return Err(AttemptEnd::Failed(ProviderError::Timeout(idle))),
                    Ok(Err(error)) => return Err(AttemptEnd::Failed(self.transport_error(&error))),
                    Ok(Ok(text)) => text,
                },
            };
            let completion: Completion = serde_json::from_str(&text).map_err(|error| {
                AttemptEnd::Failed(ProviderError::InStream(format!(
                    "the response could not be read ({error}): {}",
                    excerpt(&text, 200)
                )))
            })?;
            for piece in assembler.push(completion.into_chunk()) {
                signal(StreamSignal::Piece(piece));
            }
            return Ok(());
        }

        let events = response.bytes_stream().eventsource();
        let mut events = std::pin::pin!(events);
        loop {
            // After the finish reason only the usage chunk and [DONE] are left; don't wait the
            // whole idle timeout for a server that never sends them.
            let wait = if assembler.is_finished() {
                idle.min(TRAILER_WAIT)
            } else {
                idle
            };
            let next = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(AttemptEnd::Cancelled),
                next = tokio::time::timeout(wait, events.next()) => next,
            };
            let event = match next {
                // Silence after the finish reason: the usage chunk or [DONE] never came.
                Err(_) if assembler.is_finished() => return Ok(()),
                Err(_) => return Err(AttemptEnd::Failed(ProviderError::Timeout(idle))),
                Ok(None) if assembler.is_finished() => return Ok(()),
                Ok(None) => return Err(AttemptEnd::Failed(ProviderError::Incomplete)),
                Ok(Some(Err(_))) if assembler.is_finished() => return Ok(()),
                Ok(Some(Err(error))) => {
                    return Err(AttemptEnd::Failed(ProviderError::StreamBroken(
                        error.to_string(),
                    )));
                }
                Ok(Some(Ok(event))) => event,
            };
            let data = event.data.trim();
            if data == "[DONE]" {
                return Ok(());
            }
            if data.is_empty() {
                continue;
            }
            let chunk: Chunk = match serde_json::from_str(data) {
                Ok(chunk) => chunk,
                Err(error) => {
                    tracing::warn!(provider = %self.config.name, %error, "skipping a malformed stream chunk");
                    signal(StreamSignal::Malformed(format!(
                        "skipped a stream chunk that could not be read ({error}): {}",
                        excerpt(data, 200)
                    )));
                    continue;
                }
            };
            if let Some(error) = chunk.error.as_ref().filter(|error| !error.is_null()) {
                return Err(AttemptEnd::Failed(ProviderError::InStream(
                    error_value_message(error),
                )));
            }
            for piece in assembler.push(chunk) {
                signal(StreamSignal::Piece(piece));
            }
        }
    }
}

/// `retry-after-ms` (milliseconds, OpenAI) or `Retry-After` (seconds). The HTTP-date form of
/// `Retry-After` is not read; the computed backoff applies then.
pub(super) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<f64>().ok())
            .filter(|value| value.is_finite() && *value >= 0.0)
    };
    if let Some(ms) = number("retry-after-ms") {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    number(RETRY_AFTER.as_str()).and_then(|secs| Duration::try_from_secs_f64(secs).ok())
}
