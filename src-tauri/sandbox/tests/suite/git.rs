//! The project's repository: usable, but its hooks and configuration out of reach.

use std::fs;

use super::support::{Fixture, count};

const PLANT_ATTEMPTS: &str = "\
echo 'touch /tmp/pwned' > .git/hooks/pre-commit && echo HOOK
chmod +x .git/hooks/pre-commit 2>/dev/null
printf '[core]\\n\\thooksPath = /tmp\\n' >> .git/config && echo CONFIG
git config core.hooksPath /tmp 2>/dev/null && echo GIT_CONFIG
echo '*' >> .git/info/exclude && echo INFO
mv .git .git-old && echo RENAMED
mv .git/hooks .git/hooks-old && echo HOOKS_RENAMED
rm -rf .git/hooks 2>/dev/null; [ -d .git/hooks ] || echo HOOKS_REMOVED
ln -sf /tmp .git/config 2>/dev/null && echo LINKED
exit 0
";

#[tokio::test]
async fn hooks_config_and_info_are_read_only_and_git_still_works() {
    let fx = Fixture::new();
    fx.host("git init -q && echo a > a.txt && git add a.txt && git commit -qm one")
        .ok();
    let git = fx.project.join(".git");
    let config = fs::read(git.join("config")).unwrap();
    let exclude = fs::read(git.join("info/exclude")).unwrap();
    let hooks_before = fs::read_dir(git.join("hooks")).unwrap().count();

    let ran = fx.run(PLANT_ATTEMPTS).await;
    assert_eq!(ran.ok(), "", "a plant succeeded: {ran:#?}");
    assert!(
        count(&ran.stderr, "Read-only file system") >= 3,
        "{}",
        ran.stderr
    );
    assert!(!git.join("hooks/pre-commit").exists());
    assert_eq!(
        fs::read_dir(git.join("hooks")).unwrap().count(),
        hooks_before
    );
    assert_eq!(fs::read(git.join("config")).unwrap(), config);
    assert_eq!(fs::read(git.join("info/exclude")).unwrap(), exclude);
    assert!(!fx.project.join(".git-old").exists());

    // Objects, refs, the index and HEAD stay writable.
    let ran = fx
        .run(
            "echo b > b.txt && git add b.txt && git commit -qm two && git checkout -qb topic \
             && git status --porcelain && git log --oneline | wc -l",
        )
        .await;
    assert_eq!(ran.ok().trim(), "2", "{ran:#?}");
    assert_eq!(
        fs::read_to_string(git.join("HEAD")).unwrap(),
        "ref: refs/heads/topic\n"
    );
}

#[tokio::test]
async fn a_repository_without_hooks_or_info_gets_empty_read_only_ones() {
    let fx = Fixture::new();
    fx.host("git init -q && rm -rf .git/hooks .git/info").ok();
    let git = fx.project.join(".git");
    assert!(!git.join("hooks").exists());
    let ran = fx.run(PLANT_ATTEMPTS).await;
    assert_eq!(ran.ok(), "", "a plant succeeded: {ran:#?}");
    assert_eq!(fs::read_dir(git.join("hooks")).unwrap().count(), 0);
    assert_eq!(fs::read_dir(git.join("info")).unwrap().count(), 0);
}

#[tokio::test]
async fn a_linked_worktrees_git_file_and_repository_are_protected() {
    let fx = Fixture::new();
    let main = fx.root.join("main");
    let worktree = fx.root.join("wt");
    fs::create_dir(&main).unwrap();
    let setup = format!(
        "cd '{main}' && git init -q && echo a > a.txt && git add a.txt && git commit -qm one \
         && git worktree add -q '{worktree}'",
        main = main.display(),
        worktree = worktree.display()
    );
    fx.host(&setup).ok();
    let dot_git = fs::read_to_string(worktree.join(".git")).unwrap();
    let main_git = main.join(".git");

    let project_only = gantry_sandbox::SandboxPolicy::new(&worktree, &fx.temp, &fx.home);
    let ran = fx
        .run_with(
            &project_only,
            &worktree,
            "printf 'gitdir: /tmp/evil\\n' > .git && echo REPOINTED\n\
             rm -f .git 2>/dev/null; [ -e .git ] || echo REMOVED\n\
             git status --porcelain && echo STATUS\n\
             echo b > b.txt && git add b.txt 2>/dev/null && echo ADDED\n\
             exit 0",
        )
        .await;
    // The main repository is outside the writable folders: readable, not writable.
    assert_eq!(ran.ok(), "STATUS\n", "{ran:#?}");
    assert_eq!(fs::read_to_string(worktree.join(".git")).unwrap(), dot_git);

    // Made writable by the user, it commits, but its hooks and configuration stay read-only.
    let with_main = project_only.allow_writing(&main_git);
    let plant = format!(
        "git add b.txt && git commit -qm two && git log --oneline | wc -l\n\
         echo evil > '{hooks}/pre-commit' && echo HOOK\n\
         echo evil >> '{main_git}/config' && echo CONFIG\n\
         echo /tmp > '{main_git}/worktrees/wt/commondir' && echo COMMONDIR\n\
         printf 'gitdir: /tmp/evil\\n' > .git && echo REPOINTED\n\
         exit 0",
        hooks = main_git.join("hooks").display(),
        main_git = main_git.display()
    );
    let ran = fx.run_with(&with_main, &worktree, &plant).await;
    assert_eq!(ran.ok().trim(), "2", "{ran:#?}");
    assert!(!main_git.join("hooks/pre-commit").exists());
    assert_eq!(
        fs::read_to_string(main_git.join("worktrees/wt/commondir")).unwrap(),
        "../..\n"
    );
    assert_eq!(fs::read_to_string(worktree.join(".git")).unwrap(), dot_git);
}

#[tokio::test]
async fn a_project_without_a_repository_can_start_one() {
    let fx = Fixture::new();
    fs::write(fx.project.join("a.txt"), "a").unwrap();
    let command = fx.command(
        &fx.policy(),
        &fx.project,
        "git init -q && git add -A && git commit -qm first && git log --oneline | wc -l",
    );
    // Building the command touches nothing in the project.
    assert!(!fx.project.join(".git").exists());
    let ran = super::support::output(command).await;
    assert_eq!(ran.ok().trim(), "1", "{ran:#?}");
    assert!(fx.project.join(".git/HEAD").is_file());
}
