//! The agent's errors.
//!
//! Two families. [`ProviderError`] is what can go wrong talking to a model: it knows whether a
//! retry may help and how long the provider asked us to wait, which is all the retry loop needs.
//! [`AgentError`] is what stops a session from being opened or a turn from being recorded.
//! Neither ever becomes a panic: a failed turn ends with `TurnFinished { reason: error }`.

use std::time::Duration;

/// A failure talking to the model provider.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// The provider answered with an HTTP error status.
    #[error("{provider} answered HTTP {status}: {message}")]
    Status {
        /// The provider's configured name.
        provider: String,
        /// The HTTP status code.
        status: u16,
        /// The provider's own message (`error.message` of the body, or the body itself).
        message: String,
        /// The provider's error code (`error.code`), when it sent one.
        code: Option<String>,
        /// How long the provider asked us to wait (`Retry-After`, `retry-after-ms`).
        retry_after: Option<Duration>,
    },
    /// The provider could not be reached, or the connection failed before a response.
    #[error("could not reach {url}: {reason}")]
    Connect {
        /// The URL we tried.
        url: String,
        /// Why, in words (never the HTTP client's internals).
        reason: String,
    },
    /// Nothing listens at the provider's address: the connection was refused.
    #[error("nothing is listening at {url}{}", hint_suffix(.hint))]
    NotListening {
        /// The server's address (`http://localhost:11434`).
        url: String,
        /// Whether that is this machine, where a refusal means the server is not running (and
        /// waiting will not start it: no retry).
        local: bool,
        /// How to start the server that should be there, when Gantry knows.
        hint: Option<String>,
    },
    /// Nothing arrived for longer than the idle timeout.
    #[error("the provider sent nothing for {} s", .0.as_secs_f32())]
    Timeout(Duration),
    /// The response stream broke off (connection reset, truncated body).
    #[error("the response stream broke off: {0}")]
    StreamBroken(String),
    /// The stream ended cleanly but before the reply was complete (no finish reason, no
    /// `[DONE]`).
    #[error("the response stream ended before the reply was complete")]
    Incomplete,
    /// The provider reported an error inside the stream (OpenRouter does this).
    #[error("the provider reported an error mid-stream: {0}")]
    InStream(String),
    /// The provider asked us to wait longer than we are willing to.
    #[error("{provider} is rate limiting and asks to wait {} s (more than the {} s we wait)", .wait.as_secs(), .limit.as_secs())]
    WaitTooLong {
        /// The provider's configured name.
        provider: String,
        /// What it asked for.
        wait: Duration,
        /// The configured limit.
        limit: Duration,
    },
    /// The provider configuration can't work (bad URL, missing key).
    #[error("provider configuration: {0}")]
    Config(String),
    /// The provider answered something that is not what the API promises (e.g. a model list
    /// that is not JSON).
    #[error("the provider's answer was not understood: {0}")]
    Unexpected(String),
}

impl ProviderError {
    /// True when trying the same request again may succeed: 408, 409, 429 (unless the quota is
    /// exhausted), 5xx, connection failures, timeouts and broken or incomplete streams. Other 4xx
    /// (bad key, unknown model, context too long) are final.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Status { status, code, .. } => match status {
                429 => code.as_deref() != Some("insufficient_quota"),
                408 | 409 => true,
                500..=599 => true,
                _ => false,
            },
            Self::NotListening { local, .. } => !local,
            Self::Connect { .. }
            | Self::Timeout(_)
            | Self::StreamBroken(_)
            | Self::Incomplete
            | Self::InStream(_) => true,
            Self::WaitTooLong { .. } | Self::Config(_) | Self::Unexpected(_) => false,
        }
    }

    /// The wait the provider asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// A short reason for a retry event: `HTTP 429`, `timeout`, `stream broke off`.
    pub fn short_reason(&self) -> String {
        match self {
            Self::Status {
                status, message, ..
            } => format!(
                "HTTP {status}: {}",
                gantry_tools::text::excerpt(message, 200)
            ),
            Self::Connect { reason, .. } => format!("connection failed: {reason}"),
            Self::NotListening { url, .. } => format!("nothing is listening at {url}"),
            Self::Timeout(_) => "timed out waiting for the provider".to_owned(),
            Self::StreamBroken(reason) => format!("stream broke off: {reason}"),
            Self::Incomplete => "stream ended early".to_owned(),
            Self::InStream(message) => format!("provider error: {message}"),
            Self::WaitTooLong { .. } | Self::Config(_) | Self::Unexpected(_) => self.to_string(),
        }
    }
}

fn hint_suffix(hint: &Option<String>) -> String {
    hint.as_deref()
        .map(|hint| format!(": {hint}"))
        .unwrap_or_default()
}

/// A failure of the store behind a session's transcript.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PersistError {
    /// No session has this id.
    #[error("no session with id '{0}'")]
    NotFound(String),
    /// The session belongs to another project.
    #[error("session '{session}' belongs to the project at {}", .root.display())]
    OtherProject {
        /// The session's id.
        session: String,
        /// Its project's folder.
        root: std::path::PathBuf,
    },
    /// The store failed.
    #[error("the transcript store failed: {0}")]
    Backend(String),
}

/// Why a session could not be opened or a turn could not be recorded.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The provider can't be used.
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// The transcript store failed.
    #[error(transparent)]
    Persist(#[from] PersistError),
}
