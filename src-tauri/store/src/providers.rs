//! Model providers: where to send requests and which model to ask. Never the key.
//!
//! The key lives in the OS keychain ([`crate::secrets`]); a row only says which keychain entry
//! holds it and which environment variable to read when the keychain is unavailable.

use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::sqlite::{SqlitePool, SqliteRow};

use crate::codec::to_u32;
use crate::error::{Result, StoreError};
use crate::secrets::KeyEntry;
use crate::time::Timestamp;

/// What the user sets for a provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    /// The provider's name (`openai`, `local`, ...): 1 to 64 letters, digits, `.`, `_` or `-`.
    /// It is also the keychain account of its key.
    pub name: String,
    /// The OpenAI-compatible API's base URL (`https://api.openai.com/v1`).
    pub base_url: String,
    /// The model to ask.
    pub model: String,
    /// The environment variable that holds the key when the keychain is unavailable
    /// (`OPENAI_API_KEY`).
    pub api_key_env: Option<String>,
    /// The model's context window in tokens, when known.
    pub context_window: Option<u32>,
    /// The wire flags set for it; unset ones follow its preset or kind of server.
    #[serde(default)]
    pub flags: FlagSettings,
}

/// A provider's wire flags as the user set them; `None` leaves one to the preset (or to what
/// the provider's URL suggests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlagSettings {
    /// Ask for token usage in the stream (`stream_options`).
    pub stream_usage: Option<bool>,
    /// Send reasoning back on assistant messages with tool calls.
    pub replay_reasoning: Option<bool>,
    /// Recognise tool calls written as text.
    pub text_tool_calls: Option<bool>,
    /// The model accepts images.
    #[serde(default)]
    pub images: Option<bool>,
}

impl ProviderConfig {
    /// The keychain entry that holds this provider's key.
    pub fn key_entry(&self) -> KeyEntry {
        KeyEntry::for_provider(&self.name)
    }

    /// The conventional variable for a provider's key: `openai` → `OPENAI_API_KEY`.
    pub fn default_api_key_env(name: &str) -> String {
        let mut var: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        if var.starts_with(|c: char| c.is_ascii_digit()) {
            var.insert(0, '_');
        }
        var.push_str("_API_KEY");
        var
    }

    /// Checks every field; the error names the first that doesn't fit.
    pub fn validate(&self) -> Result<()> {
        validate_name(&self.name)?;
        let url = self.base_url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://"))
            || url.len() <= "https://".len()
            || url.chars().any(char::is_whitespace)
        {
            return Err(StoreError::invalid(
                "base URL",
                format!("'{}' is not an http(s) URL", self.base_url),
            ));
        }
        if self.model.trim().is_empty() {
            return Err(StoreError::invalid("model", "it is empty"));
        }
        if let Some(var) = &self.api_key_env {
            let mut chars = var.chars();
            let valid = chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(StoreError::invalid(
                    "API key variable",
                    format!("'{var}' is not an environment variable name"),
                ));
            }
        }
        if self.context_window == Some(0) {
            return Err(StoreError::invalid("context window", "it is zero"));
        }
        Ok(())
    }
}

/// Checks a provider name: 1 to 64 of `[A-Za-z0-9._-]`.
pub fn validate_name(name: &str) -> Result<()> {
    let valid = (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if valid {
        Ok(())
    } else {
        Err(StoreError::invalid(
            "provider name",
            format!("'{name}': use 1 to 64 letters, digits, '.', '_' or '-'"),
        ))
    }
}

/// A stored provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Provider {
    /// What the user set.
    #[serde(flatten)]
    pub config: ProviderConfig,
    /// Where its key is (or would be) in the keychain.
    pub key_entry: KeyEntry,
    /// When it was first set.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

const COLUMNS: &str = "name, base_url, model, api_key_env, context_window, keychain_service, \
                       keychain_account, created_at, updated_at, stream_usage, replay_reasoning, \
                       text_tool_calls, images";

fn from_row(row: &SqliteRow) -> Result<Provider> {
    let context_window: Option<i64> = row.try_get("context_window")?;
    let flag = |column: &str| -> Result<Option<bool>> {
        Ok(row
            .try_get::<Option<i64>, _>(column)?
            .map(|value| value != 0))
    };
    Ok(Provider {
        config: ProviderConfig {
            name: row.try_get("name")?,
            base_url: row.try_get("base_url")?,
            model: row.try_get("model")?,
            api_key_env: row.try_get("api_key_env")?,
            context_window: context_window
                .map(|n| to_u32("context window", n))
                .transpose()?,
            flags: FlagSettings {
                stream_usage: flag("stream_usage")?,
                replay_reasoning: flag("replay_reasoning")?,
                text_tool_calls: flag("text_tool_calls")?,
                images: flag("images")?,
            },
        },
        key_entry: KeyEntry {
            service: row.try_get("keychain_service")?,
            account: row.try_get("keychain_account")?,
        },
        created_at: Timestamp(row.try_get("created_at")?),
        updated_at: Timestamp(row.try_get("updated_at")?),
    })
}

/// The providers table. Get one from [`crate::Store::providers`].
#[derive(Debug, Clone, Copy)]
pub struct Providers<'s> {
    pool: &'s SqlitePool,
}

impl<'s> Providers<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// Adds a provider or replaces its settings.
    pub async fn set(&self, config: &ProviderConfig) -> Result<Provider> {
        config.validate()?;
        let entry = config.key_entry();
        let row = sqlx::query(&format!(
            "INSERT INTO providers ({COLUMNS})
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10, ?11, ?12)
             ON CONFLICT (name) DO UPDATE SET
                 base_url = excluded.base_url, model = excluded.model,
                 api_key_env = excluded.api_key_env, context_window = excluded.context_window,
                 keychain_service = excluded.keychain_service,
                 keychain_account = excluded.keychain_account, updated_at = excluded.updated_at,
                 stream_usage = excluded.stream_usage,
                 replay_reasoning = excluded.replay_reasoning,
                 text_tool_calls = excluded.text_tool_calls,
                 images = excluded.images
             RETURNING {COLUMNS}"
        ))
        .bind(&config.name)
        .bind(config.base_url.trim())
        .bind(config.model.trim())
        .bind(&config.api_key_env)
        .bind(config.context_window)
        .bind(&entry.service)
        .bind(&entry.account)
        .bind(Timestamp::now().as_millis())
        .bind(config.flags.stream_usage)
        .bind(config.flags.replay_reasoning)
        .bind(config.flags.text_tool_calls)
        .bind(config.flags.images)
        .fetch_one(self.pool)
        .await?;
        from_row(&row)
    }

    /// Records that provider `name` refuses `stream_options` (its `stream_usage` flag off);
    /// false when no such provider is saved.
    pub async fn refuse_stream_usage(&self, name: &str) -> Result<bool> {
        let done =
            sqlx::query("UPDATE providers SET stream_usage = 0, updated_at = ?2 WHERE name = ?1")
                .bind(name)
                .bind(Timestamp::now().as_millis())
                .execute(self.pool)
                .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The provider with this name.
    pub async fn get(&self, name: &str) -> Result<Option<Provider>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM providers WHERE name = ?1"))
            .bind(name)
            .fetch_optional(self.pool)
            .await?;
        row.as_ref().map(from_row).transpose()
    }

    /// Every provider, by name.
    pub async fn list(&self) -> Result<Vec<Provider>> {
        let rows = sqlx::query(&format!("SELECT {COLUMNS} FROM providers ORDER BY name"))
            .fetch_all(self.pool)
            .await?;
        rows.iter().map(from_row).collect()
    }

    /// Forgets a provider's settings (its keychain entry is the caller's to delete, through
    /// [`crate::Secrets::delete`]). True when it existed.
    pub async fn remove(&self, name: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM providers WHERE name = ?1")
            .bind(name)
            .execute(self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ProviderConfig {
        ProviderConfig {
            name: "openai".into(),
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-4.1".into(),
            api_key_env: Some("OPENAI_API_KEY".into()),
            context_window: Some(128_000),
            flags: FlagSettings::default(),
        }
    }

    #[test]
    fn default_variable_names_follow_the_convention() {
        assert_eq!(
            ProviderConfig::default_api_key_env("openai"),
            "OPENAI_API_KEY"
        );
        assert_eq!(
            ProviderConfig::default_api_key_env("my-local.llm"),
            "MY_LOCAL_LLM_API_KEY"
        );
        assert_eq!(ProviderConfig::default_api_key_env("42"), "_42_API_KEY");
    }

    #[test]
    fn validation_names_the_bad_field() {
        assert!(config().validate().is_ok());
        let cases = [
            (
                ProviderConfig {
                    name: String::new(),
                    ..config()
                },
                "provider name",
            ),
            (
                ProviderConfig {
                    name: "a b".into(),
                    ..config()
                },
                "provider name",
            ),
            (
                ProviderConfig {
                    base_url: "ftp://x".into(),
                    ..config()
                },
                "base URL",
            ),
            (
                ProviderConfig {
                    base_url: "https://".into(),
                    ..config()
                },
                "base URL",
            ),
            (
                ProviderConfig {
                    model: " ".into(),
                    ..config()
                },
                "model",
            ),
            (
                ProviderConfig {
                    api_key_env: Some("1KEY".into()),
                    ..config()
                },
                "API key variable",
            ),
            (
                ProviderConfig {
                    context_window: Some(0),
                    ..config()
                },
                "context window",
            ),
        ];
        for (bad, field) in cases {
            let error = bad.validate().unwrap_err().to_string();
            assert!(error.starts_with(&format!("invalid {field}")), "{error}");
        }
    }
}
