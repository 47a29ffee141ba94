//! `xargs`: runs the program named in its arguments with more arguments read from its input.
//!
//! The key is `xargs` plus that program's key (`xargs rm -f`). The appended arguments may be
//! anything, options included, so the program must be one whose every option is harmless
//! (`rm`, `grep`, `echo`, ...; see [`crate::command_scope::programs`]). With a replace string
//! (`-I R`, `-i`, `--replace`) the key starts `xargs -I R` and nothing is appended, but a
//! command whose program, wrapper options, `sh -c` script or `test` operands contain `R` is
//! never scoped (xargs fills them from its input), and an argument containing `R` may be an
//! option.

use super::Wrapped;
use crate::command_scope::getopt::{Given, Options, wrapper_options};
use crate::command_scope::keys::{Keying, program_keys};
use crate::command_scope::unscoped::Unscoped;
use crate::command_scope::word::{Word, quote_for_key};

/// GNU xargs' options (`-i`, `-e`, `-l` take an optional attached value).
const XARGS: Options = Options {
    flags: "-0 -r -t -p -x -o --null --no-run-if-empty --verbose --interactive --exit --open-tty",
    values: "-n -L -P -s -d -E -I -a --max-args --max-lines --max-procs --max-chars --delimiter \
             --eof --arg-file --process-slot-var",
    optional: "-i -e -l --replace",
    ..Options::NONE
};

pub(super) fn xargs(keying: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let (after, given) = wrapper_options("xargs", words, 1, &XARGS)?;
    if after >= words.len() {
        // `xargs` alone runs `echo`.
        return Ok(Wrapped::Alone);
    }
    let Some(replace) = replace_string(&given)? else {
        keying.prefix.push("xargs".to_owned());
        keying.appended = true;
        return Ok(Wrapped::Runs(after));
    };
    keying
        .prefix
        .push(format!("xargs -I {}", quote_for_key(&replace)));
    // Every word holding the replace string is filled from standard input.
    let inner: Vec<Word> = words[after..]
        .iter()
        .map(|word| {
            let mut word = word.clone();
            word.replaced |= replace.is_empty() || word.value().contains(&replace);
            word
        })
        .collect();
    program_keys(keying, &inner)?;
    Ok(Wrapped::Keyed)
}

/// The replace string an `xargs` invocation fills with input (`-I R`, `-i[R]`,
/// `--replace[=R]`; `{}` when none is attached), if it uses one; the last option wins.
fn replace_string(given: &[Given]) -> Result<Option<String>, Unscoped> {
    let Some(option) = given
        .iter()
        .rfind(|option| matches!(option.name.as_str(), "-I" | "-i" | "--replace"))
    else {
        return Ok(None);
    };
    match &option.value {
        Some(value) => value.literal().map(Some),
        None => Ok(Some("{}".to_owned())),
    }
}
