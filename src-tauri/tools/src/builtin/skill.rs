//! skill: loads an Agent Skill's instructions and lists its files.
//!
//! The system prompt lists the skills by name and description only (see [`crate::skills`]);
//! this call returns one skill's body and the files of its folder, and opens that folder to
//! read_file (read-only) even when it lies outside the project. It reads nothing else and
//! changes nothing, so it is SAFE.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolError, ToolResult, tool};

/// Arguments of skill.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SkillArgs {
    /// The skill's name, as listed in <available_skills>.
    pub name: String,
}

/// Load a skill: its instructions and the list of its files (read them with read_file, by the
/// absolute paths given). Call it when a task matches a skill's description, before starting.
#[tool]
pub async fn skill(ctx: &ToolContext, args: SkillArgs) -> ToolResult {
    let Some(library) = ctx.skills().library() else {
        return Err(ToolError::new("this project has no skills"));
    };
    let name = args.name.trim().trim_start_matches('/').to_owned();
    let loaded = tokio::task::spawn_blocking(move || library.load(&name))
        .await
        .map_err(|_| ToolError::new("loading the skill failed unexpectedly"))?
        .map_err(ToolError::new)?;
    ctx.skills()
        .open_folder(&loaded.dir)
        .map_err(|error| ToolError::new(format!("cannot open the skill's folder: {error}")))?;
    let mut text = format!(
        "[skill: {} | folder {}]\n\n{}\n",
        loaded.name,
        loaded.dir.display(),
        loaded.body.trim_end()
    );
    if !loaded.files.is_empty() {
        text.push_str("\nFiles of this skill (read_file can read them):\n");
        for file in &loaded.files {
            text.push_str(&format!("- {}\n", loaded.dir.join(file).display()));
        }
    }
    Ok(text.into())
}
