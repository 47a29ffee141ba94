//! The app's limit on turns running at once as a setting: kept in the store's settings table
//! ([`TURN_LIMIT`]), read at start unless `GANTRY_MAX_TURNS` says otherwise (the
//! environment wins at start), and changed from the Settings dialog, which applies it at once to
//! every project ([`TurnLimit::set_max`]) and saves it for the next start.

use serde::{Deserialize, Serialize};

use gantry_store::Store;

use super::TURN_LIMIT;
use crate::chat::TurnLimit;
use crate::error::CommandError;

/// The turn limit as the Settings dialog shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnLimitSettings {
    /// The most turns that run at once in the whole app; more are queued.
    pub max: u32,
    /// How many turns run now.
    pub running: u32,
    /// The limit `GANTRY_MAX_TURNS` sets, when it is set: it wins over the saved limit at each
    /// start, so a change made here lasts until the app restarts.
    pub from_environment: Option<u32>,
}

/// A new turn limit from the Settings dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SaveTurnLimitRequest {
    /// The most turns that run at once, 1 to 16.
    pub max: u32,
}

/// What `limit` is now; `from_environment` is what `GANTRY_MAX_TURNS` set, if it was set.
pub fn view(limit: &TurnLimit, from_environment: Option<usize>) -> TurnLimitSettings {
    TurnLimitSettings {
        max: to_u32(limit.max()),
        running: to_u32(limit.running()),
        from_environment: from_environment.map(to_u32),
    }
}

/// Saves `request.max` (1 to 16) to `store` and applies it to `limit` at once: a raised limit
/// starts queued turns now, a lowered one lets running turns finish.
pub async fn save(
    store: &Store,
    limit: &TurnLimit,
    from_environment: Option<usize>,
    request: SaveTurnLimitRequest,
) -> Result<TurnLimitSettings, CommandError> {
    let max = usize::try_from(request.max).unwrap_or(usize::MAX);
    let max = TURN_LIMIT.save(store, max).await?;
    limit.set_max(max);
    Ok(view(limit, from_environment))
}

fn to_u32(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::turn_limit::{MAX_MAX_TURNS, MIN_MAX_TURNS};
    use crate::error::ErrorKind;

    async fn store() -> (Store, tempfile::TempDir) {
        let data = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        (store, data)
    }

    #[tokio::test]
    async fn a_saved_limit_applies_at_once_and_is_read_back() {
        let (store, _data) = store().await;
        assert_eq!(TURN_LIMIT.stored(&store).await, None);
        let limit = TurnLimit::new(4);
        let shared = limit.clone();
        let _running = limit.try_start().unwrap();
        let saved = save(&store, &limit, None, SaveTurnLimitRequest { max: 2 })
            .await
            .unwrap();
        assert_eq!(
            saved,
            TurnLimitSettings {
                max: 2,
                running: 1,
                from_environment: None
            }
        );
        assert_eq!(shared.max(), 2, "every clone follows");
        assert_eq!(TURN_LIMIT.stored(&store).await, Some(2));
    }

    #[tokio::test]
    async fn a_limit_out_of_range_is_refused_and_changes_nothing() {
        let (store, _data) = store().await;
        let limit = TurnLimit::new(3);
        for max in [0, 17, u32::MAX] {
            let error = save(&store, &limit, None, SaveTurnLimitRequest { max })
                .await
                .unwrap_err();
            assert_eq!(error.kind, ErrorKind::InvalidInput, "{max}");
            assert_eq!(
                error.message,
                format!("turns running at once: {MIN_MAX_TURNS} to {MAX_MAX_TURNS}")
            );
        }
        assert_eq!(limit.max(), 3);
        assert_eq!(TURN_LIMIT.stored(&store).await, None);
    }

    #[tokio::test]
    async fn the_limit_the_environment_set_is_told_beside_the_one_in_force() {
        let (store, _data) = store().await;
        let limit = TurnLimit::new(6);
        assert_eq!(view(&limit, Some(6)).from_environment, Some(6));
        let saved = save(&store, &limit, Some(6), SaveTurnLimitRequest { max: 3 })
            .await
            .unwrap();
        assert_eq!((saved.max, saved.from_environment), (3, Some(6)));
        assert_eq!(TURN_LIMIT.stored(&store).await, Some(3));
    }

    #[tokio::test]
    async fn a_stored_value_is_clamped_or_ignored() {
        let (store, _data) = store().await;
        for (value, read) in [
            ("8", Some(8)),
            (" 40 ", Some(16)),
            ("0", Some(1)),
            ("many", None),
        ] {
            store.settings().set(TURN_LIMIT.key, value).await.unwrap();
            assert_eq!(TURN_LIMIT.stored(&store).await, read, "{value:?}");
        }
    }
}
