//! The scenarios.

use std::fmt::Write as _;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::app::App;
use crate::fixture::{Fixture, LargeProject, MAIN_RS};
use crate::{SERIAL, enabled, ms, percentiles};

/// Writes `text` to the scenario's metrics file and to stderr.
pub(crate) fn report(scenario: &str, text: &str) {
    let text = text.trim_end();
    eprintln!("{text}");
    let path = crate::app::screenshot_root()
        .join(scenario)
        .join("metrics.txt");
    std::fs::write(path, format!("{text}\n")).unwrap();
}

/// Calls a backend command from inside the page, as any script in the webview could.
pub(crate) async fn invoke(app: &App, command: &str, args: Value) -> Value {
    app.session
        .execute_async(
            "const [command, args, done] = arguments;\
             window.__TAURI_INTERNALS__.invoke(command, args)\
               .then(ok => done({ok: ok === undefined ? null : ok}), err => done({err}));",
            json!([command, args]),
        )
        .await
        .unwrap()
}

/// Waits until the project tree shows its root listing and the watcher runs.
async fn wait_for_project(app: &App) {
    app.wait_for_css("[data-testid=tree][data-loaded=true][data-watching=true] [data-path]")
        .await
        .unwrap();
}

#[tokio::test]
async fn the_welcome_screen_shows_without_a_folder() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let mut app = App::launch("welcome", &[]).await.unwrap();
    app.wait_for_css("[data-testid=welcome] [data-testid=no-recent]")
        .await
        .unwrap();
    let start = app.launched.elapsed();
    let button = app
        .eval(
            "return document.querySelector('[data-testid=open-folder]').textContent.trim();",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(button, "Open project folder…");
    let recent = app
        .eval(
            "return document.querySelector('[data-testid=no-recent]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(recent, "No recent projects.");
    assert_eq!(
        app.eval(
            "return document.querySelector('.app').dataset.screen;",
            json!([])
        )
        .await
        .unwrap(),
        "welcome"
    );
    let shot = app.screenshot("welcome").await.unwrap();
    report(
        "welcome",
        &format!(
            "launch to welcome screen: {}\nscreenshot: {}",
            ms(start),
            shot.display()
        ),
    );
    app.quit().await.unwrap();
}

#[tokio::test]
async fn a_folder_that_cannot_be_opened_shows_why() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let missing = "/nonexistent/gantry-e2e-project";
    let mut app = App::launch("launch-error", &[missing]).await.unwrap();
    app.wait_for_css("[data-testid=launch-error]")
        .await
        .unwrap();
    let text = app
        .eval(
            "return document.querySelector('[data-testid=launch-error]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    let text = text.as_str().unwrap();
    assert!(text.contains(missing), "{text}");
    assert!(text.contains("No such file or directory"), "{text}");
    // The welcome screen's actions are still there: the app did not crash.
    app.wait_for_css("[data-testid=open-folder]").await.unwrap();
    app.screenshot("launch-error").await.unwrap();
    app.quit().await.unwrap();
}

#[tokio::test]
async fn a_project_opens_from_the_command_line_with_a_lazy_tree_and_previews() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let fixture = Fixture::new();
    let mut app = App::launch("project", &[&fixture.arg()]).await.unwrap();
    app.wait_for_css("[data-testid=tree][data-loaded=true] [data-path]")
        .await
        .unwrap();
    let cold_start = app.launched.elapsed();
    wait_for_project(&app).await;

    // The root listing honours .gitignore and the vendor list; nothing below it is loaded.
    assert_eq!(
        app.tree_paths().await.unwrap(),
        [
            "docs",
            "src",
            ".gitignore",
            "Cargo.toml",
            "escape",
            "README.md"
        ]
    );
    let name = app
        .eval(
            "return document.querySelector('[data-testid=project-name]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(name, "project");
    app.screenshot("project-opened").await.unwrap();

    // Expanding a directory lists it then, and only it.
    app.click("[data-testid=tree] [data-path='src']")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=tree] [data-path='src/main.rs']")
        .await
        .unwrap();
    assert_eq!(
        app.tree_paths().await.unwrap(),
        [
            "docs",
            "src",
            "src/util",
            "src/lib.rs",
            "src/main.rs",
            ".gitignore",
            "Cargo.toml",
            "escape",
            "README.md"
        ]
    );
    app.click("[data-testid=tree] [data-path='src/util']")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=tree] [data-path='src/util/mod.rs']")
        .await
        .unwrap();
    app.screenshot("src-expanded").await.unwrap();

    // Clicking a file opens its read-only preview; markup in it is text.
    app.click("[data-testid=tree] [data-path='src/main.rs']")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=preview][data-path='src/main.rs'][data-state=text]")
        .await
        .unwrap();
    let lines = app
        .eval(
            "return [...document.querySelectorAll('[data-testid=preview-text] .line')]\
               .map(l => l.textContent.slice(l.querySelector('.number').textContent.length));",
            json!([]),
        )
        .await
        .unwrap();
    let shown: Vec<String> = serde_json::from_value(lines).unwrap();
    assert_eq!(shown.join(""), MAIN_RS);
    let inert = app
        .eval(
            "return document.querySelector('[data-testid=preview] script, [data-testid=preview] img') === null \
               && document.title === 'Gantry';",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(inert, true, "markup in a previewed file must stay text");
    app.screenshot("preview").await.unwrap();

    // Collapsing hides the children again.
    app.click("[data-testid=tree] [data-path='src']")
        .await
        .unwrap();
    app.wait_for(
        "src collapsed",
        "return document.querySelector(\"[data-testid=tree] [data-path='src/main.rs']\") === null;",
        json!([]),
    )
    .await
    .unwrap();

    // Idle memory of the whole app: the main process and WebKit's processes.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let memory = app.memory();
    let mut text = format!(
        "cold start (session request -> tree rendered): {}\n\
         idle memory, {} processes: RSS {:.1} MiB, PSS {:.1} MiB\n",
        ms(cold_start),
        memory.processes.len(),
        memory.rss_kib as f64 / 1024.0,
        memory.pss_kib as f64 / 1024.0,
    );
    for (name, rss, pss) in &memory.processes {
        let _ = writeln!(
            text,
            "  {name:<20} RSS {:>7.1} MiB  PSS {:>7.1} MiB",
            *rss as f64 / 1024.0,
            *pss as f64 / 1024.0
        );
    }
    report("project", &text);
    assert!(
        memory.processes.len() >= 2,
        "expected the app and its web process: {memory:?}"
    );
    app.quit().await.unwrap();
}

/// Milliseconds since the epoch, as the page's `performance.timeOrigin + performance.now()`.
fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

/// Watches the tree for `path` to appear (`present`) or disappear; returns when the probe is set.
async fn arm(app: &App, path: &str, present: bool) {
    app.eval(
        "window.__gantryProbe = {want: {path: arguments[0], present: arguments[1]}, seen: null};",
        json!([path, present]),
    )
    .await
    .unwrap();
}

/// Waits for the armed probe; returns the DOM time (epoch ms) it saw the change at.
async fn seen(app: &App, what: &str) -> f64 {
    app.wait_for(what, "return window.__gantryProbe.seen;", json!([]))
        .await
        .unwrap()
        .as_f64()
        .unwrap()
}

#[tokio::test]
async fn the_tree_follows_files_changed_by_another_program() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let fixture = Fixture::new();
    let root = fixture.root.clone();
    let mut app = App::launch("live-tree", &[&fixture.arg()]).await.unwrap();
    wait_for_project(&app).await;
    app.click("[data-testid=tree] [data-path='src']")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=tree] [data-path='src/main.rs']")
        .await
        .unwrap();

    // A MutationObserver notes when the armed condition first holds in the DOM.
    app.eval(
        "window.__gantryProbe = {want: null, seen: null};\
         const check = () => {\
           const probe = window.__gantryProbe;\
           if (!probe.want || probe.seen !== null) return;\
           const selector = '[data-testid=tree] [data-path=\"' + CSS.escape(probe.want.path) + '\"]';\
           if ((document.querySelector(selector) !== null) === probe.want.present) {\
             probe.seen = performance.timeOrigin + performance.now();\
           }\
         };\
         new MutationObserver(check).observe(document.querySelector('[data-testid=tree]'),\
           {childList: true, subtree: true, attributes: true});\
         return true;",
        json!([]),
    )
    .await
    .unwrap();

    let mut latencies = Vec::new();
    let mut log = String::new();
    let mut measure = |label: String, started: f64, dom: f64| {
        let latency = Duration::from_secs_f64(((dom - started) / 1000.0).max(0.0));
        let _ = writeln!(log, "  {label:<44} {}", ms(latency));
        latencies.push(latency);
    };
    for i in 0..7 {
        // Created by another program.
        let created = format!("live-{i}.txt");
        arm(&app, &created, true).await;
        let t0 = epoch_ms();
        std::fs::write(root.join(&created), "new\n").unwrap();
        measure(format!("create {created}"), t0, seen(&app, &created).await);
        if i == 0 {
            app.screenshot("file-created").await.unwrap();
        }

        // Renamed into an expanded directory.
        let moved = format!("src/moved-{i}.txt");
        arm(&app, &moved, true).await;
        let t0 = epoch_ms();
        std::fs::rename(root.join(&created), root.join(&moved)).unwrap();
        measure(
            format!("rename {created} -> {moved}"),
            t0,
            seen(&app, &moved).await,
        );
        assert!(!app.tree_paths().await.unwrap().contains(&created));
        if i == 0 {
            app.screenshot("file-renamed").await.unwrap();
        }

        // Deleted.
        arm(&app, &moved, false).await;
        let t0 = epoch_ms();
        std::fs::remove_file(root.join(&moved)).unwrap();
        measure(format!("delete {moved}"), t0, seen(&app, &moved).await);
    }

    // A directory made with files in it, an ignored file, and a vendor directory.
    arm(&app, "assets", true).await;
    std::fs::create_dir_all(root.join("assets/img")).unwrap();
    std::fs::write(root.join("assets/logo.txt"), "logo").unwrap();
    std::fs::write(root.join("trace.log"), "ignored").unwrap();
    std::fs::create_dir_all(root.join("node_modules/new-pkg")).unwrap();
    seen(&app, "assets").await;
    app.click("[data-testid=tree] [data-path='assets']")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=tree] [data-path='assets/logo.txt']")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=tree] [data-path='assets/img']")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let paths = app.tree_paths().await.unwrap();
    assert!(
        !paths
            .iter()
            .any(|p| p.ends_with(".log") || p.contains("node_modules")),
        "{paths:?}"
    );
    app.screenshot("after-changes").await.unwrap();

    let count = latencies.len();
    let (median, p95) = percentiles(&mut latencies);
    let max = latencies.last().copied().unwrap_or_default();
    report(
        "live-tree",
        &format!(
            "tree update latency, file operation -> DOM change, {count} operations: \
             median {}, p95 {}, max {}\n{log}",
            ms(median),
            ms(p95),
            ms(max)
        ),
    );
    // A ceiling against a tree that stopped following, not the target: the real figures (the
    // target is a p95 under 200 ms) are in metrics.txt above.
    assert!(
        p95 < Duration::from_secs(2),
        "p95 {} over the 2 s ceiling",
        ms(p95)
    );
    app.quit().await.unwrap();
}

#[tokio::test]
async fn the_backend_refuses_what_the_webview_must_not_do() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let fixture = Fixture::new();
    let mut app = App::launch("security", &[&fixture.arg()]).await.unwrap();
    wait_for_project(&app).await;

    // Positive control: a file inside the project reads.
    let ok = invoke(
        &app,
        "read_preview",
        json!({"request": {"path": "README.md"}}),
    )
    .await;
    assert_eq!(ok["ok"]["kind"], "text", "{ok}");

    let secret = fixture.outside.join("secret.txt").display().to_string();
    let escapes = [
        "../outside/secret.txt",
        "src/../../outside/secret.txt",
        secret.as_str(),
        "/etc/passwd",
        "escape",
        "~/.bashrc",
    ];
    for path in escapes {
        let answer = invoke(&app, "read_preview", json!({"request": {"path": path}})).await;
        assert_eq!(answer["err"]["kind"], "outside_project", "{path}: {answer}");
        assert!(
            !answer.to_string().contains("TOP SECRET"),
            "{path}: {answer}"
        );
    }
    let listing = invoke(&app, "list_dir", json!({"request": {"path": "../outside"}})).await;
    assert_eq!(listing["err"]["kind"], "outside_project", "{listing}");
    let ignored = invoke(
        &app,
        "list_dir",
        json!({"request": {"path": "node_modules"}}),
    )
    .await;
    assert_eq!(ignored["err"]["kind"], "ignored", "{ignored}");

    // Malformed and unknown input is an error, not a crash.
    let unknown = invoke(
        &app,
        "resolve_approval",
        json!({"request": {"id": 4242, "decision": {"decision": "allow_once"}}}),
    )
    .await;
    assert_eq!(unknown["err"]["kind"], "unknown_dialog", "{unknown}");
    let malformed = invoke(&app, "read_preview", json!({"request": {"nope": 1}})).await;
    assert!(malformed["err"].is_string(), "{malformed}");
    let relative = invoke(
        &app,
        "open_project",
        json!({"request": {"path": "relative"}}),
    )
    .await;
    assert_eq!(relative["err"]["kind"], "invalid_input", "{relative}");

    // Only Gantry's commands are granted: no file-system plugin, and not even the dialog
    // plugin's own commands (the backend opens the folder picker itself).
    for (command, args) in [
        ("plugin:fs|read_text_file", json!({"path": secret})),
        ("plugin:dialog|open", json!({"options": {}})),
        (
            "plugin:shell|execute",
            json!({"program": "sh", "args": ["-c", "id"]}),
        ),
    ] {
        // Refused by Tauri's access control (the command is not in the capability), before any
        // plugin code could run: "fs.read_text_file not allowed. ...", not just any error.
        let answer = invoke(&app, command, args).await;
        let (plugin, name) = command
            .trim_start_matches("plugin:")
            .split_once('|')
            .unwrap();
        let refusal = format!("{plugin}.{name} not allowed");
        assert!(
            answer["err"]
                .as_str()
                .is_some_and(|error| error.starts_with(&refusal)),
            "{command} must get the permission refusal ({refusal}...): {answer}"
        );
    }

    // And the app still works after all that.
    app.click("[data-testid=tree] [data-path='README.md']")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=preview][data-state=text]")
        .await
        .unwrap();
    app.screenshot("still-working").await.unwrap();
    let start = Instant::now();
    app.quit().await.unwrap();
    eprintln!("quit in {}", ms(start.elapsed()));
}

#[tokio::test]
async fn a_large_repository_opens_without_freezing() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let made = Instant::now();
    let project = LargeProject::new(100, 5000);
    let made = made.elapsed();
    let root = project.root.display().to_string();
    let mut app = App::launch("large", &[&root]).await.unwrap();
    app.wait_for_css("[data-testid=tree][data-loaded=true] [data-path]")
        .await
        .unwrap();
    let shown = app.launched.elapsed();
    // The page stays responsive while the watcher walks the project in the background.
    let ping = Instant::now();
    app.eval("return 1;", json!([])).await.unwrap();
    let ping = ping.elapsed();
    app.wait_for_css("[data-testid=tree][data-watching=true]")
        .await
        .unwrap();
    let watching = app.launched.elapsed();
    assert_eq!(
        app.tree_paths().await.unwrap().len(),
        101,
        "pkg000..pkg099 and flat"
    );
    app.screenshot("large-opened").await.unwrap();

    // A folder of 5,000 files renders a page of rows and a "show more" row.
    let expand = Instant::now();
    app.click("[data-testid=tree] [data-path='flat']")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=tree] [data-path='flat/file00499.txt']")
        .await
        .unwrap();
    let expanded = expand.elapsed();
    let rows = app.tree_paths().await.unwrap().len();
    assert_eq!(rows, 101 + 500, "one page of flat/ is rendered");
    app.wait_for_css("[data-testid=tree] .row.more")
        .await
        .unwrap();
    app.screenshot("large-flat-expanded").await.unwrap();

    // Changes deep in the big tree still arrive.
    app.click("[data-testid=tree] [data-path='pkg042']")
        .await
        .unwrap();
    app.click("[data-testid=tree] [data-path='pkg042/mod7']")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=tree] [data-path='pkg042/mod7/f099.rs']")
        .await
        .unwrap();
    let t0 = Instant::now();
    std::fs::write(project.root.join("pkg042/mod7/new.rs"), "new").unwrap();
    app.wait_for_css("[data-testid=tree] [data-path='pkg042/mod7/new.rs']")
        .await
        .unwrap();
    let deep = t0.elapsed();
    app.screenshot("large-deep-change").await.unwrap();
    report(
        "large",
        &format!(
            "large project: {} files in {} folders (made in {})\n\
             session request -> tree rendered: {}\n\
             a script round trip while the watcher starts: {}\n\
             session request -> watcher running: {}\n\
             expanding a folder of 5,000 files -> first page rendered: {}\n\
             a file created deep in the tree -> shown (polled): {}\n",
            project.files,
            100 * 11 + 1,
            ms(made),
            ms(shown),
            ms(ping),
            ms(watching),
            ms(expanded),
            ms(deep),
        ),
    );
    // A ceiling against a frozen page; the figure itself is reported above.
    assert!(
        ping < Duration::from_secs(3),
        "the page froze for {}",
        ms(ping)
    );
    app.quit().await.unwrap();
}

#[tokio::test]
async fn the_window_size_is_remembered_across_restarts() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let data = crate::fixture::data_dir();
    let app = App::launch_with_data("window-size", &[], data.path(), true)
        .await
        .unwrap();
    app.wait_for_css("[data-testid=welcome]").await.unwrap();
    app.session.set_window_size(1000, 640).await.unwrap();
    app.wait_for(
        "the resized window",
        "return window.innerWidth === 1000 || window.outerWidth === 1000;",
        json!([]),
    )
    .await
    .unwrap();
    // The size is saved once it settles: wait for it in the database.
    let store = gantry_store::Store::open(data.path().join(gantry_store::DATABASE_FILE))
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let saved = store.settings().get("window.layout").await.unwrap();
        if saved
            .as_deref()
            .is_some_and(|text| text.contains("\"width\":1000"))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the size was not saved: {saved:?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    drop(store);
    let before = app
        .eval("return [window.innerWidth, window.innerHeight];", json!([]))
        .await
        .unwrap();
    app.quit().await.unwrap();

    let mut app = App::launch_with_data("window-size", &[], data.path(), false)
        .await
        .unwrap();
    app.wait_for_css("[data-testid=welcome]").await.unwrap();
    let after = app
        .eval("return [window.innerWidth, window.innerHeight];", json!([]))
        .await
        .unwrap();
    assert_eq!(after, before, "the window opens at the size it had");
    assert_ne!(after, json!([1280, 800]), "not the default size");
    app.screenshot("restored-size").await.unwrap();
    app.quit().await.unwrap();
}
