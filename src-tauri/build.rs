//! Build script of the Gantry desktop app.
//!
//! Runs Tauri's build step: it resolves the capabilities (kept in `src-tauri/capabilities/`, not
//! next to the manifest, hence the explicit pattern), generates an `allow-`/`deny-` permission
//! for each of the app's own commands (so a command is callable only when a capability grants
//! it), and generates the application context here rather than in a macro, so that a rebuilt
//! frontend in `ui/dist` is embedded again on the next `cargo build` even when no Rust changed.
//!
//! A fresh clone has no `ui/dist` until `npm run build` ran in `ui/`. Tauri refuses to build
//! without it, which would make a plain `cargo check` or `cargo clippy` on a clean checkout fail;
//! in that case this script builds against a one-page placeholder (saying how to build the UI)
//! through a copy of the configuration in `OUT_DIR`, and warns. The scripts always build the UI
//! first, so a real build never embeds the placeholder.

use std::path::{Path, PathBuf};

// The app's own commands, from the one table that declares them: each gets `allow-<name>` and
// `deny-<name>` permissions, which the capability in `src-tauri/capabilities/` grants. Only the
// names are taken here; the types are matched, never resolved.
macro_rules! commands {
    (
        served { $($service:ident :: $name:ident ( $request:tt ) -> $response:ty ;)* }
        by_hand { $($area:ident :: $hand:ident ( $hand_request:ty ) -> $hand_response:ty ;)* }
    ) => {
        const COMMAND_NAMES: &[&str] = &[$(stringify!($name),)* $(stringify!($hand)),*];
    };
}
include!("src/commands/table.rs");

fn main() {
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    println!("cargo:rerun-if-changed=src-tauri/build.rs");
    println!("cargo:rerun-if-changed=src-tauri/src/commands/table.rs");
    let attributes = tauri_build::Attributes::new()
        .capabilities_path_pattern("./src-tauri/capabilities/**/*.json")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMAND_NAMES))
        .config_path(config_path())
        .codegen(tauri_build::CodegenContext::new());
    if let Err(error) = tauri_build::try_build(attributes) {
        println!("cargo:warning=tauri-build failed: {error:#}");
        std::process::exit(1);
    }
}

/// The Tauri configuration to build with: the real one when the UI is built, otherwise a copy
/// pointing at a placeholder page.
fn config_path() -> PathBuf {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let config = manifest_dir.join("tauri.conf.json");
    let index = manifest_dir.join("ui/dist/index.html");
    if index.is_file() {
        return config;
    }
    // Watching a missing file makes cargo rerun this script on every build until it exists,
    // which is what should happen: the first build after `npm run build` embeds the real UI.
    println!("cargo:rerun-if-changed={}", index.display());
    println!(
        "cargo:warning=ui/dist is missing: embedding a placeholder page (run `npm ci && npm run build` in ui/, or scripts/run-app)"
    );
    let out_dir = PathBuf::from(env("OUT_DIR"));
    let placeholder = out_dir.join("placeholder-dist");
    write(&placeholder.join("index.html"), PLACEHOLDER_PAGE);
    let text = std::fs::read_to_string(&config).unwrap_or_else(|error| {
        panic!("cannot read {}: {error}", config.display());
    });
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|error| {
        panic!("cannot parse {}: {error}", config.display());
    });
    value["build"]["frontendDist"] = serde_json::Value::String(path_string(&placeholder));
    if let Some(icons) = value["bundle"]["icon"].as_array_mut() {
        for icon in icons {
            if let Some(relative) = icon.as_str() {
                *icon = serde_json::Value::String(path_string(&manifest_dir.join(relative)));
            }
        }
    }
    let copy_dir = out_dir.join("placeholder-config");
    let copy = copy_dir.join("tauri.conf.json");
    write(&copy, &value.to_string());
    copy
}

const PLACEHOLDER_PAGE: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Gantry</title></head>\
<body><h1>Gantry's interface was not built</h1><p>This binary was compiled before <code>ui/dist</code> existed. \
Run <code>scripts/run-app</code>, or <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code> and build again.</p></body></html>";

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name} for build scripts"))
}

fn path_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn write(path: &Path, contents: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .unwrap_or_else(|error| panic!("cannot create {}: {error}", parent.display()));
    }
    if std::fs::read_to_string(path).ok().as_deref() != Some(contents) {
        std::fs::write(path, contents)
            .unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
    }
}
