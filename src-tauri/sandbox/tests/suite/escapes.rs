//! What a command must not do: write outside its folders, read secret stores, see other
//! processes, gain privileges.

use std::fs;

use super::support::{Fixture, count, plant};

#[tokio::test]
async fn writes_outside_the_project_and_the_temp_folder_fail() {
    let fx = Fixture::new();
    plant(&fx.outside.join("keep"), "original");
    // The control: these folders are the test user's own, so only the sandbox can refuse.
    fx.host(&format!("echo x > '{}/control'", fx.outside.display()))
        .ok();
    let own = [
        fx.outside.join("new"),
        fx.home.join("new"),
        fx.root.join("new"),
    ];
    let mut script = String::new();
    for path in &own {
        script += &format!(
            "echo x > '{}' && echo \"WROTE {}\"\n",
            path.display(),
            path.display()
        );
    }
    let outside = fx.outside.display();
    script += &format!(
        "mkdir '{outside}/dir' && echo MKDIR\n\
         rm -f '{outside}/keep'; [ -e '{outside}/keep' ] || echo REMOVED\n\
         mv '{outside}/keep' '{outside}/moved' && echo MOVED\n\
         ln -s /x '{outside}/link' && echo LINKED\n\
         chmod 777 '{outside}/keep' && echo CHMOD\n\
         echo x > /etc/gantry-sandbox-escape && echo ETC\n\
         echo x > /var/tmp/gantry-sandbox-escape && echo VARTMP\n\
         echo x > /usr/local/gantry-sandbox-escape && echo USR\n\
         exit 0\n"
    );
    let ran = fx.run(&script).await;
    assert_eq!(ran.ok(), "", "a write outside succeeded: {ran:#?}");
    // Each write to a folder the user owns was refused by the read-only mount.
    assert!(
        count(&ran.stderr, "Read-only file system") >= own.len() + 5,
        "{}",
        ran.stderr
    );
    for path in &own {
        assert!(!path.exists(), "{} was written", path.display());
    }
    assert_eq!(
        fs::read_to_string(fx.outside.join("keep")).unwrap(),
        "original"
    );
    for name in ["dir", "moved", "link"] {
        assert!(!fx.outside.join(name).exists(), "{name}");
    }
    for path in [
        "/etc/gantry-sandbox-escape",
        "/var/tmp/gantry-sandbox-escape",
        "/usr/local/gantry-sandbox-escape",
    ] {
        assert!(!std::path::Path::new(path).exists(), "{path}");
    }
}

#[tokio::test]
async fn the_temp_folder_is_tmp_inside_and_the_hosts_tmp_is_hidden() {
    let fx = Fixture::new();
    let visible = tempfile::Builder::new()
        .prefix("gantry-host-tmp-")
        .tempfile()
        .unwrap();
    let host_name = visible
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let ran = fx
        .run("echo \"$TMPDIR\"; echo a > \"$TMPDIR/a\"; f=$(mktemp); echo b > \"$f\"; basename \"$f\"; ls -A /tmp")
        .await;
    let out = ran.ok();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "/tmp", "{out}");
    let made = lines[1];
    assert_eq!(fs::read_to_string(fx.temp.path().join("a")).unwrap(), "a\n");
    assert_eq!(
        fs::read_to_string(fx.temp.path().join(made)).unwrap(),
        "b\n"
    );
    assert!(
        !out.contains(&host_name),
        "the host's /tmp is visible: {out}"
    );
    assert!(visible.path().exists());
}

#[tokio::test]
async fn secret_stores_and_gantrys_folders_are_unreadable() {
    let fx = Fixture::new();
    let home = &fx.home;
    let gantry_data = home.join(".local/share/gantry");
    let gantry_config = home.join(".config/gantry");
    let folders = [
        home.join(".ssh/id_ed25519"),
        home.join(".gnupg/private-keys-v1.d/key.key"),
        home.join(".aws/credentials"),
        home.join(".config/gcloud/credentials.db"),
        home.join(".kube/config"),
        home.join(".local/share/keyrings/login.keyring"),
        home.join(".mozilla/firefox/p/key4.db"),
        home.join(".config/google-chrome/Default/Cookies"),
        home.join(".config/chromium/Default/Login Data"),
        gantry_data.join("gantry.db"),
        gantry_config.join("settings.json"),
    ];
    let files = [
        home.join(".docker/config.json"),
        home.join(".netrc"),
        home.join(".pgpass"),
    ];
    for (n, path) in folders.iter().chain(&files).enumerate() {
        plant(path, &format!("SECRET-{n}"));
    }
    plant(&home.join(".bashrc"), "VISIBLE");
    let policy = fx.policy().hide(&gantry_data).hide(&gantry_config);
    let mut script = String::from("cat ~/.bashrc; echo\n");
    for path in folders.iter().chain(&files) {
        script += &format!("cat '{}' && echo READ\n", path.display());
    }
    script += &format!(
        "ln -s '{}' leak; cat leak && echo READ_THROUGH_LINK\n\
         ls -A ~/.ssh ~/.local/share/gantry\n\
         cp -r ~/.ssh copy && ls -A copy\n\
         exit 0\n",
        folders[0].display()
    );
    let ran = fx.run_with(&policy, &fx.project, &script).await;
    let out = ran.ok();
    assert!(
        out.starts_with("VISIBLE"),
        "the home folder is not visible: {ran:#?}"
    );
    assert!(!out.contains("SECRET"), "a secret leaked: {ran:#?}");
    assert!(!out.contains("READ"), "a secret was read: {ran:#?}");
    // Hidden folders are empty; hidden files cannot be opened.
    let missing = count(&ran.stderr, "No such file or directory");
    let denied = count(&ran.stderr, "Permission denied");
    assert!(missing > folders.len(), "{}", ran.stderr);
    assert_eq!(denied, files.len(), "{}", ran.stderr);
    assert!(
        !out.lines().any(|line| line.contains("id_ed25519")),
        "{out}"
    );
}

#[tokio::test]
async fn variables_naming_hidden_sockets_are_removed_and_run_is_empty_offline() {
    let fx = Fixture::new();
    let mut env = fx.env();
    for (key, value) in [
        ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/bus"),
        ("SSH_AUTH_SOCK", "/run/user/0/keyring/ssh"),
        ("XDG_RUNTIME_DIR", "/run/user/0"),
        ("TMPDIR", "/var/tmp"),
        ("KEEP_ME", "yes"),
    ] {
        env.push((key.into(), value.into()));
    }
    let command = super::support::sandbox()
        .command(
            &fx.policy(),
            "/bin/sh",
            ["-c", "env; echo ---; ls -A /run"],
            env,
            &fx.project,
        )
        .unwrap();
    let ran = super::support::output(command).await;
    let out = ran.ok();
    let (env, run) = out.split_once("---\n").unwrap();
    for removed in [
        "DBUS_SESSION_BUS_ADDRESS",
        "SSH_AUTH_SOCK",
        "XDG_RUNTIME_DIR",
    ] {
        assert!(!env.contains(removed), "{removed} is set: {env}");
    }
    assert!(env.lines().any(|line| line == "TMPDIR=/tmp"), "{env}");
    assert!(env.lines().any(|line| line == "KEEP_ME=yes"), "{env}");
    assert_eq!(run, "", "/run is not empty with the network off");
}

#[tokio::test]
async fn other_processes_are_invisible_and_privileges_are_gone() {
    let fx = Fixture::new();
    let me = std::env::current_exe().unwrap();
    let me = me.file_name().unwrap().to_string_lossy().into_owned();
    let ran = fx
        .run(
            "ls -d /proc/[0-9]* | wc -l\n\
             for p in /proc/[0-9]*; do tr '\\0\\n' '  ' < $p/cmdline; echo; done\n\
             echo '@@''@@'\n\
             mount -t tmpfs none /mnt 2>/dev/null && echo MOUNTED\n\
             unshare -U true 2>/dev/null && echo USERNS\n\
             grep CapEff /proc/self/status\n",
        )
        .await;
    let out = ran.ok();
    // The separator is written split in two, so the script's own command line, shown in
    // the list of processes, does not contain it.
    let (processes, rest) = out.split_once("@@@@\n").unwrap();
    assert!(
        !processes.contains(&me),
        "the test process is visible: {processes}"
    );
    // bubblewrap's init, the shell, `ls` and `wc`: nothing from outside.
    let count: usize = processes.lines().next().unwrap().trim().parse().unwrap();
    assert!(count <= 4, "{processes}");
    assert!(
        !rest.contains("MOUNTED") && !rest.contains("USERNS"),
        "{rest}"
    );
    assert!(rest.contains("CapEff:\t0000000000000000"), "{rest}");
}
