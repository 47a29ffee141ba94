//! Connection failures in words: what the user can do about them, not the HTTP client's layers.
//!
//! reqwest wraps an I/O error in several layers (`client error (Connect)`, `tcp connect error`,
//! `os error 111`). A refused connection means nothing listens at the address, which for a
//! local server comes with how to start it; other failures (a reset, a timeout, an unknown host,
//! a failed TLS handshake) get one plain sentence. The full chain goes to the debug log.

use super::Provider;
use crate::error::ProviderError;
use crate::local::{is_loopback, server_root};

impl Provider {
    /// A failed request in words: a bad request is a configuration error, a timeout the
    /// connect timeout's, anything else a [connection error](Self::connect_error).
    pub(super) fn transport_error(&self, error: &reqwest::Error) -> ProviderError {
        if error.is_builder() {
            return ProviderError::Config(error.to_string());
        }
        if error.is_timeout() {
            return ProviderError::Timeout(self.options.connect_timeout);
        }
        self.connect_error(&self.url, error)
    }

    /// A failed connection to `url` in words: a refusal says nothing listens there (and how to
    /// start the server that should), others say what went wrong without the HTTP client's
    /// layers (`tcp connect error`, `os error 111`), which go to the debug log.
    pub(super) fn connect_error(&self, url: &str, error: &reqwest::Error) -> ProviderError {
        tracing::debug!(provider = %self.config.name, url, error = %error_chain(error), "connection failed");
        match describe_transport(error) {
            Transport::Refused => {
                let local = is_loopback(url);
                ProviderError::NotListening {
                    url: server_root(&self.config.base_url),
                    local,
                    hint: self
                        .config
                        .server
                        .start_hint()
                        .map(|hint| format!("{hint}, or choose another provider")),
                }
            }
            Transport::Described(reason) => ProviderError::Connect {
                url: url.to_owned(),
                reason,
            },
        }
    }
}

/// An error with its sources, for the debug log.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// What a transport failure means for the user.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Transport {
    /// The connection was refused: nothing listens there.
    Refused,
    /// Anything else, in words.
    Described(String),
}

/// Reads a transport error's causes for what happened, in words.
pub(super) fn describe_transport(error: &(dyn std::error::Error + 'static)) -> Transport {
    let mut deepest = error.to_string();
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut all = String::new();
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind;
            match io.kind() {
                ErrorKind::ConnectionRefused => return Transport::Refused,
                ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted => {
                    return Transport::Described("the connection was reset".to_owned());
                }
                ErrorKind::TimedOut => {
                    return Transport::Described("the connection timed out".to_owned());
                }
                _ => {}
            }
        }
        let text = cause.to_string();
        all.push_str(&text.to_ascii_lowercase());
        all.push(' ');
        deepest = text;
        source = cause.source();
    }
    if all.contains("connection refused") {
        return Transport::Refused;
    }
    if all.contains("dns error") || all.contains("failed to lookup address") {
        return Transport::Described("the host name could not be resolved".to_owned());
    }
    let deepest = without_os_error(&deepest);
    if all.contains("certificate") || all.contains("tls") || all.contains("handshake") {
        return Transport::Described(format!("a secure connection could not be made ({deepest})"));
    }
    Transport::Described(format!("the connection failed ({deepest})"))
}

/// `text` without a trailing ` (os error N)`.
fn without_os_error(text: &str) -> String {
    match text.find(" (os error ") {
        Some(position) => text[..position].to_owned(),
        None => text.to_owned(),
    }
}
