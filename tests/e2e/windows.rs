//! Several projects at once: a project opened in a new window chats beside the first one, each
//! window shows its own project and its own chat, both windows come back after a restart, and
//! the memory two windows take against one is reported.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gantry_scripted_provider::{Expect, Turn};
use serde_json::json;

use crate::app::{App, assert_stays_for, wait_for_setting};
use crate::chat::{ChatRig, assistant_says, idle, send};
use crate::fixture::Fixture;
use crate::scenarios::{invoke, report};
use crate::{SERIAL, enabled};

/// How long the windows are counted after an open that must not make one.
const NO_NEW_WINDOW: Duration = Duration::from_millis(500);

/// The folder the window driven now shows, as `launch_state` reports it.
async fn shown_folder(app: &App) -> Option<String> {
    let state = invoke(app, "launch_state", json!({})).await;
    state["ok"]["project"]["path"].as_str().map(str::to_owned)
}

/// Waits until the app has `count` windows, returning their handles.
async fn window_handles(app: &App, count: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let handles = app.session.window_handles().await.unwrap();
        if handles.len() == count {
            return handles;
        }
        assert!(
            Instant::now() < deadline,
            "expected {count} windows, have {handles:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Drives the window that shows `folder` (among `handles`).
async fn switch_to_folder(app: &App, handles: &[String], folder: &Path) {
    let wanted = std::fs::canonicalize(folder).unwrap();
    for handle in handles {
        app.session.switch_to_window(handle).await.unwrap();
        app.wait_for_css("[data-testid=project]").await.unwrap();
        if shown_folder(app).await.map(std::path::PathBuf::from) == Some(wanted.clone()) {
            return;
        }
    }
    panic!("no window shows {}", folder.display());
}

/// The names of the display's windows, as the X server has them.
fn window_names() -> Vec<String> {
    let ids = std::process::Command::new("xdotool")
        .args(["search", "--name", "."])
        .output()
        .unwrap();
    String::from_utf8_lossy(&ids.stdout)
        .lines()
        .filter_map(|id| {
            let name = std::process::Command::new("xdotool")
                .args(["getwindowname", id])
                .output()
                .ok()?;
            Some(String::from_utf8_lossy(&name.stdout).trim().to_owned())
        })
        .collect()
}

/// The folders of the windows remembered in `setting` (the app's `windows.open`), canonical.
fn remembered_folders(setting: &str) -> Vec<PathBuf> {
    serde_json::from_str::<Vec<serde_json::Value>>(setting)
        .unwrap_or_default()
        .iter()
        .filter_map(|window| std::fs::canonicalize(window["folder"].as_str()?).ok())
        .collect()
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_project_opens_in_its_own_window_both_chat_and_both_come_back() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        Turn::text("Reply in the second window.")
            .expect(Expect::new().last_contains("hello from the second window")),
        Turn::text("Reply in the first window.")
            .expect(Expect::new().last_contains("hello from the first window")),
    ])
    .await;
    let second = Fixture::new();
    let mut app = rig.launch("windows", true).await;
    let main = app.session.window_handle().await.unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let one_window = app.memory();

    // Open the second project in a new window, as the menu does (without the native picker).
    let opened = invoke(
        &app,
        "open_project_window",
        json!({"request": {"path": second.arg()}}),
    )
    .await;
    assert_eq!(opened, json!({"ok": null}), "{opened}");
    let handles = window_handles(&app, 2).await;
    let new = handles.iter().find(|h| **h != main).unwrap().clone();
    app.session.switch_to_window(&new).await.unwrap();
    app.wait_for_css("[data-testid=chat-input]").await.unwrap();
    assert_eq!(
        shown_folder(&app).await.map(std::path::PathBuf::from),
        Some(std::fs::canonicalize(&second.root).unwrap()),
        "the new window shows the second project"
    );
    send(&app, "hello from the second window").await;
    assistant_says(&app, "Reply in the second window.").await;
    idle(&app).await;
    app.screenshot("second-window").await.unwrap();

    // The first window still shows its own project, and its chat did not see the other's.
    app.session.switch_to_window(&main).await.unwrap();
    assert_eq!(
        shown_folder(&app).await.map(std::path::PathBuf::from),
        Some(std::fs::canonicalize(rig.root()).unwrap())
    );
    let foreign = app
        .eval(
            "return document.body.textContent.includes('Reply in the second window.');",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(foreign, json!(false), "the other window's chat stays there");
    send(&app, "hello from the first window").await;
    assistant_says(&app, "Reply in the first window.").await;
    idle(&app).await;
    app.screenshot("first-window").await.unwrap();

    // Opening the first project again from the second window opens nothing new.
    app.session.switch_to_window(&new).await.unwrap();
    let again = invoke(
        &app,
        "open_project_window",
        json!({"request": {"path": rig.fixture.arg()}}),
    )
    .await;
    assert_eq!(again, json!({"ok": null}), "{again}");
    assert_stays_for(NO_NEW_WINDOW, async || {
        assert_eq!(app.session.window_handles().await.unwrap().len(), 2);
    })
    .await;

    tokio::time::sleep(Duration::from_secs(3)).await;
    let two_windows = app.memory();
    report(
        "windows",
        &format!(
            "memory (PSS of the app and its WebKit processes): one window {:.1} MiB, two windows \
             {:.1} MiB: the second project's window adds {:.1} MiB ({:.2}x)",
            mib(one_window.pss_kib),
            mib(two_windows.pss_kib),
            mib(two_windows.pss_kib.saturating_sub(one_window.pss_kib)),
            two_windows.pss_kib as f64 / one_window.pss_kib.max(1) as f64
        ),
    );

    // Quit as the system does at logout (the windows are not closed one by one), once both
    // windows' folders are saved, and start again without a folder: both windows come back
    // with their projects.
    let folders =
        [rig.root(), second.root.as_path()].map(|root| std::fs::canonicalize(root).unwrap());
    wait_for_setting(
        &rig.store().await,
        "windows.open",
        "both windows to be remembered",
        |saved| {
            let saved = remembered_folders(saved);
            folders.iter().all(|folder| saved.contains(folder))
        },
    )
    .await;
    app.kill();
    let mut app = App::launch_with_data("windows", &[], rig.data.path(), false)
        .await
        .unwrap();
    let handles = window_handles(&app, 2).await;
    switch_to_folder(&app, &handles, &second.root).await;
    switch_to_folder(&app, &handles, rig.root()).await;
    app.screenshot("restored").await.unwrap();
    // Each window is named after its project (both fixtures' folders are called "project").
    let names = window_names();
    assert_eq!(
        names
            .iter()
            .filter(|name| *name == "project — Gantry")
            .count(),
        2,
        "two windows titled after their project: {names:?}"
    );
    app.quit().await.unwrap();
    rig.verify();
}
