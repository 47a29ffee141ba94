//! API keys in the OS keychain (the freedesktop Secret Service on Linux), through `keyring`.
//!
//! A key is stored under service [`KEYCHAIN_SERVICE`] with the provider's name as the account.
//! It travels as a [`Secret`], which never shows its value in `Debug` output, has no `Display`
//! or `Serialize`, and is wiped from memory when dropped. When the keychain is unavailable
//! (no Secret Service on the session bus, a locked keychain that can't prompt), the error says
//! so and names the environment variable to use instead: Gantry never falls back to writing a
//! key to disk.
//!
//! Keychain calls block (D-Bus round trips), so they run on tokio's blocking pool, bounded by a
//! timeout: a keychain waiting for an unlock prompt nobody sees must not hang Gantry.

use std::fmt;
use std::time::Duration;

use serde::Serialize;
use zeroize::Zeroizing;

use crate::providers::{ProviderConfig, validate_name};

/// The keychain service every Gantry key is stored under.
pub const KEYCHAIN_SERVICE: &str = "gantry";
/// The keychain service remote MCP servers' sign-in tokens are stored under; the account is
/// the server's name and URL (`name url`), so two servers never share a sign-in.
pub const MCP_TOKENS_SERVICE: &str = "gantry-mcp-oauth";

/// How long a keychain call may take before Gantry calls the keychain unavailable.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A secret value (an API key). Its value shows only through [`Secret::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Zeroizing<String>);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(Zeroizing::new(value.into()))
    }

    /// The value, for the one place that must send it (an HTTP header).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when the value is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self::new(value)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// Where a key is (or would be) in the keychain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyEntry {
    /// The keychain service: always [`KEYCHAIN_SERVICE`] for keys Gantry stores.
    pub service: String,
    /// The account: the provider's name.
    pub account: String,
}

impl KeyEntry {
    /// The entry of a provider's key.
    pub fn for_provider(provider: &str) -> Self {
        Self {
            service: KEYCHAIN_SERVICE.to_owned(),
            account: provider.to_owned(),
        }
    }
}

impl fmt::Display for KeyEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "service '{}', account '{}'", self.service, self.account)
    }
}

/// A keychain failure. No variant ever holds a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// There is no keychain to talk to, or it would not answer.
    #[error("the OS keychain (Secret Service) is not available ({reason}); {hint}")]
    Unavailable {
        /// What the keychain library reported.
        reason: String,
        /// What to do instead: the environment variable to set.
        hint: String,
    },
    /// The keychain answered with an error.
    #[error("the keychain could not {action} the API key of provider '{provider}': {reason}")]
    Keychain {
        /// What Gantry was doing ("store", "read", "delete").
        action: &'static str,
        /// The provider.
        provider: String,
        /// What went wrong.
        reason: String,
    },
    /// The provider name can't be a keychain account.
    #[error("{0}")]
    InvalidProvider(String),
}

impl SecretError {
    /// The same error, with a hint that names the provider's environment variable.
    #[must_use]
    pub fn with_fallback(self, api_key_env: Option<&str>) -> Self {
        match self {
            Self::Unavailable { reason, .. } => Self::Unavailable {
                reason,
                hint: fallback_hint(api_key_env),
            },
            other => other,
        }
    }
}

/// What to tell a user whose keychain is unavailable: which variable would supply the key.
pub fn fallback_hint(api_key_env: Option<&str>) -> String {
    match api_key_env {
        Some(var) => format!(
            "set {var} in the environment to give Gantry the key that way \
             (Gantry never writes API keys to disk)"
        ),
        None => "name an environment variable for the key in the provider's settings \
                 (gantry-cli provider set NAME --api-key-env VAR) and set it \
                 (Gantry never writes API keys to disk)"
            .to_owned(),
    }
}

/// The keychain, for provider keys.
#[derive(Debug, Clone)]
pub struct Secrets {
    timeout: Duration,
}

impl Default for Secrets {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Secrets {
    /// The OS keychain, with the default timeout.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same keychain with another timeout per call.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Stores (or replaces) a provider's key.
    pub async fn set(&self, provider: &str, secret: Secret) -> Result<(), SecretError> {
        self.call(provider, "store", move |entry| {
            entry.set_password(secret.expose())
        })
        .await?;
        tracing::debug!(provider, "API key stored in the keychain");
        Ok(())
    }

    /// A provider's key, or `None` when the keychain has none.
    pub async fn get(&self, provider: &str) -> Result<Option<Secret>, SecretError> {
        self.call(provider, "read", |entry| match entry.get_password() {
            Ok(value) => Ok(Some(Secret::new(value))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(error) => Err(error),
        })
        .await
    }

    /// Deletes a provider's key; true when there was one.
    pub async fn delete(&self, provider: &str) -> Result<bool, SecretError> {
        let deleted = self
            .call(provider, "delete", |entry| {
                match entry.delete_credential() {
                    Ok(()) => Ok(true),
                    Err(keyring::Error::NoEntry) => Ok(false),
                    Err(error) => Err(error),
                }
            })
            .await?;
        tracing::debug!(provider, deleted, "API key deleted from the keychain");
        Ok(deleted)
    }

    /// The key to use for a provider: the keychain's, else the environment variable named in
    /// its config. `Ok(None)` when neither has one; an unavailable keychain is an error only
    /// when the variable is not set either, and then its hint names the variable.
    pub async fn api_key_for(
        &self,
        config: &ProviderConfig,
    ) -> Result<Option<Secret>, SecretError> {
        let from_env = || {
            config
                .api_key_env
                .as_deref()
                .and_then(gantry_tools::key_from_env)
                .map(Secret::new)
        };
        match self.get(&config.name).await {
            Ok(Some(secret)) => Ok(Some(secret)),
            Ok(None) => Ok(from_env()),
            Err(error @ SecretError::Unavailable { .. }) => match from_env() {
                Some(secret) => {
                    tracing::debug!(provider = %config.name, "keychain unavailable; key from the environment");
                    Ok(Some(secret))
                }
                None => Err(error.with_fallback(config.api_key_env.as_deref())),
            },
            Err(error) => Err(error),
        }
    }

    /// A remote MCP server's sign-in tokens (opaque JSON), or `None`.
    pub async fn mcp_tokens(&self, server: &str, url: &str) -> Result<Option<Secret>, SecretError> {
        self.call_entry(
            MCP_TOKENS_SERVICE,
            mcp_account(server, url),
            server,
            "read",
            |entry| match entry.get_password() {
                Ok(value) => Ok(Some(Secret::new(value))),
                Err(keyring::Error::NoEntry) => Ok(None),
                Err(error) => Err(error),
            },
        )
        .await
    }

    /// Stores (or replaces) a remote MCP server's sign-in tokens.
    pub async fn set_mcp_tokens(
        &self,
        server: &str,
        url: &str,
        tokens: Secret,
    ) -> Result<(), SecretError> {
        self.call_entry(
            MCP_TOKENS_SERVICE,
            mcp_account(server, url),
            server,
            "store",
            move |entry| entry.set_password(tokens.expose()),
        )
        .await?;
        tracing::debug!(server, "MCP sign-in stored in the keychain");
        Ok(())
    }

    /// Forgets a remote MCP server's sign-in tokens; true when there were some.
    pub async fn delete_mcp_tokens(&self, server: &str, url: &str) -> Result<bool, SecretError> {
        self.call_entry(
            MCP_TOKENS_SERVICE,
            mcp_account(server, url),
            server,
            "delete",
            |entry| match entry.delete_credential() {
                Ok(()) => Ok(true),
                Err(keyring::Error::NoEntry) => Ok(false),
                Err(error) => Err(error),
            },
        )
        .await
    }

    /// Runs one keychain operation on the blocking pool, within the timeout.
    async fn call<T: Send + 'static>(
        &self,
        provider: &str,
        action: &'static str,
        work: impl FnOnce(keyring::Entry) -> keyring::Result<T> + Send + 'static,
    ) -> Result<T, SecretError> {
        validate_name(provider).map_err(|error| SecretError::InvalidProvider(error.to_string()))?;
        self.call_entry(
            KEYCHAIN_SERVICE,
            provider.to_owned(),
            provider,
            action,
            work,
        )
        .await
    }

    /// Runs one operation on the keychain entry `service`/`account` (`owner` names it in
    /// errors) on the blocking pool, within the timeout.
    async fn call_entry<T: Send + 'static>(
        &self,
        service: &'static str,
        account: String,
        owner: &str,
        action: &'static str,
        work: impl FnOnce(keyring::Entry) -> keyring::Result<T> + Send + 'static,
    ) -> Result<T, SecretError> {
        let provider = owner;
        let task = tokio::task::spawn_blocking(move || {
            keyring::Entry::new(service, &account).and_then(work)
        });
        match tokio::time::timeout(self.timeout, task).await {
            Ok(Ok(result)) => result.map_err(|error| classify(error, action, provider)),
            Ok(Err(_join)) => Err(SecretError::Keychain {
                action,
                provider: provider.to_owned(),
                reason: "the keychain library failed".to_owned(),
            }),
            Err(_elapsed) => Err(SecretError::Unavailable {
                reason: format!(
                    "it did not answer within {} s; is it locked?",
                    self.timeout.as_secs()
                ),
                hint: fallback_hint(None),
            }),
        }
    }
}

/// The keychain account of a remote MCP server's tokens: its name and URL.
fn mcp_account(server: &str, url: &str) -> String {
    format!("{server} {url}")
}

/// Sorts keyring's errors into "no keychain" and "the keychain said no", keeping their text
/// but never their payload (`BadEncoding` and `BadDataFormat` carry the stored bytes).
fn classify(error: keyring::Error, action: &'static str, provider: &str) -> SecretError {
    let unavailable = |reason: String| SecretError::Unavailable {
        reason,
        hint: fallback_hint(None),
    };
    let failed = |reason: String| SecretError::Keychain {
        action,
        provider: provider.to_owned(),
        reason,
    };
    match error {
        keyring::Error::NoDefaultStore => unavailable(match keyring::Entry::store_status() {
            Err(cause) => cause.to_string(),
            Ok(()) => "no credential store".to_owned(),
        }),
        keyring::Error::PlatformFailure(cause) | keyring::Error::NoStorageAccess(cause) => {
            unavailable(cause.to_string())
        }
        keyring::Error::BadEncoding(_) => failed("the stored key is not UTF-8 text".to_owned()),
        keyring::Error::BadDataFormat(..) => failed("the stored key is malformed".to_owned()),
        other => failed(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_never_shows_its_value() {
        let secret = Secret::new("sk-very-secret-value-0123456789");
        assert_eq!(format!("{secret:?}"), "Secret([redacted])");
        assert_eq!(format!("{:?}", Some(&secret)), "Some(Secret([redacted]))");
        assert_eq!(secret.expose(), "sk-very-secret-value-0123456789");
    }

    #[test]
    fn the_unavailable_error_names_the_fallback_variable() {
        let error = SecretError::Unavailable {
            reason: "no bus".into(),
            hint: fallback_hint(None),
        }
        .with_fallback(Some("OPENAI_API_KEY"));
        let text = error.to_string();
        assert!(
            text.starts_with("the OS keychain (Secret Service) is not available (no bus); "),
            "{text}"
        );
        assert!(
            text.contains("set OPENAI_API_KEY in the environment"),
            "{text}"
        );
        assert!(text.contains("never writes API keys to disk"), "{text}");
    }

    #[test]
    fn errors_never_carry_the_stored_bytes() {
        let error = classify(
            keyring::Error::BadEncoding(b"sk-leaked\xff".to_vec()),
            "read",
            "p",
        );
        assert!(!format!("{error:?}").contains("leaked"));
        assert!(!error.to_string().contains("leaked"));
    }
}
