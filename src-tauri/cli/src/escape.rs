//! Making untrusted text safe to print on a terminal.
//!
//! Everything the CLI prints may come from a model, a tool, a file in the project or an MCP
//! server: a file holding `ESC ] 52 ; ...` could write the user's clipboard, `ESC [ 2 J` clear
//! the screen, a lone `\r` or cursor moves hide the real command above an approval prompt.
//! [`for_terminal`] therefore shows every control character as a visible escape instead of
//! sending it: the C0 controls except newline and tab (a `\r` right before `\n` is kept, so
//! CRLF text prints normally), DEL, the C1 controls (U+0080 to U+009F, where a single
//! U+009B is a CSI) and the Unicode bidirectional overrides and isolates that can make text
//! read differently from what runs ("Trojan Source"). JSON output needs none of this: serde
//! escapes control characters itself.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with every control character shown as an escape (`\e` for ESC, `\r`, `\x07`,
/// `\u{9b}`, `\u{202e}`); borrowed when there is nothing to escape.
pub(crate) fn for_terminal(text: &str) -> Cow<'_, str> {
    let clean = !text
        .char_indices()
        .any(|(at, c)| needs_escape(c) && !(c == '\r' && text[at + 1..].starts_with('\n')));
    if clean {
        return Cow::Borrowed(text);
    }
    let mut chars = text.chars().peekable();
    let mut out = String::with_capacity(text.len() + 16);
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            out.push(c);
            continue;
        }
        if !needs_escape(c) {
            out.push(c);
            continue;
        }
        match c {
            '\u{1b}' => out.push_str("\\e"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

/// Controls a terminal would act on (see the module docs); `\n` and `\t` are text, and a `\r`
/// is judged with its neighbour by [`for_terminal`].
fn needs_escape(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::for_terminal;

    #[test]
    fn plain_text_passes_through_borrowed() {
        let text = "héllo\n\tworld → ok\r\n";
        assert!(matches!(for_terminal(text), std::borrow::Cow::Borrowed(_)));
        assert_eq!(for_terminal(text), text);
    }

    #[test]
    fn controls_are_shown_not_sent() {
        for (input, expected) in [
            ("\u{1b}[2J\u{1b}[H", "\\e[2J\\e[H"),
            ("\u{1b}]52;c;cm0gLXJm\u{7}", "\\e]52;c;cm0gLXJm\\x07"),
            ("bell\u{7}", "bell\\x07"),
            ("safe\rrm -rf ~", "safe\\rrm -rf ~"),
            ("back\u{8}\u{8}", "back\\x08\\x08"),
            ("nul\u{0}", "nul\\x00"),
            ("del\u{7f}", "del\\x7f"),
            ("c1 csi \u{9b}31m", "c1 csi \\u{9b}31m"),
            ("c1 osc \u{9d}0;title\u{9c}", "c1 osc \\u{9d}0;title\\u{9c}"),
            ("rtl \u{202e}gnp.exe", "rtl \\u{202e}gnp.exe"),
            ("isolate \u{2066}x\u{2069}", "isolate \\u{2066}x\\u{2069}"),
            ("crlf\r\nstays", "crlf\r\nstays"),
            ("cr at end\r", "cr at end\\r"),
        ] {
            assert_eq!(for_terminal(input), expected, "{input:?}");
        }
    }

    #[test]
    fn no_output_byte_is_a_control_but_newline_tab_and_crlf() {
        let all: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        let shown = for_terminal(&all);
        for c in shown.chars() {
            assert!(
                !super::needs_escape(c) || c == '\r',
                "{:x} was sent as is",
                u32::from(c)
            );
        }
        assert!(!shown.contains('\r'));
        assert!(!shown.contains('\u{1b}'));
    }
}
