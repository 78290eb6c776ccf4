//! A hand-written byte-level PTX lexer.
//!
//! Design: one pass over the bytes, no allocation per token. A [`Token`] is 12 bytes: a kind, two
//! flags telling whether whitespace/comments (and whether a newline) come before it, and a byte
//! range; the parser re-reads numbers and names from the source slice only when it needs them.
//! The lexer never fails: bytes it does not understand become [`Tk::Error`] tokens (always
//! covering whole UTF-8 characters, so every span lies on a char boundary), and unterminated
//! strings and comments are reported through [`Lexed::errors`].

use crate::ast::Span;
use crate::source::Diagnostic;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Tk {
    /// `foo`, `%r1`, `$L__BB0_2`, `_`
    Ident,
    /// `.u32`, `.shared::cta`, `.m16n8k16`, `.1d`, `.mbarrier::complete_tx::bytes`
    DotWord,
    /// Any numeric literal: `12`, `0x1FU`, `017`, `0b101`, `1.5e3`, `0f3F800000`, `0d…`.
    /// Classified and converted by the parser.
    Number,
    /// `"…"` (span includes the quotes)
    Str,
    Semi,
    Comma,
    Colon,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    Shl,
    Shr,
    AndAnd,
    OrOr,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Bang,
    Tilde,
    Amp,
    Pipe,
    Caret,
    Question,
    Assign,
    At,
    /// `@@` (as in `@@DWARF`)
    AtAt,
    /// A lone `.` not followed by a word character.
    Dot,
    /// A byte or character the lexer does not know.
    Error,
    Eof,
}

/// Whitespace or a comment precedes the token.
pub const SPACE_BEFORE: u8 = 1;
/// A newline (possibly inside a comment) precedes the token.
pub const NEWLINE_BEFORE: u8 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Tk,
    pub flags: u8,
    pub start: u32,
    pub end: u32,
}

impl Token {
    #[inline]
    pub fn span(&self) -> Span {
        Span::new(self.start, self.end)
    }
    #[inline]
    pub fn spaced(&self) -> bool {
        self.flags & SPACE_BEFORE != 0
    }
    #[inline]
    pub fn at_line_start(&self) -> bool {
        self.flags & NEWLINE_BEFORE != 0
    }
}

pub struct Lexed {
    /// All tokens, always ending with one [`Tk::Eof`].
    pub tokens: Vec<Token>,
    pub errors: Vec<Diagnostic>,
}

const C_WORD: u8 = 1; // [A-Za-z0-9_$]
const C_START: u8 = 2; // [A-Za-z_$]
const C_SPACE: u8 = 4; // ' ' \t \r \v \f
const C_DIGIT: u8 = 8;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        let mut v = 0;
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
            v |= C_WORD;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            v |= C_START;
        }
        if matches!(c, b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
            v |= C_SPACE;
        }
        if c.is_ascii_digit() {
            v |= C_DIGIT;
        }
        t[i] = v;
        i += 1;
    }
    t
};

/// First-byte dispatch codes (`FIRST`), so that `next_token` branches through a jump table.
const F_OTHER: u8 = 0;
const F_SPACE: u8 = 1;
const F_NEWLINE: u8 = 2;
const F_IDENT: u8 = 3;
const F_DIGIT: u8 = 4;
const F_PERCENT: u8 = 5;
const F_DOT: u8 = 6;
const F_SLASH: u8 = 7;
const F_QUOTE: u8 = 8;

static FIRST: [u8; 256] = {
    let mut t = [F_OTHER; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = if matches!(c, b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
            F_SPACE
        } else if c == b'\n' {
            F_NEWLINE
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            F_IDENT
        } else if c.is_ascii_digit() {
            F_DIGIT
        } else if c == b'%' {
            F_PERCENT
        } else if c == b'.' {
            F_DOT
        } else if c == b'/' {
            F_SLASH
        } else if c == b'"' {
            F_QUOTE
        } else {
            F_OTHER
        };
        i += 1;
    }
    t
};

/// End of the run of word characters starting at `i`.
#[inline(always)]
fn scan_word(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if CLASS[c as usize] & C_WORD == 0 {
            break;
        }
        i += 1;
    }
    i
}

#[inline(always)]
fn is_word(b: u8) -> bool {
    CLASS[b as usize] & C_WORD != 0
}

#[inline(always)]
fn is_ident_start(b: u8) -> bool {
    CLASS[b as usize] & C_START != 0
}

/// Lexes a whole source text at once (the parser streams with [`Lexer`] instead).
pub fn lex(text: &str) -> Lexed {
    let mut lx = Lexer::new(text);
    let mut tokens = Vec::with_capacity(text.len() / 5 + 16);
    loop {
        let t = lx.next_token();
        tokens.push(t);
        if t.kind == Tk::Eof {
            break;
        }
    }
    Lexed { tokens, errors: lx.errors }
}

/// An incremental lexer: [`Lexer::next_token`] returns one token at a time, then `Eof` forever.
/// Offsets are `u32`; text beyond 4 GiB is not supported (the excess is ignored so that spans
/// stay valid; the caller should refuse such files).
pub struct Lexer<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    /// Diagnostics for unterminated strings and comments (at most `MAX_ERRORS`).
    pub errors: Vec<Diagnostic>,
}

const MAX_ERRORS: usize = crate::parser::MAX_ERRORS;

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str) -> Lexer<'a> {
        let mut n = text.len().min(u32::MAX as usize - 1);
        while !text.is_char_boundary(n) {
            n -= 1;
        }
        Lexer { text, b: &text.as_bytes()[..n], i: 0, errors: Vec::new() }
    }

    /// Fills `out` with up to `max` more tokens; returns false once `Eof` has been pushed.
    pub fn fill(&mut self, out: &mut Vec<Token>, max: usize) -> bool {
        for _ in 0..max {
            let t = self.next_token();
            out.push(t);
            if t.kind == Tk::Eof {
                return false;
            }
        }
        true
    }

    #[inline(always)]
    pub fn next_token(&mut self) -> Token {
        let b = self.b;
        let n = b.len();
        let mut i = self.i;
        let mut flags = 0u8;
        // Whitespace and comments.
        while i < n {
            match FIRST[b[i] as usize] {
                F_SPACE => {
                    flags |= SPACE_BEFORE;
                    i += 1;
                }
                F_NEWLINE => {
                    flags |= SPACE_BEFORE | NEWLINE_BEFORE;
                    i += 1;
                }
                F_SLASH if i + 1 < n && b[i + 1] == b'/' => {
                    flags |= SPACE_BEFORE;
                    i += 2;
                    while i < n && b[i] != b'\n' {
                        i += 1;
                    }
                }
                F_SLASH if i + 1 < n && b[i + 1] == b'*' => {
                    flags |= SPACE_BEFORE;
                    let (j, nl) = self.block_comment(i);
                    i = j;
                    if nl {
                        flags |= NEWLINE_BEFORE;
                    }
                }
                _ => break,
            }
        }
        if i >= n {
            self.i = n;
            return Token { kind: Tk::Eof, flags: flags | SPACE_BEFORE | NEWLINE_BEFORE, start: n as u32, end: n as u32 };
        }
        let start = i;
        let c = b[i];
        let kind = match FIRST[c as usize] {
            F_IDENT => {
                i = scan_word(b, i + 1);
                Tk::Ident
            }
            F_PERCENT if i + 1 < n && is_ident_start(b[i + 1]) => {
                i = scan_word(b, i + 2);
                Tk::Ident
            }
            // `.05`, `.5e-3`: a float (PTX 1.x initializers), not a `.word`; `.1d`, `.16x64b`
            // stay words.
            F_DOT if i + 1 < n && b[i + 1].is_ascii_digit() && dot_float_end(b, i).is_some() => {
                i = dot_float_end(b, i).unwrap_or(i + 1);
                Tk::Number
            }
            F_DOT if i + 1 < n && is_word(b[i + 1]) => {
                i = scan_word(b, i + 2);
                // `::word` continuations: `.shared::cta`, `.mbarrier::complete_tx::bytes`.
                while i + 2 < n && b[i] == b':' && b[i + 1] == b':' && is_word(b[i + 2]) {
                    i = scan_word(b, i + 3);
                }
                Tk::DotWord
            }
            F_DIGIT => {
                i = lex_number(b, n, i);
                Tk::Number
            }
            F_QUOTE => {
                i = self.string(i);
                Tk::Str
            }
            _ => {
                i += 1;
                let two = if i < n { b[i] } else { 0 };
                match c {
                    b';' => Tk::Semi,
                    b',' => Tk::Comma,
                    b':' => Tk::Colon,
                    b'(' => Tk::LParen,
                    b')' => Tk::RParen,
                    b'[' => Tk::LBracket,
                    b']' => Tk::RBracket,
                    b'{' => Tk::LBrace,
                    b'}' => Tk::RBrace,
                    b'+' => Tk::Plus,
                    b'-' => Tk::Minus,
                    b'*' => Tk::Star,
                    b'/' => Tk::Slash,
                    b'%' => Tk::Percent,
                    b'~' => Tk::Tilde,
                    b'^' => Tk::Caret,
                    b'?' => Tk::Question,
                    b'.' => Tk::Dot,
                    b'<' => match two {
                        b'<' => {
                            i += 1;
                            Tk::Shl
                        }
                        b'=' => {
                            i += 1;
                            Tk::Le
                        }
                        _ => Tk::Lt,
                    },
                    b'>' => match two {
                        b'>' => {
                            i += 1;
                            Tk::Shr
                        }
                        b'=' => {
                            i += 1;
                            Tk::Ge
                        }
                        _ => Tk::Gt,
                    },
                    b'=' if two == b'=' => {
                        i += 1;
                        Tk::EqEq
                    }
                    b'=' => Tk::Assign,
                    b'!' if two == b'=' => {
                        i += 1;
                        Tk::Ne
                    }
                    b'!' => Tk::Bang,
                    b'&' if two == b'&' => {
                        i += 1;
                        Tk::AndAnd
                    }
                    b'&' => Tk::Amp,
                    b'|' if two == b'|' => {
                        i += 1;
                        Tk::OrOr
                    }
                    b'|' => Tk::Pipe,
                    b'@' if two == b'@' => {
                        i += 1;
                        Tk::AtAt
                    }
                    b'@' => Tk::At,
                    _ => {
                        i = self.unknown_char(i);
                        Tk::Error
                    }
                }
            }
        };
        self.i = i;
        Token { kind, flags, start: start as u32, end: i as u32 }
    }

    /// `/* … */` starting at `start`; returns the end and whether it contained a newline.
    #[cold]
    #[inline(never)]
    fn block_comment(&mut self, start: usize) -> (usize, bool) {
        let b = self.b;
        let n = b.len();
        let mut nl = false;
        let mut i = start + 2;
        loop {
            if i + 1 >= n {
                self.errors.truncate(MAX_ERRORS - 1);
                self.errors.push(
                    Diagnostic::new("unterminated block comment", Span::new(start as u32, (start + 2) as u32))
                        .with_label("comment starts here"),
                );
                return (n, nl);
            }
            if b[i] == b'*' && b[i + 1] == b'/' {
                return (i + 2, nl);
            }
            nl |= b[i] == b'\n';
            i += 1;
        }
    }

    /// A string literal starting at the `"` at `start`; returns its end.
    #[cold]
    #[inline(never)]
    fn string(&mut self, start: usize) -> usize {
        let b = self.b;
        let n = b.len();
        let mut i = start + 1;
        let mut closed = false;
        while i < n {
            match b[i] {
                b'"' => {
                    i += 1;
                    closed = true;
                    break;
                }
                b'\\' if i + 1 < n && b[i + 1] != b'\n' => i += 2,
                b'\n' => break,
                _ => i += 1,
            }
        }
        // `i` may sit inside a multi-byte char only if an escape skipped its lead byte.
        while i < n && !self.text.is_char_boundary(i) {
            i += 1;
        }
        if !closed && self.errors.len() < MAX_ERRORS {
            self.errors.push(Diagnostic::new("unterminated string literal", Span::new(start as u32, i as u32)));
        }
        i
    }

    /// An unknown byte at `start - 1`..: swallows the rest of its UTF-8 character.
    #[cold]
    #[inline(never)]
    fn unknown_char(&self, mut i: usize) -> usize {
        while i < self.b.len() && !self.text.is_char_boundary(i) {
            i += 1;
        }
        i
    }
}

/// If `.` at `i` starts a float like `.05` or `.5e-3` (digits, optional exponent, then no word
/// character), its end.
fn dot_float_end(b: &[u8], i: usize) -> Option<usize> {
    let n = b.len();
    let mut j = i + 1;
    while j < n && b[j].is_ascii_digit() {
        j += 1;
    }
    if j < n && (b[j] == b'e' || b[j] == b'E') {
        let mut k = j + 1;
        if k < n && (b[k] == b'+' || b[k] == b'-') {
            k += 1;
        }
        if k < n && b[k].is_ascii_digit() {
            while k < n && b[k].is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    if j < n && is_word(b[j]) {
        None
    } else {
        Some(j)
    }
}

/// Scans a numeric literal starting at `i` (a digit); returns its end. The scan is permissive
/// (trailing word characters are included) so that `12abc` is one bad literal, not two tokens.
fn lex_number(b: &[u8], n: usize, mut i: usize) -> usize {
    let prefixed = b[i] == b'0' && i + 1 < n && matches!(b[i + 1], b'x' | b'X' | b'f' | b'F' | b'd' | b'D' | b'b' | b'B');
    if prefixed {
        i += 2;
        while i < n && is_word(b[i]) {
            i += 1;
        }
        return i;
    }
    while i < n && CLASS[b[i] as usize] & C_DIGIT != 0 {
        i += 1;
    }
    if i + 1 < n && b[i] == b'.' && b[i + 1].is_ascii_digit() {
        i += 1;
        while i < n && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < n && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < n && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < n && b[j].is_ascii_digit() {
            i = j;
            while i < n && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    while i < n && is_word(b[i]) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(Tk, &str)> {
        lex(s).tokens.iter().map(|t| (t.kind, &s[t.start as usize..t.end as usize])).collect()
    }

    #[test]
    fn basic_tokens() {
        let k = kinds("@!%p1 bra.uni $L__BB0_2; // c\n ld.shared::cta.v4.b32 {%r1,_},[%rd1+-4];");
        use Tk::*;
        let want = vec![
            (At, "@"),
            (Bang, "!"),
            (Ident, "%p1"),
            (Ident, "bra"),
            (DotWord, ".uni"),
            (Ident, "$L__BB0_2"),
            (Semi, ";"),
            (Ident, "ld"),
            (DotWord, ".shared::cta"),
            (DotWord, ".v4"),
            (DotWord, ".b32"),
            (LBrace, "{"),
            (Ident, "%r1"),
            (Comma, ","),
            (Ident, "_"),
            (RBrace, "}"),
            (Comma, ","),
            (LBracket, "["),
            (Ident, "%rd1"),
            (Plus, "+"),
            (Minus, "-"),
            (Number, "4"),
            (RBracket, "]"),
            (Semi, ";"),
            (Eof, ""),
        ];
        assert_eq!(k, want);
    }

    #[test]
    fn numbers() {
        let k = kinds("0f3F800000 0d3FF0000000000000 0x1FU 017 0b101 1.5e-3 8.5 1e5 12abc");
        let texts: Vec<_> = k.iter().filter(|t| t.0 == Tk::Number).map(|t| t.1).collect();
        assert_eq!(texts, ["0f3F800000", "0d3FF0000000000000", "0x1FU", "017", "0b101", "1.5e-3", "8.5", "1e5", "12abc"]);
    }

    #[test]
    fn flags_and_errors() {
        let l = lex("a /* x\n */ b\"s\" é \"open");
        let t = &l.tokens;
        assert!(!t[0].spaced());
        assert!(t[1].at_line_start());
        assert_eq!(t[2].kind, Tk::Str);
        assert!(!t[2].spaced());
        assert_eq!(t[3].kind, Tk::Error);
        assert_eq!(t[3].end - t[3].start, 2);
        assert_eq!(l.errors.len(), 1);
    }
}
