//! The same suite as an ordinary user.
//!
//! Gantry runs as a normal desktop user, but sessions and CI run as root, where bubblewrap
//! behaves differently (no user namespace is needed to mount). So, run as root, this test
//! copies the test binary where `nobody` can read it and runs every other test again as
//! `nobody` through `runuser`, with a plain environment. Run as anyone else, it has nothing to
//! add. By hand: `runuser -u nobody -- env -i PATH=/usr/local/bin:/usr/bin:/bin <test binary>`
//! (the binary must be readable by `nobody`, so not under `/root`).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use super::support::is_root;

/// Set in the re-run, so it does not re-run itself.
const RERUN: &str = "GANTRY_TOOLS_SANDBOX_TEST_RERUN";

#[test]
fn the_suite_passes_as_an_ordinary_user() {
    if !is_root() || std::env::var_os(RERUN).is_some() {
        eprintln!("not run: already an ordinary user");
        return;
    }
    let folder = tempfile::Builder::new()
        .prefix("gantry-tools-nobody-")
        .tempdir_in("/var/tmp")
        .unwrap();
    fs::set_permissions(folder.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let binary = folder.path().join("suite");
    fs::copy(std::env::current_exe().unwrap(), &binary).unwrap();
    fs::set_permissions(&binary, fs::Permissions::from_mode(0o755)).unwrap();
    let output = Command::new("runuser")
        .args(["-u", "nobody", "--", "env", "-i"])
        .arg("PATH=/usr/local/bin:/usr/bin:/bin")
        .arg("LANG=C.UTF-8")
        .arg(format!("{RERUN}=1"))
        .arg(&binary)
        .args([
            "--skip",
            "the_suite_passes_as_an_ordinary_user",
            "--test-threads",
            "2",
        ])
        .current_dir("/")
        .output()
        .unwrap();
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
    assert!(passed >= 8, "too few tests ran as nobody: {summary}");
}
