//! Escape attempts through run_command, each of which must fail: the sandbox crate tests the
//! mechanism, these test that every call of the tool goes through it with the project's
//! settings.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::Command;
use std::time::Duration;

use gantry_tools::{SandboxSettings, SandboxState};

use super::support::{Fixture, plant};

#[tokio::test]
async fn writes_land_only_in_the_project_and_the_sessions_temporary_folder() {
    let fx = Fixture::new();
    let script = format!(
        "exec 2>/dev/null\n\
         echo in > inside.txt\n\
         echo out > '{outside}/x' && echo WROTE_OUTSIDE\n\
         echo home > '{home}/x' && echo WROTE_HOME\n\
         echo scratch > \"$TMPDIR/scratch\" && echo \"TMPDIR=$TMPDIR\"\n\
         exit 0",
        outside = fx.outside.display(),
        home = fx.home.display(),
    );
    let obs = fx.run(&script).await;
    assert_eq!(
        obs.sandbox,
        Some(SandboxState::Sandboxed { network: false })
    );
    assert!(obs.is_ok(), "{}", obs.text);
    assert!(obs.text.contains("TMPDIR=/tmp"), "{}", obs.text);
    assert!(!obs.text.contains("WROTE"), "{}", obs.text);
    assert!(fx.project.join("inside.txt").exists());
    assert!(!fx.outside.join("x").exists());
    assert!(!fx.home.join("x").exists());
    // `/tmp` inside is the session's own folder on the host, which goes with the session.
    let temp = fx
        .session
        .temp()
        .path()
        .expect("the session has its folder");
    assert_eq!(
        std::fs::read_to_string(temp.join("scratch")).unwrap(),
        "scratch\n"
    );
    assert!(!temp.starts_with(&fx.project));
    let Fixture { session, .. } = fx;
    drop(session);
    assert!(!temp.exists(), "the session's folder was removed with it");
}

#[tokio::test]
async fn a_folder_the_project_makes_writable_is_writable() {
    let fx = Fixture::new();
    let script = format!(
        "exec 2>/dev/null; echo out > '{}/x' && echo WROTE; exit 0",
        fx.outside.display()
    );
    assert_eq!(fx.output(&script).await, "");
    fx.manager.sandbox().set_settings(SandboxSettings {
        network: false,
        writable: vec![fx.outside.clone()],
    });
    assert_eq!(fx.output(&script).await, "WROTE\n");
    assert!(fx.outside.join("x").exists());
}

#[tokio::test]
async fn the_repositorys_hooks_config_and_info_cannot_be_changed() {
    let fx = Fixture::new();
    fx.host("git init -q . && git config core.fsmonitor false");
    let config = std::fs::read_to_string(fx.project.join(".git/config")).unwrap();
    let script = "exec 2>/dev/null\n\
                  echo 'touch pwned' > .git/hooks/pre-commit && echo HOOK\n\
                  git config core.fsmonitor 'touch pwned' && echo CONFIG\n\
                  echo '* filter=x' > .git/info/attributes && echo INFO\n\
                  mv .git .git-moved && echo MOVED\n\
                  exit 0";
    assert_eq!(fx.output(script).await, "");
    assert!(!fx.project.join(".git/hooks/pre-commit").exists());
    assert!(!fx.project.join(".git/info/attributes").exists());
    assert_eq!(
        std::fs::read_to_string(fx.project.join(".git/config")).unwrap(),
        config
    );
}

#[tokio::test]
async fn secret_stores_under_home_and_gantrys_own_folders_cannot_be_read() {
    let fx = Fixture::new();
    plant(&fx.home.join(".ssh/id_ed25519"), "PRIVATE-KEY-SSH\n");
    plant(&fx.home.join(".aws/credentials"), "PRIVATE-KEY-AWS\n");
    let data = fx.home.join("gantry-data");
    plant(&data.join("gantry.db"), "PRIVATE-DATABASE\n");
    fx.manager.sandbox().hide(&data);
    let script = format!(
        "cat '{home}/.ssh/id_ed25519' '{home}/.aws/credentials' '{data}/gantry.db' 2>/dev/null\n\
         ls -A '{home}/.ssh' '{data}'\n\
         exit 0",
        home = fx.home.display(),
        data = data.display(),
    );
    let out = fx.output(&script).await;
    assert!(!out.contains("PRIVATE"), "{out}");
    assert!(
        !out.contains("id_ed25519") && !out.contains("gantry.db"),
        "{out}"
    );
}

/// A loopback server started here; the command tries to send it a line.
fn loopback_server() -> (u16, std::sync::mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut line = String::new();
            let _ = BufReader::new(stream).read_line(&mut line);
            let _ = sender.send(line);
        }
    });
    (port, receiver)
}

#[tokio::test]
async fn the_hosts_loopback_is_reachable_only_with_the_network_switch_on() {
    let fx = Fixture::new();
    let (port, received) = loopback_server();
    let script = format!(
        "bash -c 'echo hello-from-inside > /dev/tcp/127.0.0.1/{port}' 2>/dev/null && echo CONNECTED; exit 0"
    );
    assert_eq!(fx.output(&script).await, "");
    assert!(received.recv_timeout(Duration::from_millis(300)).is_err());

    fx.manager.sandbox().set_settings(SandboxSettings {
        network: true,
        writable: Vec::new(),
    });
    let obs = fx.run(&script).await;
    assert_eq!(obs.sandbox, Some(SandboxState::Sandboxed { network: true }));
    assert!(obs.text.ends_with("\nCONNECTED\n"), "{}", obs.text);
    assert_eq!(
        received.recv_timeout(Duration::from_secs(5)).unwrap(),
        "hello-from-inside\n"
    );
}

#[tokio::test]
async fn the_session_bus_and_the_keyring_are_out_of_reach() {
    let Ok(address) = std::env::var("DBUS_SESSION_BUS_ADDRESS") else {
        assert!(
            std::env::var("GANTRY_TEST_KEYRING").as_deref() != Ok("1"),
            "GANTRY_TEST_KEYRING=1 but no session bus"
        );
        eprintln!("not run: no session D-Bus here (run under scripts/with-keyring)");
        return;
    };
    let secret = format!("hunter2-tools-{}", std::process::id());
    let stored = Command::new("sh")
        .args([
            "-c",
            &format!(
                "printf %s '{secret}' | secret-tool store --label=gantry-tools-test \
                 service gantry account tools-sandbox-probe && \
                 secret-tool lookup service gantry account tools-sandbox-probe"
            ),
        ])
        .output()
        .unwrap();
    if String::from_utf8_lossy(&stored.stdout) != secret {
        assert!(
            std::env::var("GANTRY_TEST_KEYRING").as_deref() != Ok("1"),
            "the keyring did not store the secret: {stored:?}"
        );
        eprintln!("not run: no keyring answers on the session bus");
        return;
    }
    let fx = Fixture::new();
    // The command is handed the bus address: hiding it from the environment is not what
    // keeps it out.
    let script = format!(
        "export DBUS_SESSION_BUS_ADDRESS='{address}'\n\
         secret-tool search --all service gantry 2>&1\n\
         secret-tool lookup service gantry account tools-sandbox-probe && echo KEYRING_READ\n\
         exit 0"
    );
    // The control: outside the sandbox the same script reads it.
    let control = fx.host(&script);
    assert!(control.contains("KEYRING_READ"), "{control}");
    for network in [false, true] {
        fx.manager.sandbox().set_settings(SandboxSettings {
            network,
            writable: Vec::new(),
        });
        let out = fx.output(&script).await;
        assert!(!out.contains(&secret), "network {network}: {out}");
        assert!(!out.contains("KEYRING_READ"), "network {network}: {out}");
    }
}
