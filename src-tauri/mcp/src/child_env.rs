//! The environment a stdio MCP server starts with.
//!
//! Every configured server is a program that runs with the user's rights, often fetched by
//! `npx` at start; it must not inherit every secret in Gantry's environment (cloud
//! credentials, `GITHUB_TOKEN`, the model provider's key). So a server starts from an empty
//! environment plus:
//!
//! - **What programs need to run at all:** `PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`, `TERM`,
//!   the temp folders (`TMPDIR`, `TMP`, `TEMP`), the locale (`LANG`, `LANGUAGE`, `LC_*`,
//!   `TZ`), the XDG base folders (`XDG_*`, but not `XDG_RUNTIME_DIR`), and the Windows and macOS
//!   equivalents that programs there cannot start without (`SYSTEMROOT`, `WINDIR`, `COMSPEC`,
//!   `PATHEXT`, `APPDATA`, `USERPROFILE`, ..., `__CF_USER_TEXT_ENCODING`).
//! - **What `npx`/`uvx` need to fetch and run a server:** `NODE_*` (`NODE_EXTRA_CA_CERTS`,
//!   `NODE_OPTIONS`, `NODE_PATH`), `npm_config_*` / `NPM_CONFIG_*` (registry mirror, cache,
//!   proxy settings the user chose), `UV_*`, the proxy variables (`HTTP_PROXY`, `HTTPS_PROXY`,
//!   `NO_PROXY`, `ALL_PROXY`, in either case) and the CA bundle variables (`SSL_CERT_FILE`,
//!   `SSL_CERT_DIR`). Without them `npx -y some-server` fails behind a proxy or a private
//!   registry, which is how many users reach npm. Within these prefixes, a name that looks
//!   like a secret ([`gantry_tools::is_secret_env`], or containing `AUTH` anywhere, as npm's
//!   `_auth`/`_authToken` settings do: [`gantry_tools::mentions_auth`]) is still dropped.
//! - **The server's configured `env`**, which wins over all of the above and is the way to
//!   pass a secret on purpose (`"env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}`).
//!
//! Within the allowlist a variable is still dropped when Gantry's scrubbing withholds it from
//! commands ([`gantry_tools::is_secret_var`]): by its name, or by its **value** (a proxy URL
//! with a password, `NODE_OPTIONS` holding a token, a JWT). `GANTRY_*` variables and every
//! registered provider key variable never pass.
//!
//! The session bus stays out of reach the way run_command keeps it out: `XDG_RUNTIME_DIR` (whose
//! `bus` socket D-Bus libraries fall back to) is not passed and `DBUS_SESSION_BUS_ADDRESS` is set
//! to [`gantry_tools::DBUS_BLOCKED`], so a server cannot ask the desktop keyring for the keys
//! Gantry keeps there. A server that needs the bus gets it only from its configured `env`.

use std::collections::BTreeMap;
use std::ffi::OsString;

/// Variables passed through by exact name (compared as written, and upper-cased for the
/// Windows names).
const PASSED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "TMPDIR",
    "TMP",
    "TEMP",
    "LANG",
    "LANGUAGE",
    "TZ",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    // Windows: programs (node included) fail without these.
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROGRAMFILES",
    "PROGRAMFILES(X86)",
    "USERPROFILE",
    "USERNAME",
    "HOMEDRIVE",
    "HOMEPATH",
    // macOS: the default text encoding of CoreFoundation programs.
    "__CF_USER_TEXT_ENCODING",
];

/// Variables passed through by prefix (secret-looking names excepted).
const PASSED_PREFIXES: &[&str] = &["LC_", "XDG_", "NODE_", "npm_config_", "NPM_CONFIG_", "UV_"];

/// Variables a prefix would pass but that lead to the session bus (see the module docs).
const NOT_PASSED: &[&str] = &["XDG_RUNTIME_DIR"];

/// Whether Gantry's variable `name` is passed to a stdio server by its name (see the module
/// docs); [`server_environment`] also looks at the value.
pub fn is_passed(name: &str) -> bool {
    if gantry_tools::is_secret_env(name)
        || gantry_tools::mentions_auth(name)
        || NOT_PASSED.contains(&name)
    {
        return false;
    }
    let upper = name.to_ascii_uppercase();
    PASSED.contains(&name)
        || (cfg!(windows) && PASSED.contains(&upper.as_str()))
        || PASSED_PREFIXES
            .iter()
            .any(|prefix| name.starts_with(prefix))
}

/// The environment for a stdio server: the passed subset of `parent` (by name and by value),
/// the session bus blocked, plus `configured` (which wins).
pub fn server_environment(
    parent: impl IntoIterator<Item = (OsString, OsString)>,
    configured: &BTreeMap<String, String>,
) -> Vec<(OsString, OsString)> {
    let mut env: BTreeMap<OsString, OsString> = parent
        .into_iter()
        .filter(|(name, value)| {
            name.to_str()
                .is_some_and(|name| is_passed(name) && !gantry_tools::is_secret_var(name, value))
        })
        .collect();
    env.insert(
        OsString::from(gantry_tools::DBUS_SESSION),
        OsString::from(gantry_tools::DBUS_BLOCKED),
    );
    for (name, value) in configured {
        env.insert(OsString::from(name), OsString::from(value));
    }
    env.into_iter().collect()
}

/// [`server_environment`] of this process's environment.
pub fn current_server_environment(
    configured: &BTreeMap<String, String>,
) -> Vec<(OsString, OsString)> {
    server_environment(std::env::vars_os(), configured)
}

/// Looks `name` up in an environment built by [`server_environment`].
#[cfg(test)]
fn lookup<'a>(env: &'a [(OsString, OsString)], name: &str) -> Option<&'a std::ffi::OsStr> {
    env.iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_os_str())
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    fn parent(names: &[&str]) -> Vec<(OsString, OsString)> {
        names
            .iter()
            .map(|name| (OsString::from(name), OsString::from(format!("v-{name}"))))
            .collect()
    }

    #[test]
    fn only_the_allowlist_passes_and_secrets_never_do() {
        let passed = [
            "PATH",
            "HOME",
            "USER",
            "LOGNAME",
            "SHELL",
            "TERM",
            "TMPDIR",
            "LANG",
            "LC_ALL",
            "LC_CTYPE",
            "TZ",
            "XDG_CONFIG_HOME",
            "NODE_EXTRA_CA_CERTS",
            "NODE_OPTIONS",
            "npm_config_registry",
            "NPM_CONFIG_CACHE",
            "UV_INDEX_URL",
            "HTTPS_PROXY",
            "no_proxy",
            "SSL_CERT_FILE",
        ];
        let dropped = [
            "OPENAI_API_KEY",
            "DEEPSEEK_API_KEY",
            "GITHUB_TOKEN",
            "GITHUB_PAT",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_ACCESS_KEY_ID",
            "DATABASE_URL",
            "GANTRY_DATA_DIR",
            "SSH_AUTH_SOCK",
            "NODE_AUTH_TOKEN",
            "npm_config__auth",
            "npm_config_//registry.npmjs.org/:_authToken",
            "NPM_CONFIG_PASSWORD",
            "XDG_SECRET_THING",
            "UV_INDEX_PASSWORD",
            "CARGO_HOME",
            "RANDOM_SETTING",
            "LD_PRELOAD",
            "XDG_RUNTIME_DIR",
            "DBUS_SESSION_BUS_ADDRESS",
        ];
        let mut all = passed.to_vec();
        all.extend(dropped);
        let configured = BTreeMap::new();
        let env = server_environment(parent(&all), &configured);
        for name in passed {
            assert_eq!(
                lookup(&env, name),
                Some(OsStr::new(&format!("v-{name}"))),
                "{name}"
            );
        }
        for name in dropped {
            if name == gantry_tools::DBUS_SESSION {
                continue;
            }
            assert_eq!(lookup(&env, name), None, "{name}");
        }
        assert_eq!(
            lookup(&env, gantry_tools::DBUS_SESSION),
            Some(OsStr::new(gantry_tools::DBUS_BLOCKED)),
            "the session bus is blocked"
        );
        assert_eq!(env.len(), passed.len() + 1);
    }

    #[test]
    fn allowed_names_with_credential_values_are_dropped() {
        let parent: Vec<(OsString, OsString)> = [
            ("HTTPS_PROXY", "http://alice:s3cret-proxy@proxy.corp:3128"),
            ("HTTP_PROXY", "http://proxy.corp:3128"),
            (
                "NODE_OPTIONS",
                "--header=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXZhbHVl",
            ),
            (
                "npm_config_registry",
                "https://npm:tok3n-value@registry.corp/",
            ),
            ("LANG", "C.UTF-8"),
        ]
        .into_iter()
        .map(|(name, value)| (OsString::from(name), OsString::from(value)))
        .collect();
        let env = server_environment(parent, &BTreeMap::new());
        for dropped in ["HTTPS_PROXY", "NODE_OPTIONS", "npm_config_registry"] {
            assert_eq!(lookup(&env, dropped), None, "{dropped}");
        }
        assert_eq!(
            lookup(&env, "HTTP_PROXY"),
            Some(OsStr::new("http://proxy.corp:3128"))
        );
        assert_eq!(lookup(&env, "LANG"), Some(OsStr::new("C.UTF-8")));
        // On purpose, through the configured env, the bus and a secret still pass.
        let configured = BTreeMap::from([(
            gantry_tools::DBUS_SESSION.to_owned(),
            "unix:path=/run/user/1000/bus".to_owned(),
        )]);
        let env = server_environment(Vec::new(), &configured);
        assert_eq!(
            lookup(&env, gantry_tools::DBUS_SESSION),
            Some(OsStr::new("unix:path=/run/user/1000/bus"))
        );
    }

    #[test]
    fn registered_provider_variables_are_dropped() {
        gantry_tools::register_secret_env("CORP_LLM_BEARER_MCP");
        let env = server_environment(parent(&["CORP_LLM_BEARER_MCP", "PATH"]), &BTreeMap::new());
        assert_eq!(lookup(&env, "CORP_LLM_BEARER_MCP"), None);
        assert!(lookup(&env, "PATH").is_some());
    }

    #[test]
    fn the_configured_env_is_added_and_wins() {
        let configured = BTreeMap::from([
            ("GITHUB_TOKEN".to_owned(), "given on purpose".to_owned()),
            ("PATH".to_owned(), "/custom/bin".to_owned()),
        ]);
        let env = server_environment(parent(&["PATH", "GITHUB_TOKEN"]), &configured);
        assert_eq!(
            lookup(&env, "GITHUB_TOKEN"),
            Some(OsStr::new("given on purpose"))
        );
        assert_eq!(lookup(&env, "PATH"), Some(OsStr::new("/custom/bin")));
    }
}
