//! The models a provider offers, as its `/models` endpoint lists them.
//!
//! Listing is also the quickest test of a provider's address and key, so a failure keeps the
//! provider's own status and message, and a refused connection says that nothing listens there.

use std::time::Duration;

use reqwest::header::ACCEPT;
use serde_json::Value;

use super::Provider;
use super::error_body::error_message;
use crate::error::ProviderError;
use crate::local::ServerKind;

impl Provider {
    /// The model ids the provider lists at `{base_url}/models` (OpenAI's `{"data": [{"id"}]}`
    /// shape; Ollama, LM Studio, llama.cpp and vLLM answer it too), sorted. A quick way to test
    /// the connection and the key: a failure is the provider's own status and message.
    pub async fn fetch_models(&self, timeout: Duration) -> Result<Vec<String>, ProviderError> {
        let url = format!("{}/models", self.config.base_url.trim_end_matches('/'));
        let mut builder = self
            .http
            .get(&url)
            .header(ACCEPT, "application/json")
            .timeout(timeout);
        if let Some(key) = &self.key {
            builder = builder.bearer_auth(key.expose());
            if self.config.server == ServerKind::Anthropic {
                // Anthropic's own endpoints (the model list) authenticate this way.
                builder = builder
                    .header("x-api-key", key.expose())
                    .header("anthropic-version", "2023-06-01");
            }
        }
        let response = builder.send().await.map_err(|error| {
            if error.is_timeout() {
                ProviderError::Timeout(timeout)
            } else {
                self.connect_error(&url, &error)
            }
        })?;
        let status = response.status();
        let body = response
            .text()
            .await
            .map_err(|error| self.connect_error(&url, &error))?;
        if !status.is_success() {
            let (message, code) = error_message(&body, status);
            return Err(ProviderError::Status {
                provider: self.config.name.clone(),
                status: status.as_u16(),
                message,
                code,
                retry_after: None,
            });
        }
        let listed: Value = serde_json::from_str(&body).map_err(|error| {
            ProviderError::Unexpected(format!("{url} did not answer a model list: {error}"))
        })?;
        let mut ids: Vec<String> = listed
            .get("data")
            .or_else(|| listed.get("models"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|model| {
                model
                    .get("id")
                    .or_else(|| model.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .collect();
        ids.sort();
        ids.dedup();
        Ok(ids)
    }
}
