//! Remote servers over https: TLS is always built in, so an https URL is dialled (never refused
//! for want of TLS) and its certificate is checked.

use std::sync::Arc;

use gantry_mcp::TransportConfig;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use super::support::*;

/// A remote server config for `url`.
fn remote(name: &str, url: String) -> gantry_mcp::ServerConfig {
    let mut config = stdio(name, "unused", &[]);
    config.transport = TransportConfig::Http {
        url,
        headers: Default::default(),
    };
    config
}

/// A loopback port with nothing listening on it.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn an_https_server_that_is_not_there_fails_to_connect() {
    let (_dir, manager) = manager();
    let port = closed_port();
    let hub = hub(
        &manager,
        vec![remote("gone", format!("https://127.0.0.1:{port}/mcp"))],
    );
    let (reason, status) = failed(hub.server("gone").unwrap()).await;
    assert!(
        reason.starts_with("could not connect to https://127.0.0.1:"),
        "{reason}"
    );
    assert!(!reason.contains("Send message error"), "{reason}");
    assert!(!reason.contains("lacks"), "{reason}");
    assert_eq!(status.pid, None);
    hub.shutdown().await;
}

#[tokio::test]
async fn an_https_server_with_an_untrusted_certificate_is_refused_in_the_handshake() {
    // A self-signed certificate for the address we listen on: right name, unknown issuer.
    let certified = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let chain = vec![CertificateDer::from(certified.cert.der().to_vec())];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
        certified.signing_key.serialize_der(),
    ));
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    // Every handshake's outcome, as the server saw it.
    let (outcomes, mut outcome) = tokio::sync::mpsc::unbounded_channel();
    let server = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let result = acceptor.accept(stream).await.map(|_| ());
            if outcomes.send(result).is_err() {
                return;
            }
        }
    });

    let (_dir, manager) = manager();
    let hub = hub(
        &manager,
        vec![remote(
            "selfsigned",
            format!("https://127.0.0.1:{port}/mcp"),
        )],
    );
    let (reason, _) = failed(hub.server("selfsigned").unwrap()).await;
    assert!(
        reason.starts_with("could not connect to https://127.0.0.1:"),
        "{reason}"
    );
    assert!(!reason.contains("Send message error"), "{reason}");
    // The client said hello in TLS, then rejected the certificate with an alert.
    let seen = tokio::time::timeout(WAIT, outcome.recv())
        .await
        .expect("no TLS handshake was attempted")
        .unwrap();
    let error = seen.expect_err("the handshake must not succeed");
    let error = error.to_string();
    assert!(
        error.contains("received fatal alert") && error.contains("UnknownCA"),
        "{error}"
    );
    hub.shutdown().await;
    server.abort();
}
