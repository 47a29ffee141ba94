//! Changing the user-wide `mcpServers` file: adding, replacing, renaming and removing servers,
//! and merging a pasted snippet.
//!
//! The file is the user's: often written by hand, sometimes shared with other clients, possibly
//! holding tokens. So Gantry changes only what was asked — one server's entry, or the servers of a
//! snippet — and keeps every other top-level key and every other server's entry with the same
//! values, in its place (serde_json keeps key order; the file is written again pretty-printed,
//! so hand-made spacing is not kept). What is added is first checked by the same parser that
//! reads the file at start, so an error names the line and the key the same way (the text typed in
//! the panel is called [`PASTED`]); and a file that is broken already is not touched at all: its
//! own error is the answer, since rewriting it would lose what the user was in the middle of.
//! Writes are atomic (a temporary file in the same folder, synced, then renamed over the old one)
//! and leave the file readable by the user only. An edit that started from an entry another
//! program changed since is refused ([`UserFile::save_edit`]), and so is a change to a file that
//! changed between Gantry's reading and writing it (a short window: there is no lock other
//! programs would honour).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::config::{
    ConfigError, ConfigOrigin, ServerConfig, locate_key, parse_config, read_text, sha256_hex,
    syntax_error,
};

/// What text typed or pasted in the panel is called in its errors (in place of a file name).
pub const PASTED: &str = "pasted JSON";

/// Why a change to the user's file was not made. Nothing was written in any case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The servers to add are not valid (the parser's error, naming the line and the key).
    #[error("{0}")]
    Invalid(ConfigError),
    /// The file as it is now can't be read or parsed, so Gantry leaves it alone.
    #[error("{0} (fix the file first: Gantry changes it only while it is valid)")]
    Broken(ConfigError),
    /// The file servers are imported from can't be read or parsed.
    #[error("{0}")]
    Source(ConfigError),
    /// The text holds no server.
    #[error(
        "there is no server in the JSON: expected {{\"mcpServers\": {{\"name\": {{...}}}}}} or {{\"name\": {{...}}}}"
    )]
    NoServers,
    /// Replacing a server takes exactly one entry.
    #[error("the JSON holds {count} servers; editing '{replacing}' takes exactly one")]
    NotOne {
        /// How many it holds.
        count: usize,
        /// The server being edited.
        replacing: String,
    },
    /// Nothing was chosen.
    #[error("choose at least one server")]
    NothingChosen,
    /// No server has this name in the file.
    #[error("no MCP server named '{name}' in {}", file.display())]
    UnknownServer {
        /// The name asked for.
        name: String,
        /// The file looked in.
        file: PathBuf,
    },
    /// The names are taken by other servers of the file.
    #[error("{}", taken_message(names, file))]
    Taken {
        /// The names, in the snippet's order.
        names: Vec<String>,
        /// The user's file.
        file: PathBuf,
    },
    /// Writing failed.
    #[error("cannot write {}: {reason}", file.display())]
    Write {
        /// The file.
        file: PathBuf,
        /// Why.
        reason: String,
    },
    /// The server being edited changed in the file since the editor opened it.
    #[error(
        "server '{name}' was changed in {} since you opened it; nothing was written. Open it again to see the change",
        file.display()
    )]
    EditedElsewhere {
        /// The server.
        name: String,
        /// The user's file.
        file: PathBuf,
    },
    /// A server of another client's file that Gantry's parser refuses.
    #[error("server '{name}' of {} can't be imported: {reason}", file.display())]
    NotImportable {
        /// The server.
        name: String,
        /// The other client's file.
        file: PathBuf,
        /// The key and what is wrong.
        reason: String,
    },
    /// Another program changed the file while Gantry was changing it.
    #[error("{} changed while Gantry was saving it; nothing was written, try again", file.display())]
    Changed {
        /// The file.
        file: PathBuf,
    },
}

fn taken_message(names: &[String], file: &Path) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("'{name}'")).collect();
    let (subject, verb) = if names.len() == 1 {
        ("a server named", "is")
    } else {
        ("servers named", "are")
    };
    format!(
        "{subject} {} {verb} already configured in {}: edit {} or choose another name",
        quoted.join(", "),
        file.display(),
        if names.len() == 1 { "it" } else { "them" },
    )
}

/// Servers typed or pasted by the user, checked by the config parser: `{"mcpServers": {...}}`
/// (a whole file, whose other keys are ignored) or the bare `{"name": {...}}` map READMEs show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// Each server's entry as written, in order.
    entries: Vec<(String, Value)>,
    /// The same servers as parsed.
    servers: Vec<ServerConfig>,
    /// What the parser ignored (other clients' keys, ...).
    warnings: Vec<String>,
}

impl Snippet {
    /// Parses and checks `text`; errors name [`PASTED`] with the line and key in `text`.
    pub fn parse(text: &str) -> Result<Self, EditError> {
        let origin = ConfigOrigin::User {
            path: PathBuf::from(PASTED),
        };
        let invalid = |line: usize, key: &str, message: &str| {
            EditError::Invalid(ConfigError::Invalid {
                file: PathBuf::from(PASTED),
                line,
                key: key.to_owned(),
                message: message.to_owned(),
            })
        };
        let value: Value = serde_json::from_str(text)
            .map_err(|error| EditError::Invalid(syntax_error(Path::new(PASTED), &error)))?;
        let Value::Object(top) = value else {
            return Err(invalid(
                1,
                "",
                "expected a JSON object: {\"mcpServers\": {\"name\": {...}}} or {\"name\": {...}}",
            ));
        };
        let (file, entries) = if top.contains_key("mcpServers") {
            let file = parse_config(text, origin).map_err(EditError::Invalid)?;
            let entries = match top.get("mcpServers") {
                Some(Value::Object(servers)) => servers.clone(),
                _ => Map::new(),
            };
            (file, entries)
        } else {
            // A server's own settings without a name around them: the most common slip.
            if let Some(key) = ["command", "url"]
                .into_iter()
                .find(|key| top.get(*key).is_some_and(Value::is_string))
            {
                return Err(invalid(
                    locate_key(text, &[key]).unwrap_or(1),
                    key,
                    "this looks like the settings of one server: put them under a name, like {\"my-server\": {\"command\": ...}}",
                ));
            }
            // The wrapper adds no line, so the parser's lines are the text's.
            let wrapped = format!("{{\"mcpServers\":{text}\n}}");
            let file = parse_config(&wrapped, origin).map_err(EditError::Invalid)?;
            (file, top)
        };
        if entries.is_empty() {
            return Err(EditError::NoServers);
        }
        Ok(Self {
            entries: entries.into_iter().collect(),
            servers: file.servers,
            warnings: file.warnings,
        })
    }

    /// The servers' names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|(name, _)| name.as_str()).collect()
    }

    /// The servers as parsed.
    pub fn servers(&self) -> &[ServerConfig] {
        &self.servers
    }

    /// What the parser ignored, one sentence each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// The user-wide `mcpServers` file, for changing (see the module's documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserFile {
    path: PathBuf,
}

/// The file as read before a change.
struct Current {
    /// Its top-level object (empty when the file does not exist).
    top: Map<String, Value>,
    /// Its servers by name, in file order.
    servers: Map<String, Value>,
    /// The hash of its text; `None` when it did not exist.
    sha256: Option<String>,
}

impl UserFile {
    /// The file at `path` (usually [`crate::user_config_path`]).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn origin(&self) -> ConfigOrigin {
        ConfigOrigin::User {
            path: self.path.clone(),
        }
    }

    /// The names of its servers, in file order (none when the file does not exist).
    pub fn names(&self) -> Result<Vec<String>, EditError> {
        Ok(self.load()?.servers.keys().cloned().collect())
    }

    /// One server's entry as `{"mcpServers": {"name": {...}}}`, pretty-printed: what the panel's
    /// editor starts from (and what [`Snippet::parse`] reads back).
    pub fn entry_text(&self, name: &str) -> Result<String, EditError> {
        let current = self.load()?;
        let entry = current
            .servers
            .get(name)
            .ok_or_else(|| self.unknown(name))?;
        self.entry_snippet(name, entry)
    }

    /// `{"mcpServers": {name: entry}}`, pretty-printed.
    fn entry_snippet(&self, name: &str, entry: &Value) -> Result<String, EditError> {
        let mut servers = Map::new();
        servers.insert(name.to_owned(), entry.clone());
        let mut top = Map::new();
        top.insert("mcpServers".to_owned(), Value::Object(servers));
        pretty(&top).map_err(|error| self.write_error(error.to_string()))
    }

    fn write_error(&self, reason: String) -> EditError {
        EditError::Write {
            file: self.path.clone(),
            reason,
        }
    }

    /// Adds the snippet's servers after the others (none of their names may be configured
    /// already); or, `replacing` a server, puts the snippet's one server in its place — under
    /// a new name when it has one (a rename; the new name must be free).
    pub fn save(&self, snippet: &Snippet, replacing: Option<&str>) -> Result<(), EditError> {
        self.save_checked(snippet, replacing, None)
    }

    /// [`Self::save`] of an edit of server `replacing` that started from `original` (its
    /// [`Self::entry_text`] when the editor opened): refused with [`EditError::EditedElsewhere`]
    /// when the entry in the file is no longer that, so a change another program made while
    /// the editor was open is not overwritten. Other servers' entries may have changed.
    pub fn save_edit(
        &self,
        snippet: &Snippet,
        replacing: &str,
        original: &str,
    ) -> Result<(), EditError> {
        self.save_checked(snippet, Some(replacing), Some(original))
    }

    fn save_checked(
        &self,
        snippet: &Snippet,
        replacing: Option<&str>,
        original: Option<&str>,
    ) -> Result<(), EditError> {
        let current = self.load()?;
        let mut servers = current.servers.clone();
        match replacing {
            None => {
                let taken: Vec<String> = snippet
                    .entries
                    .iter()
                    .filter(|(name, _)| servers.contains_key(name))
                    .map(|(name, _)| name.clone())
                    .collect();
                if !taken.is_empty() {
                    return Err(self.taken(taken));
                }
                for (name, entry) in &snippet.entries {
                    servers.insert(name.clone(), entry.clone());
                }
            }
            Some(old) => {
                let [(name, entry)] = snippet.entries.as_slice() else {
                    return Err(EditError::NotOne {
                        count: snippet.entries.len(),
                        replacing: old.to_owned(),
                    });
                };
                let Some(now) = servers.get(old) else {
                    return Err(self.unknown(old));
                };
                if let Some(original) = original
                    && self.entry_snippet(old, now)? != original
                {
                    return Err(EditError::EditedElsewhere {
                        name: old.to_owned(),
                        file: self.path.clone(),
                    });
                }
                if name != old && servers.contains_key(name) {
                    return Err(self.taken(vec![name.clone()]));
                }
                servers = servers
                    .into_iter()
                    .map(|(key, value)| {
                        if key == old {
                            (name.clone(), entry.clone())
                        } else {
                            (key, value)
                        }
                    })
                    .collect();
            }
        }
        self.commit(current, servers)
    }

    /// Sets these entries (from another client's file): a server of the same name is replaced in
    /// its place, the others are added after the existing ones.
    pub fn put(&self, entries: &[(String, Value)]) -> Result<(), EditError> {
        if entries.is_empty() {
            return Err(EditError::NothingChosen);
        }
        let current = self.load()?;
        let mut servers = current.servers.clone();
        for (name, entry) in entries {
            servers.insert(name.clone(), entry.clone());
        }
        self.commit(current, servers)
    }

    /// Removes a server.
    pub fn remove(&self, name: &str) -> Result<(), EditError> {
        let current = self.load()?;
        let mut servers = current.servers.clone();
        if servers.shift_remove(name).is_none() {
            return Err(self.unknown(name));
        }
        self.commit(current, servers)
    }

    fn unknown(&self, name: &str) -> EditError {
        EditError::UnknownServer {
            name: name.to_owned(),
            file: self.path.clone(),
        }
    }

    fn taken(&self, names: Vec<String>) -> EditError {
        EditError::Taken {
            names,
            file: self.path.clone(),
        }
    }

    /// Reads the file; a file that can't be read or parsed is [`EditError::Broken`].
    fn load(&self) -> Result<Current, EditError> {
        let Some(text) = read_text(&self.origin()).map_err(EditError::Broken)? else {
            return Ok(Current {
                top: Map::new(),
                servers: Map::new(),
                sha256: None,
            });
        };
        parse_config(&text, self.origin()).map_err(EditError::Broken)?;
        let top = match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(top)) => top,
            // The parser accepted it, so it is an object.
            Ok(_) => Map::new(),
            Err(error) => return Err(EditError::Broken(syntax_error(&self.path, &error))),
        };
        let servers = match top.get("mcpServers") {
            Some(Value::Object(servers)) => servers.clone(),
            _ => Map::new(),
        };
        Ok(Current {
            top,
            servers,
            sha256: Some(sha256_hex(text.as_bytes())),
        })
    }

    /// Writes `servers` into the file read as `current`, after checking the result parses and
    /// that nobody changed the file meanwhile.
    fn commit(&self, current: Current, servers: Map<String, Value>) -> Result<(), EditError> {
        let mut top = current.top;
        // An existing "mcpServers" keeps its place; a new one goes last.
        top.insert("mcpServers".to_owned(), Value::Object(servers));
        let text = pretty(&top).map_err(|error| self.write_error(error.to_string()))?;
        parse_config(&text, self.origin()).map_err(EditError::Invalid)?;
        let now = read_text(&self.origin())
            .map_err(EditError::Broken)?
            .map(|text| sha256_hex(text.as_bytes()));
        if now != current.sha256 {
            return Err(EditError::Changed {
                file: self.path.clone(),
            });
        }
        write_atomically(&self.path, &text).map_err(|reason| self.write_error(reason))
    }
}

/// The file's text: two-space indentation, a final newline. (Serialising a JSON map cannot fail
/// in practice; if it ever did, the error is returned rather than an empty file written.)
fn pretty(top: &Map<String, Value>) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(top)?;
    text.push('\n');
    Ok(text)
}

/// Where writing `path` must go: the file a symlink points to (so a dotfile manager's link
/// stays a link), or `path` itself.
fn write_target(path: &Path) -> PathBuf {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink());
    if !is_link {
        return path.to_owned();
    }
    if let Ok(resolved) = std::fs::canonicalize(path) {
        return resolved;
    }
    // A link to a file not created yet.
    match std::fs::read_link(path) {
        Ok(target) if target.is_absolute() => target,
        Ok(target) => path
            .parent()
            .map_or(target.clone(), |dir| dir.join(&target)),
        Err(_) => path.to_owned(),
    }
}

/// Replaces `path` (through a symlink, to the file it points to) with `text`, readable by the
/// user only ([`gantry_tools::write_atomic_private`]).
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    gantry_tools::write_atomic_private(&write_target(path), text.as_bytes())
        .map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;
    use crate::config::TransportConfig;

    const FILE: &str = r#"{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "first": {"command": "one", "args": ["a"], "env": {"TOKEN": "t0k"}, "autoApprove": ["x"]},
    "second": {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer b"}},
    "third": {"command": "three", "timeout": 1.5}
  },
  "theme": {"dark": true}
}
"#;

    fn file_with(text: &str) -> (tempfile::TempDir, UserFile) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gantry/mcp.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        (dir, UserFile::new(path))
    }

    fn read(file: &UserFile) -> Value {
        serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap()
    }

    fn keys(value: &Value) -> Vec<String> {
        value.as_object().unwrap().keys().cloned().collect()
    }

    fn snippet(text: &str) -> Snippet {
        Snippet::parse(text).unwrap()
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn adding_creates_the_folder_and_a_private_file() {
        let home = tempfile::tempdir().unwrap();
        let file = UserFile::new(home.path().join("config/gantry/mcp.json"));
        assert!(file.names().unwrap().is_empty());
        file.save(
            &snippet(r#"{"files": {"command": "npx", "args": ["-y", "fs"]}}"#),
            None,
        )
        .unwrap();
        assert_eq!(
            read(&file),
            serde_json::json!({"mcpServers": {"files": {"command": "npx", "args": ["-y", "fs"]}}})
        );
        assert_eq!(mode(file.path()), 0o600);
        assert_eq!(mode(file.path().parent().unwrap()), 0o700);
        let text = std::fs::read_to_string(file.path()).unwrap();
        assert!(text.ends_with("}\n"), "{text}");
        // Nothing but the file is left in the folder (no temporary file).
        let entries = std::fs::read_dir(file.path().parent().unwrap()).unwrap();
        assert_eq!(entries.count(), 1);
    }

    #[test]
    fn other_keys_and_servers_stay_as_they_were_in_their_places() {
        let (_dir, file) = file_with(FILE);
        std::fs::set_permissions(file.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
        let before = read(&file);
        file.save(&snippet(r#"{"fourth": {"command": "four"}}"#), None)
            .unwrap();
        let after = read(&file);
        assert_eq!(keys(&after), ["globalShortcut", "mcpServers", "theme"]);
        assert_eq!(after["theme"], before["theme"]);
        assert_eq!(after["globalShortcut"], before["globalShortcut"]);
        assert_eq!(
            keys(&after["mcpServers"]),
            ["first", "second", "third", "fourth"]
        );
        for name in ["first", "second", "third"] {
            assert_eq!(
                after["mcpServers"][name], before["mcpServers"][name],
                "{name}"
            );
        }
        // Entries may hold tokens: the file ends up private whatever it was.
        assert_eq!(mode(file.path()), 0o600);
    }

    #[test]
    fn replacing_keeps_the_place_and_renaming_keeps_it_too() {
        let (_dir, file) = file_with(FILE);
        file.save(
            &snippet(r#"{"mcpServers": {"second": {"command": "two"}}}"#),
            Some("second"),
        )
        .unwrap();
        let after = read(&file);
        assert_eq!(keys(&after["mcpServers"]), ["first", "second", "third"]);
        assert_eq!(
            after["mcpServers"]["second"],
            serde_json::json!({"command": "two"})
        );

        file.save(&snippet(r#"{"deuce": {"command": "two"}}"#), Some("second"))
            .unwrap();
        let after = read(&file);
        assert_eq!(keys(&after["mcpServers"]), ["first", "deuce", "third"]);
        assert_eq!(file.names().unwrap(), ["first", "deuce", "third"]);
    }

    #[test]
    fn names_in_use_are_refused_unless_it_is_the_server_being_edited() {
        let (_dir, file) = file_with(FILE);
        let before = std::fs::read(file.path()).unwrap();
        let error = file
            .save(
                &snippet(r#"{"first": {"command": "x"}, "new": {"command": "y"}}"#),
                None,
            )
            .unwrap_err();
        assert!(
            matches!(&error, EditError::Taken { names, .. } if names == &["first"]),
            "{error:?}"
        );
        assert!(
            error
                .to_string()
                .starts_with("a server named 'first' is already configured in "),
            "{error}"
        );
        // Renaming onto another server's name.
        let error = file
            .save(&snippet(r#"{"third": {"command": "x"}}"#), Some("first"))
            .unwrap_err();
        assert!(matches!(error, EditError::Taken { .. }), "{error:?}");
        // Editing one server with a snippet of two.
        let error = file
            .save(
                &snippet(r#"{"a": {"command": "x"}, "b": {"command": "y"}}"#),
                Some("first"),
            )
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "the JSON holds 2 servers; editing 'first' takes exactly one"
        );
        // Editing one that is not there.
        let error = file
            .save(&snippet(r#"{"a": {"command": "x"}}"#), Some("gone"))
            .unwrap_err();
        assert!(
            matches!(error, EditError::UnknownServer { .. }),
            "{error:?}"
        );
        assert_eq!(std::fs::read(file.path()).unwrap(), before);
    }

    #[test]
    fn removing_keeps_the_rest_in_order() {
        let (_dir, file) = file_with(FILE);
        file.remove("second").unwrap();
        let after = read(&file);
        assert_eq!(keys(&after["mcpServers"]), ["first", "third"]);
        assert_eq!(keys(&after), ["globalShortcut", "mcpServers", "theme"]);
        let error = file.remove("second").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("no MCP server named 'second' in "),
            "{error}"
        );
    }

    #[test]
    fn an_entry_opens_as_a_snippet_that_reads_back_the_same() {
        let (_dir, file) = file_with(FILE);
        let text = file.entry_text("first").unwrap();
        let parsed = snippet(&text);
        assert_eq!(parsed.names(), ["first"]);
        assert_eq!(parsed.entries[0].1, read(&file)["mcpServers"]["first"]);
        assert!(
            matches!(&parsed.servers()[0].transport, TransportConfig::Stdio { env, .. } if env["TOKEN"] == "t0k")
        );
        // The key other clients use is kept (and warned about, as in the file).
        assert_eq!(parsed.warnings().len(), 1);
        assert!(matches!(
            file.entry_text("nope"),
            Err(EditError::UnknownServer { .. })
        ));
    }

    #[test]
    fn snippets_come_wrapped_or_bare_and_errors_name_their_lines() {
        let wrapped = snippet(
            r#"{"mcpServers": {"a": {"command": "x"}, "b": {"url": "http://h/mcp"}}, "globalShortcut": ""}"#,
        );
        assert_eq!(wrapped.names(), ["a", "b"]);
        assert_eq!(wrapped.servers()[1].transport.kind(), "http");
        let bare = snippet("{\n  \"a\": {\"command\": \"x\"}\n}");
        assert_eq!(bare.names(), ["a"]);
        assert!(bare.warnings().is_empty());

        let cases = [
            // Wrong type, bare map: the line of the key in the text as typed.
            (
                "{\n  \"github\": {\n    \"command\": \"npx\",\n    \"args\": \"-y\"\n  }\n}",
                "MCP config pasted JSON:4: key 'mcpServers.github.args': expected an array of strings",
            ),
            // Wrong type, wrapped.
            (
                "{\"mcpServers\": {\n  \"g\": {\n    \"command\": \"npx\",\n    \"level\": \"harmless\"\n  }\n}}",
                "MCP config pasted JSON:4: key 'mcpServers.g.level': unknown permission level 'harmless'",
            ),
            // A syntax error: line and column.
            (
                "{\n  \"g\": {\n    \"command\": \"npx\",\n  }\n}",
                "MCP config pasted JSON:4:3: not valid JSON: trailing comma",
            ),
            // One server's settings without a name.
            (
                "{\n  \"command\": \"npx\",\n  \"args\": []\n}",
                "MCP config pasted JSON:2: key 'command': this looks like the settings of one server",
            ),
            (
                "[1]",
                "MCP config pasted JSON:1: key '': expected a JSON object",
            ),
            (
                "{\"a\": {\"args\": []}}",
                "key 'mcpServers.a': a server needs \"command\"",
            ),
        ];
        for (text, expected) in cases {
            let error = Snippet::parse(text).unwrap_err().to_string();
            assert!(error.contains(expected), "{text}\n{error}");
        }
        assert_eq!(Snippet::parse("{}"), Err(EditError::NoServers));
        assert_eq!(
            Snippet::parse(r#"{"mcpServers": {}}"#),
            Err(EditError::NoServers)
        );
    }

    #[test]
    fn a_broken_file_is_left_alone_byte_for_byte() {
        let broken = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": 1}\n  }\n}\n";
        let (_dir, file) = file_with(broken);
        let error = file
            .save(&snippet(r#"{"b": {"command": "x"}}"#), None)
            .unwrap_err();
        assert!(matches!(error, EditError::Broken(_)), "{error:?}");
        let message = error.to_string();
        assert!(
            message.contains("mcp.json:3: key 'mcpServers.a.command': expected a string"),
            "{message}"
        );
        assert!(message.contains("fix the file first"), "{message}");
        assert!(matches!(file.remove("a"), Err(EditError::Broken(_))));
        assert!(matches!(file.names(), Err(EditError::Broken(_))));
        assert_eq!(std::fs::read_to_string(file.path()).unwrap(), broken);

        let (_dir, file) = file_with("{ not json");
        assert!(matches!(
            file.put(&[("x".into(), serde_json::json!({"command": "x"}))]),
            Err(EditError::Broken(ConfigError::Syntax { .. }))
        ));
        assert_eq!(std::fs::read_to_string(file.path()).unwrap(), "{ not json");
    }

    #[test]
    fn a_snippet_that_fails_validation_changes_nothing() {
        let (_dir, file) = file_with(FILE);
        let before = std::fs::read(file.path()).unwrap();
        let modified = std::fs::metadata(file.path()).unwrap().modified().unwrap();
        for text in [
            "{\"x\": {\"command\": \"y\", \"timeout\": \"soon\"}}",
            "{\"x\": {",
            "{\"x\": {\"command\": \"y\", \"url\": \"http://h\"}}",
        ] {
            assert!(Snippet::parse(text).is_err(), "{text}");
        }
        // Entries that only fail once in the file (a put of raw values) are refused too.
        let error = file
            .put(&[("bad".into(), serde_json::json!({"command": ["x"]}))])
            .unwrap_err();
        assert!(matches!(error, EditError::Invalid(_)), "{error:?}");
        assert_eq!(std::fs::read(file.path()).unwrap(), before);
        assert_eq!(
            std::fs::metadata(file.path()).unwrap().modified().unwrap(),
            modified
        );
    }

    #[test]
    fn put_replaces_in_place_and_appends_the_rest() {
        let (_dir, file) = file_with(FILE);
        file.put(&[
            ("third".into(), serde_json::json!({"command": "3"})),
            ("zeta".into(), serde_json::json!({"command": "z"})),
        ])
        .unwrap();
        let after = read(&file);
        assert_eq!(
            keys(&after["mcpServers"]),
            ["first", "second", "third", "zeta"]
        );
        assert_eq!(after["mcpServers"]["third"]["command"], "3");
        assert_eq!(file.put(&[]), Err(EditError::NothingChosen));
    }

    #[test]
    fn a_file_changed_meanwhile_is_not_overwritten() {
        let (_dir, file) = file_with(FILE);
        let current = file.load().unwrap();
        let theirs = FILE.replace("three", "3");
        std::fs::write(file.path(), &theirs).unwrap();
        let error = file.commit(current, Map::new()).unwrap_err();
        assert!(matches!(error, EditError::Changed { .. }), "{error:?}");
        assert_eq!(std::fs::read_to_string(file.path()).unwrap(), theirs);
    }

    #[test]
    fn an_edit_of_an_entry_changed_since_it_was_opened_is_refused() {
        let (_dir, file) = file_with(FILE);
        let opened = file.entry_text("third").unwrap();
        let edit =
            Snippet::parse(r#"{"third": {"command": "three", "args": ["--mine"]}}"#).unwrap();
        // Another program changes another server: the edit still goes in.
        std::fs::write(file.path(), FILE.replace(r#""one""#, r#""uno""#)).unwrap();
        file.save_edit(&edit, "third", &opened).unwrap();
        assert_eq!(read(&file)["mcpServers"]["third"]["args"][0], "--mine");
        assert_eq!(read(&file)["mcpServers"]["first"]["command"], "uno");
        // Another program changes the server being edited: refused, their change kept.
        let opened = file.entry_text("third").unwrap();
        let theirs = std::fs::read_to_string(file.path())
            .unwrap()
            .replace("--mine", "--theirs");
        std::fs::write(file.path(), &theirs).unwrap();
        let error = file.save_edit(&edit, "third", &opened).unwrap_err();
        assert!(
            matches!(&error, EditError::EditedElsewhere { name, .. } if name == "third"),
            "{error:?}"
        );
        assert!(error.to_string().contains("Open it again"), "{error}");
        assert_eq!(std::fs::read_to_string(file.path()).unwrap(), theirs);
    }

    #[test]
    fn a_symlinked_file_is_written_through_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let dotfiles = dir.path().join("dotfiles");
        std::fs::create_dir(&dotfiles).unwrap();
        std::fs::write(dotfiles.join("mcp.json"), FILE).unwrap();
        let config = dir.path().join("config/gantry");
        std::fs::create_dir_all(&config).unwrap();
        let link = config.join("mcp.json");
        std::os::unix::fs::symlink(dotfiles.join("mcp.json"), &link).unwrap();
        let file = UserFile::new(&link);
        file.remove("first").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(keys(&read(&file)["mcpServers"]), ["second", "third"]);
    }
}
