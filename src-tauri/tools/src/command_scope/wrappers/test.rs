//! `test` and `[`: their operands are expressions, not options.
//!
//! bash evaluates the array subscript of a `-v` operand (`[ -v 'a[$(id)]' ]` runs `id`), so a
//! `$` or a backtick anywhere in the operands (or text xargs fills in) makes the command
//! unscoped.

use super::Wrapped;
use crate::command_scope::keys::Keying;
use crate::command_scope::unscoped::Unscoped;
use crate::command_scope::word::Word;

pub(super) fn test(_: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let evaluates = words.iter().any(|word| {
        word.is_dynamic() || word.replaced || word.chars.iter().any(|wc| matches!(wc.c, '$' | '`'))
    });
    if evaluates {
        return Err(Unscoped::TestOperand {
            program: words[0].value(),
        });
    }
    Ok(Wrapped::Alone)
}
