//! `busybox APPLET ...`: runs its own applet, keyed like the applet and marked `busybox`.
//!
//! The applet's options are checked against the table of the program it stands for (busybox
//! applets implement subsets of the same options). `busybox` with options only (`--list`)
//! runs nothing else.

use super::Wrapped;
use crate::command_scope::keys::Keying;
use crate::command_scope::unscoped::Unscoped;
use crate::command_scope::word::{Word, is_flag};

pub(super) fn busybox(keying: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    match words.get(1) {
        Some(applet) if !is_flag(&applet.literal()?) => {
            keying.prefix.push("busybox".to_owned());
            Ok(Wrapped::Runs(1))
        }
        _ => Ok(Wrapped::Alone),
    }
}
