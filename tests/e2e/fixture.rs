//! The temporary project the scenarios open.

use std::path::{Path, PathBuf};

/// A project folder beside an "outside" folder that holds a secret the app must never read.
pub struct Fixture {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub outside: PathBuf,
}

/// The contents of `src/main.rs`: markup in a file must be shown as text, never run.
pub const MAIN_RS: &str = "fn main() {\n    // <script>document.title = 'pwned'</script>\n    println!(\"<img src=x onerror=alert(1)>\");\n}\n";

/// A fresh data folder for one app (its database, and its user configuration under `config/`).
pub fn data_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("gantry-e2e-data-")
        .tempdir()
        .expect("a temporary data folder")
}

impl Fixture {
    /// Creates the project:
    ///
    /// ```text
    /// project/.gitignore        *.log, secret/
    /// project/README.md, Cargo.toml
    /// project/src/{main.rs, lib.rs, util/mod.rs}
    /// project/docs/guide.md
    /// project/escape -> ../outside/secret.txt   (a symlink out of the project)
    /// project/node_modules/..., target/...       (vendor: not shown)
    /// project/secret/key.txt, debug.log          (ignored: not shown)
    /// outside/secret.txt
    /// ```
    pub fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("gantry-e2e-")
            .tempdir()
            .unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("project");
        let outside = base.join("outside");
        let files: &[(&str, &str)] = &[
            (".gitignore", "*.log\nsecret/\n"),
            (
                "README.md",
                "# Demo project\n\nUsed by Gantry's end-to-end tests.\n",
            ),
            (
                "Cargo.toml",
                "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
            ),
            ("src/main.rs", MAIN_RS),
            ("src/lib.rs", "pub mod util;\n"),
            ("src/util/mod.rs", "pub fn helper() {}\n"),
            ("docs/guide.md", "# Guide\n"),
            ("node_modules/left-pad/index.js", "module.exports = 1;\n"),
            ("target/debug/demo", "binary\n"),
            ("secret/key.txt", "hidden by .gitignore\n"),
            ("debug.log", "ignored\n"),
        ];
        for (path, text) in files {
            write(&root.join(path), text);
        }
        write(
            &outside.join("secret.txt"),
            "TOP SECRET outside the project\n",
        );
        std::os::unix::fs::symlink("../outside/secret.txt", root.join("escape")).unwrap();
        Self {
            _dir: dir,
            root,
            outside,
        }
    }

    /// The project folder as a string (the app's argument).
    pub fn arg(&self) -> String {
        self.root.display().to_string()
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project of `dirs * 10 * 100` small files in `pkgNNN/modN/` folders plus `flat/` with
/// `flat` files in each of `flat_folders` folders ([`LargeProject::flat_name`]), for the "a large
/// repository opens without freezing" scenario.
pub struct LargeProject {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub files: usize,
}

impl LargeProject {
    pub fn new(dirs: usize, flat: usize, flat_folders: usize) -> Self {
        // In memory where there is a tmpfs: making and deleting 105,000 files on a shared disk
        // can take a minute when other builds are writing.
        let shm = Path::new("/dev/shm");
        let mut builder = tempfile::Builder::new();
        builder.prefix("gantry-e2e-large-");
        let dir = if shm.is_dir() {
            builder.tempdir_in(shm)
        } else {
            builder.tempdir()
        }
        .unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut files = 0;
        for d in 0..dirs {
            for m in 0..10 {
                let folder = root.join(format!("pkg{d:03}/mod{m}"));
                std::fs::create_dir_all(&folder).unwrap();
                for f in 0..100 {
                    std::fs::write(folder.join(format!("f{f:03}.rs")), "x").unwrap();
                    files += 1;
                }
            }
        }
        for folder in 0..flat_folders {
            let name = Self::flat_name(folder);
            std::fs::create_dir_all(root.join(&name)).unwrap();
            for f in 0..flat {
                std::fs::write(root.join(format!("{name}/file{f:05}.txt")), "y").unwrap();
                files += 1;
            }
        }
        Self {
            _dir: dir,
            root,
            files,
        }
    }

    /// The name of flat folder `n`: `flat`, `flat2`, `flat3`...
    pub fn flat_name(n: usize) -> String {
        if n == 0 {
            "flat".to_owned()
        } else {
            format!("flat{}", n + 1)
        }
    }
}
