//! Recursive-descent PTX parser over the token vector from [`crate::lexer`].
//!
//! * Every function either makes progress or returns; syntax errors are recorded as
//!   [`Diagnostic`]s ("expected X, found Y" on the offending token) and the parser recovers at the
//!   next `;` or `}` of the current statement, so all errors of a file are reported.
//! * Recursion (nested blocks, initializer lists, vector operands, expressions) is bounded by
//!   [`MAX_DEPTH`]; deeper input is an error, never a stack overflow.
//! * Directives are classified by their *form* (see [`DirForm`]): PTX mixes line-terminated
//!   directives (`.loc`, `.file`, `@@DWARF`), `;`-terminated ones (`.pragma`, `.alias`,
//!   `.branchtargets`), value lists without terminator (`.maxntid 256, 1, 1`), and blocks
//!   (`.section .debug_info { … }`). The printer uses the same classification.

use crate::ast::*;
use crate::lexer::{Lexer, Tk, Token};
use crate::source::Diagnostic;

/// Maximum nesting of blocks, braces, brackets, parentheses and unary operators.
pub const MAX_DEPTH: u32 = 256;
/// After this many errors the parser stops (the input is probably not PTX at all).
pub const MAX_ERRORS: usize = 200;

/// How a directive ends. Shared with the printer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirForm {
    /// Ends at the end of the line (an optional `;` is consumed): `.loc`, `.file`, `@@DWARF`,
    /// and `.section` written without a `{` block (PTX 1.x).
    Line,
    /// `.section name { … }`
    Block,
    /// A value list with no terminator: `.maxntid 256, 1, 1`, `.noreturn`.
    Values,
    /// Ends with `;`: `.pragma "nounroll";`, `.alias a, b;`, `.callprototype …;`.
    Semi,
}

/// Where a directive appears; decides the form of directives the table does not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirContext {
    Module,
    FunctionHeader,
    Body,
}

/// The form of a directive by name (without the dot) and context. `.section` is `Block` here;
/// whether a given `.section` really had a block is seen from its raw text (contains `{`).
pub fn directive_form(name: &str, ctx: DirContext) -> DirForm {
    match name {
        "loc" | "file" | "@@dwarf" => DirForm::Line,
        "section" => DirForm::Block,
        "maxntid" | "reqntid" | "minnctapersm" | "maxnctapersm" | "maxnreg" | "noreturn" | "explicitcluster"
        | "reqnctapercluster" | "maxclusterrank" | "blocksareclusters" => DirForm::Values,
        "pragma" | "alias" | "branchtargets" | "calltargets" | "callprototype" => DirForm::Semi,
        _ if ctx == DirContext::FunctionHeader => DirForm::Values,
        _ => DirForm::Semi,
    }
}

pub(crate) fn space_from_name(s: &str) -> Option<StateSpace> {
    Some(match s {
        "reg" => StateSpace::Reg,
        "sreg" => StateSpace::Sreg,
        "const" => StateSpace::Const,
        "global" => StateSpace::Global,
        "local" => StateSpace::Local,
        "param" => StateSpace::Param,
        "shared" => StateSpace::Shared,
        "shared::cta" => StateSpace::SharedCta,
        "shared::cluster" => StateSpace::SharedCluster,
        "tex" => StateSpace::Tex,
        "param::entry" => StateSpace::ParamEntry,
        "param::func" => StateSpace::ParamFunc,
        _ => return None,
    })
}

pub(crate) fn space_name(s: StateSpace) -> &'static str {
    match s {
        StateSpace::Reg => "reg",
        StateSpace::Sreg => "sreg",
        StateSpace::Const => "const",
        StateSpace::Global => "global",
        StateSpace::Local => "local",
        StateSpace::Param => "param",
        StateSpace::Shared => "shared",
        StateSpace::SharedCta => "shared::cta",
        StateSpace::SharedCluster => "shared::cluster",
        StateSpace::Tex => "tex",
        StateSpace::ParamEntry => "param::entry",
        StateSpace::ParamFunc => "param::func",
    }
}

fn linkage_from_name(s: &str) -> Option<Linkage> {
    Some(match s {
        "visible" => Linkage::Visible,
        "extern" => Linkage::Extern,
        "weak" => Linkage::Weak,
        "common" => Linkage::Common,
        _ => return None,
    })
}

/// Marker: a diagnostic has been recorded.
#[derive(Debug)]
pub struct PErr;
type PResult<T> = Result<T, PErr>;

/// Tokens lexed ahead of the current one; `peek_at(k)` is valid for `k < LOOKAHEAD`.
const LOOKAHEAD: usize = 16;
/// Tokens are lexed in chunks of this many into a window that is compacted at statement
/// boundaries, so the parser never holds the whole file's tokens.
const CHUNK: usize = 2048;

pub struct Parser<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    /// The token window: `toks[0]` is token number `base` of the file.
    toks: Vec<Token>,
    base: usize,
    /// More tokens can be lexed (no `Eof` in the window yet).
    more: bool,
    /// Index (in the whole file) of the current token.
    pos: usize,
    pub errors: Vec<Diagnostic>,
    depth: u32,
    /// Set when parsing the operands of `call`: `(a, b)` is an argument list there.
    in_call: bool,
    /// Set by an error that already left the parser at a good restart point (a missing `;` at
    /// the end of a line): the next recovery skips nothing.
    resync: bool,
    /// Scratch stacks so that AST vectors are allocated once, at their exact size.
    op_stack: Vec<Operand>,
    mod_scratch: Vec<Modifier>,
    stmt_stack: Vec<Statement>,
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str) -> Parser<'a> {
        let mut lexer = Lexer::new(src);
        let mut toks = Vec::with_capacity(CHUNK + LOOKAHEAD * 2);
        let more = lexer.fill(&mut toks, CHUNK);
        Parser {
            lexer,
            toks,
            base: 0,
            more, src, pos: 0, errors: Vec::new(), depth: 0, in_call: false, resync: false, op_stack: Vec::new(), mod_scratch: Vec::new(), stmt_stack: Vec::new() }
    }

    // ---------------------------------------------------------------- token helpers

    /// All diagnostics: the lexer's and the parser's.
    pub fn finish(self) -> Vec<Diagnostic> {
        let mut e = self.lexer.errors;
        e.extend(self.errors);
        e
    }

    /// The token `i` (absolute index) if it is still in the window.
    #[inline]
    fn tok(&self, i: usize) -> Token {
        let j = i.saturating_sub(self.base).min(self.toks.len() - 1);
        self.toks[j]
    }
    #[inline]
    fn peek(&self) -> Token {
        self.toks[self.pos - self.base]
    }
    #[inline]
    fn peek_at(&self, k: usize) -> Token {
        debug_assert!(k < LOOKAHEAD);
        let i = (self.pos - self.base + k).min(self.toks.len() - 1);
        self.toks[i]
    }
    #[inline]
    fn kind(&self) -> Tk {
        self.toks[self.pos - self.base].kind
    }
    #[inline]
    fn bump(&mut self) -> Token {
        let t = self.peek();
        if t.kind != Tk::Eof {
            self.pos += 1;
            if self.more && self.pos - self.base + LOOKAHEAD >= self.toks.len() {
                self.more = self.lexer.fill(&mut self.toks, CHUNK);
            }
        }
        t
    }
    /// At a statement boundary: drops consumed tokens from the window (keeping a few behind
    /// for `prev_end`).
    #[inline]
    fn compact(&mut self) {
        let used = self.pos - self.base;
        if used > CHUNK * 2 {
            let cut = used - 4;
            self.toks.drain(..cut);
            self.base += cut;
        }
    }
    #[inline]
    fn text(&self, t: Token) -> &'a str {
        self.src.get(t.start as usize..t.end as usize).unwrap_or("")
    }
    /// The name of a `.word` token without the dot.
    #[inline]
    fn dot_name(&self, t: Token) -> &'a str {
        self.src.get(t.start as usize + 1..t.end as usize).unwrap_or("")
    }
    #[inline]
    fn at_dot(&self, name: &str) -> bool {
        let t = self.peek();
        t.kind == Tk::DotWord && self.dot_name(t) == name
    }
    fn prev_end(&self) -> u32 {
        if self.pos == 0 {
            0
        } else {
            self.tok(self.pos - 1).end
        }
    }
    fn eat(&mut self, k: Tk) -> bool {
        if self.kind() == k {
            self.bump();
            true
        } else {
            false
        }
    }

    fn describe(&self, t: Token) -> String {
        match t.kind {
            Tk::Eof => "end of file".to_string(),
            Tk::Error => format!("unexpected character `{}`", self.text(t).escape_debug()),
            _ => {
                let s = self.text(t);
                let mut short: String = s.chars().take(40).collect();
                if short.len() < s.len() {
                    short.push('…');
                }
                format!("`{}`", short.escape_debug())
            }
        }
    }

    fn error(&mut self, d: Diagnostic) -> PErr {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(d);
        }
        PErr
    }

    /// "expected {what}, found {current token}" on the current token.
    fn expected(&mut self, what: &str) -> PErr {
        let t = self.peek();
        let msg = format!("expected {}, found {}", what, self.describe(t));
        self.error(Diagnostic::new(msg, t.span()).with_label(format!("expected {what}")))
    }

    /// Like [`expected`] for a missing terminator: if the offending token starts a new line,
    /// the caret goes right after the previous token (where the terminator is missing).
    fn expected_terminator(&mut self, what: &str) -> PErr {
        let t = self.peek();
        let span = if t.at_line_start() && self.pos > 0 {
            let e = self.prev_end();
            Span::new(e, e)
        } else {
            t.span()
        };
        let msg = format!("expected {}, found {}", what, self.describe(t));
        self.error(Diagnostic::new(msg, span).with_label(format!("expected {what}")))
    }

    fn expect(&mut self, k: Tk, what: &str) -> PResult<Token> {
        if self.kind() == k {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    #[inline(always)]
    fn enter(&mut self) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.too_deep());
        }
        self.depth += 1;
        Ok(())
    }
    #[cold]
    #[inline(never)]
    fn too_deep(&mut self) -> PErr {
        let t = self.peek();
        self.error(Diagnostic::new(format!("nesting too deep (more than {MAX_DEPTH} levels)"), t.span()))
    }
    #[inline(always)]
    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        let t = self.peek();
        if t.kind == Tk::Ident {
            self.bump();
            Ok(Ident { name: Name::new(self.text(t)), span: t.span() })
        } else {
            Err(self.expected(what))
        }
    }

    fn number_u64(&mut self, what: &str) -> PResult<(u64, Span)> {
        let t = self.peek();
        if t.kind != Tk::Number {
            return Err(self.expected(what));
        }
        self.bump();
        match parse_number(self.text(t), t.span()) {
            Ok(Expr::Int { value, .. }) => Ok((value, t.span())),
            Ok(_) => Err(self.error(Diagnostic::new(format!("expected {what}, found a floating-point literal"), t.span()))),
            Err(m) => Err(self.error(Diagnostic::new(m, t.span()))),
        }
    }

    fn number_u32(&mut self, what: &str) -> PResult<u32> {
        let (v, span) = self.number_u64(what)?;
        u32::try_from(v).map_err(|_| self.error(Diagnostic::new(format!("{what} out of range: {v}"), span)))
    }

    // ---------------------------------------------------------------- recovery

    /// Skips the rest of a broken statement: up to and including the next `;`, or up to (not
    /// including) a `}` that closes an enclosing block. Braces opened since `stmt_start` (vector
    /// operands, initializer lists) are balanced first. Stops before a token that starts a new
    /// function (`.entry`, `.func`, `.visible` … at the start of a line).
    fn recover_statement(&mut self, stmt_start: usize) {
        if std::mem::take(&mut self.resync) {
            return;
        }
        let mut open: i64 = 0;
        let from = stmt_start.min(self.pos).saturating_sub(self.base);
        for t in &self.toks[from..self.pos - self.base] {
            match t.kind {
                Tk::LBrace => open += 1,
                Tk::RBrace => open -= 1,
                _ => {}
            }
        }
        let mut open = open.max(0);
        loop {
            let t = self.peek();
            match t.kind {
                Tk::Eof => return,
                Tk::Semi => {
                    self.bump();
                    return;
                }
                Tk::LBrace => open += 1,
                Tk::RBrace => {
                    if open == 0 {
                        return;
                    }
                    open -= 1;
                }
                Tk::DotWord if t.at_line_start() && self.starts_item(t) => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// `.entry`, `.func`, `.visible`, `.weak`, `.extern`, `.version`, `.target`…: tokens that only
    /// begin module-scope items (used to stop recovery from running into the next function).
    fn starts_item(&self, t: Token) -> bool {
        matches!(
            self.dot_name(t),
            "entry" | "func" | "visible" | "weak" | "version" | "target" | "address_size"
        )
    }

    /// Skips a broken module-scope item: to the next `;` at brace depth 0, or past a balanced
    /// `{ … }` block, or to the next item-starting token at the start of a line.
    fn recover_item(&mut self) {
        let mut depth = 0i64;
        let start = self.pos;
        loop {
            let t = self.peek();
            match t.kind {
                Tk::Eof => return,
                Tk::Semi if depth == 0 => {
                    self.bump();
                    return;
                }
                Tk::LBrace => depth += 1,
                Tk::RBrace => {
                    depth -= 1;
                    if depth <= 0 {
                        self.bump();
                        return;
                    }
                }
                Tk::DotWord if depth == 0 && self.pos > start && t.at_line_start() && self.starts_item(t) => return,
                _ => {}
            }
            self.bump();
        }
    }

    // ---------------------------------------------------------------- module

    pub fn parse_module(&mut self) -> Module {
        let mut m = Module { version: None, target: Vec::new(), address_size: None, items: Vec::new() };
        loop {
            if self.errors.len() >= MAX_ERRORS {
                break;
            }
            self.compact();
            let start = self.pos;
            let t = self.peek();
            match t.kind {
                Tk::Eof => break,
                Tk::Semi => {
                    self.bump();
                }
                Tk::AtAt => {
                    if let Ok(d) = self.dwarf_directive() {
                        m.items.push(Item::Directive(d));
                    }
                }
                Tk::DotWord => {
                    let name = self.dot_name(t);
                    let r = match name {
                        "version" => self.version(&mut m),
                        "target" => self.target(&mut m),
                        "address_size" => self.address_size(&mut m),
                        _ if linkage_from_name(name).is_some()
                            || name == "entry"
                            || name == "func"
                            || space_from_name(name).is_some() =>
                        {
                            self.item().map(|it| m.items.push(it))
                        }
                        _ => self.directive(DirContext::Module).map(|d| m.items.push(Item::Directive(d))),
                    };
                    if r.is_err() {
                        if self.pos == start {
                            self.bump();
                        }
                        self.recover_item();
                    }
                }
                _ => {
                    let _ = self.expected("a directive (`.entry`, `.func`, `.global`, …)");
                    self.bump();
                    self.recover_item();
                }
            }
            if self.pos == start {
                // Never loop without progress.
                self.bump();
            }
        }
        m
    }

    fn version(&mut self, m: &mut Module) -> PResult<()> {
        self.bump();
        let t = self.peek();
        if t.kind != Tk::Number {
            return Err(self.expected("a version number like `8.5`"));
        }
        self.bump();
        let s = self.text(t);
        let parsed = s
            .split_once('.')
            .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
        match parsed {
            Some(v) => m.version = Some(v),
            None => {
                return Err(self.error(
                    Diagnostic::new(format!("expected a version number like `8.5`, found `{s}`"), t.span())
                        .with_label("expected major.minor"),
                ))
            }
        }
        self.eat(Tk::Semi);
        Ok(())
    }

    fn target(&mut self, m: &mut Module) -> PResult<()> {
        self.bump();
        loop {
            let t = self.peek();
            if t.kind != Tk::Ident {
                return Err(self.expected("a target name like `sm_80`"));
            }
            self.bump();
            m.target.push(self.text(t).to_string());
            if !self.eat(Tk::Comma) {
                break;
            }
        }
        self.eat(Tk::Semi);
        Ok(())
    }

    fn address_size(&mut self, m: &mut Module) -> PResult<()> {
        self.bump();
        m.address_size = Some(self.number_u32("an address size (32 or 64)")?);
        self.eat(Tk::Semi);
        Ok(())
    }

    /// Linkage* then `.entry`/`.func` or a variable declaration.
    fn item(&mut self) -> PResult<Item> {
        let start = self.peek().start;
        let mut linkage = Vec::new();
        loop {
            let t = self.peek();
            if t.kind != Tk::DotWord {
                break;
            }
            match linkage_from_name(self.dot_name(t)) {
                Some(l) => {
                    linkage.push(l);
                    self.bump();
                }
                None => break,
            }
        }
        let t = self.peek();
        if t.kind == Tk::DotWord {
            match self.dot_name(t) {
                "entry" => return self.function(FunctionKind::Entry, linkage, start).map(Item::Function),
                "func" => return self.function(FunctionKind::Func, linkage, start).map(Item::Function),
                n if space_from_name(n).is_some() => return self.var_decl(linkage, start).map(Item::Var),
                _ => {}
            }
        }
        Err(self.expected("`.entry`, `.func` or a state space"))
    }

    // ---------------------------------------------------------------- functions

    fn function(&mut self, kind: FunctionKind, linkage: Vec<Linkage>, start: u32) -> PResult<Function> {
        self.bump(); // .entry / .func
        let mut directives = Vec::new();
        // `.func .attribute(.unified(0xAB, 0xCD)) bar()`: kept with the other directives.
        while self.at_dot("attribute") {
            directives.push(self.directive(DirContext::FunctionHeader)?);
        }
        let mut returns = Vec::new();
        if self.kind() == Tk::LParen {
            returns = self.param_list()?;
        }
        let name = self.ident("a function name")?;
        let mut params = Vec::new();
        if self.kind() == Tk::LParen {
            params = self.param_list()?;
        }
        loop {
            match self.kind() {
                Tk::DotWord => {
                    let d = self.directive(DirContext::FunctionHeader)?;
                    directives.push(d);
                }
                Tk::AtAt => directives.push(self.dwarf_directive()?),
                Tk::Semi => {
                    let end = self.bump().end;
                    return Ok(Function {
                        kind,
                        linkage,
                        name,
                        returns,
                        params,
                        directives,
                        body: None,
                        span: Span::new(start, end),
                    });
                }
                Tk::LBrace => {
                    let (body, span) = self.block()?;
                    return Ok(Function {
                        kind,
                        linkage,
                        name,
                        returns,
                        params,
                        directives,
                        body: Some(body),
                        span: Span::new(start, span.end),
                    });
                }
                _ => return Err(self.expected("`{`, `;` or a performance directive")),
            }
        }
    }

    fn param_list(&mut self) -> PResult<Vec<Param>> {
        self.bump(); // (
        let mut params = Vec::new();
        if self.eat(Tk::RParen) {
            return Ok(params);
        }
        loop {
            params.push(self.param()?);
            match self.kind() {
                Tk::Comma => {
                    self.bump();
                }
                Tk::RParen => {
                    self.bump();
                    return Ok(params);
                }
                _ => return Err(self.expected("`,` or `)`")),
            }
        }
    }

    /// `.param .u64 .ptr .global .align 8 name`, `.param .align 8 .b8 s[16]`, `.reg .b32 x`.
    fn param(&mut self) -> PResult<Param> {
        let start = self.peek().start;
        let mut space = None;
        let mut ptr: Option<PtrAttr> = None;
        let mut align = None;
        let mut ty = None;
        let mut vector = None;
        // `.align` right after `.ptr [.space]` is the pointee alignment.
        let mut after_ptr = false;
        loop {
            let t = self.peek();
            if t.kind != Tk::DotWord {
                break;
            }
            let n = self.dot_name(t);
            let was_after_ptr = std::mem::take(&mut after_ptr);
            if n == "align" {
                self.bump();
                let a = self.number_u32("an alignment")?;
                match &mut ptr {
                    Some(p) if was_after_ptr => p.align = Some(a),
                    _ => align = Some(a),
                }
            } else if n == "ptr" {
                after_ptr = true;
                self.bump();
                let mut p = PtrAttr { space: None, align: None };
                if self.kind() == Tk::DotWord {
                    let n2 = self.dot_name(self.peek());
                    if n2 != "align" {
                        if let Some(s) = space_from_name(n2) {
                            p.space = Some(s);
                            self.bump();
                        }
                    }
                }
                ptr = Some(p);
            } else if let Some(v) = vector_width(n) {
                self.bump();
                vector = Some(v);
            } else if let Some(s) = ScalarType::from_suffix(n) {
                self.bump();
                ty = Some(s);
            } else if let Some(s) = space_from_name(n) {
                if space.is_some() || ty.is_some() {
                    return Err(self.expected("a parameter name"));
                }
                self.bump();
                space = Some(s);
            } else {
                return Err(self.expected("a parameter type"));
            }
        }
        let Some(ty) = ty else {
            return Err(self.expected("a parameter type"));
        };
        let name = self.ident("a parameter name")?;
        let array = self.array_dims()?;
        let end = self.prev_end();
        Ok(Param { space, ptr, align, ty, vector, name, array, span: Span::new(start, end) })
    }

    fn array_dims(&mut self) -> PResult<Vec<Option<u64>>> {
        let mut dims = Vec::new();
        while self.kind() == Tk::LBracket {
            self.bump();
            if self.eat(Tk::RBracket) {
                dims.push(None);
                continue;
            }
            let (v, _) = self.number_u64("an array size")?;
            self.expect(Tk::RBracket, "`]`")?;
            dims.push(Some(v));
        }
        Ok(dims)
    }

    /// `{ statements }`; the current token is `{`. Returns the statements and the span including
    /// both braces.
    fn block(&mut self) -> PResult<(Vec<Statement>, Span)> {
        let open = self.bump();
        self.enter()?;
        let stack_base = self.stmt_stack.len();
        let end;
        loop {
            if self.errors.len() >= MAX_ERRORS {
                end = self.prev_end();
                break;
            }
            let t = self.peek();
            match t.kind {
                Tk::RBrace => {
                    end = self.bump().end;
                    break;
                }
                Tk::Eof => {
                    let _ = self.error(
                        Diagnostic::new("expected `}`, found end of file", t.span())
                            .with_label("unclosed block"),
                    );
                    end = t.end;
                    break;
                }
                Tk::DotWord if t.at_line_start() && matches!(self.dot_name(t), "entry" | "func" | "version" | "target") => {
                    let _ = self.error(
                        Diagnostic::new(format!("expected `}}`, found {}", self.describe(t)), t.span())
                            .with_label("the previous block is not closed"),
                    );
                    end = self.prev_end();
                    break;
                }
                _ => {}
            }
            self.compact();
            let start = self.pos;
            if self.statement().is_err() {
                self.recover_statement(start);
            }
            if self.pos == start {
                self.bump();
            }
        }
        self.leave();
        let stmts: Vec<Statement> = split_exact(&mut self.stmt_stack, stack_base);
        Ok((stmts, Span::new(open.start, end)))
    }

    /// Parses one statement onto `stmt_stack`.
    fn statement(&mut self) -> PResult<()> {
        let t = self.peek();
        match t.kind {
            Tk::Semi => {
                self.bump();
                Ok(())
            }
            Tk::LBrace => {
                let (b, span) = self.block()?;
                self.stmt_stack.push(Statement::Block(b, span));
                Ok(())
            }
            Tk::Ident if self.peek_at(1).kind == Tk::Colon => {
                self.bump();
                self.bump();
                self.stmt_stack.push(Statement::Label(Ident { name: Name::new(self.text(t)), span: t.span() }));
                Ok(())
            }
            Tk::Ident | Tk::At => {
                let i = self.instruction()?;
                self.stmt_stack.push(Statement::Instruction(i));
                Ok(())
            }
            Tk::AtAt => {
                let d = self.dwarf_directive()?;
                self.stmt_stack.push(Statement::Directive(d));
                Ok(())
            }
            Tk::DotWord => {
                let n = self.dot_name(t);
                if matches!(n, "entry" | "func" | "version" | "target" | "address_size") {
                    return Err(self.expected("an instruction, label, declaration or directive"));
                }
                if space_from_name(n).is_some() || linkage_from_name(n).is_some() {
                    let mut linkage = Vec::new();
                    while self.kind() == Tk::DotWord {
                        match linkage_from_name(self.dot_name(self.peek())) {
                            Some(l) => {
                                linkage.push(l);
                                self.bump();
                            }
                            None => break,
                        }
                    }
                    let v = self.var_decl(linkage, t.start)?;
                    self.stmt_stack.push(Statement::Var(v));
                } else {
                    let d = self.directive(DirContext::Body)?;
                    self.stmt_stack.push(Statement::Directive(d));
                }
                Ok(())
            }
            _ => Err(self.expected("an instruction, label, declaration or directive")),
        }
    }

    // ---------------------------------------------------------------- variables

    /// `[linkage] .space [.align N] [.vN] [.attribute(…)] .type name[<N>][dims][= init], … ;`
    /// (the linkage words have been consumed; the current token is the state space).
    fn var_decl(&mut self, linkage: Vec<Linkage>, start: u32) -> PResult<VarDecl> {
        let st = self.peek();
        let space = match space_from_name(self.dot_name(st)) {
            Some(s) if st.kind == Tk::DotWord => s,
            _ => return Err(self.expected("a state space")),
        };
        self.bump();
        let mut attributes = Vec::new();
        // `.const[2]`: a PTX 1.x constant bank, kept as attribute `[2]`.
        if self.kind() == Tk::LBracket && !self.peek().spaced() {
            let b0 = self.bump();
            let (v, _) = self.number_u64("a constant bank number")?;
            let _ = b0;
            self.expect(Tk::RBracket, "`]`")?;
            attributes.push(format!("[{v}]"));
        }
        let mut align = None;
        let mut vector = None;
        let ty;
        loop {
            let t = self.peek();
            if t.kind != Tk::DotWord {
                return Err(self.expected("a type"));
            }
            let n = self.dot_name(t);
            if n == "align" {
                self.bump();
                align = Some(self.number_u32("an alignment")?);
            } else if let Some(v) = vector_width(n) {
                self.bump();
                vector = Some(v);
            } else if let Some(s) = ScalarType::from_suffix(n) {
                self.bump();
                ty = s;
                break;
            } else if n == "attribute" {
                self.bump();
                let open = self.expect(Tk::LParen, "`(`")?;
                let close = self.skip_balanced_parens(open)?;
                let text = self.src.get(t.start as usize..close.end as usize).unwrap_or("");
                attributes.push(text.to_string());
            } else if n == "ptr" {
                self.bump();
                attributes.push(".ptr".to_string());
            } else {
                return Err(self.expected("a type"));
            }
        }
        // Tolerate `.align` after the type (seen in some hand-written PTX).
        while self.at_dot("align") {
            self.bump();
            align = Some(self.number_u32("an alignment")?);
        }
        let mut names = Vec::new();
        loop {
            names.push(self.var_name()?);
            match self.kind() {
                Tk::Comma => {
                    self.bump();
                }
                Tk::Semi => {
                    let end = self.bump().end;
                    return Ok(VarDecl { linkage, space, align, vector, ty, attributes, names, span: Span::new(start, end) });
                }
                _ => return Err(self.expected_terminator("`;`")),
            }
        }
    }

    /// After `(`: skips to the matching `)` and returns it.
    fn skip_balanced_parens(&mut self, _open: Token) -> PResult<Token> {
        let mut depth = 1u32;
        loop {
            let t = self.peek();
            match t.kind {
                Tk::LParen => depth += 1,
                Tk::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(self.bump());
                    }
                }
                Tk::Eof | Tk::Semi | Tk::LBrace | Tk::RBrace => return Err(self.expected("`)`")),
                _ => {}
            }
            self.bump();
        }
    }

    fn var_name(&mut self) -> PResult<VarName> {
        let name = self.ident("a variable name")?;
        let start = name.span.start;
        let mut range = None;
        if self.kind() == Tk::Lt {
            self.bump();
            range = Some(self.number_u32("a register count")?);
            self.expect(Tk::Gt, "`>`")?;
        }
        let array = self.array_dims()?;
        let mut init = None;
        if self.eat(Tk::Assign) {
            init = Some(self.initializer()?);
        }
        let end = self.prev_end();
        Ok(VarName { name, range, array, init, span: Span::new(start, end) })
    }

    fn initializer(&mut self) -> PResult<Initializer> {
        if self.kind() != Tk::LBrace {
            return Ok(Initializer::Expr(self.expr()?));
        }
        let open = self.bump();
        self.enter()?;
        let r = (|| {
            let mut items = Vec::new();
            if self.kind() != Tk::RBrace {
                loop {
                    if self.kind() == Tk::Ident && self.peek_at(1).kind == Tk::Assign {
                        // `{ filter_mode = nearest }` (sampler/texture fields): see `Initializer`.
                        let f = self.bump();
                        self.bump();
                        let value = self.expr()?;
                        let span = Span::new(f.start, value.span().end);
                        let lhs = Expr::Symbol { name: Name::new(self.text(f)), span: f.span() };
                        items.push(Initializer::Expr(Expr::Binary {
                            op: BinaryOp::Eq,
                            lhs: Box::new(lhs),
                            rhs: Box::new(value),
                            span,
                        }));
                    } else {
                        items.push(self.initializer()?);
                    }
                    if !self.eat(Tk::Comma) {
                        break;
                    }
                }
            }
            let close = self.expect(Tk::RBrace, "`,` or `}`")?;
            Ok(Initializer::List(items, Span::new(open.start, close.end)))
        })();
        self.leave();
        r
    }

    // ---------------------------------------------------------------- directives

    /// A directive at the current `.word` token, terminated according to its form.
    fn directive(&mut self, ctx: DirContext) -> PResult<Directive> {
        let t = self.bump();
        let name = self.dot_name(t).to_string();
        let form = directive_form(&name, ctx);
        self.directive_rest(name, t.start, form, ctx)
    }

    /// `@@DWARF rest-of-line`
    fn dwarf_directive(&mut self) -> PResult<Directive> {
        let at = self.bump();
        let t = self.peek();
        if t.kind != Tk::Ident || !self.text(t).eq_ignore_ascii_case("dwarf") || t.spaced() {
            return Err(self.expected("`DWARF` after `@@`"));
        }
        self.bump();
        self.directive_rest("@@dwarf".to_string(), at.start, DirForm::Line, DirContext::Module)
    }

    fn directive_rest(&mut self, name: String, start: u32, form: DirForm, ctx: DirContext) -> PResult<Directive> {
        let first = self.pos;
        let (last, end, collect_args);
        match form {
            DirForm::Line => {
                while !self.peek().at_line_start() && !matches!(self.kind(), Tk::Semi | Tk::Eof) {
                    self.bump();
                }
                last = self.pos;
                end = self.prev_end();
                if !self.peek().at_line_start() {
                    self.eat(Tk::Semi);
                }
                collect_args = true;
            }
            DirForm::Block => {
                // Name tokens up to `{` (possibly on the next line); without a block (PTX 1.x
                // `.section .debug_info, "", @progbits`) it is a line directive.
                while !matches!(self.kind(), Tk::LBrace | Tk::Semi | Tk::Eof | Tk::RBrace) && !self.peek().at_line_start() {
                    self.bump();
                }
                if self.kind() == Tk::LBrace {
                    self.bump();
                    let mut depth = 1u32;
                    loop {
                        let t = self.peek();
                        match t.kind {
                            Tk::LBrace => depth += 1,
                            Tk::RBrace => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            Tk::Eof => {
                                return Err(self.error(
                                    Diagnostic::new("expected `}`, found end of file", t.span())
                                        .with_label("unclosed section"),
                                ))
                            }
                            _ => {}
                        }
                        self.bump();
                    }
                    last = self.pos;
                    end = self.prev_end();
                    self.bump(); // }
                    collect_args = false;
                } else {
                    last = self.pos;
                    end = self.prev_end();
                    if self.kind() == Tk::Semi && !self.peek().at_line_start() {
                        self.bump();
                    }
                    collect_args = true;
                }
            }
            DirForm::Values if name == "attribute" => {
                // `.attribute(.unified(1, 2))`: exactly one parenthesized group.
                let open = self.expect(Tk::LParen, "`(`")?;
                self.skip_balanced_parens(open)?;
                last = self.pos;
                end = self.prev_end();
                collect_args = true;
            }
            DirForm::Values => {
                let mut prev_comma = true;
                loop {
                    let t = self.peek();
                    let value = matches!(t.kind, Tk::Number | Tk::Ident | Tk::Str | Tk::Minus | Tk::Plus | Tk::Colon);
                    if value && t.at_line_start() && !prev_comma && self.pos != first {
                        break;
                    }
                    match t.kind {
                        _ if value => {
                            self.bump();
                            prev_comma = false;
                        }
                        Tk::Comma => {
                            self.bump();
                            prev_comma = true;
                        }
                        Tk::LParen => {
                            let open = self.bump();
                            self.skip_balanced_parens(open)?;
                            prev_comma = false;
                        }
                        _ => break,
                    }
                }
                last = self.pos;
                end = self.prev_end();
                if ctx != DirContext::FunctionHeader && self.kind() == Tk::Semi {
                    self.bump();
                }
                collect_args = true;
            }
            DirForm::Semi => {
                // A token at the start of a line ends the directive (a missing `;`) unless it
                // continues a list (`.branchtargets` NL `L1,` NL `L2;`) or sits in parentheses.
                let mut depth = 0u32;
                let mut prev = Tk::Comma;
                loop {
                    let t = self.peek();
                    match t.kind {
                        Tk::Semi => break,
                        Tk::Eof | Tk::LBrace | Tk::RBrace => return Err(self.expected_terminator("`;`")),
                        _ if t.at_line_start() && depth == 0 && prev != Tk::Comma => {
                            let e = self.expected_terminator("`;`");
                            return Err(self.no_skip(e));
                        }
                        Tk::LParen => depth += 1,
                        Tk::RParen => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    prev = t.kind;
                    self.bump();
                }
                last = self.pos;
                end = self.prev_end();
                self.bump(); // ;
                collect_args = true;
            }
        }
        let raw = if last > first {
            let s = self.tok(first).start as usize;
            let e = self.tok(last - 1).end as usize;
            self.src.get(s..e).unwrap_or("").to_string()
        } else {
            String::new()
        };
        let mut args = Vec::new();
        if collect_args {
            let mut neg = false;
            for i in first..last {
                let t = self.tok(i);
                match t.kind {
                    Tk::Number => {
                        if let Ok(Expr::Int { value, .. }) = parse_number(self.text(t), t.span()) {
                            let v = value as i64;
                            args.push(DirectiveArg::Int(if neg { v.wrapping_neg() } else { v }));
                        }
                    }
                    Tk::Ident | Tk::DotWord => args.push(DirectiveArg::Ident(self.text(t).to_string())),
                    Tk::Str => {
                        let s = self.text(t);
                        let inner = s.strip_prefix('"').unwrap_or(s);
                        let inner = inner.strip_suffix('"').unwrap_or(inner);
                        args.push(DirectiveArg::Str(inner.to_string()));
                    }
                    _ => {}
                }
                neg = t.kind == Tk::Minus;
            }
        }
        Ok(Directive { name, raw, args, span: Span::new(start, end.max(start)) })
    }

    // ---------------------------------------------------------------- instructions

    fn instruction(&mut self) -> PResult<Instruction> {
        let start = self.peek().start;
        let mut guard = None;
        if self.kind() == Tk::At {
            let at = self.bump();
            let negated = self.eat(Tk::Bang);
            let pred = self.ident("a predicate register")?;
            guard = Some(Guard { negated, span: Span::new(at.start, pred.span.end), pred });
        }
        let opcode = self.ident("an opcode")?;
        let mut modifiers = std::mem::take(&mut self.mod_scratch);
        modifiers.clear();
        loop {
            let t = self.peek();
            if t.kind != Tk::DotWord || t.at_line_start() {
                break;
            }
            self.bump();
            let mut end = t.end;
            // `ld.const[2].u32`: PTX 1.x banked constant space.
            if self.kind() == Tk::LBracket
                && !self.peek().spaced()
                && self.peek_at(1).kind == Tk::Number
                && self.peek_at(2).kind == Tk::RBracket
                && self.peek_at(3).kind == Tk::DotWord
                && !self.peek_at(3).spaced()
            {
                self.bump();
                self.bump();
                end = self.bump().end;
            }
            let text = Name::new(self.src.get(t.start as usize + 1..end as usize).unwrap_or(""));
            modifiers.push(Modifier { text, span: Span::new(t.start, end) });
        }
        // Exact-size vectors (the scratch buffer is reused): less memory, no regrowth.
        let exact: Vec<Modifier> = split_exact(&mut modifiers, 0);
        self.mod_scratch = modifiers;
        let modifiers = exact;
        let base = self.op_stack.len();
        let r = self.instruction_operands(&opcode.name);
        self.in_call = false;
        let end = match r {
            Ok(end) => end,
            Err(e) => {
                self.op_stack.truncate(base);
                return Err(e);
            }
        };
        let operands: Vec<Operand> = split_exact(&mut self.op_stack, base);
        Ok(Instruction { guard, opcode, modifiers, operands, span: Span::new(start, end) })
    }

    /// Operands up to and including `;` (pushed on `op_stack`); returns the end offset.
    fn instruction_operands(&mut self, opcode: &str) -> PResult<u32> {
        self.in_call = opcode == "call";
        if self.kind() == Tk::Semi {
            return Ok(self.bump().end);
        }
        loop {
            // Fast path: a plain register/symbol operand followed by `,` or `;`.
            let t = self.peek();
            let next = self.peek_at(1);
            if t.kind == Tk::Ident && matches!(next.kind, Tk::Comma | Tk::Semi) {
                self.bump();
                let span = t.span();
                let name = self.text(t);
                let kind = if name == "_" {
                    OperandKind::Sink
                } else {
                    OperandKind::Symbol { name: Name::new(name), component: None }
                };
                self.op_stack.push(Operand { kind, span });
            } else {
                let op = self.operand()?;
                self.op_stack.push(op);
            }
            match self.kind() {
                Tk::Comma => {
                    self.bump();
                }
                Tk::Semi => return Ok(self.bump().end),
                _ => {
                    let t = self.peek();
                    let e = self.expected_terminator("`,` or `;`");
                    // A missing `;` at the end of a line: resume at the next line rather
                    // than skipping the following statement.
                    if t.at_line_start() {
                        return Err(self.no_skip(e));
                    }
                    return Err(e);
                }
            }
        }
    }

    /// The error left the parser at a good restart point: the next recovery skips nothing.
    fn no_skip(&mut self, e: PErr) -> PErr {
        self.resync = true;
        e
    }

    // ---------------------------------------------------------------- operands

    fn operand(&mut self) -> PResult<Operand> {
        self.enter()?;
        let r = self.operand_postfix();
        self.leave();
        r
    }

    /// An operand with its postfix forms: `[a].unified` (a qualifier written right after the
    /// operand) and `{r1, r2}|p` (a predicate destination after a vector).
    fn operand_postfix(&mut self) -> PResult<Operand> {
        let mut op = self.operand_inner()?;
        loop {
            let t = self.peek();
            if t.kind == Tk::DotWord && !t.spaced() && !matches!(op.kind, OperandKind::Expr(_)) {
                self.bump();
                let m = Modifier { text: Name::new(self.dot_name(t)), span: t.span() };
                let span = Span::new(op.span.start, t.end);
                op = Operand { kind: OperandKind::Qualified(Box::new(op), m), span };
            } else if t.kind == Tk::Pipe && matches!(op.kind, OperandKind::Vector(_) | OperandKind::Qualified(..)) {
                self.bump();
                let rhs = self.operand()?;
                let span = Span::new(op.span.start, rhs.span.end);
                return Ok(Operand { kind: OperandKind::Pair(Box::new(op), Box::new(rhs)), span });
            } else {
                return Ok(op);
            }
        }
    }

    fn operand_list(&mut self, close: Tk, close_text: &str) -> PResult<(Vec<Operand>, u32)> {
        let base = self.op_stack.len();
        match self.operand_list_inner(close, close_text) {
            Ok(end) => Ok((split_exact(&mut self.op_stack, base), end)),
            Err(e) => {
                self.op_stack.truncate(base);
                Err(e)
            }
        }
    }

    fn operand_list_inner(&mut self, close: Tk, close_text: &str) -> PResult<u32> {
        if self.kind() == close {
            return Ok(self.bump().end);
        }
        loop {
            let op = self.operand()?;
            self.op_stack.push(op);
            match self.kind() {
                Tk::Comma => {
                    self.bump();
                }
                k if k == close => return Ok(self.bump().end),
                _ => return Err(self.expected(&format!("`,` or {close_text}"))),
            }
        }
    }

    fn operand_inner(&mut self) -> PResult<Operand> {
        let t = self.peek();
        match t.kind {
            Tk::LBrace => {
                self.bump();
                let (items, end) = self.operand_list(Tk::RBrace, "`}`")?;
                return Ok(Operand { kind: OperandKind::Vector(items), span: Span::new(t.start, end) });
            }
            Tk::LBracket => {
                self.bump();
                let in_call = std::mem::replace(&mut self.in_call, false);
                let r = self.operand_list(Tk::RBracket, "`]`");
                self.in_call = in_call;
                let (items, end) = r?;
                if items.is_empty() {
                    return Err(self.error(Diagnostic::new("empty address `[]`", Span::new(t.start, end))));
                }
                return Ok(Operand { kind: OperandKind::Address(items), span: Span::new(t.start, end) });
            }
            Tk::LParen if self.in_call => {
                self.bump();
                let (items, end) = self.operand_list(Tk::RParen, "`)`")?;
                return Ok(Operand { kind: OperandKind::List(items), span: Span::new(t.start, end) });
            }
            Tk::Bang => {
                self.bump();
                let inner = self.operand()?;
                let span = Span::new(t.start, inner.span.end);
                return Ok(Operand { kind: OperandKind::Not(Box::new(inner)), span });
            }
            Tk::Ident => {
                if let Some(op) = self.symbol_operand()? {
                    return Ok(op);
                }
            }
            Tk::Minus if self.peek_at(1).kind == Tk::Ident => {
                let save = self.pos;
                self.bump();
                match self.symbol_operand()? {
                    Some(op) if !matches!(op.kind, OperandKind::Pair(..) | OperandKind::Sink) => {
                        let span = Span::new(t.start, op.span.end);
                        return Ok(Operand { kind: OperandKind::Neg(Box::new(op)), span });
                    }
                    _ => self.pos = save,
                }
            }
            _ => {}
        }
        let e = self.expr()?;
        let span = e.span();
        let kind = match e {
            Expr::Symbol { name, .. } => OperandKind::Symbol { name, component: None },
            Expr::Unary { op: UnaryOp::Neg, arg, span: s } => match *arg {
                Expr::Symbol { name, span: ss } => OperandKind::Neg(Box::new(Operand {
                    kind: OperandKind::Symbol { name, component: None },
                    span: ss,
                })),
                other => OperandKind::Expr(Expr::Unary { op: UnaryOp::Neg, arg: Box::new(other), span: s }),
            },
            Expr::Binary { op: BinaryOp::BitOr, lhs, rhs, span: s } => match (*lhs, *rhs) {
                (Expr::Symbol { name: a, span: sa }, Expr::Symbol { name: b, span: sb }) => OperandKind::Pair(
                    Box::new(Operand { kind: OperandKind::Symbol { name: a, component: None }, span: sa }),
                    Box::new(Operand { kind: OperandKind::Symbol { name: b, component: None }, span: sb }),
                ),
                (l, r) => OperandKind::Expr(Expr::Binary { op: BinaryOp::BitOr, lhs: Box::new(l), rhs: Box::new(r), span: s }),
            },
            other => OperandKind::Expr(other),
        };
        Ok(Operand { kind, span })
    }

    /// Fast path: an identifier (with an optional `.x` component written right after it) that
    /// forms the whole operand, `_`, or `%p|%q`. Returns `None` (consuming nothing) when the
    /// identifier is the start of a larger expression (`sym+4`).
    fn symbol_operand(&mut self) -> PResult<Option<Operand>> {
        let Some(k) = self.symbol_len(0) else { return Ok(None) };
        let after = self.peek_at(k);
        if k == 1 && after.kind == Tk::LBracket && !after.spaced() {
            // `a[1]`: an array element.
            let array = self.take_symbol(1);
            self.bump(); // [
            let in_call = std::mem::replace(&mut self.in_call, false);
            let index = self.operand();
            self.in_call = in_call;
            let index = index?;
            let close = self.expect(Tk::RBracket, "`]`")?;
            let span = Span::new(array.span.start, close.end);
            return Ok(Some(Operand { kind: OperandKind::Index(Box::new(array), Box::new(index)), span }));
        }
        let mut pair = false;
        if after.kind == Tk::Pipe {
            // `%p|%q`: only when the right side is a plain symbol too; `a|1` is an expression.
            match self.symbol_len(k + 1) {
                Some(k2) if is_operand_end(self.peek_at(k + 1 + k2).kind) => pair = true,
                _ => return Ok(None),
            }
        } else if !is_operand_end(after.kind) && !after.at_line_start() {
            // (At the start of a line: a missing `;`, reported by the caller.)
            return Ok(None);
        }
        let op = self.take_symbol(k);
        if pair {
            self.bump(); // |
            let k2 = self.symbol_len(0).unwrap_or(1);
            let rhs = self.take_symbol(k2);
            let span = Span::new(op.span.start, rhs.span.end);
            return Ok(Some(Operand { kind: OperandKind::Pair(Box::new(op), Box::new(rhs)), span }));
        }
        Ok(Some(op))
    }

    /// If the token at offset `at` is an identifier, the number of tokens of it with its
    /// optional component (`%tid.x`: 2).
    fn symbol_len(&self, at: usize) -> Option<usize> {
        if self.peek_at(at).kind != Tk::Ident {
            return None;
        }
        let c = self.peek_at(at + 1);
        Some(if c.kind == Tk::DotWord && !c.spaced() { 2 } else { 1 })
    }

    fn take_symbol(&mut self, k: usize) -> Operand {
        let t = self.bump();
        let name = self.text(t);
        let (component, end) = if k == 2 {
            let c = self.bump();
            (Some(Name::new(self.dot_name(c))), c.end)
        } else {
            (None, t.end)
        };
        let span = Span::new(t.start, end);
        if name == "_" && component.is_none() {
            Operand { kind: OperandKind::Sink, span }
        } else {
            Operand { kind: OperandKind::Symbol { name: Name::new(name), component }, span }
        }
    }

    // ---------------------------------------------------------------- constant expressions

    pub fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.ternary();
        self.leave();
        r
    }

    fn ternary(&mut self) -> PResult<Expr> {
        let cond = self.binary(1)?;
        if self.kind() != Tk::Question {
            return Ok(cond);
        }
        self.bump();
        let then = self.expr()?;
        self.expect(Tk::Colon, "`:`")?;
        let otherwise = self.expr()?;
        let span = cond.span().to(otherwise.span());
        Ok(Expr::Conditional { cond: Box::new(cond), then: Box::new(then), otherwise: Box::new(otherwise), span })
    }

    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        // Each operator of a chain (`1+1+…`) adds a level to the left-deep tree, which later
        // passes walk recursively: count it against the nesting limit like a parenthesis.
        let entered = self.depth;
        while let Some((op, prec)) = binop(self.kind()) {
            if prec < min {
                break;
            }
            let rhs = match self.enter() {
                Ok(()) => {
                    self.bump();
                    self.binary(prec + 1)
                }
                Err(e) => Err(e),
            };
            let rhs = match rhs {
                Ok(r) => r,
                Err(e) => {
                    self.depth = entered;
                    return Err(e);
                }
            };
            let span = lhs.span().to(rhs.span());
            lhs = Expr::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs), span };
        }
        self.depth = entered;
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.leave();
        r
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        let t = self.peek();
        let op = match t.kind {
            Tk::Minus => Some(UnaryOp::Neg),
            Tk::Plus => Some(UnaryOp::Plus),
            Tk::Bang => Some(UnaryOp::LogicalNot),
            Tk::Tilde => Some(UnaryOp::Not),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let arg = self.unary()?;
            let span = Span::new(t.start, arg.span().end);
            return Ok(Expr::Unary { op, arg: Box::new(arg), span });
        }
        match t.kind {
            Tk::LParen => {
                let t1 = self.peek_at(1);
                if t1.kind == Tk::DotWord && self.peek_at(2).kind == Tk::RParen {
                    if let Some(ty) = ScalarType::from_suffix(self.dot_name(t1)) {
                        self.bump();
                        self.bump();
                        self.bump();
                        let arg = self.unary()?;
                        let span = Span::new(t.start, arg.span().end);
                        return Ok(Expr::Cast { ty, arg: Box::new(arg), span });
                    }
                }
                self.bump();
                let e = self.expr()?;
                self.expect(Tk::RParen, "`)`")?;
                Ok(e)
            }
            Tk::Number => {
                self.bump();
                let next = self.peek();
                if next.kind == Tk::LParen && !next.spaced() {
                    // The mask() operator of initializers (§5.4.4): `0xFF00(foo)`, an integer
                    // immediate applied to an expression. Kept as a call named by the literal.
                    self.bump();
                    let arg = self.expr()?;
                    let close = self.expect(Tk::RParen, "`)`")?;
                    let name = self.text(t);
                    return Ok(Expr::Call { name: Name::new(name), args: vec![arg], span: Span::new(t.start, close.end) });
                }
                parse_number(self.text(t), t.span()).map_err(|m| self.error(Diagnostic::new(m, t.span())))
            }
            Tk::Ident => {
                self.bump();
                let name = self.text(t);
                let next = self.peek();
                if next.kind == Tk::LParen && (!next.spaced() || name == "generic" || name == "mask") {
                    self.bump();
                    let mut args = Vec::new();
                    if self.kind() != Tk::RParen {
                        loop {
                            args.push(self.expr()?);
                            if !self.eat(Tk::Comma) {
                                break;
                            }
                        }
                    }
                    let close = self.expect(Tk::RParen, "`,` or `)`")?;
                    return Ok(Expr::Call { name: Name::new(name), args, span: Span::new(t.start, close.end) });
                }
                Ok(Expr::Symbol { name: Name::new(name), span: t.span() })
            }
            _ => Err(self.expected("an operand or expression")),
        }
    }
}

/// Moves `v[base..]` out into a new vector of exactly that capacity (one allocation and one
/// memcpy; none when empty), leaving `v[..base]` and `v`'s buffer for reuse.
#[inline]
fn split_exact<T>(v: &mut Vec<T>, base: usize) -> Vec<T> {
    if base >= v.len() {
        return Vec::new();
    }
    // `split_off` copies the tail into a fresh exact-capacity vector, except at 0 where it hands
    // over the whole buffer; there the scratch keeps its buffer and the tail is copied instead.
    if base > 0 {
        return v.split_off(base);
    }
    let mut out = Vec::with_capacity(v.len());
    out.append(v);
    out
}

fn is_operand_end(k: Tk) -> bool {
    matches!(k, Tk::Comma | Tk::Semi | Tk::RBrace | Tk::RBracket | Tk::RParen)
}

fn binop(k: Tk) -> Option<(BinaryOp, u8)> {
    use BinaryOp::*;
    Some(match k {
        Tk::OrOr => (LogicalOr, 1),
        Tk::AndAnd => (LogicalAnd, 2),
        Tk::Pipe => (BitOr, 3),
        Tk::Caret => (BitXor, 4),
        Tk::Amp => (BitAnd, 5),
        Tk::EqEq => (Eq, 6),
        Tk::Ne => (Ne, 6),
        Tk::Lt => (Lt, 7),
        Tk::Gt => (Gt, 7),
        Tk::Le => (Le, 7),
        Tk::Ge => (Ge, 7),
        Tk::Shl => (Shl, 8),
        Tk::Shr => (Shr, 8),
        Tk::Plus => (Add, 9),
        Tk::Minus => (Sub, 9),
        Tk::Star => (Mul, 10),
        Tk::Slash => (Div, 10),
        Tk::Percent => (Rem, 10),
        _ => return None,
    })
}

/// Precedence of a binary operator (higher binds tighter), for the printer.
pub(crate) fn binop_prec(op: BinaryOp) -> u8 {
    use BinaryOp::*;
    match op {
        LogicalOr => 1,
        LogicalAnd => 2,
        BitOr => 3,
        BitXor => 4,
        BitAnd => 5,
        Eq | Ne => 6,
        Lt | Gt | Le | Ge => 7,
        Shl | Shr => 8,
        Add | Sub => 9,
        Mul | Div | Rem => 10,
    }
}

pub(crate) fn vector_width(n: &str) -> Option<u32> {
    match n {
        "v2" => Some(2),
        "v3" => Some(3),
        "v4" => Some(4),
        "v8" => Some(8),
        _ => None,
    }
}

/// Converts the text of a [`Tk::Number`] token into an expression leaf.
pub(crate) fn parse_number(s: &str, span: Span) -> Result<Expr, String> {
    // Diagnostics quote the literal: a long one (megabytes in hostile input) is clipped.
    const MAX_QUOTED: usize = 48;
    parse_number_quoting(s, span).map_err(|message| {
        if s.len() <= MAX_QUOTED {
            return message;
        }
        let head: String = s.chars().take(MAX_QUOTED / 2).collect();
        message.replacen(&s.escape_debug().to_string(), &format!("{head}… ({} characters)", s.chars().count()), 1)
    })
}

fn parse_number_quoting(s: &str, span: Span) -> Result<Expr, String> {
    let b = s.as_bytes();
    let bad = |what: &str| format!("invalid {what} literal `{}`", s.escape_debug());
    if b.len() >= 2 && b[0] == b'0' {
        let digits = &s[2..];
        match b[1] {
            b'f' | b'F' => {
                if digits.len() != 8 || !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
                    return Err(bad("f32 bit-pattern (0f + 8 hex digits)"));
                }
                let bits = u32::from_str_radix(digits, 16).map_err(|_| bad("f32"))?;
                return Ok(Expr::F32Bits { bits, span });
            }
            b'd' | b'D' => {
                if digits.len() != 16 || !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
                    return Err(bad("f64 bit-pattern (0d + 16 hex digits)"));
                }
                let bits = u64::from_str_radix(digits, 16).map_err(|_| bad("f64"))?;
                return Ok(Expr::F64Bits { bits, span });
            }
            b'x' | b'X' | b'b' | b'B' => {
                let (digits, unsigned_suffix) = strip_u(digits);
                let radix = if matches!(b[1], b'x' | b'X') { 16 } else { 2 };
                if digits.is_empty() || !digits.bytes().all(|c| (c as char).is_digit(radix)) {
                    return Err(bad(if radix == 16 { "hexadecimal" } else { "binary" }));
                }
                let value = u64::from_str_radix(digits, radix)
                    .map_err(|_| format!("integer literal `{s}` does not fit in 64 bits"))?;
                return Ok(Expr::Int { value, unsigned_suffix, span });
            }
            _ => {}
        }
    }
    if s.bytes().any(|c| c == b'.' || c == b'e' || c == b'E') {
        if !s.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-')) {
            return Err(bad("floating-point"));
        }
        let value: f64 = s.parse().map_err(|_| bad("floating-point"))?;
        if !value.is_finite() {
            return Err(format!("floating-point literal `{s}` is out of range"));
        }
        return Ok(Expr::Float { value, span });
    }
    let (digits, unsigned_suffix) = strip_u(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(bad("integer"));
    }
    let radix = if digits.len() > 1 && digits.starts_with('0') { 8 } else { 10 };
    if radix == 8 && !digits.bytes().all(|c| (b'0'..=b'7').contains(&c)) {
        return Err(bad("octal"));
    }
    let value =
        u64::from_str_radix(digits, radix).map_err(|_| format!("integer literal `{s}` does not fit in 64 bits"))?;
    Ok(Expr::Int { value, unsigned_suffix, span })
}

fn strip_u(s: &str) -> (&str, bool) {
    match s.strip_suffix(['U', 'u']) {
        Some(d) => (d, true),
        None => (s, false),
    }
}
