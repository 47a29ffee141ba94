//! The terminal as the user: approvals and questions answered on stdin, shown on stderr.

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use gantry_tools::{
    ApprovalDecision, ApprovalRequest, Approver, AskReason, Preview, PromptError, SandboxState,
    UserPrompter, UserQuestion,
};

/// Lines read from stdin, one at a time, shared by the approver and the prompter so their
/// questions never interleave.
#[derive(Default)]
pub(crate) struct StdinAnswers {
    lock: Mutex<()>,
}

impl StdinAnswers {
    /// Shows `prompt` on stderr and reads one line; `None` at end of input.
    /// Shows `prompt` on stderr and reads one line from stdin (without its line ending);
    /// `None` at end of input.
    pub(crate) fn ask(&self, prompt: &str) -> Option<String> {
        let _turn = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut stderr = std::io::stderr().lock();
        // The prompt quotes the model's arguments, previews and questions: escaped.
        let _ = write!(stderr, "{}", crate::escape::for_terminal(prompt));
        let _ = stderr.flush();
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
        }
    }

    async fn ask_async(self: &Arc<Self>, prompt: String) -> Option<String> {
        let answers = Arc::clone(self);
        tokio::task::spawn_blocking(move || answers.ask(&prompt))
            .await
            .ok()
            .flatten()
    }
}

/// Asks for approval on the terminal.
pub(crate) struct TerminalApprover {
    answers: Arc<StdinAnswers>,
}

impl TerminalApprover {
    pub(crate) fn new(answers: Arc<StdinAnswers>) -> Self {
        Self { answers }
    }
}

/// The request as shown on the terminal.
fn describe_request(request: &ApprovalRequest) -> String {
    let mut text = format!(
        "\nGantry wants to run {} ({})\n  {}\n",
        request.tool, request.level, request.description
    );
    let arguments = serde_json::to_string_pretty(&request.arguments)
        .unwrap_or_else(|_| request.arguments.to_string());
    text.push_str(&format!("arguments: {arguments}\n"));
    match &request.preview {
        Some(Preview::Diff { unified, .. }) => text.push_str(&format!("change:\n{unified}\n")),
        Some(Preview::Command {
            command,
            workdir,
            sandbox,
        }) => {
            text.push_str(&format!("command: {command}\nin: {workdir}\n"));
            if let Some(sandbox) = sandbox {
                text.push_str(&format!("{}\n", sandbox_line(sandbox)));
            }
        }
        Some(Preview::Text { text: preview }) => text.push_str(&format!("{preview}\n")),
        None => {}
    }
    match &request.reason {
        AskReason::Policy => {}
        AskReason::Unscoped { why } | AskReason::Always { why } => {
            text.push_str(&format!("asks every time: {why}\n"));
        }
    }
    if request.session_scope.is_empty() {
        text.push_str("(this call can't be allowed for the whole session or the project)\n");
        text.push_str("Allow? [o]nce, [d]eny (d: reason) > ");
    } else {
        text.push_str(&format!(
            "allowing for the session or always in this project covers: {}\n",
            request.session_scope.join(", ")
        ));
        text.push_str("Allow? [o]nce, [s]ession, [p]roject (always), [d]eny (d: reason) > ");
    }
    text
}

/// How a command would run, in one line.
fn sandbox_line(sandbox: &SandboxState) -> String {
    match sandbox {
        SandboxState::Sandboxed { network: false } => "sandboxed, no network".to_owned(),
        SandboxState::Sandboxed { network: true } => "sandboxed, network on".to_owned(),
        SandboxState::Unsandboxed { why } => format!("NOT SANDBOXED: {why}"),
    }
}

/// Reads one answer: `o`, `s`, `d` or `d: reason` (whole words work too).
fn parse_answer(line: &str) -> Option<ApprovalDecision> {
    let line = line.trim();
    let (word, reason) = match line.split_once(':') {
        Some((word, reason)) => (
            word.trim(),
            Some(reason.trim().to_owned()).filter(|r| !r.is_empty()),
        ),
        None => (line, None),
    };
    match word.to_ascii_lowercase().as_str() {
        "o" | "once" | "y" | "yes" => Some(ApprovalDecision::AllowOnce),
        "s" | "session" => Some(ApprovalDecision::AllowForSession),
        "p" | "project" | "always" => Some(ApprovalDecision::AllowInProject),
        "d" | "deny" | "n" | "no" => Some(ApprovalDecision::Deny { reason }),
        _ => None,
    }
}

#[async_trait]
impl Approver for TerminalApprover {
    async fn decide(&self, request: ApprovalRequest) -> ApprovalDecision {
        let mut prompt = describe_request(&request);
        loop {
            let Some(line) = self.answers.ask_async(prompt).await else {
                return ApprovalDecision::Deny {
                    reason: Some("no answer on the terminal".into()),
                };
            };
            if let Some(decision) = parse_answer(&line) {
                return decision;
            }
            prompt = "Please answer o, s, p or d > ".into();
        }
    }
}

/// Answers the model's questions on the terminal.
pub(crate) struct TerminalPrompter {
    answers: Arc<StdinAnswers>,
}

impl TerminalPrompter {
    pub(crate) fn new(answers: Arc<StdinAnswers>) -> Self {
        Self { answers }
    }
}

#[async_trait]
impl UserPrompter for TerminalPrompter {
    async fn ask(&self, question: UserQuestion) -> Result<String, PromptError> {
        let mut prompt = format!("\nThe model asks: {}\n", question.question);
        for (index, option) in question.options.iter().enumerate() {
            prompt.push_str(&format!("  {}. {option}\n", index + 1));
        }
        prompt.push_str("> ");
        let line = self
            .answers
            .ask_async(prompt)
            .await
            .ok_or(PromptError::Unavailable)?;
        let answer = line.trim();
        if answer.is_empty() {
            return Err(PromptError::Dismissed);
        }
        let picked = answer
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| question.options.get(i));
        Ok(picked.cloned().unwrap_or_else(|| answer.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_leniently() {
        assert_eq!(parse_answer("o"), Some(ApprovalDecision::AllowOnce));
        assert_eq!(
            parse_answer(" Session "),
            Some(ApprovalDecision::AllowForSession)
        );
        assert_eq!(
            parse_answer("d"),
            Some(ApprovalDecision::Deny { reason: None })
        );
        assert_eq!(
            parse_answer("d: not now"),
            Some(ApprovalDecision::Deny {
                reason: Some("not now".into())
            })
        );
        assert_eq!(parse_answer("p"), Some(ApprovalDecision::AllowInProject));
        assert_eq!(parse_answer("maybe"), None);
    }
}
