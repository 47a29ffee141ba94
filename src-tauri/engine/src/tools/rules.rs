//! A project's commands and rules: how run_command is sandboxed there (the system's sandbox,
//! the network switch, extra writable folders), the variables passed to commands on purpose,
//! and the rules that last (allow and deny, per tool, command key or path glob).
//!
//! The database holds the choices; the project's [`ToolManager`] holds what the next call
//! follows. Everything here changes the store first and then the manager (so the panel never
//! shows a choice the next start would not find), for the desktop app's Tools panel and for
//! `gantry-cli tools rules|env|sandbox` alike. [`apply_saved`] loads all of it when a project
//! opens.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gantry_store::{ProjectCommandSettings, ProjectId, Store, StoreError};
use gantry_tools::{PassList, RuleSpec, SandboxSettings, ToolManager, ToolRule, pass_refusal};
use serde::{Deserialize, Serialize};

use crate::config::rules::{ExternalRulesView, external_rules_view, reload_external_rules};
use crate::error::CommandError;

/// How a project's commands run, as the Tools panel shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CommandSettingsView {
    /// Why commands run without the OS sandbox on this system (a sentence, "Commands are not
    /// sandboxed on this system: ..."); `null` when they are sandboxed.
    pub unsandboxed: Option<String>,
    /// How the sandbox falls short on this system (empty on a current one).
    pub limits: Vec<String>,
    /// The settings the panel edits.
    #[serde(flatten)]
    #[ts(flatten)]
    pub settings: SaveCommandSettingsRequest,
}

/// The command settings to save: the whole set, as the panel edits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SaveCommandSettingsRequest {
    /// Commands may use the network.
    pub network: bool,
    /// Folders outside the project commands may write to (absolute, existing).
    pub writable: Vec<String>,
    /// Variables commands receive on purpose.
    pub env_pass: Vec<String>,
}

/// One rule as the Tools panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RuleView {
    /// The rule (what changing or removing it names).
    pub rule: ToolRule,
    /// How the user reads it: `allow run_command: cargo test`.
    pub label: String,
    /// How many calls it decided (allowed or refused), from the audit log.
    pub uses: u64,
}

/// A rule to save: a new rule, or a changed one.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SaveRuleRequest {
    /// The rule to change; absent for a new one.
    #[serde(default)]
    #[ts(optional)]
    pub id: Option<i64>,
    /// What it says.
    pub spec: RuleSpec,
}

/// A rule to remove.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RemoveRuleRequest {
    /// The rule's id.
    pub id: i64,
}

/// One project's commands and rules: the store it is remembered in and the manager that
/// follows them.
#[derive(Clone)]
pub struct ProjectCommands {
    store: Store,
    project: ProjectId,
    tools: Arc<ToolManager>,
}

impl std::fmt::Debug for ProjectCommands {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProjectCommands")
            .field("project", &self.project)
            .finish_non_exhaustive()
    }
}

impl ProjectCommands {
    /// The commands and rules of `project`, whose tools are `tools`.
    pub fn new(store: Store, project: ProjectId, tools: Arc<ToolManager>) -> Self {
        Self {
            store,
            project,
            tools,
        }
    }

    /// How commands run now.
    pub fn settings(&self) -> CommandSettingsView {
        let sandbox = self.tools.sandbox();
        let settings = sandbox.settings();
        CommandSettingsView {
            unsandboxed: sandbox.sandbox().err(),
            limits: sandbox.limits(),
            settings: SaveCommandSettingsRequest {
                network: settings.network,
                writable: settings
                    .writable
                    .iter()
                    .map(|path| path.display().to_string())
                    .collect(),
                env_pass: self
                    .tools
                    .project()
                    .env_pass()
                    .names()
                    .map(str::to_owned)
                    .collect(),
            },
        }
    }

    /// Checks, saves and applies the whole set; the next command follows it. A folder that is
    /// not an existing absolute folder, or a variable Gantry never passes, is
    /// [`crate::ErrorKind::InvalidInput`] and nothing changes.
    pub async fn save_settings(
        &self,
        request: &SaveCommandSettingsRequest,
    ) -> Result<CommandSettingsView, CommandError> {
        let mut writable = Vec::new();
        for path in &request.writable {
            let folder = checked_folder(path.trim(), self.tools.root())?;
            if !writable.contains(&folder) {
                writable.push(folder);
            }
        }
        let mut env_pass: Vec<String> = Vec::new();
        for name in &request.env_pass {
            let name = checked_variable(name)?;
            if !env_pass.contains(&name) {
                env_pass.push(name);
            }
        }
        let settings = ProjectCommandSettings {
            network: request.network,
            writable,
            env_pass,
        };
        self.store
            .command_options()
            .save(self.project, &settings)
            .await?;
        apply_settings(&self.tools, &settings);
        Ok(self.settings())
    }

    /// The project's rules with how often each decided a call.
    pub async fn rules(&self) -> Result<Vec<RuleView>, CommandError> {
        let rules = self.store.rules().list(self.project).await?;
        let uses: HashMap<i64, u64> = self
            .store
            .rules()
            .uses(self.project)
            .await?
            .into_iter()
            .collect();
        Ok(rules
            .into_iter()
            .map(|rule| RuleView {
                label: rule.spec.to_string(),
                uses: uses.get(&rule.id).copied().unwrap_or_default(),
                rule,
            })
            .collect())
    }

    /// Adds a rule (or changes rule `request.id`), reloads the manager's rules and returns the
    /// list. An unknown tool is refused unless a rule for it exists already (a server that
    /// is not running has no tools to check against).
    pub async fn save_rule(
        &self,
        request: &SaveRuleRequest,
    ) -> Result<Vec<RuleView>, CommandError> {
        let rules = self.store.rules();
        match request.id {
            Some(id) => {
                rules.update(self.project, id, request.spec.clone()).await?;
            }
            None => {
                rules.add(self.project, request.spec.clone()).await?;
            }
        }
        self.reload_rules().await?;
        self.rules().await
    }

    /// Removes rule `id` and returns the rules left. A rule that is not there:
    /// [`crate::ErrorKind::NotFound`].
    pub async fn remove_rule(&self, id: i64) -> Result<Vec<RuleView>, CommandError> {
        let removed = self.store.rules().remove(self.project, id).await?;
        if !removed {
            return Err(CommandError::not_found(format!(
                "this project has no rule {id}"
            )));
        }
        self.reload_rules().await?;
        self.rules().await
    }

    /// The rules of the project's Claude Code settings, read again from their files (what
    /// the Tools panel and `gantry-cli tools rules list` show beside Gantry's own).
    pub async fn external_rules(&self) -> ExternalRulesView {
        reload_external_rules(&self.store, self.project, &self.tools).await;
        external_rules_view(&self.tools)
    }

    /// Reads the rules from the store into the manager.
    pub async fn reload_rules(&self) -> Result<(), CommandError> {
        let rules = self.store.rules().list(self.project).await?;
        self.tools.rules().replace(rules);
        Ok(())
    }
}

/// An existing absolute folder, canonical, that commands may be given to write to.
fn checked_folder(path: &str, project_root: &Path) -> Result<PathBuf, CommandError> {
    let given = Path::new(path);
    if !given.is_absolute() {
        return Err(CommandError::invalid(format!(
            "{path:?} is not an absolute path"
        )));
    }
    let folder = given
        .canonicalize()
        .map_err(|error| CommandError::invalid(format!("{path} cannot be used: {error}")))?;
    if !folder.is_dir() {
        return Err(CommandError::invalid(format!("{path} is not a folder")));
    }
    if folder.parent().is_none() {
        return Err(CommandError::invalid(
            "the whole file system cannot be made writable",
        ));
    }
    if folder.starts_with(project_root) {
        return Err(CommandError::invalid(format!(
            "{path} is inside the project, which commands may write to already"
        )));
    }
    Ok(folder)
}

/// A variable name a project may pass on purpose.
fn checked_variable(name: &str) -> Result<String, CommandError> {
    let name = name.trim();
    if name.is_empty() || name.contains(['=', '\0']) || name.chars().any(char::is_whitespace) {
        return Err(CommandError::invalid(format!(
            "{name:?} is not a variable name"
        )));
    }
    if let Some(why) = pass_refusal(name) {
        return Err(CommandError::invalid(format!(
            "{name} cannot be passed: {why}"
        )));
    }
    Ok(name.to_owned())
}

/// Hands stored settings to the manager: the sandbox's network switch and writable folders,
/// and the variables passed on purpose.
pub fn apply_settings(tools: &ToolManager, settings: &ProjectCommandSettings) {
    tools.sandbox().set_settings(SandboxSettings {
        network: settings.network,
        writable: settings.writable.clone(),
    });
    tools
        .project()
        .set_env_pass(PassList::new(&settings.env_pass));
}

/// Loads everything a project saved about its commands and rules into its manager (when it
/// opens): settings, rules, and where "Always allow in this project" saves.
pub async fn apply_saved(
    store: &Store,
    project: ProjectId,
    tools: &ToolManager,
) -> Result<(), StoreError> {
    let settings = store.command_options().load(project).await?;
    apply_settings(tools, &settings);
    tools.rules().replace(store.rules().list(project).await?);
    tools.rules().set_store(Arc::new(store.rule_store(project)));
    Ok(())
}

/// Also hides Gantry's own folders from the project's commands: its data folder (the
/// database, with every session and the audit log), the folder of the database actually open,
/// and its configuration folder (MCP servers, tokens in their `env`).
pub fn hide_gantry_folders(store: &Store, tools: &ToolManager) {
    let sandbox = tools.sandbox();
    if let Ok(data) = gantry_store::data_dir() {
        sandbox.hide(data);
    }
    if let Some(folder) = store.path().parent().filter(|p| !p.as_os_str().is_empty()) {
        sandbox.hide(folder);
    }
    if let Some(config) = gantry_mcp::user_config_path()
        .as_deref()
        .and_then(Path::parent)
    {
        sandbox.hide(config);
    }
}

#[cfg(test)]
mod tests {
    use gantry_tools::{
        CallContext, DecisionKind, ObservationKind, Policy, RuleAction, SessionTempSlot,
    };
    use serde_json::json;

    use super::*;
    use crate::project::open::{People, open_tools};

    struct Rig {
        _data: tempfile::TempDir,
        root: tempfile::TempDir,
        store: Store,
        commands: ProjectCommands,
        tools: Arc<ToolManager>,
    }

    async fn rig() -> Rig {
        let data = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let opened = open_tools(store.clone(), root.path(), People::default())
            .await
            .unwrap();
        let tools = Arc::new(opened.manager);
        let commands = ProjectCommands::new(store.clone(), opened.project.id, Arc::clone(&tools));
        Rig {
            _data: data,
            root,
            store,
            commands,
            tools,
        }
    }

    fn request(network: bool, writable: &[&str], env_pass: &[&str]) -> SaveCommandSettingsRequest {
        SaveCommandSettingsRequest {
            network,
            writable: writable.iter().map(|path| (*path).to_owned()).collect(),
            env_pass: env_pass.iter().map(|name| (*name).to_owned()).collect(),
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn settings_are_checked_saved_applied_and_loaded_at_the_next_opening() {
        let rig = rig().await;
        let cache = tempfile::tempdir().unwrap();
        let cache_path = cache.path().canonicalize().unwrap();
        let defaults = rig.commands.settings();
        assert!(
            !defaults.settings.network
                && defaults.settings.writable.is_empty()
                && defaults.settings.env_pass.is_empty()
        );
        let view = rig
            .commands
            .save_settings(&request(
                true,
                &[
                    cache.path().to_str().unwrap(),
                    cache.path().to_str().unwrap(),
                ],
                &[" DATABASE_URL ", "DATABASE_URL"],
            ))
            .await
            .unwrap();
        assert!(view.settings.network);
        assert_eq!(view.settings.writable, [cache_path.display().to_string()]);
        assert_eq!(view.settings.env_pass, ["DATABASE_URL"]);
        assert_eq!(
            rig.tools.sandbox().settings(),
            SandboxSettings {
                network: true,
                writable: vec![cache_path.clone()],
            }
        );
        assert!(rig.tools.project().env_pass().contains("DATABASE_URL"));

        let inside = rig.root.path().join("sub");
        std::fs::create_dir(&inside).unwrap();
        for bad in [
            request(false, &["relative/dir"], &[]),
            request(false, &["/nonexistent/gantry-folder"], &[]),
            request(false, &["/"], &[]),
            request(false, &[inside.to_str().unwrap()], &[]),
            request(false, &[], &["GANTRY_DATA_DIR"]),
            request(false, &[], &["DBUS_SESSION_BUS_ADDRESS"]),
            request(false, &[], &["A=B"]),
        ] {
            let error = rig.commands.save_settings(&bad).await.unwrap_err();
            assert_eq!(error.kind, crate::ErrorKind::InvalidInput, "{bad:?}");
        }
        assert!(rig.tools.sandbox().settings().network, "nothing changed");

        // Opening the project again (a restart) applies what was saved.
        let again = open_tools(rig.store.clone(), rig.root.path(), People::default())
            .await
            .unwrap();
        assert_eq!(again.manager.sandbox().settings().writable, [cache_path]);
        assert!(again.manager.sandbox().settings().network);
        assert!(again.manager.project().env_pass().contains("DATABASE_URL"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn rules_are_saved_reloaded_into_the_tools_and_counted() {
        let rig = rig().await;
        let add = |tool: &str, pattern: Option<&str>, action| SaveRuleRequest {
            id: None,
            spec: RuleSpec {
                tool: tool.into(),
                pattern: pattern.map(str::to_owned),
                action,
            },
        };
        let listed = rig
            .commands
            .save_rule(&add("write_file", Some("notes/**"), RuleAction::Allow))
            .await
            .unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].label, "allow write_file: notes/**");
        assert_eq!(rig.tools.rules().list(), [listed[0].rule.clone()]);
        let id = listed[0].rule.id;

        // A write below notes/ runs without asking (there is no approver), decided by the rule.
        rig.tools.set_policy("write_file", Policy::Ask).unwrap();
        let call = CallContext::detached();
        let obs = rig
            .tools
            .dispatch(
                "write_file",
                json!({"path": "notes/a.md", "content": "x"}),
                &call,
            )
            .await;
        assert_eq!(obs.kind, ObservationKind::Ok, "{}", obs.text);
        assert_eq!(obs.decision.kind, DecisionKind::AllowedByRule);
        assert_eq!(obs.decision.rule, Some(id));
        assert_eq!(rig.commands.rules().await.unwrap()[0].uses, 1);

        // Edited into a deny rule, it refuses.
        let edited = rig
            .commands
            .save_rule(&SaveRuleRequest {
                id: Some(id),
                spec: RuleSpec {
                    tool: "write_file".into(),
                    pattern: Some("notes/**".into()),
                    action: RuleAction::Deny,
                },
            })
            .await
            .unwrap();
        assert_eq!(edited[0].rule.spec.action, RuleAction::Deny);
        let obs = rig
            .tools
            .dispatch(
                "write_file",
                json!({"path": "notes/b.md", "content": "x"}),
                &call,
            )
            .await;
        assert_eq!(obs.kind, ObservationKind::Denied);
        assert_eq!(obs.decision.rule, Some(id));

        assert!(rig.commands.remove_rule(id).await.unwrap().is_empty());
        assert!(rig.tools.rules().list().is_empty());
        assert_eq!(
            rig.commands.remove_rule(id).await.unwrap_err().kind,
            crate::ErrorKind::NotFound
        );
        let bad = rig
            .commands
            .save_rule(&add("write_file", Some("["), RuleAction::Allow))
            .await
            .unwrap_err();
        assert_eq!(bad.kind, crate::ErrorKind::InvalidInput);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn gantrys_own_folders_are_hidden_from_commands() {
        let rig = rig().await;
        let temp = SessionTempSlot::default();
        let hidden = temp
            .with(|temp| {
                rig.tools
                    .sandbox()
                    .policy(rig.root.path(), temp)
                    .hidden_paths
            })
            .unwrap();
        let database_folder = rig.store.path().parent().unwrap().to_path_buf();
        assert!(hidden.contains(&database_folder), "{hidden:?}");
        if let Ok(data) = gantry_store::data_dir() {
            assert!(hidden.contains(&data), "{hidden:?}");
        }
    }
}
