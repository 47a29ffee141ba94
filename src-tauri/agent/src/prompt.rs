//! The system prompt.
//!
//! The model needs to know where it is (Gantry, the project root, the OS, today's date) and,
//! above all, how to read tool results: a call can fail, be denied by the user or be disabled by
//! the project, and each needs a different reaction. Without being told, models tend to retry a
//! denied call verbatim. The prefixes named here are the ones the tool system writes
//! (`[error]`, `[denied]`, `[disabled]`, `[cancelled]`).
//!
//! The user's and the project's instruction files (`CLAUDE.md`, `AGENTS.md` and what they
//! import) follow, one labelled part each, as the session's [`crate::InstructionSource`] gives
//! them (read again for every turn, so edits apply at once; the embedding finds, confines and
//! cuts them).

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::instructions::InstructionPart;

/// What the system prompt is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptContext {
    /// The project folder (canonical).
    pub root: String,
    /// The operating system and architecture (`linux x86_64`).
    pub os: String,
    /// Today's date, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// The instruction files' parts, in order (none when the session reads none).
    pub instructions: Vec<InstructionPart>,
    /// The catalog of the project's Agent Skills (`<available_skills>`, see
    /// [`gantry_tools::skills::catalog_text`]), set by the turn once it knows the window.
    pub skills: Option<String>,
}

impl PromptContext {
    /// The context for the project at `root` now, with `instructions`.
    pub fn gather(root: &Path, instructions: Vec<InstructionPart>) -> Self {
        Self {
            root: root.display().to_string(),
            os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
            date: today_utc(),
            instructions,
            skills: None,
        }
    }
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
    push_instructions(&mut prompt, &context.instructions);
    if let Some(skills) = &context.skills {
        prompt.push('\n');
        prompt.push_str(skills);
    }
    prompt
}

/// Adds the instruction parts, each under a line naming its file.
fn push_instructions(prompt: &mut String, parts: &[InstructionPart]) {
    if parts.is_empty() {
        return;
    }
    prompt.push_str(
        "\nInstructions from the user's and the project's files (follow them unless the user \
         says otherwise; where they disagree, a later file wins):\n",
    );
    for part in parts {
        let imported = part
            .imported_by
            .as_ref()
            .map(|by| format!(", imported by {by}"))
            .unwrap_or_default();
        prompt.push_str(&format!(
            "\n--- from {}{imported} ---\n{}\n",
            part.file,
            part.text.trim()
        ));
    }
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

    fn context(instructions: Vec<InstructionPart>) -> PromptContext {
        PromptContext {
            root: "/home/me/project".into(),
            os: "linux x86_64".into(),
            date: "2026-12-03".into(),
            instructions,
            skills: None,
        }
    }

    fn part(file: &str, text: &str, imported_by: Option<&str>) -> InstructionPart {
        InstructionPart {
            file: file.into(),
            text: text.into(),
            truncated: false,
            imported_by: imported_by.map(str::to_owned),
        }
    }

    #[test]
    fn the_prompt_says_where_and_how_tools_report() {
        let prompt = system_prompt(&context(Vec::new()));
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
        assert!(!prompt.contains("Instructions from"));
    }

    #[test]
    fn each_instruction_part_is_labelled_with_its_file_in_order() {
        let with = system_prompt(&context(vec![
            part("~/.claude/CLAUDE.md", "Answer in French.\n", None),
            part("CLAUDE.md", "Use tabs.", None),
            part("docs/style.md", "Short lines.", Some("CLAUDE.md")),
        ]));
        let user = with
            .find("--- from ~/.claude/CLAUDE.md ---\nAnswer in French.\n")
            .unwrap();
        let project = with.find("--- from CLAUDE.md ---\nUse tabs.\n").unwrap();
        let import = with
            .find("--- from docs/style.md, imported by CLAUDE.md ---\nShort lines.")
            .unwrap();
        assert!(user < project && project < import);
        assert!(with.trim_end().ends_with("Short lines."));
    }

    #[test]
    fn dates_are_computed_from_the_day_count() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_790), (2026, 12, 3));
        assert_eq!(today_utc().len(), 10);
    }
}
