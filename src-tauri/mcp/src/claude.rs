//! Importing servers from Claude Desktop's configuration.
//!
//! Many users already configured their MCP servers for Claude Desktop, in the same `mcpServers`
//! format. Its file sits in the system's config folder (`~/.config/Claude` on Linux,
//! `~/Library/Application Support/Claude` on macOS, `%APPDATA%\Claude` on Windows) beside keys
//! of Claude's own (`globalShortcut`, ...), which are ignored. A preview lists its servers —
//! what each runs or where it connects, and whether Gantry's user file already has that name —
//! and an import copies the chosen entries as they are written into Gantry's user file (through
//! [`UserFile`], so everything said there holds). A chosen name that Gantry already has is
//! replaced: choosing it is the user's explicit say-so.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::{ConfigOrigin, TransportSummary, parse_config, read_text};
use crate::edit::{EditError, UserFile};

/// The name of Claude Desktop's configuration file.
pub const CLAUDE_DESKTOP_FILE: &str = "claude_desktop_config.json";

/// Where Claude Desktop keeps its configuration: `{config dir}/Claude/claude_desktop_config.json`
/// (following `XDG_CONFIG_HOME` on Linux). `None` when the home folder is unknown.
pub fn claude_desktop_config_path() -> Option<PathBuf> {
    directories::BaseDirs::new()
        .map(|dirs| dirs.config_dir().join("Claude").join(CLAUDE_DESKTOP_FILE))
}

/// One server of Claude Desktop's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeServer {
    /// Its name.
    pub name: String,
    /// What it runs or where it connects (never env or header values).
    pub transport: TransportSummary,
    /// Whether Gantry's user file already has a server of this name (importing replaces it).
    pub in_gantry: bool,
}

/// What an import would bring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudePreview {
    /// The file looked at.
    pub path: PathBuf,
    /// Whether it exists.
    pub found: bool,
    /// Its servers, in file order.
    pub servers: Vec<ClaudeServer>,
}

/// A server of Claude's file: its name, its summary, its entry as written.
type Entry = (String, TransportSummary, Value);

/// Imports from one Claude Desktop file into one Gantry user file.
#[derive(Debug, Clone)]
pub struct ClaudeImport {
    source: PathBuf,
    user: UserFile,
}

impl ClaudeImport {
    /// From the Claude Desktop file at `source` (usually [`claude_desktop_config_path`]) into
    /// `user`.
    pub fn new(source: impl Into<PathBuf>, user: UserFile) -> Self {
        Self {
            source: source.into(),
            user,
        }
    }

    /// The Claude Desktop file.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// Claude Desktop's servers, or `found: false` when it has no file.
    pub fn preview(&self) -> Result<ClaudePreview, EditError> {
        let Some(entries) = self.read()? else {
            return Ok(ClaudePreview {
                path: self.source.clone(),
                found: false,
                servers: Vec::new(),
            });
        };
        let existing = self.user.names()?;
        Ok(ClaudePreview {
            path: self.source.clone(),
            found: true,
            servers: entries
                .into_iter()
                .map(|(name, transport, _)| ClaudeServer {
                    in_gantry: existing.contains(&name),
                    name,
                    transport,
                })
                .collect(),
        })
    }

    /// Copies the servers called `names` into the user file (replacing same-named ones there);
    /// returns their names in Claude's order.
    pub fn import(&self, names: &[String]) -> Result<Vec<String>, EditError> {
        if names.is_empty() {
            return Err(EditError::NothingChosen);
        }
        let entries = self.read()?.unwrap_or_default();
        if let Some(missing) = names
            .iter()
            .find(|name| !entries.iter().any(|(known, _, _)| known == *name))
        {
            return Err(EditError::UnknownServer {
                name: missing.clone(),
                file: self.source.clone(),
            });
        }
        let chosen: Vec<(String, Value)> = entries
            .into_iter()
            .filter(|(name, _, _)| names.contains(name))
            .map(|(name, _, entry)| (name, entry))
            .collect();
        self.user.put(&chosen)?;
        Ok(chosen.into_iter().map(|(name, _)| name).collect())
    }

    /// Each server of the file (checked by the config parser) with its summary and its entry as
    /// written; `None` when there is no file.
    fn read(&self) -> Result<Option<Vec<Entry>>, EditError> {
        let origin = ConfigOrigin::User {
            path: self.source.clone(),
        };
        let Some(text) = read_text(&origin).map_err(EditError::Source)? else {
            return Ok(None);
        };
        let file = parse_config(&text, origin).map_err(EditError::Source)?;
        let raw = match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(mut top)) => match top.remove("mcpServers") {
                Some(Value::Object(servers)) => servers,
                _ => serde_json::Map::new(),
            },
            _ => serde_json::Map::new(),
        };
        Ok(Some(
            file.servers
                .into_iter()
                .filter_map(|server| {
                    let entry = raw.get(&server.name)?.clone();
                    Some((server.name, server.transport.summary(), entry))
                })
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: &str = r#"{
  "globalShortcut": "Ctrl+Alt+Space",
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/u"]},
    "github": {"command": "docker", "args": ["run", "-i", "ghcr.io/github/github-mcp-server"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x"}},
    "remote": {"type": "http", "url": "https://example.invalid/mcp"}
  }
}"#;

    fn setup(gantry: Option<&str>) -> (tempfile::TempDir, ClaudeImport) {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("Claude").join(CLAUDE_DESKTOP_FILE);
        std::fs::create_dir_all(source.parent().unwrap()).unwrap();
        std::fs::write(&source, CLAUDE).unwrap();
        let user = dir.path().join("gantry/mcp.json");
        if let Some(text) = gantry {
            std::fs::create_dir_all(user.parent().unwrap()).unwrap();
            std::fs::write(&user, text).unwrap();
        }
        (dir, ClaudeImport::new(source, UserFile::new(user)))
    }

    #[test]
    fn the_path_is_claude_in_the_config_folder() {
        let path = claude_desktop_config_path().unwrap();
        assert!(
            path.ends_with("Claude/claude_desktop_config.json"),
            "{path:?}"
        );
        let config = directories::BaseDirs::new()
            .unwrap()
            .config_dir()
            .to_owned();
        assert!(path.starts_with(config));
    }

    #[test]
    fn the_preview_lists_servers_and_marks_names_gantry_has() {
        let (_dir, import) = setup(Some(r#"{"mcpServers": {"github": {"command": "gh-mcp"}}}"#));
        let preview = import.preview().unwrap();
        assert!(preview.found);
        let names: Vec<(&str, bool)> = preview
            .servers
            .iter()
            .map(|server| (server.name.as_str(), server.in_gantry))
            .collect();
        assert_eq!(
            names,
            [("filesystem", false), ("github", true), ("remote", false)]
        );
        assert_eq!(
            preview.servers[2].transport,
            TransportSummary::Http {
                url: "https://example.invalid/mcp".into()
            }
        );
    }

    #[test]
    fn no_claude_file_is_a_preview_that_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("Claude").join(CLAUDE_DESKTOP_FILE);
        let import = ClaudeImport::new(&source, UserFile::new(dir.path().join("mcp.json")));
        let preview = import.preview().unwrap();
        assert!(!preview.found);
        assert_eq!(preview.path, source);
        assert!(preview.servers.is_empty());
        assert!(matches!(
            import.import(&["x".into()]),
            Err(EditError::UnknownServer { .. })
        ));
    }

    #[test]
    fn importing_copies_the_chosen_entries_as_written() {
        let (_dir, import) = setup(Some(
            r#"{"mcpServers": {"github": {"command": "gh-mcp"}, "mine": {"command": "m"}}}"#,
        ));
        let imported = import.import(&["remote".into(), "github".into()]).unwrap();
        assert_eq!(imported, ["github", "remote"]);
        let user: Value =
            serde_json::from_str(&std::fs::read_to_string(import.user.path()).unwrap()).unwrap();
        let claude: Value = serde_json::from_str(CLAUDE).unwrap();
        // Chosen explicitly, so Gantry's "github" is replaced in its place; Claude's own keys
        // stay out.
        assert_eq!(
            user["mcpServers"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["github", "mine", "remote"]
        );
        assert_eq!(user["mcpServers"]["github"], claude["mcpServers"]["github"]);
        assert_eq!(user["mcpServers"]["remote"], claude["mcpServers"]["remote"]);
        assert!(user.get("globalShortcut").is_none());

        assert_eq!(import.import(&[]), Err(EditError::NothingChosen));
        let error = import.import(&["nope".into()]).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("no MCP server named 'nope' in "),
            "{error}"
        );
    }

    #[test]
    fn a_broken_claude_file_is_explained_and_nothing_is_written() {
        let (_dir, import) = setup(None);
        std::fs::write(
            import.source(),
            "{\n  \"mcpServers\": {\n    \"a\": {\"args\": 1}\n",
        )
        .unwrap();
        let error = import.preview().unwrap_err();
        assert!(matches!(error, EditError::Source(_)), "{error:?}");
        assert!(
            error.to_string().contains("claude_desktop_config.json:4:"),
            "{error}"
        );
        assert!(import.import(&["a".into()]).is_err());
        assert!(!import.user.path().exists());
    }
}
