//! The last lines a server wrote to stderr.
//!
//! When a server fails, its own words are the best explanation ("missing GITHUB_TOKEN",
//! a stack trace), so each stdio server's stderr is drained into a small ring buffer shown with
//! its status and appended to the error of a call that failed because the server died. Draining
//! also keeps a chatty server from blocking on a full pipe. The lines are the server's, not
//! Gantry's configuration, so they are shown as written; Gantry never logs its env or headers.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// How many lines are kept.
pub const STDERR_LINES: usize = 50;
/// The longest line kept (longer lines are cut).
const MAX_LINE_CHARS: usize = 1_000;

/// A shared ring buffer of stderr lines.
#[derive(Debug, Clone, Default)]
pub struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
}

impl StderrTail {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one line, dropping the oldest beyond [`STDERR_LINES`].
    pub fn push(&self, line: &str) {
        let line = gantry_tools::text::excerpt(line.trim_end(), MAX_LINE_CHARS);
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

    /// Reads `stream` line by line into the buffer until it ends.
    pub async fn drain(self, stream: impl AsyncRead + Unpin) {
        let mut reader = BufReader::new(stream);
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            match reader.read_until(b'\n', &mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(_) => self.push(&String::from_utf8_lossy(&buffer)),
            }
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
    async fn drains_a_stream() {
        let tail = StderrTail::new();
        tail.clone().drain(&b"one\ntwo\r\nthree"[..]).await;
        assert_eq!(tail.lines(), ["one", "two", "three"]);
    }
}
