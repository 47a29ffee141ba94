//! API keys in a real Secret Service, and the clear error when there is none.
//!
//! The tests that talk to a keychain run only when `GANTRY_TEST_KEYRING=1`, which
//! `scripts/with-keyring` sets after it started a private D-Bus session with an unlocked
//! gnome-keyring: so the test command checks the real thing (and fails if the keychain is
//! missing), while a developer's plain `cargo test` never touches their own keychain.

use std::process::{Command, Output};
use std::time::{SystemTime, UNIX_EPOCH};

use gantry_store::{KEYCHAIN_SERVICE, ProviderConfig, Secret, Secrets};

use super::support::{Fixture, contains};

/// True when the test command provides a private keychain; otherwise says why the test is not
/// run (and fails the test when `GANTRY_REQUIRE_KEYRING=1`).
fn private_keychain() -> bool {
    gantry_test_gate::should_run(
        gantry_test_gate::Gate::Keyring,
        gantry_test_gate::env_flag(
            "GANTRY_TEST_KEYRING",
            "scripts/with-keyring sets it, with a private keychain",
        ),
    )
}

/// A provider name no other test (or person) uses.
fn unique_provider(tag: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("gantry-test-{tag}-{}-{nanos}", std::process::id())
}

/// `secret-tool lookup service gantry username NAME`: what the Secret Service itself holds.
fn secret_tool_lookup(provider: &str) -> Output {
    Command::new("secret-tool")
        .args(["lookup", "service", KEYCHAIN_SERVICE, "username", provider])
        .output()
        .expect("secret-tool (libsecret-tools) is installed")
}

#[tokio::test]
async fn keys_are_stored_read_replaced_and_deleted_in_the_secret_service() {
    if !private_keychain() {
        return;
    }
    let secrets = Secrets::new();
    let provider = unique_provider("cycle");
    assert!(secrets.get(&provider).await.unwrap().is_none());

    secrets
        .set(&provider, Secret::new("sk-first-key-0123456789abcdef"))
        .await
        .unwrap();
    assert_eq!(
        secrets.get(&provider).await.unwrap().unwrap().expose(),
        "sk-first-key-0123456789abcdef"
    );
    let looked_up = secret_tool_lookup(&provider);
    assert!(looked_up.status.success());
    assert_eq!(looked_up.stdout, b"sk-first-key-0123456789abcdef");

    secrets
        .set(&provider, Secret::new("sk-second-key-0123456789abcdef"))
        .await
        .unwrap();
    assert_eq!(
        secrets.get(&provider).await.unwrap().unwrap().expose(),
        "sk-second-key-0123456789abcdef"
    );
    assert_eq!(
        secret_tool_lookup(&provider).stdout,
        b"sk-second-key-0123456789abcdef"
    );

    assert!(secrets.delete(&provider).await.unwrap());
    assert!(!secrets.delete(&provider).await.unwrap());
    assert!(secrets.get(&provider).await.unwrap().is_none());
    let gone = secret_tool_lookup(&provider);
    assert!(!gone.status.success() && gone.stdout.is_empty());
}

#[tokio::test]
async fn the_keychain_wins_over_the_environment_and_the_environment_fills_in() {
    if !private_keychain() {
        return;
    }
    let provider = unique_provider("resolve");
    let harness = |var: &str, value: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gantry-store-harness"));
        command.args(["api-key", &provider, var]);
        match value {
            Some(value) => command.env(var, value),
            None => command.env_remove(var),
        };
        command.output().unwrap()
    };
    let run = harness("GANTRY_TEST_RESOLVE_KEY", Some("env-key-value"));
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "key: from $GANTRY_TEST_RESOLVE_KEY\n"
    );
    let run = harness("GANTRY_TEST_RESOLVE_KEY", None);
    assert_eq!(String::from_utf8_lossy(&run.stdout), "key: none\n");

    let secrets = Secrets::new();
    secrets
        .set(&provider, Secret::new("keychain-key-value"))
        .await
        .unwrap();
    let run = harness("GANTRY_TEST_RESOLVE_KEY", Some("env-key-value"));
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "key: not from $GANTRY_TEST_RESOLVE_KEY (18 chars)\n"
    );
    secrets.delete(&provider).await.unwrap();
}

#[tokio::test]
async fn keys_never_reach_the_database() {
    if !private_keychain() {
        return;
    }
    let fixture = Fixture::new().await;
    let provider = unique_provider("db");
    let key = "sk-never-in-the-database-0123456789";
    let config = ProviderConfig {
        name: provider.clone(),
        base_url: "https://api.example.invalid/v1".into(),
        model: "m".into(),
        api_key_env: Some("GANTRY_TEST_DB_KEY".into()),
        context_window: Some(8_192),
        flags: Default::default(),
    };
    let stored = fixture.store.providers().set(&config).await.unwrap();
    assert_eq!(stored.key_entry.service, KEYCHAIN_SERVICE);
    assert_eq!(stored.key_entry.account, provider);
    let secrets = Secrets::new();
    secrets.set(&provider, Secret::new(key)).await.unwrap();
    let found = secrets.api_key_for(&config).await.unwrap().unwrap();
    assert_eq!(found.expose(), key);
    fixture.store.close().await;
    let bytes = fixture.database_bytes();
    assert!(contains(&bytes, &provider), "the grep itself works");
    assert!(!contains(&bytes, key));
    secrets.delete(&provider).await.unwrap();
}

/// Runs the harness's key lookup with a D-Bus address where nothing listens.
fn without_secret_service(var: &str, value: Option<&str>) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_gantry-store-harness"));
    command
        .args(["api-key", &unique_provider("nobus"), var])
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            format!("unix:path={}", dir.path().join("no-bus").display()),
        )
        .env("XDG_RUNTIME_DIR", dir.path());
    match value {
        Some(value) => command.env(var, value),
        None => command.env_remove(var),
    };
    command.output().unwrap()
}

#[test]
fn without_a_secret_service_the_error_says_so_and_names_the_variable() {
    let run = without_secret_service("GANTRY_TEST_FALLBACK_KEY", None);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.starts_with("the OS keychain (Secret Service) is not available ("),
        "{stderr}"
    );
    assert!(
        stderr.contains("set GANTRY_TEST_FALLBACK_KEY in the environment"),
        "{stderr}"
    );
    assert!(stderr.contains("never writes API keys to disk"), "{stderr}");
}

#[test]
fn without_a_secret_service_the_environment_variable_is_used() {
    let run = without_secret_service("GANTRY_TEST_FALLBACK_KEY", Some("from-the-env"));
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "key: from $GANTRY_TEST_FALLBACK_KEY\n"
    );
}

#[tokio::test]
async fn mcp_sign_in_tokens_are_kept_per_server_name_and_url() {
    if !private_keychain() {
        return;
    }
    let secrets = Secrets::new();
    let server = unique_provider("mcp");
    let (url, other_url) = ("https://a.example/mcp", "https://b.example/mcp");
    assert!(secrets.mcp_tokens(&server, url).await.unwrap().is_none());
    secrets
        .set_mcp_tokens(&server, url, Secret::new(r#"{"access":"t1"}"#))
        .await
        .unwrap();
    assert_eq!(
        secrets
            .mcp_tokens(&server, url)
            .await
            .unwrap()
            .unwrap()
            .expose(),
        r#"{"access":"t1"}"#
    );
    // Same name, other URL; same URL, other name: separate sign-ins.
    assert!(
        secrets
            .mcp_tokens(&server, other_url)
            .await
            .unwrap()
            .is_none()
    );
    let other = format!("{server}-2");
    assert!(secrets.mcp_tokens(&other, url).await.unwrap().is_none());
    // In the Secret Service, under its own service.
    let looked_up = Command::new("secret-tool")
        .args([
            "lookup",
            "service",
            gantry_store::MCP_TOKENS_SERVICE,
            "username",
            &format!("{server} {url}"),
        ])
        .output()
        .unwrap();
    assert_eq!(looked_up.stdout, br#"{"access":"t1"}"#);
    assert!(secrets.delete_mcp_tokens(&server, url).await.unwrap());
    assert!(!secrets.delete_mcp_tokens(&server, url).await.unwrap());
}
