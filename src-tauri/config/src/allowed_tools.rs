//! A command's or skill's `allowed-tools` as allow rules for the turn it starts
//! (`shared/reference/extensibility-specs.md` §2 and §4: "pre-approves tools for the invoking
//! turn only").
//!
//! Each entry is read with the permission-rule syntax of the settings files
//! ([`crate::permissions::form`]) into an allow [`ExternalRule`] named after the command's file.
//! A project file's rules wait until the user trusted that file's content; the gate uses them
//! only to settle an ordinary ask (never a disabled tool, a deny or ask rule, or a call that
//! always asks).

use gantry_tools::{ExternalAction, ExternalRule};

use crate::permissions::form;
use crate::{Locations, SourceFile};

/// `texts` (the `allowed-tools` of the command or skill in `source`) as allow rules; each waits
/// for trust unless `trusted`.
pub fn turn_rules(
    texts: &[String],
    source: &SourceFile,
    trusted: bool,
    at: &Locations,
) -> Vec<ExternalRule> {
    texts
        .iter()
        .map(|text| ExternalRule {
            source: format!("command:{}", source.shown),
            action: ExternalAction::Allow,
            text: text.clone(),
            form: form::parse(text, ExternalAction::Allow, source, at),
            waits_for_trust: !trusted,
        })
        .collect()
}
