//! The last lines a server wrote to stderr.
//!
//! When a server fails, its own words are the best explanation ("missing GITHUB_TOKEN",
//! a stack trace), so each stdio server's stderr is drained into a small ring buffer shown with
//! its status and appended to the error of a call that failed because the server died. Draining
//! also keeps a chatty server from blocking on a full pipe. The lines are the server's, not
//! Gantry's configuration, so they are shown as written; Gantry never logs its env or headers.
//!
//! A server that fails at start-up fails the same way at each restart; its lines are kept once:
//! a restarted process that writes what the previous one wrote, line for line, adds a single
//! note instead of the same lines again.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// How many lines are kept.
pub const STDERR_LINES: usize = 50;
/// The longest line kept, in bytes; the rest of a longer line is read and thrown away, so a
/// server writing one endless line costs at most this much memory (times [`STDERR_LINES`]).
pub const MAX_LINE_BYTES: usize = 4 * 1024;
/// Appended to a line that was cut at [`MAX_LINE_BYTES`].
pub const CUT_MARKER: &str = " … [line cut at 4 KiB]";

/// Appended once when a restarted server repeats the previous process's lines.
pub const REPEATED_MARKER: &str = "(the same lines again after a restart)";

/// A shared ring buffer of stderr lines.
#[derive(Debug, Clone, Default)]
pub struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    attempts: Arc<Mutex<Attempts>>,
}

/// What the previous process wrote, to recognise a restart repeating it.
#[derive(Debug, Default)]
struct Attempts {
    /// The lines of the last process that wrote something new.
    previous: Vec<String>,
    /// The lines of the current process that were new.
    current: Vec<String>,
    /// How far the current process has repeated `previous`; `None` once it wrote something
    /// else (or on the first process).
    matching: Option<usize>,
}

impl StderrTail {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one line (cut at [`MAX_LINE_BYTES`] with [`CUT_MARKER`]), dropping the oldest
    /// beyond [`STDERR_LINES`].
    pub fn push(&self, line: &str) {
        let line = line.trim_end();
        if line.len() > MAX_LINE_BYTES {
            let mut end = MAX_LINE_BYTES;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            self.keep(format!("{}{CUT_MARKER}", &line[..end]));
        } else {
            self.keep(line.to_owned());
        }
    }

    /// A new process of the server starts: its lines are compared with the previous one's.
    pub fn new_attempt(&self) {
        let mut attempts = self.attempts.lock().unwrap_or_else(PoisonError::into_inner);
        if !attempts.current.is_empty() {
            attempts.previous = std::mem::take(&mut attempts.current);
        }
        attempts.matching = (!attempts.previous.is_empty()).then_some(0);
    }

    /// Stores a finished line, unless it repeats the previous process's line at this place.
    fn keep(&self, line: String) {
        {
            let mut attempts = self.attempts.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(position) = attempts.matching {
                if attempts.previous.get(position) == Some(&line) {
                    attempts.matching = Some(position + 1);
                    drop(attempts);
                    let last_is_note = self
                        .lines
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .back()
                        .is_some_and(|last| last == REPEATED_MARKER);
                    if !last_is_note {
                        self.store(REPEATED_MARKER.to_owned());
                    }
                    return;
                }
                attempts.matching = None;
            }
            if attempts.current.len() < STDERR_LINES {
                attempts.current.push(line.clone());
            }
        }
        self.store(line);
    }

    /// Adds a line to the ring.
    fn store(&self, line: String) {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The last `count` lines, oldest first.
    pub fn last(&self, count: usize) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        lines
            .iter()
            .skip(lines.len().saturating_sub(count))
            .cloned()
            .collect()
    }

    /// Every kept line, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.last(STDERR_LINES)
    }

    /// Reads `stream` line by line into the buffer until it ends. Memory stays bounded: a line
    /// is collected up to [`MAX_LINE_BYTES`], kept with [`CUT_MARKER`] as soon as it reaches
    /// that, and the rest of it is skipped up to the next newline.
    pub async fn drain(self, stream: impl AsyncRead + Unpin) {
        let mut reader = BufReader::new(stream);
        let mut line: Vec<u8> = Vec::new();
        // Whether the current line was cut and kept already; its rest is being skipped.
        let mut skipping = false;
        loop {
            let chunk = match reader.fill_buf().await {
                Ok(chunk) if !chunk.is_empty() => chunk,
                _ => break,
            };
            let (content, consumed, ends) = match chunk.iter().position(|&b| b == b'\n') {
                Some(at) => (at, at + 1, true),
                None => (chunk.len(), chunk.len(), false),
            };
            if !skipping {
                let room = MAX_LINE_BYTES - line.len();
                if content > room {
                    line.extend_from_slice(&chunk[..room]);
                    self.keep(format!("{}{CUT_MARKER}", lossy_line(&line)));
                    line.clear();
                    skipping = true;
                } else {
                    line.extend_from_slice(&chunk[..content]);
                }
            }
            reader.consume(consumed);
            if ends {
                if !skipping {
                    self.push(&lossy_line(&line));
                }
                line.clear();
                skipping = false;
            }
        }
        if !line.is_empty() {
            self.push(&lossy_line(&line));
        }
    }

    /// The last lines as an indented block for an error message, or "" when there are none.
    pub fn describe(&self, count: usize) -> String {
        let lines = self.last(count);
        if lines.is_empty() {
            return String::new();
        }
        let mut text = String::from("\nlast lines of its stderr:");
        for line in lines {
            text.push_str("\n  ");
            text.push_str(&line);
        }
        text
    }
}

/// A line's bytes as text (invalid UTF-8, such as a character split by a cut, replaced).
fn lossy_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines() {
        let tail = StderrTail::new();
        for index in 0..(STDERR_LINES + 5) {
            tail.push(&format!("line {index}\n"));
        }
        let lines = tail.lines();
        assert_eq!(lines.len(), STDERR_LINES);
        assert_eq!(lines[0], "line 5");
        assert_eq!(tail.last(2), ["line 53", "line 54"]);
        assert_eq!(tail.describe(1), "\nlast lines of its stderr:\n  line 54");
        assert_eq!(StderrTail::new().describe(3), "");
    }

    #[tokio::test]
    async fn an_endless_line_is_cut_and_kept_while_it_streams() {
        use tokio::io::AsyncReadExt;
        // A server that never ends its line: the cut line shows up without waiting for a
        // newline, so the line was not being collected.
        let tail = StderrTail::new();
        let drain = tokio::spawn(tail.clone().drain(tokio::io::repeat(b'x')));
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        while tail.lines().is_empty() {
            assert!(tokio::time::Instant::now() < deadline, "no line after 10 s");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        drain.abort();
        let lines = tail.lines();
        assert_eq!(lines.len(), 1);
        assert_eq!(
            lines[0],
            format!("{}{CUT_MARKER}", "x".repeat(MAX_LINE_BYTES))
        );

        // A long line then short ones: the long one is cut once, the others kept whole.
        let tail = StderrTail::new();
        let long = tokio::io::repeat(b'y').take(3 * 1024 * 1024);
        let stream = long.chain(&b"\nshort\n"[..]).chain(&b"last"[..]);
        tail.clone().drain(stream).await;
        let lines = tail.lines();
        assert_eq!(
            lines.len(),
            3,
            "{:?}",
            lines.iter().map(String::len).collect::<Vec<_>>()
        );
        assert!(lines[0].starts_with("yyyy") && lines[0].ends_with(CUT_MARKER));
        assert_eq!(lines[0].len(), MAX_LINE_BYTES + CUT_MARKER.len());
        assert_eq!(lines[1..], ["short", "last"]);
    }

    #[test]
    fn a_pushed_long_line_is_cut_on_a_character_boundary() {
        let tail = StderrTail::new();
        tail.push(&"é".repeat(MAX_LINE_BYTES));
        let line = &tail.lines()[0];
        assert!(line.ends_with(CUT_MARKER));
        assert!(line.len() <= MAX_LINE_BYTES + CUT_MARKER.len());
    }

    #[test]
    fn a_restart_repeating_the_same_lines_adds_one_note() {
        let tail = StderrTail::new();
        for _ in 0..4 {
            tail.new_attempt();
            tail.push("Error: GITHUB_TOKEN is not set");
            tail.push("exiting");
        }
        assert_eq!(
            tail.lines(),
            ["Error: GITHUB_TOKEN is not set", "exiting", REPEATED_MARKER]
        );
        // Something new is kept.
        tail.new_attempt();
        tail.push("Error: GITHUB_TOKEN is not set");
        tail.push("something else");
        assert_eq!(
            tail.lines(),
            [
                "Error: GITHUB_TOKEN is not set",
                "exiting",
                REPEATED_MARKER,
                "something else"
            ]
        );
    }

    #[tokio::test]
    async fn drains_a_stream() {
        let tail = StderrTail::new();
        tail.clone().drain(&b"one\ntwo\r\nthree"[..]).await;
        assert_eq!(tail.lines(), ["one", "two", "three"]);
    }
}
