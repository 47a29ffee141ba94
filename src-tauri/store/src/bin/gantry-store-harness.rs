//! A helper process for gantry-store's own tests; not for users.
//!
//! - `gantry-store-harness write DB PROJECT SESSION` appends audit rows and messages in a loop
//!   until killed, printing `audit ID` or `message ID` after each commit returned. The crash
//!   test kills it with SIGKILL at random moments and then checks every printed id is stored.
//! - `gantry-store-harness api-key PROVIDER VAR` resolves the provider's key the way the agent
//!   will (keychain, then `$VAR`) and says where it came from, never what it is; on failure it
//!   prints the error to stderr and exits 3. Tests run it with a dead D-Bus address to see the
//!   "keychain unavailable" error in a process of its own.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use gantry_store::{NewMessage, ProjectId, ProviderConfig, Role, SessionId, Store};
use gantry_tools::{AuditRecord, Decider, Decision, DecisionKind, ObservationKind};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let strs: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match strs.as_slice() {
        ["write", db, project, session] => write(db, project, session).await,
        ["api-key", provider, var] => return api_key(provider, var).await,
        _ => Err(
            "usage: gantry-store-harness write DB PROJECT SESSION | api-key PROVIDER VAR".into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("gantry-store-harness: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn write(db: &str, project: &str, session: &str) -> Result<(), Box<dyn std::error::Error>> {
    let project: ProjectId = project.parse()?;
    let session: SessionId = session.parse()?;
    let store = Store::open(db).await?;
    let mut stdout = std::io::stdout().lock();
    for n in 0u64.. {
        if n % 2 == 0 {
            let record = AuditRecord {
                session_id: Some(session.to_string()),
                tool: "crash_writer".into(),
                level: None,
                arguments: serde_json::json!({ "n": n, "padding": "x".repeat(512) }),
                decision: Decision::new(DecisionKind::Auto, Decider::Policy),
                outcome: ObservationKind::Ok,
                duration: Duration::from_millis(n % 100),
                result_excerpt: format!("row {n}"),
                started_at_ms: i64::try_from(n).unwrap_or_default(),
            };
            let id = store.audit().record(project, &record).await?;
            writeln!(stdout, "audit {id}")?;
        } else {
            let message = NewMessage::text(Role::User, format!("message {n}"));
            let stored = store.sessions().append_message(session, &message).await?;
            writeln!(stdout, "message {}", stored.id)?;
        }
        stdout.flush()?;
    }
    Ok(())
}

async fn api_key(provider: &str, var: &str) -> ExitCode {
    let config = ProviderConfig {
        name: provider.to_owned(),
        base_url: "http://127.0.0.1:9/v1".into(),
        model: "test".into(),
        api_key_env: Some(var.to_owned()),
        context_window: None,
        flags: gantry_store::FlagSettings::default(),
    };
    match gantry_store::Secrets::new().api_key_for(&config).await {
        Ok(None) => println!("key: none"),
        Ok(Some(secret)) if std::env::var(var).ok().as_deref() == Some(secret.expose()) => {
            println!("key: from ${var}");
        }
        Ok(Some(secret)) => println!("key: not from ${var} ({} chars)", secret.expose().len()),
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(3);
        }
    }
    ExitCode::SUCCESS
}
