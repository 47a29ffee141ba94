//! What a sandboxed command must not read or reach: the user's secret stores and the sockets
//! of services that act for the user outside the sandbox.
//!
//! The list is declared once here, each entry with the reason it is hidden. Folders are
//! replaced by an empty read-only folder, files and sockets by a mount that cannot be opened
//! (reads fail with "Permission denied", connections are refused). An entry that does not
//! exist when the command starts is left alone (see the crate's limits).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// Where a home secret lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    /// `$HOME`.
    Home,
    /// `$XDG_CONFIG_HOME`, and `~/.config` whatever that says.
    Config,
    /// `$XDG_DATA_HOME`, and `~/.local/share` whatever that says.
    Data,
}

/// A secret store under the user's home.
struct HomeSecret {
    base: Base,
    path: &'static str,
    /// Why it is hidden (documentation; shown by [`hidden_path_reasons`]).
    why: &'static str,
}

const fn secret(base: Base, path: &'static str, why: &'static str) -> HomeSecret {
    HomeSecret { base, path, why }
}

/// The user's secret stores, hidden from every sandboxed command.
const HOME_SECRETS: &[HomeSecret] = &[
    secret(Base::Home, ".ssh", "SSH private keys"),
    secret(Base::Home, ".gnupg", "GnuPG private keys"),
    secret(Base::Home, ".aws", "AWS credentials"),
    secret(Base::Home, ".azure", "Azure CLI tokens"),
    secret(Base::Home, ".kube", "Kubernetes cluster credentials"),
    secret(
        Base::Home,
        ".docker/config.json",
        "container registry credentials",
    ),
    secret(
        Base::Home,
        ".netrc",
        "passwords for HTTP and FTP hosts (curl, git, pip)",
    ),
    secret(Base::Home, ".pgpass", "PostgreSQL passwords"),
    secret(Base::Home, ".my.cnf", "MySQL passwords"),
    secret(
        Base::Home,
        ".git-credentials",
        "git's stored HTTPS credentials",
    ),
    secret(Base::Home, ".npmrc", "npm registry tokens"),
    secret(Base::Home, ".pypirc", "PyPI upload tokens"),
    secret(Base::Home, ".cargo/credentials.toml", "crates.io token"),
    secret(
        Base::Home,
        ".cargo/credentials",
        "crates.io token (old name)",
    ),
    secret(Base::Home, ".gem/credentials", "RubyGems API key"),
    secret(Base::Home, ".vault-token", "HashiCorp Vault token"),
    secret(
        Base::Home,
        ".terraform.d/credentials.tfrc.json",
        "Terraform Cloud tokens",
    ),
    secret(Base::Home, ".password-store", "pass, the password manager"),
    secret(
        Base::Home,
        ".mozilla",
        "Firefox profiles: cookies, saved passwords",
    ),
    secret(
        Base::Home,
        ".thunderbird",
        "Thunderbird profiles: mail, passwords",
    ),
    secret(Base::Home, "snap/firefox", "Firefox (snap) profiles"),
    secret(Base::Home, "snap/chromium", "Chromium (snap) profiles"),
    secret(
        Base::Home,
        ".var/app",
        "Flatpak applications' data (browsers, mail, chat)",
    ),
    secret(Base::Config, "gcloud", "Google Cloud credentials"),
    secret(Base::Config, "gh", "GitHub CLI token"),
    secret(Base::Config, "hub", "hub's GitHub token"),
    secret(
        Base::Config,
        "git/credentials",
        "git's stored HTTPS credentials",
    ),
    secret(Base::Config, "rclone", "rclone's cloud storage credentials"),
    secret(Base::Config, "op", "1Password CLI"),
    secret(Base::Config, "Bitwarden CLI", "Bitwarden CLI vault"),
    secret(
        Base::Config,
        "google-chrome",
        "Chrome profiles: cookies, saved passwords",
    ),
    secret(Base::Config, "chromium", "Chromium profiles"),
    secret(Base::Config, "BraveSoftware", "Brave profiles"),
    secret(Base::Config, "microsoft-edge", "Edge profiles"),
    secret(Base::Config, "vivaldi", "Vivaldi profiles"),
    secret(Base::Config, "opera", "Opera profiles"),
    secret(Base::Data, "keyrings", "GNOME Keyring's stored secrets"),
    secret(Base::Data, "kwalletd", "KWallet's stored secrets"),
];

/// System paths hidden from every sandboxed command: sockets of services that would act for
/// the user outside the sandbox.
const SYSTEM_HIDDEN: &[(&str, &str)] = &[
    (
        "/run/user",
        "per-user runtime folders: the session D-Bus (and through it the Secret Service), \
         gnome-keyring, ssh-agent and gpg-agent, systemd --user, PipeWire, Wayland, podman",
    ),
    (
        "/run/dbus",
        "the system D-Bus: NetworkManager, udisks, logind act for the active user without a password",
    ),
    (
        "/run/docker.sock",
        "the Docker daemon: membership of its group is root",
    ),
    ("/run/docker", "the Docker daemon's sockets"),
    ("/run/containerd", "containerd's sockets"),
    ("/run/podman", "rootful podman's socket"),
    ("/run/snapd.socket", "snapd's API"),
    ("/run/snapd-snap.socket", "snapd's API for snaps"),
    ("/run/pcscd", "smart cards and security keys"),
];

/// Environment variables removed from every sandboxed command: each names a socket the
/// sandbox hides, and a program that finds it set would wait on or complain about it.
pub(crate) const REMOVED_ENV: &[&str] = &[
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "GNOME_KEYRING_CONTROL",
    "XDG_RUNTIME_DIR",
];

/// The user's secret stores under `home` (with `~/.config` and `~/.local/share` as the
/// configuration and data folders): what [`crate::SandboxPolicy::new`] hides. Paths that do
/// not exist are included; the sandbox skips them when the command starts.
pub fn home_secret_paths(home: &Path) -> Vec<PathBuf> {
    secrets_under(
        home,
        &home.join(".config"),
        &home.join(".local/share"),
        HOME_SECRETS,
    )
}

/// Every hidden path with the reason it is hidden, for documentation and the UI.
pub fn hidden_path_reasons(home: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut reasons: Vec<(PathBuf, &'static str)> = HOME_SECRETS
        .iter()
        .map(|secret| {
            let base = match secret.base {
                Base::Home => home.to_path_buf(),
                Base::Config => home.join(".config"),
                Base::Data => home.join(".local/share"),
            };
            (base.join(secret.path), secret.why)
        })
        .collect();
    reasons.extend(
        SYSTEM_HIDDEN
            .iter()
            .map(|(path, why)| (PathBuf::from(path), *why)),
    );
    reasons
}

/// The hidden paths that depend on the command's environment: the secret stores under
/// `$XDG_CONFIG_HOME`/`$XDG_DATA_HOME` when they point elsewhere, `$XDG_RUNTIME_DIR`, the
/// session bus's socket file, and the system paths.
pub(crate) fn environment_hidden_paths(env: &[(OsString, OsString)]) -> Vec<PathBuf> {
    let var = |name: &str| {
        env.iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_os_str())
            .filter(|value| !value.is_empty())
    };
    let mut paths: Vec<PathBuf> = SYSTEM_HIDDEN
        .iter()
        .map(|(path, _)| PathBuf::from(path))
        .collect();
    let config = var("XDG_CONFIG_HOME").map(PathBuf::from);
    let data = var("XDG_DATA_HOME").map(PathBuf::from);
    let relocated = |base: Base| {
        HOME_SECRETS
            .iter()
            .filter(move |secret| secret.base == base)
    };
    if let Some(config) = config.filter(|path| path.is_absolute()) {
        paths.extend(relocated(Base::Config).map(|secret| config.join(secret.path)));
    }
    if let Some(data) = data.filter(|path| path.is_absolute()) {
        paths.extend(relocated(Base::Data).map(|secret| data.join(secret.path)));
    }
    if let Some(runtime) = var("XDG_RUNTIME_DIR").map(PathBuf::from)
        && runtime.is_absolute()
    {
        paths.push(runtime);
    }
    if let Some(address) = var("DBUS_SESSION_BUS_ADDRESS") {
        paths.extend(dbus_socket_paths(address));
    }
    paths
}

fn secrets_under(home: &Path, config: &Path, data: &Path, table: &[HomeSecret]) -> Vec<PathBuf> {
    table
        .iter()
        .map(|secret| match secret.base {
            Base::Home => home.join(secret.path),
            Base::Config => config.join(secret.path),
            Base::Data => data.join(secret.path),
        })
        .collect()
}

/// The socket files named by a D-Bus address (`unix:path=/run/user/1000/bus;...`). Abstract
/// sockets have no file: a network namespace or Landlock's scoping keeps them out of reach.
fn dbus_socket_paths(address: &OsStr) -> Vec<PathBuf> {
    let address = address.to_string_lossy();
    address
        .split(';')
        .filter_map(|entry| entry.strip_prefix("unix:"))
        .flat_map(|params| params.split(','))
        .filter_map(|param| param.strip_prefix("path="))
        .map(|path| PathBuf::from(unescape_dbus(path)))
        .filter(|path| path.is_absolute())
        .collect()
}

/// Undoes D-Bus address escaping (`%2f` for `/`); invalid escapes are kept as written.
fn unescape_dbus(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes
            .get(at + 1..at + 3)
            .and_then(|pair| std::str::from_utf8(pair).ok())
            .and_then(|pair| u8::from_str_radix(pair, 16).ok());
        match (bytes[at], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                at += 3;
            }
            (byte, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(key, value)| (OsString::from(key), OsString::from(value)))
            .collect()
    }

    #[test]
    fn home_secrets_are_under_home_config_and_data() {
        let paths = home_secret_paths(Path::new("/home/u"));
        for expected in [
            "/home/u/.ssh",
            "/home/u/.gnupg",
            "/home/u/.aws",
            "/home/u/.kube",
            "/home/u/.docker/config.json",
            "/home/u/.netrc",
            "/home/u/.pgpass",
            "/home/u/.mozilla",
            "/home/u/.config/gcloud",
            "/home/u/.config/google-chrome",
            "/home/u/.config/chromium",
            "/home/u/.config/BraveSoftware",
            "/home/u/.local/share/keyrings",
        ] {
            assert!(paths.contains(&PathBuf::from(expected)), "{expected}");
        }
        assert_eq!(
            hidden_path_reasons(Path::new("/h")).len(),
            HOME_SECRETS.len() + SYSTEM_HIDDEN.len()
        );
    }

    #[test]
    fn the_environment_adds_relocated_stores_the_runtime_folder_and_the_bus_socket() {
        let paths = environment_hidden_paths(&env(&[
            ("XDG_CONFIG_HOME", "/cfg"),
            ("XDG_DATA_HOME", "/data"),
            ("XDG_RUNTIME_DIR", "/tmp/rt"),
            (
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/tmp/dbus%2dx,guid=1;unix:abstract=/tmp/y",
            ),
        ]));
        for expected in [
            "/cfg/gcloud",
            "/data/keyrings",
            "/tmp/rt",
            "/tmp/dbus-x",
            "/run/user",
            "/run/dbus",
        ] {
            assert!(paths.contains(&PathBuf::from(expected)), "{expected}");
        }
        assert!(!paths.contains(&PathBuf::from("/tmp/y")));
        assert!(!paths.iter().any(|path| path.starts_with("/cfg/keyrings")));
    }

    #[test]
    fn relative_or_empty_locations_are_ignored() {
        let paths = environment_hidden_paths(&env(&[
            ("XDG_CONFIG_HOME", "cfg"),
            ("XDG_RUNTIME_DIR", ""),
            ("DBUS_SESSION_BUS_ADDRESS", "unix:path=rel"),
        ]));
        assert_eq!(paths.len(), SYSTEM_HIDDEN.len());
    }

    #[test]
    fn dbus_escapes_are_undone_and_bad_ones_kept() {
        assert_eq!(unescape_dbus("/a%2fb%zz%4"), "/a/b%zz%4");
    }
}
