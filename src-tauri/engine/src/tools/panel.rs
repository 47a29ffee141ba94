//! The Tools panel's backend: a project's tool policies (set, reset, saved in the store) and the
//! current session's approvals (listed with a readable label, revoked one by one).
//!
//! The project's [`ToolManager`](gantry_tools::ToolManager) is the one the running session
//! dispatches through, so a change here holds for the very next call. Each change is saved with
//! the whole [`PolicySet`] (`store.policies().save`), under the project's policy lock so two
//! quick changes can't be saved in the wrong order; when the save fails, the manager goes back to
//! what it had, so the panel never shows a choice the next start would not find.
//!
//! Turning a DANGEROUS tool on (to Ask or Auto) needs `confirmDangerous: true`: without it the
//! change is refused with [`ErrorKind::NeedsConfirmation`], whose message says what the tool can
//! do, and the webview shows that as its confirm step.

use gantry_tools::{PermissionLevel, Policy, PolicySet, SessionGrant, Tool, ToolInfo, ToolManager};
use serde::{Deserialize, Serialize};

use crate::error::{CommandError, ErrorKind};
use crate::project::OpenProject;

/// A tool and the policy the user chose for it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SetToolPolicyRequest {
    /// The tool's name.
    pub tool: String,
    /// What Gantry does when the model calls it.
    pub policy: Policy,
    /// The user confirmed turning a DANGEROUS tool on (needed for Ask and Auto).
    #[serde(default)]
    #[ts(optional)]
    pub confirm_dangerous: Option<bool>,
}

/// A grant of the current session to withdraw.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RevokeGrantRequest {
    /// The grant to withdraw, as the panel listed it ([`GrantView::grant`]).
    pub grant: SessionGrant,
}

/// One approval the current session holds, as the panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct GrantView {
    /// The grant (what withdrawing it takes back).
    pub grant: SessionGrant,
    /// How the user reads it: `write_file`, `run_command: cargo test`.
    pub label: String,
}

/// The project's tools with the policies in force, built-in first, then by name.
pub fn list(project: &OpenProject) -> Vec<ToolInfo> {
    project.tools().tools()
}

/// Sets `request.tool`'s policy, saves the project's policies, and returns the tools as they
/// are now. Unknown tool: [`ErrorKind::NotFound`]; a DANGEROUS tool turned on without
/// confirmation: [`ErrorKind::NeedsConfirmation`].
pub async fn set_policy(
    project: &OpenProject,
    request: &SetToolPolicyRequest,
) -> Result<Vec<ToolInfo>, CommandError> {
    let manager = project.tools();
    let tool = manager
        .get(&request.tool)
        .ok_or_else(|| CommandError::not_found(format!("no tool named {}", request.tool)))?;
    if needs_confirmation(tool.level(), request.policy) && request.confirm_dangerous != Some(true) {
        return Err(CommandError::new(
            ErrorKind::NeedsConfirmation,
            dangerous_warning(tool.as_ref(), request.policy),
        ));
    }
    let _writing = project.policy_writes().lock().await;
    let before = manager.policies();
    manager.set_policy(&request.tool, request.policy)?;
    save(project, &before).await?;
    Ok(list(project))
}

/// Returns every tool of the project to its level's default, saves that, and returns the tools.
pub async fn reset_policies(project: &OpenProject) -> Result<Vec<ToolInfo>, CommandError> {
    let manager = project.tools();
    let _writing = project.policy_writes().lock().await;
    let before = manager.policies();
    manager.reset_policies();
    save(project, &before).await?;
    Ok(list(project))
}

/// What the current session has allowed, whole tools first.
pub fn grants(project: &OpenProject) -> Vec<GrantView> {
    project
        .chat()
        .grants()
        .into_iter()
        .map(|grant| GrantView {
            label: grant.to_string(),
            grant,
        })
        .collect()
}

/// Withdraws one grant (the next such call asks again) and returns the grants left. A grant the
/// session does not hold: [`ErrorKind::NotFound`].
pub fn revoke(project: &OpenProject, grant: &SessionGrant) -> Result<Vec<GrantView>, CommandError> {
    if !project.chat().revoke(grant) {
        return Err(CommandError::not_found(format!(
            "the session holds no grant for {grant}"
        )));
    }
    Ok(grants(project))
}

/// True when moving a tool of `level` to `policy` turns a DANGEROUS tool on.
pub fn needs_confirmation(level: PermissionLevel, policy: Policy) -> bool {
    level == PermissionLevel::Dangerous && policy != Policy::Disabled
}

/// What the user confirms before a DANGEROUS tool is turned on.
pub fn dangerous_warning(tool: &dyn Tool, policy: Policy) -> String {
    let what = tool
        .description()
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("no description");
    let when = match policy {
        Policy::Auto => "every call will run without asking",
        Policy::Ask | Policy::Disabled => "each call will still ask you first",
    };
    format!(
        "{name} is DANGEROUS: {what} It can do anything your user account can do on this \
         computer — change or delete files anywhere, run any program, reach the network — not \
         only inside the project. Confirm to set it to {policy} ({when}).",
        name = tool.name(),
    )
}

/// Saves the manager's policies; on failure puts `before` back and reports the error.
async fn save(project: &OpenProject, before: &PolicySet) -> Result<(), CommandError> {
    let manager = project.tools();
    let now = manager.policies();
    let saved = project
        .store()
        .policies()
        .save(project.store_project(), &now)
        .await;
    if let Err(error) = saved {
        restore(manager, before);
        return Err(CommandError::internal(format!(
            "the tool policies could not be saved: {error}"
        )));
    }
    Ok(())
}

/// Puts the manager's policies back to `before` (choices for tools no longer registered are
/// kept only in the store, which still holds them since the save failed).
fn restore(manager: &ToolManager, before: &PolicySet) {
    manager.reset_policies();
    for (tool, policy) in before.chosen() {
        let _ = manager.set_policy(tool, *policy);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use gantry_store::Store;
    use serde_json::json;

    use super::*;
    use crate::app::Window;
    use crate::events::RecordingSink;
    use crate::settings::Settings;

    struct Rig {
        _dirs: (tempfile::TempDir, tempfile::TempDir),
        state: Arc<Window>,
        store: Store,
    }

    async fn rig() -> Rig {
        let data = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let state = Window::of_new_app(
            Arc::new(RecordingSink::default()),
            Settings::default(),
            store.clone(),
        );
        state.show_folder(root.path().to_path_buf()).await.unwrap();
        Rig {
            _dirs: (data, root),
            state,
            store,
        }
    }

    impl Rig {
        fn project(&self) -> Arc<OpenProject> {
            self.state.current().unwrap()
        }

        async fn saved(&self) -> PolicySet {
            let project = self.project();
            self.store
                .policies()
                .load(project.store_project())
                .await
                .unwrap()
        }
    }

    fn request(tool: &str, policy: Policy, confirm: Option<bool>) -> SetToolPolicyRequest {
        SetToolPolicyRequest {
            tool: tool.into(),
            policy,
            confirm_dangerous: confirm,
        }
    }

    fn policy_of(tools: &[ToolInfo], name: &str) -> Policy {
        tools.iter().find(|tool| tool.name == name).unwrap().policy
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_policy_change_holds_at_once_and_is_saved() {
        let rig = rig().await;
        let project = rig.project();
        let tools = set_policy(&project, &request("write_file", Policy::Auto, None))
            .await
            .unwrap();
        assert_eq!(policy_of(&tools, "write_file"), Policy::Auto);
        assert_eq!(project.tools().policy("write_file").unwrap(), Policy::Auto);
        assert_eq!(
            rig.saved().await.chosen().get("write_file"),
            Some(&Policy::Auto)
        );

        let tools = reset_policies(&project).await.unwrap();
        assert_eq!(policy_of(&tools, "write_file"), Policy::Ask);
        assert!(rig.saved().await.is_empty());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dangerous_tool_needs_confirmation_to_turn_on() {
        let rig = rig().await;
        let project = rig.project();
        for confirm in [None, Some(false)] {
            let refused = set_policy(&project, &request("run_command", Policy::Ask, confirm))
                .await
                .unwrap_err();
            assert_eq!(refused.kind, ErrorKind::NeedsConfirmation);
            assert!(refused.message.contains("run_command is DANGEROUS"));
            assert!(
                refused
                    .message
                    .contains("anything your user account can do")
            );
        }
        assert_eq!(
            project.tools().policy("run_command").unwrap(),
            Policy::Disabled
        );
        assert!(rig.saved().await.is_empty(), "nothing saved when refused");

        let tools = set_policy(&project, &request("run_command", Policy::Auto, Some(true)))
            .await
            .unwrap();
        assert_eq!(policy_of(&tools, "run_command"), Policy::Auto);
        // Turning it off again needs no confirmation.
        set_policy(&project, &request("run_command", Policy::Disabled, None))
            .await
            .unwrap();
        assert_eq!(
            rig.saved().await.chosen().get("run_command"),
            Some(&Policy::Disabled)
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn unknown_tools_and_grants_are_not_found() {
        let rig = rig().await;
        let project = rig.project();
        let missing = set_policy(&project, &request("no_such_tool", Policy::Auto, Some(true)))
            .await
            .unwrap_err();
        assert_eq!(missing.kind, ErrorKind::NotFound);
        let grant = SessionGrant {
            tool: "write_file".into(),
            key: None,
        };
        assert_eq!(
            revoke(&project, &grant).unwrap_err().kind,
            ErrorKind::NotFound
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn grants_are_listed_with_a_label_and_revoked() {
        let rig = rig().await;
        let project = rig.project();
        // A fresh chat holds no grants; a stored session gets its own.
        assert!(grants(&project).is_empty());
        let stored = rig
            .store
            .sessions()
            .create(project.store_project(), "t", None)
            .await
            .unwrap();
        project
            .chat()
            .switch(Some(stored.id.to_string()))
            .await
            .unwrap();
        let session = project.chat().current().unwrap();
        session.approve_tool("write_file");
        let listed = grants(&project);
        assert_eq!(
            serde_json::to_value(&listed).unwrap(),
            json!([{"grant": {"tool": "write_file", "key": null}, "label": "write_file"}])
        );
        let left = revoke(&project, &listed[0].grant).unwrap();
        assert!(left.is_empty());
        assert!(session.granted().is_empty());
        // Switching sessions leaves the grants behind.
        session.approve_tool("edit_file");
        project.chat().switch(None).await.unwrap();
        assert!(grants(&project).is_empty());
    }

    #[test]
    fn requests_deserialise_with_and_without_confirmation() {
        let plain: SetToolPolicyRequest =
            serde_json::from_value(json!({"tool": "read_file", "policy": "ask"})).unwrap();
        assert_eq!(plain, request("read_file", Policy::Ask, None));
        let confirmed: SetToolPolicyRequest = serde_json::from_value(
            json!({"tool": "run_command", "policy": "auto", "confirmDangerous": true}),
        )
        .unwrap();
        assert_eq!(confirmed.confirm_dangerous, Some(true));
        assert!(
            serde_json::from_value::<SetToolPolicyRequest>(
                json!({"tool": "x", "policy": "sometimes"})
            )
            .is_err()
        );
    }

    #[test]
    fn only_turning_a_dangerous_tool_on_needs_confirmation() {
        use PermissionLevel::*;
        assert!(needs_confirmation(Dangerous, Policy::Ask));
        assert!(needs_confirmation(Dangerous, Policy::Auto));
        assert!(!needs_confirmation(Dangerous, Policy::Disabled));
        assert!(!needs_confirmation(Sensitive, Policy::Auto));
        assert!(!needs_confirmation(Safe, Policy::Auto));
    }
}
