//! How a provider is talked to: timeouts, retries and usage reporting.
//!
//! The defaults suit real use (reasoning models and local servers loading a model can be silent
//! for minutes); tests shorten them. A [`RetryPolicy`] computes the wait before each retry when
//! the provider names none.

use std::time::Duration;

/// How failed model calls are retried.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so at most `max_retries + 1` attempts).
    pub max_retries: u32,
    /// The wait before the first retry when the provider names none.
    pub initial_backoff: Duration,
    /// The longest computed backoff.
    pub max_backoff: Duration,
    /// The longest `Retry-After` honoured; a provider asking for more ends the turn.
    pub max_retry_after: Duration,
    /// Spread computed backoffs by ±25 % so clients don't retry in lockstep.
    pub jitter: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            initial_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
            jitter: true,
        }
    }
}

impl RetryPolicy {
    /// The computed wait before retry number `retry` (1-based): `initial × 2^(retry-1)`, capped,
    /// with jitter.
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        let base = self
            .initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff);
        if self.jitter {
            base.mul_f64(0.75 + fastrand::f64() * 0.5)
        } else {
            base
        }
    }
}

/// How a provider is talked to (timeouts, retries, usage reporting).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProviderOptions {
    /// Retries of failed calls.
    pub retry: RetryPolicy,
    /// The longest wait for the response headers and then between two chunks; a longer
    /// silence counts as a timeout (and is retried).
    pub idle_timeout: Duration,
    /// The longest wait for a connection.
    pub connect_timeout: Duration,
    /// Ask for token usage in the stream (`stream_options.include_usage`) where the provider's
    /// [`ProviderFlags::stream_usage`](crate::ProviderFlags::stream_usage) allows it.
    pub include_usage: bool,
    /// How long to wait for a local server's answer about its context window.
    pub probe_timeout: Duration,
}

impl Default for ProviderOptions {
    fn default() -> Self {
        Self {
            retry: RetryPolicy::default(),
            // Reasoning models and local servers loading a model can be silent for minutes.
            idle_timeout: Duration::from_secs(300),
            connect_timeout: Duration::from_secs(15),
            include_usage: true,
            probe_timeout: Duration::from_secs(5),
        }
    }
}
