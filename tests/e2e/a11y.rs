//! Accessibility in the real window: axe-core (the npm package, a dev dependency of ui/) runs
//! inside the page on each main state of the app, in the light and the dark theme (GTK's setting,
//! as a user's system gives it) and in English and Chinese, and must find no colour-contrast
//! violation; no text is under 12 px, no button clips its label, no heading is uppercased.
//! Screenshots of every state go to `tests/screenshots/a11y-<theme>-<language>/`, the counts to
//! its `metrics.txt`.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

use gantry_scripted_provider::{Expect, ToolCall, Turn};
use serde_json::json;

use crate::app::App;
use crate::chat::{ChatRig, after_tool, assistant_says, card, idle, send};
use crate::scenarios::report;
use crate::{SERIAL, enabled};

/// The colour scheme the system asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Theme {
    Light,
    Dark,
}

impl Theme {
    fn name(self) -> &'static str {
        match self {
            Self::Light => "light",
            Self::Dark => "dark",
        }
    }
}

/// The UI's language, as the system's locale gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    English,
    Chinese,
}

impl Language {
    fn name(self) -> &'static str {
        match self {
            Self::English => "en",
            Self::Chinese => "zh",
        }
    }

    fn env(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Self::English => &[("LANG", "en_US.UTF-8"), ("LANGUAGE", "en_US:en")],
            Self::Chinese => &[("LANG", "zh_CN.UTF-8"), ("LANGUAGE", "zh_CN:zh")],
        }
    }
}

/// Makes GTK (and so WebKitGTK's `prefers-color-scheme`) prefer `theme` for an app whose
/// configuration folder is `data/config` (`XDG_CONFIG_HOME`, see `App::launch_with_env`).
pub(crate) fn prefer_theme(data: &Path, theme: Theme) {
    let folder = data.join("config/gtk-3.0");
    std::fs::create_dir_all(&folder).unwrap();
    let dark = u8::from(theme == Theme::Dark);
    std::fs::write(
        folder.join("settings.ini"),
        format!("[Settings]\ngtk-application-prefer-dark-theme={dark}\n"),
    )
    .unwrap();
}

/// axe-core's source, read once from ui/node_modules (`npm ci` in ui/ installs it).
fn axe_source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(|| {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/node_modules/axe-core/axe.min.js");
        std::fs::read_to_string(&path).unwrap_or_else(|error| {
            panic!(
                "{}: {error}: run `npm ci` in ui/ (scripts/test-all does)",
                path.display()
            )
        })
    })
}

/// What the checks found in one state.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    /// axe's color-contrast violations: (target, summary).
    pub contrast: Vec<String>,
    /// axe's other WCAG A/AA violations, by rule id, with the nodes.
    pub other: Vec<(String, Vec<String>)>,
    /// Text under 12 px.
    pub small_text: Vec<String>,
    /// Buttons whose label does not fit.
    pub clipped: Vec<String>,
    /// Headings uppercased or letter-spaced.
    pub shouting: Vec<String>,
}

/// Runs axe-core (WCAG 2 A/AA rules) in the page and the app's own checks of type and layout.
pub(crate) async fn check_page(app: &App) -> Findings {
    let loaded = app
        .eval("return typeof window.axe === 'object';", json!([]))
        .await
        .unwrap();
    if loaded != json!(true) {
        // Run as a WebDriver script, which the page's content security policy does not limit.
        app.eval(&format!("{}\nreturn true;", axe_source()), json!([]))
            .await
            .unwrap();
    }
    let result = app
        .session
        .execute_async(
            "const done = arguments[arguments.length - 1];\
             axe.run(document, {resultTypes: ['violations'], runOnly: {type: 'tag',\
               values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']}})\
               .then(r => done({violations: r.violations.map(v => ({id: v.id,\
                 nodes: v.nodes.map(n => n.target.join(' ') + ': ' + (n.failureSummary ?? '').replace(/\\s+/g, ' '))}))}),\
                 e => done({error: String(e)}));",
            json!([]),
        )
        .await
        .unwrap();
    assert!(result.get("error").is_none(), "axe failed: {result}");
    let mut findings = Findings::default();
    for violation in result["violations"].as_array().unwrap() {
        let id = violation["id"].as_str().unwrap().to_owned();
        let nodes: Vec<String> = serde_json::from_value(violation["nodes"].clone()).unwrap();
        if id == "color-contrast" {
            findings.contrast.extend(nodes);
        } else {
            findings.other.push((id, nodes));
        }
    }
    let own = app
        .eval(
            "const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';\
             const small = [];\
             const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);\
             while (walker.nextNode()) {\
               const node = walker.currentNode; const parent = node.parentElement;\
               if (!parent || node.textContent.trim() === '' || !shown(parent)) continue;\
               const size = parseFloat(getComputedStyle(parent).fontSize);\
               if (size < 12) small.push(`${parent.tagName.toLowerCase()}.${parent.className}: ${size}px ${node.textContent.trim().slice(0, 40)}`);\
             }\
             const clipped = [...document.querySelectorAll('button')].filter(b => shown(b)\
               && getComputedStyle(b).textOverflow !== 'ellipsis'\
               && (b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1))\
               .map(b => `${b.dataset.testid ?? ''} ${b.textContent.trim().slice(0, 40)} (${b.scrollWidth}x${b.scrollHeight} in ${b.clientWidth}x${b.clientHeight})`);\
             const shouting = [...document.querySelectorAll('h1, h2, h3, h4')].filter(h => shown(h)\
               && (getComputedStyle(h).textTransform === 'uppercase' || !['normal', '0px'].includes(getComputedStyle(h).letterSpacing)))\
               .map(h => h.textContent.trim().slice(0, 40));\
             return {small, clipped, shouting};",
            json!([]),
        )
        .await
        .unwrap();
    findings.small_text = serde_json::from_value(own["small"].clone()).unwrap();
    findings.clipped = serde_json::from_value(own["clipped"].clone()).unwrap();
    findings.shouting = serde_json::from_value(own["shouting"].clone()).unwrap();
    findings
}

/// One tour's record: each state's findings, written to the metrics file at the end.
struct Tour {
    scenario: String,
    lines: String,
    failures: Vec<String>,
}

impl Tour {
    /// Screenshots the state `label`, checks it, and records what was found.
    async fn state(&mut self, app: &mut App, label: &str) {
        let shot = app.screenshot(label).await.unwrap();
        let found = check_page(app).await;
        let other: Vec<String> = found
            .other
            .iter()
            .map(|(id, nodes)| format!("{id} ×{}", nodes.len()))
            .collect();
        let _ = writeln!(
            self.lines,
            "{label:<22} contrast violations: {}  small text: {}  clipped buttons: {}  other axe: [{}]  ({})",
            found.contrast.len(),
            found.small_text.len(),
            found.clipped.len(),
            other.join(", "),
            shot.file_name().unwrap().to_string_lossy(),
        );
        for (id, nodes) in &found.other {
            for node in nodes {
                self.failures.push(format!("{label}: axe {id}: {node}"));
            }
        }
        for (kind, list) in [
            ("contrast", &found.contrast),
            ("small text", &found.small_text),
            ("clipped", &found.clipped),
            ("uppercase heading", &found.shouting),
        ] {
            for item in list {
                self.failures.push(format!("{label}: {kind}: {item}"));
            }
        }
    }
}

/// The model's side of the tour: a write (approved), a question (answered), a read, a search
/// and a command with a right-to-left override in it (asked, denied), then an answer.
fn tour_turns() -> Vec<Turn> {
    vec![
        Turn::tool_calls(vec![ToolCall::new(
            "call_w",
            "write_file",
            json!({"path": "notes/tour.md", "content": "# Tour\n\nOne line.\nAnother line.\n"}),
        )])
        .expect(Expect::new().last_contains("tour")),
        Turn::tool_calls(vec![ToolCall::new(
            "call_q",
            "ask_user",
            json!({"question": "Which **format** should the notes use?", "options": ["Markdown", "Plain text"]}),
        )])
        .expect(after_tool("call_w")),
        Turn::tool_calls(vec![
            ToolCall::new("call_read", "read_file", json!({"path": "README.md"})),
            ToolCall::new(
                "call_grep",
                "grep_search",
                json!({"pattern": "Demo"}),
            ),
            ToolCall::new(
                "call_run",
                "run_command",
                json!({"command": format!(
                    "echo tour \u{202e}txt.exe; ls -la notes && cat notes/tour.md | wc -l; echo {}",
                    "a-long-argument-that-hides-the-end-of-the-line-".repeat(4)
                )}),
            ),
        ])
        .expect(after_tool("call_q")),
        Turn::text("Done: I wrote `notes/tour.md`. The command was **denied**, so I left it.")
            .expect(after_tool("call_run").last_contains("[denied]")),
    ]
}

/// Opens a panel with its title-bar button and waits for `ready` in it.
async fn open_panel(app: &App, button: &str, ready: &str) {
    app.click(&format!("[data-testid={button}]")).await.unwrap();
    app.wait_for_css(ready).await.unwrap();
}

/// Every main state of the app in one theme and one language, checked and photographed.
async fn tour(theme: Theme, language: Language) {
    let scenario = format!("a11y-{}-{}", theme.name(), language.name());
    let rig = ChatRig::new(tour_turns()).await;
    prefer_theme(rig.data.path(), theme);
    let arg = rig.fixture.arg();
    let mut app = App::launch_with_env(
        &scenario,
        &[arg.as_str()],
        rig.data.path(),
        true,
        language.env(),
    )
    .await
    .unwrap();
    app.wait_for_css("[data-testid=tree][data-loaded=true] [data-path]")
        .await
        .unwrap();
    let scheme = app
        .eval(
            "return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(
        scheme,
        theme.name(),
        "the window follows GTK's theme setting"
    );
    let lang = app
        .eval("return document.documentElement.lang;", json!([]))
        .await
        .unwrap();
    assert_eq!(
        lang,
        if language == Language::Chinese {
            "zh-CN"
        } else {
            "en"
        }
    );
    let mut tour = Tour {
        scenario: scenario.clone(),
        lines: String::new(),
        failures: Vec::new(),
    };

    // 0. The checker finds what it must: a grey on grey line is a contrast violation.
    app.eval(
        "const probe = document.createElement('p'); probe.id = 'a11y-probe';\
         probe.textContent = 'grey on grey'; probe.style.cssText = 'color: #777; background: #888';\
         document.body.append(probe);",
        json!([]),
    )
    .await
    .unwrap();
    let probe = check_page(&app).await;
    assert!(
        probe
            .contrast
            .iter()
            .any(|node| node.contains("#a11y-probe")),
        "axe must flag the probe: {probe:?}"
    );
    app.eval("document.getElementById('a11y-probe').remove();", json!([]))
        .await
        .unwrap();

    // 1. The project view.
    tour.state(&mut app, "project").await;

    // 2. The Tools panel, with the DANGEROUS confirm open (turning run_command on to Ask).
    open_panel(
        &app,
        "tools-open",
        "[data-testid=tool-policy][data-tool=run_command]",
    )
    .await;
    app.click("[data-testid=tool-policy][data-tool=run_command] [data-policy=ask]")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=dangerous-confirm][data-tool=run_command]")
        .await
        .unwrap();
    tour.state(&mut app, "tools-dangerous-confirm").await;
    app.click("[data-testid=dangerous-confirm-yes]")
        .await
        .unwrap();
    app.wait_for_css(
        "[data-testid=tool-policy][data-tool=run_command] [data-policy=ask][aria-pressed=true]",
    )
    .await
    .unwrap();
    tour.state(&mut app, "tools").await;
    app.close_with_escape("tools-panel").await.unwrap();

    // 3. The chat: an approval with a diff, a question, an approval of a command.
    send(&app, "take the tour").await;
    app.wait_for_css("[data-testid=approval-dialog][data-armed=true]")
        .await
        .unwrap();
    tour.state(&mut app, "approval-diff").await;
    app.click("[data-testid=allow-once]").await.unwrap();
    app.wait_for_css("[data-testid=question-dialog]")
        .await
        .unwrap();
    tour.state(&mut app, "question").await;
    app.eval(
        "[...document.querySelectorAll('[data-testid=question-dialog] .options button')][0].click();",
        json!([]),
    )
    .await
    .unwrap();
    app.wait_for_css(
        "[data-testid=approval-dialog][data-armed=true] [data-testid=approval-command]",
    )
    .await
    .unwrap();
    let command = app
        .eval(
            "return document.querySelector('[data-testid=approval-command]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(
        command.as_str().unwrap().contains("\\u{202e}")
            && !command.as_str().unwrap().contains('\u{202e}'),
        "the right-to-left override is shown, not applied: {command}"
    );
    let wrapped = app
        .eval(
            "const pre = document.querySelector('[data-testid=approval-command]');\
             return pre.scrollWidth <= pre.clientWidth + 1 && pre.getClientRects().length > 0;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(
        wrapped, true,
        "a long command wraps: nothing hides past the edge"
    );
    tour.state(&mut app, "approval-command").await;
    app.click("[data-testid=deny]").await.unwrap();
    assistant_says(&app, "notes/tour.md").await;
    idle(&app).await;
    card(&app, "run_command", "denied").await;

    // 4. The chat with its tool cards, one of them open.
    app.click("[data-testid=tool-card][data-tool=write_file] [data-testid=tool-line]")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=tool-card][data-tool=write_file] [data-testid=tool-details]")
        .await
        .unwrap();
    tour.state(&mut app, "chat-tool-cards").await;

    // 5. Settings, the MCP servers, the audit log (one row open).
    open_panel(&app, "settings-open", "[data-testid=settings-dialog]").await;
    tour.state(&mut app, "settings").await;
    app.close_with_escape("settings-dialog").await.unwrap();
    open_panel(&app, "mcp-open", "[data-testid=mcp-empty]").await;
    tour.state(&mut app, "mcp").await;
    app.close_with_escape("mcp-panel").await.unwrap();
    open_panel(&app, "audit-open", "[data-testid=audit-row]").await;
    app.click("[data-testid=audit-row] summary").await.unwrap();
    let logged = app
        .eval(
            "return document.querySelector('[data-testid=audit-arguments]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(
        logged.as_str().unwrap().contains("\\u{202e}")
            && !logged.as_str().unwrap().contains('\u{202e}'),
        "the audit log shows the override too: {logged}"
    );
    tour.state(&mut app, "audit").await;
    app.close_with_escape("audit-view").await.unwrap();

    // 6. The title bar's menu, open.
    app.click("[data-testid=project-menu]").await.unwrap();
    app.wait_for_css("[data-testid=project-close]")
        .await
        .unwrap();
    tour.state(&mut app, "project-menu").await;
    app.press_escape().await.unwrap();

    report(&tour.scenario, &tour.lines);
    rig.verify();
    app.quit().await.unwrap();
    assert!(
        tour.failures.is_empty(),
        "{} problems:\n{}",
        tour.failures.len(),
        tour.failures.join("\n")
    );
}

#[tokio::test]
async fn every_main_state_reads_in_the_light_theme_in_english() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    tour(Theme::Light, Language::English).await;
}

#[tokio::test]
async fn every_main_state_reads_in_the_dark_theme_in_english() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    tour(Theme::Dark, Language::English).await;
}

#[tokio::test]
async fn every_main_state_reads_in_the_light_theme_in_chinese() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    tour(Theme::Light, Language::Chinese).await;
}

#[tokio::test]
async fn every_main_state_reads_in_the_dark_theme_in_chinese() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    tour(Theme::Dark, Language::Chinese).await;
}
