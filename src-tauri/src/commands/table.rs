// The app's commands, each declared once.
//
// Adding a command means one line here and one method of an engine service:
// `Service::name(Request) -> Response;` names the engine service (a room of `gantry-engine`,
// built for the window the command came from by `gantry_engine::Service::of`) and its method
// `name`, which takes the request (none for `()`) and returns `Result<Response, CommandError>`.
// The Tauri wrapper is generated from the line, and so are the handler list, the TypeScript
// contract's command table and `COMMAND_NAMES`; the build script includes this table too and
// generates an `allow-<name>` and a `deny-<name>` permission for each command (granted by the
// capability in `src-tauri/capabilities/`).
//
// The commands under `by_hand` need the window itself — the native folder picker or save
// dialog, the window's label and title — so they are written by hand in
// the shell's module `area` (`area::name(Request) -> Response;`), each a few lines that ask the
// window and then call the engine.
commands! {
    served {
        ProjectService::launch_state(()) -> LaunchState;
        ProjectService::recent_projects(()) -> Vec<RecentProject>;
        ProjectService::list_dir(ListDirRequest) -> Vec<TreeEntry>;
        ProjectService::tree_status(()) -> TreeStatus;
        ProjectService::read_preview(PreviewRequest) -> FilePreview;
        ChatService::pending_dialogs(()) -> Vec<DialogRequest>;
        ChatService::resolve_approval(ResolveApprovalRequest) -> ();
        ChatService::answer_question(AnswerQuestionRequest) -> ();
        ChatService::list_sessions(()) -> Vec<SessionSummary>;
        ChatService::chat_state(()) -> ChatView;
        ChatService::open_session(SessionRequest) -> ChatView;
        ChatService::new_session(()) -> ChatView;
        ChatService::rename_session(RenameSessionRequest) -> SessionSummary;
        ChatService::delete_session(SessionRequest) -> ChatView;
        ChatService::send_message(SendMessageRequest) -> String;
        ChatService::complete_mentions(MentionQuery) -> MentionCompletions;
        ChatService::mention_path(MentionPathRequest) -> MentionTarget;
        ChatService::prepare_image(PrepareImageRequest) -> Attachment;
        ChatService::slash_commands(()) -> Vec<SlashCommandView>;
        ChatService::expand_slash_command(ExpandCommandRequest) -> String;
        ChatService::cancel_turn(()) -> ();
        ChatService::cancel_session_turn(SessionRequest) -> ();
        ChatService::running_sessions(()) -> Vec<SessionActivity>;
        ChatService::session_tabs(()) -> SessionTabs;
        ChatService::save_session_tabs(SessionTabs) -> SessionTabs;
        ChatService::chat_events_since(EventsSinceRequest) -> EventsSince;
        ChatService::chat_messages_before(MessagesBeforeRequest) -> MessagePage;
        ChatService::chat_message_text(MessageTextRequest) -> String;
        ChatService::search_sessions(SearchSessionsRequest) -> Vec<SearchHitView>;
        ChatService::compact_session(()) -> ChatView;
        ChatService::context_usage(()) -> Option<ContextUsage>;
        ChatService::edit_summary(EditSummaryRequest) -> ChatView;
        ChangesService::changes_view(()) -> ChangesView;
        ChangesService::revert_changes(RevertRequest) -> RevertOutcome;
        ChangesService::accept_changes(AcceptChangesRequest) -> ChangesView;
        ChangesService::resend_message(ResendRequest) -> ResendOutcome;
        ChangesService::retry_turn(RetryRequest) -> ResendOutcome;
        ChangesService::chat_branches(()) -> Vec<BranchView>;
        ChangesService::switch_branch(SwitchBranchRequest) -> SwitchBranchOutcome;
        McpService::mcp_servers(()) -> McpPanel;
        McpService::restart_mcp_server(McpServerRequest) -> McpPanel;
        McpService::trust_project_mcp(()) -> McpPanel;
        McpService::mcp_server_entry(McpServerRequest) -> McpServerEntry;
        McpService::save_mcp_servers(SaveMcpServersRequest) -> McpPanel;
        McpService::remove_mcp_server(McpServerRequest) -> McpPanel;
        McpService::set_mcp_server_enabled(SetMcpServerEnabledRequest) -> McpPanel;
        McpService::claude_desktop_import_preview(()) -> ClaudeImportPreview;
        McpService::import_claude_desktop(ImportClaudeDesktopRequest) -> McpPanel;
        McpService::mcp_sign_in(McpServerRequest) -> McpPanel;
        McpService::mcp_sign_out(McpServerRequest) -> McpPanel;
        McpService::mcp_catalog(()) -> McpCatalog;
        McpService::read_mcp_resource(McpResourceRequest) -> McpResourceContent;
        McpService::subscribe_mcp_resource(McpResourceRequest) -> ();
        McpService::render_mcp_prompt(RenderMcpPromptRequest) -> McpRenderedPrompt;
        ProvidersService::provider_settings(()) -> ProviderSettings;
        ProvidersService::save_provider(SaveProviderRequest) -> ProviderSettings;
        ProvidersService::probe_provider(ProbeProviderRequest) -> ProviderProbe;
        ProvidersService::delete_provider_key(ProviderNameRequest) -> ProviderSettings;
        ProvidersService::local_servers(()) -> LocalServers;
        ProvidersService::list_models(ListModelsRequest) -> ModelChoices;
        ProvidersService::choose_model(ChooseModelRequest) -> ModelChoices;
        ToolsService::list_tools(()) -> Vec<ToolInfo>;
        ToolsService::list_hooks(()) -> Vec<HookListing>;
        ToolsService::set_tool_policy(SetToolPolicyRequest) -> Vec<ToolInfo>;
        ToolsService::reset_tool_policies(()) -> Vec<ToolInfo>;
        ToolsService::session_grants(()) -> Vec<GrantView>;
        ToolsService::revoke_grant(RevokeGrantRequest) -> Vec<GrantView>;
        ToolsService::command_settings(()) -> CommandSettingsView;
        ToolsService::save_command_settings(SaveCommandSettingsRequest) -> CommandSettingsView;
        ToolsService::tool_rules(()) -> Vec<RuleView>;
        ToolsService::external_tool_rules(()) -> ExternalRulesView;
        ToolsService::save_tool_rule(SaveRuleRequest) -> Vec<RuleView>;
        ToolsService::remove_tool_rule(RemoveRuleRequest) -> Vec<RuleView>;
        ToolsService::audit_log(AuditRequest) -> Vec<AuditEntryView>;
        SettingsService::compact_settings(()) -> CompactSettings;
        SettingsService::save_compact_settings(CompactSettings) -> CompactSettings;
        SettingsService::checkpoint_settings(()) -> CheckpointSettings;
        SettingsService::save_checkpoint_settings(SaveCheckpointSettingsRequest) -> CheckpointSettings;
        SettingsService::turn_limit_settings(()) -> TurnLimitSettings;
        SettingsService::save_turn_limit_settings(SaveTurnLimitRequest) -> TurnLimitSettings;
        SettingsService::ui_preferences(()) -> UiPreferences;
        SettingsService::save_language(SaveLanguageRequest) -> ();
        SettingsService::save_tree_layout(TreeLayout) -> ();
        NotificationsService::notification_settings(()) -> NotificationSettings;
        NotificationsService::save_notification_settings(NotificationSettings) -> NotificationSettings;
        NotificationsService::set_ui_language(UiLanguageRequest) -> ();
        ConfigService::project_config(()) -> ConfigReport;
        ConfigService::trust_project_config(TrustConfigRequest) -> ConfigReport;
    }
    by_hand {
        window::open_project(OpenProjectRequest) -> Option<ProjectInfo>;
        window::pick_project_folder(()) -> Option<ProjectInfo>;
        window::open_project_window(OpenProjectWindowRequest) -> ();
        window::close_project(()) -> ();
        window::export_session(ExportSessionRequest) -> Option<SessionExport>;
        window::export_audit(AuditRequest) -> Option<AuditExport>;
    }
}
