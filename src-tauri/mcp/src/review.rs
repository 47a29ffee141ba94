//! What trusting a project's `.mcp.json` covers, and what the trust step shows.
//!
//! A project file names programs, and those programs are often the repository's own files
//! (`"command": "./tools/server.sh"`, `"args": ["server.js"]`). Trusting the file's bytes alone
//! would let a later commit change the script and run it with no new question, so the approval
//! is bound to a **fingerprint**: the file's SHA-256 together with the path and SHA-256 of every
//! in-project file an entry runs — its command when that resolves inside the project (a path, or
//! a bare name found on the `PATH` the entry sets), and each argument that names a file inside
//! the project (relative to the entry's working folder). A file that is missing counts as
//! missing, so one appearing later also asks again. Without such files the fingerprint is the
//! file's own hash, so approvals of plain files stay valid.
//!
//! The trust step shows what would run: each server's command line, the files above, and its
//! `env` with values — masked when they look secret — flagging the variables that change which
//! program runs or what it loads (`PATH`, `LD_PRELOAD`, `NODE_OPTIONS`, `npm_config_*`, ...),
//! since an innocent-looking `npx` under `"PATH": "./.devtools:..."` is the repository's program.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::{ConfigFile, ServerConfig, TransportConfig, TransportSummary, sha256_hex};

/// The most bytes of one file hashed into a fingerprint; a larger file is hashed up to here and
/// its size added (a server script is a few KiB; a 1 GiB "script" should not stall the start).
const MAX_HASHED_BYTES: u64 = 64 * 1024 * 1024;

/// An in-project file an entry runs, as approved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunFile {
    /// The path relative to the project root.
    pub path: String,
    /// Its content's SHA-256 (hex), or `None` when there is no such file (yet).
    pub sha256: Option<String>,
}

/// One environment variable of an entry, as the trust step shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvReview {
    /// The variable.
    pub name: String,
    /// Its value as written (`${VAR}` references shown as such), or `••••••` when it looks
    /// like a secret.
    pub value: String,
    /// Whether the value was masked.
    pub masked: bool,
    /// Why this variable changes what runs, when it does (e.g. "chooses which programs run").
    pub changes_what_runs: Option<String>,
}

/// What one server of a project file would do once trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerReview {
    /// The server's name.
    pub name: String,
    /// The command line or URL.
    pub transport: TransportSummary,
    /// The working folder as written.
    pub cwd: Option<String>,
    /// Its `env`, values shown (secrets masked) and risky names flagged.
    pub env: Vec<EnvReview>,
    /// The names (never the values) of its headers.
    pub headers: Vec<String>,
    /// The `${VAR}`s it reads from the user's environment.
    pub variables: Vec<String>,
    /// The in-project files it runs, whose content the approval covers.
    pub files: Vec<RunFile>,
    /// Whether the file switches it off (`"disabled": true`).
    pub disabled: bool,
}

/// A project file as the trust step shows it, with the fingerprint approving it records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectReview {
    /// Its servers, in file order.
    pub servers: Vec<ServerReview>,
    /// What an approval of exactly this is bound to.
    pub fingerprint: String,
}

/// Reviews a project file of the project at `root` (reading the files its entries run).
pub fn review_project_file(file: &ConfigFile, root: &Path) -> ProjectReview {
    let servers: Vec<ServerReview> = file
        .servers
        .iter()
        .map(|server| review_server(server, root))
        .collect();
    let fingerprint = fingerprint(&file.sha256, servers.iter().flat_map(|s| s.files.iter()));
    ProjectReview {
        servers,
        fingerprint,
    }
}

/// The fingerprint of a file with hash `file_sha256` whose entries run `files`: the file's hash
/// alone when there are none.
pub fn fingerprint<'a>(file_sha256: &str, files: impl Iterator<Item = &'a RunFile>) -> String {
    let mut files: Vec<&RunFile> = files.collect();
    if files.is_empty() {
        return file_sha256.to_owned();
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.dedup_by(|a, b| a.path == b.path);
    let mut text = format!("gantry-mcp-trust-v1\n{file_sha256}\n");
    for file in files {
        text.push_str(&file.path);
        text.push('\0');
        text.push_str(file.sha256.as_deref().unwrap_or("missing"));
        text.push('\n');
    }
    sha256_hex(text.as_bytes())
}

/// One server's review.
pub fn review_server(server: &ServerConfig, root: &Path) -> ServerReview {
    let (env, headers, cwd) = match &server.transport {
        TransportConfig::Stdio { env, cwd, .. } => (
            env.iter()
                .map(|(name, value)| review_env(name, value))
                .collect(),
            Vec::new(),
            cwd.clone(),
        ),
        TransportConfig::Http { headers, .. } => {
            (Vec::new(), headers.keys().cloned().collect(), None)
        }
        TransportConfig::Sse { .. } => (Vec::new(), Vec::new(), None),
    };
    ServerReview {
        name: server.name.clone(),
        transport: server.transport.summary(),
        cwd,
        env,
        headers,
        variables: server.referenced_variables(),
        files: run_files(server, root),
        disabled: server.disabled,
    }
}

/// The in-project files `server` runs, each with its current hash.
pub fn run_files(server: &ServerConfig, root: &Path) -> Vec<RunFile> {
    let TransportConfig::Stdio {
        command,
        args,
        env,
        cwd,
    } = &server.transport
    else {
        return Vec::new();
    };
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let workdir = match cwd {
        Some(dir) if !dir.contains('$') => normalize(&root.join(dir)),
        _ => root.clone(),
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    if command.contains('/') {
        if !command.contains('$') {
            // Commands resolve against the project root (see the connection's resolve_program).
            paths.push(normalize(&root.join(command)));
        }
    } else if let Some(found) = on_path(command, env.get("PATH").map(String::as_str), &workdir) {
        paths.push(found);
    }
    for arg in args {
        if arg.starts_with('-') || arg.contains('$') || arg.is_empty() {
            continue;
        }
        let candidate = normalize(&workdir.join(arg));
        let looks_like_a_path =
            arg.contains('/') || Path::new(arg).extension().is_some() || candidate.is_file();
        if looks_like_a_path && !candidate.is_dir() {
            paths.push(candidate);
        }
    }
    let mut files: Vec<RunFile> = paths
        .into_iter()
        .filter_map(|path| {
            // Symlinks are followed: what runs is the target, and it counts only inside.
            let real = path.canonicalize().unwrap_or_else(|_| path.clone());
            let relative = real.strip_prefix(&root).ok()?.to_path_buf();
            Some(RunFile {
                path: relative.to_string_lossy().into_owned(),
                sha256: hash_file(&real),
            })
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.dedup();
    files
}

/// Where a bare command name is found on `path` (the entry's `PATH`, relative folders taken
/// from `workdir`; the process's own `PATH` when the entry sets none), when that is a file.
fn on_path(command: &str, path: Option<&str>, workdir: &Path) -> Option<PathBuf> {
    let inherited;
    let path = match path {
        Some(path) => path,
        None => {
            inherited = std::env::var("PATH").unwrap_or_default();
            &inherited
        }
    };
    path.split(':')
        .filter(|dir| !dir.is_empty() && !dir.contains('$'))
        .map(|dir| normalize(&workdir.join(dir)).join(command))
        .find(|candidate| candidate.is_file())
}

/// `path` with `.` and `..` resolved lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The SHA-256 of a regular file's content, `None` when it is not one.
fn hash_file(path: &Path) -> Option<String> {
    use std::io::Read;
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut hasher = Sha256::new();
    let mut reader = file.take(MAX_HASHED_BYTES);
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => hasher.update(&buffer[..read]),
            Err(_) => return None,
        }
    }
    if metadata.len() > MAX_HASHED_BYTES {
        hasher.update(metadata.len().to_le_bytes());
    }
    Some(
        hasher
            .finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect(),
    )
}

/// How a variable is shown: its value unless it looks secret, and why it matters when it
/// changes what runs.
pub fn review_env(name: &str, value: &str) -> EnvReview {
    // A `${VAR}` reference is not itself a secret; a literal token is.
    let literal_secret =
        !value.contains("${") && gantry_tools::is_secret_var(name, OsStr::new(value));
    let masked = literal_secret || (gantry_tools::is_secret_env(name) && !value.starts_with("${"));
    EnvReview {
        name: name.to_owned(),
        value: if masked {
            "••••••".to_owned()
        } else {
            value.to_owned()
        },
        masked,
        changes_what_runs: changes_what_runs(name).map(str::to_owned),
    }
}

/// Why setting `name` changes which program runs or what it loads, if it does.
pub fn changes_what_runs(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    let exact: &[(&str, &str)] = &[
        ("PATH", "chooses which programs run"),
        ("LD_PRELOAD", "loads code into every program"),
        ("LD_LIBRARY_PATH", "chooses which libraries programs load"),
        ("LD_AUDIT", "loads code into every program"),
        (
            "NODE_OPTIONS",
            "adds options (and code to load) to every Node.js program",
        ),
        ("NODE_PATH", "chooses which modules Node.js loads"),
        ("PYTHONPATH", "chooses which modules Python loads"),
        ("PYTHONSTARTUP", "runs a file when Python starts"),
        ("PYTHONHOME", "chooses which Python runs"),
        ("PERL5LIB", "chooses which modules Perl loads"),
        ("PERL5OPT", "adds options (and code) to every Perl program"),
        ("RUBYLIB", "chooses which libraries Ruby loads"),
        ("RUBYOPT", "adds options (and code) to every Ruby program"),
        (
            "JAVA_TOOL_OPTIONS",
            "adds options (and agents) to every Java program",
        ),
        (
            "_JAVA_OPTIONS",
            "adds options (and agents) to every Java program",
        ),
        ("CLASSPATH", "chooses which classes Java loads"),
        ("BASH_ENV", "runs a file before every bash script"),
        ("ENV", "runs a file when a shell starts"),
        ("SHELL", "chooses the shell programs start"),
        ("HOME", "moves where programs read their configuration"),
        (
            "XDG_CONFIG_HOME",
            "moves where programs read their configuration",
        ),
        ("RUSTC_WRAPPER", "runs a program around the compiler"),
        ("GOFLAGS", "adds options to every go command"),
    ];
    if let Some((_, why)) = exact.iter().find(|(known, _)| *known == upper) {
        return Some(why);
    }
    let prefixes: &[(&str, &str)] = &[
        ("NPM_CONFIG_", "changes what npm and npx install and run"),
        ("YARN_", "changes what yarn installs and runs"),
        ("PIP_", "changes what pip installs"),
        ("UV_", "changes what uv and uvx install and run"),
        ("GIT_", "changes what git runs and where it reads"),
        ("DYLD_", "loads code into every program"),
        ("CARGO_", "changes what cargo builds and runs"),
    ];
    prefixes
        .iter()
        .find(|(prefix, _)| upper.starts_with(prefix))
        .map(|(_, why)| *why)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::config::{ConfigOrigin, parse_config};

    fn project_file(root: &Path, text: &str) -> ConfigFile {
        parse_config(
            text,
            ConfigOrigin::Project {
                path: root.join(".mcp.json"),
                root: root.to_path_buf(),
            },
        )
        .unwrap()
    }

    #[test]
    fn a_changed_script_changes_the_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("tools")).unwrap();
        std::fs::write(root.join("tools/server.sh"), "#!/bin/sh\necho one\n").unwrap();
        std::fs::write(root.join("server.js"), "console.log(1)").unwrap();
        let file = project_file(
            root,
            r#"{"mcpServers": {
                "a": {"command": "./tools/server.sh"},
                "b": {"command": "node", "args": ["--flag", "server.js", "stdio"]},
                "c": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}
            }}"#,
        );
        let first = review_project_file(&file, root);
        let files: Vec<&str> = first
            .servers
            .iter()
            .flat_map(|s| s.files.iter().map(|f| f.path.as_str()))
            .collect();
        assert!(files.contains(&"tools/server.sh"), "{files:?}");
        assert!(files.contains(&"server.js"), "{files:?}");
        assert_ne!(first.fingerprint, file.sha256);
        // Nothing changed: the same fingerprint.
        assert_eq!(
            review_project_file(&file, root).fingerprint,
            first.fingerprint
        );
        // The script changed: another one.
        std::fs::write(root.join("tools/server.sh"), "#!/bin/sh\necho two\n").unwrap();
        let second = review_project_file(&file, root);
        assert_ne!(second.fingerprint, first.fingerprint);
        // An argument's file changed: another one again.
        std::fs::write(root.join("server.js"), "console.log(2)").unwrap();
        assert_ne!(
            review_project_file(&file, root).fingerprint,
            second.fingerprint
        );
    }

    #[test]
    fn a_file_without_local_programs_keeps_its_plain_hash() {
        let dir = tempfile::tempdir().unwrap();
        let file = project_file(
            dir.path(),
            r#"{"mcpServers": {"r": {"url": "http://127.0.0.1:1/mcp"}, "s": {"command": "sh", "args": ["-c", "exit 0"]}}}"#,
        );
        assert_eq!(
            review_project_file(&file, dir.path()).fingerprint,
            file.sha256
        );
    }

    #[test]
    fn a_path_entry_inside_the_project_covers_the_program_it_finds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".devtools")).unwrap();
        std::fs::write(root.join(".devtools/npx"), "#!/bin/sh\n").unwrap();
        let file = project_file(
            root,
            r#"{"mcpServers": {"a": {"command": "npx", "args": ["-y", "x"], "env": {"PATH": "./.devtools:/usr/bin"}}}}"#,
        );
        let review = review_project_file(&file, root);
        let server = &review.servers[0];
        assert_eq!(server.files.len(), 1);
        assert_eq!(server.files[0].path, ".devtools/npx");
        assert_eq!(
            server.env,
            [EnvReview {
                name: "PATH".into(),
                value: "./.devtools:/usr/bin".into(),
                masked: false,
                changes_what_runs: Some("chooses which programs run".into()),
            }]
        );
    }

    #[test]
    fn env_values_are_shown_secrets_masked_and_risky_names_flagged() {
        let cases: BTreeMap<&str, (&str, bool, bool)> = BTreeMap::from([
            // name: (value, masked, flagged)
            ("DEBUG", ("1", false, false)),
            (
                "GITHUB_TOKEN",
                ("ghp_0123456789abcdefghijklmnopqrstuvwxyz", true, false),
            ),
            ("API_KEY", ("${API_KEY}", false, false)),
            ("DATABASE_URL", ("postgres://u:hunter2@db/x", true, false)),
            ("LD_PRELOAD", ("./evil.so", false, true)),
            ("npm_config_registry", ("http://evil.invalid", false, true)),
            ("GIT_SSH_COMMAND", ("sh -c x", false, true)),
            ("NODE_OPTIONS", ("--require ./x.js", false, true)),
        ]);
        for (name, (value, masked, flagged)) in cases {
            let review = review_env(name, value);
            assert_eq!(review.masked, masked, "{name}");
            assert_eq!(review.changes_what_runs.is_some(), flagged, "{name}");
            if masked {
                assert!(!review.value.contains(&value[3..]), "{name}");
            } else {
                assert_eq!(review.value, value);
            }
        }
    }

    #[test]
    fn files_outside_the_project_are_not_covered() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("s.sh"), "x").unwrap();
        let text = format!(
            r#"{{"mcpServers": {{"a": {{"command": "{}/s.sh", "args": ["../x.js"]}}}}}}"#,
            outside.path().display()
        );
        let file = project_file(dir.path(), &text);
        assert!(
            review_project_file(&file, dir.path()).servers[0]
                .files
                .is_empty()
        );
    }
}
