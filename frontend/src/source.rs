//! Source files and diagnostics: byte spans → `file:line:col`, rustc-style rendering.

use crate::ast::Span;

/// One PTX source text with a line index for span → line/column lookups.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<u32>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        SourceFile { name: name.into(), text, line_starts }
    }

    /// 1-based line and column (column counted in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = offset.min(self.text.len() as u32);
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).max(start);
        let col = self.text.get(start..end).map(|s| s.chars().count()).unwrap_or(end - start);
        (line as u32 + 1, col as u32 + 1)
    }

    /// `file:line:col` of the start of a span.
    pub fn location(&self, span: Span) -> String {
        let (l, c) = self.line_col(span.start);
        format!("{}:{}:{}", self.name, l, c)
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        let i = (line.max(1) - 1) as usize;
        let start = *self.line_starts.get(i).unwrap_or(&(self.text.len() as u32)) as usize;
        let end = self.line_starts.get(i + 1).map(|&e| e as usize).unwrap_or(self.text.len());
        self.text.get(start..end).unwrap_or("").trim_end_matches(['\n', '\r'])
    }
}

/// A located message about the source: a syntax error, an unsupported feature, a type error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub message: String,
    pub span: Span,
    /// Text under the caret, e.g. "expected `;`".
    pub label: Option<String>,
}

impl Diagnostic {
    pub fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic { message: message.into(), span, label: None }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    /// One line: `file:line:col: message`.
    pub fn short(&self, file: &SourceFile) -> String {
        format!("{}: {}", file.location(self.span), self.message)
    }

    /// rustc-like rendering with the source line and a caret under the span:
    /// ```text
    /// error: expected `;`
    ///  --> kern.ptx:12:20
    ///    |
    /// 12 |     add.s32 %r1, %r2
    ///    |                     ^ expected `;`
    /// ```
    pub fn render(&self, file: &SourceFile) -> String {
        let (line, col) = file.line_col(self.span.start);
        let text = file.line_text(line);
        let gutter = line.to_string().len();
        let (end_line, end_col) = file.line_col(self.span.end.max(self.span.start + 1));
        let width = if end_line == line { (end_col.saturating_sub(col)).max(1) } else { 1 };
        let pad = " ".repeat(gutter);
        let caret_pad: String = text
            .chars()
            .take(col as usize - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let mut out = format!(
            "error: {}\n{pad}--> {}:{}:{}\n{pad} |\n{line} | {text}\n{pad} | {caret_pad}{}",
            self.message,
            file.name,
            line,
            col,
            "^".repeat(width as usize)
        );
        if let Some(label) = &self.label {
            out.push(' ');
            out.push_str(label);
        }
        out.push('\n');
        out
    }
}
