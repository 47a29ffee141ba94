//! Crash safety: writers killed with SIGKILL mid-stream lose nothing they reported committed.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gantry_store::{AuditFilter, AuditId, MessageId};

use super::support::Fixture;

const ROUNDS: usize = 8;
const WRITERS_PER_ROUND: usize = 2;

/// A small xorshift generator: random enough for kill times, no dependency.
struct Jitter(u64);

impl Jitter {
    fn next_millis(&mut self, low: u64, high: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        low + self.0 % (high - low)
    }
}

/// What a writer printed before it died.
#[derive(Default)]
struct Reported {
    audit: Vec<AuditId>,
    messages: Vec<MessageId>,
}

fn spawn_writer(fixture: &Fixture, session: &str) -> (Child, mpsc::Receiver<Reported>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gantry-store-harness"))
        .args([
            "write",
            fixture.store.path().to_str().unwrap(),
            &fixture.project.id.to_string(),
            session,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (done, reported) = mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = Reported::default();
        // Only whole lines count: a line cut by the kill was never fully reported.
        for line in BufReader::new(stdout).split(b'\n') {
            let Ok(line) = line else { break };
            let line = String::from_utf8_lossy(&line);
            match line.split_once(' ') {
                Some(("audit", id)) => seen.audit.push(id.parse().unwrap()),
                Some(("message", id)) => seen.messages.push(id.parse().unwrap()),
                _ => {}
            }
        }
        let _ = done.send(seen);
    });
    (child, reported)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_writers_keep_every_committed_row_and_a_sound_file() {
    let fixture = Fixture::new().await;
    let session = fixture
        .store
        .sessions()
        .create(fixture.project.id, "crash", None)
        .await
        .unwrap();
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("crash test seed {seed}");
    let mut jitter = Jitter(seed);
    let mut reported_audit: HashSet<AuditId> = HashSet::new();
    let mut reported_messages: HashSet<MessageId> = HashSet::new();
    let started = Instant::now();
    for round in 0..ROUNDS {
        let writers: Vec<_> = (0..WRITERS_PER_ROUND)
            .map(|_| spawn_writer(&fixture, &session.id.to_string()))
            .collect();
        for (mut child, reported) in writers {
            tokio::time::sleep(Duration::from_millis(jitter.next_millis(150, 600))).await;
            child.kill().unwrap(); // SIGKILL on Unix
            child.wait().unwrap();
            let seen = reported.recv_timeout(Duration::from_secs(10)).unwrap();
            eprintln!(
                "round {round}: killed a writer after {} audit rows and {} messages",
                seen.audit.len(),
                seen.messages.len()
            );
            reported_audit.extend(seen.audit);
            reported_messages.extend(seen.messages);
        }
        // Between rounds the file must be sound, with nobody writing.
        assert_eq!(
            fixture.store.integrity_check().await.unwrap(),
            "ok",
            "round {round}"
        );
    }
    eprintln!(
        "{ROUNDS} rounds x {WRITERS_PER_ROUND} writers killed in {:?}; {} audit rows and {} messages reported",
        started.elapsed(),
        reported_audit.len(),
        reported_messages.len()
    );
    assert!(
        reported_audit.len() >= ROUNDS,
        "the writers got some rows in before being killed"
    );

    let stored_audit: HashSet<AuditId> = fixture
        .store
        .audit()
        .list(fixture.project.id, &AuditFilter::default())
        .await
        .unwrap()
        .iter()
        .map(|row| row.id)
        .collect();
    let missing: Vec<_> = reported_audit.difference(&stored_audit).collect();
    assert!(missing.is_empty(), "committed audit rows lost: {missing:?}");
    let messages = fixture.store.sessions().messages(session.id).await.unwrap();
    let stored_messages: HashSet<MessageId> = messages.iter().map(|m| m.id).collect();
    let missing: Vec<_> = reported_messages.difference(&stored_messages).collect();
    assert!(missing.is_empty(), "committed messages lost: {missing:?}");
    // Ordinals stay dense: no half-written message took a number.
    let ordinals: Vec<u32> = messages.iter().map(|m| m.ordinal).collect();
    assert_eq!(ordinals, (0..messages.len() as u32).collect::<Vec<_>>());
    assert_eq!(fixture.store.integrity_check().await.unwrap(), "ok");
}
