//! Context the user's hooks give the model (a SessionStart or UserPromptSubmit hook's
//! `additionalContext` or plain stdout, spec §1.1 "Exit codes"): it reaches the model in the
//! system prompt of the session's later requests, under its own heading, and never becomes
//! part of the user's message — the stored transcript and the chat show what the user wrote.
//! It lives with the loaded session (a session loaded again gets its SessionStart context
//! again from its `resume` hooks); at most [`MAX_HOOK_CONTEXTS`] are kept, the oldest dropped.

use crate::session::Session;

/// The most hook contexts a session keeps.
pub const MAX_HOOK_CONTEXTS: usize = 16;

impl Session {
    /// Adds `text`, which a hook of `event` gave, to what the model reads in the system prompt
    /// of the next requests.
    pub fn add_hook_context(&mut self, event: &str, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        if self.hook_context.len() >= MAX_HOOK_CONTEXTS {
            self.hook_context.remove(0);
        }
        self.hook_context
            .push(format!("[from a {event} hook]\n{text}"));
    }

    /// The contexts the hooks gave, oldest first.
    pub fn hook_context(&self) -> &[String] {
        &self.hook_context
    }
}

/// `system` with the hooks' `contexts` under their own heading (unchanged when there are none).
pub(crate) fn with_hook_context(system: String, contexts: &[String]) -> String {
    if contexts.is_empty() {
        return system;
    }
    format!(
        "{system}\n\n## Context from the user's hooks\n(Programs the user configured added this; \
         it is not a message from the user.)\n\n{}\n",
        contexts.join("\n\n")
    )
}

#[cfg(test)]
mod tests {
    use super::with_hook_context;

    #[test]
    fn contexts_go_under_their_own_heading() {
        assert_eq!(with_hook_context("Base.".into(), &[]), "Base.");
        let text = with_hook_context("Base.".into(), &["[from a X hook]\nA".into()]);
        assert!(text.starts_with("Base.\n\n## Context from the user's hooks"));
        assert!(text.ends_with("[from a X hook]\nA\n"));
    }
}
