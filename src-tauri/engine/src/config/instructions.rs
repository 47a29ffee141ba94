//! A session's instruction files: the user's and the project's `CLAUDE.md`/`AGENTS.md` (read by
//! gantry-config for every request, so edits apply at once) and the files of the folders the
//! model has worked in.
//!
//! A folder below the root adds its own `CLAUDE.md`, `AGENTS.md` (or `AGENTS.override.md`) and
//! `CLAUDE.local.md` once the model read or changed a file in it — a read_file, write_file or
//! edit_file call that succeeded — as Claude Code loads them "on demand when Claude reads files
//! there" (spec §5). The folders are kept per session, in the order first touched; a resumed
//! session rebuilds them from its stored calls (the loop replays them), so reopening a session
//! gives the same instructions it had.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;
use gantry_agent::{InstructionPart, InstructionSource, ToolCall};
use gantry_config::Locations;
use gantry_config::instructions::{self, Instructions};
use gantry_tools::ObservationKind;

/// The tools whose successful calls make a folder's own instructions join.
const FILE_TOOLS: [&str; 3] = ["read_file", "write_file", "edit_file"];

/// One session's instructions.
#[derive(Debug)]
pub struct SessionInstructions {
    at: Locations,
    /// The folders worked in (absolute, below the root), in the order first touched.
    folders: Mutex<Vec<PathBuf>>,
}

impl SessionInstructions {
    /// The instructions of the project at `root` (canonical), with the user's home from the
    /// environment.
    pub fn new(root: &Path) -> Self {
        Self::at(super::locations(root))
    }

    /// The instructions of the project and home `at`.
    pub fn at(at: Locations) -> Self {
        Self {
            at,
            folders: Mutex::new(Vec::new()),
        }
    }

    /// The folders worked in so far, in order.
    pub fn folders(&self) -> Vec<PathBuf> {
        self.folders
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Everything the files give now (parts and report), read off the async runtime.
    pub async fn gather(&self) -> Instructions {
        let at = self.at.clone();
        let folders = self.folders();
        tokio::task::spawn_blocking(move || instructions::gather(&at, &folders))
            .await
            .unwrap_or_else(|error| {
                tracing::warn!(%error, "reading the instruction files failed");
                Instructions::default()
            })
    }

    /// Records the folders of `path` (as the model wrote it); true when one is new.
    fn touched(&self, path: &str) -> bool {
        let mut folders = self.folders.lock().unwrap_or_else(PoisonError::into_inner);
        let mut added = false;
        for folder in instructions::folders_of(&self.at, path) {
            if !folders.contains(&folder) {
                folders.push(folder);
                added = true;
            }
        }
        added
    }
}

#[async_trait]
impl InstructionSource for SessionInstructions {
    async fn parts(&self) -> Vec<InstructionPart> {
        self.gather()
            .await
            .parts
            .into_iter()
            .map(|part| InstructionPart {
                file: part.source.shown,
                text: part.text,
                truncated: part.truncated,
                imported_by: part.imported_by,
            })
            .collect()
    }

    fn observed(&self, call: &ToolCall, kind: ObservationKind) -> bool {
        if kind != ObservationKind::Ok || !FILE_TOOLS.contains(&call.name.as_str()) {
            return false;
        }
        let Ok(arguments) = serde_json::from_str::<serde_json::Value>(&call.arguments) else {
            return false;
        };
        arguments
            .get("path")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|path| self.touched(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, path: &str) -> ToolCall {
        ToolCall::new("c", name, serde_json::json!({ "path": path }).to_string())
    }

    #[tokio::test]
    async fn a_folders_file_joins_after_a_successful_read_or_change_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("web/src")).unwrap();
        std::fs::write(root.join("CLAUDE.md"), "root rules").unwrap();
        std::fs::write(root.join("web/CLAUDE.md"), "web rules").unwrap();
        let source = SessionInstructions::at(Locations::new(&root, None));
        let files = |parts: Vec<InstructionPart>| -> Vec<String> {
            parts.into_iter().map(|part| part.file).collect()
        };
        assert_eq!(files(source.parts().await), ["CLAUDE.md"]);
        assert!(!source.observed(&call("read_file", "web/a.rs"), ObservationKind::Denied));
        assert!(!source.observed(&call("run_command", "web/a.rs"), ObservationKind::Ok));
        assert!(!source.observed(&call("read_file", "../x/a.rs"), ObservationKind::Ok));
        assert_eq!(files(source.parts().await), ["CLAUDE.md"]);
        assert!(source.observed(&call("edit_file", "web/src/main.rs"), ObservationKind::Ok));
        assert!(
            !source.observed(&call("read_file", "web/b.rs"), ObservationKind::Ok),
            "once"
        );
        assert_eq!(files(source.parts().await), ["CLAUDE.md", "web/CLAUDE.md"]);
        assert_eq!(source.folders(), [root.join("web"), root.join("web/src")]);
    }
}
