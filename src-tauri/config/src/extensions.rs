//! Commands, skills and custom agents together, with one report: what `gantry-cli config` and
//! the "Project configuration" view list for them.

use crate::agents::{self, AgentDefinition};
use crate::commands::{self, Command};
use crate::skills::{self, Skill};
use crate::{ConfigReport, Locations, TrustedFiles};

/// What a project's command, skill and agent files give.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Extensions {
    /// The slash commands, each name once, a skill's name taken out (see
    /// [`commands::shadow_by_skills`]).
    pub commands: Vec<Command>,
    /// The skills, project first, each name once.
    pub skills: Vec<Skill>,
    /// The custom agents, closest first, each name once.
    pub agents: Vec<AgentDefinition>,
}

/// Finds the commands, skills and agents of the project and user at `at`; `builtins` are the
/// command names no file may take (without `/`). Each file's entry goes to `report` (kinds
/// `command`, `skill`, `agent`). Blocking.
pub fn discover(
    at: &Locations,
    trusted: &TrustedFiles,
    builtins: &[&str],
    report: &mut ConfigReport,
) -> Extensions {
    let mut found = commands::discover(at, trusted, builtins, report);
    let skills = skills::discover(at, trusted, report);
    let invocable: Vec<Skill> = skills
        .iter()
        .filter(|skill| skill.user_invocable)
        .cloned()
        .collect();
    commands::shadow_by_skills(&mut found, &invocable, report);
    Extensions {
        commands: found,
        skills,
        agents: agents::discover(at, report),
    }
}
