//! The adversary's instruction families ([`Ins::H`], generator [`super::gen::hx_program`]):
//! where the earlier generators left wrong bits room to hide.
//!
//! - Half precision arithmetic on `.f16/.f16x2/.bf16/.bf16x2` (§9.7.4): `add/sub/mul`
//!   (`.rn{.ftz}{.sat}`), `fma.rn{.ftz}{.sat|.relu}`, `min/max{.ftz}{.NaN}{.xorsign.abs}`,
//!   `neg/abs{.ftz}`; scalar forms through `.b16` registers unpacked from / zero-extended into
//!   `%r` by `mov.b32 {lo, hi}` and `cvt.u32.u16`.
//! - f32 `min/max{.ftz}{.NaN}{.xorsign.abs}` (§9.7.3.11/12).
//! - `cvt` to halves: `cvt.{rn,rz}{.relu}{.satfinite}.{f16,bf16}.f32` and the packing
//!   `cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b` (a → upper half); round trips
//!   through `.e4m3x2/.e5m2x2` (`cvt.rn.satfinite{.relu}.f8x2type.{f32,f16x2}` then
//!   `cvt.rn.f16x2.f8x2type`) and `cvt.rn{.relu}.f16x2.f8x2type` of any 16 bits (§9.7.9.21).
//! - Extended-precision chains (§9.7.2): `add.cc`, `addc{.cc}`, `mad{c}.{lo,hi}{.cc}` on
//!   `.u32/.s32/.u64/.s64`, each on its own statement, so the carry flag lives across
//!   predicated instructions, branches and loops (the prologue clears it: it starts undefined).
//! - `atom/red.add` on floats (§9.7.13.5): `.f32` (global memory flushes subnormal inputs and
//!   results, shared memory does not — decided by the memory a generic address reaches),
//!   `.f64`, and `.noftz.{f16,bf16}` on either half of a word and `.noftz.{f16x2,bf16x2}`.
//! - `prmt` in every mode (`.f4e .b4e .rc8 .ecl .ecr .rc16`) with register selectors.
//! - `cvt{.sat}` between every pair of integer types `.u8 … .s64`, on registers wider than the
//!   type (the source's low bits; the result sign- or zero-extended to the register).
//! - Vector loads and stores (`.v2/.v4.u32`, `.v2.u64`) at register-indexed addresses, direct
//!   or generic.
//! - Constants (`mov.b32 %rD, imm`: half pairs with a ±0 lane, f32 edges), so that operands
//!   the driver knows reach every op above.
//!
//! Half, packed and fp8 results are "unspecified NaN" where NaN, so each such destination is
//! followed by an unguarded per-lane canonicalization (a lane above the format's infinity
//! becomes 0x7fff; after `.relu`, a −0 lane becomes +0, whose sign the spec leaves open); float
//! results written to memory by atomics are canonicalized in memory under the atomic's guard.
//! The model (`model.rs`) does the same.

use super::fops::{f32_value, f64_value};
use super::gen::Rng;
use super::program::*;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HOp {
    Add,
    Sub,
    Mul,
    Fma,
    Min,
    Max,
    Neg,
    Abs,
}

impl HOp {
    pub fn arity(self) -> usize {
        match self {
            HOp::Neg | HOp::Abs => 1,
            HOp::Fma => 3,
            _ => 2,
        }
    }
    fn name(self) -> &'static str {
        match self {
            HOp::Add => "add",
            HOp::Sub => "sub",
            HOp::Mul => "mul",
            HOp::Fma => "fma",
            HOp::Min => "min",
            HOp::Max => "max",
            HOp::Neg => "neg",
            HOp::Abs => "abs",
        }
    }
}

/// Carry-chain instruction kinds (§9.7.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcOp {
    /// `add.cc` (cin = false) / `addc{.cc}` (cin = true).
    Add,
    /// `mad.{lo,hi}.cc` / `madc.{lo,hi}{.cc}`.
    Mad { hi: bool },
}

/// The float types of `atom/red.add`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomF {
    F32,
    F64,
    /// `.noftz.{f16,bf16}` on the half at byte `off` (a multiple of 2).
    Half { bf16: bool },
    /// `.noftz.{f16x2,bf16x2}`.
    Half2 { bf16: bool },
}

/// Integer types of `cvt` (index into [`CVT_TYPES`]).
pub const CVT_TYPES: [(&str, u32, bool); 8] =
    [("u8", 8, false), ("s8", 8, true), ("u16", 16, false), ("s16", 16, true), ("u32", 32, false), ("s32", 32, true), ("u64", 64, false), ("s64", 64, true)];

/// The non-generic modes of `prmt` (§9.7.10.7).
pub const PRMT_MODES: [&str; 6] = ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HIns {
    /// Half arithmetic on `%r` registers (`packed`: both lanes; else the low half, the result
    /// zero-extended). `c` is read by fma only, `b` by the binary ops.
    Half { op: HOp, bf16: bool, packed: bool, ftz: bool, sat: bool, relu: bool, nan: bool, xorsign: bool, d: u8, a: u8, b: u8, c: u8 },
    /// `min/max{.ftz}{.NaN}{.xorsign.abs}.f32`.
    MinMax32 { max: bool, ftz: bool, nan: bool, xorsign: bool, d: u8, a: u8, b: u8 },
    /// `cvt.{rn,rz}{.relu}{.satfinite}.{f16,bf16}.f32 %hx4, a` (zero-extended into d), or with
    /// `pack`: `.{f16x2,bf16x2}.f32 d, a, b`.
    ToHalf { bf16: bool, rz: bool, relu: bool, satfinite: bool, pack: bool, d: u8, a: u8, b: u8 },
    /// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32 a, b | f16x2 a} %hx4` then
    /// `cvt.rn.f16x2.{e4m3x2,e5m2x2} d, %hx4`.
    Fp8Trip { e5m2: bool, relu: bool, from_half: bool, d: u8, a: u8, b: u8 },
    /// `cvt.u16.u32 %hx4, a; cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, %hx4`.
    Fp8Up { e5m2: bool, relu: bool, d: u8, a: u8 },
    /// `add.cc/addc{.cc}` or `mad{c}.{lo,hi}{.cc}` on `ty` (`c` is the addend of mad).
    Cc { op: CcOp, cin: bool, cout: bool, ty: IntTy, d: Reg, a: Src, b: Src, c: Src },
    /// `atom|red{.global,.shared,generic}.add{.noftz}.type [base+off], b` on the thread's own
    /// scratch or shared word (`d`: the old value, unless `red`; `b` the addend register).
    AtomF { ty: AtomF, red: bool, mem: Mem, generic: bool, off: u32, d: Reg, b: Reg },
    /// `prmt.b32.mode d, a, b, c`.
    PrmtMode { mode: u8, d: u8, a: Src, b: Src, c: Src },
    /// `cvt{.sat}.to.from d, a` (indices into [`CVT_TYPES`]).
    CvtInt { sat: bool, to: u8, from: u8, d: Reg, a: Reg },
    /// `setp.cmp{.bop}{.ftz}.{f16,bf16} %pP, lo(a), lo(b){, {!}c}` or
    /// `.{f16x2,bf16x2} %pP|%pQ, a, b{, {!}c}` (p: the low lanes, q: the high ones; c is
    /// neither p nor q). `cmp` indexes `fops::FCMP`.
    HSetp { cmp: u8, bf16: bool, packed: bool, ftz: bool, combine: Option<(BoolOp, Guard)>, p: u8, q: u8, a: u8, b: u8 },
    /// `atom{.space}.cas.b16 %hx0, [base+off], cmp, lo(c)` on a half of the thread's own word,
    /// `cmp` = lo(b) or (`hit`) the half itself, loaded just before.
    Cas16 { mem: Mem, generic: bool, off: u32, hit: bool, d: u8, b: u8, c: u8 },
    /// `cvt.frnd.{f16,bf16}.ity %hx4, a` (zero-extended into `%rD`), or (`!to_half`)
    /// `cvt.irnd.ity.{f16,bf16} d, lo(a)`; `rnd` indexes `.rn/.rz/.rm/.rp` or `fops::IRND`,
    /// `ity` [`CVT_TYPES`].
    CvtHI { to_half: bool, bf16: bool, rnd: u8, ity: u8, d: Reg, a: Reg },
    /// `ld/st{.space}.v{n}.{u32,u64}` at `base + (%r[index] & (bytes/size − 1))·size`
    /// (size = the vector's bytes).
    VecIdx { st: bool, n: u8, wide: bool, regs: [u8; 4], mem: Mem, index: u8, generic: bool },
    /// `mov.b32 %rD, v`: a constant the driver knows (half pairs with a ±0 lane, f32 edges),
    /// for the operands `lower` must hide from its folds (`misread_constants`: a select's
    /// −0.0 that the driver derives from a constant came out +0).
    Const { d: u8, v: u32 },
}

impl HIns {
    /// The `%r` destination whose 16-bit lanes are canonicalized after the instruction:
    /// (register, bf16 lanes, relu).
    pub fn half_dest(&self) -> Option<(u8, bool, bool)> {
        match *self {
            HIns::Half { bf16, relu, d, .. } => Some((d, bf16, relu)),
            HIns::ToHalf { bf16, relu, d, .. } => Some((d, bf16, relu)),
            HIns::Fp8Trip { relu, d, .. } | HIns::Fp8Up { relu, d, .. } => Some((d, false, relu)),
            _ => None,
        }
    }
    pub fn uses_carry(&self) -> bool {
        matches!(self, HIns::Cc { .. })
    }
    /// Bytes of one element and elements of a register-indexed vector access.
    pub fn vec_shape(n: u8, wide: bool) -> (u32, u32) {
        (if wide { 8 } else { 4 }, n as u32)
    }
}

const F16_EDGES: [u16; 24] = [
    0, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x0001, 0x8001, 0x03ff, 0x0400, 0x8400,
    0x7bff, 0xfbff, 0x3c01, 0x3bff, 0x1400, 0x6400, 0x0200, 0x5bff,
];
const BF16_EDGES: [u16; 20] = [
    0, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc1, 0x0001, 0x8001, 0x007f, 0x0080, 0x8080, 0x7f7f,
    0xff7f, 0x3f81, 0x3f7f, 0x4b00,
];

/// A 16-bit lane: an edge, a value near 1 (f16 or bf16 bits), or any bits.
fn half_value(rng: &mut Rng) -> u16 {
    let sign = (rng.below(2) as u16) << 15;
    match rng.below(7) {
        0 | 1 => rng.pick(&F16_EDGES),
        2 => rng.pick(&BF16_EDGES),
        3 => sign | (12 + rng.below(6) as u16) << 10 | (rng.next_u64() as u16 & 0x3ff),
        4 => sign | (123 + rng.below(8) as u16) << 7 | (rng.next_u64() as u16 & 0x7f),
        5 => sign | (rng.next_u64() as u16 & 0x3ff),
        _ => rng.next_u64() as u16,
    }
}

/// A word: two half lanes, an f32, or an integer edge.
fn word(rng: &mut Rng) -> u32 {
    match rng.below(10) {
        0..=3 => half_value(rng) as u32 | (half_value(rng) as u32) << 16,
        4..=6 => f32_value(rng),
        _ => rng.value() as u32,
    }
}

/// Inputs of an hx launch: as `gen::inputs`, with registers, scratch words and (through the
/// prologue) local and shared words drawn as half pairs, f32s and integer edges.
pub fn inputs(rng: &mut Rng, threads: usize) -> (Vec<u32>, Vec<u32>) {
    let mut input = Vec::with_capacity(threads * NIN);
    for _ in 0..threads {
        for _ in 0..NR {
            input.push(word(rng));
        }
        for _ in 0..ND {
            let v = if rng.chance(50) { f64_value(rng) } else if rng.chance(50) { rng.value() } else { word(rng) as u64 | (word(rng) as u64) << 32 };
            input.push(v as u32);
            input.push((v >> 32) as u32);
        }
        for _ in NR + 2 * ND..NIN {
            input.push(rng.value() as u32);
        }
    }
    let scratch = (0..threads * NG).map(|_| word(rng)).collect();
    (input, scratch)
}

fn r(rng: &mut Rng) -> u8 {
    rng.below(NR as u64) as u8
}

fn src_of(rng: &mut Rng, wide: bool) -> Src {
    if rng.chance(25) {
        Src::Imm(if wide { rng.value() } else { rng.value() & 0xffff_ffff })
    } else if wide {
        Src::Reg(Reg::D(rng.below(ND as u64) as u8))
    } else {
        Src::Reg(Reg::R(r(rng)))
    }
}

pub fn gen(rng: &mut Rng) -> HIns {
    let mut ins = gen_any(rng);
    // In-place updates (d = a) a third of the time.
    if rng.chance(33) {
        match &mut ins {
            HIns::Half { d, a, .. } | HIns::MinMax32 { d, a, .. } | HIns::ToHalf { d, a, .. } | HIns::Fp8Trip { d, a, .. } | HIns::Fp8Up { d, a, .. } => *d = *a,
            HIns::PrmtMode { d, a: Src::Reg(Reg::R(a)), .. } => *d = *a,
            HIns::Cc { d, a: a @ Src::Reg(_), .. } => *a = Src::Reg(*d),
            // The source register must be as wide as its type.
            HIns::CvtInt { d, a, from, .. } if CVT_TYPES[*from as usize].1 <= 32 || matches!(d, Reg::D(_)) => *a = *d,
            _ => {}
        }
    }
    ins
}

fn gen_any(rng: &mut Rng) -> HIns {
    match rng.below(26) {
        24..=25 => {
            let v = if rng.chance(50) {
                // One lane ±0 (the other any edge), or both.
                let z = |rng: &mut Rng| if rng.chance(50) { 0u32 } else { 0x8000 };
                let other = if rng.chance(25) { z(rng) } else { half_value(rng) as u32 };
                if rng.chance(50) { z(rng) | other << 16 } else { other | z(rng) << 16 }
            } else {
                word(rng)
            };
            HIns::Const { d: r(rng), v }
        }
        0..=5 => {
            let op = rng.pick(&[HOp::Add, HOp::Sub, HOp::Mul, HOp::Fma, HOp::Fma, HOp::Min, HOp::Max, HOp::Neg, HOp::Abs]);
            let bf16 = rng.chance(40);
            let packed = rng.chance(50);
            let arith = matches!(op, HOp::Add | HOp::Sub | HOp::Mul | HOp::Fma);
            let minmax = matches!(op, HOp::Min | HOp::Max);
            // §9.7.4: .ftz/.sat on f16 only; .relu on fma only, not with .sat.
            let ftz = !bf16 && rng.chance(35);
            let sat = !bf16 && arith && rng.chance(25);
            let relu = op == HOp::Fma && !sat && rng.chance(40);
            let nan = minmax && rng.chance(40);
            let xorsign = minmax && rng.chance(40);
            HIns::Half { op, bf16, packed, ftz, sat, relu, nan, xorsign, d: r(rng), a: r(rng), b: r(rng), c: r(rng) }
        }
        6 => HIns::MinMax32 { max: rng.chance(50), ftz: rng.chance(30), nan: rng.chance(50), xorsign: rng.chance(50), d: r(rng), a: r(rng), b: r(rng) },
        7..=8 => {
            let pack = rng.chance(50);
            HIns::ToHalf { bf16: rng.chance(50), rz: rng.chance(40), relu: rng.chance(30), satfinite: rng.chance(30), pack, d: r(rng), a: r(rng), b: r(rng) }
        }
        9 => {
            if rng.chance(60) {
                HIns::Fp8Trip { e5m2: rng.chance(50), relu: rng.chance(40), from_half: rng.chance(40), d: r(rng), a: r(rng), b: r(rng) }
            } else {
                HIns::Fp8Up { e5m2: rng.chance(50), relu: rng.chance(40), d: r(rng), a: r(rng) }
            }
        }
        10..=12 => {
            let ty = rng.pick(&[IntTy::U32, IntTy::S32, IntTy::U32, IntTy::U64, IntTy::S64]);
            let wide = ty.bits() == 64;
            let op = if rng.chance(50) { CcOp::Add } else { CcOp::Mad { hi: rng.chance(40) } };
            let d = if wide { Reg::D(rng.below(ND as u64) as u8) } else { Reg::R(r(rng)) };
            // Operands near the wrap make carries likely.
            let near = |rng: &mut Rng| if rng.chance(30) { Src::Imm(if wide { u64::MAX - rng.below(4) } else { 0xffff_ffff - rng.below(4) }) } else { src_of(rng, wide) };
            HIns::Cc { op, cin: rng.chance(60), cout: rng.chance(70), ty, d, a: near(rng), b: near(rng), c: near(rng) }
        }
        13..=14 => {
            let ty = rng.pick(&[AtomF::F32, AtomF::F32, AtomF::F64, AtomF::Half { bf16: false }, AtomF::Half { bf16: true }, AtomF::Half2 { bf16: false }, AtomF::Half2 { bf16: true }]);
            let (eb, dreg) = match ty {
                AtomF::F64 => (8, Reg::D(rng.below(ND as u64) as u8)),
                AtomF::Half { .. } => (2, Reg::R(r(rng))),
                _ => (4, Reg::R(r(rng))),
            };
            let b = if ty == AtomF::F64 { Reg::D(rng.below(ND as u64) as u8) } else { Reg::R(r(rng)) };
            let mem = rng.pick(&[Mem::Scratch, Mem::SharedRw]);
            let off = rng.below(16 / eb) as u32 * eb as u32;
            HIns::AtomF { ty, red: rng.chance(30), mem, generic: rng.chance(35), off, d: dreg, b }
        }
        20..=21 => {
            let (bf16, packed) = (rng.chance(40), rng.chance(50));
            let combine = rng.chance(40).then(|| (rng.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]), Guard { p: 0, neg: rng.chance(30) }));
            // Distinct predicates p, q and c.
            let mut ps = [0u8, 1, 2, 3];
            for i in (1..4).rev() {
                ps.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let combine = combine.map(|(op, g)| (op, Guard { p: ps[2], neg: g.neg }));
            HIns::HSetp { cmp: rng.below(super::fops::FCMP.len() as u64) as u8, bf16, packed, ftz: !bf16 && rng.chance(30), combine, p: ps[0], q: ps[1], a: r(rng), b: r(rng) }
        }
        22 => HIns::Cas16 { mem: rng.pick(&[Mem::Scratch, Mem::SharedRw]), generic: rng.chance(30), off: rng.below(8) as u32 * 2, hit: rng.chance(60), d: r(rng), b: r(rng), c: r(rng) },
        23 => {
            let ity = rng.below(8) as u8;
            let wide = CVT_TYPES[ity as usize].1 == 64;
            let to_half = rng.chance(50);
            let ireg = |rng: &mut Rng| if wide || rng.chance(20) { Reg::D(rng.below(ND as u64) as u8) } else { Reg::R(r(rng)) };
            let (d, a) = if to_half { (Reg::R(r(rng)), ireg(rng)) } else { (ireg(rng), Reg::R(r(rng))) };
            // ptxas (13.x) refuses `cvt` between `.bf16` and 8-bit integers, which the spec's
            // type list allows (§9.7.9.21): such programs could not be replayed through the
            // CUDA driver (tests/nvidia/run_specs.py), so those pairs convert from f16.
            let bf16 = rng.chance(40) && CVT_TYPES[ity as usize].1 != 8;
            HIns::CvtHI { to_half, bf16, rnd: rng.below(4) as u8, ity, d, a }
        }
        15 => HIns::PrmtMode { mode: rng.below(PRMT_MODES.len() as u64) as u8, d: r(rng), a: src_of(rng, false), b: src_of(rng, false), c: src_of(rng, false) },
        16..=17 => {
            let (to, from) = (rng.below(8) as u8, rng.below(8) as u8);
            let (tb, ts) = (CVT_TYPES[to as usize].1, CVT_TYPES[to as usize].2);
            let (fb, fs) = (CVT_TYPES[from as usize].1, CVT_TYPES[from as usize].2);
            // .sat only where the destination's range does not hold the source's (§9.7.9.21).
            let tlo: i128 = if ts { -(1i128 << (tb - 1)) } else { 0 };
            let thi: i128 = if ts { (1i128 << (tb - 1)) - 1 } else { (1i128 << tb) - 1 };
            let flo: i128 = if fs { -(1i128 << (fb - 1)) } else { 0 };
            let fhi: i128 = if fs { (1i128 << (fb - 1)) - 1 } else { (1i128 << fb) - 1 };
            let can_sat = !(tlo <= flo && thi >= fhi);
            let reg = |rng: &mut Rng, bits: u32| if bits == 64 || rng.chance(25) { Reg::D(rng.below(ND as u64) as u8) } else { Reg::R(r(rng)) };
            HIns::CvtInt { sat: can_sat && rng.chance(60), to, from, d: reg(rng, tb), a: reg(rng, fb) }
        }
        _ => {
            let st = rng.chance(50);
            let wide = rng.chance(30);
            let n = if wide { 2 } else { rng.pick(&[2u8, 4]) };
            let mems: &[Mem] = if st { &[Mem::Scratch, Mem::SharedRw, Mem::Local] } else { &[Mem::Scratch, Mem::SharedRw, Mem::Local, Mem::Table] };
            let mem = rng.pick(mems);
            let nr = if wide { ND } else { NR } as u64;
            let mut regs = [0u8; 4];
            let mut i = 0;
            while i < n as usize {
                let x = rng.below(nr) as u8;
                if st || !regs[..i].contains(&x) {
                    regs[i] = x;
                    i += 1;
                }
            }
            HIns::VecIdx { st, n, wide, regs, mem, index: r(rng), generic: rng.chance(30) }
        }
    }
}

fn s(x: Src) -> String {
    match x {
        Src::Reg(r) => reg(r),
        Src::Imm(v) => format!("{v:#x}"),
    }
}

fn flag(on: bool, s: &str) -> &str {
    if on {
        s
    } else {
        ""
    }
}

/// Prints the unguarded per-lane canonicalization of `%rD` (see the module comment).
fn canon(w: &mut String, d: u8, bf16: bool, relu: bool) {
    let inf = if bf16 { 0x7f80 } else { 0x7c00 };
    let _ = writeln!(w, "    mov.b32 {{%hx5, %hx6}}, %r{d};");
    for h in ["%hx5", "%hx6"] {
        let _ = writeln!(w, "    and.b16 %hx7, {h}, 0x7fff;\n    setp.gt.u16 %pf, %hx7, {inf:#x};\n    @%pf mov.b16 {h}, 0x7fff;");
        if relu {
            let _ = writeln!(w, "    setp.eq.u16 %pf, {h}, 0x8000;\n    @%pf mov.b16 {h}, 0;");
        }
    }
    let _ = writeln!(w, "    mov.b32 %r{d}, {{%hx5, %hx6}};");
}

/// The address of an atomic or a register-indexed access into `%ta0` (or `%t0` for direct
/// shared accesses); returns the operand text and the state-space qualifier.
fn address(w: &mut String, mem: Mem, generic: bool, offset: &dyn Fn(&mut String)) -> (String, &'static str) {
    offset(w);
    let shared = matches!(mem, Mem::SharedRw | Mem::SharedRo(_));
    if shared {
        let _ = writeln!(w, "    add.s32 %t0, %t0, {};", base(mem));
        if !generic {
            return ("%t0".into(), ".shared");
        }
        let _ = writeln!(w, "    cvt.u64.u32 %ta0, %t0;\n    cvta.shared.u64 %ta0, %ta0;");
        return ("%ta0".into(), "");
    }
    let _ = writeln!(w, "    cvt.u64.u32 %ta0, %t0;\n    add.s64 %ta0, %ta0, {};", base(mem));
    if !generic {
        return ("%ta0".into(), mem.space());
    }
    if mem == Mem::Local {
        let _ = writeln!(w, "    cvta.local.u64 %ta0, %ta0;");
    }
    ("%ta0".into(), "")
}

pub fn print(w: &mut String, gs: &str, ins: &HIns) {
    match *ins {
        HIns::Const { d, v } => {
            let _ = writeln!(w, "    {gs}mov.b32 %r{d}, {v:#x};");
        }
        HIns::Half { op, bf16, packed, ftz, sat, relu, nan, xorsign, d, a, b, c } => {
            let ty = match (bf16, packed) {
                (false, false) => "f16",
                (false, true) => "f16x2",
                (true, false) => "bf16",
                (true, true) => "bf16x2",
            };
            let rn = if matches!(op, HOp::Add | HOp::Sub | HOp::Mul | HOp::Fma) { ".rn" } else { "" };
            let mods = format!("{rn}{}{}{}{}{}", flag(ftz, ".ftz"), flag(sat, ".sat"), flag(relu, ".relu"), flag(nan, ".NaN"), flag(xorsign, ".xorsign.abs"));
            let srcs: Vec<u8> = [a, b, c][..op.arity()].to_vec();
            if packed {
                let ops: Vec<String> = srcs.iter().map(|x| format!("%r{x}")).collect();
                let _ = writeln!(w, "    {gs}{}{mods}.{ty} %r{d}, {};", op.name(), ops.join(", "));
            } else {
                // The low halves into %hx0..2 (the high ones into %hx3).
                for (i, x) in srcs.iter().enumerate() {
                    let _ = writeln!(w, "    mov.b32 {{%hx{i}, %hx3}}, %r{x};");
                }
                let ops: Vec<String> = (0..srcs.len()).map(|i| format!("%hx{i}")).collect();
                let _ = writeln!(w, "    {gs}{}{mods}.{ty} %hx4, {};\n    {gs}cvt.u32.u16 %r{d}, %hx4;", op.name(), ops.join(", "));
            }
        }
        HIns::MinMax32 { max, ftz, nan, xorsign, d, a, b } => {
            let _ = writeln!(
                w,
                "    {gs}{}{}{}{}.f32 %r{d}, %r{a}, %r{b};",
                if max { "max" } else { "min" },
                flag(ftz, ".ftz"),
                flag(nan, ".NaN"),
                flag(xorsign, ".xorsign.abs")
            );
            // No canonicalization: the result is an operand or, for two NaNs (any NaN with
            // .NaN), the canonical NaN 0x7fffffff (§9.7.3.11/12): every bit is defined.
        }
        HIns::ToHalf { bf16, rz, relu, satfinite, pack, d, a, b } => {
            let m = format!("{}{}{}", if rz { "rz" } else { "rn" }, flag(relu, ".relu"), flag(satfinite, ".satfinite"));
            let f = if bf16 { "bf16" } else { "f16" };
            if pack {
                let _ = writeln!(w, "    {gs}cvt.{m}.{f}x2.f32 %r{d}, %r{a}, %r{b};");
            } else {
                let _ = writeln!(w, "    {gs}cvt.{m}.{f}.f32 %hx4, %r{a};\n    {gs}cvt.u32.u16 %r{d}, %hx4;");
            }
        }
        HIns::Fp8Trip { e5m2, relu, from_half, d, a, b } => {
            let f = if e5m2 { "e5m2x2" } else { "e4m3x2" };
            let r = flag(relu, ".relu");
            if from_half {
                let _ = writeln!(w, "    {gs}cvt.rn.satfinite{r}.{f}.f16x2 %hx4, %r{a};");
            } else {
                let _ = writeln!(w, "    {gs}cvt.rn.satfinite{r}.{f}.f32 %hx4, %r{a}, %r{b};");
            }
            let _ = writeln!(w, "    {gs}cvt.rn.f16x2.{f} %r{d}, %hx4;");
        }
        HIns::Fp8Up { e5m2, relu, d, a } => {
            let f = if e5m2 { "e5m2x2" } else { "e4m3x2" };
            let _ = writeln!(w, "    {gs}cvt.u16.u32 %hx4, %r{a};\n    {gs}cvt.rn{}.f16x2.{f} %r{d}, %hx4;", flag(relu, ".relu"));
        }
        HIns::Cc { op, cin, cout, ty, d, a, b, c } => {
            let cc = flag(cout, ".cc");
            let _ = match op {
                CcOp::Add => writeln!(w, "    {gs}add{}{cc}.{} {}, {}, {};", flag(cin, "c"), ty.name(), reg(d), s(a), s(b)),
                CcOp::Mad { hi } => writeln!(
                    w,
                    "    {gs}mad{}.{}{cc}.{} {}, {}, {}, {};",
                    flag(cin, "c"),
                    if hi { "hi" } else { "lo" },
                    ty.name(),
                    reg(d),
                    s(a),
                    s(b),
                    s(c)
                ),
            };
        }
        HIns::AtomF { ty, red, mem, generic, off, d, b } => {
            let (addr, space) = address(w, mem, generic, &|w| {
                let _ = writeln!(w, "    mov.u32 %t0, {off};");
            });
            let (t, bop, dop) = match ty {
                AtomF::F32 => ("f32", reg(b), reg(d)),
                AtomF::F64 => ("f64", reg(b), reg(d)),
                AtomF::Half { bf16 } => {
                    let _ = writeln!(w, "    mov.b32 {{%hx1, %hx3}}, {};", reg(b));
                    (if bf16 { "noftz.bf16" } else { "noftz.f16" }, "%hx1".to_string(), "%hx0".to_string())
                }
                AtomF::Half2 { bf16 } => (if bf16 { "noftz.bf16x2" } else { "noftz.f16x2" }, reg(b), reg(d)),
            };
            if red {
                let _ = writeln!(w, "    {gs}red{space}.add.{t} [{addr}], {bop};");
            } else {
                let _ = writeln!(w, "    {gs}atom{space}.add.{t} {dop}, [{addr}], {bop};");
                if let AtomF::Half { .. } = ty {
                    let _ = writeln!(w, "    {gs}cvt.u32.u16 {}, %hx0;", reg(d));
                }
            }
            // The new memory value's NaN lanes canonicalized, under the atomic's guard (%pf
            // cleared first, unguarded, so that a skipped atomic stores nothing).
            let _ = writeln!(w, "    setp.ne.u32 %pf, %tx, %tx;");
            let _ = match ty {
                AtomF::F32 => writeln!(w, "    {gs}ld{space}.b32 %t1, [{addr}];\n    {gs}testp.notanumber.f32 %pf, %t1;\n    @%pf st{space}.b32 [{addr}], 0x7fffffff;"),
                AtomF::F64 => writeln!(w, "    {gs}ld{space}.b64 %ta1, [{addr}];\n    {gs}testp.notanumber.f64 %pf, %ta1;\n    @%pf st{space}.b64 [{addr}], 0x7fffffffffffffff;"),
                AtomF::Half { bf16 } | AtomF::Half2 { bf16 } => {
                    let inf = if bf16 { 0x7f80 } else { 0x7c00 };
                    let lanes = if matches!(ty, AtomF::Half2 { .. }) { 2 } else { 1 };
                    for l in 0..lanes {
                        let _ = writeln!(
                            w,
                            "    {gs}ld{space}.b16 %hx7, [{addr}+{}];\n    {gs}and.b16 %hx7, %hx7, 0x7fff;\n    {gs}setp.gt.u16 %pf, %hx7, {inf:#x};\n    @%pf st{space}.b16 [{addr}+{}], 0x7fff;",
                            2 * l,
                            2 * l
                        );
                    }
                    Ok(())
                }
            };
        }
        HIns::PrmtMode { mode, d, a, b, c } => {
            let _ = writeln!(w, "    {gs}prmt.b32.{} %r{d}, {}, {}, {};", PRMT_MODES[mode as usize], s(a), s(b), s(c));
        }
        HIns::CvtInt { sat, to, from, d, a } => {
            let _ = writeln!(w, "    {gs}cvt{}.{}.{} {}, {};", flag(sat, ".sat"), CVT_TYPES[to as usize].0, CVT_TYPES[from as usize].0, reg(d), reg(a));
        }
        HIns::HSetp { cmp, bf16, packed, ftz, combine, p, q, a, b } => {
            let f = if bf16 { "bf16" } else { "f16" };
            let (bop, c) = match combine {
                Some((op, g)) => {
                    let op = match op {
                        BoolOp::And => ".and",
                        BoolOp::Or => ".or",
                        BoolOp::Xor => ".xor",
                    };
                    (op, format!(", {}%p{}", flag(g.neg, "!"), g.p))
                }
                None => ("", String::new()),
            };
            let m = format!("{}{bop}{}", super::fops::FCMP[cmp as usize], flag(ftz, ".ftz"));
            if packed {
                let _ = writeln!(w, "    {gs}setp.{m}.{f}x2 %p{p}|%p{q}, %r{a}, %r{b}{c};");
            } else {
                let _ = writeln!(w, "    mov.b32 {{%hx0, %hx3}}, %r{a};\n    mov.b32 {{%hx1, %hx3}}, %r{b};\n    {gs}setp.{m}.{f} %p{p}, %hx0, %hx1{c};");
            }
        }
        HIns::Cas16 { mem, generic, off, hit, d, b, c } => {
            let (addr, space) = address(w, mem, generic, &|w| {
                let _ = writeln!(w, "    mov.u32 %t0, {off};");
            });
            if hit {
                let _ = writeln!(w, "    ld{space}.b16 %hx1, [{addr}];");
            } else {
                let _ = writeln!(w, "    mov.b32 {{%hx1, %hx3}}, %r{b};");
            }
            let _ = writeln!(w, "    mov.b32 {{%hx2, %hx3}}, %r{c};\n    {gs}atom{space}.cas.b16 %hx0, [{addr}], %hx1, %hx2;\n    {gs}cvt.u32.u16 %r{d}, %hx0;");
        }
        HIns::CvtHI { to_half, bf16, rnd, ity, d, a } => {
            let f = if bf16 { "bf16" } else { "f16" };
            let it = CVT_TYPES[ity as usize].0;
            if to_half {
                let r = ["rn", "rz", "rm", "rp"][rnd as usize];
                let _ = writeln!(w, "    {gs}cvt.{r}.{f}.{it} %hx4, {};\n    {gs}cvt.u32.u16 {}, %hx4;", reg(a), reg(d));
            } else {
                let r = super::fops::IRND[rnd as usize];
                let _ = writeln!(w, "    mov.b32 {{%hx0, %hx3}}, {};\n    {gs}cvt.{r}.{it}.{f} {}, %hx0;", reg(a), reg(d));
            }
        }
        HIns::VecIdx { st, n, wide, regs, mem, index, generic } => {
            let (eb, k) = HIns::vec_shape(n, wide);
            let size = eb * k;
            let mask = mem.bytes(64).min(TABLE_BYTES) / size - 1;
            let (addr, space) = address(w, mem, generic, &|w| {
                let _ = writeln!(w, "    and.b32 %t0, %r{index}, {mask};\n    shl.b32 %t0, %t0, {};", size.trailing_zeros());
            });
            let names: Vec<String> = (0..k as usize).map(|i| if wide { format!("%rd{}", regs[i]) } else { format!("%r{}", regs[i]) }).collect();
            let t = if wide { "u64" } else { "u32" };
            let _ = if st {
                writeln!(w, "    {gs}st{space}.v{k}.{t} [{addr}], {{{}}};", names.join(", "))
            } else {
                writeln!(w, "    {gs}ld{space}.v{k}.{t} {{{}}}, [{addr}];", names.join(", "))
            };
        }
    }
    if let Some((d, bf16, relu)) = ins.half_dest() {
        canon(w, d, bf16, relu);
    }
}
