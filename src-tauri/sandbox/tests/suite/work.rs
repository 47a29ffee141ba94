//! Normal work still works inside: scripts, builds writing `target/`, the temporary folder,
//! extra writable folders.

use std::fs;
use std::path::Path;

use super::support::{Fixture, plant};

#[tokio::test]
async fn a_python_script_and_a_shell_script_run() {
    let fx = Fixture::new();
    plant(
        &fx.project.join("tool.py"),
        "import sys\nprint(6 * 7, sys.argv[1])\n",
    );
    plant(
        &fx.project.join("tool.sh"),
        "#!/bin/sh\nset -e\nprintf '%s\\n' \"$(cat input.txt | tr a-z A-Z)\" > out.txt\n",
    );
    plant(&fx.project.join("input.txt"), "hello");
    let ran = fx
        .run("python3 tool.py arg && chmod +x tool.sh && ./tool.sh && cat out.txt")
        .await;
    assert_eq!(ran.ok(), "42 arg\nHELLO\n", "{ran:#?}");
    assert_eq!(
        fs::read_to_string(fx.project.join("out.txt")).unwrap(),
        "HELLO\n"
    );
}

#[tokio::test]
async fn a_build_writes_target_inside_the_project() {
    let fx = Fixture::new();
    for n in 0..20 {
        plant(
            &fx.project.join(format!("src/f{n}.txt")),
            &format!("source {n}\n"),
        );
    }
    let ran = fx
        .run(
            "mkdir -p target/out && for f in src/*.txt; do \
               tr a-z A-Z < \"$f\" > \"target/out/$(basename \"$f\" .txt).o\"; \
             done && ls target/out | wc -l",
        )
        .await;
    assert_eq!(ran.ok().trim(), "20", "{ran:#?}");
    assert_eq!(
        fs::read_to_string(fx.project.join("target/out/f7.o")).unwrap(),
        "SOURCE 7\n"
    );
}

#[tokio::test]
async fn a_c_compiler_builds_and_runs_a_program() {
    let available = if Path::new("/usr/bin/cc").exists() {
        Ok(())
    } else {
        Err("no C compiler at /usr/bin/cc (apt: build-essential)".to_owned())
    };
    if !gantry_test_gate::should_run(gantry_test_gate::Gate::Cc, available) {
        return;
    }
    let fx = Fixture::new();
    plant(
        &fx.project.join("src/hello.c"),
        "#include <stdio.h>\nint main(void) { puts(\"built inside\"); return 0; }\n",
    );
    // The compiler's temporary files go to TMPDIR, the session's folder.
    let ran = fx
        .run("mkdir -p target && cc -o target/hello src/hello.c && ./target/hello")
        .await;
    assert_eq!(ran.ok(), "built inside\n", "{ran:#?}");
    assert!(fx.project.join("target/hello").is_file());
}

#[tokio::test]
async fn an_extra_writable_folder_is_writable_and_the_working_directory_is_respected() {
    let fx = Fixture::new();
    let cache = fx.root.join("cache");
    fs::create_dir(&cache).unwrap();
    fs::create_dir(fx.project.join("sub")).unwrap();
    let policy = fx.policy().allow_writing(&cache);
    let script = format!("pwd && echo cached > '{}/entry'", cache.display());
    let ran = fx.run_with(&policy, &fx.project.join("sub"), &script).await;
    assert_eq!(
        ran.ok(),
        format!("{}\n", fx.project.join("sub").display()),
        "{ran:#?}"
    );
    assert_eq!(fs::read_to_string(cache.join("entry")).unwrap(), "cached\n");
}

#[tokio::test]
async fn a_project_under_the_hosts_tmp_is_still_visible_and_writable() {
    let fx = Fixture::new();
    let in_tmp = tempfile::tempdir().unwrap();
    let project = in_tmp.path().canonicalize().unwrap();
    let policy = gantry_sandbox::SandboxPolicy::new(&project, &fx.temp, &fx.home);
    let ran = fx
        .run_with(&policy, &project, "echo inside > made.txt && pwd")
        .await;
    assert_eq!(ran.ok(), format!("{}\n", project.display()), "{ran:#?}");
    assert_eq!(
        fs::read_to_string(project.join("made.txt")).unwrap(),
        "inside\n"
    );
}
