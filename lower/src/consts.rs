//! Constant expressions (spec §4.6): 64-bit integer arithmetic, float literals, and
//! `symbol + offset` forms.

use ptxcross_frontend::ast::{BinaryOp, Expr, UnaryOp};
use ptxcross_frontend::Diagnostic;

#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    /// Integer (two's complement bits, 64-bit).
    Int(u64),
    /// `0f…` literal bits.
    F32(u32),
    /// `0d…` literal bits, or a decimal float literal (PTX reads those as f64).
    F64(u64),
    /// `symbol + offset`.
    Symbol(String, i64),
}

pub fn eval(e: &Expr) -> Result<ConstValue, Diagnostic> {
    Ok(match e {
        Expr::Int { value, .. } => ConstValue::Int(*value),
        Expr::F32Bits { bits, .. } => ConstValue::F32(*bits),
        Expr::F64Bits { bits, .. } => ConstValue::F64(*bits),
        Expr::Float { value, .. } => ConstValue::F64(value.to_bits()),
        Expr::Symbol { name, .. } => ConstValue::Symbol(name.to_string(), 0),
        Expr::Unary { op, arg, span } => {
            let v = eval(arg)?;
            match (op, v) {
                (UnaryOp::Plus, v) => v,
                (UnaryOp::Neg, ConstValue::Int(i)) => ConstValue::Int(i.wrapping_neg()),
                (UnaryOp::Neg, ConstValue::F32(b)) => ConstValue::F32(b ^ 0x8000_0000),
                (UnaryOp::Neg, ConstValue::F64(b)) => ConstValue::F64(b ^ (1 << 63)),
                (UnaryOp::Not, ConstValue::Int(i)) => ConstValue::Int(!i),
                (UnaryOp::LogicalNot, ConstValue::Int(i)) => ConstValue::Int((i == 0) as u64),
                _ => return Err(Diagnostic::new("invalid operand of unary operator in constant expression", *span)),
            }
        }
        Expr::Binary { op, lhs, rhs, span } => {
            let (a, b) = (eval(lhs)?, eval(rhs)?);
            match (a, b) {
                (ConstValue::Int(a), ConstValue::Int(b)) => ConstValue::Int(int_binary(*op, a, b, *span)?),
                (ConstValue::Symbol(s, o), ConstValue::Int(b)) if *op == BinaryOp::Add => {
                    ConstValue::Symbol(s, o.wrapping_add(b as i64))
                }
                (ConstValue::Symbol(s, o), ConstValue::Int(b)) if *op == BinaryOp::Sub => {
                    ConstValue::Symbol(s, o.wrapping_sub(b as i64))
                }
                (ConstValue::Int(a), ConstValue::Symbol(s, o)) if *op == BinaryOp::Add => {
                    ConstValue::Symbol(s, o.wrapping_add(a as i64))
                }
                _ => return Err(Diagnostic::new("not supported yet: this constant expression form", *span)),
            }
        }
        Expr::Conditional { cond, then, otherwise, span } => match eval(cond)? {
            ConstValue::Int(c) => {
                if c != 0 {
                    eval(then)?
                } else {
                    eval(otherwise)?
                }
            }
            _ => return Err(Diagnostic::new("conditional expression needs an integer condition", *span)),
        },
        Expr::Cast { arg, .. } => eval(arg)?,
        Expr::Call { name, span, .. } => {
            return Err(Diagnostic::new(format!("not supported yet: `{name}(…)` in a constant expression"), *span))
        }
    })
}

fn int_binary(op: BinaryOp, a: u64, b: u64, span: ptxcross_frontend::ast::Span) -> Result<u64, Diagnostic> {
    let (sa, sb) = (a as i64, b as i64);
    Ok(match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::Div | BinaryOp::Rem if b == 0 => {
            return Err(Diagnostic::new("division by zero in constant expression", span))
        }
        BinaryOp::Div => sa.wrapping_div(sb) as u64,
        BinaryOp::Rem => sa.wrapping_rem(sb) as u64,
        BinaryOp::Shl => a.checked_shl(b as u32).unwrap_or(0),
        BinaryOp::Shr => sa.checked_shr(b as u32).unwrap_or(if sa < 0 { -1 } else { 0 }) as u64,
        BinaryOp::Lt => (sa < sb) as u64,
        BinaryOp::Gt => (sa > sb) as u64,
        BinaryOp::Le => (sa <= sb) as u64,
        BinaryOp::Ge => (sa >= sb) as u64,
        BinaryOp::Eq => (a == b) as u64,
        BinaryOp::Ne => (a != b) as u64,
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::BitOr => a | b,
        BinaryOp::LogicalAnd => (a != 0 && b != 0) as u64,
        BinaryOp::LogicalOr => (a != 0 || b != 0) as u64,
    })
}
