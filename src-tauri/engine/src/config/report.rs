//! The project's configuration as one report: every file found, what was read from it, what
//! was not understood, and what waits for the user's trust — what `gantry-cli config` prints
//! and the "Project configuration" view shows.

use std::path::Path;

use crate::chat::slash::BUILTIN_COMMANDS;
use gantry_config::settings::{self, SettingsFile};
use gantry_config::{ConfigReport, ConfigScope, Locations, SourceFile, TrustedFiles};
use gantry_config::{extensions, hooks, instructions, permissions};
use gantry_mcp::{ConfigOrigin, PROJECT_FILE, TransportSummary, read_config, review_project_file};

/// Everything the project and the user configured for other agents, each file marked trusted or
/// not against `trusted`.
pub fn project_report(at: &Locations, trusted: &TrustedFiles) -> ConfigReport {
    let mut report = instructions::report(at);
    let claude_settings = settings::claude_settings(at);
    for file in &claude_settings {
        settings_entry(&mut report, file, "settings");
    }
    for file in settings::codex_hooks(at) {
        settings_entry(&mut report, &file, "hooks");
    }
    report.merge(permissions::from_settings(at, &claude_settings, trusted).report);
    report.merge(hooks::load_hooks(at, trusted).1);
    extensions::discover(at, trusted, &BUILTIN_COMMANDS, &mut report);
    mcp_entry(&mut report, at);
    mark_trusted(&mut report, trusted);
    report
}

/// A settings file's own entry: found, readable or why not.
fn settings_entry(report: &mut ConfigReport, file: &SettingsFile, kind: &str) {
    let entry = report.file_mut(&file.source, kind);
    entry.sha256.clone_from(&file.sha256);
    entry.problem.clone_from(&file.problem);
}

/// The project's `.mcp.json`: its servers wait for trust (bound to the fingerprint of the file
/// and the files its servers run, as `gantry-cli mcp trust` binds it).
fn mcp_entry(report: &mut ConfigReport, at: &Locations) {
    let path = at.project.join(PROJECT_FILE);
    let origin = ConfigOrigin::Project {
        path: path.clone(),
        root: at.project.clone(),
    };
    let source = SourceFile::at(at, path, ConfigScope::Project);
    match read_config(origin) {
        Ok(None) => {}
        Ok(Some(file)) => {
            let review = review_project_file(&file, &at.project);
            let entry = report.file_mut(&source, "mcp");
            entry.sha256 = review.fingerprint;
            for server in &review.servers {
                let what = match &server.transport {
                    TransportSummary::Stdio { command, args } => {
                        format!(
                            "MCP server {}: runs {}",
                            server.name,
                            command_line(command, args)
                        )
                    }
                    TransportSummary::Http { url } | TransportSummary::Sse { url } => {
                        format!("MCP server {}: connects to {url}", server.name)
                    }
                };
                entry.waits_for_trust.push(what);
            }
        }
        Err(error) => report.file_mut(&source, "mcp").problem = Some(error.to_string()),
    }
}

fn command_line(command: &str, args: &[String]) -> String {
    std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Marks each entry trusted when its file needs no trust or was trusted with this content.
/// What waits for trust moves to `read` once trusted, so each line says where it stands.
pub fn mark_trusted(report: &mut ConfigReport, trusted: &TrustedFiles) {
    for entry in &mut report.files {
        entry.trusted = !entry.source.scope.needs_trust()
            || (!entry.sha256.is_empty() && trusted.covers(&entry.source, &entry.sha256));
        if entry.trusted && !entry.waits_for_trust.is_empty() {
            let waiting = std::mem::take(&mut entry.waits_for_trust);
            entry.read.extend(waiting);
        }
    }
}

/// True when `path` is the project's `.mcp.json` (whose approval the MCP hub records).
pub fn is_project_mcp_file(at: &Locations, path: &Path) -> bool {
    path == at.project.join(PROJECT_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_and_mcp_files_are_listed_with_what_waits_for_trust() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let (project, home) = (root.join("p"), root.join("h"));
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(project.join(".claude/settings.json"), "{ broken").unwrap();
        std::fs::write(
            project.join(".mcp.json"),
            r#"{"mcpServers": {"files": {"command": "npx", "args": ["-y", "server-files"]}}}"#,
        )
        .unwrap();
        let at = Locations::new(&project, Some(home));
        let report = project_report(&at, &TrustedFiles::none());
        let shown: Vec<_> = report
            .files
            .iter()
            .map(|f| f.source.shown.as_str())
            .collect();
        assert_eq!(shown, [".claude/settings.json", ".mcp.json"]);
        assert!(
            report.files[0]
                .problem
                .as_deref()
                .unwrap()
                .contains("not valid JSON")
        );
        assert_eq!(
            report.files[1].waits_for_trust,
            ["MCP server files: runs npx -y server-files"]
        );
        assert!(!report.files[1].trusted);
        assert_eq!(report.untrusted().count(), 1);

        let mut trusted = TrustedFiles::none();
        trusted.approve(project.join(".mcp.json"), report.files[1].sha256.clone());
        let report = project_report(&at, &trusted);
        assert!(report.files[1].trusted);
        assert!(report.files[1].waits_for_trust.is_empty());
        assert_eq!(report.files[1].read.len(), 1);
        assert_eq!(report.untrusted().count(), 0);
    }
}
