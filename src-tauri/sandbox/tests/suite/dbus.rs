//! The session bus, and the keyring behind it, out of reach whatever the command knows.
//!
//! These run against a real session bus: under `scripts/with-keyring` (a private bus with an
//! unlocked gnome-keyring, `GANTRY_TEST_KEYRING=1`) they must run; without a reachable bus
//! they print that they did not run.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use gantry_sandbox::Limit;

use super::support::{Fixture, count, sandbox};

const LIST_NAMES: &str = "dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ListNames";

/// The session bus's address, if one answers here.
fn session_bus() -> Option<String> {
    let address = std::env::var("DBUS_SESSION_BUS_ADDRESS").ok()?;
    let reachable = Command::new("sh")
        .args(["-c", LIST_NAMES])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    reachable.then_some(address)
}

fn keyring_expected() -> bool {
    std::env::var("GANTRY_TEST_KEYRING").as_deref() == Ok("1")
}

#[tokio::test]
async fn the_session_bus_and_the_keyring_are_unreachable_with_the_network_off_and_on() {
    let Some(address) = session_bus() else {
        assert!(
            !keyring_expected(),
            "GANTRY_TEST_KEYRING=1 but no session bus answers"
        );
        gantry_test_gate::should_run(
            gantry_test_gate::Gate::Dbus,
            Err(
                "no session D-Bus answers here (run under scripts/with-keyring to try the bus \
                 and keyring escapes)"
                    .into(),
            ),
        );
        return;
    };
    let fx = Fixture::new();
    let runtime = std::env::var("XDG_RUNTIME_DIR").unwrap_or_default();
    let secret = format!("hunter2-sandbox-{}", std::process::id());
    if keyring_expected() {
        let stored = Command::new("sh")
            .args([
                "-c",
                &format!(
                    "printf %s '{secret}' | secret-tool store --label=gantry-sandbox-test \
                     service gantry-sandbox-test account probe && \
                     secret-tool lookup service gantry-sandbox-test account probe"
                ),
            ])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&stored.stdout),
            secret,
            "{stored:?}"
        );
    }
    // The command is handed the address and the runtime folder explicitly: hiding them from
    // the environment is not what keeps it out.
    let script = format!(
        "export DBUS_SESSION_BUS_ADDRESS='{address}'\n\
         {LIST_NAMES} >/dev/null && echo BUS_REACHED\n\
         secret-tool lookup service gantry-sandbox-test account probe && echo KEYRING_READ\n\
         [ -n '{runtime}' ] && ls -A '{runtime}' 2>/dev/null | grep . && echo RUNTIME_VISIBLE\n\
         exit 0"
    );
    for network in [false, true] {
        let policy = fx.policy().with_network(network);
        let ran = fx.run_with(&policy, &fx.project, &script).await;
        let out = ran.ok();
        assert!(!out.contains("BUS_REACHED"), "network {network}: {ran:#?}");
        assert!(!out.contains("KEYRING_READ"), "network {network}: {ran:#?}");
        assert!(!out.contains(&secret), "network {network}: {ran:#?}");
        assert!(
            !out.contains("RUNTIME_VISIBLE"),
            "network {network}: {ran:#?}"
        );
        // Refused for want of the socket, not for want of the address.
        assert_eq!(
            count(&ran.stderr, "Failed to connect to socket"),
            1,
            "{ran:#?}"
        );
        if keyring_expected() {
            assert_eq!(
                count(&ran.stderr, "secret-tool: Could not connect"),
                1,
                "{ran:#?}"
            );
        }
    }
    if keyring_expected() {
        let _ = Command::new("secret-tool")
            .args([
                "clear",
                "service",
                "gantry-sandbox-test",
                "account",
                "probe",
            ])
            .status();
    }
}

/// A bus of the test's own on an abstract socket (as `dbus-launch` and some desktops make
/// them): no file to hide, so the network namespace (off) or Landlock's scoping (on) must
/// keep it out.
#[tokio::test]
async fn a_bus_on_an_abstract_socket_is_unreachable_with_the_network_off_and_on() {
    let available = if std::path::Path::new("/usr/bin/dbus-daemon").exists() {
        Ok(())
    } else {
        Err("no dbus-daemon (apt: dbus)".to_owned())
    };
    if !gantry_test_gate::should_run(gantry_test_gate::Gate::Dbus, available) {
        return;
    }
    let fx = Fixture::new();
    let config = fx.root.join("bus.conf");
    std::fs::write(
        &config,
        format!(
            "<busconfig><type>session</type>\
             <listen>unix:abstract=gantry-sandbox-test-{}</listen>\
             <policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>\
             <allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>",
            std::process::id()
        ),
    )
    .unwrap();
    let mut daemon = Command::new("dbus-daemon")
        .arg(format!("--config-file={}", config.display()))
        .args(["--nofork", "--print-address"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut address = String::new();
    BufReader::new(daemon.stdout.take().unwrap())
        .read_line(&mut address)
        .unwrap();
    let address = address.trim().to_owned();
    assert!(address.starts_with("unix:abstract="), "{address}");
    let script = format!(
        "DBUS_SESSION_BUS_ADDRESS='{address}' {LIST_NAMES} >/dev/null && echo BUS_REACHED; exit 0"
    );
    // The control: the bus answers outside.
    assert_eq!(fx.host(&script).ok(), "BUS_REACHED\n");
    let scoped = !sandbox()
        .limits()
        .iter()
        .any(|limit| matches!(limit, Limit::AbstractSocketsReachable { .. }));
    for network in [false, true] {
        let policy = fx.policy().with_network(network);
        let ran = fx.run_with(&policy, &fx.project, &script).await;
        if network && !scoped {
            eprintln!(
                "known limit on this system: the abstract bus is reachable with the network on"
            );
            assert_eq!(ran.ok(), "BUS_REACHED\n");
            continue;
        }
        assert_eq!(ran.ok(), "", "network {network}: {ran:#?}");
        let reason = if network {
            "Operation not permitted"
        } else {
            "Connection refused"
        };
        assert!(ran.stderr.contains(reason), "network {network}: {ran:#?}");
    }
    let _ = daemon.kill();
    let _ = daemon.wait();
}
