//! One run of the real app under WebKitWebDriver: launch, wait for states, screenshot, measure.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

use crate::webdriver::{Element, Key, Session};

/// How long a state may take to appear before the test fails.
pub const STATE_TIMEOUT: Duration = Duration::from_secs(20);

/// How often a waited-for or watched state is looked at.
const POLL: Duration = Duration::from_millis(25);

/// Runs `check` (which asserts) over and over for all of `window`: something that must not
/// happen is watched for that long, and the scenario fails as soon as it does.
pub async fn assert_stays_for(window: Duration, mut check: impl AsyncFnMut()) {
    let end = Instant::now() + window;
    check().await;
    while Instant::now() < end {
        tokio::time::sleep(POLL).await;
        check().await;
    }
}

/// Waits until the setting `name` in `store` (the database the app writes) passes `check`,
/// and returns it; `what` names the wait in the timeout's message.
pub async fn wait_for_setting(
    store: &gantry_store::Store,
    name: &str,
    what: &str,
    check: impl Fn(&str) -> bool,
) -> String {
    let deadline = Instant::now() + STATE_TIMEOUT;
    loop {
        let saved = store.settings().get(name).await.unwrap();
        if let Some(text) = saved.as_deref().filter(|text| check(text)) {
            return text.to_owned();
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what} (setting {name}: {saved:?})"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// The app under test, driven through a WebDriver session.
pub struct App {
    pub session: Session,
    driver: Child,
    /// The app's data folder when the scenario did not give one (removed at the end).
    _own_data: Option<tempfile::TempDir>,
    shots: PathBuf,
    step: u32,
    /// When the session was requested (the driver starts the app then).
    pub launched: Instant,
}

/// Where screenshots go: `tests/screenshots/<scenario>/`.
pub fn screenshot_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/screenshots")
}

/// How long taking a picture of the display may take.
const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(30);

/// A PNG of the whole X `display` (the virtual one the suite runs in), as its server has it.
///
/// Taken from the X server rather than through WebDriver: WebKitWebDriver's screenshot asks
/// the web process for a snapshot of the page, which never came back when the page paints
/// without compositing (the default on a machine without a GPU); the X server's picture is what
/// a user sees, whichever way WebKit paints.
async fn screenshot_of_display(display: &std::ffi::OsStr) -> Result<Vec<u8>> {
    let capture = tokio::process::Command::new("import")
        .args(["-display"])
        .arg(display)
        .args(["-window", "root", "png:-"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(SCREENSHOT_TIMEOUT, capture)
        .await
        .context("the display's screenshot (ImageMagick's import) took over 30 s")?
        .context("running ImageMagick's import (Debian package imagemagick)")?;
    if !output.status.success() || output.stdout.is_empty() {
        bail!(
            "import could not take the display's picture: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(output.stdout)
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl App {
    /// Starts WebKitWebDriver and, through it, `gantry ARGS...` with browser automation on, with
    /// a fresh data folder of its own (an empty database, no MCP configuration).
    pub async fn launch(scenario: &str, args: &[&str]) -> Result<Self> {
        let data = crate::fixture::data_dir();
        let mut app = Self::launch_with_data(scenario, args, data.path(), true).await?;
        app._own_data = Some(data);
        Ok(app)
    }

    /// Like [`Self::launch`], with Gantry's database in `data` (`GANTRY_DATA_DIR`) and its user
    /// configuration under `data/config` (`XDG_CONFIG_HOME`), so a scenario can prepare the
    /// database, restart the app on it, and read it afterwards. `fresh_shots` empties the
    /// scenario's screenshot folder (the first launch of a scenario).
    pub async fn launch_with_data(
        scenario: &str,
        args: &[&str],
        data: &Path,
        fresh_shots: bool,
    ) -> Result<Self> {
        Self::launch_with_env(scenario, args, data, fresh_shots, &[]).await
    }

    /// Like [`Self::launch_with_data`], with extra environment variables for the app (e.g. the
    /// system language). By default the app runs in English (`LANG=en_US.UTF-8`) whatever the
    /// machine's locale, and its webview keeps its own storage under `data/share`, so a
    /// language chosen in one scenario does not leak into the next.
    pub async fn launch_with_env(
        scenario: &str,
        args: &[&str],
        data: &Path,
        fresh_shots: bool,
        env: &[(&str, &str)],
    ) -> Result<Self> {
        let shots = screenshot_root().join(scenario);
        if fresh_shots {
            let _ = std::fs::remove_dir_all(&shots);
        }
        std::fs::create_dir_all(&shots)?;
        let step = std::fs::read_dir(&shots)?.count() as u32;
        let config = data.join("config");
        std::fs::create_dir_all(&config)?;
        // GANTRY_E2E_APP runs a scenario against another build of the app (the release
        // binary, to measure it as users run it); by default, the one cargo built for the test.
        let binary = std::env::var_os("GANTRY_E2E_APP").map_or_else(
            || PathBuf::from(env!("CARGO_BIN_EXE_gantry")),
            PathBuf::from,
        );
        let mut last_error = None;
        // A port picked free can be taken before the driver binds it; try a few.
        for _ in 0..3 {
            let port = free_port()?;
            let mut command = Command::new("WebKitWebDriver");
            command
                .arg(format!("--port={port}"))
                .arg("--host=127.0.0.1")
                .env("TAURI_WEBVIEW_AUTOMATION", "true")
                .env("GANTRY_WATCH_DEBOUNCE_MS", "50")
                .env("GANTRY_DATA_DIR", data)
                .env("XDG_CONFIG_HOME", &config)
                .env("XDG_DATA_HOME", data.join("share"))
                .env("LANG", "en_US.UTF-8")
                .env("LANGUAGE", "en_US:en")
                // No local model server is looked for at the machine's real ports; a scenario
                // that wants one names its address.
                .env("GANTRY_LOCAL_SERVERS", "")
                .envs(env.iter().copied())
                .stdout(Stdio::null())
                .stderr(Stdio::inherit());
            // Its own process group, so the app and WebKit's helpers go with it at the end.
            std::os::unix::process::CommandExt::process_group(&mut command, 0);
            let mut driver = command
                .spawn()
                .context("starting WebKitWebDriver (Debian package webkit2gtk-driver)")?;
            let base = format!("http://127.0.0.1:{port}");
            wait_for_driver(&base, &mut driver).await?;
            let launched = Instant::now();
            let capabilities = json!({
                "webkitgtk:browserOptions": {"binary": binary, "args": args},
            });
            match Session::create(&base, capabilities).await {
                Ok(session) => {
                    return Ok(Self {
                        session,
                        driver,
                        _own_data: None,
                        shots,
                        step,
                        launched,
                    });
                }
                Err(error) => {
                    kill_group(&mut driver);
                    last_error = Some(error);
                }
            }
        }
        Err(last_error.unwrap_or_else(|| anyhow!("could not start a session")))
    }

    /// Polls `script` (a function body returning a value) until it returns something truthy, and
    /// returns that value.
    pub async fn wait_for(&self, what: &str, script: &str, args: Value) -> Result<Value> {
        let deadline = Instant::now() + STATE_TIMEOUT;
        let mut last;
        loop {
            match self.session.execute(script, args.clone()).await {
                Ok(value) if truthy(&value) => return Ok(value),
                Ok(value) => last = value,
                Err(error) => last = Value::String(error.to_string()),
            }
            if Instant::now() > deadline {
                bail!("timed out waiting for {what} (last result: {last})");
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits until `css` matches an element.
    pub async fn wait_for_css(&self, css: &str) -> Result<()> {
        self.wait_for(
            css,
            "return document.querySelector(arguments[0]) !== null;",
            json!([css]),
        )
        .await
        .map(drop)
    }

    /// The element matching `css` (waiting for it).
    pub async fn element(&self, css: &str) -> Result<Element> {
        self.wait_for_css(css).await?;
        self.session
            .find(css)
            .await?
            .ok_or_else(|| anyhow!("{css} vanished"))
    }

    /// Clicks the element matching `css`.
    pub async fn click(&self, css: &str) -> Result<()> {
        let element = self.element(css).await?;
        self.session.click(&element).await
    }

    /// Types `text` into the element matching `css`, key by key.
    pub async fn type_into(&self, css: &str, text: &str) -> Result<()> {
        let element = self.element(css).await?;
        self.session.send_keys(&element, text).await
    }

    /// Puts `text` in the field matching `css` as typing would (focused, its value set, an
    /// `input` event), in one step.
    pub async fn fill(&self, css: &str, text: &str) -> Result<()> {
        self.element(css).await?;
        self.eval(
            "const field = document.querySelector(arguments[0]);\
             field.focus();\
             field.value = arguments[1];\
             field.dispatchEvent(new Event('input', {bubbles: true}));",
            json!([css, text]),
        )
        .await
        .map(drop)
    }

    /// CPU time used so far by the app and its WebKit processes, in seconds.
    pub fn cpu_seconds(&self) -> f64 {
        self.processes()
            .into_iter()
            .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
            .filter_map(|stat| {
                // utime and stime are fields 14 and 15; the name in parentheses may hold spaces.
                let rest = &stat[stat.rfind(')')? + 2..];
                let fields: Vec<&str> = rest.split_whitespace().collect();
                let ticks =
                    fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
                Some(ticks as f64 / 100.0)
            })
            .sum()
    }

    /// Closes the open project and opens the recent project `arg` (its path as the welcome
    /// screen lists it) from the welcome screen, waiting for its chat.
    pub async fn switch_to_recent(&self, arg: &str) -> Result<()> {
        self.close_project().await?;
        self.click(&format!("[data-testid=recent-project][data-path='{arg}']"))
            .await?;
        self.wait_for_css("[data-testid=chat-input]").await
    }

    /// Closes the open project with the title bar's menu (Close project is in it).
    pub async fn close_project(&self) -> Result<()> {
        self.click("[data-testid=project-menu]").await?;
        self.click("[data-testid=project-close]").await
    }

    /// Presses Esc on the keyboard (a real key press where the focus is).
    pub async fn press_escape(&self) -> Result<()> {
        self.press(&[Key::ESCAPE]).await
    }

    /// Presses `keys` one after the other on the keyboard (see [`Key`]).
    pub async fn press(&self, keys: &[&str]) -> Result<()> {
        self.session.press_keys(keys, None).await
    }

    /// Presses `keys` with Shift held.
    pub async fn press_shifted(&self, keys: &[&str]) -> Result<()> {
        self.session.press_keys(keys, Some(Key::SHIFT)).await
    }

    /// Types `text` on the keyboard, character by character.
    pub async fn type_text(&self, text: &str) -> Result<()> {
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let keys: Vec<&str> = chars.iter().map(String::as_str).collect();
        self.session.press_keys(&keys, None).await
    }

    /// What has the focus: its `data-testid`, else its tag name and text.
    pub async fn focused(&self) -> Result<String> {
        let value = self
            .eval(
                "const e = document.activeElement;\
                 return e?.dataset?.testid ?? `${e?.tagName ?? ''}:${(e?.textContent ?? '').trim()}`;",
                json!([]),
            )
            .await?;
        Ok(value.as_str().unwrap_or_default().to_owned())
    }

    /// Presses Tab until the element with `data-testid=test_id` has the focus (at most `limit`
    /// presses), as a keyboard user reaches a control.
    pub async fn tab_to(&self, test_id: &str, limit: usize) -> Result<usize> {
        for presses in 0..=limit {
            if self.focused().await? == test_id {
                return Ok(presses);
            }
            self.press(&[Key::TAB]).await?;
        }
        bail!(
            "{test_id} not reached in {limit} presses of Tab (focus: {})",
            self.focused().await?
        )
    }

    /// Closes the panel `[data-testid=PANEL]` with Esc and waits until it is gone.
    pub async fn close_with_escape(&self, panel: &str) -> Result<()> {
        self.press_escape().await?;
        self.wait_for(
            &format!("the {panel} to close"),
            "return !document.querySelector(`[data-testid=${arguments[0]}]`);",
            json!([panel]),
        )
        .await
        .map(drop)
    }

    /// Runs a script and returns its value.
    pub async fn eval(&self, script: &str, args: Value) -> Result<Value> {
        self.session.execute(script, args).await
    }

    /// The project-relative paths of the tree's rows, in order.
    pub async fn tree_paths(&self) -> Result<Vec<String>> {
        let value = self
            .eval(
                "return [...document.querySelectorAll('[data-testid=tree] [data-path]')].map(e => e.dataset.path);",
                json!([]),
            )
            .await?;
        Ok(serde_json::from_value(value)?)
    }

    /// Saves a screenshot of the current state, after two frames have been painted (so the
    /// picture shows the state just waited for, not the frame before it).
    pub async fn screenshot(&mut self, label: &str) -> Result<PathBuf> {
        self.session
            .execute_async(
                "const done = arguments[arguments.length - 1];\
                 requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
                json!([]),
            )
            .await?;
        let png = match std::env::var_os("DISPLAY") {
            Some(display) => screenshot_of_display(&display).await?,
            None => self.session.screenshot().await?,
        };
        self.step += 1;
        let path = self.shots.join(format!("{:02}-{label}.png", self.step));
        std::fs::write(&path, png)?;
        Ok(path)
    }

    /// The app's process and its WebKit helpers (every descendant of the driver but the driver).
    pub fn processes(&self) -> Vec<u32> {
        let driver = self.driver.id();
        let mut found = Vec::new();
        let mut frontier = vec![driver];
        while let Some(parent) = frontier.pop() {
            for child in children_of(parent) {
                found.push(child);
                frontier.push(child);
            }
        }
        found
    }

    /// Sums resident (RSS) and proportional (PSS) memory of the app's processes, in KiB, with
    /// each process's name and figures.
    pub fn memory(&self) -> Memory {
        let mut memory = Memory::default();
        for pid in self.processes() {
            let Ok(rollup) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) else {
                continue;
            };
            let field = |name: &str| {
                rollup
                    .lines()
                    .find(|line| line.starts_with(name))
                    .and_then(|line| line.split_whitespace().nth(1))
                    .and_then(|kib| kib.parse::<u64>().ok())
                    .unwrap_or(0)
            };
            let name = std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .unwrap_or_default()
                .trim()
                .to_owned();
            let (rss, pss) = (field("Rss:"), field("Pss:"));
            memory.rss_kib += rss;
            memory.pss_kib += pss;
            memory.processes.push((name, rss, pss));
        }
        memory
    }

    /// The inotify watches the app's own process holds (one `inotify wd:` line each in the
    /// fdinfo of its inotify descriptors).
    pub fn inotify_watches(&self) -> usize {
        self.processes()
            .into_iter()
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|name| name.trim() == "gantry")
            })
            .filter_map(|pid| std::fs::read_dir(format!("/proc/{pid}/fdinfo")).ok())
            .flat_map(|fds| fds.flatten())
            .filter_map(|fd| std::fs::read_to_string(fd.path()).ok())
            .map(|info| {
                info.lines()
                    .filter(|line| line.starts_with("inotify wd:"))
                    .count()
            })
            .sum()
    }

    /// Ends the session and the driver.
    /// Ends the app and its driver at once, the way the system ends it at logout: no window
    /// is closed first.
    pub fn kill(mut self) {
        kill_group(&mut self.driver);
    }

    pub async fn quit(mut self) -> Result<()> {
        let result = self.session.delete().await;
        kill_group(&mut self.driver);
        result
    }
}

impl Drop for App {
    fn drop(&mut self) {
        kill_group(&mut self.driver);
    }
}

/// Memory of the app's processes.
#[derive(Debug, Default)]
pub struct Memory {
    pub rss_kib: u64,
    pub pss_kib: u64,
    /// (name, RSS KiB, PSS KiB) per process.
    pub processes: Vec<(String, u64, u64)>,
}

fn truthy(value: &Value) -> bool {
    !matches!(value, Value::Null | Value::Bool(false))
        && value.as_str() != Some("")
        && value.as_f64() != Some(0.0)
}

async fn wait_for_driver(base: &str, driver: &mut Child) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let http = reqwest::Client::new();
    loop {
        if let Ok(response) = http.get(format!("{base}/status")).send().await
            && response.status().is_success()
        {
            return Ok(());
        }
        if let Some(status) = driver.try_wait()? {
            bail!("WebKitWebDriver exited at start: {status}");
        }
        if Instant::now() > deadline {
            bail!("WebKitWebDriver did not answer on {base}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    // The command name in parentheses may hold spaces; fields follow the last ')'.
                    let rest = &stat[stat.rfind(')')? + 2..];
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// Ends the driver's process group (the driver, the app, WebKit's helpers): politely, then not.
fn kill_group(driver: &mut Child) {
    let group = format!("-{}", driver.id());
    let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        if driver.try_wait().ok().flatten().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
    let _ = driver.wait();
}
