//! `sudo` and `chroot`: the wrapped command runs as someone else or somewhere else.
//!
//! Both add a key of their own (`sudo`, `chroot`) and prefix the wrapped command's keys with
//! themselves and their options (`sudo -u bob rm x`), so an approval given to a command as
//! root, or inside another root, never combines with one given to it as the user.

use super::Wrapped;
use crate::command_scope::getopt::{Options, wrapper_options};
use crate::command_scope::keys::Keying;
use crate::command_scope::unscoped::Unscoped;
use crate::command_scope::word::{Word, render_assignment};

/// sudo's options that run the given command (not `-s`, `-i`, `-e`, `-l`, ...).
const SUDO: Options = Options {
    flags: "-A -b -E -H -k -n -P -S --askpass --background --set-home --reset-timestamp \
            --non-interactive --preserve-groups --stdin",
    values: "-u -g -C -D -p -r -t -T -U --user --group --close-from --chdir --prompt --role \
             --type --command-timeout --other-user",
    optional: "--preserve-env",
    ..Options::NONE
};

/// GNU chroot's options.
const CHROOT: Options = Options {
    flags: "--skip-chdir",
    values: "--userspec --groups",
    ..Options::NONE
};

/// `sudo [OPTIONS] [NAME=VALUE...] COMMAND`.
pub(super) fn sudo(keying: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let (after, _) = wrapper_options("sudo", words, 1, &SUDO)?;
    let mut index = after;
    let mut sudo: Vec<String> = words[..after].iter().map(Word::render).collect();
    while let Some(word) = words.get(index)
        && let Some(split) = word.assignment_split()
    {
        sudo.push(render_assignment(word, split)?);
        index += 1;
    }
    if index < words.len() {
        // Running anything as root asks on its own, whatever the enclosing prefix.
        keying.keys.push("sudo".to_owned());
        keying.prefix.push(sudo.join(" "));
    }
    Ok(Wrapped::Runs(index))
}

/// `chroot [OPTIONS] ROOT [COMMAND]`; the program is looked up inside `ROOT`.
pub(super) fn chroot(keying: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let (root, _) = wrapper_options("chroot", words, 1, &CHROOT)?;
    let new_root = words.get(root).ok_or_else(|| Unscoped::MissingValue {
        program: "chroot".to_owned(),
        option: "ROOT".to_owned(),
    })?;
    new_root.literal()?;
    if root + 1 >= words.len() {
        // `chroot ROOT` runs the shell of the new root: keyed as it stands.
        return Ok(Wrapped::Alone);
    }
    keying.keys.push("chroot".to_owned());
    let chroot: Vec<String> = words[..=root].iter().map(Word::render).collect();
    keying.prefix.push(chroot.join(" "));
    Ok(Wrapped::Runs(root + 1))
}
