//! Listing a provider's models: the connection test of the settings panel.

use std::time::Duration;

use gantry_agent::{ApiKey, Provider, ProviderConfig, ProviderError, ProviderOptions};
use gantry_scripted_provider::{Script, ScriptedProvider};

fn provider(base_url: &str, key: Option<&str>) -> Provider {
    let config = ProviderConfig::new("scripted", base_url, "m", None, 8_192);
    Provider::new(config, key.map(ApiKey::new), ProviderOptions::default()).unwrap()
}

#[tokio::test]
async fn the_models_a_provider_lists_come_back_sorted_with_the_key_sent() {
    let server = ScriptedProvider::start(Script::new([]).models(["zeta-2", "alpha-1", "alpha-1"]))
        .await
        .unwrap();
    let models = provider(&server.base_url(), Some("sk-list"))
        .fetch_models(Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(models, ["alpha-1", "zeta-2"]);
    let request = server.requests().pop().unwrap();
    assert_eq!(request.header("authorization"), Some("Bearer sk-list"));
}

#[tokio::test]
async fn a_failed_listing_says_what_the_server_or_the_network_said() {
    let server = ScriptedProvider::start(Script::new([])).await.unwrap();
    // A base URL without `/v1`: the server answers 404 for `/models`.
    let wrong = server.base_url().trim_end_matches("/v1").to_owned() + "/nope";
    let error = provider(&wrong, None)
        .fetch_models(Duration::from_secs(5))
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProviderError::Status { status: 404, .. }),
        "{error:?}"
    );

    // Nothing listens on the port of a server that was shut down.
    let base = server.base_url();
    server.shutdown().await.unwrap();
    let error = provider(&base, None)
        .fetch_models(Duration::from_secs(5))
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProviderError::NotListening { local: true, .. }),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.contains("nothing is listening at http://127.0.0.1:"),
        "{text}"
    );
    assert!(
        !text.contains("os error") && !text.contains("tcp connect"),
        "{text}"
    );
}
