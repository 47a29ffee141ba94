//! One model call: attempts, retries, and what the caller hears meanwhile.
//!
//! [`Provider::stream_reply`] encodes the request, then runs attempts (the `attempt` module)
//! until one completes, the turn is cancelled, or the failure is not worth another try. Between
//! attempts it waits the provider's `Retry-After` or the [`RetryPolicy`](super::RetryPolicy)'s
//! backoff, announcing each retry as a [`StreamSignal::Retrying`]. A provider that refuses
//! `stream_options` is asked again at once without it, and remembered (by this provider's
//! clones and, by URL, by every provider of the process) so it is never sent again.

use std::sync::PoisonError;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::attempt::AttemptEnd;
use super::{Provider, REFUSES_STREAM_OPTIONS};
use crate::error::ProviderError;
use crate::request::ChatRequest;
use crate::stream::{AssembledReply, Piece, ReplyAssembler};

/// What a model call reports while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamSignal {
    /// A piece of text or reasoning.
    Piece(Piece),
    /// The call failed and will be retried after `delay`; what was streamed so far is discarded.
    Retrying {
        /// 1-based retry number.
        attempt: u32,
        /// The configured maximum.
        max_retries: u32,
        /// The wait before the retry.
        delay: Duration,
        /// Why.
        reason: String,
    },
    /// A chunk could not be read and was skipped.
    Malformed(String),
    /// The provider refused part of the request, which was sent again without it (and will
    /// not be sent to it again); the sentence says what.
    Adapted(String),
}

/// How a model call ended without a reply.
#[derive(Debug)]
pub enum CallFailure {
    /// The turn was cancelled; `partial` is what the current attempt had streamed.
    Cancelled {
        /// The reply so far.
        partial: AssembledReply,
    },
    /// The call failed for good.
    Failed {
        /// Why.
        error: ProviderError,
        /// What the last attempt had streamed.
        partial: AssembledReply,
    },
}

impl Provider {
    /// Runs one streamed model call with retries (see the module docs). `request` is sent with
    /// `"stream": true`, and with `stream_options.include_usage` where the options and the flags
    /// allow it: a provider that answers a 4xx naming `stream_options` is asked again at once
    /// without it ([`StreamSignal::Adapted`]) and never sent it again. With
    /// [`ProviderFlags::text_tool_calls`](crate::ProviderFlags::text_tool_calls), tool calls the
    /// model writes as text are returned as calls.
    pub async fn stream_reply(
        &self,
        request: &ChatRequest,
        cancel: &CancellationToken,
        signal: &mut (dyn FnMut(StreamSignal) + Send),
    ) -> Result<AssembledReply, CallFailure> {
        let encode = |usage: bool| {
            request.streamed_bytes(usage).map_err(|error| {
                ProviderError::Config(format!("the request could not be encoded: {error}"))
            })
        };
        let failed = |error: ProviderError| CallFailure::Failed {
            error,
            partial: AssembledReply::default(),
        };
        let mut usage = self.options.include_usage && self.flags().stream_usage;
        let mut body = encode(usage).map_err(failed)?;
        let text_calls = self.config.flags.text_tool_calls && !request.tool_names().is_empty();
        let new_assembler = || {
            if text_calls {
                ReplyAssembler::with_text_calls(request.tool_names().to_vec())
            } else {
                ReplyAssembler::new()
            }
        };
        let retry = self.options.retry;
        let mut retries = 0;
        loop {
            let mut assembler = new_assembler();
            let error = match self.attempt(&body, cancel, &mut assembler, signal).await {
                Ok(()) => {
                    for piece in assembler.end_of_stream() {
                        signal(StreamSignal::Piece(piece));
                    }
                    return Ok(assembler.finish());
                }
                Err(AttemptEnd::Cancelled) => {
                    return Err(CallFailure::Cancelled {
                        partial: assembler.finish(),
                    });
                }
                Err(AttemptEnd::Failed(error)) => error,
            };
            if usage && refuses_stream_options(&error) {
                usage = false;
                body = encode(usage).map_err(failed)?;
                self.refuses_stream_options.store(true, Ordering::Relaxed);
                REFUSES_STREAM_OPTIONS
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(self.url.clone());
                tracing::info!(provider = %self.config.name, %error, "the provider refuses stream_options; asking again without");
                signal(StreamSignal::Adapted(format!(
                    "{} does not accept `stream_options`: asked again without it (no token \
                     counts from this provider)",
                    self.config.name
                )));
                continue;
            }
            if !error.is_retryable() || retries >= retry.max_retries {
                // The caller reports the error; a log line would say it twice on a terminal.
                tracing::debug!(provider = %self.config.name, retries, %error, "model call failed");
                return Err(CallFailure::Failed {
                    error,
                    partial: assembler.finish(),
                });
            }
            let delay = match error.retry_after() {
                Some(wait) if wait > retry.max_retry_after => {
                    return Err(CallFailure::Failed {
                        error: ProviderError::WaitTooLong {
                            provider: self.config.name.clone(),
                            wait,
                            limit: retry.max_retry_after,
                        },
                        partial: assembler.finish(),
                    });
                }
                Some(wait) => wait,
                None => retry.backoff(retries + 1),
            };
            retries += 1;
            tracing::info!(provider = %self.config.name, retries, ?delay, %error, "retrying model call");
            signal(StreamSignal::Retrying {
                attempt: retries,
                max_retries: retry.max_retries,
                delay,
                reason: error.short_reason(),
            });
            tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    return Err(CallFailure::Cancelled { partial: AssembledReply::default() });
                }
                () = tokio::time::sleep(delay) => {}
            }
        }
    }
}

/// True for a client error (4xx other than auth, missing and rate limits) that names
/// `stream_options`: the provider does not accept the field.
pub(super) fn refuses_stream_options(error: &ProviderError) -> bool {
    match error {
        ProviderError::Status {
            status, message, ..
        } => {
            (400..500).contains(status)
                && !matches!(status, 401 | 403 | 404 | 429)
                && message.to_ascii_lowercase().contains("stream_options")
        }
        _ => false,
    }
}
