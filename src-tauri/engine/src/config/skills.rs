//! The project's Agent Skills, offered to the model: the `skill` tool and its library.
//!
//! gantry-config finds the skills ([`gantry_config::skills`]); the library is read again at
//! every use, so a skill edited while the project is open applies at once. The tool is
//! registered when the project opens with at least one skill, or at the start of a later turn
//! once the catalog finds one ([`register_when_found`]), so a project without skills offers
//! the model nothing new.

use std::sync::Arc;

use gantry_config::skills::SkillFiles;
use gantry_config::{ConfigReport, Locations, TrustedFiles};
use gantry_tools::builtin::skill::Skill;
use gantry_tools::{ManagerError, ToolManager};

/// Gives `manager` the skills of the project at `at`, and the `skill` tool when there is any.
pub async fn install(manager: &ToolManager, at: Locations) -> Result<(), ManagerError> {
    let listed = at.clone();
    let any = tokio::task::spawn_blocking(move || {
        !gantry_config::skills::discover(
            &listed,
            &TrustedFiles::none(),
            &mut ConfigReport::default(),
        )
        .is_empty()
    })
    .await
    .unwrap_or(false);
    manager.skills().set_library(Arc::new(SkillFiles::new(at)));
    if any && manager.get("skill").is_none() {
        manager.register(Skill)?;
    }
    Ok(())
}

/// Registers the `skill` tool when it is not yet and the catalog now lists a skill (one was
/// added while the project is open). The chat calls this as each turn starts.
pub async fn register_when_found(manager: &ToolManager) -> Result<(), ManagerError> {
    if manager.get("skill").is_some() {
        return Ok(());
    }
    let shelf = Arc::clone(manager.skills());
    let any = tokio::task::spawn_blocking(move || !shelf.catalog().is_empty())
        .await
        .unwrap_or(false);
    if any && manager.get("skill").is_none() {
        manager.register(Skill)?;
    }
    Ok(())
}
