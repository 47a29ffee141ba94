//! Sign-in to a remote server behind a real OAuth 2.1 authorization server (the MCP TypeScript
//! SDK's auth router, `tests/fixtures/mcp-servers/oauth-server.mjs`), the browser step driven
//! by an HTTP client that follows the authorization URL.

use std::sync::Arc;
use std::time::Duration;

use gantry_mcp::{
    Browser, HubSettings, McpHub, MemoryTrust, MemoryVault, ServerState, SignInState, TokenKey,
    TokenVault,
};
use gantry_tools::{CallContext, ObservationKind, ToolManager};
use serde_json::json;
use tokio::io::AsyncBufReadExt;

use super::support::*;

/// The fixture server, killed when dropped.
pub struct OauthServer {
    pub url: String,
    _child: tokio::process::Child,
}

impl OauthServer {
    pub async fn start(token_ttl_seconds: u32) -> Self {
        let script = npm_fixtures().join("oauth-server.mjs");
        assert!(
            npm_fixtures().join("node_modules/express").exists(),
            "run `npm ci --prefix tests/fixtures/mcp-servers`"
        );
        let mut child = tokio::process::Command::new("node")
            .arg(script)
            .args(["--token-ttl", &token_ttl_seconds.to_string()])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        let line = tokio::time::timeout(WAIT, lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let url = serde_json::from_str::<serde_json::Value>(&line).unwrap()["url"]
            .as_str()
            .unwrap()
            .to_owned();
        Self { url, _child: child }
    }

    fn base(&self) -> String {
        self.url.trim_end_matches("/mcp").to_owned()
    }

    pub async fn stats(&self) -> serde_json::Value {
        reqwest::get(format!("{}/test/stats", self.base()))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub async fn revoke_all(&self) {
        reqwest::Client::new()
            .post(format!("{}/test/revoke-all", self.base()))
            .send()
            .await
            .unwrap();
    }
}

/// The user: follows the authorization URL (the provider approves at once and redirects to
/// Gantry's loopback listener).
#[derive(Default)]
pub struct HttpBrowser {
    pub opened: std::sync::Mutex<Vec<String>>,
}

impl Browser for HttpBrowser {
    fn open(&self, url: &str) -> Result<(), String> {
        self.opened.lock().unwrap().push(url.to_owned());
        let url = url.to_owned();
        tokio::spawn(async move {
            let response = reqwest::get(&url).await.unwrap();
            assert!(response.status().is_success(), "{response:?}");
        });
        Ok(())
    }
}

fn settings(dir: &std::path::Path, url: &str, vault: Arc<dyn TokenVault>) -> HubSettings {
    let user_file = dir.join("mcp.json");
    std::fs::write(
        &user_file,
        serde_json::to_string(&json!({"mcpServers": {"remote": {"url": url, "level": "safe"}}}))
            .unwrap(),
    )
    .unwrap();
    let mut settings = HubSettings::new(Arc::new(MemoryTrust::new()));
    settings.user_file = Some(user_file);
    settings.options = fast_options();
    settings.tokens = Some(vault);
    settings
}

async fn whoami(manager: &ToolManager) -> gantry_tools::Observation {
    manager
        .dispatch("mcp__remote__whoami", "{}", &CallContext::detached())
        .await
}

#[tokio::test]
async fn sign_in_reuse_refresh_and_revocation() {
    let server = OauthServer::start(3).await;
    let (dir, manager) = manager();
    let vault: Arc<MemoryVault> = Arc::new(MemoryVault::new());
    let hub = McpHub::start(
        Arc::clone(&manager),
        settings(dir.path(), &server.url, vault.clone()),
    )
    .await
    .unwrap();

    // First connection: the server answers 401; the state says so in a sentence.
    let (reason, status) = failed(hub.server("remote").unwrap()).await;
    assert!(
        reason.starts_with("the server asked for sign-in (401)"),
        "{reason}"
    );
    assert!(!reason.contains("::"), "{reason}");
    assert_eq!(status.sign_in, Some(SignInState::Required));
    // A call to its tool says why, not "unknown tool".
    let observation = whoami(&manager).await;
    assert_eq!(observation.kind, ObservationKind::Error);
    assert!(
        observation.text.contains(
            "is unavailable: MCP server 'remote' is not running: the server asked for sign-in (401)"
        ),
        "{}",
        observation.text
    );

    // Sign in: registration, the browser step, the code exchange; then it connects.
    let browser = HttpBrowser::default();
    let signed_in = hub
        .sign_in("remote", &browser, Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(
        signed_in.account.as_deref(),
        Some(server.base().trim_start_matches("http://"))
    );
    let opened = browser.opened.lock().unwrap().clone();
    assert_eq!(opened.len(), 1);
    assert!(
        opened[0].contains("code_challenge_method=S256"),
        "{opened:?}"
    );
    assert!(
        opened[0].contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"),
        "{opened:?}"
    );
    let status = connected(hub.server("remote").unwrap()).await;
    assert!(
        matches!(status.sign_in, Some(SignInState::SignedIn { .. })),
        "{status:?}"
    );
    let observation = whoami(&manager).await;
    assert_eq!(
        observation.kind,
        ObservationKind::Ok,
        "{}",
        observation.text
    );
    assert!(
        observation.text.starts_with("signed in as client "),
        "{}",
        observation.text
    );
    let stats = server.stats().await;
    assert_eq!(stats["registrations"], 1, "{stats}");
    assert_eq!(stats["exchanges"], 1, "{stats}");
    // The tokens are in the vault under the server's name and URL, and nowhere in the status.
    let stored = vault
        .load(&TokenKey::new("remote", &server.url))
        .await
        .unwrap()
        .unwrap();
    assert!(stored.contains("refresh_token"));
    assert!(
        vault
            .load(&TokenKey::new("other", &server.url))
            .await
            .unwrap()
            .is_none()
    );
    let shown = serde_json::to_string(&hub.statuses()).unwrap();
    let access: serde_json::Value = serde_json::from_str(&stored).unwrap();
    let access = access["token_response"]["access_token"].as_str().unwrap();
    assert!(!shown.contains(access));
    hub.shutdown().await;

    // A restart reuses the stored token: no new authorization.
    let hub = McpHub::start(
        Arc::clone(&manager),
        settings(dir.path(), &server.url, vault.clone()),
    )
    .await
    .unwrap();
    connected(hub.server("remote").unwrap()).await;
    assert_eq!(whoami(&manager).await.kind, ObservationKind::Ok);
    assert_eq!(server.stats().await["authorizations"], 1);

    // The access token (3 s) expires: the next call refreshes it first.
    tokio::time::sleep(Duration::from_millis(3200)).await;
    let observation = whoami(&manager).await;
    assert_eq!(
        observation.kind,
        ObservationKind::Ok,
        "{}",
        observation.text
    );
    let stats = server.stats().await;
    assert!(stats["refreshes"].as_u64().unwrap() >= 1, "{stats}");
    assert_eq!(stats["authorizations"], 1, "{stats}");

    // Revoked at the server (access and refresh tokens): the call says to sign in again, and
    // the server waits for it.
    server.revoke_all().await;
    let observation = whoami(&manager).await;
    assert_eq!(observation.kind, ObservationKind::Error);
    assert!(
        observation.text.contains("asked for sign-in again (401)"),
        "{}",
        observation.text
    );
    let status = hub
        .server("remote")
        .unwrap()
        .wait_for(WAIT, |status| {
            matches!(status.state, ServerState::Failed { .. })
                && status.sign_in == Some(SignInState::Required)
        })
        .await
        .unwrap_or_else(|status| panic!("{status:#?}"));
    assert!(
        matches!(&status.state, ServerState::Failed { reason } if reason.contains("sign-in (401)"))
    );

    // Signing in again works; signing out forgets the tokens and it asks once more.
    hub.sign_in("remote", &browser, Duration::from_secs(30))
        .await
        .unwrap();
    connected(hub.server("remote").unwrap()).await;
    assert!(hub.sign_out("remote").await.unwrap());
    failed(hub.server("remote").unwrap()).await;
    assert!(
        vault
            .load(&TokenKey::new("remote", &server.url))
            .await
            .unwrap()
            .is_none()
    );
    hub.shutdown().await;
}
