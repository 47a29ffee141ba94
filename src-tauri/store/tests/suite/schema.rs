//! Opening, migrating, closing and reopening a real database file.

use gantry_store::{FlagSettings, NewMessage, ProviderConfig, Role, Store, StoreError};

use super::support::Fixture;

#[tokio::test]
async fn opening_creates_the_folder_and_migrates_an_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/data/gantry.db");
    let store = Store::open(&path).await.unwrap();
    assert!(path.is_file());
    assert_eq!(store.path(), path);
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    assert!(store.projects().list().await.unwrap().is_empty());
    assert!(store.providers().list().await.unwrap().is_empty());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "the data folder is private");
    }
    // WAL mode leaves its files beside the database once something is written.
    store.projects().open(dir.path()).await.unwrap();
    assert!(dir.path().join("nested/data/gantry.db-wal").exists());
}

#[tokio::test]
async fn everything_survives_close_and_reopen() {
    let fixture = Fixture::new().await;
    let Fixture {
        data,
        folder,
        store,
        project,
    } = fixture;
    let session = store
        .sessions()
        .create(project.id, "first", Some("gpt-test"))
        .await
        .unwrap();
    let config = ProviderConfig {
        name: "reopen".into(),
        base_url: "http://127.0.0.1:1/v1".into(),
        model: "m".into(),
        api_key_env: None,
        context_window: None,
        flags: FlagSettings {
            stream_usage: None,
            replay_reasoning: Some(true),
            text_tool_calls: Some(false),
            images: Some(false),
        },
    };
    store.providers().set(&config).await.unwrap();
    store
        .sessions()
        .switch_model(session.id, Some("reopen"), Some("m-2"))
        .await
        .unwrap();
    store.close().await;

    // Opening again runs the migrations again: they are recorded, so nothing changes.
    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    let reopened = store.projects().find(folder.path()).await.unwrap().unwrap();
    assert_eq!(reopened.id, project.id);
    assert_eq!(
        store
            .sessions()
            .get(session.id)
            .await
            .unwrap()
            .unwrap()
            .title,
        "first"
    );
    assert_eq!(
        store
            .providers()
            .get("reopen")
            .await
            .unwrap()
            .unwrap()
            .config,
        config
    );
    let switched = store.sessions().get(session.id).await.unwrap().unwrap();
    assert_eq!(
        (switched.provider.as_deref(), switched.model.as_deref()),
        (Some("reopen"), Some("m-2"))
    );
    // A provider that refused `stream_options` keeps that.
    assert!(
        store
            .providers()
            .refuse_stream_usage("reopen")
            .await
            .unwrap()
    );
    assert!(
        !store
            .providers()
            .refuse_stream_usage("absent")
            .await
            .unwrap()
    );
    let flags = store
        .providers()
        .get("reopen")
        .await
        .unwrap()
        .unwrap()
        .config
        .flags;
    assert_eq!(flags.stream_usage, Some(false));
    assert_eq!(flags.replay_reasoning, Some(true));
}

#[tokio::test]
async fn foreign_keys_are_enforced() {
    let fixture = Fixture::new().await;
    let missing = gantry_store::ProjectId(fixture.project.id.0 + 1_000);
    let error = fixture
        .store
        .sessions()
        .create(missing, "orphan", None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::NotFound {
                what: "project",
                ..
            }
        ),
        "{error}"
    );
}

#[tokio::test]
async fn a_database_path_in_a_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let error = Store::open(file.join("gantry.db")).await.unwrap_err();
    assert!(matches!(error, StoreError::DataDir { .. }), "{error}");
    assert!(
        error
            .to_string()
            .starts_with("cannot create the data folder")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_first_opens_at_once_all_succeed() {
    // The app and the CLI may both create the database on a first run. Eight at once, five
    // times over: switching a new file to WAL fails at once for all but one ("database is
    // locked"), which opening must ride out.
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gantry.db");
        let opens: Vec<_> = (0..8)
            .map(|_| {
                let path = path.clone();
                tokio::spawn(async move { Store::open(&path).await })
            })
            .collect();
        for open in opens {
            let store = open.await.unwrap().unwrap();
            assert_eq!(store.integrity_check().await.unwrap(), "ok");
        }
    }
}

/// FTS5 keeps a connection's copy of an index's structure until a cursor opens or a write begins
/// on it; the check must not compare another writer's index with an old copy (it once reported
/// "malformed inverted index" for a sound file after other processes had written).
#[tokio::test]
async fn the_check_sees_an_index_another_connection_rewrote() {
    let fixture = Fixture::new().await;
    let session = fixture
        .store
        .sessions()
        .create(fixture.project.id, "searched", None)
        .await
        .unwrap();
    let first = NewMessage::text(Role::User, "the first words");
    fixture
        .store
        .sessions()
        .append_message(session.id, &first)
        .await
        .unwrap();
    // Every pooled connection reads the index's structure as it is now.
    for _ in 0..4 {
        assert_eq!(fixture.store.integrity_check().await.unwrap(), "ok");
    }
    // Another pool (as another process would) writes enough for FTS5 to merge segments.
    let other = Store::open(fixture.store.path()).await.unwrap();
    for n in 0..120 {
        let message = NewMessage::text(Role::User, format!("message {n} about crates {n}"));
        other
            .sessions()
            .append_message(session.id, &message)
            .await
            .unwrap();
    }
    other.close().await;
    assert_eq!(fixture.store.integrity_check().await.unwrap(), "ok");
    let hits = fixture
        .store
        .sessions()
        .search(fixture.project.id, "crates 119", 5)
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
}

/// The same check still finds an index that does not match its rows.
#[tokio::test]
async fn the_check_finds_an_index_that_lies() {
    use sqlx::Connection;

    let fixture = Fixture::new().await;
    let session = fixture
        .store
        .sessions()
        .create(fixture.project.id, "tampered", None)
        .await
        .unwrap();
    let stored = fixture
        .store
        .sessions()
        .append_message(session.id, &NewMessage::text(Role::User, "honest words"))
        .await
        .unwrap();
    assert_eq!(fixture.store.integrity_check().await.unwrap(), "ok");
    // Change the indexed copy of the text behind FTS5's back: the index no longer matches it.
    let url = format!("sqlite://{}", fixture.store.path().display());
    let mut raw = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("UPDATE messages_fts_content SET c0 = 'other words' WHERE id = ?1")
        .bind(stored.id.0)
        .execute(&mut raw)
        .await
        .unwrap();
    raw.close().await.unwrap();
    let report = fixture.store.integrity_check().await.unwrap();
    assert!(
        report.contains("malformed inverted index for FTS5 table main.messages_fts"),
        "{report}"
    );
}

/// A database whose tabs were remembered under the old key keeps them under the new one.
#[tokio::test]
async fn remembered_tabs_move_to_their_new_key() {
    use sqlx::Connection;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gantry.db");
    let store = Store::open(&path).await.unwrap();
    let tabs = r#"{"open":["1","2"]}"#;
    store.settings().set("session_tabs.3", tabs).await.unwrap();
    store.settings().set("session_tabsx", "kept").await.unwrap();
    store.close().await;
    // Forget that the key's migration ran: the next open runs it, as on a database from before.
    let url = format!("sqlite://{}", path.display());
    let mut raw = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("DELETE FROM _sqlx_migrations WHERE description = 'open tabs key'")
        .execute(&mut raw)
        .await
        .unwrap();
    raw.close().await.unwrap();

    let store = Store::open(&path).await.unwrap();
    let settings = store.settings();
    assert_eq!(
        settings.get("open_tabs.3").await.unwrap().as_deref(),
        Some(tabs)
    );
    assert_eq!(settings.get("session_tabs.3").await.unwrap(), None);
    assert_eq!(
        settings.get("session_tabsx").await.unwrap().as_deref(),
        Some("kept")
    );
}
