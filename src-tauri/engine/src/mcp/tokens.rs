//! Remote MCP servers' sign-in tokens in the OS keychain.
//!
//! gantry-mcp runs the sign-in and keeps tokens through its [`TokenVault`] seam; this is the
//! vault both front ends use: the store's [`Secrets`], one keychain entry per server name and
//! URL. Tokens never touch the database, a file or a log.

use async_trait::async_trait;
use gantry_mcp::{TokenKey, TokenVault};
use gantry_store::{Secret, Secrets};
use zeroize::Zeroizing;

/// Sign-in tokens in the OS keychain.
#[derive(Debug, Clone, Default)]
pub struct KeychainVault {
    secrets: Secrets,
}

impl KeychainVault {
    /// The OS keychain.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl TokenVault for KeychainVault {
    async fn load(&self, key: &TokenKey) -> Result<Option<Zeroizing<String>>, String> {
        self.secrets
            .mcp_tokens(&key.server, &key.url)
            .await
            .map(|found| found.map(|secret| Zeroizing::new(secret.expose().to_owned())))
            .map_err(|error| error.to_string())
    }

    async fn save(&self, key: &TokenKey, value: Zeroizing<String>) -> Result<(), String> {
        self.secrets
            .set_mcp_tokens(&key.server, &key.url, Secret::new(value.as_str()))
            .await
            .map_err(|error| error.to_string())
    }

    async fn clear(&self, key: &TokenKey) -> Result<bool, String> {
        self.secrets
            .delete_mcp_tokens(&key.server, &key.url)
            .await
            .map_err(|error| error.to_string())
    }
}
