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
    eval_typed(e).map(|(v, _)| v)
}

/// Evaluates `e` with its type (§4.5.5, Table 6): the value, and whether an integer result is
/// unsigned (.u64) rather than signed (.s64). The type decides division, remainder, right
/// shifts and ordered comparisons of later operations, and how an integer constant widens
/// to a 128-bit operand (sign- or zero-extended). Addresses (`symbol + offset`) count as
/// unsigned.
pub fn eval_typed(e: &Expr) -> Result<(ConstValue, bool), Diagnostic> {
    Ok(match e {
        // "Literals are signed unless unsigned is needed to prevent overflow, or unless the
        // literal uses a U suffix."
        Expr::Int { value, unsigned_suffix, .. } => (ConstValue::Int(*value), *unsigned_suffix || *value > i64::MAX as u64),
        Expr::F32Bits { bits, .. } => (ConstValue::F32(*bits), false),
        Expr::F64Bits { bits, .. } => (ConstValue::F64(*bits), false),
        Expr::Float { value, .. } => (ConstValue::F64(value.to_bits()), false),
        Expr::Symbol { name, .. } => (ConstValue::Symbol(name.to_string(), 0), true),
        Expr::Unary { op, arg, span } => {
            let (v, u) = eval_typed(arg)?;
            match (op, v) {
                // Unary plus and minus preserve the type.
                (UnaryOp::Plus, v) => (v, u),
                (UnaryOp::Neg, ConstValue::Int(i)) => (ConstValue::Int(i.wrapping_neg()), u),
                (UnaryOp::Neg, ConstValue::F32(b)) => (ConstValue::F32(b ^ 0x8000_0000), false),
                (UnaryOp::Neg, ConstValue::F64(b)) => (ConstValue::F64(b ^ (1 << 63)), false),
                // `~` "produces an unsigned result"; `!` a signed 0 or 1.
                (UnaryOp::Not, ConstValue::Int(i)) => (ConstValue::Int(!i), true),
                (UnaryOp::LogicalNot, ConstValue::Int(i)) => (ConstValue::Int((i == 0) as u64), false),
                _ => return Err(Diagnostic::new("invalid operand of unary operator in constant expression", *span)),
            }
        }
        Expr::Binary { op, lhs, rhs, span } => {
            let ((a, ua), (b, ub)) = (eval_typed(lhs)?, eval_typed(rhs)?);
            match (a, b) {
                (ConstValue::Int(a), ConstValue::Int(b)) => int_binary(*op, (a, ua), (b, ub), *span)?,
                (ConstValue::Symbol(s, o), ConstValue::Int(b)) if *op == BinaryOp::Add => {
                    (ConstValue::Symbol(s, o.wrapping_add(b as i64)), true)
                }
                (ConstValue::Symbol(s, o), ConstValue::Int(b)) if *op == BinaryOp::Sub => {
                    (ConstValue::Symbol(s, o.wrapping_sub(b as i64)), true)
                }
                (ConstValue::Int(a), ConstValue::Symbol(s, o)) if *op == BinaryOp::Add => {
                    (ConstValue::Symbol(s, o.wrapping_add(a as i64)), true)
                }
                _ => return Err(Diagnostic::new("not supported yet: this constant expression form", *span)),
            }
        }
        Expr::Conditional { cond, then, otherwise, span } => match eval(cond)? {
            ConstValue::Int(c) => {
                // The usual arithmetic conversions on the second and third operands.
                let ((t, ut), (o, uo)) = (eval_typed(then)?, eval_typed(otherwise)?);
                let u = ut || uo;
                if c != 0 {
                    (t, u)
                } else {
                    (o, u)
                }
            }
            _ => return Err(Diagnostic::new("conditional expression needs an integer condition", *span)),
        },
        // `(.s64)` and `(.u64)` casts change the type, not the bits.
        Expr::Cast { ty, arg, .. } => {
            let (v, u) = eval_typed(arg)?;
            let u = match ty {
                ptxcross_frontend::ast::ScalarType::U64 => true,
                ptxcross_frontend::ast::ScalarType::S64 => false,
                _ => u,
            };
            (v, u)
        }
        Expr::Call { name, span, .. } => {
            return Err(Diagnostic::new(format!("not supported yet: `{name}(…)` in a constant expression"), *span))
        }
    })
}

/// An integer binary operation on typed operands (value, unsigned), per §4.5.5 and Table 6.
fn int_binary(op: BinaryOp, (a, ua): (u64, bool), (b, ub): (u64, bool), span: ptxcross_frontend::ast::Span) -> Result<(ConstValue, bool), Diagnostic> {
    let (sa, sb) = (a as i64, b as i64);
    // "The usual arithmetic conversions": unsigned if either operand is.
    let u = ua || ub;
    let (v, unsigned) = match op {
        BinaryOp::Add => (a.wrapping_add(b), u),
        BinaryOp::Sub => (a.wrapping_sub(b), u),
        BinaryOp::Mul => (a.wrapping_mul(b), u),
        BinaryOp::Div | BinaryOp::Rem if b == 0 => {
            return Err(Diagnostic::new("division by zero in constant expression", span))
        }
        BinaryOp::Div if u => (a / b, true),
        BinaryOp::Div => (sa.wrapping_div(sb) as u64, false),
        // "Remainder (%) interprets the operands as unsigned" (result .s64, Table 6).
        BinaryOp::Rem => (a % b, false),
        // Shifts: the second operand unsigned, the result of the first operand's type; a right
        // shift of a signed value is arithmetic, of an unsigned one logical.
        BinaryOp::Shl => (a.checked_shl(b.min(64) as u32).unwrap_or(0), ua),
        BinaryOp::Shr if ua => (a.checked_shr(b.min(64) as u32).unwrap_or(0), true),
        BinaryOp::Shr => (sa.checked_shr(b.min(64) as u32).unwrap_or(if sa < 0 { -1 } else { 0 }) as u64, false),
        // Ordered comparisons after the usual conversions; every comparison is signed 0/1.
        BinaryOp::Lt => (if u { a < b } else { sa < sb } as u64, false),
        BinaryOp::Gt => (if u { a > b } else { sa > sb } as u64, false),
        BinaryOp::Le => (if u { a <= b } else { sa <= sb } as u64, false),
        BinaryOp::Ge => (if u { a >= b } else { sa >= sb } as u64, false),
        BinaryOp::Eq => ((a == b) as u64, false),
        BinaryOp::Ne => ((a != b) as u64, false),
        BinaryOp::BitAnd => (a & b, u),
        BinaryOp::BitXor => (a ^ b, u),
        BinaryOp::BitOr => (a | b, u),
        BinaryOp::LogicalAnd => ((a != 0 && b != 0) as u64, false),
        BinaryOp::LogicalOr => ((a != 0 || b != 0) as u64, false),
    };
    Ok((ConstValue::Int(v), unsigned))
}
