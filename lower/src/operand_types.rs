//! Whether an operand's declared type fits the type its instruction slot gives it (§6.1, §6.4
//! Table 25; for the data operands of `ld`, `st` and `cvt`, §9.4.1 Tables 26 and 27). The rule
//! is checked once, where `FnLower::read`/`write` resolve an operand, and follows ptxas
//! (13.5), whose verdicts on every instruction × register-type combination are recorded in
//! `tests/typecheck/verdicts.tsv` and checked by `lower/tests/operand_types.rs`.

use crate::consts::ConstValue;
use crate::ptx_types::bits;
use ptxcross_frontend::ast::ScalarType;

/// How a slot checks its operand's type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Check {
    /// Table 25: same size, and bit-size or both integers, or the same type.
    Strict,
    /// Tables 26 and 27 (the scalar data operand of `ld`/`st`, both operands of `cvt`): a
    /// wider register is allowed too; a source is truncated to the type, a destination
    /// extended (sign for signed types, zeros otherwise; `FnLower::fit`).
    Relaxed,
}

/// How `cvt.dt.st` checks its operands: relaxed (§9.4.1), except where `.bf16`/`.bf16x2`
/// take part: §9.7.9.21 excepts those operands, and ptxas refuses a wider register on either
/// side of such a conversion (`cvt.rn.bf16.f32 %h, %rd` too).
pub fn cvt_check(dt: ScalarType, st: ScalarType) -> Check {
    let alternate = |t| matches!(t, ScalarType::Bf16 | ScalarType::Bf16x2 | ScalarType::Tf32);
    if alternate(dt) || alternate(st) {
        Check::Strict
    } else {
        Check::Relaxed
    }
}

/// Why an operand does not fit.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Misfit {
    /// The spec and ptxas refuse it.
    Invalid,
    /// ptxas accepts it in some instructions, but PTX defines no meaning for it: we refuse
    /// rather than guess.
    Undefined,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Bits,
    Int,
    Float,
    /// `.bf16`, `.bf16x2`, `.tf32` (alternate formats with no register type of their own, §5.2.3)
    /// and the fp8 formats: held only in bit-size registers.
    Alternate,
    Pred,
    Opaque,
}

fn class(t: ScalarType) -> Class {
    use ScalarType::*;
    match t {
        B8 | B16 | B32 | B64 | B128 => Class::Bits,
        U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64 => Class::Int,
        F16 | F16x2 | F32 | F64 => Class::Float,
        Bf16 | Bf16x2 | Tf32 | E4m3 | E5m2 | E4m3x2 | E5m2x2 => Class::Alternate,
        Pred => Class::Pred,
        TexRef | SamplerRef | SurfRef => Class::Opaque,
    }
}

/// Whether a register declared `.reg` of type `reg` fits a slot of type `slot`.
pub fn register_fits(reg: ScalarType, slot: ScalarType, check: Check) -> Result<(), Misfit> {
    if reg == slot {
        return Ok(());
    }
    let (rc, sc) = (class(reg), class(slot));
    // ptxas accepts a `.f16x2` register as a `.pred` operand (of `mov`, `xor`, `vote`) and as
    // a 32-bit integer operand of most instructions (not of shift amounts, bit fields, …);
    // PTX gives neither a meaning (an `.f16x2` is a floating-point type, Table 25).
    if reg == ScalarType::F16x2 && (sc == Class::Pred || sc == Class::Int) {
        return Err(Misfit::Undefined);
    }
    if slot == ScalarType::F16x2 && rc == Class::Pred {
        return Err(Misfit::Undefined);
    }
    if rc == Class::Pred || sc == Class::Pred || rc == Class::Opaque || sc == Class::Opaque {
        return Err(Misfit::Invalid);
    }
    // A `.f16x2` register holds 32 bits like a `.b32` one where the slot is bit-size.
    let rc = if reg == ScalarType::F16x2 && sc == Class::Bits { Class::Bits } else { rc };
    let (rb, sb) = (bits(reg), bits(slot));
    let size_ok = match check {
        Check::Strict => rb == sb,
        // Alternate formats are excepted from the relaxed rules (§9.7.9.21 cvt: "except when
        // the operand has .bf16, .bf16x2 or .tf32 format"; ptxas refuses a wider register
        // for them either side).
        Check::Relaxed if sc == Class::Alternate => rb == sb,
        Check::Relaxed => rb >= sb,
    };
    if !size_ok {
        return Err(Misfit::Invalid);
    }
    let fits = match (rc, sc) {
        // An alternate format lives only in bit-size registers (ptxas refuses `.u16`, `.f16`
        // registers for `.bf16` operands).
        (_, Class::Alternate) => rc == Class::Bits,
        (Class::Bits, _) | (_, Class::Bits) => true,
        (Class::Int, Class::Int) => true,
        // Floating-point types agree only when equal (Table 25); Tables 26/27 keep that.
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(Misfit::Invalid)
    }
}

/// The type special register `name` (without its `.x`/`.y`/`.z`/`.w` component) is declared
/// with (§10: the `.v4` vectors by element).
fn special_register_type(name: &str) -> ScalarType {
    use ScalarType::*;
    match name {
        "%is_explicit_cluster" => Pred,
        "%gridid" | "%clock64" | "%globaltimer" | "%current_graph_exec" => U64,
        n if n.starts_with("%pm") && n.ends_with("_64") => U64,
        n if n.starts_with("%envreg") || n.starts_with("%reserved_smem_offset") => B32,
        _ => U32,
    }
}

/// Whether special register `name` fits a slot of type `slot` of `mov` (`Check::Strict`) or
/// `cvt` (`Check::Relaxed`, its source), the only instructions that read one (ptxas 13.5
/// refuses a special register as an operand of `add`, `setp`, `st`, `shl`, `selp`, …). As for
/// registers (Table 25, §9.4.1), but as ptxas has it: `mov` takes a bit-size or integer type of
/// the register's size, `cvt` an integer type no wider; `%is_explicit_cluster` (`.pred`) only
/// `mov.pred`. `mov` also takes the sizes of older ISAs: 16 bits for `%tid`, `%ntid`, `%ctaid`,
/// `%nctaid` (§10.1–10.4: "redefined as type .v4.u32 in PTX ISA version 2.0. For compatibility
/// with legacy PTX code, 16-bit mov and cvt instructions may be used"), 16 and 32 for
/// `%gridid` (§10.10: `.u16` in ISA 1.0, `.u32` from 1.3, `.u64` now).
/// `tests/typecheck/verdicts.tsv` holds ptxas's verdicts on every register × type.
pub fn special_register_fits(name: &str, slot: ScalarType, check: Check) -> Result<(), Misfit> {
    let reg = special_register_type(name);
    let sc = class(slot);
    let ok = if reg == ScalarType::Pred {
        slot == ScalarType::Pred && check == Check::Strict
    } else {
        let (rb, sb) = (bits(reg), bits(slot));
        match check {
            Check::Strict => {
                let legacy = match name {
                    "%tid" | "%ntid" | "%ctaid" | "%nctaid" => sb == 16,
                    "%gridid" => sb == 16 || sb == 32,
                    _ => false,
                };
                matches!(sc, Class::Int | Class::Bits) && (sb == rb || legacy)
            }
            Check::Relaxed => sc == Class::Int && sb <= rb,
        }
    };
    if ok {
        Ok(())
    } else {
        Err(Misfit::Invalid)
    }
}

/// Whether a literal fits a slot of type `slot` (ptxas: integers fit integer, bit-size and
/// predicate slots; `0f` literals are 32 bits, `0d` and decimal ones 64: a float literal fits
/// either float type, or the bit-size type of its own size).
pub fn literal_fits(v: &ConstValue, slot: ScalarType) -> Result<(), Misfit> {
    use ScalarType::*;
    let ok = match v {
        ConstValue::Int(_) => matches!(class(slot), Class::Int | Class::Bits | Class::Pred),
        ConstValue::F32(_) => matches!(slot, F32 | F64 | B32),
        ConstValue::F64(_) => matches!(slot, F32 | F64 | B64),
        ConstValue::Symbol(..) => true,
    };
    if ok {
        Ok(())
    } else {
        Err(Misfit::Invalid)
    }
}
