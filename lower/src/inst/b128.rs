//! `.b128` (PTX ISA 8.3+, sm_70+): registers, `mov.b128` packing and unpacking (§9.7.10.4),
//! and `ld`/`ldu`/`ld.global.nc`/`st` of 16 bytes (§9.7.10.8–11).
//!
//! A `.b128` register is two 64-bit IR variables: the low half under the register's own name
//! (so a narrower read, which PTX's relaxed type rules allow, sees its low bits, Table 27), the
//! high half under [`high_half_name`]. No target has 128-bit integers, and nothing but moves
//! and memory accesses takes `.b128` operands (`atom.cas/exch.b128` are refused, see
//! `atomic`).
//!
//! A 16-byte access checks the 16-byte alignment once ("all PTX instructions that access memory
//! require that the address be aligned to a multiple of the access size", §5.4.5), then moves
//! two 8-byte halves with the ordinary access lowering. Atomicity: the memory consistency
//! model of the 8.5 spec relates accesses of "scalar data types, which have a maximum size and
//! alignment of 64 bits" (§8.2.4) and promises single-copy atomicity only between morally
//! strong operations that overlap completely (§8.7, §8.9.2), so it gives a `.b128` load or
//! store no 128-bit atomicity; only `atom.b128` (sm_90) is one 128-bit access. The two halves
//! here are each what any other 64-bit access here is (two 32-bit words; with
//! `.relaxed`/`.volatile` each word a relaxed atomic), so a racing reader may see a mix of
//! an old and a new value, as it may of a `.v2.b64` access.

use super::Mods;
use crate::function::{FnLower, LResult, Symbol};
use crate::ir::{BinaryOp, CmpOp, Expr, Memory, Operand, Ty};
use ptxcross_frontend::ast::{self, OperandKind, ScalarType};
use ptxcross_frontend::Diagnostic;

/// The variable name of the high 64 bits of `.b128` register `name` (no PTX identifier has
/// `::`, so it never clashes with a declared name).
pub fn high_half_name(name: &str) -> String {
    format!("{name}::b128hi")
}

impl FnLower {
    /// The IR variables (low, high) of `.b128` register `name`, if it is one.
    pub(crate) fn b128_register(&self, name: &str) -> Option<(crate::ir::VarId, crate::ir::VarId)> {
        match (self.lookup(name), self.lookup(&high_half_name(name))) {
            (Some(&Symbol::Reg { var: lo, ty: ScalarType::B128 }), Some(&Symbol::Reg { var: hi, .. })) => Some((lo, hi)),
            _ => None,
        }
    }

    /// The two 64-bit halves (low, high) of a `.b128` source operand: a `.b128` register, or
    /// an integer constant (or an address). PTX's integer constants are 64-bit, "converted to
    /// the appropriate size based on the data or instruction type at its use" (§4.5.1); the
    /// type here is the bit-size `.b128`, and bit-size values widen with zeros (Table 27), which
    /// is what ptxas 13.5 does with `mov.b128 %q, -1` and `st.b128 [a], -2` (nvdisasm: the high
    /// 64 bits are `CS2R SRZ`, zero, also for the signed constants).
    pub(crate) fn read_b128(&mut self, op: &ast::Operand) -> LResult<(Operand, Operand)> {
        if let Some(lit) = crate::function::warp_sz_literal(op) {
            return self.read_b128(&lit);
        }
        match &op.kind {
            OperandKind::Symbol { name, component: None } => {
                if let Some((lo, hi)) = self.b128_register(name) {
                    return Ok((Operand::Var(lo), Operand::Var(hi)));
                }
            }
            OperandKind::Expr(e) => match crate::consts::eval(e)? {
                crate::consts::ConstValue::Int(v) => return Ok((FnLower::u64c(v), FnLower::u64c(0))),
                crate::consts::ConstValue::Symbol(..) => {
                    let lo = self.read(op, ScalarType::B64)?;
                    return Ok((lo, FnLower::u64c(0)));
                }
                _ => return Err(Diagnostic::new("a .b128 constant must be an integer", op.span)),
            },
            _ => {}
        }
        Err(Diagnostic::new("a .b128 operand must be a .b128 register or an integer constant", op.span))
    }

    /// Writes a `.b128` value to destination `op` (a `.b128` register, or the sink `_`).
    pub(crate) fn write_b128(&mut self, op: &ast::Operand, lo: Operand, hi: Operand) -> LResult<()> {
        match &op.kind {
            OperandKind::Sink => Ok(()),
            OperandKind::Symbol { name, component: None } => match self.b128_register(name) {
                Some((vlo, vhi)) => {
                    self.assign(vlo, Expr::Use(lo));
                    self.assign(vhi, Expr::Use(hi));
                    Ok(())
                }
                None => Err(Diagnostic::new(format!("`{name}` is not a .b128 register"), op.span)),
            },
            _ => Err(Diagnostic::new("the destination of a .b128 value must be a .b128 register", op.span)),
        }
    }

    /// `mov.b128 d, a` between registers, `mov.b128 d, {a, b}` / `{a, b, c, e}` (pack two .b64
    /// or four .b32 elements, the first the least significant) and `mov.b128 {…}, a` (unpack;
    /// `_` sinks allowed), §9.7.10.4.
    pub(super) fn mov_b128(&mut self, m: &Mods, d: &ast::Operand, a: &ast::Operand) -> LResult<()> {
        let element = |n: usize| match n {
            2 => Ok(ScalarType::B64),
            4 => Ok(ScalarType::B32),
            _ => Err(Diagnostic::new(
                format!("`{}` packs or unpacks two .b64 or four .b32 elements, not {n}", m.name()),
                m.inst.span,
            )),
        };
        match (&d.kind, &a.kind) {
            (_, OperandKind::Vector(parts)) => {
                let et = element(parts.len())?;
                let mut vals = Vec::new();
                for p in parts {
                    let v = self.read(p, et)?;
                    vals.push(v);
                }
                let (lo, hi) = if et == ScalarType::B64 {
                    (vals[0], vals[1])
                } else {
                    (self.join32(vals[0], vals[1]), self.join32(vals[2], vals[3]))
                };
                self.write_b128(d, lo, hi)
            }
            (OperandKind::Vector(parts), _) => {
                let et = element(parts.len())?;
                let (lo, hi) = self.read_b128(a)?;
                if et == ScalarType::B64 {
                    self.write(&parts[0], et, lo)?;
                    return self.write(&parts[1], et, hi);
                }
                let mut words = Vec::new();
                for half in [lo, hi] {
                    let w0 = self.resize(half, Ty::U64, Ty::U32, false);
                    let h = self.bin(BinaryOp::ShrU, Ty::U64, half, FnLower::u32c(32));
                    let w1 = self.resize(h, Ty::U64, Ty::U32, false);
                    words.extend([w0, w1]);
                }
                for (p, w) in parts.iter().zip(words) {
                    self.write(p, et, w)?;
                }
                Ok(())
            }
            _ => {
                let (lo, hi) = self.read_b128(a)?;
                self.write_b128(d, lo, hi)
            }
        }
    }

    /// `lo | hi << 32` of two U32 values, as a U64.
    fn join32(&mut self, lo: Operand, hi: Operand) -> Operand {
        let lo = self.resize(lo, Ty::U32, Ty::U64, false);
        let hi = self.resize(hi, Ty::U32, Ty::U64, false);
        let hi = self.bin(BinaryOp::Shl, Ty::U64, hi, FnLower::u32c(32));
        self.bin(BinaryOp::Or, Ty::U64, hi, lo)
    }

    /// Whether byte offset `off` is not a multiple of 16.
    fn misaligned16(&mut self, off: Operand) -> Operand {
        let low = self.bin(BinaryOp::And, Ty::U32, off, FnLower::u32c(15));
        self.cmp(CmpOp::Ne, Ty::U32, low, FnLower::u32c(0))
    }

    /// Loads 16 bytes at byte `off` of `mem` (faulting when `off` is not 16-byte aligned): the
    /// (low, high) U64 halves.
    pub(super) fn load_b128(&mut self, mem: Memory, off: Operand) -> (Operand, Operand) {
        let mis = self.misaligned16(off);
        self.emit_if(mis, crate::ir::Block { stmts: vec![crate::ir::Stmt::Fault { code: crate::abi::FAULT_MISALIGNED }] }, crate::ir::Block::new());
        let lo = self.load_bytes(mem, off, 8);
        let o8 = self.bin(BinaryOp::Add, Ty::U32, off, FnLower::u32c(8));
        let hi = self.load_bytes(mem, o8, 8);
        (lo, hi)
    }

    /// Stores 16 bytes at byte `off` of `mem`; a misaligned store faults and stores nothing.
    pub(super) fn store_b128(&mut self, mem: Memory, off: Operand, lo: Operand, hi: Operand) {
        let mis = self.misaligned16(off);
        let store = self
            .collect(|s| {
                s.store_bytes(mem, off, 8, lo);
                let o8 = s.bin(BinaryOp::Add, Ty::U32, off, FnLower::u32c(8));
                s.store_bytes(mem, o8, 8, hi);
                Ok(())
            })
            .unwrap_or_default();
        let fault = crate::ir::Block { stmts: vec![crate::ir::Stmt::Fault { code: crate::abi::FAULT_MISALIGNED }] };
        self.emit_if(mis, fault, store);
    }
}
