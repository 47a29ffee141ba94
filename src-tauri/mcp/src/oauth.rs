//! Sign-in to remote servers: the MCP authorization flow (OAuth 2.1) through rmcp's `auth`.
//!
//! A remote server that wants a user answers 401 with a `WWW-Authenticate` challenge. Signing in
//! then follows the MCP authorization spec, all of it done by rmcp: the challenge's
//! protected-resource metadata names the authorization server, whose metadata gives the
//! endpoints; Gantry registers itself there when the server offers dynamic client registration,
//! opens the authorization URL (code flow with PKCE S256) in the system browser, and receives the
//! code on a one-shot listener on `127.0.0.1` at a random port (the redirect URI it registered),
//! which it exchanges for tokens.
//!
//! The tokens (access and refresh, with the client id they belong to) live only in a
//! [`TokenVault`] — the OS keychain in the app and the CLI — under a [`TokenKey`] made of the
//! server's name *and* URL, so two servers never share a sign-in. They are never written to disk
//! or logs. While connected, every request goes through rmcp's `AuthClient`, which refreshes the
//! access token shortly before it expires (and once more when the server rejects it); when the
//! refresh token is refused too (revoked), the server is marked as needing sign-in again.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationManager, AuthorizationRequest, CredentialStore, OAuthState,
    StoredCredentials,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use zeroize::Zeroizing;

/// How long the user has to finish signing in in the browser.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(300);
/// The client name Gantry registers under.
const CLIENT_NAME: &str = "Gantry";
/// The longest request the callback listener reads.
const MAX_CALLBACK_REQUEST: usize = 16 * 1024;

/// Which sign-in a token belongs to: a server's name and its URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TokenKey {
    /// The server's configured name.
    pub server: String,
    /// Its URL, as expanded when connecting.
    pub url: String,
}

impl TokenKey {
    /// The key of server `server` at `url`.
    pub fn new(server: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            server: server.into(),
            url: url.into(),
        }
    }
}

/// Where a server's tokens are kept. Values are opaque JSON holding secrets: implementations
/// keep them out of files and logs (the engine's is the OS keychain).
#[async_trait]
pub trait TokenVault: Send + Sync {
    /// The stored value, if any.
    async fn load(&self, key: &TokenKey) -> Result<Option<Zeroizing<String>>, String>;
    /// Stores (or replaces) the value.
    async fn save(&self, key: &TokenKey, value: Zeroizing<String>) -> Result<(), String>;
    /// Forgets the value; true when there was one.
    async fn clear(&self, key: &TokenKey) -> Result<bool, String>;
}

/// Tokens in memory (tests, and runs without a keychain).
#[derive(Debug, Default)]
pub struct MemoryVault {
    values: std::sync::Mutex<std::collections::BTreeMap<TokenKey, Zeroizing<String>>>,
}

impl MemoryVault {
    /// An empty vault.
    pub fn new() -> Self {
        Self::default()
    }

    fn values(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::BTreeMap<TokenKey, Zeroizing<String>>> {
        self.values
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl TokenVault for MemoryVault {
    async fn load(&self, key: &TokenKey) -> Result<Option<Zeroizing<String>>, String> {
        Ok(self.values().get(key).cloned())
    }

    async fn save(&self, key: &TokenKey, value: Zeroizing<String>) -> Result<(), String> {
        self.values().insert(key.clone(), value);
        Ok(())
    }

    async fn clear(&self, key: &TokenKey) -> Result<bool, String> {
        Ok(self.values().remove(key).is_some())
    }
}

/// rmcp's credential store over a vault entry.
struct VaultStore {
    vault: Arc<dyn TokenVault>,
    key: TokenKey,
}

#[async_trait]
impl CredentialStore for VaultStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let Some(text) = self
            .vault
            .load(&self.key)
            .await
            .map_err(AuthError::CredentialStoreError)?
        else {
            return Ok(None);
        };
        // A value Gantry can't read is as good as none: sign in again.
        Ok(serde_json::from_str(&text).ok())
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let text = serde_json::to_string(&credentials)
            .map_err(|error| AuthError::CredentialStoreError(error.to_string()))?;
        self.vault
            .save(&self.key, Zeroizing::new(text))
            .await
            .map_err(AuthError::CredentialStoreError)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.vault
            .clear(&self.key)
            .await
            .map(drop)
            .map_err(AuthError::CredentialStoreError)
    }
}

/// Opens the authorization page for the user.
pub trait Browser: Send + Sync {
    /// Shows `url` to the user (a browser tab); an error says why it could not.
    fn open(&self, url: &str) -> Result<(), String>;
}

/// The system browser: the program `$BROWSER` names (the xdg convention), else `xdg-open`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemBrowser;

impl Browser for SystemBrowser {
    fn open(&self, url: &str) -> Result<(), String> {
        let program = std::env::var("BROWSER")
            .ok()
            .filter(|value| !value.trim().is_empty())
            .unwrap_or_else(|| "xdg-open".to_owned());
        let mut words = program.split_whitespace();
        let Some(command) = words.next() else {
            return Err("no browser is set".to_owned());
        };
        std::process::Command::new(command)
            .args(words)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map(drop)
            .map_err(|error| format!("cannot start '{command}': {error}"))
    }
}

/// Why signing in failed, in words a user can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignInError {
    /// The server is not a remote one.
    #[error("server '{0}' is not a remote (http) server; only those sign in")]
    NotRemote(String),
    /// Its configuration can't be used (a missing `${VAR}` in the URL).
    #[error("{0}")]
    Config(String),
    /// Discovery, registration or the token exchange failed.
    #[error("signing in to '{server}' failed: {reason}")]
    Failed {
        /// The server.
        server: String,
        /// What went wrong.
        reason: String,
    },
    /// The browser could not be opened; the URL is in the message so the user can open it.
    #[error("cannot open a browser ({reason}); open this address to sign in: {url}")]
    Browser {
        /// Why.
        reason: String,
        /// The authorization URL.
        url: String,
    },
    /// The user did not finish in time.
    #[error("signing in to '{0}' was not finished within {1} s")]
    TimedOut(String, u64),
    /// The authorization server sent the user back with an error (they declined).
    #[error("the authorization server refused the sign-in to '{server}': {reason}")]
    Refused {
        /// The server.
        server: String,
        /// Its `error` (and description).
        reason: String,
    },
    /// Cancelled (Gantry is closing).
    #[error("signing in was cancelled")]
    Cancelled,
    /// The tokens could not be stored.
    #[error("the tokens could not be stored: {0}")]
    Vault(String),
}

/// Who is signed in, as far as the tokens tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedIn {
    /// A name to show: the user the tokens name (an OpenID `id_token`'s `preferred_username`,
    /// `email` or `name`, or a `username` field), else the authorization server's host.
    pub account: Option<String>,
}

/// The key `config`'s tokens are kept under: its name and its URL with `${VAR}`s expanded.
pub fn token_key(config: &crate::config::ServerConfig) -> Result<TokenKey, SignInError> {
    let crate::config::TransportConfig::Http { url, .. } = &config.transport else {
        return Err(SignInError::NotRemote(config.name.clone()));
    };
    let url = crate::expand::expand(url, "url", &crate::expand::ProcessEnv)
        .map_err(|error| SignInError::Config(error.to_string()))?;
    Ok(TokenKey::new(&config.name, url))
}

/// Runs the sign-in flow for server `server` at `url` (see the module's documentation): opens
/// the authorization page with `browser`, waits (up to `timeout`) for the redirect, and stores
/// the tokens in `vault`. `challenge` is the `WWW-Authenticate` value of the server's 401, when
/// known (discovery then starts from its `resource_metadata`).
pub async fn sign_in(
    key: &TokenKey,
    challenge: Option<&str>,
    vault: Arc<dyn TokenVault>,
    browser: &dyn Browser,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<SignedIn, SignInError> {
    let failed = |reason: String| SignInError::Failed {
        server: key.server.clone(),
        reason,
    };
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.map_err(|error| {
        failed(format!(
            "cannot listen on 127.0.0.1 for the redirect: {error}"
        ))
    })?;
    let port = listener
        .local_addr()
        .map_err(|error| failed(error.to_string()))?
        .port();
    let redirect_uri = format!("http://127.0.0.1:{port}/callback");
    let mut manager = AuthorizationManager::new(key.url.as_str())
        .await
        .map_err(|error| failed(auth_error_sentence(&error)))?;
    manager.set_credential_store(VaultStore {
        vault,
        key: key.clone(),
    });
    let mut state = OAuthState::Unauthorized(manager);
    let mut request = AuthorizationRequest::new(&redirect_uri).with_client_name(CLIENT_NAME);
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge);
    }
    state
        .start_authorization(request)
        .await
        .map_err(|error| failed(auth_error_sentence(&error)))?;
    let url = state
        .get_authorization_url()
        .await
        .map_err(|error| failed(auth_error_sentence(&error)))?;
    tracing::info!(server = %key.server, "opening the browser to sign in");
    browser.open(&url).map_err(|reason| SignInError::Browser {
        reason,
        url: url.clone(),
    })?;
    let callback = tokio::select! {
        () = cancel.cancelled() => return Err(SignInError::Cancelled),
        () = tokio::time::sleep(timeout) => {
            return Err(SignInError::TimedOut(key.server.clone(), timeout.as_secs()));
        }
        callback = receive_callback(&listener, port, &key.server) => callback?,
    };
    state
        .handle_callback_url(&callback)
        .await
        .map_err(|error| match error {
            AuthError::CredentialStoreError(reason) => SignInError::Vault(reason),
            other => failed(auth_error_sentence(&other)),
        })?;
    let credentials = state
        .get_credentials()
        .await
        .map_err(|error| failed(auth_error_sentence(&error)))?;
    let stored = credentials
        .1
        .map(|token| StoredCredentials::new(credentials.0.clone(), Some(token), Vec::new(), None));
    Ok(SignedIn {
        account: stored
            .as_ref()
            .and_then(account_of)
            .or_else(|| host_of(&key.url)),
    })
}

/// Waits for the browser's redirect to the callback path and answers it; returns the full
/// redirect URL (with `code` and `state`). A redirect carrying `error` fails the sign-in.
async fn receive_callback(
    listener: &TcpListener,
    port: u16,
    server: &str,
) -> Result<String, SignInError> {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            continue;
        };
        let mut buffer = Vec::with_capacity(1024);
        let mut chunk = [0u8; 1024];
        // The request line and headers; a client that sends nothing is dropped after 10 s.
        let read = tokio::time::timeout(Duration::from_secs(10), async {
            while !buffer.windows(4).any(|window| window == b"\r\n\r\n")
                && buffer.len() < MAX_CALLBACK_REQUEST
            {
                match stream.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(read) => buffer.extend_from_slice(&chunk[..read]),
                }
            }
        })
        .await;
        if read.is_err() {
            continue;
        }
        let text = String::from_utf8_lossy(&buffer);
        let target = text
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("GET "))
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_default()
            .to_owned();
        if !target.starts_with("/callback") {
            let _ = stream
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await;
            continue;
        }
        let full = format!("http://127.0.0.1:{port}{target}");
        let query = full.split_once('?').map(|(_, query)| query).unwrap_or("");
        let error = query_value(query, "error");
        let (status, message) = match &error {
            Some(_) => (
                "400 Bad Request",
                "Signing in did not succeed. You can close this tab and try again in Gantry.",
            ),
            None => (
                "200 OK",
                "You are signed in. You can close this tab and go back to Gantry.",
            ),
        };
        let body =
            format!("<!doctype html><meta charset=utf-8><title>Gantry</title><p>{message}</p>");
        let response = format!(
            "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
        if let Some(error) = error {
            let description = query_value(query, "error_description")
                .map(|text| format!(" ({text})"))
                .unwrap_or_default();
            return Err(SignInError::Refused {
                server: server.to_owned(),
                reason: format!("{error}{description}"),
            });
        }
        return Ok(full);
    }
}

/// The decoded value of `name` in a query string.
fn query_value(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (key == name).then(|| percent_decode(value))
    })
}

/// `%XX` and `+` decoding (enough for an error code and its description).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'+' => out.push(b' '),
            b'%' if index + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[index + 1..index + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(byte) => {
                        out.push(byte);
                        index += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        index += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The stored tokens of `key`, parsed; `None` when there are none (or they can't be read).
pub async fn stored_credentials(
    vault: &dyn TokenVault,
    key: &TokenKey,
) -> Result<Option<StoredCredentials>, String> {
    Ok(vault
        .load(key)
        .await?
        .and_then(|text| serde_json::from_str(&text).ok()))
}

/// An HTTP client for the MCP transport that sends `key`'s access token, refreshing it before
/// it expires; `None` when nothing is stored (the server's 401 then asks for sign-in).
pub(crate) async fn authorized_client(
    key: &TokenKey,
    vault: Arc<dyn TokenVault>,
) -> Result<Option<AuthClient<reqwest::Client>>, String> {
    let stored = match stored_credentials(vault.as_ref(), key).await {
        Ok(stored) => stored,
        Err(reason) => {
            // Without the keychain the server is tried without a token (and says if it wants one).
            tracing::warn!(server = %key.server, %reason, "cannot read the stored sign-in");
            None
        }
    };
    if stored.and_then(|stored| stored.token_response).is_none() {
        return Ok(None);
    }
    let mut manager = AuthorizationManager::new(key.url.as_str())
        .await
        .map_err(|error| auth_error_sentence(&error))?;
    manager.set_credential_store(VaultStore {
        vault,
        key: key.clone(),
    });
    match manager.initialize_from_store().await {
        Ok(true) => {}
        Ok(false) => return Ok(None),
        Err(error) => return Err(auth_error_sentence(&error)),
    }
    Ok(Some(AuthClient::new(plain_client()?, manager)))
}

/// The HTTP client under the transport: no idle pooling (rmcp's choice, against delayed-ACK
/// stalls) and no redirects (a POST must not be turned into a GET or sent elsewhere).
pub(crate) fn plain_client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|error| error.to_string())
}

/// A name for who the tokens belong to, if they say (see [`SignedIn::account`]).
pub fn account_of(credentials: &StoredCredentials) -> Option<String> {
    let token = credentials.token_response.as_ref()?;
    let extra = &token.extra_fields().0;
    let claims = extra
        .get("id_token")
        .and_then(serde_json::Value::as_str)
        .and_then(jwt_claims);
    let from = |map: &serde_json::Map<String, serde_json::Value>| {
        ["preferred_username", "email", "name", "username", "user"]
            .iter()
            .find_map(|field| map.get(*field).and_then(serde_json::Value::as_str))
            .map(str::to_owned)
    };
    if let Some(name) = claims.as_ref().and_then(from) {
        return Some(name);
    }
    let fields: serde_json::Map<String, serde_json::Value> =
        extra.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    from(&fields).or_else(|| credentials.issuer.as_deref().and_then(host_of))
}

/// The claims of a JWT (payload only, not verified: it is shown, never trusted).
fn jwt_claims(token: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    use base64::Engine as _;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

/// `host[:port]` of a URL.
fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit('@').next()?;
    (!host.is_empty()).then(|| host.to_owned())
}

/// An rmcp auth error as a sentence (its own texts are already sentences; the HTTP ones are
/// unwrapped to their cause).
pub(crate) fn auth_error_sentence(error: &AuthError) -> String {
    match error {
        AuthError::HttpError(error) => crate::errors::http_sentence(error),
        AuthError::AuthorizationRequired => "the server asks for sign-in".to_owned(),
        AuthError::NoAuthorizationSupport => {
            "the server asked for sign-in but publishes no way to sign in (no OAuth metadata)"
                .to_owned()
        }
        other => crate::errors::chain_sentence(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_decoded() {
        let query = "code=a%2Fb&state=x+y&error_description=access%20denied";
        assert_eq!(query_value(query, "code").as_deref(), Some("a/b"));
        assert_eq!(query_value(query, "state").as_deref(), Some("x y"));
        assert_eq!(
            query_value(query, "error_description").as_deref(),
            Some("access denied")
        );
        assert_eq!(query_value(query, "error"), None);
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%4"), "%4");
    }

    #[test]
    fn hosts_are_read_from_urls() {
        assert_eq!(
            host_of("https://auth.example.com/x").as_deref(),
            Some("auth.example.com")
        );
        assert_eq!(
            host_of("http://127.0.0.1:9/").as_deref(),
            Some("127.0.0.1:9")
        );
        assert_eq!(host_of("nonsense"), None);
    }

    #[test]
    fn accounts_come_from_id_tokens_then_fields_then_the_issuer() {
        use base64::Engine as _;
        let claims = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(br#"{"sub":"1","preferred_username":"ada"}"#);
        let token = |extra: serde_json::Value| -> StoredCredentials {
            let mut response = serde_json::json!({"access_token": "t", "token_type": "bearer"});
            for (key, value) in extra.as_object().unwrap() {
                response[key] = value.clone();
            }
            StoredCredentials::new(
                "c".into(),
                Some(serde_json::from_value(response).unwrap()),
                Vec::new(),
                None,
            )
            .with_issuer(Some("https://login.example.com/".into()))
        };
        let with_id = token(serde_json::json!({"id_token": format!("h.{claims}.s")}));
        assert_eq!(account_of(&with_id).as_deref(), Some("ada"));
        let with_field = token(serde_json::json!({"username": "bob"}));
        assert_eq!(account_of(&with_field).as_deref(), Some("bob"));
        let bare = token(serde_json::json!({}));
        assert_eq!(account_of(&bare).as_deref(), Some("login.example.com"));
    }

    #[tokio::test]
    async fn memory_vaults_keep_values_per_name_and_url() {
        let vault = MemoryVault::new();
        let a = TokenKey::new("a", "https://x/mcp");
        let b = TokenKey::new("b", "https://x/mcp");
        vault.save(&a, Zeroizing::new("1".into())).await.unwrap();
        assert_eq!(
            vault.load(&a).await.unwrap().as_deref().map(String::as_str),
            Some("1")
        );
        assert_eq!(vault.load(&b).await.unwrap(), None);
        assert!(vault.clear(&a).await.unwrap());
        assert!(!vault.clear(&a).await.unwrap());
    }
}
