//! ptxcross-frontend: PTX text → [`ast::Module`] with spans, and diagnostics.
//!
//! The frontend knows nothing of targets. It accepts the syntax of every PTX ISA version; an
//! instruction parses as opcode + modifiers + operands whatever it is, so that deciding what is
//! supported is left to `ptxcross-lower`, with the spans recorded here.

pub mod ast;
pub mod source;

pub use source::{Diagnostic, SourceFile};

/// Parses a whole file. On syntax errors, returns every error found (the parser recovers at the
/// next `;` or `}` and keeps going).
pub fn parse(file: &SourceFile) -> Result<ast::Module, Vec<Diagnostic>> {
    let _ = file;
    unimplemented!("parser: being written")
}
