//! The system prompt.
//!
//! The model needs to know where it is (Gantry, the project root, the OS, today's date) and,
//! above all, how to read tool results: a call can fail, be denied by the user or be disabled by
//! the project, and each needs a different reaction. Without being told, models tend to retry a
//! denied call verbatim. The prefixes named here are the ones the tool system writes
//! (`[error]`, `[denied]`, `[disabled]`, `[cancelled]`).
//!
//! A project can add its own instructions in `AGENTS.md` at its root (the convention shared by
//! several coding agents). The file is read for every turn, so edits apply at once, and capped
//! at [`MAX_PROJECT_INSTRUCTIONS_CHARS`] characters so a huge file can't crowd out the work.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use gantry_tools::text::excerpt;

/// The file whose contents are added to the system prompt, at the project root.
pub const PROJECT_INSTRUCTIONS_FILE: &str = "AGENTS.md";

/// The most characters of `AGENTS.md` used.
pub const MAX_PROJECT_INSTRUCTIONS_CHARS: usize = 20_000;

/// What the system prompt is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptContext {
    /// The project folder (canonical).
    pub root: String,
    /// The operating system and architecture (`linux x86_64`).
    pub os: String,
    /// Today's date, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// The project's own instructions (`AGENTS.md`), when present.
    pub project_instructions: Option<String>,
    /// The catalog of the project's Agent Skills (`<available_skills>`, see
    /// [`gantry_tools::skills::catalog_text`]), set by the turn once it knows the window.
    pub skills: Option<String>,
}

impl PromptContext {
    /// The context for the project at `root` now, reading `AGENTS.md` if `instructions` is set.
    pub async fn gather(root: &Path, instructions: bool) -> Self {
        let project_instructions = if instructions {
            read_project_instructions(root).await
        } else {
            None
        };
        Self {
            root: root.display().to_string(),
            os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
            date: today_utc(),
            project_instructions,
            skills: None,
        }
    }
}

/// The contents of `AGENTS.md` at `root` (invalid UTF-8 shown lossily), trimmed and capped;
/// `None` when absent, empty, or not a regular file inside the project. The file is resolved like any tool path (a
/// symlink to a file outside the project — a planted `AGENTS.md -> ~/.aws/credentials` — is
/// ignored, since its text would go to the provider with no one approving it), must be a
/// regular file (a FIFO or a device would block or never end), and at most a bounded prefix is
/// read.
pub async fn read_project_instructions(root: &Path) -> Option<String> {
    let root = root.to_owned();
    tokio::task::spawn_blocking(move || read_instructions_blocking(&root))
        .await
        .ok()
        .flatten()
}

fn read_instructions_blocking(root: &Path) -> Option<String> {
    use std::io::Read;

    let project = gantry_tools::ProjectRoot::new(root).ok()?;
    let resolved = project.resolve(PROJECT_INSTRUCTIONS_FILE).ok()?;
    // Checked before opening: opening a FIFO blocks until someone writes to it.
    if !std::fs::metadata(resolved.path()).ok()?.is_file() {
        return None;
    }
    let file = std::fs::File::open(resolved.path()).ok()?;
    // Four bytes per character is enough for the cap, plus one character to know it was cut.
    let limit = u64::try_from((MAX_PROJECT_INSTRUCTIONS_CHARS + 1) * 4).unwrap_or(u64::MAX);
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim();
    (!text.is_empty()).then(|| excerpt(text, MAX_PROJECT_INSTRUCTIONS_CHARS))
}

/// The system prompt for `context`.
pub fn system_prompt(context: &PromptContext) -> String {
    let mut prompt = format!(
        "You are Gantry, a coding agent working on the user's computer, in one project folder.\n\
         \n\
         Project root: {root}\n\
         Operating system: {os}\n\
         Today's date: {date}\n\
         \n\
         How to work:\n\
         - You act on the project only through the tools you are given. Paths are relative to the \
         project root; you cannot reach files outside it.\n\
         - Look before you change: read the relevant files first, make focused edits, and check \
         your work when a tool lets you.\n\
         - Calls that change files or run commands may need the user's approval; the user sees \
         each such call before it runs.\n\
         - When you are done, answer briefly: what you did, what you found, what is left.\n\
         \n\
         How tools report back (every call gets exactly one result):\n\
         - A result starting with [error] means the call failed or its arguments were wrong; the \
         rest says why. Fix the arguments or take another approach; don't repeat the same call \
         unchanged.\n\
         - [denied] means the user refused this call (a reason may follow). Don't retry it; take \
         another approach or ask the user what they want.\n\
         - [disabled] means the tool is turned off for this project. Don't call it again; work \
         without it, or tell the user it would need to be enabled.\n\
         - [cancelled] means the call was stopped before it finished; it may not have run.\n\
         - Anything else is the tool's output.\n",
        root = context.root,
        os = context.os,
        date = context.date,
    );
    if let Some(instructions) = &context.project_instructions {
        prompt.push_str(&format!(
            "\nProject instructions (from {PROJECT_INSTRUCTIONS_FILE} at the project root; follow \
             them unless the user says otherwise):\n\n{instructions}\n"
        ));
    }
    if let Some(skills) = &context.skills {
        prompt.push('\n');
        prompt.push_str(skills);
    }
    prompt
}

/// Today's date in UTC as `YYYY-MM-DD`.
pub fn today_utc() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs() / 86_400);
    let (year, month, day) = civil_from_days(i64::try_from(days).unwrap_or(0));
    format!("{year:04}-{month:02}-{day:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(instructions: Option<&str>) -> PromptContext {
        PromptContext {
            root: "/home/me/project".into(),
            os: "linux x86_64".into(),
            date: "2026-12-03".into(),
            project_instructions: instructions.map(str::to_owned),
            skills: None,
        }
    }

    #[test]
    fn the_prompt_says_where_and_how_tools_report() {
        let prompt = system_prompt(&context(None));
        for needle in [
            "You are Gantry",
            "Project root: /home/me/project",
            "Operating system: linux x86_64",
            "Today's date: 2026-12-03",
            "[error]",
            "[denied]",
            "[disabled]",
            "[cancelled]",
        ] {
            assert!(prompt.contains(needle), "missing {needle:?}");
        }
        assert!(!prompt.contains("AGENTS.md"));
        let with = system_prompt(&context(Some("Use tabs.")));
        assert!(with.contains("from AGENTS.md"));
        assert!(with.trim_end().ends_with("Use tabs."));
    }

    #[test]
    fn dates_are_computed_from_the_day_count() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_790), (2026, 12, 3));
        assert_eq!(today_utc().len(), 10);
    }

    #[tokio::test]
    async fn agents_md_is_read_when_present_and_capped() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_project_instructions(dir.path()).await, None);
        std::fs::write(dir.path().join("AGENTS.md"), "  \n").unwrap();
        assert_eq!(read_project_instructions(dir.path()).await, None);
        std::fs::write(dir.path().join("AGENTS.md"), "\nRun cargo test.\n").unwrap();
        assert_eq!(
            read_project_instructions(dir.path()).await.as_deref(),
            Some("Run cargo test.")
        );
        std::fs::write(dir.path().join("AGENTS.md"), "x".repeat(30_000)).unwrap();
        let capped = read_project_instructions(dir.path()).await.unwrap();
        assert_eq!(capped.chars().count(), MAX_PROJECT_INSTRUCTIONS_CHARS + 1);
        let gathered = PromptContext::gather(dir.path(), false).await;
        assert_eq!(gathered.project_instructions, None);
    }

    #[tokio::test]
    async fn agents_md_outside_the_project_or_not_a_file_is_ignored() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(
            outside.path().join("credentials"),
            "aws_secret_access_key = x",
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("credentials"),
            dir.path().join("AGENTS.md"),
        )
        .unwrap();
        assert_eq!(read_project_instructions(dir.path()).await, None);

        // A FIFO would block a plain read forever.
        std::fs::remove_file(dir.path().join("AGENTS.md")).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.path().join("AGENTS.md"))
            .status()
            .unwrap();
        assert!(status.success());
        let read = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            read_project_instructions(dir.path()),
        )
        .await;
        assert_eq!(read.ok(), Some(None));

        // A symlink inside the project to a file inside it is fine.
        std::fs::remove_file(dir.path().join("AGENTS.md")).unwrap();
        std::fs::write(dir.path().join("RULES.md"), "Use tabs.").unwrap();
        std::os::unix::fs::symlink("RULES.md", dir.path().join("AGENTS.md")).unwrap();
        assert_eq!(
            read_project_instructions(dir.path()).await.as_deref(),
            Some("Use tabs.")
        );
    }
}
