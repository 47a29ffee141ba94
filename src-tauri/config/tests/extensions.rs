//! Commands, skills and agents found in a project and a home, as a user sets them up for Claude
//! Code and Codex: discovery, precedence, name rules, front matter forms, trust, and the skill
//! tool reading a skill that lives outside the project.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gantry_config::arguments::{Numbering, substitute};
use gantry_config::skills::{self, SkillFiles, check_name};
use gantry_config::{ConfigReport, Locations, TrustedFiles, agents, commands};
use gantry_tools::{CallContext, ObservationKind, ToolManager, ToolSession};

struct Fixture {
    _dir: tempfile::TempDir,
    at: Locations,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(base.join("proj")).unwrap();
        fs::create_dir_all(base.join("home")).unwrap();
        let at = Locations::new(base.join("proj"), Some(base.join("home")));
        Self { _dir: dir, at }
    }

    fn project(&self, relative: &str, text: &str) -> PathBuf {
        write(&self.at.project.join(relative), text)
    }

    fn home(&self, relative: &str, text: &str) -> PathBuf {
        write(&self.at.home.clone().unwrap().join(relative), text)
    }
}

fn write(path: &Path, text: &str) -> PathBuf {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    path.to_path_buf()
}

fn entry<'a>(report: &'a ConfigReport, shown: &str) -> &'a gantry_config::FileReport {
    report
        .files
        .iter()
        .find(|file| file.source.shown == shown)
        .unwrap_or_else(|| panic!("no entry for {shown}: {report:#?}"))
}

#[test]
fn commands_come_from_every_source_with_their_names_and_precedence() {
    let f = Fixture::new();
    f.project(".gantry/commands/fix.md", "Fix $ARGUMENTS.");
    f.project(
        ".claude/commands/review.md",
        "---\ndescription: Review a file\nargument-hint: [file]\nmodel: sonnet\nallowed-tools: Bash(git diff:*), Read\n---\nReview $0 carefully.",
    );
    f.project(
        ".claude/commands/frontend/lint.md",
        "# Lint the UI\nRun the linter.",
    );
    f.project(".claude/commands/help.md", "not the built-in");
    f.project(".claude/commands/fix.md", "shadowed by .gantry");
    f.home(".claude/commands/review.md", "the user's review, shadowed");
    f.home(".claude/commands/mine.md", "My command");
    f.home(
        ".codex/prompts/draft.md",
        "---\ndescription: Draft\n---\nDraft $1 for $FILE",
    );
    f.home(
        ".codex/prompts/sub/deep.md",
        "not read: Codex reads the top level only",
    );
    f.home(".claude/commands/st.md", "Status: !`git status`");
    let mut report = ConfigReport::default();
    let found = commands::discover(&f.at, &TrustedFiles::none(), &["help", "new"], &mut report);
    let names: Vec<(&str, &str)> = found
        .iter()
        .map(|c| (c.name.as_str(), c.label.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("fix", "gantry"),
            ("frontend:lint", "claude-project"),
            ("review", "claude-project"),
            ("mine", "claude-user"),
            ("st", "claude-user"),
            ("prompts:draft", "codex-user"),
        ]
    );
    let review = &found[2];
    assert_eq!(review.description, "Review a file");
    assert_eq!(review.argument_hint.as_deref(), Some("[file]"));
    assert_eq!(review.model.as_deref(), Some("sonnet"));
    assert_eq!(review.allowed_tools, ["Bash(git diff:*)", "Read"]);
    assert!(!review.allowed_tools_trusted);
    assert_eq!(found[1].description, "Lint the UI");
    assert_eq!(review.numbering, Numbering::Claude);
    assert_eq!(found[5].numbering, Numbering::Codex);
    // The report says what was read, what waits for trust and what was skipped and why.
    let review_entry = entry(&report, ".claude/commands/review.md");
    assert_eq!(review_entry.kind, "command");
    assert!(review_entry.read.contains(&"command /review".to_owned()));
    // Its allowed-tools widen, so they wait for trust; per-command models are not applied.
    assert_eq!(
        review_entry.waits_for_trust,
        ["allowed-tools for /review (Bash(git diff:*), Read)"]
    );
    assert!(
        review_entry
            .not_understood
            .iter()
            .any(|n| n.starts_with("model `sonnet`"))
    );
    assert!(entry(&report, ".claude/commands/help.md").not_understood[0].contains("built-in"));
    assert!(
        entry(&report, "~/.claude/commands/st.md")
            .read
            .iter()
            .any(|line| line.contains("runs commands before sending"))
    );
    assert!(
        entry(&report, "~/.claude/commands/review.md").not_understood[0]
            .contains("also defined by .claude/commands/review.md")
    );
    // Trusted with this content, the allowed tools apply.
    let mut trusted = TrustedFiles::none();
    trusted.approve(review.source.path.clone(), review.sha256.clone());
    let again = commands::discover(&f.at, &trusted, &["help"], &mut ConfigReport::default());
    assert!(
        again
            .iter()
            .any(|c| c.name == "review" && c.allowed_tools_trusted)
    );
}

#[test]
fn substitution_follows_each_source() {
    assert_eq!(
        substitute(
            "Review $0 then $1; all: $ARGUMENTS",
            "a.rs \"b c.rs\"",
            Numbering::Claude
        ),
        "Review a.rs then b c.rs; all: a.rs \"b c.rs\""
    );
    assert_eq!(
        substitute(
            "Draft $1 for $FILE ($$)",
            "memo FILE=x.md",
            Numbering::Codex
        ),
        "Draft memo for x.md ($)"
    );
}

#[test]
fn skills_follow_the_name_rules_precedence_and_links() {
    let f = Fixture::new();
    f.project(
        ".agents/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Use when: PDFs are involved\nallowed-tools: Read\n---\nRead ${CLAUDE_SKILL_DIR}/guide.md",
    );
    f.project(".agents/skills/pdf/guide.md", "guide");
    fs::create_dir_all(f.at.in_project(".claude/skills")).unwrap();
    std::os::unix::fs::symlink(
        "../../.agents/skills/pdf",
        f.at.in_project(".claude/skills/pdf"),
    )
    .unwrap();
    f.project(
        ".claude/skills/Bad_Name/SKILL.md",
        "---\nname: other\ndescription: Loads anyway\ncontext: fork\n---\nbody",
    );
    f.project(
        ".claude/skills/nodesc/SKILL.md",
        "---\nname: nodesc\n---\nbody",
    );
    f.project(".claude/skills/broken/SKILL.md", "---\nname: [x\n---\nbody");
    f.home(
        ".claude/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: the user's\n---\nx",
    );
    f.home(
        ".claude/skills/hidden/SKILL.md",
        "---\nname: hidden\ndescription: Only by hand\ndisable-model-invocation: true\n---\nx",
    );
    let long = "d".repeat(1100);
    f.home(
        ".agents/skills/long/SKILL.md",
        &format!("---\nname: long\ndescription: {long}\n---\nx"),
    );
    // A project skill folder linked out of the project is not read.
    let outside = f.home(
        "outside/evil/SKILL.md",
        "---\nname: evil\ndescription: e\n---\nx",
    );
    std::os::unix::fs::symlink(
        outside.parent().unwrap(),
        f.at.in_project(".claude/skills/evil"),
    )
    .unwrap();
    let mut report = ConfigReport::default();
    let found = skills::discover(&f.at, &TrustedFiles::none(), &mut report);
    let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Bad_Name", "pdf", "hidden", "long"]);
    let pdf = &found[1];
    assert_eq!(pdf.description, "Use when: PDFs are involved");
    assert_eq!(pdf.dir, f.at.in_project(".agents/skills/pdf"));
    assert_eq!(pdf.source.shown, ".claude/skills/pdf/SKILL.md");
    assert!(!found[2].model_invocable);
    assert_eq!(found[3].description.chars().count(), 1024);
    let bad = entry(&report, ".claude/skills/Bad_Name/SKILL.md");
    assert!(
        bad.not_understood
            .iter()
            .any(|n| n.contains("differs from its folder"))
    );
    assert!(
        bad.not_understood
            .iter()
            .any(|n| n.contains("`context` is not supported"))
    );
    assert!(
        entry(&report, ".claude/skills/nodesc/SKILL.md").not_understood[0]
            .contains("no description")
    );
    assert!(
        entry(&report, ".claude/skills/broken/SKILL.md")
            .problem
            .is_some()
    );
    assert!(
        entry(&report, "~/.claude/skills/pdf/SKILL.md").not_understood[0].contains("which wins")
    );
    assert_eq!(
        entry(&report, ".claude/skills/pdf/SKILL.md").waits_for_trust,
        ["allowed-tools for /pdf (Read)"]
    );
    assert!(!names.contains(&"evil"));
    // A skill beats a same-named command.
    f.project(".claude/commands/pdf.md", "the command");
    let mut cmds = commands::discover(&f.at, &TrustedFiles::none(), &[], &mut report);
    commands::shadow_by_skills(&mut cmds, &found, &mut report);
    assert!(cmds.iter().all(|c| c.name != "pdf"));
    assert!(entry(&report, ".claude/commands/pdf.md").not_understood[0].contains("skill"));
}

#[test]
fn name_rules_are_the_specifications() {
    assert!(check_name("pdf-processing").is_ok());
    assert!(check_name("a1").is_ok());
    for bad in ["", "-pdf", "pdf-", "pd--f", "PDF", "pdf_x", &"a".repeat(65)] {
        assert!(check_name(bad).is_err(), "{bad}");
    }
}

#[test]
fn agents_are_read_closest_first_and_incomplete_ones_reported() {
    let f = Fixture::new();
    f.project(
        ".claude/agents/review/code-reviewer.md",
        "---\nname: code-reviewer\ndescription: Reviews code\ntools: Read, Glob, Grep, Bash\nmodel: sonnet\npermissionMode: plan\nmaxTurns: 5\nskills: [pdf]\nmemory: user\n---\nYou review code.\n",
    );
    f.project(
        ".claude/agents/nameless.md",
        "---\ndescription: x\n---\nbody",
    );
    f.home(
        ".claude/agents/code-reviewer.md",
        "---\nname: code-reviewer\ndescription: the user's\n---\nx",
    );
    f.home(
        ".claude/agents/helper.md",
        "---\nname: helper\ndescription: Helps\ndisallowedTools: Write\n---\nHelp.",
    );
    let mut report = ConfigReport::default();
    let found = agents::discover(&f.at, &mut report);
    assert_eq!(found.len(), 2);
    let reviewer = &found[0];
    assert_eq!(reviewer.name, "code-reviewer");
    assert_eq!(reviewer.description, "Reviews code");
    assert_eq!(
        reviewer.tools.as_deref(),
        Some(&["Read", "Glob", "Grep", "Bash"].map(String::from)[..])
    );
    assert_eq!(reviewer.model.as_deref(), Some("sonnet"));
    assert_eq!(reviewer.permission_mode.as_deref(), Some("plan"));
    assert_eq!(reviewer.max_turns, Some(5));
    assert_eq!(reviewer.skills, ["pdf"]);
    assert_eq!(reviewer.system_prompt, "You review code.");
    assert_eq!(found[1].name, "helper");
    assert_eq!(found[1].tools, None);
    assert_eq!(found[1].disallowed_tools, ["Write"]);
    let reviewer_entry = entry(&report, ".claude/agents/review/code-reviewer.md");
    assert_eq!(reviewer_entry.kind, "agent");
    assert!(reviewer_entry.not_understood[0].contains("`memory`"));
    assert!(entry(&report, ".claude/agents/nameless.md").not_understood[0].contains("skipped"));
    assert!(
        entry(&report, "~/.claude/agents/code-reviewer.md").not_understood[0]
            .contains("which wins")
    );
}

fn call() -> CallContext {
    CallContext::new("call", Arc::new(ToolSession::new("s")))
}

#[tokio::test]
async fn the_skill_tool_opens_a_user_skill_to_read_file_and_nothing_else() {
    let f = Fixture::new();
    let skill = f.home(
        ".claude/skills/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploys\n---\nRun ${CLAUDE_SKILL_DIR}/scripts/go.sh",
    );
    let dir = skill.parent().unwrap().to_path_buf();
    f.home(".claude/skills/deploy/scripts/go.sh", "echo go\n");
    f.home(".claude/skills/notes.md", "beside the skill, not in it\n");
    f.project("a.txt", "in the project\n");
    let tools = ToolManager::new(&f.at.project).unwrap();
    gantry_tools::builtin::register_builtins(&tools).unwrap();
    tools.register(gantry_tools::builtin::skill::Skill).unwrap();
    tools
        .skills()
        .set_library(Arc::new(SkillFiles::new(f.at.clone())));
    assert_eq!(
        tools.get("skill").unwrap().level(),
        gantry_tools::PermissionLevel::Safe
    );
    let script = dir.join("scripts/go.sh").display().to_string();
    let read = |path: String| {
        let tools = &tools;
        async move {
            tools
                .dispatch("read_file", serde_json::json!({ "path": path }), &call())
                .await
        }
    };
    // Before the skill is loaded, its files are outside the project like any other.
    assert_eq!(read(script.clone()).await.kind, ObservationKind::Error);
    let loaded = tools
        .dispatch("skill", serde_json::json!({"name": "deploy"}), &call())
        .await;
    assert_eq!(loaded.kind, ObservationKind::Ok, "{}", loaded.text);
    assert!(
        loaded
            .text
            .contains(&format!("Run {}/scripts/go.sh", dir.display()))
    );
    assert!(loaded.text.contains(&format!("- {script}")));
    let file = read(script.clone()).await;
    assert_eq!(file.kind, ObservationKind::Ok, "{}", file.text);
    assert!(file.text.contains("1: echo go"));
    // A file beside the skill folder stays unreadable, and nothing can be written there.
    let beside = f.at.home.clone().unwrap().join(".claude/skills/notes.md");
    assert_eq!(
        read(beside.display().to_string()).await.kind,
        ObservationKind::Error
    );
    let write = tools
        .dispatch(
            "write_file",
            serde_json::json!({"path": script, "content": "rm -rf /"}),
            &call(),
        )
        .await;
    assert_ne!(write.kind, ObservationKind::Ok);
    assert_eq!(
        fs::read_to_string(dir.join("scripts/go.sh")).unwrap(),
        "echo go\n"
    );
    let missing = tools
        .dispatch("skill", serde_json::json!({"name": "nope"}), &call())
        .await;
    assert!(
        missing.text.contains("the skills are: deploy"),
        "{}",
        missing.text
    );
    // The project stays readable as before.
    assert_eq!(read("a.txt".into()).await.kind, ObservationKind::Ok);
}

#[test]
fn one_discovery_gives_all_three_and_one_report() {
    let f = Fixture::new();
    f.project(".claude/commands/lint.md", "Lint.");
    f.project(
        ".claude/skills/lint/SKILL.md",
        "---\nname: lint\ndescription: Lints\n---\nx",
    );
    f.project(
        ".claude/agents/a.md",
        "---\nname: a\ndescription: An agent\n---\nYou are a.",
    );
    let mut report = ConfigReport::default();
    let found = gantry_config::extensions::discover(&f.at, &TrustedFiles::none(), &[], &mut report);
    assert!(found.commands.is_empty(), "the skill replaces the command");
    assert_eq!(found.skills.len(), 1);
    assert_eq!(found.agents[0].system_prompt, "You are a.");
    let kinds: Vec<&str> = report.files.iter().map(|file| file.kind.as_str()).collect();
    assert_eq!(kinds, ["command", "skill", "agent"]);
}

#[test]
fn the_catalog_leaves_out_skills_the_model_may_not_invoke() {
    use gantry_tools::skills::SkillLibrary;
    let f = Fixture::new();
    f.project(
        ".claude/skills/shown/SKILL.md",
        "---\nname: shown\ndescription: Shown\n---\nx",
    );
    f.home(
        ".agents/skills/by-hand/SKILL.md",
        "---\nname: by-hand\ndescription: Only by hand\ndisable-model-invocation: true\n---\nx",
    );
    let library = SkillFiles::new(f.at.clone());
    let catalog = library.catalog();
    assert_eq!(catalog.len(), 1);
    assert_eq!(catalog[0].name, "shown");
    assert_eq!(
        catalog[0].location,
        f.at.in_project(".claude/skills/shown/SKILL.md")
    );
    // Still loadable by name (the user's `/by-hand`).
    assert_eq!(library.load("by-hand").unwrap().body, "x");
}

#[test]
fn a_skill_folder_holding_a_secret_store_is_not_opened() {
    use gantry_tools::skills::SkillLibrary;
    let f = Fixture::new();
    let home = f.at.home.clone().unwrap();
    f.home(
        "SKILL.md",
        "---\nname: all\ndescription: Everything\n---\nx",
    );
    f.home(".ssh/id_rsa", "key");
    fs::create_dir_all(home.join(".claude/skills")).unwrap();
    std::os::unix::fs::symlink(&home, home.join(".claude/skills/all")).unwrap();
    let library = SkillFiles::new(f.at.clone());
    let refused = library.load("all").unwrap_err();
    assert!(refused.contains("cannot be read"), "{refused}");
}
