//! Importing servers from Claude Desktop's configuration.
//!
//! Many users already configured their MCP servers for Claude Desktop, in the same `mcpServers`
//! format. Its file sits in the system's config folder (`~/.config/Claude` on Linux,
//! `~/Library/Application Support/Claude` on macOS, `%APPDATA%\Claude` on Windows) beside keys
//! of Claude's own (`globalShortcut`, ...), which are ignored. A preview lists its servers —
//! what each runs or where it connects, and whether Gantry's user file already has that name —
//! and an import copies the chosen entries as they are written into Gantry's user file (through
//! [`UserFile`], so everything said there holds). A chosen name that Gantry already has is
//! replaced: choosing it is the user's explicit say-so. Each server is checked on its own: one
//! that Gantry's parser refuses (Claude may accept what Gantry does not) is listed with its
//! reason and can't be chosen, and the others still come.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::{ConfigError, ConfigOrigin, TransportSummary, parse_config, read_text};
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
    /// What it runs or where it connects (never env or header values); `None` when Gantry
    /// can't read its entry.
    pub transport: Option<TransportSummary>,
    /// Whether Gantry's user file already has a server of this name (importing replaces it).
    pub in_gantry: bool,
    /// Why Gantry can't import it (the key and what is wrong), when it can't.
    pub problem: Option<String>,
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

/// A server of Claude's file: its name, and its summary and entry as written, or why Gantry
/// can't read it.
type Entry = (String, Result<(TransportSummary, Value), String>);

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
                .map(|(name, read)| {
                    let (transport, problem) = match read {
                        Ok((transport, _)) => (Some(transport), None),
                        Err(problem) => (None, Some(problem)),
                    };
                    ClaudeServer {
                        in_gantry: existing.contains(&name),
                        name,
                        transport,
                        problem,
                    }
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
            .find(|name| !entries.iter().any(|(known, _)| known == *name))
        {
            return Err(EditError::UnknownServer {
                name: missing.clone(),
                file: self.source.clone(),
            });
        }
        let mut chosen: Vec<(String, Value)> = Vec::new();
        for (name, read) in entries {
            if !names.contains(&name) {
                continue;
            }
            match read {
                Ok((_, entry)) => chosen.push((name, entry)),
                Err(reason) => {
                    return Err(EditError::NotImportable {
                        name,
                        file: self.source.clone(),
                        reason,
                    });
                }
            }
        }
        self.user.put(&chosen)?;
        Ok(chosen.into_iter().map(|(name, _)| name).collect())
    }

    /// Each server of the file, checked on its own by the config parser, with its summary and
    /// its entry as written (or why it can't be read); `None` when there is no file. A file
    /// that is not JSON, or whose `mcpServers` is not an object, is an error as a whole.
    fn read(&self) -> Result<Option<Vec<Entry>>, EditError> {
        let origin = ConfigOrigin::User {
            path: self.source.clone(),
        };
        let Some(text) = read_text(&origin).map_err(EditError::Source)? else {
            return Ok(None);
        };
        let servers = match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(mut top)) => match top.remove("mcpServers") {
                Some(Value::Object(servers)) => servers,
                None | Some(Value::Null) => serde_json::Map::new(),
                // The parser's error names the line.
                Some(_) => return Err(whole_file_error(&text, origin)),
            },
            _ => return Err(whole_file_error(&text, origin)),
        };
        Ok(Some(
            servers
                .into_iter()
                .map(|(name, entry)| {
                    let read = check_entry(&name, &entry, &self.source)
                        .map(|transport| (transport, entry));
                    (name, read)
                })
                .collect(),
        ))
    }
}

/// The parser's error for a whole file that is not an `mcpServers` object.
fn whole_file_error(text: &str, origin: ConfigOrigin) -> EditError {
    match parse_config(text, origin) {
        Err(error) => EditError::Source(error),
        // Unreachable in practice: the caller saw the shape was wrong.
        Ok(_) => EditError::NoServers,
    }
}

/// One entry as Gantry reads it: its transport, or what is wrong (the key and the problem).
fn check_entry(name: &str, entry: &Value, source: &Path) -> Result<TransportSummary, String> {
    let mut servers = serde_json::Map::new();
    servers.insert(name.to_owned(), entry.clone());
    let mut top = serde_json::Map::new();
    top.insert("mcpServers".to_owned(), Value::Object(servers));
    let text = Value::Object(top).to_string();
    let origin = ConfigOrigin::User {
        path: source.to_owned(),
    };
    match parse_config(&text, origin) {
        Ok(file) => file
            .servers
            .into_iter()
            .next()
            .map(|server| server.transport.summary())
            .ok_or_else(|| "no server in the entry".to_owned()),
        // Lines of the one-entry text mean nothing to the user: the key says where.
        Err(ConfigError::Invalid { key, message, .. }) => Err(format!("{key}: {message}")),
        Err(error) => Err(error.to_string()),
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
            Some(TransportSummary::Http {
                url: "https://example.invalid/mcp".into()
            })
        );
        assert!(
            preview
                .servers
                .iter()
                .all(|server| server.problem.is_none())
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
    fn an_entry_gantry_refuses_is_listed_with_its_reason_and_the_others_still_come() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join(CLAUDE_DESKTOP_FILE);
        std::fs::write(
            &source,
            r#"{"mcpServers": {
                "good": {"command": "ok-mcp"},
                "odd": {"command": "x", "args": "--port 8080"},
                "late": {"url": "http://127.0.0.1:9/mcp"}
            }}"#,
        )
        .unwrap();
        let import = ClaudeImport::new(&source, UserFile::new(dir.path().join("mcp.json")));
        let preview = import.preview().unwrap();
        let rows: Vec<(&str, bool)> = preview
            .servers
            .iter()
            .map(|server| (server.name.as_str(), server.problem.is_none()))
            .collect();
        assert_eq!(rows, [("good", true), ("odd", false), ("late", true)]);
        let problem = preview.servers[1].problem.as_deref().unwrap();
        assert!(problem.starts_with("mcpServers.odd.args"), "{problem}");
        assert_eq!(preview.servers[1].transport, None);

        let error = import.import(&["odd".into(), "good".into()]).unwrap_err();
        assert!(
            matches!(&error, EditError::NotImportable { name, .. } if name == "odd"),
            "{error:?}"
        );
        assert!(!import.user.path().exists(), "nothing written");
        assert_eq!(
            import.import(&["good".into(), "late".into()]).unwrap(),
            ["good", "late"]
        );
    }

    #[test]
    fn a_claude_file_that_is_not_an_mcp_servers_object_is_an_error_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join(CLAUDE_DESKTOP_FILE);
        std::fs::write(&source, "{\n  \"mcpServers\": [1, 2]\n}").unwrap();
        let import = ClaudeImport::new(&source, UserFile::new(dir.path().join("mcp.json")));
        let error = import.preview().unwrap_err();
        assert!(matches!(error, EditError::Source(_)), "{error:?}");
        assert!(error.to_string().contains(":2:"), "{error}");
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
