//! Floating-point instructions of the generated programs ([`Ins::F`]): f32/f64 arithmetic in
//! every rounding direction with `.ftz`/`.sat`, min/max, abs/neg, `sqrt`/`rcp`/`div` correctly
//! rounded, ordered and unordered `setp`, `selp`, and `cvt` between floats and integers, f32 and
//! f64, f32 and f16/bf16. Their semantics are in `model.rs` (from `ptx_ref`, written from the
//! spec); this file holds their shape, generation and printing.
//!
//! NaN results are "unspecified NaN" (§9.7.3), so every instruction whose result may be a NaN is
//! printed with a canonicalization behind it — `testp.notanumber` of the destination and, when it
//! holds, a move of the canonical NaN (`0x7fffffff`, `0x7fffffffffffffff`) into it — which runs
//! unguarded (the model does the same after the instruction, executed or not). Every other
//! result bit is compared exactly.

use super::gen::Rng;
use super::program::*;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FTy {
    F32,
    F64,
}

impl FTy {
    pub fn name(self) -> &'static str {
        match self {
            FTy::F32 => "f32",
            FTy::F64 => "f64",
        }
    }
    /// The integer type of the same width (register class and immediate mask).
    pub fn bits_ty(self) -> IntTy {
        match self {
            FTy::F32 => IntTy::U32,
            FTy::F64 => IntTy::U64,
        }
    }
    pub fn canonical_nan(self) -> u64 {
        match self {
            FTy::F32 => 0x7fff_ffff,
            FTy::F64 => 0x7fff_ffff_ffff_ffff,
        }
    }
    pub fn is_nan(self, v: u64) -> bool {
        match self {
            FTy::F32 => f32::from_bits(v as u32).is_nan(),
            FTy::F64 => f64::from_bits(v).is_nan(),
        }
    }
}

/// `.rn/.rz/.rm/.rp` (floating-point rounding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
}

impl Rnd {
    pub fn name(self) -> &'static str {
        match self {
            Rnd::Rn => "rn",
            Rnd::Rz => "rz",
            Rnd::Rm => "rm",
            Rnd::Rp => "rp",
        }
    }
    pub fn apfloat(self) -> rustc_apfloat::Round {
        use rustc_apfloat::Round;
        match self {
            Rnd::Rn => Round::NearestTiesToEven,
            Rnd::Rz => Round::TowardZero,
            Rnd::Rm => Round::TowardNegative,
            Rnd::Rp => Round::TowardPositive,
        }
    }
}

/// `.rni/.rzi/.rmi/.rpi` (integer rounding), the index into `ptx_ref::float::IntRound::ALL`.
pub const IRND: [&str; 4] = ["rni", "rzi", "rmi", "rpi"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FOp2 {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FOp1 {
    Abs,
    Neg,
    Sqrt,
    Rcp,
}

/// The comparisons of `setp` on floats (§9.7.6.1 table "Floating-point comparison operators").
pub const FCMP: [&str; 14] = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FIns {
    /// `op{.rnd}{.ftz}{.sat}.fty d, a, b` (min/max: no rounding; `.sat` only f32 add/sub/mul;
    /// `.ftz` only f32).
    Bin { op: FOp2, ty: FTy, rnd: Rnd, ftz: bool, sat: bool, d: Reg, a: Src, b: Src },
    /// `fma.rnd{.ftz}{.sat}.fty d, a, b, c`.
    Fma { ty: FTy, rnd: Rnd, ftz: bool, sat: bool, d: Reg, a: Src, b: Src, c: Src },
    /// `abs/neg{.ftz}.fty d, a`, `sqrt/rcp.rnd{.ftz}.fty d, a`.
    Un { op: FOp1, ty: FTy, rnd: Rnd, ftz: bool, d: Reg, a: Reg },
    /// `setp.cmp{.bop}{.ftz}.fty p, a, b{, {!}c}` (`cmp` indexes [`FCMP`]).
    Setp { cmp: u8, ty: FTy, ftz: bool, p: u8, a: Src, b: Src, combine: Option<(BoolOp, Guard)> },
    /// `selp.fty d, a, b, p`.
    Selp { ty: FTy, d: Reg, a: Src, b: Src, p: u8 },
    /// `mov.fty d, imm`.
    Mov { ty: FTy, d: Reg, a: u64 },
    /// `cvt.irnd{.ftz}{.sat}.ity.fty d, a` (`rnd` indexes [`IRND`]).
    F2I { rnd: u8, ftz: bool, sat: bool, to: IntTy, from: FTy, d: Reg, a: Reg },
    /// `cvt.rnd.fty.ity d, a`.
    I2F { rnd: Rnd, to: FTy, from: IntTy, d: Reg, a: Reg },
    /// `cvt{.ftz}.f64.f32 d, a`.
    Widen { ftz: bool, d: Reg, a: Reg },
    /// `cvt.rnd{.sat}.f32.f64 d, a`.
    Narrow { rnd: Rnd, sat: bool, d: Reg, a: Reg },
    /// `cvt.irnd{.ftz}{.sat}.fty.fty d, a` (round to an integral value).
    RoundInt { rnd: u8, ty: FTy, ftz: bool, sat: bool, d: Reg, a: Reg },
    /// `cvt.{rn,rz}.{f16,bf16}.f32 %h0, a; cvt.f32.{f16,bf16} d, %h0` (a round trip).
    Half { bf16: bool, rz: bool, d: Reg, a: Reg },
    /// `cvt.u16.u32 %h0, a; cvt.f32.{f16,bf16} d, %h0` (a's low half as a half).
    FromHalf { bf16: bool, d: Reg, a: Reg },
}

impl FIns {
    /// The destination that holds a float (canonicalized after the instruction) and its type.
    pub fn float_dest(&self) -> Option<(Reg, FTy)> {
        match *self {
            FIns::Bin { ty, d, .. } | FIns::Fma { ty, d, .. } | FIns::Un { ty, d, .. } | FIns::RoundInt { ty, d, .. } => Some((d, ty)),
            FIns::Widen { d, .. } => Some((d, FTy::F64)),
            FIns::Narrow { d, .. } | FIns::Half { d, .. } | FIns::FromHalf { d, .. } => Some((d, FTy::F32)),
            FIns::Setp { .. } | FIns::Selp { .. } | FIns::Mov { .. } | FIns::F2I { .. } | FIns::I2F { .. } => None,
        }
    }
}

/// Interesting f32 bit patterns: zeros, ±1, halves and ties, infinities, NaNs (quiet and
/// signalling), subnormals, the normal boundary, the largest finite, integer-conversion edges.
const F32_EDGES: [u32; 30] = [
    0, 0x8000_0000, 0x3f80_0000, 0xbf80_0000, 0x3f00_0000, 0xbf00_0000, 0x3fc0_0000, 0x4020_0000, 0xbfc0_0000, 0x4040_0000,
    0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xff80_0001, 0x0000_0001, 0x8000_0001, 0x007f_ffff, 0x0080_0000, 0x8080_0000,
    0x7f7f_ffff, 0xff7f_ffff, 0x3f80_0001, 0x3f7f_ffff, 0x3380_0000, 0x4b00_0000, 0x4f00_0000, 0xcf00_0000, 0x5f00_0000,
    0x5f80_0000, 0x3dcc_cccd,
];

const F64_EDGES: [u64; 26] = [
    0,
    1 << 63,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x3fe0_0000_0000_0000,
    0x3ff8_0000_0000_0000,
    0x4004_0000_0000_0000,
    0xbff8_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    1,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x3ff0_0000_0000_0001,
    0x3fef_ffff_ffff_ffff,
    0x41e0_0000_0000_0000,
    0xc1e0_0000_0000_0000,
    0x43e0_0000_0000_0000,
    0x43f0_0000_0000_0000,
    0xc3e0_0000_0000_0000,
    0x3fb9_9999_9999_999a,
    // f32's largest finite, its smallest subnormal (narrowing edges).
    0x47ef_ffff_e000_0000,
];

/// An f32 that often sits at an edge, else a value near 1 (where rounding directions differ
/// often), else any bits.
pub fn f32_value(rng: &mut Rng) -> u32 {
    match rng.below(6) {
        0 | 1 => rng.pick(&F32_EDGES),
        2 | 3 => {
            let sign = (rng.below(2) as u32) << 31;
            let exp = 118 + rng.below(20) as u32;
            sign | exp << 23 | (rng.next_u64() as u32 & 0x7f_ffff)
        }
        4 => (rng.below(2) as u32) << 31 | (rng.next_u64() as u32 & 0x7f_ffff),
        _ => rng.next_u64() as u32,
    }
}

pub fn f64_value(rng: &mut Rng) -> u64 {
    match rng.below(6) {
        0 | 1 => rng.pick(&F64_EDGES),
        2 | 3 => {
            let sign = rng.below(2) << 63;
            let exp = 1013 + rng.below(24);
            sign | exp << 52 | (rng.next_u64() & ((1 << 52) - 1))
        }
        4 => {
            // Near f32's range edges (narrowing to f32 overflows, underflows, subnormals).
            let sign = rng.below(2) << 63;
            let exp = rng.pick(&[1023 - 150, 1023 - 149, 1023 - 127, 1023 - 126, 1023 + 127, 1023 + 128, 1023 + 31, 1023 + 63]);
            sign | exp << 52 | (rng.next_u64() & ((1 << 52) - 1))
        }
        _ => rng.next_u64(),
    }
}

/// Inputs of a float launch: as `gen::inputs`, with the registers' words drawn as floats (f32
/// in `%r`, f64 in `%rd`) most of the time.
pub fn inputs(rng: &mut Rng, threads: usize) -> (Vec<u32>, Vec<u32>) {
    let mut input = Vec::with_capacity(threads * NIN);
    for _ in 0..threads {
        for _ in 0..NR {
            input.push(if rng.chance(80) { f32_value(rng) } else { rng.value() as u32 });
        }
        for _ in 0..ND {
            let v = if rng.chance(80) { f64_value(rng) } else { rng.value() };
            input.push(v as u32);
            input.push((v >> 32) as u32);
        }
        for _ in NR + 2 * ND..NIN {
            input.push(rng.value() as u32);
        }
    }
    let scratch = (0..threads * NG).map(|_| f32_value(rng)).collect();
    (input, scratch)
}

fn reg_of(rng: &mut Rng, ty: FTy) -> Reg {
    match ty {
        FTy::F32 => Reg::R(rng.below(NR as u64) as u8),
        FTy::F64 => Reg::D(rng.below(ND as u64) as u8),
    }
}

fn src_of(rng: &mut Rng, ty: FTy) -> Src {
    if rng.chance(25) {
        Src::Imm(match ty {
            FTy::F32 => f32_value(rng) as u64,
            FTy::F64 => f64_value(rng),
        })
    } else {
        Src::Reg(reg_of(rng, ty))
    }
}

fn int_reg(rng: &mut Rng, ty: IntTy) -> Reg {
    if ty.bits() == 32 {
        Reg::R(rng.below(NR as u64) as u8)
    } else {
        Reg::D(rng.below(ND as u64) as u8)
    }
}

/// A random float instruction.
pub fn gen(rng: &mut Rng) -> FIns {
    let ty = if rng.chance(65) { FTy::F32 } else { FTy::F64 };
    let f32_ = ty == FTy::F32;
    let rnd = if rng.chance(50) { Rnd::Rn } else { rng.pick(&[Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp]) };
    let ftz = f32_ && rng.chance(25);
    let ints = [IntTy::U32, IntTy::S32, IntTy::U64, IntTy::S64];
    match rng.below(20) {
        0..=5 => {
            let op = rng.pick(&[FOp2::Add, FOp2::Sub, FOp2::Mul, FOp2::Add, FOp2::Sub, FOp2::Mul, FOp2::Div, FOp2::Min, FOp2::Max]);
            let sat = f32_ && matches!(op, FOp2::Add | FOp2::Sub | FOp2::Mul) && rng.chance(20);
            FIns::Bin { op, ty, rnd, ftz, sat, d: reg_of(rng, ty), a: src_of(rng, ty), b: src_of(rng, ty) }
        }
        6..=7 => {
            let sat = f32_ && rng.chance(20);
            FIns::Fma { ty, rnd, ftz, sat, d: reg_of(rng, ty), a: src_of(rng, ty), b: src_of(rng, ty), c: src_of(rng, ty) }
        }
        8..=9 => {
            let op = rng.pick(&[FOp1::Abs, FOp1::Neg, FOp1::Sqrt, FOp1::Rcp]);
            FIns::Un { op, ty, rnd, ftz, d: reg_of(rng, ty), a: reg_of(rng, ty) }
        }
        10..=11 => {
            let combine = rng.chance(30).then(|| {
                (rng.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]), Guard { p: rng.below(NP as u64) as u8, neg: rng.chance(30) })
            });
            FIns::Setp { cmp: rng.below(FCMP.len() as u64) as u8, ty, ftz, p: rng.below(NP as u64) as u8, a: src_of(rng, ty), b: src_of(rng, ty), combine }
        }
        12 => FIns::Selp { ty, d: reg_of(rng, ty), a: src_of(rng, ty), b: src_of(rng, ty), p: rng.below(NP as u64) as u8 },
        13 => {
            let a = match ty {
                FTy::F32 => f32_value(rng) as u64,
                FTy::F64 => f64_value(rng),
            };
            FIns::Mov { ty, d: reg_of(rng, ty), a }
        }
        14..=15 => {
            let to = rng.pick(&ints);
            FIns::F2I { rnd: rng.below(4) as u8, ftz, sat: rng.chance(20), to, from: ty, d: int_reg(rng, to), a: reg_of(rng, ty) }
        }
        16 => {
            let from = rng.pick(&ints);
            FIns::I2F { rnd, to: ty, from, d: reg_of(rng, ty), a: int_reg(rng, from) }
        }
        17 => {
            if rng.chance(50) {
                FIns::Widen { ftz: rng.chance(25), d: reg_of(rng, FTy::F64), a: reg_of(rng, FTy::F32) }
            } else {
                FIns::Narrow { rnd, sat: rng.chance(20), d: reg_of(rng, FTy::F32), a: reg_of(rng, FTy::F64) }
            }
        }
        18 => FIns::RoundInt { rnd: rng.below(4) as u8, ty, ftz, sat: rng.chance(20), d: reg_of(rng, ty), a: reg_of(rng, ty) },
        _ => {
            let (bf16, d, a) = (rng.chance(50), reg_of(rng, FTy::F32), reg_of(rng, FTy::F32));
            if rng.chance(60) {
                FIns::Half { bf16, rz: rng.chance(40), d, a }
            } else {
                FIns::FromHalf { bf16, d, a }
            }
        }
    }
}


fn fsrc(s: Src, ty: FTy) -> String {
    match (s, ty) {
        (Src::Reg(r), _) => reg(r),
        (Src::Imm(v), FTy::F32) => format!("0f{:08X}", v as u32),
        (Src::Imm(v), FTy::F64) => format!("0d{v:016X}"),
    }
}

fn flag(on: bool, s: &str) -> &str {
    if on {
        s
    } else {
        ""
    }
}

/// Prints `ins` under the guard text `gs` (empty or `@%pN `), then the unguarded NaN
/// canonicalization of its float destination.
pub fn print(w: &mut String, gs: &str, ins: &FIns) {
    let _ = match *ins {
        FIns::Bin { op, ty, rnd, ftz, sat, d, a, b } => {
            let (name, rounded) = match op {
                FOp2::Add => ("add", true),
                FOp2::Sub => ("sub", true),
                FOp2::Mul => ("mul", true),
                FOp2::Div => ("div", true),
                FOp2::Min => ("min", false),
                FOp2::Max => ("max", false),
            };
            let r = if rounded { format!(".{}", rnd.name()) } else { String::new() };
            writeln!(w, "    {gs}{name}{r}{}{}.{} {}, {}, {};", flag(ftz, ".ftz"), flag(sat, ".sat"), ty.name(), reg(d), fsrc(a, ty), fsrc(b, ty))
        }
        FIns::Fma { ty, rnd, ftz, sat, d, a, b, c } => writeln!(
            w,
            "    {gs}fma.{}{}{}.{} {}, {}, {}, {};",
            rnd.name(),
            flag(ftz, ".ftz"),
            flag(sat, ".sat"),
            ty.name(),
            reg(d),
            fsrc(a, ty),
            fsrc(b, ty),
            fsrc(c, ty)
        ),
        FIns::Un { op, ty, rnd, ftz, d, a } => {
            let name = match op {
                FOp1::Abs => "abs".to_string(),
                FOp1::Neg => "neg".to_string(),
                FOp1::Sqrt => format!("sqrt.{}", rnd.name()),
                FOp1::Rcp => format!("rcp.{}", rnd.name()),
            };
            writeln!(w, "    {gs}{name}{}.{} {}, {};", flag(ftz, ".ftz"), ty.name(), reg(d), reg(a))
        }
        FIns::Setp { cmp, ty, ftz, p, a, b, combine } => {
            let cmp = FCMP[cmp as usize];
            match combine {
                None => writeln!(w, "    {gs}setp.{cmp}{}.{} {}, {}, {};", flag(ftz, ".ftz"), ty.name(), pred(p), fsrc(a, ty), fsrc(b, ty)),
                Some((op, q)) => {
                    let op = match op {
                        BoolOp::And => "and",
                        BoolOp::Or => "or",
                        BoolOp::Xor => "xor",
                    };
                    writeln!(
                        w,
                        "    {gs}setp.{cmp}.{op}{}.{} {}, {}, {}, {}{};",
                        flag(ftz, ".ftz"),
                        ty.name(),
                        pred(p),
                        fsrc(a, ty),
                        fsrc(b, ty),
                        flag(q.neg, "!"),
                        pred(q.p)
                    )
                }
            }
        }
        FIns::Selp { ty, d, a, b, p } => writeln!(w, "    {gs}selp.{} {}, {}, {}, {};", ty.name(), reg(d), fsrc(a, ty), fsrc(b, ty), pred(p)),
        FIns::Mov { ty, d, a } => writeln!(w, "    {gs}mov.{} {}, {};", ty.name(), reg(d), fsrc(Src::Imm(a), ty)),
        FIns::F2I { rnd, ftz, sat, to, from, d, a } => writeln!(
            w,
            "    {gs}cvt.{}{}{}.{}.{} {}, {};",
            IRND[rnd as usize],
            flag(ftz, ".ftz"),
            flag(sat, ".sat"),
            to.name(),
            from.name(),
            reg(d),
            reg(a)
        ),
        FIns::I2F { rnd, to, from, d, a } => writeln!(w, "    {gs}cvt.{}.{}.{} {}, {};", rnd.name(), to.name(), from.name(), reg(d), reg(a)),
        FIns::Widen { ftz, d, a } => writeln!(w, "    {gs}cvt{}.f64.f32 {}, {};", flag(ftz, ".ftz"), reg(d), reg(a)),
        FIns::Narrow { rnd, sat, d, a } => writeln!(w, "    {gs}cvt.{}{}.f32.f64 {}, {};", rnd.name(), flag(sat, ".sat"), reg(d), reg(a)),
        FIns::RoundInt { rnd, ty, ftz, sat, d, a } => writeln!(
            w,
            "    {gs}cvt.{}{}{}.{}.{} {}, {};",
            IRND[rnd as usize],
            flag(ftz, ".ftz"),
            flag(sat, ".sat"),
            ty.name(),
            ty.name(),
            reg(d),
            reg(a)
        ),
        FIns::Half { bf16, rz, d, a } => {
            let f = if bf16 { "bf16" } else { "f16" };
            writeln!(w, "    {gs}cvt.{}.{f}.f32 %h0, {};\n    {gs}cvt.f32.{f} {}, %h0;", if rz { "rz" } else { "rn" }, reg(a), reg(d))
        }
        FIns::FromHalf { bf16, d, a } => {
            let f = if bf16 { "bf16" } else { "f16" };
            writeln!(w, "    {gs}cvt.u16.u32 %h0, {};\n    {gs}cvt.f32.{f} {}, %h0;", reg(a), reg(d))
        }
    };
    if let Some((d, ty)) = ins.float_dest() {
        let b = if ty == FTy::F32 { "b32" } else { "b64" };
        let _ = writeln!(w, "    testp.notanumber.{} %pf, {};\n    @%pf mov.{b} {}, {:#x};", ty.name(), reg(d), reg(d), ty.canonical_nan());
    }
}
