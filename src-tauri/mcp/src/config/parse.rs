//! Parsing a file's text into servers: strict about shapes, lenient about extras.
//!
//! A key Gantry does not know is a warning (another client may use it); a key with the wrong
//! type is an error that names the file, the line and the key's path, so the user can fix it
//! without guessing. The accepted shapes are the ecosystem's (`command`/`args`/`env`/`cwd`,
//! `url`/`headers` with an optional `type`) plus Gantry's own optional keys.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use gantry_tools::PermissionLevel;
use serde_json::{Map, Value};

use super::locate::locate_key;
use super::{ConfigError, ConfigFile, ConfigOrigin, ServerConfig, TransportConfig, sha256_hex};

const SERVER_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "type",
    "url",
    "headers",
    "disabled",
    "level",
    "tools",
    "timeout",
    "startupTimeout",
];

/// Parses the text of a file that came from `origin`.
pub fn parse_config(text: &str, origin: ConfigOrigin) -> Result<ConfigFile, ConfigError> {
    let file = origin.path().to_path_buf();
    let value: Value = serde_json::from_str(text).map_err(|error| syntax_error(&file, &error))?;
    let reader = Reader { text, file: &file };
    let Value::Object(top) = value else {
        return Err(reader.invalid(&[], "the file must hold a JSON object with \"mcpServers\""));
    };
    let mut warnings = Vec::new();
    for key in top.keys().filter(|key| *key != "mcpServers") {
        warnings.push(reader.warning(&[key], format!("unknown key '{key}' ignored")));
    }
    let mut servers = Vec::new();
    match top.get("mcpServers") {
        None | Some(Value::Null) => {}
        Some(Value::Object(entries)) => {
            for (name, entry) in entries {
                servers.push(reader.server(name, entry, &origin, &mut warnings)?);
            }
        }
        Some(_) => {
            return Err(reader.invalid(&["mcpServers"], "expected an object of servers by name"));
        }
    }
    Ok(ConfigFile {
        servers,
        warnings,
        sha256: sha256_hex(text.as_bytes()),
    })
}

/// The error for text of `file` that serde_json could not read as JSON.
pub(crate) fn syntax_error(file: &Path, error: &serde_json::Error) -> ConfigError {
    ConfigError::Syntax {
        file: file.to_owned(),
        line: error.line(),
        column: error.column(),
        message: strip_position(&error.to_string()),
    }
}

/// serde_json appends " at line L column C"; the error already carries them.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(index) => message[..index].to_owned(),
        None => message.to_owned(),
    }
}

struct Reader<'a> {
    text: &'a str,
    file: &'a Path,
}

impl Reader<'_> {
    fn line_of(&self, path: &[&str]) -> usize {
        locate_key(self.text, path).unwrap_or(1)
    }

    fn invalid(&self, path: &[&str], message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.to_owned(),
            line: self.line_of(path),
            key: path.join("."),
            message: message.into(),
        }
    }

    fn warning(&self, path: &[&str], message: String) -> String {
        format!("{}:{}: {message}", self.file.display(), self.line_of(path))
    }

    fn server(
        &self,
        name: &str,
        entry: &Value,
        origin: &ConfigOrigin,
        warnings: &mut Vec<String>,
    ) -> Result<ServerConfig, ConfigError> {
        let at = |key: &'static str| ["mcpServers", name, key];
        let Value::Object(fields) = entry else {
            return Err(self.invalid(&["mcpServers", name], "expected an object"));
        };
        if name.is_empty() {
            return Err(self.invalid(&["mcpServers", name], "a server needs a non-empty name"));
        }
        for key in fields.keys() {
            if !SERVER_KEYS.contains(&key.as_str()) {
                warnings.push(self.warning(
                    &["mcpServers", name, key],
                    format!("server '{name}': unknown key '{key}' ignored"),
                ));
            }
        }
        let kind = self.opt_string(fields, &at("type"))?;
        let url = self.opt_string(fields, &at("url"))?;
        let command = self.opt_string(fields, &at("command"))?;
        let transport = match (kind.as_deref(), url, command) {
            (Some("sse"), url, _) => TransportConfig::Sse {
                url: url.unwrap_or_default(),
            },
            (Some("http" | "streamable-http" | "streamableHttp") | None, Some(url), None) => {
                TransportConfig::Http {
                    url,
                    headers: self.string_map(fields, &at("headers"))?,
                }
            }
            (Some("stdio") | None, None, Some(command)) => TransportConfig::Stdio {
                command,
                args: self.string_list(fields, &at("args"))?,
                env: self.string_map(fields, &at("env"))?,
                cwd: self.opt_string(fields, &at("cwd"))?,
            },
            (Some(other), _, _)
                if !matches!(
                    other,
                    "stdio" | "http" | "streamable-http" | "streamableHttp"
                ) =>
            {
                return Err(self.invalid(
                    &at("type"),
                    format!("unknown transport '{other}' (expected stdio, http or sse)"),
                ));
            }
            (_, Some(_), Some(_)) => {
                return Err(self.invalid(
                    &["mcpServers", name],
                    "give either \"command\" (a local program) or \"url\" (a remote server), not both",
                ));
            }
            (Some("stdio"), _, None) => {
                return Err(self.invalid(&at("command"), "a stdio server needs \"command\""));
            }
            (_, None, _) => {
                return Err(self.invalid(
                    &["mcpServers", name],
                    "a server needs \"command\" (a local program) or \"url\" (a remote server)",
                ));
            }
            (_, Some(_), None) => {
                return Err(self.invalid(&at("url"), "a stdio server can't have a \"url\""));
            }
        };
        if let TransportConfig::Stdio { command, .. } = &transport
            && command.trim().is_empty()
        {
            return Err(self.invalid(&at("command"), "must not be empty"));
        }
        let disabled = match fields.get("disabled") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(flag)) => *flag,
            Some(_) => return Err(self.invalid(&at("disabled"), "expected true or false")),
        };
        let level = self.opt_level(fields.get("level"), &at("level"))?;
        let mut tool_levels = BTreeMap::new();
        match fields.get("tools") {
            None | Some(Value::Null) => {}
            Some(Value::Object(tools)) => {
                for (tool, settings) in tools {
                    let path = ["mcpServers", name, "tools", tool.as_str()];
                    let Value::Object(settings) = settings else {
                        return Err(
                            self.invalid(&path, "expected an object like {\"level\": \"safe\"}")
                        );
                    };
                    let level_path = ["mcpServers", name, "tools", tool.as_str(), "level"];
                    if let Some(level) = self.opt_level(settings.get("level"), &level_path)? {
                        tool_levels.insert(tool.clone(), level);
                    }
                    for key in settings.keys().filter(|key| *key != "level") {
                        warnings.push(self.warning(
                            &["mcpServers", name, "tools", tool.as_str(), key],
                            format!("server '{name}', tool '{tool}': unknown key '{key}' ignored"),
                        ));
                    }
                }
            }
            Some(_) => {
                return Err(self.invalid(
                    &at("tools"),
                    "expected an object of tools by name, like {\"delete\": {\"level\": \"dangerous\"}}",
                ));
            }
        }
        Ok(ServerConfig {
            name: name.to_owned(),
            origin: origin.clone(),
            transport,
            disabled,
            level,
            tool_levels,
            call_timeout: self.opt_seconds(fields, &at("timeout"))?,
            startup_timeout: self.opt_seconds(fields, &at("startupTimeout"))?,
        })
    }

    fn opt_string(
        &self,
        fields: &Map<String, Value>,
        path: &[&str; 3],
    ) -> Result<Option<String>, ConfigError> {
        match fields.get(path[2]) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(self.invalid(path, "expected a string")),
        }
    }

    fn string_list(
        &self,
        fields: &Map<String, Value>,
        path: &[&str; 3],
    ) -> Result<Vec<String>, ConfigError> {
        match fields.get(path[2]) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text.clone()),
                    _ => Err(self.invalid(path, "expected an array of strings")),
                })
                .collect(),
            Some(_) => Err(self.invalid(path, "expected an array of strings")),
        }
    }

    fn string_map(
        &self,
        fields: &Map<String, Value>,
        path: &[&str; 3],
    ) -> Result<BTreeMap<String, String>, ConfigError> {
        match fields.get(path[2]) {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(key, value)| match value {
                    Value::String(text) => Ok((key.clone(), text.clone())),
                    // Numbers and booleans are common in hand-written env blocks.
                    Value::Number(number) => Ok((key.clone(), number.to_string())),
                    Value::Bool(flag) => Ok((key.clone(), flag.to_string())),
                    _ => Err(self.invalid(
                        &[path[0], path[1], path[2], key.as_str()],
                        "expected a string",
                    )),
                })
                .collect(),
            Some(_) => Err(self.invalid(path, "expected an object of strings")),
        }
    }

    fn opt_level(
        &self,
        value: Option<&Value>,
        path: &[&str],
    ) -> Result<Option<PermissionLevel>, ConfigError> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => {
                text.parse()
                    .map(Some)
                    .map_err(|error: gantry_tools::ParseNameError| {
                        self.invalid(path, error.to_string())
                    })
            }
            Some(_) => Err(self.invalid(path, "expected \"safe\", \"sensitive\" or \"dangerous\"")),
        }
    }

    fn opt_seconds(
        &self,
        fields: &Map<String, Value>,
        path: &[&str; 3],
    ) -> Result<Option<Duration>, ConfigError> {
        match fields.get(path[2]) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(number)) => match number.as_f64() {
                Some(seconds) if seconds > 0.0 && seconds <= 86_400.0 => {
                    Ok(Some(Duration::from_secs_f64(seconds)))
                }
                _ => Err(self.invalid(path, "expected a number of seconds between 0 and 86400")),
            },
            Some(_) => Err(self.invalid(path, "expected a number of seconds")),
        }
    }
}
