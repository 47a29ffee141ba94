//! ask_user: the model asks the user a question and waits for the answer.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolError, ToolResult, UserQuestion, tool};

/// Arguments of ask_user.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AskUserArgs {
    /// The question, in the user's language, self-contained.
    pub question: String,
    /// Suggested answers to choose from (may be empty); the user can always answer freely.
    #[serde(default)]
    pub options: Vec<String>,
}

/// Ask the user a question and wait for the answer. Use it when a decision is the user's to
/// make or the request is ambiguous; offer options when the likely answers are known.
#[tool(interactive)]
pub async fn ask_user(ctx: &ToolContext, args: AskUserArgs) -> ToolResult {
    let Some(prompter) = ctx.prompter() else {
        return Err(ToolError::new("no user is available to answer"));
    };
    let question = UserQuestion {
        call_id: ctx.call_id().to_owned(),
        session_id: ctx.session_id().map(str::to_owned),
        question: args.question,
        options: args.options,
    };
    let answer = prompter
        .ask(question)
        .await
        .map_err(|error| ToolError::new(error.to_string()))?;
    Ok(format!("user answered: {answer}").into())
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use async_trait::async_trait;

    use crate::{ObservationKind, PromptError, ToolManager, UserPrompter, UserQuestion};

    struct Scripted {
        answer: Result<String, PromptError>,
        seen: Mutex<Vec<UserQuestion>>,
    }

    #[async_trait]
    impl UserPrompter for Scripted {
        async fn ask(&self, question: UserQuestion) -> Result<String, PromptError> {
            self.seen.lock().unwrap().push(question);
            self.answer.clone()
        }
    }

    fn manager(prompter: Option<Arc<Scripted>>) -> (tempfile::TempDir, ToolManager) {
        let dir = tempfile::tempdir().unwrap();
        let mut manager = ToolManager::new(dir.path()).unwrap();
        if let Some(prompter) = prompter {
            manager = manager.with_prompter(prompter);
        }
        super::super::register_builtins(&manager).unwrap();
        (dir, manager)
    }

    #[tokio::test]
    async fn the_answer_comes_back_in_the_fixed_format() {
        let prompter = Arc::new(Scripted {
            answer: Ok("blue".into()),
            seen: Mutex::default(),
        });
        let (_dir, manager) = manager(Some(prompter.clone()));
        let obs = manager
            .dispatch(
                "ask_user",
                r#"{"question": "Colour?", "options": ["red", "blue"]}"#,
                &crate::call::test_call(),
            )
            .await;
        assert_eq!(
            (obs.kind, obs.text.as_str()),
            (ObservationKind::Ok, "user answered: blue")
        );
        let seen = prompter.seen.lock().unwrap();
        assert_eq!(seen[0].question, "Colour?");
        assert_eq!(seen[0].options, ["red", "blue"]);
        // The question names the session asking, so a front end shows it with that session.
        assert_eq!(seen[0].session_id.as_deref(), Some("test"));
    }

    #[tokio::test]
    async fn options_may_be_omitted_or_sent_as_a_json_string() {
        let prompter = Arc::new(Scripted {
            answer: Ok("yes".into()),
            seen: Mutex::default(),
        });
        let (_dir, manager) = manager(Some(prompter.clone()));
        assert!(
            manager
                .dispatch(
                    "ask_user",
                    r#"{"question": "Go?"}"#,
                    &crate::call::test_call()
                )
                .await
                .is_ok()
        );
        assert!(
            manager
                .dispatch(
                    "ask_user",
                    r#"{"question": "Go?", "options": "[\"y\"]"}"#,
                    &crate::call::test_call()
                )
                .await
                .is_ok()
        );
        assert_eq!(prompter.seen.lock().unwrap()[1].options, ["y"]);
    }

    #[tokio::test]
    async fn no_user_is_a_clear_error() {
        let (_dir, manager) = manager(None);
        let obs = manager
            .dispatch(
                "ask_user",
                r#"{"question": "Anyone?"}"#,
                &crate::call::test_call(),
            )
            .await;
        assert_eq!(
            (obs.kind, obs.text.as_str()),
            (
                ObservationKind::Error,
                "[error] no user is available to answer"
            )
        );
    }

    #[tokio::test]
    async fn a_dismissed_question_says_so() {
        let prompter = Arc::new(Scripted {
            answer: Err(PromptError::Dismissed),
            seen: Mutex::default(),
        });
        let (_dir, manager) = manager(Some(prompter));
        let obs = manager
            .dispatch(
                "ask_user",
                r#"{"question": "?"}"#,
                &crate::call::test_call(),
            )
            .await;
        assert_eq!(
            obs.text,
            "[error] the user dismissed the question without answering"
        );
    }
}
