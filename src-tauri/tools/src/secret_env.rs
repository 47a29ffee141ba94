//! Which environment variables hold secrets, so that no child process Gantry starts sees them.
//!
//! Two sources: name patterns that catch the usual conventions (`*_API_KEY`, `*_TOKEN`,
//! `*SECRET*`, `*PASSWORD*`, `GITHUB_PAT`, ...), and names the engine registers at run time
//! with [`register_secret_env`] — the variables provider configurations read their API keys
//! from (`api_key_env`), which may be called anything. The registry is process-wide on
//! purpose: a key variable known to any part of the engine is a secret for every child the
//! process starts, whichever session or tool starts it, and a registration can never be
//! forgotten by a code path that builds its own `ToolManager` or `ToolContext`.

use std::collections::BTreeSet;
use std::sync::RwLock;

/// Substrings (of the upper-cased name) that mark a secret. `KEY` covers `API_KEY`, `APIKEY`
/// and `PRIVATE_KEY`.
const SECRET_WORDS: &[&str] = &["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"];

/// Whole `_`-separated parts of the upper-cased name that mark a secret (`GITHUB_PAT`,
/// `GL_PAT_RO`), checked as parts so that `LD_LIBRARY_PATH` stays.
const SECRET_PARTS: &[&str] = &["PAT"];

/// Names registered with [`register_secret_env`], upper-cased.
static REGISTERED: RwLock<BTreeSet<String>> = RwLock::new(BTreeSet::new());

/// Marks the variable `name` as a secret for the rest of the process: no child process
/// started through [`scrubbed_environment`] (run_command, MCP servers) will receive it.
/// Blank names are ignored; names compare without regard to case.
pub fn register_secret_env(name: &str) {
    let name = name.trim();
    if name.is_empty() {
        return;
    }
    // A poisoned lock still holds a valid set: a panic elsewhere must not stop scrubbing.
    let mut registered = REGISTERED
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    registered.insert(name.to_ascii_uppercase());
}

/// True for variables a child process must not see: names matching the secret patterns (see
/// the module docs) in any case, Gantry's own `GANTRY_*`, and every registered name.
pub fn is_secret_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if upper.starts_with("GANTRY_")
        || SECRET_WORDS.iter().any(|word| upper.contains(word))
        || upper.split('_').any(|part| SECRET_PARTS.contains(&part))
    {
        return true;
    }
    REGISTERED
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .contains(&upper)
}

/// This process's environment without the variables [`is_secret_env`] names.
pub fn scrubbed_environment() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    std::env::vars_os()
        .filter(|(name, _)| !is_secret_env(&name.to_string_lossy()))
        .collect()
}

/// The API key in the environment variable `name`: its value with surrounding white space
/// trimmed (a key pasted with a newline still works), or `None` when it is unset, not UTF-8 or
/// blank. The one place every crate reads a key variable.
pub fn key_from_env(name: &str) -> Option<String> {
    let value = std::env::var(name).ok()?;
    let trimmed = value.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_patterns_are_scrubbed_by_name() {
        for name in [
            "OPENAI_API_KEY",
            "MY_APIKEY",
            "SSH_PRIVATE_KEY",
            "GITHUB_TOKEN",
            "MY_SECRET",
            "DB_PASSWORD",
            "PASSWD_FILE",
            "MYSQL_PASSWD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "AWS_CREDENTIAL_FILE",
            "GITHUB_PAT",
            "GL_PAT_RO",
            "pat",
            "GANTRY_DATA_DIR",
            "gantry_log",
            "aws_secret_access_key",
            "Api_Key",
        ] {
            assert!(is_secret_env(name), "{name}");
        }
        for name in [
            "PATH",
            "LD_LIBRARY_PATH",
            "PKG_CONFIG_PATH",
            "PATTERN",
            "HOME",
            "LANG",
            "TERM",
            "CARGO_HOME",
            "SSH_AUTH_SOCK",
            "MY_GANTRY_THING",
        ] {
            assert!(!is_secret_env(name), "{name}");
        }
    }

    #[test]
    fn registered_names_are_scrubbed_in_any_case() {
        let custom = "WORK_LLM_BEARER_7f3a";
        assert!(!is_secret_env(custom));
        register_secret_env(&format!("  {}  ", custom.to_lowercase()));
        assert!(is_secret_env(custom));
        register_secret_env("   ");
        assert!(!is_secret_env(""));
    }

    #[test]
    fn key_variables_are_read_trimmed_and_blank_is_none() {
        assert_eq!(key_from_env("GANTRY_TEST_SURELY_UNSET_KEY_VAR"), None);
        let path = std::env::var("PATH").unwrap();
        assert_eq!(key_from_env("PATH").as_deref(), Some(path.trim()));
    }
}
