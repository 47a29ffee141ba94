//! Running a test suite again as an ordinary user.
//!
//! Gantry runs as a normal desktop user, but sessions and CI run as root, where bubblewrap
//! behaves differently (no user namespace is needed to mount). So a suite that tests the sandbox
//! has one test that, run as root, copies the test binary where `nobody` can read it and runs
//! every other test again as `nobody` through `runuser`, with a plain environment. Run as anyone
//! else, it has nothing to add. By hand: `runuser -u nobody -- env -i
//! PATH=/usr/local/bin:/usr/bin:/bin <test binary>` (the binary must be readable by `nobody`,
//! so not under `/root`).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

/// Whether this process runs as root.
pub fn is_root() -> bool {
    // /proc/self belongs to the effective user.
    fs::metadata("/proc/self").is_ok_and(|meta| std::os::unix::fs::MetadataExt::uid(&meta) == 0)
}

/// The suite this test belongs to, again as `nobody`.
#[derive(Debug, Clone, Copy)]
pub struct AsNobody<'a> {
    /// The test that calls this (skipped in the re-run).
    pub this_test: &'a str,
    /// An environment variable set in the re-run, so it does not re-run itself.
    pub rerun_variable: &'a str,
    /// How many tests must pass as `nobody` (a suite that ran nothing proves nothing).
    pub at_least: usize,
}

impl AsNobody<'_> {
    /// Runs the rest of the suite as `nobody` when this process is root (and not already the
    /// re-run), and panics unless it passed with at least `at_least` tests.
    pub fn run(self) {
        if !is_root() || std::env::var_os(self.rerun_variable).is_some() {
            eprintln!("not run: already an ordinary user");
            return;
        }
        let folder = tempfile::Builder::new()
            .prefix("gantry-nobody-")
            .tempdir_in("/var/tmp")
            .unwrap_or_else(|error| panic!("a folder nobody can read: {error}"));
        let readable = |path: &std::path::Path| {
            fs::set_permissions(path, fs::Permissions::from_mode(0o755))
                .unwrap_or_else(|error| panic!("chmod {}: {error}", path.display()));
        };
        readable(folder.path());
        let binary = folder.path().join("suite");
        let this_binary =
            std::env::current_exe().unwrap_or_else(|error| panic!("the test binary: {error}"));
        fs::copy(this_binary, &binary)
            .unwrap_or_else(|error| panic!("copying the test binary: {error}"));
        readable(&binary);
        let output = Command::new("runuser")
            .args(["-u", "nobody", "--", "env", "-i"])
            .arg("PATH=/usr/local/bin:/usr/bin:/bin")
            .arg("LANG=C.UTF-8")
            .arg(format!("{}=1", self.rerun_variable))
            .arg(&binary)
            .args(["--skip", self.this_test, "--test-threads", "2"])
            .current_dir("/")
            .output()
            .unwrap_or_else(|error| panic!("runuser: {error}"));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        eprintln!("--- the suite as nobody ---\n{stdout}\n{stderr}");
        assert!(output.status.success(), "the suite failed as nobody");
        let summary = stdout
            .lines()
            .find(|line| line.starts_with("test result: ok."))
            .unwrap_or_else(|| panic!("no summary: {stdout}"));
        let passed: usize = summary
            .split_whitespace()
            .nth(3)
            .and_then(|count| count.parse().ok())
            .unwrap_or(0);
        assert!(
            passed >= self.at_least,
            "too few tests ran as nobody: {summary}"
        );
    }
}
