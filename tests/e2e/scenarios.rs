//! The scenarios.

use std::fmt::Write as _;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::app::{App, assert_stays_for, wait_for_setting};
use crate::fixture::{Fixture, LargeProject, MAIN_RS};
use crate::timing::{Start, Stopwatch, line};
use crate::{SERIAL, enabled, ms, percentiles};

/// How long the tree is watched, once the folder made beside them shows, for the ignored file
/// and the vendor folder (which it must not show).
const IGNORED_WATCH: Duration = Duration::from_millis(300);

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
    assert_stays_for(IGNORED_WATCH, async || {
        let paths = app.tree_paths().await.unwrap();
        assert!(
            !paths
                .iter()
                .any(|p| p.ends_with(".log") || p.contains("node_modules")),
            "{paths:?}"
        );
    })
    .await;
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
        json!({"request": {"sessionId": "1", "callId": "call_unknown", "decision": {"decision": "allow_once"}}}),
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

/// How many times each operation on the large project is measured.
const RUNS: usize = 7;
/// How many folders of 5,000 files the large project has (each expanded once).
const FLAT_FOLDERS: usize = 5;

#[tokio::test]
async fn a_large_repository_opens_without_freezing() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let made = Instant::now();
    let project = LargeProject::new(100, 5000, FLAT_FOLDERS);
    // A 50 MB log at the root, for the preview (which reads only its first window).
    let log = project.root.join("app.log");
    {
        use std::io::Write as _;
        let mut file = std::io::BufWriter::new(std::fs::File::create(&log).unwrap());
        let mut n = 0u64;
        while n < 50 * 1024 * 1024 {
            let line = format!("2026-01-01T00:00:00Z INFO request {n} served in 12 ms\n");
            n += line.len() as u64;
            file.write_all(line.as_bytes()).unwrap();
        }
        file.flush().unwrap();
    }
    let made = made.elapsed();
    let root = project.root.display().to_string();
    let data = crate::fixture::data_dir();
    let mut app = App::launch_with_data("large", &[&root], data.path(), true)
        .await
        .unwrap();
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
    let top = 100 + FLAT_FOLDERS + 1;
    assert_eq!(
        app.tree_paths().await.unwrap().len(),
        top,
        "pkg000..pkg099, the flat folders and app.log"
    );
    app.screenshot("large-opened").await.unwrap();
    app.quit().await.unwrap();

    // Opening the project from the welcome screen's recent list, apart from the app's launch:
    // the first time in a fresh app (its memory and inotify watches measured around it), then
    // closed and opened again.
    let mut app = App::launch_with_data("large", &[], data.path(), false)
        .await
        .unwrap();
    let recent = format!("[data-testid=recent-project][data-path='{root}']");
    app.wait_for_css(&recent).await.unwrap();
    let before = app.memory();
    let mut opens = Vec::new();
    let mut watch_starts = Vec::new();
    let mut after = None;
    let mut watches = 0;
    for run in 0..RUNS {
        if run > 0 {
            app.close_project().await.unwrap();
            app.wait_for_css(&recent).await.unwrap();
        }
        Stopwatch::arm(
            &app,
            "[data-testid=tree][data-loaded=true] [data-path]",
            Start::Click,
        )
        .await;
        let clicked = Instant::now();
        app.click(&recent).await.unwrap();
        opens.push(Stopwatch::read(&app).await);
        app.wait_for_css("[data-testid=tree][data-watching=true]")
            .await
            .unwrap();
        watch_starts.push(clicked.elapsed());
        if run == 0 {
            // Once the mention index (filled after the watcher starts) has been walked too.
            let deadline = Instant::now() + Duration::from_secs(30);
            while invoke(
                &app,
                "complete_mentions",
                json!({"request": {"query": "f000", "limit": 1}}),
            )
            .await["ok"]["ready"]
                != json!(true)
            {
                assert!(Instant::now() < deadline, "the mention index never filled");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            after = Some(app.memory());
            watches = app.inotify_watches();
        }
    }
    assert_eq!(app.tree_paths().await.unwrap().len(), top);

    // Each 5,000-file folder renders a page of rows and a "show more" row.
    let mut expansions = Vec::new();
    for folder in 0..FLAT_FOLDERS {
        let name = LargeProject::flat_name(folder);
        Stopwatch::arm(
            &app,
            &format!("[data-testid=tree] [data-path='{name}/file00499.txt']"),
            Start::Click,
        )
        .await;
        app.click(&format!("[data-testid=tree] [data-path='{name}']"))
            .await
            .unwrap();
        expansions.push(Stopwatch::read(&app).await);
        let rows = app.tree_paths().await.unwrap().len();
        assert_eq!(rows, top + 500, "one page of {name}/ is rendered");
        app.wait_for_css("[data-testid=tree] .row.more")
            .await
            .unwrap();
        if folder == 0 {
            app.screenshot("large-flat-expanded").await.unwrap();
        }
        app.click(&format!("[data-testid=tree] [data-path='{name}']"))
            .await
            .unwrap();
    }

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
    let mut deep = Vec::new();
    for run in 0..RUNS {
        let path = format!("pkg042/mod7/new{run}.rs");
        Stopwatch::arm(
            &app,
            &format!("[data-testid=tree] [data-path='{path}']"),
            Start::Outside,
        )
        .await;
        let written = SystemTime::now();
        std::fs::write(project.root.join(&path), "new").unwrap();
        deep.push(Stopwatch::read_since(&app, written).await);
    }
    app.screenshot("large-deep-change").await.unwrap();

    // The preview of a 50 MB log shows its first window at once.
    let mut previews = Vec::new();
    for _ in 0..RUNS {
        Stopwatch::arm(
            &app,
            "[data-testid=preview][data-path='app.log'][data-state=text] [data-testid=preview-text]",
            Start::Click,
        )
        .await;
        // Clicked from the page: WebDriver's pointer misses the tree's last row at the panel's
        // bottom edge.
        app.eval(
            "document.querySelector(\"[data-testid=tree] [data-path='app.log']\").click();\
             return true;",
            json!([]),
        )
        .await
        .unwrap();
        previews.push(Stopwatch::read(&app).await);
        app.click("[data-testid=preview] [data-testid=preview-close]")
            .await
            .unwrap();
    }
    let truncated = app
        .eval(
            "return document.querySelector('[data-testid=preview-text]') === null;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(truncated, json!(true), "the preview closed");

    // @-mentions: from a real key press to the list's rows for the new query (the list says
    // which query its rows answer).
    let mut mentions = Vec::new();
    for run in 0..RUNS {
        // file00000 to file04999 exist in each flat folder.
        let stem = format!("file0{}{}{}", run % 5, (run * 3) % 10, (run * 7) % 10);
        let digit = (run * 9 + 4) % 10;
        app.eval(
            "const [value] = arguments;\
             const input = document.querySelector('[data-testid=chat-input]');\
             input.focus(); input.value = value; input.setSelectionRange(value.length, value.length);\
             input.dispatchEvent(new Event('input', {bubbles: true})); return true;",
            json!([format!("@{stem}")]),
        )
        .await
        .unwrap();
        app.wait_for_css(&format!(
            "[data-testid=completion-list][data-query='{stem}'] [data-testid=completion-option]"
        ))
        .await
        .unwrap();
        let query = format!("{stem}{digit}");
        Stopwatch::arm(
            &app,
            &format!("[data-testid=completion-list][data-query='{query}'] [data-testid=completion-option]"),
            Start::Key,
        )
        .await;
        app.type_text(&digit.to_string()).await.unwrap();
        mentions.push(Stopwatch::read(&app).await);
        let found = app
            .eval(
                "return document.querySelector(arguments[0]) !== null;",
                json!([format!(
                    "[data-testid=completion-option][data-value='flat/{query}.txt']"
                )]),
            )
            .await
            .unwrap();
        assert_eq!(found, json!(true), "flat/{query}.txt is offered");
        app.press_escape().await.unwrap();
    }
    app.screenshot("large-mentions").await.unwrap();

    let (before, after) = (before, after.unwrap());
    let gantry = |memory: &crate::app::Memory| {
        memory
            .processes
            .iter()
            .filter(|(name, ..)| name == "gantry")
            .map(|(_, rss, _)| rss)
            .sum::<u64>()
    };
    report(
        "large",
        &format!(
            "large project: {} files in {} folders, and a 50 MB log (made in {})\n\
             session request -> tree rendered (the app's launch included): {}\n\
             a script round trip while the watcher starts: {}\n\
             session request -> watcher running: {}\n\
             {}\n\
             {}\n\
             {}\n\
             {}\n\
             {}\n\
             {}\n\
             the watcher on that project: {} inotify watches held by the app; the app process's \
             resident memory {} MiB on the welcome screen, {} MiB with the project open and \
             watched and its mention index filled (+{} MiB)\n",
            project.files,
            100 * 11 + FLAT_FOLDERS,
            ms(made),
            ms(shown),
            ms(ping),
            ms(watching),
            line(
                "opening it from the recent list -> first tree rows rendered",
                &opens
            ),
            line(
                "opening it from the recent list -> watcher running",
                &watch_starts
            ),
            line(
                "expanding a folder of 5,000 files -> first page rendered",
                &expansions
            ),
            line("a file created deep in the tree -> shown", &deep),
            line(
                "the preview of a 50 MB log -> first window rendered",
                &previews
            ),
            line(
                "@-mention: a key press -> its first results rendered",
                &mentions
            ),
            watches,
            gantry(&before) / 1024,
            gantry(&after) / 1024,
            gantry(&after).saturating_sub(gantry(&before)) / 1024,
        ),
    );
    // Ceilings against a frozen page, for a loaded two-core machine; the figures are above.
    assert!(
        ping < Duration::from_secs(3),
        "the page froze for {}",
        ms(ping)
    );
    for (what, samples) in [
        ("opening", &opens),
        ("expanding", &expansions),
        ("a change", &deep),
        ("the preview", &previews),
        ("a mention", &mentions),
    ] {
        let mut sorted = samples.clone();
        let (median, _) = percentiles(&mut sorted);
        assert!(
            median < Duration::from_secs(2),
            "{what} took {} at the median",
            ms(median)
        );
    }
    app.quit().await.unwrap();
}

#[tokio::test]
async fn past_the_watch_limit_open_folders_are_polled_and_the_user_is_told() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let fixture = Fixture::new();
    let data = crate::fixture::data_dir();
    // A cap of one watch behaves as the system's inotify limit does: only the root is watched.
    let mut app = App::launch_with_env(
        "watch-limit",
        &[&fixture.arg()],
        data.path(),
        true,
        &[
            ("GANTRY_WATCH_MAX_WATCHES", "1"),
            ("GANTRY_WATCH_POLL_MS", "300"),
        ],
    )
    .await
    .unwrap();
    app.wait_for_css("[data-testid=tree][data-watching=true]")
        .await
        .unwrap();
    let notice = app
        .wait_for(
            "the watch limit notice",
            "return document.querySelector('[data-testid=tree-watch-limit]')?.textContent ?? null;",
            json!([]),
        )
        .await
        .unwrap();
    let notice = notice.as_str().unwrap();
    assert!(
        notice.contains("limit of 1 watched folders (GANTRY_WATCH_MAX_WATCHES)")
            && notice.contains("3 folders are not watched"),
        "{notice}"
    );

    // src/ is open in the tree: a file made there is found by polling and shown.
    app.click("[data-testid=tree] [data-path='src']")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=tree] [data-path='src/main.rs']")
        .await
        .unwrap();
    let written = Instant::now();
    std::fs::write(fixture.root.join("src/polled.rs"), "// new\n").unwrap();
    app.wait_for_css("[data-testid=tree] [data-path='src/polled.rs']")
        .await
        .unwrap();
    let polled = written.elapsed();
    // And one removed.
    std::fs::remove_file(fixture.root.join("src/lib.rs")).unwrap();
    app.wait_for(
        "src/lib.rs gone",
        "return document.querySelector(\"[data-testid=tree] [data-path='src/lib.rs']\") === null;",
        json!([]),
    )
    .await
    .unwrap();
    // The root is still watched.
    std::fs::write(fixture.root.join("TOP.md"), "top\n").unwrap();
    app.wait_for_css("[data-testid=tree] [data-path='TOP.md']")
        .await
        .unwrap();
    app.screenshot("watch-limit").await.unwrap();
    let findings = crate::a11y::check_page(&app).await;
    assert!(
        findings.contrast.is_empty() && findings.other.is_empty(),
        "the tree with the limit notice: {findings:?}"
    );
    report(
        "watch-limit",
        &format!(
            "past a cap of 1 watch, polled every 300 ms: a file made in an open folder -> shown in {}\n",
            ms(polled)
        ),
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
    wait_for_setting(&store, "windows.open", "the size to be saved", |text| {
        text.contains("\"width\":1000")
    })
    .await;
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
