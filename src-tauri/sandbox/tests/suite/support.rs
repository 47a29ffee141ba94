//! A project, a home and an outside folder for each test, and a way to run a shell script in
//! the sandbox and read what it did.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use gantry_sandbox::{Sandbox, SandboxPolicy, SandboxedCommand, SessionTemp};

/// The sandbox of this machine; the tests need one (CI installs bubblewrap).
pub fn sandbox() -> &'static Sandbox {
    match Sandbox::probe().sandbox() {
        Ok(sandbox) => sandbox,
        Err(reason) => panic!("{reason}"),
    }
}

/// Folders for one test, under `/var/tmp` (not `/tmp`: the sandbox replaces the host's `/tmp`,
/// and these must be visible at their own paths). Removed on drop.
pub struct Fixture {
    _base: tempfile::TempDir,
    /// The canonical base folder.
    pub root: PathBuf,
    /// The project folder (empty).
    pub project: PathBuf,
    /// `HOME` for the commands.
    pub home: PathBuf,
    /// A folder beside the project that commands may read but not write.
    pub outside: PathBuf,
    /// The session's temporary folder.
    pub temp: SessionTemp,
}

impl Fixture {
    pub fn new() -> Self {
        let base = tempfile::Builder::new()
            .prefix("gantry-sandbox-test-")
            .tempdir_in("/var/tmp")
            .unwrap();
        let root = base.path().canonicalize().unwrap();
        let project = root.join("project");
        let home = root.join("home");
        let outside = root.join("outside");
        for folder in [&project, &home, &outside] {
            fs::create_dir(folder).unwrap();
        }
        Self {
            _base: base,
            root,
            project,
            home,
            outside,
            temp: SessionTemp::new().unwrap(),
        }
    }

    /// The default policy: network off, secrets under this fixture's home hidden.
    pub fn policy(&self) -> SandboxPolicy {
        SandboxPolicy::new(&self.project, &self.temp, &self.home)
    }

    /// The environment commands get: a plain one with this fixture's `HOME` and a git identity.
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        let mut env: Vec<(OsString, OsString)> = [
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("LANG", "C.UTF-8"),
            ("GIT_AUTHOR_NAME", "Test"),
            ("GIT_AUTHOR_EMAIL", "test@example.invalid"),
            ("GIT_COMMITTER_NAME", "Test"),
            ("GIT_COMMITTER_EMAIL", "test@example.invalid"),
            ("GIT_CONFIG_NOSYSTEM", "1"),
        ]
        .into_iter()
        .map(|(key, value)| (key.into(), value.into()))
        .collect();
        env.push(("HOME".into(), self.home.clone().into()));
        env
    }

    /// Runs `script` with `sh -c` in the project under the default policy.
    pub async fn run(&self, script: &str) -> Ran {
        self.run_with(&self.policy(), &self.project, script).await
    }

    /// Runs `script` with `sh -c` in `cwd` under `policy`.
    pub async fn run_with(&self, policy: &SandboxPolicy, cwd: &Path, script: &str) -> Ran {
        let command = self.command(policy, cwd, script);
        output(command).await
    }

    /// `sh -c script` in `cwd` under `policy`, not started.
    pub fn command(&self, policy: &SandboxPolicy, cwd: &Path, script: &str) -> SandboxedCommand {
        sandbox()
            .command(policy, "/bin/sh", ["-c", script], self.env(), cwd)
            .unwrap()
    }

    /// Runs `script` with `sh -c` in the project without the sandbox (test set-up and controls).
    pub fn host(&self, script: &str) -> Ran {
        let output = std::process::Command::new("/bin/sh")
            .args(["-c", script])
            .current_dir(&self.project)
            .env_clear()
            .envs(self.env())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        Ran::from(output)
    }
}

/// What a command did.
#[derive(Debug)]
pub struct Ran {
    /// The exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// Asserts the command exited 0 and returns its output.
    pub fn ok(&self) -> &str {
        assert_eq!(self.code, Some(0), "the command failed: {self:#?}");
        &self.stdout
    }

    /// Asserts the command failed.
    pub fn failed(&self) -> &str {
        assert_ne!(self.code, Some(0), "the command succeeded: {self:#?}");
        &self.stderr
    }
}

impl From<std::process::Output> for Ran {
    fn from(output: std::process::Output) -> Self {
        Self {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// Starts `command` with piped output and waits (at most 60 s) for it.
pub async fn output(command: SandboxedCommand) -> Ran {
    let child = command
        .spawn_with(|command| {
            command
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true);
            command.spawn()
        })
        .unwrap();
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("the command did not finish within 60 s")
        .unwrap();
    Ran::from(output)
}

/// Writes `contents` to `path`, creating its folders.
pub fn plant(path: &Path, contents: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, contents).unwrap();
}

/// Counts the lines of `text` that contain `needle`.
pub fn count(text: &str, needle: &str) -> usize {
    text.lines().filter(|line| line.contains(needle)).count()
}

/// How long a test waits for something that must happen before it fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// How often a waited-for or watched condition is checked.
const POLL: Duration = Duration::from_millis(10);

/// Polls `check` until it holds; fails naming `what` once [`WAIT`] has passed.
pub async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !check() {
        assert!(Instant::now() < deadline, "waited {WAIT:?} for {what}");
        tokio::time::sleep(POLL).await;
    }
}

/// Runs `check` (which asserts) over and over for all of `window`: something that must not
/// happen is watched for that long, and the test fails as soon as it does.
pub async fn assert_stays_for(window: Duration, mut check: impl FnMut()) {
    let end = Instant::now() + window;
    check();
    while Instant::now() < end {
        tokio::time::sleep(POLL).await;
        check();
    }
}
