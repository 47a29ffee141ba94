//! The command line: `gantry [FOLDER]`.
//!
//! A folder opens that project directly (how people open a project from a terminal, and how the
//! end-to-end tests open theirs); no folder shows the welcome screen. A folder that can't be
//! opened is not a crash: the window shows why. Options the app does not know (a browser
//! automation host may add its own) are ignored with a warning rather than refused.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// Print the usage and exit.
    Help,
    /// Print the version and exit.
    Version,
    /// Open the window: on this folder (made absolute), or on the welcome screen.
    Window(Option<PathBuf>),
}

/// The usage text.
pub const USAGE: &str =
    "usage: gantry [FOLDER]\n\nOpens Gantry on FOLDER, or on the welcome screen without one.";

/// Parses the arguments after the program name; relative folders are taken from `cwd`.
pub fn parse(args: impl IntoIterator<Item = OsString>, cwd: &Path) -> Launch {
    let mut folder = None;
    let mut options_done = false;
    for arg in args {
        if !options_done && arg.to_string_lossy().starts_with('-') {
            match arg.to_string_lossy().as_ref() {
                "-h" | "--help" => return Launch::Help,
                "-V" | "--version" => return Launch::Version,
                "--" => options_done = true,
                other => tracing::warn!(option = other, "ignoring an unknown option"),
            }
            continue;
        }
        if folder.is_none() {
            folder = Some(cwd.join(PathBuf::from(arg)));
        } else {
            tracing::warn!(argument = ?arg, "ignoring an extra argument");
        }
    }
    Launch::Window(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Launch {
        parse(args.iter().map(OsString::from), Path::new("/home/me"))
    }

    #[test]
    fn a_folder_opens_that_project_and_none_the_welcome_screen() {
        assert_eq!(parse_strs(&[]), Launch::Window(None));
        assert_eq!(
            parse_strs(&["/work/p"]),
            Launch::Window(Some("/work/p".into()))
        );
        assert_eq!(
            parse_strs(&["code/p"]),
            Launch::Window(Some("/home/me/code/p".into()))
        );
    }

    #[test]
    fn options_are_understood_or_ignored() {
        assert_eq!(parse_strs(&["--help", "/p"]), Launch::Help);
        assert_eq!(parse_strs(&["-V"]), Launch::Version);
        assert_eq!(
            parse_strs(&["--automation", "/p", "/q"]),
            Launch::Window(Some("/p".into()))
        );
        assert_eq!(
            parse_strs(&["--", "-odd-name"]),
            Launch::Window(Some("/home/me/-odd-name".into()))
        );
    }
}
