//! A project, a home, an outside folder and a manager whose run_command runs in the sandbox.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gantry_tools::{
    CallContext, CommandSandbox, Observation, Policy, ToolManager, ToolSession, builtin,
};
use serde_json::json;

/// Folders and a manager for one test, under `/var/tmp` (readable by `nobody` too). Removed on
/// drop.
pub struct Fixture {
    _base: tempfile::TempDir,
    /// The project folder (empty).
    pub project: PathBuf,
    /// The home whose secret stores the sandbox hides.
    pub home: PathBuf,
    /// A folder beside the project, visible to commands but not writable.
    pub outside: PathBuf,
    /// The project's tools: run_command on Auto, sandboxed.
    pub manager: ToolManager,
    /// The session the calls belong to.
    pub session: Arc<ToolSession>,
}

impl Fixture {
    pub fn new() -> Self {
        assert!(
            CommandSandbox::system().sandbox().is_ok(),
            "these tests need bubblewrap: {:?}",
            CommandSandbox::system().sandbox().err()
        );
        let base = tempfile::Builder::new()
            .prefix("gantry-tools-sandbox-")
            .tempdir_in("/var/tmp")
            .unwrap();
        let root = base.path().canonicalize().unwrap();
        let (project, home, outside) = (
            root.join("project"),
            root.join("home"),
            root.join("outside"),
        );
        for folder in [&project, &home, &outside] {
            fs::create_dir(folder).unwrap();
        }
        let manager = ToolManager::new(&project)
            .unwrap()
            .with_sandbox(CommandSandbox::system().with_home(&home));
        builtin::register_builtins(&manager).unwrap();
        manager.set_policy("run_command", Policy::Auto).unwrap();
        Self {
            _base: base,
            project,
            home,
            outside,
            manager,
            session: Arc::new(ToolSession::new("1")),
        }
    }

    /// A call of this fixture's session.
    pub fn call(&self) -> CallContext {
        CallContext::new("call", Arc::clone(&self.session))
    }

    /// Runs `command` in the project and returns the observation.
    pub async fn run(&self, command: &str) -> Observation {
        self.manager
            .dispatch(
                "run_command",
                json!({ "command": command, "timeout": 120 }),
                &self.call(),
            )
            .await
    }

    /// Runs `command` and returns its output after the `[exit ...]` header; it must have run.
    pub async fn output(&self, command: &str) -> String {
        let obs = self.run(command).await;
        assert!(obs.is_ok(), "{command}: {}", obs.text);
        obs.text
            .split_once('\n')
            .map_or_else(String::new, |(_, body)| body.to_owned())
    }

    /// Runs `script` with `sh -c` in the project without the sandbox (set-up and checks).
    pub fn host(&self, script: &str) -> String {
        let output = std::process::Command::new("/bin/sh")
            .args(["-c", script])
            .current_dir(&self.project)
            .output()
            .unwrap();
        assert!(output.status.success(), "{script}: {output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

/// Writes `contents` to `path`, creating its folders.
pub fn plant(path: &Path, contents: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, contents).unwrap();
}

/// Runs `check` (which asserts) over and over for all of `window`: something that must not
/// happen is watched for that long, and the test fails as soon as it does.
pub async fn assert_stays_for(window: Duration, mut check: impl FnMut()) {
    let end = Instant::now() + window;
    check();
    while Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(10)).await;
        check();
    }
}
