//! `ProjectTree::children` on real directories.

use std::collections::BTreeSet;

use gantry_watch::{EntryKind, ProjectTree, TreeEntry, TreeError};

use super::support::Project;

fn names(entries: &[TreeEntry]) -> Vec<&str> {
    entries.iter().map(|entry| entry.name.as_str()).collect()
}

fn sample() -> Project {
    Project::new(&[
        (".gitignore", "*.log\n/secret/\n"),
        (".github/workflows/ci.yml", "on: push\n"),
        ("README.md", "# readme\n"),
        ("b.txt", "12345"),
        ("Apple.txt", ""),
        ("app.log", ""),
        ("secret/key.pem", ""),
        ("node_modules/pkg/index.js", ""),
        ("target/debug/app", ""),
        ("Zeta/", ""),
        ("src/lib.rs", "pub fn f() {}\n"),
        ("src/trace.log", ""),
        ("src/secret/kept.rs", ""),
        ("src/.gitignore", "*.bak\n"),
        ("src/inner/a.rs", ""),
        ("src/inner/a.rs.bak", ""),
        ("src/inner/deeper/b.rs", ""),
    ])
}

#[test]
fn the_root_lists_its_children_sorted_with_kinds_and_sizes() {
    let project = sample();
    let tree = ProjectTree::new(project.root()).unwrap();
    let entries = tree.children("").unwrap();
    assert_eq!(
        names(&entries),
        [
            ".github",
            "src",
            "Zeta",
            ".gitignore",
            "Apple.txt",
            "b.txt",
            "README.md"
        ]
    );
    let b = entries.iter().find(|entry| entry.name == "b.txt").unwrap();
    assert_eq!(b.path, "b.txt");
    assert_eq!(b.kind, EntryKind::File);
    assert_eq!(b.size, Some(5));
    let src = entries.iter().find(|entry| entry.name == "src").unwrap();
    assert_eq!(src.kind, EntryKind::Dir);
    assert_eq!(src.size, None);
    // "." is the root too.
    assert_eq!(tree.children(".").unwrap(), entries);
}

#[test]
fn only_immediate_children_are_listed() {
    let project = sample();
    let tree = ProjectTree::new(project.root()).unwrap();
    for entry in tree.children("").unwrap() {
        assert!(!entry.path.contains('/'), "{entry:?}");
    }
    let inner = tree.children("src/inner").unwrap();
    assert_eq!(names(&inner), ["deeper", "a.rs"]);
    assert_eq!(inner[1].path, "src/inner/a.rs");
    assert_eq!(inner[0].path, "src/inner/deeper");
}

#[test]
fn root_rules_apply_when_listing_a_subdirectory() {
    let project = sample();
    let tree = ProjectTree::new(project.root()).unwrap();
    let src = tree.children("src").unwrap();
    // `*.log` from the root hides src/trace.log; `/secret/` is anchored to the root, so
    // src/secret stays.
    assert_eq!(names(&src), ["inner", "secret", ".gitignore", "lib.rs"]);
    // src/.gitignore applies one level further down, and the root's still does.
    let inner = tree.children("./src//inner/").unwrap();
    assert!(!names(&inner).contains(&"a.rs.bak"));
}

#[test]
fn hidden_and_vendor_directories_cannot_be_listed() {
    let project = sample();
    let tree = ProjectTree::new(project.root()).unwrap();
    for rel in ["secret", "node_modules", "node_modules/pkg", "target/debug"] {
        let err = tree.children(rel).unwrap_err();
        assert!(
            matches!(&err, TreeError::Ignored { path } if path == rel),
            "{rel}: {err:?}"
        );
    }
    assert!(tree.children("src/secret").is_ok());
}

#[test]
fn paths_outside_the_project_are_refused() {
    let project = sample();
    let tree = ProjectTree::new(project.root()).unwrap();
    for rel in ["..", "../x", "src/../..", "/etc", "src/../../etc"] {
        let err = tree.children(rel).unwrap_err();
        assert!(
            matches!(err, TreeError::OutsideProject { .. }),
            "{rel}: {err:?}"
        );
    }
}

#[test]
fn missing_paths_and_files_are_told_apart() {
    let project = sample();
    let tree = ProjectTree::new(project.root()).unwrap();
    assert!(matches!(
        tree.children("nope"),
        Err(TreeError::NotFound { .. })
    ));
    assert!(matches!(
        tree.children("README.md"),
        Err(TreeError::NotADirectory { .. })
    ));
}

#[cfg(unix)]
#[test]
fn links_are_listed_but_never_followed() {
    use std::os::unix::fs::symlink;

    let project = sample();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("private.txt"), "").unwrap();
    symlink(outside.path(), project.path("escape")).unwrap();
    symlink(project.path("src"), project.path("src-link")).unwrap();
    let tree = ProjectTree::new(project.root()).unwrap();

    let root = tree.children("").unwrap();
    for name in ["escape", "src-link"] {
        let link = root.iter().find(|entry| entry.name == name).unwrap();
        assert_eq!(link.kind, EntryKind::Symlink, "{name}");
        assert_eq!(link.size, None);
    }
    assert!(matches!(
        tree.children("escape"),
        Err(TreeError::OutsideProject { .. })
    ));
    assert!(matches!(
        tree.children("escape/"),
        Err(TreeError::OutsideProject { .. })
    ));
    assert!(matches!(
        tree.children("src-link/inner"),
        Err(TreeError::Symlink { .. })
    ));
}

#[test]
fn a_root_given_through_a_link_or_dots_is_resolved_once() {
    let project = sample();
    let tree = ProjectTree::new(project.path("src/..")).unwrap();
    assert_eq!(tree.root(), project.root());
    assert!(names(&tree.children("").unwrap()).contains(&"src"));
}

/// Lists every directory the tree shows, lazily, one call per directory.
fn list_everything(tree: &ProjectTree) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut pending = vec![String::new()];
    while let Some(dir) = pending.pop() {
        for entry in tree.children(&dir).unwrap() {
            if entry.kind == EntryKind::Dir {
                pending.push(entry.path.clone());
            }
            seen.insert(entry.path);
        }
    }
    seen
}

#[test]
fn listing_directory_by_directory_shows_what_one_walk_shows() {
    let project = sample();
    let tree = ProjectTree::new(project.root()).unwrap();
    let walked: BTreeSet<String> = gantry_tools::walk::project_walker(project.root())
        .build()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.depth() > 0)
        .map(|entry| {
            let rel = entry.path().strip_prefix(project.root()).unwrap();
            rel.to_str().unwrap().replace('\\', "/")
        })
        .collect();
    assert_eq!(list_everything(&tree), walked);
    assert!(walked.contains("src/inner/deeper/b.rs"));
}

#[test]
fn entries_cross_to_the_webview_as_camel_case_json() {
    let project = Project::new(&[("a.txt", "hi")]);
    let tree = ProjectTree::new(project.root()).unwrap();
    let json = serde_json::to_value(tree.children("").unwrap()).unwrap();
    assert_eq!(
        json,
        serde_json::json!([{"name": "a.txt", "path": "a.txt", "kind": "file", "size": 2}])
    );
}
