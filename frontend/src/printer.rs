//! AST → PTX text. The output re-parses to an AST equal to the input modulo spans (checked by
//! the round-trip tests). Formatting follows nvcc's layout loosely: one statement per line,
//! tab-indented bodies.

use std::fmt::Write;

use crate::ast::*;
use crate::parser::{binop_prec, directive_form, space_name, DirContext, DirForm};

pub fn print(m: &Module) -> String {
    let mut p = Printer { out: String::with_capacity(4096) };
    p.module(m);
    p.out
}

/// Prints one instruction (without indentation or newline), e.g. for diagnostics and dumps.
pub fn print_instruction(i: &Instruction) -> String {
    let mut p = Printer { out: String::new() };
    p.instruction(i);
    p.out
}

/// Prints one constant expression.
pub fn print_expr(e: &Expr) -> String {
    let mut p = Printer { out: String::new() };
    p.expr(e, 0);
    p.out
}

/// Prints one operand.
pub fn print_operand(o: &Operand) -> String {
    let mut p = Printer { out: String::new() };
    p.operand(o);
    p.out
}

struct Printer {
    out: String,
}

fn linkage_name(l: Linkage) -> &'static str {
    match l {
        Linkage::Visible => ".visible",
        Linkage::Extern => ".extern",
        Linkage::Weak => ".weak",
        Linkage::Common => ".common",
    }
}

impl Printer {
    fn indent(&mut self, n: usize) {
        for _ in 0..n {
            self.out.push('\t');
        }
    }

    fn module(&mut self, m: &Module) {
        if let Some((a, b)) = m.version {
            let _ = writeln!(self.out, ".version {a}.{b}");
        }
        if !m.target.is_empty() {
            let _ = writeln!(self.out, ".target {}", m.target.join(", "));
        }
        if let Some(a) = m.address_size {
            let _ = writeln!(self.out, ".address_size {a}");
        }
        for (k, item) in m.items.iter().enumerate() {
            // A blank line around functions and sections, none between consecutive one-liners.
            let big = |i: &Item| match i {
                Item::Function(f) => f.body.is_some(),
                Item::Directive(d) => d.name == "section",
                Item::Var(_) => false,
            };
            if k == 0 || big(item) || big(&m.items[k - 1]) {
                self.out.push('\n');
            }
            match item {
                Item::Function(f) => self.function(f),
                Item::Var(v) => {
                    self.var_decl(v);
                    self.out.push('\n');
                }
                Item::Directive(d) => self.directive(d, DirContext::Module, 0),
            }
        }
    }

    fn function(&mut self, f: &Function) {
        for l in &f.linkage {
            self.out.push_str(linkage_name(*l));
            self.out.push(' ');
        }
        self.out.push_str(match f.kind {
            FunctionKind::Entry => ".entry ",
            FunctionKind::Func => ".func ",
        });
        if !f.returns.is_empty() {
            self.out.push('(');
            for (i, p) in f.returns.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.param(p);
            }
            self.out.push_str(") ");
        }
        self.out.push_str(&f.name.name);
        self.params(&f.params);
        self.out.push('\n');
        for d in &f.directives {
            self.directive(d, DirContext::FunctionHeader, 0);
        }
        match &f.body {
            None => {
                // `.func f(...);` / `.func f() .noreturn;`
                let line_form = f.directives.last().is_some_and(|d| {
                    directive_form(&d.name, DirContext::FunctionHeader) == DirForm::Line || d.name == "section"
                });
                if !line_form && self.out.ends_with('\n') {
                    self.out.pop();
                }
                self.out.push_str(";\n");
            }
            Some(body) => {
                self.out.push_str("{\n");
                self.statements(body, 1);
                self.out.push_str("}\n");
            }
        }
    }

    fn params(&mut self, ps: &[Param]) {
        if ps.is_empty() {
            self.out.push_str("()");
            return;
        }
        self.out.push('(');
        for (i, p) in ps.iter().enumerate() {
            self.out.push_str(if i == 0 { "\n\t" } else { ",\n\t" });
            self.param(p);
        }
        self.out.push_str("\n)");
    }

    fn param(&mut self, p: &Param) {
        if let Some(s) = p.space {
            self.out.push('.');
            self.out.push_str(space_name(s));
            self.out.push(' ');
        }
        if let Some(a) = p.align {
            let _ = write!(self.out, ".align {a} ");
        }
        if let Some(v) = p.vector {
            let _ = write!(self.out, ".v{v} ");
        }
        self.out.push('.');
        self.out.push_str(p.ty.suffix());
        self.out.push(' ');
        if let Some(ptr) = &p.ptr {
            self.out.push_str(".ptr ");
            if let Some(s) = ptr.space {
                self.out.push('.');
                self.out.push_str(space_name(s));
                self.out.push(' ');
            }
            if let Some(a) = ptr.align {
                let _ = write!(self.out, ".align {a} ");
            }
        }
        self.out.push_str(&p.name.name);
        self.dims(&p.array);
    }

    fn dims(&mut self, dims: &[Option<u64>]) {
        for d in dims {
            match d {
                Some(n) => {
                    let _ = write!(self.out, "[{n}]");
                }
                None => self.out.push_str("[]"),
            }
        }
    }

    fn var_decl(&mut self, v: &VarDecl) {
        for l in &v.linkage {
            self.out.push_str(linkage_name(*l));
            self.out.push(' ');
        }
        self.out.push('.');
        self.out.push_str(space_name(v.space));
        for a in v.attributes.iter().filter(|a| a.starts_with('[')) {
            self.out.push_str(a);
        }
        if let Some(a) = v.align {
            let _ = write!(self.out, " .align {a}");
        }
        if let Some(n) = v.vector {
            let _ = write!(self.out, " .v{n}");
        }
        for a in v.attributes.iter().filter(|a| !a.starts_with('[')) {
            self.out.push(' ');
            self.out.push_str(a);
        }
        self.out.push_str(" .");
        self.out.push_str(v.ty.suffix());
        for (i, n) in v.names.iter().enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            self.out.push_str(&n.name.name);
            if let Some(r) = n.range {
                let _ = write!(self.out, "<{r}>");
            }
            self.dims(&n.array);
            if let Some(init) = &n.init {
                self.out.push_str(" = ");
                let opaque = matches!(v.ty, ScalarType::TexRef | ScalarType::SamplerRef | ScalarType::SurfRef);
                self.initializer(init, opaque);
            }
        }
        self.out.push(';');
    }

    /// `opaque`: the variable is a `.samplerref`/`.texref`/`.surfref`, whose list entries
    /// `field == value` are written `field = value`.
    fn initializer(&mut self, i: &Initializer, opaque: bool) {
        match i {
            Initializer::Expr(e) => self.expr(e, 0),
            Initializer::List(items, _) => {
                self.out.push('{');
                for (k, it) in items.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    match it {
                        Initializer::Expr(Expr::Binary { op: BinaryOp::Eq, lhs, rhs, .. })
                            if opaque && matches!(**lhs, Expr::Symbol { .. }) =>
                        {
                            self.expr(lhs, 11);
                            self.out.push_str(" = ");
                            self.expr(rhs, 0);
                        }
                        _ => self.initializer(it, opaque),
                    }
                }
                self.out.push('}');
            }
        }
    }

    fn directive(&mut self, d: &Directive, ctx: DirContext, indent: usize) {
        self.indent(indent);
        if d.name == "@@dwarf" {
            self.out.push_str("@@DWARF");
        } else {
            self.out.push('.');
            self.out.push_str(&d.name);
        }
        if !d.raw.is_empty() {
            self.out.push(' ');
            self.out.push_str(&d.raw);
        }
        match directive_form(&d.name, ctx) {
            DirForm::Line | DirForm::Values => {}
            DirForm::Block => {
                // Block or PTX 1.x line form: a `{` token (not one inside a comment).
                let block = d.raw.contains('{')
                    && crate::lexer::lex(&d.raw).tokens.iter().any(|t| t.kind == crate::lexer::Tk::LBrace);
                if block {
                    self.out.push('\n');
                    self.indent(indent);
                    self.out.push('}');
                }
            }
            DirForm::Semi => self.out.push(';'),
        }
        self.out.push('\n');
    }

    fn statements(&mut self, body: &[Statement], indent: usize) {
        for s in body {
            match s {
                Statement::Label(l) => {
                    self.indent(indent.saturating_sub(1));
                    self.out.push_str(&l.name);
                    self.out.push_str(":\n");
                }
                Statement::Var(v) => {
                    self.indent(indent);
                    self.var_decl(v);
                    self.out.push('\n');
                }
                Statement::Instruction(i) => {
                    self.indent(indent);
                    self.instruction(i);
                    self.out.push('\n');
                }
                Statement::Block(b, _) => {
                    self.indent(indent);
                    self.out.push_str("{\n");
                    self.statements(b, indent + 1);
                    self.indent(indent);
                    self.out.push_str("}\n");
                }
                Statement::Directive(d) => self.directive(d, DirContext::Body, indent),
            }
        }
    }

    fn instruction(&mut self, i: &Instruction) {
        if let Some(g) = &i.guard {
            self.out.push('@');
            if g.negated {
                self.out.push('!');
            }
            self.out.push_str(&g.pred.name);
            self.out.push(' ');
        }
        self.out.push_str(&i.opcode.name);
        for m in &i.modifiers {
            self.out.push('.');
            self.out.push_str(&m.text);
        }
        for (k, o) in i.operands.iter().enumerate() {
            self.out.push_str(if k == 0 { " " } else { ", " });
            self.operand(o);
        }
        self.out.push(';');
    }

    fn operand(&mut self, o: &Operand) {
        match &o.kind {
            OperandKind::Symbol { name, component } => {
                self.out.push_str(name);
                if let Some(c) = component {
                    self.out.push('.');
                    self.out.push_str(c);
                }
            }
            OperandKind::Expr(e) => self.expr(e, 0),
            OperandKind::Address(parts) => {
                self.out.push('[');
                self.operand_list(parts);
                self.out.push(']');
            }
            OperandKind::Vector(parts) => {
                self.out.push('{');
                self.operand_list(parts);
                self.out.push('}');
            }
            OperandKind::List(parts) => {
                self.out.push('(');
                self.operand_list(parts);
                self.out.push(')');
            }
            OperandKind::Not(inner) => {
                self.out.push('!');
                self.prefixed_operand(inner);
            }
            OperandKind::Neg(inner) => {
                self.out.push('-');
                self.prefixed_operand(inner);
            }
            OperandKind::Pair(a, b) => {
                self.operand(a);
                self.out.push('|');
                self.operand(b);
            }
            OperandKind::Sink => self.out.push('_'),
            OperandKind::Index(array, index) => {
                self.operand(array);
                self.out.push('[');
                self.operand(index);
                self.out.push(']');
            }
            OperandKind::Qualified(inner, m) => {
                self.operand(inner);
                self.out.push('.');
                self.out.push_str(&m.text);
            }
        }
    }

    /// The operand of a prefix `!`/`-`: expressions that are not atoms get parentheses.
    fn prefixed_operand(&mut self, o: &Operand) {
        match &o.kind {
            OperandKind::Expr(e) if !is_atom(e) => {
                self.out.push('(');
                self.expr(e, 0);
                self.out.push(')');
            }
            _ => self.operand(o),
        }
    }

    fn operand_list(&mut self, parts: &[Operand]) {
        for (k, p) in parts.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.operand(p);
        }
    }

    /// Prints `e`; parenthesized if its precedence is below `min` (binary operators have
    /// 1..=10, conditional 0, unary/cast/atoms 11).
    fn expr(&mut self, e: &Expr, min: u8) {
        let prec = match e {
            Expr::Conditional { .. } => 0,
            Expr::Binary { op, .. } => binop_prec(*op),
            _ => 11,
        };
        let paren = prec < min;
        if paren {
            self.out.push('(');
        }
        match e {
            Expr::Int { value, unsigned_suffix, .. } => {
                // Large values (masks, bit patterns) read better in hexadecimal.
                if *value > 0xFFFF {
                    let _ = write!(self.out, "0x{value:X}");
                } else {
                    let _ = write!(self.out, "{value}");
                }
                if *unsigned_suffix {
                    self.out.push('U');
                }
            }
            Expr::F32Bits { bits, .. } => {
                let _ = write!(self.out, "0f{bits:08X}");
            }
            Expr::F64Bits { bits, .. } => {
                let _ = write!(self.out, "0d{bits:016X}");
            }
            Expr::Float { value, .. } => {
                if value.is_finite() {
                    // `{:?}` is the shortest text that reads back to the same f64 and always
                    // contains a `.` or an exponent, so it re-lexes as a float.
                    let s = format!("{value:?}");
                    self.out.push_str(&s);
                } else {
                    // Not expressible as a decimal literal; keep the bits.
                    let _ = write!(self.out, "0d{:016X}", value.to_bits());
                }
            }
            Expr::Symbol { name, .. } => self.out.push_str(name),
            Expr::Unary { op, arg, .. } => {
                self.out.push_str(match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "~",
                    UnaryOp::LogicalNot => "!",
                    UnaryOp::Plus => "+",
                });
                self.expr(arg, 11);
            }
            Expr::Binary { op, lhs, rhs, .. } => {
                let p = binop_prec(*op);
                self.expr(lhs, p);
                self.out.push_str(binop_text(*op));
                // Left-associative: a right operand of the same precedence needs parentheses.
                self.expr(rhs, p + 1);
            }
            Expr::Conditional { cond, then, otherwise, .. } => {
                self.expr(cond, 1);
                self.out.push_str(" ? ");
                self.expr(then, 0);
                self.out.push_str(" : ");
                self.expr(otherwise, 0);
            }
            Expr::Cast { ty, arg, .. } => {
                let _ = write!(self.out, "(.{})", ty.suffix());
                self.expr(arg, 11);
            }
            Expr::Call { name, args, .. } => {
                self.out.push_str(name);
                self.out.push('(');
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(a, 0);
                }
                self.out.push(')');
            }
        }
        if paren {
            self.out.push(')');
        }
    }
}

fn is_atom(e: &Expr) -> bool {
    matches!(e, Expr::Int { .. } | Expr::F32Bits { .. } | Expr::F64Bits { .. } | Expr::Float { .. } | Expr::Symbol { .. } | Expr::Call { .. })
}

fn binop_text(op: BinaryOp) -> &'static str {
    use BinaryOp::*;
    match op {
        Mul => "*",
        Div => "/",
        Rem => " % ",
        Add => "+",
        Sub => "-",
        Shl => "<<",
        Shr => ">>",
        Lt => " < ",
        Gt => " > ",
        Le => "<=",
        Ge => ">=",
        Eq => "==",
        Ne => "!=",
        BitAnd => "&",
        BitXor => "^",
        BitOr => "|",
        LogicalAnd => "&&",
        LogicalOr => "||",
    }
}
