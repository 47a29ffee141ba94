//! Which permission level a server's tool gets.
//!
//! A server describes its tools with hints: `readOnlyHint: true` means it only reads,
//! `destructiveHint: true` that it may destroy. Gantry maps them onto its levels — read-only is
//! SAFE, destructive is DANGEROUS (so disabled until the user enables it), anything else is
//! SENSITIVE (asks each call) — but hints are the server's claims, so they count only for servers
//! the user configured or trusted, and never against the user: a level written in the config
//! (per tool, then per server) always wins over a hint.

use gantry_tools::PermissionLevel;
use rmcp::model::ToolAnnotations;

use crate::config::ServerConfig;

/// The level of the server tool `tool` (the server's own name for it).
pub fn level_for(
    config: &ServerConfig,
    tool: &str,
    annotations: Option<&ToolAnnotations>,
    trust_hints: bool,
) -> PermissionLevel {
    if let Some(level) = config.tool_levels.get(tool) {
        return *level;
    }
    if let Some(level) = config.level {
        return level;
    }
    match annotations {
        Some(hints) if trust_hints => from_hints(hints),
        _ => PermissionLevel::Sensitive,
    }
}

/// The level the hints alone suggest. `destructiveHint` wins when a server claims both.
pub fn from_hints(hints: &ToolAnnotations) -> PermissionLevel {
    if hints.destructive_hint == Some(true) {
        PermissionLevel::Dangerous
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
    use crate::config::{ConfigOrigin, TransportConfig};

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
        let cases = [
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
