//! Span-free copies of ASTs, for comparing trees parsed from different texts (round trips).

use crate::ast::*;

/// Zeroes every span so that ASTs from different texts compare structurally.
pub fn strip_spans(m: &Module) -> Module {
    let mut m = m.clone();
    for it in &mut m.items {
        match it {
            Item::Function(f) => {
                f.span = Span::default();
                f.name.span = Span::default();
                f.returns.iter_mut().chain(f.params.iter_mut()).for_each(param);
                f.directives.iter_mut().for_each(directive);
                if let Some(b) = &mut f.body {
                    b.iter_mut().for_each(stmt);
                }
            }
            Item::Var(v) => var(v),
            Item::Directive(d) => directive(d),
        }
    }
    m
}

fn param(p: &mut Param) {
    p.span = Span::default();
    p.name.span = Span::default();
}

fn directive(d: &mut Directive) {
    d.span = Span::default();
}

fn var(v: &mut VarDecl) {
    v.span = Span::default();
    for n in &mut v.names {
        n.span = Span::default();
        n.name.span = Span::default();
        if let Some(i) = &mut n.init {
            init(i);
        }
    }
}

fn init(i: &mut Initializer) {
    match i {
        Initializer::Expr(e) => expr(e),
        Initializer::List(items, s) => {
            *s = Span::default();
            items.iter_mut().for_each(init);
        }
    }
}

fn stmt(s: &mut Statement) {
    match s {
        Statement::Label(l) => l.span = Span::default(),
        Statement::Var(v) => var(v),
        Statement::Instruction(i) => {
            i.span = Span::default();
            i.opcode.span = Span::default();
            if let Some(g) = &mut i.guard {
                g.span = Span::default();
                g.pred.span = Span::default();
            }
            i.modifiers.iter_mut().for_each(|m| m.span = Span::default());
            i.operands.iter_mut().for_each(operand);
        }
        Statement::Block(b, s) => {
            *s = Span::default();
            b.iter_mut().for_each(stmt);
        }
        Statement::Directive(d) => directive(d),
    }
}

fn operand(o: &mut Operand) {
    o.span = Span::default();
    match &mut o.kind {
        OperandKind::Symbol { .. } | OperandKind::Sink => {}
        OperandKind::Expr(e) => expr(e),
        OperandKind::Address(v) | OperandKind::Vector(v) | OperandKind::List(v) => v.iter_mut().for_each(operand),
        OperandKind::Not(b) | OperandKind::Neg(b) => operand(b),
        OperandKind::Pair(a, b) | OperandKind::Index(a, b) => {
            operand(a);
            operand(b);
        }
        OperandKind::Qualified(a, m) => {
            operand(a);
            m.span = Span::default();
        }
    }
}

fn expr(e: &mut Expr) {
    match e {
        Expr::Int { span, .. }
        | Expr::F32Bits { span, .. }
        | Expr::F64Bits { span, .. }
        | Expr::Float { span, .. }
        | Expr::Symbol { span, .. } => *span = Span::default(),
        Expr::Unary { arg, span, .. } | Expr::Cast { arg, span, .. } => {
            *span = Span::default();
            expr(arg);
        }
        Expr::Binary { lhs, rhs, span, .. } => {
            *span = Span::default();
            expr(lhs);
            expr(rhs);
        }
        Expr::Conditional { cond, then, otherwise, span } => {
            *span = Span::default();
            expr(cond);
            expr(then);
            expr(otherwise);
        }
        Expr::Call { args, span, .. } => {
            *span = Span::default();
            args.iter_mut().for_each(expr);
        }
    }
}

