//! A remote server over streamable HTTP.
//!
//! The configured URL and headers are expanded (`${VAR}`) only now, at connect time, so no
//! secret sits in a status or a log; a configured `Authorization: Bearer …` header becomes the
//! transport's token. Without one, the tokens of an earlier sign-in (see [`crate::oauth`]) are
//! used when there are any. A 401 in the handshake records the server's challenge and marks the
//! server as needing sign-in, which retrying cannot fix. The legacy SSE transport is refused by
//! the supervisor before it gets here.

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use super::client::ClientSide;
use super::{Ending, Running, Shared};
use crate::errors::connect_sentence;
use crate::expand::{Lookup, expand, expand_map};
use crate::oauth::TokenKey;
use crate::status::SignInState;

/// Connects to the server at `url` with `headers` and completes the MCP handshake.
pub(super) async fn connect_http(
    shared: &Arc<Shared>,
    client: ClientSide,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    lookup: &dyn Lookup,
) -> Result<Running, Ending> {
    let url = expand(url, "url", lookup).map_err(|e| Ending::fatal(e.to_string()))?;
    let headers =
        expand_map(headers, "headers", lookup).map_err(|e| Ending::fatal(e.to_string()))?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.clone());
    let mut custom = std::collections::HashMap::new();
    for (name, value) in &headers {
        if name.eq_ignore_ascii_case("authorization")
            && let Some(token) = value.strip_prefix("Bearer ")
        {
            config = config.auth_header(token.trim().to_owned());
            continue;
        }
        let header = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| Ending::fatal(format!("headers.{name}: not a valid header name")))?;
        // Never quote the value: it is usually a secret.
        let value = http::HeaderValue::from_str(value)
            .map_err(|_| Ending::fatal(format!("headers.{name}: not a valid header value")))?;
        custom.insert(header, value);
    }
    let config = config.custom_headers(custom);
    let configured_token = config.auth_header.is_some();
    let key = TokenKey::new(&shared.config.name, &url);
    // Tokens from a sign-in, unless the config sends its own Authorization header.
    let authorized = match shared.vault.get() {
        Some(vault) if !configured_token => {
            crate::oauth::authorized_client(&key, Arc::clone(vault))
                .await
                .map_err(|reason| {
                    Ending::retry(format!("could not use the stored sign-in: {reason}"))
                })?
        }
        _ => None,
    };
    let signed_in = authorized.is_some();
    let timeout = shared.startup_timeout();
    let handshake = async {
        match authorized {
            Some(auth) => {
                client
                    .serve(StreamableHttpClientTransport::with_client(auth, config))
                    .await
            }
            None => {
                let plain = crate::oauth::plain_client().map_err(|reason| {
                    rmcp::service::ClientInitializeError::ConnectionClosed(reason)
                })?;
                client
                    .serve(StreamableHttpClientTransport::with_client(plain, config))
                    .await
            }
        }
    };
    let result = tokio::select! {
        () = shared.shutdown.cancelled() => return Err(Ending::fatal("Gantry is shutting down")),
        result = tokio::time::timeout(timeout, handshake) => result,
    };
    match result {
        Ok(Ok(running)) => {
            if signed_in && let Some(vault) = shared.vault.get() {
                let account = crate::oauth::stored_credentials(vault.as_ref(), &key)
                    .await
                    .ok()
                    .flatten()
                    .and_then(|stored| crate::oauth::account_of(&stored));
                shared.lock().sign_in = Some(SignInState::SignedIn { account });
            }
            Ok(running)
        }
        Ok(Err(error)) if error.is_authorization_required() => {
            {
                let mut inner = shared.lock();
                inner.challenge = error.auth_challenge().map(str::to_owned);
                inner.sign_in = Some(SignInState::Required);
            }
            let how = if shared.vault.get().is_some() {
                format!(
                    "; sign in (MCP panel, or gantry-cli mcp login {})",
                    shared.config.name
                )
            } else {
                String::new()
            };
            // Retrying won't help until someone signs in.
            Err(Ending::fatal(format!("{}{how}", connect_sentence(&error))))
        }
        Ok(Err(error)) => Err(Ending::retry(connect_sentence(&error))),
        Err(_) => Err(Ending::retry(format!(
            "did not answer the MCP handshake within {} s",
            timeout.as_secs_f64()
        ))),
    }
}
