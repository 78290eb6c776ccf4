//! ptxcross-frontend: PTX text → [`ast::Module`] with spans, and diagnostics.
//!
//! The frontend knows nothing of targets. It accepts the syntax of every PTX ISA version; an
//! instruction parses as opcode + modifiers + operands whatever it is, so that deciding what is
//! supported is left to `ptxcross-lower`, with the spans recorded here.
//!
//! Implementation choice: a hand-written byte-level lexer ([`lexer`]) and a hand-written
//! recursive-descent parser ([`parser`]) rather than a generated one (lalrpop/logos, which the
//! design card names). Reasons: no dependencies and no build-time code generation; PTX's
//! grammar is small but irregular (line-terminated `.loc`/`.file`/`@@DWARF`, `;`-terminated
//! `.pragma`, unterminated `.maxntid 1, 2, 3`, `{ … }` DWARF blocks, `%r<N>`), which is awkward
//! for an LR grammar and natural in code; error recovery (skip to the next `;`/`}`, report every
//! error) and "expected X, found Y" messages are direct; and it is fast (tokens are 12-byte
//! spans, no allocation per token, no regexes). Recursion depth is bounded, so no input can
//! overflow the stack, and no input panics.

pub mod ast;
mod cuobjdump;
pub mod lexer;
pub mod link;
pub mod parser;
pub mod printer;
pub mod source;
pub mod spans;

pub use printer::print;
pub use source::{Diagnostic, SourceFile};

/// Parses a whole file. On syntax errors, returns every error found (the parser recovers at the
/// next `;` or `}` and keeps going), sorted by position.
pub fn parse(file: &SourceFile) -> Result<ast::Module, Vec<Diagnostic>> {
    if file.text.len() >= u32::MAX as usize {
        // Spans are 32-bit byte offsets.
        return Err(vec![Diagnostic::new("file too large: PTX files of 4 GiB or more are not supported", ast::Span::new(0, 0))]);
    }
    // `cuobjdump -ptx` output parses as the PTX it contains.
    let blanked = cuobjdump::blank_header_lines(&file.text);
    let mut p = parser::Parser::new(blanked.as_deref().unwrap_or(&file.text));
    let module = p.parse_module();
    let mut errors = p.finish();
    if errors.is_empty() {
        Ok(module)
    } else {
        errors.sort_by_key(|d| (d.span.start, d.span.end));
        Err(errors)
    }
}

/// Parses a PTX text given as a string (file name `<input>`); convenience for tests and tools.
pub fn parse_str(text: &str) -> Result<ast::Module, Vec<Diagnostic>> {
    parse(&SourceFile::new("<input>", text))
}
