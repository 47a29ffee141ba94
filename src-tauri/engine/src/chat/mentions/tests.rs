use std::fs;

use super::*;

fn paths(completions: &MentionCompletions) -> Vec<&str> {
    completions
        .items
        .iter()
        .map(|item| item.path.as_str())
        .collect()
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    for folder in [
        "src/chat",
        "src/tools",
        "docs",
        "node_modules/left-pad",
        "logs",
    ] {
        fs::create_dir_all(base.join(folder)).unwrap();
    }
    for file in [
        "src/chat/input.ts",
        "src/chat/mention.ts",
        "src/tools/read_file.rs",
        "src/main.rs",
        "docs/chat.md",
        "README.md",
        "node_modules/left-pad/index.js",
        "logs/run.log",
    ] {
        fs::write(base.join(file), "x").unwrap();
    }
    fs::write(base.join(".gitignore"), "logs/\n").unwrap();
    dir
}

#[test]
fn the_index_holds_what_the_tree_shows() {
    let dir = project();
    let index = MentionIndex::new();
    assert!(!index.search("", None).ready);
    index.fill(dir.path());
    let all = index.search("", Some(100));
    assert!(all.ready);
    let all = paths(&all);
    assert!(all.contains(&"src/chat/input.ts") && all.contains(&"src/chat"));
    assert!(!all.iter().any(|path| path.starts_with("node_modules")));
    assert!(!all.iter().any(|path| path.starts_with("logs")));
    // The empty query lists the shallowest first, shorter names first.
    assert_eq!(all[..4], ["src", "docs", "README.md", ".gitignore"]);
}

#[test]
fn fuzzy_matches_rank_file_names_and_short_paths_first() {
    let dir = project();
    let index = MentionIndex::new();
    index.fill(dir.path());
    let found = index.search("mention", None);
    assert_eq!(paths(&found), ["src/chat/mention.ts"]);
    let chat = index.search("chat", None);
    assert_eq!(paths(&chat)[0], "src/chat", "the folder itself first");
    assert!(paths(&chat).contains(&"docs/chat.md"));
    // Letters in order, not together.
    assert_eq!(
        paths(&index.search("srf", None))[0],
        "src/tools/read_file.rs"
    );
    assert!(index.search("zzz", None).items.is_empty());
    assert_eq!(index.search("", Some(2)).items.len(), 2);
    let dir_flag = &index.search("tools", Some(1)).items[0];
    assert!(dir_flag.is_dir);
}

#[test]
fn watcher_changes_keep_it_current() {
    let dir = project();
    let root = dir.path();
    let index = MentionIndex::new();
    index.fill(root);

    fs::create_dir_all(root.join("src/new/deep")).unwrap();
    fs::write(root.join("src/new/deep/found.rs"), "x").unwrap();
    index.apply(
        root,
        &[TreeChange::Created {
            path: "src/new".into(),
            is_dir: true,
        }],
    );
    assert_eq!(
        paths(&index.search("found", None)),
        ["src/new/deep/found.rs"]
    );

    index.apply(
        root,
        &[TreeChange::Renamed {
            from: "src/chat/input.ts".into(),
            to: "src/chat/box.ts".into(),
            is_dir: false,
        }],
    );
    assert!(index.search("input", None).items.is_empty());
    assert_eq!(paths(&index.search("box", None)), ["src/chat/box.ts"]);

    index.apply(
        root,
        &[TreeChange::Removed {
            path: "src/chat".into(),
            is_dir: true,
        }],
    );
    assert!(index.search("mention", None).items.is_empty());
    assert!(!paths(&index.search("", Some(100))).contains(&"src/chat"));

    fs::write(root.join("docs/extra.md"), "x").unwrap();
    index.apply(
        root,
        &[TreeChange::Rescan {
            path: "docs".into(),
        }],
    );
    assert_eq!(paths(&index.search("extra", None)), ["docs/extra.md"]);
    assert_eq!(paths(&index.search("docs/chat", None)), ["docs/chat.md"]);
}
