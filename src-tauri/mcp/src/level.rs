//! Which permission level a server's tool gets.
//!
//! A server describes its tools with hints: `readOnlyHint: true` means it only reads,
//! `destructiveHint: true` that it may destroy. Gantry maps them onto its levels — read-only is
//! SAFE, destructive is DANGEROUS (so disabled until the user enables it), anything else is
//! SENSITIVE (asks each call), and read-only but open-world (`openWorldHint`) is SENSITIVE too,
//! since such a tool can carry the project out — but hints are the server's claims, so they count only for servers
//! the user configured or trusted, and never against the user: a level written in the
//! user-wide config (per tool, then per server) always wins over a hint.
//!
//! A project's `.mcp.json` comes with the repository, not from the user, so its levels may only
//! *raise* a tool's level above what the hints give (SENSITIVE when there are none): a cloned
//! project cannot mark a destructive tool SAFE and have it run without asking. Approving the
//! file (`mcp trust`) lets its servers start; it does not hand it the user's say over levels.

use gantry_tools::PermissionLevel;
use rmcp::model::ToolAnnotations;

use crate::config::{ConfigOrigin, ServerConfig};

/// The level of the server tool `tool` (the server's own name for it).
pub fn level_for(
    config: &ServerConfig,
    tool: &str,
    annotations: Option<&ToolAnnotations>,
    trust_hints: bool,
) -> PermissionLevel {
    let hinted = match annotations {
        Some(hints) if trust_hints => from_hints(hints),
        _ => PermissionLevel::Sensitive,
    };
    let configured = config.tool_levels.get(tool).copied().or(config.level);
    match (configured, &config.origin) {
        (None, _) => hinted,
        (Some(level), ConfigOrigin::User { .. }) => level,
        (Some(level), ConfigOrigin::Project { .. }) => level.max(hinted),
    }
}

/// The level the hints alone suggest. `destructiveHint` wins when a server claims both. A
/// read-only tool that also reaches the open world (`openWorldHint`: a fetch, a web search) is a
/// way to send what the model read out of the project, so it is SENSITIVE, not SAFE; the MCP
/// spec's default for an absent `openWorldHint` is `true`, but only an explicit claim counts
/// here, so plain read-only tools of servers that say nothing stay SAFE.
pub fn from_hints(hints: &ToolAnnotations) -> PermissionLevel {
    if hints.destructive_hint == Some(true) {
        PermissionLevel::Dangerous
    } else if hints.read_only_hint == Some(true) && hints.open_world_hint == Some(true) {
        PermissionLevel::Sensitive
    } else if hints.read_only_hint == Some(true) {
        PermissionLevel::Safe
    } else {
        PermissionLevel::Sensitive
    }
}

/// The hints Gantry announces for its own tools in server mode: SAFE is read-only, DANGEROUS is
/// destructive, SENSITIVE is neither (so a Gantry client reading them back gets the same level).
pub fn hints_for(level: PermissionLevel) -> ToolAnnotations {
    match level {
        PermissionLevel::Safe => ToolAnnotations::new().read_only(true).destructive(false),
        PermissionLevel::Sensitive => ToolAnnotations::new().read_only(false).destructive(false),
        PermissionLevel::Dangerous => ToolAnnotations::new().read_only(false).destructive(true),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;
    use crate::config::TransportConfig;

    fn config() -> ServerConfig {
        ServerConfig {
            name: "s".into(),
            origin: ConfigOrigin::User {
                path: PathBuf::from("/x/mcp.json"),
            },
            transport: TransportConfig::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers: BTreeMap::new(),
            },
            disabled: false,
            level: None,
            tool_levels: BTreeMap::new(),
            call_timeout: None,
            startup_timeout: None,
        }
    }

    #[test]
    fn hints_map_to_levels() {
        let config = config();
        let read_only = ToolAnnotations::new().read_only(true);
        let destructive = ToolAnnotations::new().destructive(true);
        let neither = ToolAnnotations::new().read_only(false).destructive(false);
        let both = ToolAnnotations::new().read_only(true).destructive(true);
        let open_world = ToolAnnotations::new().read_only(true).open_world(true);
        let closed_world = ToolAnnotations::new().read_only(true).open_world(false);
        let cases = [
            (Some(&open_world), PermissionLevel::Sensitive),
            (Some(&closed_world), PermissionLevel::Safe),
            (Some(&read_only), PermissionLevel::Safe),
            (Some(&destructive), PermissionLevel::Dangerous),
            (Some(&neither), PermissionLevel::Sensitive),
            (Some(&both), PermissionLevel::Dangerous),
            (None, PermissionLevel::Sensitive),
        ];
        for (hints, expected) in cases {
            assert_eq!(level_for(&config, "t", hints, true), expected, "{hints:?}");
        }
    }

    #[test]
    fn untrusted_hints_count_for_nothing() {
        let read_only = ToolAnnotations::new().read_only(true);
        assert_eq!(
            level_for(&config(), "t", Some(&read_only), false),
            PermissionLevel::Sensitive
        );
    }

    #[test]
    fn the_users_levels_win_over_hints() {
        let mut config = config();
        config.level = Some(PermissionLevel::Sensitive);
        config
            .tool_levels
            .insert("wipe".into(), PermissionLevel::Safe);
        let read_only = ToolAnnotations::new().read_only(true);
        let destructive = ToolAnnotations::new().destructive(true);
        // A hint never lowers the level the user set for the server...
        assert_eq!(
            level_for(&config, "t", Some(&read_only), true),
            PermissionLevel::Sensitive
        );
        // ...and a per-tool level wins over both.
        assert_eq!(
            level_for(&config, "wipe", Some(&destructive), true),
            PermissionLevel::Safe
        );
    }

    #[test]
    fn a_project_file_may_only_raise_levels() {
        let mut config = config();
        config.origin = ConfigOrigin::Project {
            path: PathBuf::from("/p/.mcp.json"),
            root: PathBuf::from("/p"),
        };
        let read_only = ToolAnnotations::new().read_only(true);
        let destructive = ToolAnnotations::new().destructive(true);
        let neither = ToolAnnotations::new().read_only(false).destructive(false);

        // Lowering is ignored: a destructive tool stays DANGEROUS, an unhinted one SENSITIVE.
        config
            .tool_levels
            .insert("wipe".into(), PermissionLevel::Safe);
        assert_eq!(
            level_for(&config, "wipe", Some(&destructive), true),
            PermissionLevel::Dangerous
        );
        assert_eq!(
            level_for(&config, "wipe", Some(&neither), true),
            PermissionLevel::Sensitive
        );
        assert_eq!(
            level_for(&config, "wipe", None, true),
            PermissionLevel::Sensitive
        );
        // Hints that are not trusted count as SENSITIVE, which the project can't lower either.
        assert_eq!(
            level_for(&config, "wipe", Some(&read_only), false),
            PermissionLevel::Sensitive
        );
        // Agreeing with a read-only hint is fine.
        assert_eq!(
            level_for(&config, "wipe", Some(&read_only), true),
            PermissionLevel::Safe
        );
        config.level = Some(PermissionLevel::Safe);
        assert_eq!(
            level_for(&config, "other", Some(&destructive), true),
            PermissionLevel::Dangerous
        );

        // Raising works, per tool and per server.
        config
            .tool_levels
            .insert("read".into(), PermissionLevel::Dangerous);
        assert_eq!(
            level_for(&config, "read", Some(&read_only), true),
            PermissionLevel::Dangerous
        );
        config.level = Some(PermissionLevel::Sensitive);
        assert_eq!(
            level_for(&config, "other", Some(&read_only), true),
            PermissionLevel::Sensitive
        );
    }

    #[test]
    fn an_open_world_read_only_tool_asks_unless_the_user_says_otherwise() {
        let fetch = ToolAnnotations::new().read_only(true).open_world(true);
        let mut config = config();
        assert_eq!(
            level_for(&config, "fetch", Some(&fetch), true),
            PermissionLevel::Sensitive
        );
        // A project file can't lower it...
        let mut project = config.clone();
        project.origin = ConfigOrigin::Project {
            path: PathBuf::from("/p/.mcp.json"),
            root: PathBuf::from("/p"),
        };
        project
            .tool_levels
            .insert("fetch".into(), PermissionLevel::Safe);
        assert_eq!(
            level_for(&project, "fetch", Some(&fetch), true),
            PermissionLevel::Sensitive
        );
        // ...the user's own file can.
        config
            .tool_levels
            .insert("fetch".into(), PermissionLevel::Safe);
        assert_eq!(
            level_for(&config, "fetch", Some(&fetch), true),
            PermissionLevel::Safe
        );
    }

    #[test]
    fn the_user_file_may_set_any_level() {
        let mut config = config();
        let destructive = ToolAnnotations::new().destructive(true);
        let read_only = ToolAnnotations::new().read_only(true);
        config
            .tool_levels
            .insert("wipe".into(), PermissionLevel::Safe);
        assert_eq!(
            level_for(&config, "wipe", Some(&destructive), true),
            PermissionLevel::Safe
        );
        config.level = Some(PermissionLevel::Dangerous);
        assert_eq!(
            level_for(&config, "other", Some(&read_only), true),
            PermissionLevel::Dangerous
        );
        config.level = Some(PermissionLevel::Safe);
        assert_eq!(
            level_for(&config, "other", None, false),
            PermissionLevel::Safe
        );
    }

    #[test]
    fn announced_hints_round_trip() {
        for level in [
            PermissionLevel::Safe,
            PermissionLevel::Sensitive,
            PermissionLevel::Dangerous,
        ] {
            assert_eq!(from_hints(&hints_for(level)), level);
        }
    }
}
