//! The sessions a project's window shows as tabs, remembered across restarts.
//!
//! A project is shown by one window at most, so the tabs are kept per project, in the store's
//! settings table under [`setting_key`]. What is saved is checked against the project's
//! sessions: an id that is not one of them (deleted since, another project's, made up) is
//! dropped, as are repeats; at most [`MAX_TABS`] are kept. The fresh chat (no session yet) is
//! never saved: the window adds it when it has no tab to show.

use std::collections::HashSet;

use gantry_store::{ProjectId, Store};
use serde::{Deserialize, Serialize};

use crate::error::CommandError;

/// The most tabs remembered for one project.
pub const MAX_TABS: usize = 32;

/// The open tabs of a project's window: session ids, in the order the strip shows them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionTabs {
    /// The sessions open as tabs, left to right.
    pub open: Vec<String>,
}

/// The settings key of project `project`'s tabs.
pub fn setting_key(project: ProjectId) -> String {
    format!("open_tabs.{}", project.0)
}

/// The tabs remembered for `project` (those of its sessions that still exist).
pub async fn load(store: &Store, project: ProjectId) -> Result<SessionTabs, CommandError> {
    let saved = store.settings().get(&setting_key(project)).await?;
    // Unreadable (written by a later version, damaged): no tabs rather than a failed window.
    let tabs = saved
        .and_then(|text| serde_json::from_str::<SessionTabs>(&text).ok())
        .unwrap_or_default();
    checked(store, project, tabs).await
}

/// Remembers `tabs` for `project`, as checked (see the module's doc); returns what was kept.
pub async fn save(
    store: &Store,
    project: ProjectId,
    tabs: SessionTabs,
) -> Result<SessionTabs, CommandError> {
    let kept = checked(store, project, tabs).await?;
    let text = serde_json::to_string(&kept).map_err(|error| {
        CommandError::internal(format!("the tabs could not be written: {error}"))
    })?;
    store.settings().set(&setting_key(project), &text).await?;
    Ok(kept)
}

/// `tabs` without ids that are not `project`'s sessions, without repeats, at most [`MAX_TABS`].
async fn checked(
    store: &Store,
    project: ProjectId,
    tabs: SessionTabs,
) -> Result<SessionTabs, CommandError> {
    if tabs.open.is_empty() {
        return Ok(tabs);
    }
    let sessions: HashSet<String> = store
        .sessions()
        .list(project)
        .await?
        .into_iter()
        .map(|session| session.id.to_string())
        .collect();
    let mut seen = HashSet::new();
    let open = tabs
        .open
        .into_iter()
        .filter(|id| sessions.contains(id) && seen.insert(id.clone()))
        .take(MAX_TABS)
        .collect();
    Ok(SessionTabs { open })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn project_with_sessions(
        count: usize,
    ) -> (tempfile::TempDir, Store, ProjectId, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("gantry.db")).await.unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir(&root).unwrap();
        let project = store.projects().open(&root).await.unwrap().id;
        let mut ids = Vec::new();
        for _ in 0..count {
            ids.push(
                store
                    .sessions()
                    .create(project, "s", None)
                    .await
                    .unwrap()
                    .id
                    .to_string(),
            );
        }
        (dir, store, project, ids)
    }

    #[tokio::test]
    async fn tabs_come_back_as_saved_in_their_order() {
        let (_dir, store, project, ids) = project_with_sessions(3).await;
        assert_eq!(load(&store, project).await.unwrap(), SessionTabs::default());
        let tabs = SessionTabs {
            open: vec![ids[2].clone(), ids[0].clone()],
        };
        assert_eq!(save(&store, project, tabs.clone()).await.unwrap(), tabs);
        assert_eq!(load(&store, project).await.unwrap(), tabs);
    }

    #[tokio::test]
    async fn unknown_repeated_and_other_projects_ids_are_dropped() {
        let (_dir, store, project, ids) = project_with_sessions(2).await;
        let other_root = tempfile::tempdir().unwrap();
        let other = store.projects().open(other_root.path()).await.unwrap().id;
        let foreign = store
            .sessions()
            .create(other, "s", None)
            .await
            .unwrap()
            .id
            .to_string();
        let saved = save(
            &store,
            project,
            SessionTabs {
                open: vec![
                    ids[1].clone(),
                    "not-a-session".into(),
                    foreign,
                    ids[1].clone(),
                    ids[0].clone(),
                ],
            },
        )
        .await
        .unwrap();
        assert_eq!(saved.open, [ids[1].clone(), ids[0].clone()]);
    }

    #[tokio::test]
    async fn a_deleted_session_leaves_the_tabs_and_damage_reads_as_none() {
        let (_dir, store, project, ids) = project_with_sessions(2).await;
        save(&store, project, SessionTabs { open: ids.clone() })
            .await
            .unwrap();
        let gone = ids[0].parse().unwrap();
        store.sessions().delete(gone).await.unwrap();
        assert_eq!(load(&store, project).await.unwrap().open, [ids[1].clone()]);

        store
            .settings()
            .set(&setting_key(project), "{not json")
            .await
            .unwrap();
        assert_eq!(load(&store, project).await.unwrap(), SessionTabs::default());
    }

    #[tokio::test]
    async fn at_most_max_tabs_are_kept() {
        let (_dir, store, project, ids) = project_with_sessions(MAX_TABS + 3).await;
        let saved = save(&store, project, SessionTabs { open: ids.clone() })
            .await
            .unwrap();
        assert_eq!(saved.open, ids[..MAX_TABS]);
    }
}
