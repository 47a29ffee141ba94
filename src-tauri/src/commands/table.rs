// The app's commands, each declared once: `area::name(Request) -> Response;`, where `area` is the
// module of `commands/` that holds the function and `()` means no argument. Included by
// `commands/mod.rs`, which generates from it the handler list, the TypeScript contract's command
// table and `COMMAND_NAMES`, and by the build script, which generates an `allow-<name>` and a
// `deny-<name>` permission for each (granted by the capability in `src-tauri/capabilities/`).
commands! {
    project::launch_state(()) -> LaunchState;
    project::recent_projects(()) -> Vec<RecentProject>;
    project::open_project(OpenProjectRequest) -> ProjectInfo;
    project::pick_project_folder(()) -> Option<ProjectInfo>;
    project::close_project(()) -> ();
    tree::list_dir(ListDirRequest) -> Vec<TreeEntry>;
    tree::tree_status(()) -> TreeStatus;
    preview::read_preview(PreviewRequest) -> FilePreview;
    dialogs::pending_dialogs(()) -> Vec<DialogRequest>;
    dialogs::resolve_approval(ResolveApprovalRequest) -> ();
    dialogs::answer_question(AnswerQuestionRequest) -> ();
    chat::list_sessions(()) -> Vec<SessionSummary>;
    chat::chat_state(()) -> ChatView;
    chat::open_session(SessionRequest) -> ChatView;
    chat::new_session(()) -> ChatView;
    chat::rename_session(RenameSessionRequest) -> SessionSummary;
    chat::delete_session(SessionRequest) -> ChatView;
    chat::send_message(SendMessageRequest) -> String;
    chat::complete_mentions(MentionQuery) -> MentionCompletions;
    chat::mention_path(MentionPathRequest) -> MentionTarget;
    chat::prepare_image(PrepareImageRequest) -> Attachment;
    chat::slash_commands(()) -> Vec<SlashCommandView>;
    chat::expand_slash_command(ExpandCommandRequest) -> String;
    chat::cancel_turn(()) -> ();
    chat::list_tools(()) -> Vec<ToolInfo>;
    chat::list_models(ListModelsRequest) -> ModelChoices;
    chat::choose_model(ChooseModelRequest) -> ModelChoices;
    mcp::mcp_servers(()) -> McpPanel;
    mcp::restart_mcp_server(McpServerRequest) -> McpPanel;
    mcp::trust_project_mcp(()) -> McpPanel;
    mcp::mcp_server_entry(McpServerRequest) -> McpServerEntry;
    mcp::save_mcp_servers(SaveMcpServersRequest) -> McpPanel;
    mcp::remove_mcp_server(McpServerRequest) -> McpPanel;
    mcp::set_mcp_server_enabled(SetMcpServerEnabledRequest) -> McpPanel;
    mcp::claude_desktop_import_preview(()) -> ClaudeImportPreview;
    mcp::import_claude_desktop(ImportClaudeDesktopRequest) -> McpPanel;
    mcp::mcp_sign_in(McpServerRequest) -> McpPanel;
    mcp::mcp_sign_out(McpServerRequest) -> McpPanel;
    mcp::mcp_catalog(()) -> McpCatalog;
    mcp::read_mcp_resource(McpResourceRequest) -> McpResourceContent;
    mcp::subscribe_mcp_resource(McpResourceRequest) -> ();
    mcp::render_mcp_prompt(RenderMcpPromptRequest) -> McpRenderedPrompt;
    settings::provider_settings(()) -> ProviderSettings;
    settings::save_provider(SaveProviderRequest) -> ProviderSettings;
    settings::probe_provider(ProbeProviderRequest) -> ProviderProbe;
    settings::delete_provider_key(ProviderNameRequest) -> ProviderSettings;
    settings::local_servers(()) -> LocalServers;
    tools::set_tool_policy(SetToolPolicyRequest) -> Vec<ToolInfo>;
    tools::reset_tool_policies(()) -> Vec<ToolInfo>;
    tools::session_grants(()) -> Vec<GrantView>;
    tools::revoke_grant(RevokeGrantRequest) -> Vec<GrantView>;
    rules::command_settings(()) -> CommandSettingsView;
    rules::save_command_settings(SaveCommandSettingsRequest) -> CommandSettingsView;
    rules::tool_rules(()) -> Vec<RuleView>;
    rules::save_tool_rule(SaveRuleRequest) -> Vec<RuleView>;
    rules::remove_tool_rule(RemoveRuleRequest) -> Vec<RuleView>;
    audit::audit_log(AuditRequest) -> Vec<AuditEntryView>;
    audit::export_audit(AuditRequest) -> Option<AuditExport>;
    changes::changes_view(()) -> ChangesView;
    changes::revert_changes(RevertRequest) -> RevertOutcome;
    changes::accept_changes(AcceptChangesRequest) -> ChangesView;
    changes::resend_message(ResendRequest) -> ResendOutcome;
    changes::retry_turn(RetryRequest) -> ResendOutcome;
    changes::chat_branches(()) -> Vec<BranchView>;
    changes::switch_branch(SwitchBranchRequest) -> SwitchBranchOutcome;
    changes::checkpoint_settings(()) -> CheckpointSettings;
    changes::save_checkpoint_settings(SaveCheckpointSettingsRequest) -> CheckpointSettings;
}
