//! Reading a config file safely: a regular file, of bounded size, that a project cannot point
//! elsewhere.
//!
//! Gantry reads these files at start, so a FIFO (which would block), a device (which would never
//! end) or a huge file must be refused before it is read. A project's `.mcp.json` comes with a
//! cloned repository, so a symlink there is followed only while it stays inside the project.

use super::parse::parse_config;
use super::{ConfigError, ConfigFile, ConfigOrigin};

/// The largest config file Gantry reads (1 MiB); a real `mcpServers` file is a few KiB.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Reads and parses a file; `Ok(None)` when it does not exist.
///
/// The file must be a regular file (a FIFO would block Gantry's start, a device never end) of
/// at most [`MAX_CONFIG_BYTES`]. The user-wide file may be a symlink to one (dotfile managers
/// do that). A project's `.mcp.json` is resolved like a tool path: a symlink is followed only
/// while it stays inside the project, so a cloned repository cannot point Gantry at a file
/// elsewhere on the machine.
pub fn read_config(origin: ConfigOrigin) -> Result<Option<ConfigFile>, ConfigError> {
    match read_text(&origin)? {
        Some(text) => parse_config(&text, origin).map(Some),
        None => Ok(None),
    }
}

/// The text of the file `origin` names, read with the checks of [`read_config`]; `Ok(None)` when
/// it does not exist.
pub(crate) fn read_text(origin: &ConfigOrigin) -> Result<Option<String>, ConfigError> {
    let path = origin.path().to_path_buf();
    let unreadable = |reason: String| ConfigError::Unreadable {
        file: path.clone(),
        reason,
    };
    let target = match origin {
        ConfigOrigin::User { .. } => path.clone(),
        ConfigOrigin::Project { root, .. } => {
            match std::fs::symlink_metadata(&path) {
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(error) => return Err(unreadable(error.to_string())),
                Ok(_) => {}
            }
            let project = gantry_tools::ProjectRoot::new(root)
                .map_err(|error| unreadable(error.to_string()))?;
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let resolved = project
                .resolve(&relative.to_string_lossy())
                .map_err(|error| {
                    unreadable(format!(
                        "a project's MCP config must stay inside the project ({error})"
                    ))
                })?;
            resolved.path().to_path_buf()
        }
    };
    // Checked before opening: opening a FIFO blocks until someone writes to it.
    let metadata = match std::fs::metadata(&target) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(unreadable(error.to_string())),
    };
    check_file(&metadata).map_err(unreadable)?;
    let file = std::fs::File::open(&target).map_err(|error| unreadable(error.to_string()))?;
    // Checked again on the open file, in case it was swapped in between.
    let opened = file
        .metadata()
        .map_err(|error| unreadable(error.to_string()))?;
    check_file(&opened).map_err(unreadable)?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_CONFIG_BYTES + 1),
        &mut bytes,
    )
    .map_err(|error| unreadable(error.to_string()))?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(unreadable(too_large()));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| unreadable("not UTF-8 text".into()))
}

/// A config file must be a regular file within the size limit.
fn check_file(metadata: &std::fs::Metadata) -> Result<(), String> {
    if !metadata.is_file() {
        let kind = if metadata.is_dir() {
            "a folder"
        } else {
            "a FIFO, socket or device"
        };
        return Err(format!("not a regular file ({kind})"));
    }
    if metadata.len() > MAX_CONFIG_BYTES {
        return Err(too_large());
    }
    Ok(())
}

fn too_large() -> String {
    format!("larger than {} KiB", MAX_CONFIG_BYTES / 1024)
}
