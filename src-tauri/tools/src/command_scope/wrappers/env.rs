//! `env`: assignments and an environment reset before a command.
//!
//! `env FOO=1 cmd` is keyed like `FOO=1 cmd` (variables such as `PATH` or `LD_PRELOAD` change
//! what a program does, so they stay in the key); `-i` and `-u NAME` stay in the key too
//! (`env -i make`). A lone `-` means `-i`. Other options (`-S` splits a string into a
//! command) make the command unscoped.

use super::Wrapped;
use crate::command_scope::getopt::{Options, wrapper_options};
use crate::command_scope::keys::Keying;
use crate::command_scope::unscoped::Unscoped;
use crate::command_scope::word::{Word, render_assignment};

/// coreutils `env`, as far as it is understood.
const ENV: Options = Options {
    flags: "-i --ignore-environment",
    values: "-u --unset",
    ..Options::NONE
};

pub(super) fn env(keying: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let (after, _) = wrapper_options("env", words, 1, &ENV)?;
    let mut index = after;
    if words.get(index).map(Word::literal).transpose()?.as_deref() == Some("-") {
        index += 1;
    }
    if index > 1 {
        let env: Vec<String> = words[..index].iter().map(Word::render).collect();
        keying.prefix.push(env.join(" "));
    }
    while let Some(word) = words.get(index) {
        let value = word.literal()?;
        let Some(eq) = value.find('=') else { break };
        if eq == 0 {
            return Err(Unscoped::Unparsed);
        }
        let split = value[..=eq].chars().count();
        keying.prefix.push(render_assignment(word, split)?);
        index += 1;
    }
    Ok(Wrapped::Runs(index))
}
