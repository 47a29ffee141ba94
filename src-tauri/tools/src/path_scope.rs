//! What approving a file write covers, and the files whose writes always ask.
//!
//! "Allow for this session" on a write must not be broader than what the user saw. A write to
//! `notes/todo.md` is approved as `notes/**` (the file's folder and everything below it; a file
//! at the root is approved as itself), shown to the user in those words, and later writes run
//! without asking only when such a glob matches their path. A rule the user saves for the
//! project is a glob of the same kind (`src/**/*.rs`), so session grants and rules read alike.
//!
//! Some files make programs run: git runs what `.git/config` and `.git/hooks` name on the
//! user's next `git status`, direnv runs `.envrc` on `cd`, cargo runs the runner of
//! `.cargo/config.toml`, editors run `.vscode/tasks.json`. A write to one of them is never
//! covered silently — not by the Auto policy, a session grant or a rule: it asks every time
//! ([`ApprovalScope::Always`]) and the dialog says why. The list is [`EXECUTION_SENSITIVE`],
//! declared once here and documented in the README (a test checks it is). A path is checked
//! as the model wrote it *and* as it resolves (symlinks followed inside the project), so a
//! link `notes/x -> ../.git/config` does not hide the target, nor a `.git` that is a link the
//! name. Names compare without regard to case (a case-insensitive file system would make
//! `.Git/hooks` the same folder).
//!
//! Limits: the check happens when the call is approved. A second process that swaps a checked
//! folder for a link to a sensitive one between the approval and the write (only possible for
//! a program running beside Gantry: sandboxed commands cannot write `.git/hooks` or
//! `.git/config` at all) is not caught.

use globset::{GlobBuilder, GlobMatcher};

use crate::approval::ApprovalScope;
use crate::context::ToolContext;

/// The execution-sensitive paths (globs against the project-relative path, at any depth), each
/// with what makes it run programs.
pub const EXECUTION_SENSITIVE: &[(&str, &str)] = &[
    (
        "**/.git",
        "git runs the hooks and the commands its configuration names",
    ),
    (
        "**/.git/**",
        "git runs the hooks and the commands its configuration names",
    ),
    (
        "**/.gitattributes",
        "git runs the filter and diff programs it names",
    ),
    (
        "**/.gitmodules",
        "git fetches and checks out the repositories it names",
    ),
    (
        "**/.gitconfig",
        "git runs the commands a configuration names",
    ),
    ("**/.envrc", "direnv runs it when you enter the folder"),
    (
        "**/.cargo/config*",
        "cargo runs the runners, linkers and aliases it names",
    ),
    (
        "**/.vscode/**",
        "VS Code runs its tasks and launch settings",
    ),
    ("**/.idea/**", "JetBrains IDEs run its run configurations"),
    (
        "**/.devcontainer/**",
        "dev containers run the commands it names",
    ),
    ("**/.husky/**", "husky runs its git hooks"),
    (
        "**/.pre-commit-config.yaml",
        "pre-commit runs the hooks it names on every commit",
    ),
    ("**/.mcp.json", "MCP clients start the servers it names"),
    ("**/AGENTS.md", "coding agents follow its instructions"),
    ("**/.bashrc", "your shell runs it when it starts"),
    ("**/.bash_profile", "your shell runs it when it starts"),
    ("**/.bash_login", "your shell runs it when it starts"),
    ("**/.profile", "your shell runs it when it starts"),
    ("**/.zshrc", "your shell runs it when it starts"),
    ("**/.zshenv", "your shell runs it when it starts"),
    ("**/.zprofile", "your shell runs it when it starts"),
    ("**/.zlogin", "your shell runs it when it starts"),
    ("**/.config/fish/**", "your shell runs it when it starts"),
];

/// The tools that write files and are scoped by path glob (their rules are globs too).
pub const PATH_SCOPED_TOOLS: &[&str] = &["write_file", "edit_file"];

/// Compiles `glob` the way scopes and rules read it: `*` stays within a folder, `**` crosses
/// folders, `\` escapes.
fn matcher(glob: &str, case_insensitive: bool) -> Option<GlobMatcher> {
    GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .case_insensitive(case_insensitive)
        .build()
        .ok()
        .map(|glob| glob.compile_matcher())
}

/// True when the scope or rule glob `glob` matches the project-relative `path`. A glob that
/// does not compile matches nothing.
pub fn glob_matches(glob: &str, path: &str) -> bool {
    matcher(glob, false).is_some_and(|matcher| matcher.is_match(path))
}

/// Why `glob` cannot be a path rule, or `None` when it can.
pub fn glob_problem(glob: &str) -> Option<String> {
    if glob.trim().is_empty() {
        return Some("a path rule needs a glob such as `notes/**`".into());
    }
    if glob.starts_with('/') {
        return Some("a path rule is relative to the project folder (no leading `/`)".into());
    }
    GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .err()
        .map(|error| format!("`{glob}` is not a glob: {error}"))
}

/// Why writing the project-relative `path` can make programs run, or `None`.
pub fn execution_sensitive(path: &str) -> Option<&'static str> {
    EXECUTION_SENSITIVE
        .iter()
        .find(|(glob, _)| matcher(glob, true).is_some_and(|matcher| matcher.is_match(path)))
        .map(|(_, why)| *why)
}

/// The glob a write to the project-relative `path` is approved as: its folder and everything
/// below (`notes/**`), or the file itself at the root. Special characters in names are escaped.
pub fn path_glob(path: &str) -> String {
    match path.rsplit_once('/') {
        Some((folder, _)) if !folder.is_empty() => format!("{}/**", globset::escape(folder)),
        _ => globset::escape(path),
    }
}

/// `path` as written, made lexically project-relative (`./a//b/` → `a/b`); `None` when it
/// climbs out or is absolute (resolution will refuse it anyway).
fn lexical(path: &str) -> Option<String> {
    if path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(parts.join("/"))
}

/// The scope of a call that writes the file `user_path` (write_file, edit_file): always asks
/// for an execution-sensitive file (as written or as resolved), otherwise the resolved path
/// with its folder's glob. A path that does not resolve inside the project can't be approved
/// beyond the call (it will fail when run).
pub fn file_write_scope(ctx: &ToolContext, user_path: &str) -> ApprovalScope {
    let resolved = match ctx.resolve(user_path) {
        Ok(resolved) => resolved,
        Err(error) => return ApprovalScope::Never(error.to_string()),
    };
    let relative = resolved.relative().to_owned();
    let sensitive = lexical(user_path)
        .as_deref()
        .and_then(execution_sensitive)
        .map(|why| (user_path.to_owned(), why))
        .or_else(|| execution_sensitive(&relative).map(|why| (relative.clone(), why)));
    if let Some((path, why)) = sensitive {
        return ApprovalScope::Always(format!(
            "`{path}` can make programs run ({why}), so every change to it asks"
        ));
    }
    ApprovalScope::Path {
        glob: path_glob(&relative),
        path: relative,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::ProjectRoot;

    #[test]
    fn sensitive_paths_are_found_at_any_depth_and_in_any_case() {
        for path in [
            ".git",
            ".git/config",
            ".git/hooks/pre-commit",
            "vendor/lib/.git/config",
            ".GIT/Hooks/x",
            ".gitattributes",
            "sub/.gitmodules",
            ".envrc",
            ".cargo/config",
            ".cargo/config.toml",
            "crates/a/.cargo/config.toml",
            ".vscode/tasks.json",
            ".idea/workspace.xml",
            ".devcontainer/devcontainer.json",
            ".husky/pre-commit",
            ".pre-commit-config.yaml",
            ".mcp.json",
            "AGENTS.md",
            "docs/AGENTS.md",
            ".bashrc",
            ".config/fish/config.fish",
        ] {
            assert!(execution_sensitive(path).is_some(), "{path}");
        }
        for path in [
            "notes.md",
            "src/main.rs",
            ".github/workflows/ci.yml",
            "git/config",
            ".gitignore",
            "my.git/config",
            "cargo/config.toml",
            "AGENTS.md.bak",
            "README.md",
        ] {
            assert_eq!(execution_sensitive(path), None, "{path}");
        }
    }

    /// The list is declared here once; the README documents it: every entry must be there.
    #[test]
    fn the_readme_documents_every_execution_sensitive_path() {
        let readme = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"),
        )
        .unwrap();
        for (glob, _) in EXECUTION_SENSITIVE {
            let name = glob.strip_prefix("**/").unwrap_or(glob);
            assert!(
                readme.contains(&format!("`{name}`")),
                "README.md does not name `{name}`"
            );
        }
    }

    #[test]
    fn globs_are_the_folder_or_the_root_file_escaped() {
        assert_eq!(path_glob("notes/todo.md"), "notes/**");
        assert_eq!(path_glob("src/deep/x.rs"), "src/deep/**");
        assert_eq!(path_glob("README.md"), "README.md");
        let odd = path_glob("a[1]/*x?/f");
        assert!(glob_matches(&odd, "a[1]/*x?/f"), "{odd}");
        assert!(!glob_matches(&odd, "a1/zx/f"), "{odd}");
        assert!(glob_matches("notes/**", "notes/a.md"));
        assert!(glob_matches("notes/**", "notes/deep/a.md"));
        assert!(!glob_matches("notes/**", "src/main.rs"));
        assert!(!glob_matches("notes/**", "notes.md"));
        assert!(!glob_matches("*.md", "notes/a.md"), "`*` stays in a folder");
        assert!(glob_matches("src/**/*.rs", "src/a/b.rs"));
        assert!(!glob_matches("[", "["));
        assert!(glob_problem("[").is_some());
        assert!(glob_problem("/etc/**").is_some());
        assert!(glob_problem("  ").is_some());
        assert_eq!(glob_problem("src/**/*.rs"), None);
    }

    #[test]
    fn the_write_scope_sees_through_links_and_spellings() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("notes")).unwrap();
        std::os::unix::fs::symlink("../.git/config", dir.path().join("notes/cfg")).unwrap();
        std::os::unix::fs::symlink(".git", dir.path().join("meta")).unwrap();
        let ctx = ToolContext::new(Arc::new(ProjectRoot::new(dir.path()).unwrap()));
        assert_eq!(
            file_write_scope(&ctx, "./notes//todo.md"),
            ApprovalScope::Path {
                path: "notes/todo.md".into(),
                glob: "notes/**".into()
            }
        );
        for path in [
            ".git/config",
            "notes/../.git/config",
            "notes/cfg",
            "meta/hooks/pre-commit",
        ] {
            let scope = file_write_scope(&ctx, path);
            assert!(
                matches!(&scope, ApprovalScope::Always(why) if why.contains("can make programs run")),
                "{path}: {scope:?}"
            );
        }
        assert!(matches!(
            file_write_scope(&ctx, "../outside"),
            ApprovalScope::Never(_)
        ));
    }
}
