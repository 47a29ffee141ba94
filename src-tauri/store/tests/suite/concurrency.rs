//! Concurrent writers on one database file.

use std::collections::HashSet;
use std::time::Instant;

use gantry_store::{AuditFilter, Store};
use gantry_tools::{DecisionKind, ObservationKind};

use super::support::{Fixture, record};

const ROWS_PER_WRITER: usize = 1_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_writers_of_a_thousand_audit_rows_each_lose_nothing() {
    let fixture = Fixture::new().await;
    let project = fixture.project.id;
    let path = fixture.store.path().to_path_buf();
    let started = Instant::now();
    // Each writer has a store (a connection pool) of its own, as two processes would.
    let writers: Vec<_> = ["writer_a", "writer_b"]
        .into_iter()
        .map(|tool| {
            let path = path.clone();
            tokio::spawn(async move {
                let store = Store::open(&path).await.unwrap();
                let mut ids = Vec::with_capacity(ROWS_PER_WRITER);
                for n in 0..ROWS_PER_WRITER {
                    let mut row = record(tool, None, DecisionKind::Auto, ObservationKind::Ok);
                    row.result_excerpt = format!("{tool} {n}");
                    ids.push(store.audit().record(project, &row).await.unwrap());
                }
                store.close().await;
                ids
            })
        })
        .collect();
    let mut returned = Vec::new();
    for writer in writers {
        returned.extend(writer.await.unwrap());
    }
    let elapsed = started.elapsed();
    eprintln!(
        "2 writers x {ROWS_PER_WRITER} audit rows: {elapsed:?} ({:.0} rows/s)",
        (2 * ROWS_PER_WRITER) as f64 / elapsed.as_secs_f64()
    );

    let rows = fixture
        .store
        .audit()
        .list(project, &AuditFilter::default())
        .await
        .unwrap();
    assert_eq!(rows.len(), 2 * ROWS_PER_WRITER);
    let stored: HashSet<_> = rows.iter().map(|r| r.id).collect();
    let returned: HashSet<_> = returned.into_iter().collect();
    assert_eq!(
        stored, returned,
        "every returned id is stored, and nothing else"
    );
    for tool in ["writer_a", "writer_b"] {
        let excerpts: HashSet<_> = rows
            .iter()
            .filter(|r| r.tool == tool)
            .map(|r| r.result_excerpt.clone())
            .collect();
        assert_eq!(excerpts.len(), ROWS_PER_WRITER, "{tool}");
    }
    assert_eq!(fixture.store.integrity_check().await.unwrap(), "ok");
}
