use super::*;

struct Fixture {
    _dir: tempfile::TempDir,
    at: Locations,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("home/proj")).unwrap();
        // The project inside the home, as it usually is.
        let at = Locations::new(root.join("home/proj"), Some(root.join("home")));
        Self { _dir: dir, at }
    }

    fn project(&self, relative: &str, text: &str) {
        write(&self.at.in_project(relative), text);
    }

    fn home(&self, relative: &str, text: &str) {
        write(&self.at.in_home(relative).unwrap(), text);
    }

    fn gather(&self) -> Instructions {
        gather(&self.at, &[])
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn shown(instructions: &Instructions) -> Vec<&str> {
    instructions
        .parts
        .iter()
        .map(|part| part.source.shown.as_str())
        .collect()
}

fn notes(instructions: &Instructions) -> Vec<String> {
    instructions
        .report
        .files
        .iter()
        .flat_map(|file| file.not_understood.iter().cloned())
        .collect()
}

#[test]
fn files_are_read_in_order_user_first_with_their_scope() {
    let f = Fixture::new();
    f.project("CLAUDE.local.md", "local");
    f.project(".claude/CLAUDE.md", "dot claude");
    f.project("CLAUDE.md", "claude");
    f.project("AGENTS.md", "agents");
    f.home(".codex/AGENTS.md", "codex user");
    f.home(".claude/CLAUDE.md", "claude user");
    let read = f.gather();
    assert_eq!(
        shown(&read),
        [
            "~/.claude/CLAUDE.md",
            "~/.codex/AGENTS.md",
            "AGENTS.md",
            "CLAUDE.md",
            ".claude/CLAUDE.md",
            "CLAUDE.local.md"
        ]
    );
    let scopes: Vec<_> = read.parts.iter().map(|part| part.source.scope).collect();
    assert_eq!(
        scopes,
        [
            ConfigScope::User,
            ConfigScope::User,
            ConfigScope::Project,
            ConfigScope::Project,
            ConfigScope::Project,
            ConfigScope::Local
        ]
    );
    assert_eq!(read.parts[3].text, "claude");
    assert_eq!(read.report.files.len(), 6);
    assert!(
        read.report
            .files
            .iter()
            .all(|file| file.kind == KIND && !file.sha256.is_empty())
    );
    assert!(notes(&read).is_empty());
}

#[test]
fn codex_reads_the_override_in_place_of_agents_md() {
    let f = Fixture::new();
    f.project("AGENTS.md", "plain");
    f.project("AGENTS.override.md", "override");
    f.home(".codex/AGENTS.md", "user plain");
    f.home(".codex/AGENTS.override.md", "user override");
    let read = f.gather();
    assert_eq!(
        shown(&read),
        ["~/.codex/AGENTS.override.md", "AGENTS.override.md"]
    );
    // An empty override does not count: the plain file is read.
    f.project("AGENTS.override.md", "  \n");
    f.home(".codex/AGENTS.override.md", "");
    assert_eq!(shown(&f.gather()), ["~/.codex/AGENTS.md", "AGENTS.md"]);
}

#[test]
fn imports_are_relative_to_the_file_or_the_home_and_follow_the_importer() {
    let f = Fixture::new();
    f.project(
        "CLAUDE.md",
        "Rules.\n@docs/style.md\n```\n@docs/not-this.md\n```\n",
    );
    f.project(
        "docs/style.md",
        "Style. See @../more/deep.md and `@docs/nor-this.md`.",
    );
    f.project("more/deep.md", "Deep.");
    f.project("docs/not-this.md", "never");
    f.project("docs/nor-this.md", "never");
    f.home(".claude/CLAUDE.md", "Mine. @~/notes/me.md");
    f.home("notes/me.md", "My notes.");
    let read = f.gather();
    assert_eq!(
        shown(&read),
        [
            "~/.claude/CLAUDE.md",
            "~/notes/me.md",
            "CLAUDE.md",
            "docs/style.md",
            "more/deep.md"
        ]
    );
    assert_eq!(
        read.parts[1].imported_by.as_deref(),
        Some("~/.claude/CLAUDE.md")
    );
    assert_eq!(read.parts[3].imported_by.as_deref(), Some("CLAUDE.md"));
    assert_eq!(read.parts[4].imported_by.as_deref(), Some("docs/style.md"));
    assert_eq!(read.parts[2].imported_by, None);
    assert!(read.parts.iter().all(|part| !part.text.contains("never")));
}

#[test]
fn imports_stop_after_four_hops() {
    let f = Fixture::new();
    f.project("CLAUDE.md", "@one.md");
    f.project("one.md", "1 @two.md");
    f.project("two.md", "2 @three.md");
    f.project("three.md", "3 @four.md");
    f.project("four.md", "4 @five.md");
    f.project("five.md", "5");
    let read = f.gather();
    assert_eq!(shown(&read), ["one.md", "two.md", "three.md", "four.md"]);
    let four = &read.parts[3];
    assert_eq!(four.notes.len(), 1);
    assert!(
        four.notes[0].contains("more than 4 hops"),
        "{:?}",
        four.notes
    );
}

#[test]
fn a_cycle_is_cut_and_said() {
    let f = Fixture::new();
    f.project("CLAUDE.md", "Top @a.md");
    f.project("a.md", "A @b.md");
    f.project("b.md", "B @a.md @CLAUDE.md");
    let read = f.gather();
    assert_eq!(shown(&read), ["CLAUDE.md", "a.md", "b.md"]);
    let b = &read.parts[2];
    assert_eq!(b.notes.len(), 2, "{:?}", b.notes);
    assert!(
        b.notes
            .iter()
            .all(|note| note.contains("a cycle, cut here"))
    );
}

#[test]
fn a_project_file_imports_nothing_outside_the_project() {
    let f = Fixture::new();
    let home = f.at.home.clone().unwrap();
    f.home(".ssh/id_rsa", "PRIVATE KEY");
    f.home("outside.md", "outside the project");
    f.project(
        "CLAUDE.md",
        "Rules. @../../etc/passwd @/etc/passwd @~/.ssh/id_rsa @../outside.md @link.md",
    );
    std::os::unix::fs::symlink(home.join("outside.md"), f.at.in_project("link.md")).unwrap();
    let read = f.gather();
    assert_eq!(shown(&read), ["CLAUDE.md"]);
    let notes = &read.parts[0].notes;
    assert_eq!(notes.len(), 5, "{notes:?}");
    for refused in [
        "@../../etc/passwd",
        "@/etc/passwd",
        "@~/.ssh/id_rsa",
        "@../outside.md",
    ] {
        assert!(
            notes
                .iter()
                .any(|note| note.starts_with(refused) && note.contains("only inside the project")),
            "{refused}: {notes:?}"
        );
    }
    assert!(
        notes
            .iter()
            .any(|note| note.contains("link.md") && note.contains("outside the project"))
    );
    assert!(
        read.parts
            .iter()
            .all(|part| !part.text.contains("PRIVATE") && !part.text.contains("root:"))
    );
    assert_eq!(notes, &read.report.files[0].not_understood);
}

#[test]
fn a_user_file_imports_inside_the_home_but_no_secret_store_and_not_the_project() {
    let f = Fixture::new();
    f.home(".ssh/id_rsa", "PRIVATE KEY");
    f.project("secret-plan.md", "project text");
    f.home(
        ".claude/CLAUDE.md",
        "Mine. @/etc/passwd @~/.ssh/id_rsa @../../../etc/passwd @~/proj/secret-plan.md @../.ssh/id_rsa",
    );
    let read = f.gather();
    assert_eq!(shown(&read), ["~/.claude/CLAUDE.md"]);
    let notes = &read.parts[0].notes;
    assert_eq!(notes.len(), 5, "{notes:?}");
    assert!(notes[0].contains("only inside the home"));
    assert!(notes[1].contains("secret store"));
    assert!(notes[2].contains("only inside the home"));
    assert!(notes[3].contains("does not import from the project"));
    assert!(notes[4].contains("secret store"));
}

#[test]
fn the_same_text_or_a_file_of_imports_counts_once() {
    let f = Fixture::new();
    f.project("AGENTS.md", "Run cargo test.\n");
    f.project("CLAUDE.md", "@AGENTS.md\n");
    f.project(".claude/CLAUDE.md", "Run cargo test.");
    std::os::unix::fs::symlink("AGENTS.md", f.at.in_project("CLAUDE.local.md")).unwrap();
    let read = f.gather();
    assert_eq!(shown(&read), ["AGENTS.md"]);
    let said: Vec<_> = read
        .report
        .files
        .iter()
        .map(|file| (file.source.shown.as_str(), file.read.join("; ")))
        .collect();
    assert_eq!(said.len(), 4, "{said:?}");
    assert!(said[1].1.contains("only imports"), "{said:?}");
    assert!(said[2].1.contains("same text"), "{said:?}");
    assert!(said[3].1.contains("already included"), "{said:?}");
}

#[test]
fn a_long_file_is_cut_at_32_kib_with_a_note_and_comments_are_stripped() {
    let f = Fixture::new();
    f.project(
        "CLAUDE.md",
        &format!("<!-- for humans -->\n{}", "x".repeat(40 * 1024)),
    );
    f.project("AGENTS.md", "Keep.\n<!--\nhidden\n-->\nAlso keep.\n");
    let read = f.gather();
    assert_eq!(read.parts[0].text, "Keep.\nAlso keep.\n");
    assert!(!read.parts[0].truncated);
    let cut = &read.parts[1];
    assert!(cut.truncated);
    assert!(cut.text.ends_with(CUT_NOTE));
    assert!(!cut.text.contains("for humans"));
    assert!(cut.text.len() < MAX_INSTRUCTION_BYTES + CUT_NOTE.len() + 2);
    assert!(read.report.files[1].read[0].contains("cut at 32 KiB"));
}

#[test]
fn a_planted_symlink_out_is_not_read() {
    let f = Fixture::new();
    f.home("credentials", "aws_secret_access_key = x");
    std::os::unix::fs::symlink(
        f.at.in_home("credentials").unwrap(),
        f.at.in_project("AGENTS.md"),
    )
    .unwrap();
    let read = f.gather();
    assert!(read.parts.is_empty());
    assert!(
        read.report.files[0]
            .problem
            .as_deref()
            .unwrap()
            .contains("outside the project")
    );
}

#[test]
fn a_folders_files_join_once_the_model_worked_there() {
    let f = Fixture::new();
    f.project("AGENTS.md", "root");
    f.project("crates/web/CLAUDE.md", "web rules");
    f.project("crates/web/AGENTS.md", "web agents");
    f.project("crates/CLAUDE.local.md", "crates local");
    f.project("crates/web/.claude/CLAUDE.md", "not read below the root");
    let folders = folders_of(&f.at, "crates/web/src/main.rs");
    assert_eq!(
        folders,
        [
            f.at.in_project("crates"),
            f.at.in_project("crates/web"),
            f.at.in_project("crates/web/src")
        ]
    );
    let absolute = f.at.in_project("crates/lib.rs");
    assert_eq!(
        folders_of(&f.at, &absolute.to_string_lossy()),
        [f.at.in_project("crates")]
    );
    assert!(folders_of(&f.at, "../elsewhere/x.rs").is_empty());
    assert!(folders_of(&f.at, "top.rs").is_empty());
    let read = gather(&f.at, &folders);
    assert_eq!(
        shown(&read),
        [
            "AGENTS.md",
            "crates/CLAUDE.local.md",
            "crates/web/AGENTS.md",
            "crates/web/CLAUDE.md"
        ]
    );
    assert_eq!(read.parts[1].source.scope, ConfigScope::Local);
    assert_eq!(shown(&f.gather()), ["AGENTS.md"]);
}
