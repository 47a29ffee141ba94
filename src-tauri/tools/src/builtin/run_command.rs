//! run_command: the model runs a shell command in the project (DANGEROUS).
//!
//! A shell command can do anything the user can, so this tool is off until the user enables it,
//! asks before every call, and can be allowed for the session only per program and subcommand
//! ([`crate::command_scope()`]: approving `git status` never lets `git push` or
//! `git status; rm -rf ~` through; a command the parser does not understand, or with an option
//! that may do more than its key shows, always asks). The
//! approver sees the command and the project-relative working directory.
//!
//! # How a command runs
//!
//! - `/bin/sh -c COMMAND` (by absolute path, so a `sh` planted in the project or on `PATH`
//!   does not stand in for the shell), in the confined `workdir`, which must be a directory.
//! - In the OS sandbox ([`crate::CommandSandbox`], bubblewrap through [`gantry_sandbox`]): the
//!   command and everything it starts write only in the project (not its `.git/hooks`,
//!   `.git/config`, `.git/info`), the session's private temporary folder (`TMPDIR=/tmp`
//!   inside, removed with the session) and the folders the user made writable for the
//!   project; the user's secret stores and Gantry's own folders are hidden, the session bus and
//!   other services' sockets unreachable, and the network off unless the project's switch is
//!   on. When this system has no sandbox, the command runs without one, but the gate makes
//!   every call ask (Auto included) and only "Allow once" runs it; the observation then starts
//!   with `[not sandboxed] <why>`. The observation's metadata says which it was.
//! - In a process group of its own ([`ProcessGroup`]); every way the call ends kills that
//!   group, so no process the command started outlives the call (sandboxed, the group's
//!   leader is bubblewrap, whose death ends every process inside, `setsid` ones included;
//!   without a sandbox a process that leaves the group on purpose with `setsid` survives).
//! - stdin is `/dev/null`: a command that reads input gets end-of-file at once instead of
//!   hanging until the timeout.
//! - The environment is Gantry's own minus secrets ([`crate::secret_env`]): variables named
//!   like secrets (`*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*_DSN`, `*_AUTH`, `*JWT*`,
//!   `*WEBHOOK*`, ... in any case), variables whose value is a credential (a URL with a
//!   password or a token, a webhook URL, a JWT, auth JSON, a private key), every `GANTRY_*`
//!   variable and every variable the engine registered as a provider's key variable are
//!   removed, and `DBUS_SESSION_BUS_ADDRESS` is set to `disabled:` so that keyring tools do not
//!   reach the desktop keyring where Gantry keeps its keys. The project's pass list
//!   ([`crate::ProjectRoot::env_pass`]) lets variables through on purpose (a test suite's
//!   `DATABASE_URL`), except Gantry's own. Everything else (`PATH`, `HOME`, `LANG`,
//!   `CARGO_HOME`, virtualenvs, ...) is kept so builds and test runners work as they do in the
//!   user's terminal. Nothing else is added (no `TERM`, `CI` or colour settings): the
//!   command's stdout is a pipe, which tools already detect.
//! - stdout and stderr are one pipe (both descriptors are the same write end), so the output
//!   is merged in exactly the order the kernel saw the writes.
//!
//! # What the model reads
//!
//! ```text
//! [exit 0 in 0.3s]
//! Compiling demo v0.1.0
//! error: ...
//! ```
//!
//! The header is `[exit {code} in {secs}s]` (seconds with one decimal, measured from the spawn
//! to the shell's exit), or `[exit signal {n} in {secs}s]` when the shell itself was killed by
//! signal `n` (a command killed by a signal under a shell that keeps running shows the shell's
//! `128 + n` instead). The output follows on the next line, exactly as written (invalid UTF-8
//! replaced by `U+FFFD`, trailing newline kept); with no output the header stands alone. Any
//! exit code is an ok observation: the command ran, and a failing test run is information for
//! the model, not a tool failure. Output over [`MAX_OUTPUT_CHARS`] characters keeps its first
//! and last halves with `... [{n} characters cut] ...` between (the same format as
//! [`crate::text::truncate_middle`]); memory stays bounded while streaming, so a command that
//! prints a gigabyte costs a gigabyte of reading, not of memory.
//!
//! On timeout the observation is an error: `[timeout after {t}s]` followed by the output so
//! far. The command first gets `SIGTERM` (sandboxed: its process group inside the sandbox,
//! since bubblewrap does not pass signals on), so test runners and build tools can print their
//! summary and clean up, then `SIGKILL` after [`TERM_GRACE`] if anything is left. Cancellation
//! (the turn was stopped) kills the group with `SIGKILL` at once, from `Drop`, because the
//! dispatcher cancels by dropping the call.
//!
//! # Background processes
//!
//! `sleep 100 &` keeps the output pipe open after the shell exits; waiting for end-of-file
//! would stall every such call until the timeout. So once the shell has exited the tool keeps
//! reading for [`DRAIN_GRACE`] (enough for output already in flight), then returns and kills
//! the group, background jobs included. A long-running server therefore does not survive a
//! call; the model should run it in the foreground with a timeout, or the user runs it.

use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::process::Command;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use crate::command_scope::command_scope;
use gantry_sandbox::signal_inside;

use crate::process::{ProcessGroup, Signal};
use crate::sandboxing::SandboxState;
use crate::secret_env::scrubbed_environment_passing;
use crate::{
    ApprovalScope, Preview, ResolvedPath, ToolContext, ToolError, ToolOutput, ToolResult, tool,
};

/// The shell every command runs under.
pub const SHELL: &str = "/bin/sh";
/// The timeout when the model gives none, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;
/// The longest timeout the model may ask for, in seconds.
pub const MAX_TIMEOUT_SECS: u64 = 600;
/// Output longer than this many characters is cut in the middle.
pub const MAX_OUTPUT_CHARS: usize = 10_000;
/// How long output is still read after the shell exited, for background jobs' last words.
pub const DRAIN_GRACE: Duration = Duration::from_millis(200);
/// How long a timed-out command has between `SIGTERM` and `SIGKILL`.
pub const TERM_GRACE: Duration = Duration::from_secs(1);
/// How long, after `SIGKILL`, the tool waits for the shell's exit and the last output.
const KILL_WAIT: Duration = Duration::from_millis(500);
/// Bytes read from the pipe at a time.
const READ_CHUNK: usize = 64 * 1024;

fn dot() -> String {
    ".".to_owned()
}

fn default_timeout() -> u64 {
    DEFAULT_TIMEOUT_SECS
}

/// Arguments of run_command.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RunCommandArgs {
    /// The command line, run by `sh -c` (POSIX sh: pipes, `&&`, redirections, `$(...)`).
    pub command: String,
    /// Directory to run in, relative to the project root.
    #[serde(default = "dot")]
    pub workdir: String,
    /// Seconds before the command is stopped (1 to 600).
    #[serde(default = "default_timeout")]
    #[schemars(range(min = 1, max = MAX_TIMEOUT_SECS))]
    pub timeout: u64,
}

/// Run a shell command in the project (`sh -c`, stdin closed) and return `[exit CODE in
/// SECSs]` followed by its stdout and stderr merged. Long output keeps its beginning and end;
/// background processes are stopped when the command exits.
#[tool(
    level = dangerous,
    scope = run_command_scope,
    preview = run_command_preview,
    sandboxed
)]
pub async fn run_command(ctx: &ToolContext, args: RunCommandArgs) -> ToolResult {
    if args.command.trim().is_empty() {
        return Err(ToolError::new("command is empty"));
    }
    if args.command.contains('\0') {
        return Err(ToolError::new("command contains a NUL byte"));
    }
    if !(1..=MAX_TIMEOUT_SECS).contains(&args.timeout) {
        return Err(ToolError::new(format!(
            "timeout must be from 1 to {MAX_TIMEOUT_SECS} seconds, got {}",
            args.timeout
        )));
    }
    let workdir = resolve_workdir(ctx, &args.workdir)?;
    let timeout = Duration::from_secs(args.timeout);

    let (sender, receiver) =
        pipe::pipe().map_err(|error| ToolError::new(format!("cannot create a pipe: {error}")))?;
    let stdout = sender
        .into_blocking_fd()
        .map_err(|error| ToolError::new(format!("cannot create a pipe: {error}")))?;
    let stderr = stdout
        .try_clone()
        .map_err(|error| ToolError::new(format!("cannot create a pipe: {error}")))?;
    let env = scrubbed_environment_passing(&ctx.project().env_pass());
    let started = Instant::now();
    let (group, state) = match ctx.sandbox().sandbox() {
        Ok(sandbox) => {
            let command = ctx
                .session_temp()
                .with(|temp| {
                    let policy = ctx.sandbox().policy(ctx.root(), temp);
                    sandbox.command(
                        &policy,
                        SHELL,
                        ["-c", args.command.as_str()],
                        env,
                        workdir.path(),
                    )
                })
                .map_err(|error| {
                    ToolError::new(format!(
                        "cannot create the session's temporary folder: {error}"
                    ))
                })?
                .map_err(|error| ToolError::new(format!("cannot sandbox the command: {error}")))?;
            let group = command
                .spawn_with(move |command| {
                    command.stdin(Stdio::null()).stdout(stdout).stderr(stderr);
                    ProcessGroup::spawn(command)
                })
                .map_err(|error| ToolError::new(format!("cannot start the sandbox: {error}")))?;
            let state = SandboxState::Sandboxed {
                network: ctx.sandbox().settings().network,
            };
            (group, state)
        }
        Err(why) => {
            let mut command = Command::new(SHELL);
            command
                .arg("-c")
                .arg(&args.command)
                .current_dir(workdir.path())
                .env_clear()
                .envs(env)
                .stdin(Stdio::null())
                .stdout(stdout)
                .stderr(stderr);
            let group = ProcessGroup::spawn(&mut command)
                .map_err(|error| ToolError::new(format!("cannot start {SHELL}: {error}")))?;
            // The command holds our copies of the pipe's write end; close them, or
            // end-of-file would never come.
            drop(command);
            (group, SandboxState::Unsandboxed { why })
        }
    };
    let sandboxed = matches!(state, SandboxState::Sandboxed { .. });

    let mut run = Running {
        group,
        reader: receiver,
        buffer: vec![0; READ_CHUNK],
        output: OutputBuffer::new(MAX_OUTPUT_CHARS),
        eof: false,
        exit: None,
    };
    let cancel = ctx.cancel_token();
    match run.pump(started + timeout, cancel).await? {
        Pumped::Finished => {}
        Pumped::Cancelled => return Err(ToolError::new("the command was cancelled")),
        Pumped::Deadline => {
            // Ask politely, then insist. A cancellation during the grace ends it early: the
            // group is killed when `run` is dropped either way. bubblewrap does not pass
            // signals on (a signal to it ends the whole sandbox at once), so a sandboxed
            // command is asked inside.
            if sandboxed {
                let _ = signal_inside(run.group.id(), Signal::TERM);
            } else {
                let _ = run.group.signal(Signal::TERM);
            }
            run.pump(Instant::now() + TERM_GRACE, cancel).await?;
            let _ = run.group.signal(Signal::KILL);
            run.pump(Instant::now() + KILL_WAIT, cancel).await?;
            let (output, truncated) = run.output.finish();
            let text = with_note(
                &state,
                with_body(format!("[timeout after {}s]", args.timeout), &output),
            );
            return Ok(ToolOutput::error(text)
                .with_truncated(truncated)
                .with_sandbox(state));
        }
    }
    let (status, exited_at) = run
        .exit
        .ok_or_else(|| ToolError::new("the command's exit status was lost (internal error)"))?;
    let (output, truncated) = run.output.finish();
    let header = exit_header(status, exited_at.duration_since(started));
    Ok(
        ToolOutput::text(with_note(&state, with_body(header, &output)))
            .with_truncated(truncated)
            .with_sandbox(state),
    )
}

/// The text for the model, preceded by `[not sandboxed] <why>` when the command ran without
/// the OS sandbox.
fn with_note(state: &SandboxState, text: String) -> String {
    match state {
        SandboxState::Sandboxed { .. } => text,
        SandboxState::Unsandboxed { why } => format!("[not sandboxed] {why}\n{text}"),
    }
}

/// What allowing a call for the session covers: the command's keys, or nothing when it cannot
/// be scoped (it cannot be parsed, or an option may do more than its key shows).
///
/// Outside the project root every key carries the working directory (`in ./sub: cargo test`):
/// the same command runs different code in another folder (its own build script, test suite,
/// `Makefile`), so approving `cargo test` at the root must not approve it in `vendor/evil`.
/// The folder is normalised as written (`./sub/`, `sub` and `sub/.` agree; anything else,
/// such as `sub/..`, is simply another folder that asks again). The prefix cannot be forged
/// by a command: `in` is a reserved word, which [`command_scope`] never keys as a program.
///
/// On a system without the OS sandbox the gate makes every call ask instead, whatever these
/// keys are ([`crate::Tool::sandboxed`]).
fn run_command_scope(_ctx: &ToolContext, args: &RunCommandArgs) -> ApprovalScope {
    keyed_scope(args)
}

/// The keys of [`run_command_scope`], from the arguments alone.
fn keyed_scope(args: &RunCommandArgs) -> ApprovalScope {
    let keys = match command_scope(&args.command) {
        Ok(keys) => keys,
        Err(unscoped) => return ApprovalScope::Never(unscoped.to_string()),
    };
    match workdir_label(&args.workdir) {
        None => ApprovalScope::Keys(keys),
        Some(label) => ApprovalScope::Keys(
            keys.into_iter()
                .map(|key| format!("in {label}: {key}"))
                .collect(),
        ),
    }
}

/// The working directory as it appears in a key, or `None` for the project root (`.`, `./`,
/// empty). Relative folders start with `./`, so the label is never a flag.
fn workdir_label(workdir: &str) -> Option<String> {
    let absolute = workdir.starts_with('/');
    let parts: Vec<&str> = workdir
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    if parts.is_empty() && !absolute {
        return None;
    }
    let joined = parts.join("/");
    Some(if absolute {
        format!("/{joined}")
    } else {
        format!("./{joined}")
    })
}

/// The command and where it would run (as given when it does not resolve: the call will then
/// fail without running anything).
async fn run_command_preview(ctx: &ToolContext, args: &RunCommandArgs) -> Option<Preview> {
    let workdir = ctx
        .resolve(&args.workdir)
        .map_or_else(|_| args.workdir.clone(), |dir| dir.relative().to_owned());
    Some(Preview::Command {
        command: args.command.clone(),
        workdir,
        sandbox: Some(ctx.sandbox().state()),
    })
}

/// The confined working directory, which must exist and be a directory.
fn resolve_workdir(ctx: &ToolContext, workdir: &str) -> Result<ResolvedPath, ToolError> {
    let resolved = ctx
        .resolve(workdir)
        .map_err(|error| ToolError::new(error.to_string()))?;
    match std::fs::metadata(resolved.path()) {
        Ok(metadata) if metadata.is_dir() => Ok(resolved),
        Ok(_) => Err(ToolError::new(format!(
            "workdir '{}' is not a directory",
            resolved.relative()
        ))),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Err(ToolError::new(format!(
            "workdir '{}' does not exist",
            resolved.relative()
        ))),
        Err(error) => Err(ToolError::new(format!(
            "cannot use workdir '{}': {error}",
            resolved.relative()
        ))),
    }
}

/// `[exit 0 in 0.3s]`, or `[exit signal 9 in 0.3s]` when the shell was killed by a signal.
fn exit_header(status: ExitStatus, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("[exit {code} in {secs:.1}s]"),
        (None, Some(signal)) => format!("[exit signal {signal} in {secs:.1}s]"),
        (None, None) => format!("[exit unknown in {secs:.1}s]"),
    }
}

/// The header, then the output on the next line (the header alone when there is none).
fn with_body(header: String, output: &str) -> String {
    if output.is_empty() {
        header
    } else {
        format!("{header}\n{output}")
    }
}

/// Why [`Running::pump`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pumped {
    /// The shell exited and the output ended (or stopped coming within [`DRAIN_GRACE`]).
    Finished,
    /// The deadline passed while the shell was still running.
    Deadline,
    /// The call's cancellation token fired.
    Cancelled,
}

/// A command in flight: its process group, the read end of its output pipe, what was read.
struct Running {
    group: ProcessGroup,
    reader: pipe::Receiver,
    buffer: Vec<u8>,
    output: OutputBuffer,
    eof: bool,
    /// The shell's exit status and when it was seen.
    exit: Option<(ExitStatus, Instant)>,
}

impl Running {
    /// Reads output and watches the shell until it has exited and its output ended, the
    /// deadline passes, or the call is cancelled.
    async fn pump(
        &mut self,
        deadline: Instant,
        cancel: &CancellationToken,
    ) -> Result<Pumped, ToolError> {
        loop {
            let drained_by = match self.exit {
                Some(_) if self.eof => return Ok(Pumped::Finished),
                Some((_, exited_at)) => Some(exited_at + DRAIN_GRACE),
                None => None,
            };
            tokio::select! {
                biased;
                () = cancel.cancelled() => return Ok(Pumped::Cancelled),
                read = self.reader.read(&mut self.buffer), if !self.eof => match read {
                    Ok(0) => self.eof = true,
                    Ok(n) => self.output.push_bytes(&self.buffer[..n]),
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(error) => {
                        tracing::warn!(%error, "reading a command's output failed");
                        self.eof = true;
                    }
                },
                status = self.group.wait(), if self.exit.is_none() => {
                    let status = status.map_err(|error| {
                        ToolError::new(format!("waiting for the command failed: {error}"))
                    })?;
                    self.exit = Some((status, Instant::now()));
                }
                () = sleep_until(drained_by.unwrap_or(deadline)), if drained_by.is_some() => {
                    return Ok(Pumped::Finished);
                }
                () = sleep_until(deadline) => {
                    return Ok(if self.exit.is_some() { Pumped::Finished } else { Pumped::Deadline });
                }
            }
        }
    }
}

/// A command's output as it streams in, decoded as lossy UTF-8, keeping only the first and the
/// last `max_chars / 2` characters and counting what falls between.
#[derive(Debug)]
pub struct OutputBuffer {
    head: String,
    head_chars: usize,
    head_max: usize,
    /// The most recent characters after the head; compacted to `tail_max` when it doubles.
    tail: String,
    tail_chars: usize,
    tail_max: usize,
    /// Characters dropped from the front of `tail`.
    cut: usize,
    /// The start of a UTF-8 sequence split across reads.
    pending: Vec<u8>,
}

impl OutputBuffer {
    /// A buffer whose [`Self::finish`] yields at most `max_chars` characters plus the marker.
    pub fn new(max_chars: usize) -> Self {
        let head_max = max_chars / 2;
        Self {
            head: String::new(),
            head_chars: 0,
            head_max,
            tail: String::new(),
            tail_chars: 0,
            tail_max: max_chars - head_max,
            cut: 0,
            pending: Vec::new(),
        }
    }

    /// Appends raw bytes; invalid UTF-8 becomes `U+FFFD` as in [`String::from_utf8_lossy`],
    /// and a sequence split between two calls is joined first.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        let joined;
        let mut rest = if self.pending.is_empty() {
            bytes
        } else {
            let mut start = std::mem::take(&mut self.pending);
            start.extend_from_slice(bytes);
            joined = start;
            &joined[..]
        };
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    self.push_str(text);
                    return;
                }
                Err(error) => {
                    let (valid, invalid) = rest.split_at(error.valid_up_to());
                    // `valid` is UTF-8, so this borrows without replacing anything.
                    self.push_str(&String::from_utf8_lossy(valid));
                    match error.error_len() {
                        Some(len) => {
                            self.push_str("\u{FFFD}");
                            rest = &invalid[len..];
                        }
                        None => {
                            self.pending = invalid.to_vec();
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Appends text.
    pub fn push_str(&mut self, mut text: &str) {
        if self.head_chars < self.head_max {
            let room = self.head_max - self.head_chars;
            let split = text.char_indices().nth(room).map_or(text.len(), |(i, _)| i);
            let (head, rest) = text.split_at(split);
            self.head.push_str(head);
            self.head_chars += head.chars().count();
            text = rest;
        }
        if text.is_empty() {
            return;
        }
        self.tail.push_str(text);
        self.tail_chars += text.chars().count();
        if self.tail_chars > 2 * self.tail_max.max(1) {
            self.keep_tail();
        }
    }

    /// Drops the front of the tail down to `tail_max` characters.
    fn keep_tail(&mut self) {
        let Some(excess) = self.tail_chars.checked_sub(self.tail_max) else {
            return;
        };
        let start = self
            .tail
            .char_indices()
            .nth(excess)
            .map_or(self.tail.len(), |(i, _)| i);
        self.tail.drain(..start);
        self.tail_chars = self.tail_max;
        self.cut += excess;
    }

    /// The whole output, or its head and tail with `... [{n} characters cut] ...` between;
    /// and whether anything was cut.
    pub fn finish(mut self) -> (String, bool) {
        if !self.pending.is_empty() {
            self.pending.clear();
            self.push_str("\u{FFFD}");
        }
        let total = self.head_chars + self.tail_chars + self.cut;
        if total <= self.head_max + self.tail_max {
            self.head.push_str(&self.tail);
            return (self.head, false);
        }
        self.keep_tail();
        let text = format!(
            "{}\n... [{} characters cut] ...\n{}",
            self.head, self.cut, self.tail
        );
        (text, true)
    }
}

#[cfg(test)]
mod tests;
