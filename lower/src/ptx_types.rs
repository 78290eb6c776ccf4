//! PTX type rules (spec §5.2 "Types", §9.1 operand type rules): which IR type holds a PTX type,
//! and how instructions read registers of other declared types.

use crate::ir::Ty;
use ptxcross_frontend::ast::ScalarType;

/// The IR type an instruction of PTX type `t` computes in.
///
/// Sub-word integers live in `U32` (*canonical form*: sign-extended for `.s8/.s16`,
/// zero-extended otherwise); `.f16`/`.bf16`/packed halves live in `U32` as bits.
pub fn value_ty(t: ScalarType) -> Option<Ty> {
    use ScalarType::*;
    Some(match t {
        Pred => Ty::Bool,
        B8 | B16 | B32 | U8 | U16 | U32 | S8 | S16 | S32 | F16 | Bf16 | F16x2 | Bf16x2 | Tf32 | E4m3 | E5m2
        | E4m3x2 | E5m2x2 => Ty::U32,
        F32 => Ty::F32,
        B64 | U64 | S64 => Ty::U64,
        F64 => Ty::F64,
        B128 | TexRef | SamplerRef | SurfRef => return None,
    })
}

pub fn is_signed(t: ScalarType) -> bool {
    matches!(t, ScalarType::S8 | ScalarType::S16 | ScalarType::S32 | ScalarType::S64)
}

pub fn is_float(t: ScalarType) -> bool {
    matches!(t, ScalarType::F32 | ScalarType::F64)
}

pub fn is_half(t: ScalarType) -> bool {
    matches!(t, ScalarType::F16 | ScalarType::Bf16 | ScalarType::F16x2 | ScalarType::Bf16x2)
}

/// Bit width of the type's value (predicates: 1).
pub fn bits(t: ScalarType) -> u32 {
    if t == ScalarType::Pred {
        1
    } else {
        t.size_bytes() * 8
    }
}

/// Bit-size types.
pub fn is_bits(t: ScalarType) -> bool {
    use ScalarType::*;
    matches!(t, B8 | B16 | B32 | B64 | B128)
}

/// Integer (or bit) types of every width.
pub fn is_int(t: ScalarType) -> bool {
    use ScalarType::*;
    matches!(t, B8 | B16 | B32 | B64 | U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64)
}
