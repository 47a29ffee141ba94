//! App-wide settings by key: small text values the user chose (which provider is active, the
//! window's layout), kept beside everything else Gantry remembers. Never a secret.

use sqlx::sqlite::SqlitePool;

use crate::error::{Result, StoreError};
use crate::time::Timestamp;

/// The longest key accepted, in bytes.
const MAX_KEY_BYTES: usize = 128;
/// The longest value accepted, in bytes.
const MAX_VALUE_BYTES: usize = 64 * 1024;

/// The settings table. Get one from [`crate::Store::settings`].
#[derive(Debug, Clone, Copy)]
pub struct Settings<'s> {
    pool: &'s SqlitePool,
}

impl<'s> Settings<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// The value of `key`, if set.
    pub async fn get(&self, key: &str) -> Result<Option<String>> {
        Ok(
            sqlx::query_scalar("SELECT value FROM settings WHERE key = ?1")
                .bind(key)
                .fetch_optional(self.pool)
                .await?,
        )
    }

    /// Sets `key` to `value`.
    pub async fn set(&self, key: &str, value: &str) -> Result<()> {
        if key.is_empty() || key.len() > MAX_KEY_BYTES {
            return Err(StoreError::invalid(
                "setting key",
                format!("a key must be 1 to {MAX_KEY_BYTES} bytes"),
            ));
        }
        if value.len() > MAX_VALUE_BYTES {
            return Err(StoreError::invalid(
                "setting value",
                format!("the value of '{key}' is over {MAX_VALUE_BYTES} bytes"),
            ));
        }
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(key)
        .bind(value)
        .bind(Timestamp::now().as_millis())
        .execute(self.pool)
        .await?;
        Ok(())
    }

    /// Removes `key`; true when it was set.
    pub async fn remove(&self, key: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM settings WHERE key = ?1")
            .bind(key)
            .execute(self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;

    #[tokio::test]
    async fn settings_are_kept_replaced_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gantry.db");
        let store = Store::open(&path).await.unwrap();
        let settings = store.settings();
        assert_eq!(settings.get("provider.active").await.unwrap(), None);
        settings.set("provider.active", "openai").await.unwrap();
        settings.set("provider.active", "ollama").await.unwrap();
        assert_eq!(
            settings.get("provider.active").await.unwrap().as_deref(),
            Some("ollama")
        );
        assert!(settings.set("", "x").await.is_err());
        assert!(settings.set("big", &"x".repeat(70_000)).await.is_err());
        drop(store);

        // Kept across openings of the file.
        let store = Store::open(&path).await.unwrap();
        assert_eq!(
            store
                .settings()
                .get("provider.active")
                .await
                .unwrap()
                .as_deref(),
            Some("ollama")
        );
        assert!(store.settings().remove("provider.active").await.unwrap());
        assert!(!store.settings().remove("provider.active").await.unwrap());
        assert_eq!(store.settings().get("provider.active").await.unwrap(), None);
    }
}
