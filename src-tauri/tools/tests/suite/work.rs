//! Normal work still works through run_command in the sandbox: git, scripts, builds writing
//! `target/` inside the project.

use std::path::Path;

use gantry_test_gate::is_root;

use super::support::{Fixture, plant};

#[tokio::test]
async fn git_status_diff_and_commit_work_in_the_project() {
    let fx = Fixture::new();
    plant(&fx.project.join("a.txt"), "one\n");
    let git = "git -c user.name=Test -c user.email=test@example.invalid";
    let out = fx
        .output(&format!(
            "git init -q . && git add a.txt && {git} commit -qm first && echo two >> a.txt && \
             git status --short && git diff --stat && git add a.txt && {git} commit -qm second && \
             git log --oneline | wc -l"
        ))
        .await;
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            " M a.txt",
            " a.txt | 1 +",
            " 1 file changed, 1 insertion(+)",
            "2"
        ],
        "{out}"
    );
    // The repository the sandbox created is a normal one outside it.
    assert_eq!(fx.host("git log --oneline | wc -l").trim(), "2");
}

#[tokio::test]
async fn a_python_and_a_shell_test_script_run() {
    let fx = Fixture::new();
    plant(
        &fx.project.join("test_it.py"),
        "import tempfile\nwith tempfile.NamedTemporaryFile() as f:\n    print('py ok', f.name.startswith('/tmp/'))\n",
    );
    plant(
        &fx.project.join("test.sh"),
        "#!/bin/sh\nset -e\n[ \"$(echo hi | tr a-z A-Z)\" = HI ] && echo sh ok\n",
    );
    let out = fx
        .output("python3 test_it.py && chmod +x test.sh && ./test.sh")
        .await;
    assert_eq!(out, "py ok True\nsh ok\n");
}

#[tokio::test]
async fn a_cargo_build_writes_target_inside_the_project() {
    let cargo = std::env::var("HOME")
        .map(|home| Path::new(&home).join(".cargo/bin/cargo"))
        .ok()
        .filter(|cargo| cargo.exists());
    let Some(cargo) = cargo.filter(|_| is_root()) else {
        eprintln!("not run: no cargo for this user");
        return;
    };
    let fx = Fixture::new();
    plant(
        &fx.project.join("Cargo.toml"),
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    plant(
        &fx.project.join("src/main.rs"),
        "fn main() { println!(\"built {}\", 6 * 7); }\n",
    );
    let out = fx
        .output(&format!(
            "unset CARGO_TARGET_DIR; '{}' run --offline --quiet 2>&1",
            cargo.display()
        ))
        .await;
    assert!(out.ends_with("built 42\n"), "{out}");
    assert!(fx.project.join("target/debug/demo").exists());
}
