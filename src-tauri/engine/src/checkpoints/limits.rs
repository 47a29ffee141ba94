//! How much checkpoints may keep: a size limit per project and an age limit, chosen in
//! Settings, and the collection that enforces them.
//!
//! Collecting forgets changes older than the age limit, then deletes every blob that no change
//! and no entry of the live stat index names; while the blobs are still over the size limit it
//! forgets the oldest turn and tries again. A blob written in the last
//! [`FRESH_BLOB_GRACE`] is never deleted: a running call may have stored it without having
//! saved the change that names it yet.

use std::collections::HashSet;
use std::time::{Duration, SystemTime};

use gantry_store::{Store, Timestamp};
use serde::{Deserialize, Serialize};

use super::snapshot::Content;
use super::{CheckpointError, Checkpoints};
use crate::error::CommandError;
use crate::settings::{CHECKPOINT_MAX_AGE_DAYS, CHECKPOINT_MAX_MB};

/// The size limit per project unless the user chose another, in MiB.
pub const DEFAULT_MAX_MB: u32 = 1024;
/// The age limit unless the user chose another, in days.
pub const DEFAULT_MAX_AGE_DAYS: u32 = 30;
/// How recent a blob must be to be kept whatever names it.
pub const FRESH_BLOB_GRACE: Duration = Duration::from_secs(600);

/// The limits in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckpointLimits {
    /// The most the blobs of one project may take, in MiB.
    pub max_mb: u32,
    /// How long changes are kept, in days (0: no age limit).
    pub max_age_days: u32,
}

impl Default for CheckpointLimits {
    fn default() -> Self {
        Self {
            max_mb: DEFAULT_MAX_MB,
            max_age_days: DEFAULT_MAX_AGE_DAYS,
        }
    }
}

impl CheckpointLimits {
    /// The size limit in bytes.
    pub fn max_bytes(self) -> u64 {
        u64::from(self.max_mb) * 1024 * 1024
    }

    /// The limits saved in the store's settings (the defaults for what is missing,
    /// unreadable or out of bounds).
    pub async fn load(store: &Store) -> Self {
        Self {
            max_mb: CHECKPOINT_MAX_MB.load(store).await,
            max_age_days: CHECKPOINT_MAX_AGE_DAYS.load(store).await,
        }
    }

    /// Saves the limits for every project.
    pub async fn save(self, store: &Store) -> Result<(), CommandError> {
        CHECKPOINT_MAX_MB.save(store, self.max_mb).await?;
        CHECKPOINT_MAX_AGE_DAYS
            .save(store, self.max_age_days)
            .await?;
        Ok(())
    }
}

/// The checkpoint settings as the Settings dialog shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointSettings {
    /// The size limit per project, in MiB.
    pub max_mb: u32,
    /// The age limit, in days (0: none).
    pub max_age_days: u32,
    /// What the open project's checkpoints take now, in bytes (`None` without a project).
    pub used_bytes: Option<u64>,
}

/// The checkpoint limits to save.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SaveCheckpointSettingsRequest {
    /// The size limit per project, in MiB (at least 1).
    pub max_mb: u32,
    /// The age limit, in days (0: none).
    pub max_age_days: u32,
}

impl SaveCheckpointSettingsRequest {
    /// The limits asked for, or why they can't be (checked together, so that neither is saved
    /// when one is refused).
    pub fn limits(&self) -> Result<CheckpointLimits, CommandError> {
        Ok(CheckpointLimits {
            max_mb: CHECKPOINT_MAX_MB.check(self.max_mb)?,
            max_age_days: CHECKPOINT_MAX_AGE_DAYS.check(self.max_age_days)?,
        })
    }
}

/// What a collection did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Collected {
    /// Changes forgotten (age and size limits).
    pub forgotten: u64,
    /// What the blobs take afterwards, in bytes.
    pub kept_bytes: u64,
}

impl Checkpoints {
    /// Enforces the limits now (see the module docs).
    pub async fn collect_garbage(&self) -> Result<Collected, CheckpointError> {
        let limits = self.limits();
        let index = self.store().checkpoints();
        let mut collected = Collected::default();
        if limits.max_age_days > 0 {
            let age = i64::from(limits.max_age_days) * 86_400_000;
            let before = Timestamp(Timestamp::now().as_millis().saturating_sub(age));
            collected.forgotten += index.prune_before(self.project(), before).await?;
        }
        loop {
            let mut keep: HashSet<String> =
                index.hashes(self.project()).await?.into_iter().collect();
            keep.extend(
                self.index()
                    .values()
                    .filter_map(|entry| match &entry.content {
                        Content::Kept(hash) => Some(hash.to_string()),
                        Content::Unkept => None,
                    }),
            );
            let blobs = self.blobs().clone();
            let kept = tokio::task::spawn_blocking(move || retain_fresh(&blobs, &keep)).await??;
            self.inner
                .usage
                .store(kept, std::sync::atomic::Ordering::Relaxed);
            self.inner
                .counted
                .store(true, std::sync::atomic::Ordering::Relaxed);
            collected.kept_bytes = kept;
            if kept <= limits.max_bytes() {
                break;
            }
            let forgotten = index.prune_oldest_turn(self.project()).await?;
            if forgotten == 0 {
                break;
            }
            collected.forgotten += forgotten;
        }
        Ok(collected)
    }

    /// What opening a project does: forgets the changes past the age limit and, when that
    /// forgot something or the blobs are over the size limit, collects (a sweep of the blobs
    /// otherwise waits for a reason: the next project's baseline reuses what is there).
    pub async fn trim_at_open(&self) -> Result<(), CheckpointError> {
        let limits = self.limits();
        let mut forgotten = 0;
        if limits.max_age_days > 0 {
            let age = i64::from(limits.max_age_days) * 86_400_000;
            let before = Timestamp(Timestamp::now().as_millis().saturating_sub(age));
            forgotten = self
                .store()
                .checkpoints()
                .prune_before(self.project(), before)
                .await?;
        }
        if forgotten > 0 || self.used_bytes().await > limits.max_bytes() {
            self.collect_garbage().await?;
        }
        Ok(())
    }

    /// Forgets every checkpoint of the project and its blobs (the project's data is removed).
    pub async fn forget_all(&self) -> Result<(), CheckpointError> {
        let blobs = self.blobs().clone();
        tokio::task::spawn_blocking(move || blobs.remove_all()).await??;
        Ok(())
    }
}

/// [`super::blobs::BlobStore::retain`], also keeping blobs written in the last
/// [`FRESH_BLOB_GRACE`].
fn retain_fresh(blobs: &super::blobs::BlobStore, keep: &HashSet<String>) -> std::io::Result<u64> {
    let fresh_since = SystemTime::now()
        .checked_sub(FRESH_BLOB_GRACE)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let mut keep = keep.clone();
    for (hash, _) in blobs.list()? {
        if keep.contains(&hash) {
            continue;
        }
        if blobs
            .modified(&hash)
            .is_ok_and(|modified| modified >= fresh_since)
        {
            keep.insert(hash);
        }
    }
    blobs.retain(&keep)
}
