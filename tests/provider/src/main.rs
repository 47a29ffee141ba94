//! `gantry-scripted-provider`: the scripted OpenAI-compatible provider as a process, for
//! end-to-end tests of the desktop app.
//!
//! Prints its base URL (`http://127.0.0.1:PORT/v1`) on the first stdout line, then serves the
//! script until killed (SIGINT or SIGTERM end it cleanly). See the library docs for the script
//! format and the `/__scripted/` admin endpoints.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Parser;
use gantry_scripted_provider::{RecordedRequest, Script, ScriptedProvider};
use tokio::io::AsyncWriteExt as _;
use tokio::sync::mpsc;

/// Serve a scripted OpenAI-compatible Chat Completions API on 127.0.0.1.
#[derive(Debug, Parser)]
#[command(name = "gantry-scripted-provider", version)]
struct Args {
    /// The script (JSON; see the crate docs).
    #[arg(long)]
    script: PathBuf,
    /// Port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Append every received request to this file as a JSON line.
    #[arg(long)]
    record: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();

    let text = tokio::fs::read_to_string(&args.script)
        .await
        .with_context(|| format!("reading script {}", args.script.display()))?;
    let script = Script::from_json(&text)
        .with_context(|| format!("loading script {}", args.script.display()))?;
    let provider = ScriptedProvider::start_on_port(script, args.port).await?;

    let recorder = match &args.record {
        Some(path) => {
            let file = tokio::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .await
                .with_context(|| format!("opening record file {}", path.display()))?;
            Some(tokio::spawn(record(provider.subscribe(), file)))
        }
        None => None,
    };

    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", provider.base_url()).context("writing the base URL")?;
    stdout.flush().context("flushing stdout")?;
    drop(stdout);

    wait_for_termination().await?;
    provider.shutdown().await?;
    if let Some(recorder) = recorder {
        recorder.await.context("record writer task")??;
    }
    Ok(())
}

/// Writes each request as one JSON line, flushing as it goes so a killed process loses nothing.
async fn record(
    mut requests: mpsc::UnboundedReceiver<RecordedRequest>,
    mut file: tokio::fs::File,
) -> anyhow::Result<()> {
    while let Some(request) = requests.recv().await {
        let mut line = serde_json::to_vec(&request).context("serialising a request")?;
        line.push(b'\n');
        file.write_all(&line)
            .await
            .context("writing the record file")?;
        file.flush().await.context("flushing the record file")?;
    }
    Ok(())
}

#[cfg(unix)]
async fn wait_for_termination() -> anyhow::Result<()> {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("installing the SIGTERM handler")?;
    tokio::select! {
        result = tokio::signal::ctrl_c() => result.context("waiting for SIGINT")?,
        _ = terminate.recv() => {}
    }
    Ok(())
}

#[cfg(not(unix))]
async fn wait_for_termination() -> anyhow::Result<()> {
    tokio::signal::ctrl_c().await.context("waiting for Ctrl-C")
}
