//! Connection errors as sentences.
//!
//! rmcp's errors print their Rust types (`Send message error Transport
//! [rmcp::transport::worker::WorkerTransport<...>] error: ...`), which tell a user nothing. These
//! functions read the cause instead: a 401 is "the server asked for sign-in (401)", a refused
//! connection says so with the address, and anything else is the deepest cause's own message.

use rmcp::service::ClientInitializeError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

/// Why connecting (the MCP handshake) failed, as a sentence.
pub fn connect_sentence(error: &ClientInitializeError) -> String {
    if error.is_authorization_required() {
        return "the server asked for sign-in (401)".to_owned();
    }
    match error {
        ClientInitializeError::JsonRpcError(data) => {
            format!("the server refused the MCP handshake: {}", data.message)
        }
        ClientInitializeError::ConnectionClosed(_) => {
            "the connection closed during the MCP handshake".to_owned()
        }
        ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        } => format!(
            "the server speaks no MCP version Gantry knows ({})",
            server_supported
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        // The variant does not expose its cause as `source()`: start from the cause itself.
        ClientInitializeError::TransportError { error, .. } => chain_sentence(error.error.as_ref()),
        other => chain_sentence(other),
    }
}

/// A reqwest error as a sentence: what could not be reached, and why.
pub fn http_sentence(error: &reqwest::Error) -> String {
    let url = error
        .url()
        .map(|url| format!(" {}", without_query(url.as_str())))
        .unwrap_or_default();
    if error.is_connect() {
        let cause = deepest(error);
        return format!("could not connect to{url}: {cause}");
    }
    if error.is_timeout() {
        return format!("the server at{url} did not answer in time");
    }
    if let Some(status) = error.status() {
        return format!("the server at{url} answered HTTP {status}");
    }
    format!("the request to{url} failed: {}", deepest(error))
}

/// The most specific message in an error's chain: a reqwest error read as [`http_sentence`],
/// else the deepest cause's own words.
pub fn chain_sentence(error: &(dyn std::error::Error + 'static)) -> String {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(this) = current {
        if let Some(http) = this.downcast_ref::<reqwest::Error>() {
            return http_sentence(http);
        }
        // Its `Client` variant does not expose the reqwest error as a source.
        if let Some(StreamableHttpError::Client(http)) =
            this.downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            return http_sentence(http);
        }
        if let Some(status) = unexpected_status(this) {
            return status;
        }
        current = this.source();
    }
    deepest(error)
}

/// rmcp's "unexpected server response" carries the HTTP status in its text.
fn unexpected_status(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let text = error.to_string();
    let rest = text.strip_prefix("Unexpected server response: ")?;
    Some(format!("the server answered: {rest}"))
}

/// The deepest cause's message (type names stripped of their `[...]` brackets).
fn deepest(error: &(dyn std::error::Error + 'static)) -> String {
    let mut last = error;
    while let Some(next) = last.source() {
        last = next;
    }
    let text = last.to_string();
    strip_type_names(&text)
}

/// Drops `[some::rust::Type<...>]` fragments from a message.
fn strip_type_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('[') {
        let Some(end) = rest[start..].find(']') else {
            break;
        };
        let inside = &rest[start + 1..start + end];
        out.push_str(&rest[..start]);
        if !inside.contains("::") {
            out.push_str(&rest[start..=start + end]);
        }
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A URL without its query (which may carry tokens).
fn without_query(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_are_dropped() {
        assert_eq!(
            strip_type_names(
                "Transport [rmcp::transport::worker::WorkerTransport<X>] error: closed [x]"
            ),
            "Transport error: closed [x]"
        );
    }

    #[tokio::test]
    async fn a_refused_connection_names_the_address() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let error = reqwest::Client::new()
            .get(format!("http://127.0.0.1:{port}/mcp?token=secret"))
            .send()
            .await
            .unwrap_err();
        let text = http_sentence(&error);
        assert!(
            text.starts_with(&format!(
                "could not connect to http://127.0.0.1:{port}/mcp: "
            )),
            "{text}"
        );
        assert!(!text.contains("secret"), "{text}");
        assert!(!text.contains("::"), "{text}");
    }
}
