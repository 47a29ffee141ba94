//! Which environment variables a child process Gantry starts must not see, and which a project
//! passes on purpose.
//!
//! A variable is withheld when (see [`is_secret_var`]):
//!
//! - its **name** follows a secret convention (`*_TOKEN`, `*_PASSWORD`, `GITHUB_PAT`, ...; the
//!   list is [`crate::secrets::is_secret_env_name`]'s);
//! - it is Gantry's own (`GANTRY_*`), or a provider's key variable the engine registered with
//!   [`register_secret_env`] (it may be called anything);
//! - its **value** has the shape of a credential ([`crate::secrets::is_secret_value`]): a known
//!   key's shape, a URL with a password or a token in it, a webhook URL, a JWT, auth JSON, a
//!   private key. That catches `DATABASE_URL=postgres://app:pw@db/app` while
//!   `DATABASE_URL=postgres://localhost/db` stays;
//! - it is `DBUS_SESSION_BUS_ADDRESS`: the session bus is where the desktop keyring (Secret
//!   Service) answers, and Gantry keeps its API keys there; a child that reached the bus read
//!   them back. The environment a child gets instead sets it to `disabled:` ([`DBUS_BLOCKED`]),
//!   because D-Bus libraries (GLib, libdbus, sd-bus) fall back to `$XDG_RUNTIME_DIR/bus` when the
//!   variable is unset but not when it is set to an address they cannot use. This stops the
//!   keyring tools that follow the convention (`secret-tool`, Python's `keyring`); a program that
//!   dials the socket's path by itself still reaches it, which only the OS sandbox
//!   (gantry-sandbox) prevents. `DBUS_SYSTEM_BUS_ADDRESS` is kept: the system bus holds no user
//!   secrets (the keyring lives on the session bus), and its well-known socket path works
//!   without the variable anyway, so removing it would protect nothing.
//!
//! A project may pass variables **on purpose** ([`PassList`]): a test suite that needs
//! `DATABASE_URL` with its password, or an authenticated `HTTPS_PROXY`. A listed variable
//! passes whatever its name or value says, with three exceptions that no list opens, because
//! they are Gantry's and not the project's: `DBUS_SESSION_BUS_ADDRESS` (the keyring holding
//! Gantry's keys), `GANTRY_*`, and the registered provider key variables (the model's own
//! credentials; a project that needs a key of its own gives it its own variable). The list
//! belongs to the project: [`ProjectRoot::set_env_pass`] stores it where run_command reads it.
//!
//! The registry of provider key variables is process-wide on purpose: a key variable known to
//! any part of the engine is a secret for every child the process starts, whichever session or
//! tool starts it, and a registration can never be forgotten by a code path that builds its own
//! `ToolManager` or `ToolContext`.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::sync::{PoisonError, RwLock};

use crate::confine::ProjectRoot;
use crate::secrets::{is_secret_env_name, is_secret_value};

/// The session bus's address variable: never passed (see the module docs).
pub const DBUS_SESSION: &str = "DBUS_SESSION_BUS_ADDRESS";

/// What [`DBUS_SESSION`] is set to in a child's environment: an address no D-Bus library can
/// connect to, so none falls back to the default socket.
pub const DBUS_BLOCKED: &str = "disabled:";

/// Names registered with [`register_secret_env`], upper-cased.
static REGISTERED: RwLock<BTreeSet<String>> = RwLock::new(BTreeSet::new());

/// Marks the variable `name` as a secret for the rest of the process: no child process
/// started through [`scrubbed_environment`] (run_command, MCP servers) will receive it, even
/// when a project lists it in its [`PassList`]. Blank names are ignored; names compare without
/// regard to case.
pub fn register_secret_env(name: &str) {
    let name = name.trim();
    if name.is_empty() {
        return;
    }
    // A poisoned lock still holds a valid set: a panic elsewhere must not stop scrubbing.
    let mut registered = REGISTERED.write().unwrap_or_else(PoisonError::into_inner);
    registered.insert(name.to_ascii_uppercase());
}

/// True for variables a child process must not see *by their name*: the secret name patterns
/// ([`is_secret_env_name`]) in any case, `DBUS_SESSION_BUS_ADDRESS`, Gantry's own `GANTRY_*`,
/// and every registered name. [`is_secret_var`] looks at the value too.
pub fn is_secret_env(name: &str) -> bool {
    never_passed(&name.to_ascii_uppercase()) || is_secret_env_name(name)
}

/// True for variables a child process must not see, by name ([`is_secret_env`]) or by value
/// ([`is_secret_value`]; a value that is not UTF-8 is read lossily).
pub fn is_secret_var(name: &str, value: &OsStr) -> bool {
    is_secret_env(name) || is_secret_value(&value.to_string_lossy())
}

/// Why a project cannot pass the variable `name` on purpose (it is Gantry's own), or `None`.
pub fn pass_refusal(name: &str) -> Option<&'static str> {
    let upper = name.trim().to_ascii_uppercase();
    if upper == DBUS_SESSION {
        Some("the session bus is where Gantry's keys are kept; it never reaches a command")
    } else if upper.starts_with("GANTRY_") {
        Some("GANTRY_* variables are Gantry's own and never reach a command")
    } else if never_passed(&upper) {
        Some("it holds a model provider's key, which never reaches a command")
    } else {
        None
    }
}

/// Gantry's own variables, which no pass list opens (`upper` is the upper-cased name).
fn never_passed(upper: &str) -> bool {
    upper == DBUS_SESSION
        || upper.starts_with("GANTRY_")
        || REGISTERED
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(upper)
}

/// The variables a project passes to its commands on purpose, secret or not (see the module
/// docs for the three that never pass). Names are exact (environment names are case-sensitive).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PassList {
    names: BTreeSet<String>,
}

impl PassList {
    /// A list of `names`; surrounding blanks are trimmed and blank names dropped.
    pub fn new<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Self {
        Self {
            names: names
                .into_iter()
                .map(|name| name.as_ref().trim().to_owned())
                .filter(|name| !name.is_empty())
                .collect(),
        }
    }

    /// True when `name` is listed.
    pub fn contains(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// The listed names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// True when nothing is listed.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// `vars` as a child may see them: without secrets ([`is_secret_var`]) unless `pass` lists
/// them, never with Gantry's own variables, and with [`DBUS_SESSION`] set to [`DBUS_BLOCKED`].
pub fn scrub_environment(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
    pass: &PassList,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = vars
        .into_iter()
        .filter(|(name, value)| {
            let name = name.to_string_lossy();
            if never_passed(&name.to_ascii_uppercase()) {
                return false;
            }
            pass.contains(&name) || !is_secret_var(&name, value)
        })
        .collect();
    env.push((DBUS_SESSION.into(), DBUS_BLOCKED.into()));
    env
}

/// This process's environment as a child may see it, with the variables `pass` lets through
/// (see [`scrub_environment`]).
pub fn scrubbed_environment_passing(pass: &PassList) -> Vec<(OsString, OsString)> {
    scrub_environment(std::env::vars_os(), pass)
}

/// This process's environment as a child may see it, nothing passed on purpose.
pub fn scrubbed_environment() -> Vec<(OsString, OsString)> {
    scrubbed_environment_passing(&PassList::default())
}

impl ProjectRoot {
    /// Sets the variables this project's commands receive on purpose (run_command reads it at
    /// every call). Shared by every clone of this root and every context built on it.
    pub fn set_env_pass(&self, pass: PassList) {
        *self
            .env_pass_cell()
            .write()
            .unwrap_or_else(PoisonError::into_inner) = pass;
    }

    /// The variables this project's commands receive on purpose (empty unless set).
    pub fn env_pass(&self) -> PassList {
        self.env_pass_cell()
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
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
    fn gantrys_own_names_and_the_session_bus_are_secret_by_name_as_are_the_patterns() {
        for name in [
            "GANTRY_DATA_DIR",
            "gantry_log",
            "DBUS_SESSION_BUS_ADDRESS",
            // The patterns themselves are crate::secrets's (and tested there).
            "OPENAI_API_KEY",
            "GITHUB_PAT",
        ] {
            assert!(is_secret_env(name), "{name}");
        }
        for name in [
            "MY_GANTRY_THING",
            "DBUS_SYSTEM_BUS_ADDRESS",
            "SSH_AUTH_SOCK",
            "PATH",
            // Judged by their values (below), not their names.
            "DATABASE_URL",
        ] {
            assert!(!is_secret_env(name), "{name}");
        }
    }

    /// The review's variables with realistic values, and ordinary ones that must stay.
    pub(crate) const LEAKED: &[(&str, &str)] = &[
        (
            "DATABASE_URL",
            "postgres://app:hunter2@db.internal:5432/app",
        ),
        ("REDIS_URL", "redis://:s3cret@cache:6379/0"),
        (
            "MONGODB_URI",
            "mongodb+srv://admin:pw@cluster0.example.net/db",
        ),
        (
            "SENTRY_DSN",
            "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/2",
        ),
        (
            "SLACK_WEBHOOK_URL",
            "https://hooks.slack.com/services/T00/B00/XXXX",
        ),
        (
            "DOCKER_AUTH_CONFIG",
            r#"{"auths":{"r.example.com":{"auth":"dXNlcjpwYXNz"}}}"#,
        ),
        ("NPM_CONFIG__AUTH", "dXNlcjpwYXNz"),
        ("NPM_CONFIG__AUTHTOKEN", "npm_abcdef"),
        ("CI_JOB_JWT", crate::secrets::tests::JWT),
        ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"),
        // Innocent names, secret values.
        ("MY_SERVICE", "https://api.example.com/v1?access_token=abc"),
        ("UPSTREAM", "https://user:pw@git.example.com/repo.git"),
        ("SESSION_HEADER", crate::secrets::tests::JWT),
    ];

    /// Variables that must reach a child as they are.
    pub(crate) const KEPT: &[(&str, &str)] = &[
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("HOME", "/home/dev"),
        ("LANG", "en_US.UTF-8"),
        ("RUST_LOG", "info,hyper=warn"),
        ("HOMEPAGE_URL", "https://example.com"),
        ("LOCAL_DATABASE_URL", "postgres://localhost/db"),
        ("SSH_AUTH_SOCK", "/run/user/1000/ssh-agent.socket"),
        (
            "DBUS_SYSTEM_BUS_ADDRESS",
            "unix:path=/run/dbus/system_bus_socket",
        ),
    ];

    fn os(vars: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        vars.iter()
            .map(|(name, value)| ((*name).into(), (*value).into()))
            .collect()
    }

    fn lookup<'a>(env: &'a [(OsString, OsString)], name: &str) -> Option<&'a OsStr> {
        env.iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_os_str())
    }

    #[test]
    fn secrets_are_scrubbed_by_name_or_value_and_the_rest_kept() {
        let env = scrub_environment(os(LEAKED).into_iter().chain(os(KEPT)), &PassList::default());
        for (name, value) in LEAKED {
            assert!(is_secret_var(name, OsStr::new(value)), "{name}");
            if *name != DBUS_SESSION {
                assert_eq!(lookup(&env, name), None, "{name} passed");
            }
        }
        for (name, value) in KEPT {
            assert!(!is_secret_var(name, OsStr::new(value)), "{name}");
            assert_eq!(lookup(&env, name), Some(OsStr::new(value)), "{name}");
        }
        // The session bus is blocked, not just unset, so no library falls back to its socket.
        let buses: Vec<_> = env.iter().filter(|(key, _)| key == DBUS_SESSION).collect();
        assert_eq!(buses.len(), 1);
        assert_eq!(lookup(&env, DBUS_SESSION), Some(OsStr::new(DBUS_BLOCKED)));
        assert_eq!(env.len(), KEPT.len() + 1);
    }

    #[test]
    fn the_pass_list_lets_listed_secrets_through_but_never_gantrys_own() {
        register_secret_env("PROVIDER_KEY_VAR_FOR_PASS_TEST");
        let parent = os(LEAKED).into_iter().chain(os(&[
            ("GANTRY_DATA_DIR", "/data"),
            ("PROVIDER_KEY_VAR_FOR_PASS_TEST", "sk-123"),
        ]));
        let pass = PassList::new([
            " DATABASE_URL ",
            "SENTRY_DSN",
            "",
            "DBUS_SESSION_BUS_ADDRESS",
            "GANTRY_DATA_DIR",
            "PROVIDER_KEY_VAR_FOR_PASS_TEST",
            "database_url_lowercase_is_another_name",
        ]);
        assert!(pass.contains("DATABASE_URL") && !pass.contains(""));
        assert_eq!(pass.names().count(), 6);
        let env = scrub_environment(parent, &pass);
        assert_eq!(
            lookup(&env, "DATABASE_URL"),
            Some(OsStr::new("postgres://app:hunter2@db.internal:5432/app"))
        );
        assert!(lookup(&env, "SENTRY_DSN").is_some());
        assert_eq!(lookup(&env, "REDIS_URL"), None, "not listed");
        assert_eq!(lookup(&env, "GANTRY_DATA_DIR"), None);
        assert_eq!(lookup(&env, "PROVIDER_KEY_VAR_FOR_PASS_TEST"), None);
        assert_eq!(lookup(&env, DBUS_SESSION), Some(OsStr::new(DBUS_BLOCKED)));
    }

    #[test]
    fn a_project_root_keeps_its_pass_list_for_every_clone() {
        let dir = tempfile::tempdir().unwrap();
        let root = ProjectRoot::new(dir.path()).unwrap();
        let clone = root.clone();
        assert!(root.env_pass().is_empty());
        clone.set_env_pass(PassList::new(["DATABASE_URL"]));
        assert!(root.env_pass().contains("DATABASE_URL"));
        let other = ProjectRoot::new(dir.path()).unwrap();
        assert!(
            other.env_pass().is_empty(),
            "another root of the same folder"
        );
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
