//! Execution tests: the emitted WGSL runs (lavapipe in CI, any adapter wgpu finds) and its
//! results are compared with an independent CPU model of the IR semantics in `ir.rs`,
//! written here from the IR's documentation (never from the emitter's output).

mod common;
#[path = "common/gpu.rs"]
mod gpu;

use common::*;
use ptxcross_lower::abi;
use ptxcross_lower::ir::*;
use ptxcross_wgsl::{emit, Profile};

const WG: u32 = 64;
const BASE: u32 = abi::HEAP_RESERVED_WORDS;

#[derive(Clone, Copy, Debug)]
enum Case {
    Un(UnaryOp),
    Bin(BinaryOp),
    Cmp(CmpOp),
    Conv(ConvertOp, Ty),
    Fma,
    Select,
    Use,
}

fn cases(ty: Ty) -> Vec<(Case, Ty)> {
    let mut v = vec![(Case::Use, ty), (Case::Select, ty)];
    for op in UnaryOp::ALL {
        if let Some(r) = op.result_ty(ty) {
            v.push((Case::Un(op), r));
        }
    }
    for op in BinaryOp::ALL {
        if op.accepts(ty) {
            v.push((Case::Bin(op), ty));
        }
    }
    for op in CmpOp::ALL {
        if op.accepts(ty) {
            v.push((Case::Cmp(op), Ty::Bool));
        }
    }
    for op in ConvertOp::ALL {
        for to in Ty::ALL {
            if op.accepts(ty, to) {
                v.push((Case::Conv(op, to), to));
            }
        }
    }
    if ty.is_float() {
        v.push((Case::Fma, ty));
    }
    v
}

// ---- the CPU model (from ir.rs) ----

fn mask(ty: Ty) -> u64 {
    if ty.bits() == 64 {
        u64::MAX
    } else {
        (1u64 << ty.bits()) - 1
    }
}
fn sx(ty: Ty, x: u64) -> i64 {
    if ty == Ty::U32 {
        x as u32 as i32 as i64
    } else {
        x as i64
    }
}
fn f(ty: Ty, x: u64) -> f64 {
    if ty == Ty::F32 {
        f32::from_bits(x as u32) as f64
    } else {
        f64::from_bits(x)
    }
}
fn to_bits(ty: Ty, x: f64) -> u64 {
    if ty == Ty::F32 {
        (x as f32).to_bits() as u64
    } else {
        x.to_bits()
    }
}

/// What the GPU's result must be.
#[derive(Debug, Clone, Copy)]
enum Want {
    Bits(u64),
    /// A float result: NaN matches any NaN; a subnormal result may also be flushed to a zero
    /// of its sign (Vulkan and WebGPU allow it; the IR leaves it to the target); `ulps` of slack.
    Float(u64, u64),
    /// A precondition of the op does not hold: any result.
    Any,
    /// `Fma`: the IR promises one rounding (the first value); Vulkan only promises the
    /// precision of a multiply then an add, and lavapipe does not fuse, so the doubly rounded
    /// result (the second) is accepted too — a target gap reported to `lower`, see the README.
    Fma(u64, u64),
}

fn eval(case: Case, ty: Ty, a: u64, b: u64, c: u64) -> Want {
    use Want::*;
    let m = mask(ty);
    let fl = |x: f64| Float(to_bits(ty, x), 0);
    match case {
        Case::Use => Bits(a),
        Case::Select => Bits(if a & 1 == 1 { b } else { c }), // cond = low bit of a (see kernel)
        Case::Un(op) => match op {
            UnaryOp::Not => Bits(!a & m),
            UnaryOp::Neg => Bits(a.wrapping_neg() & m),
            UnaryOp::FNeg => Bits(a ^ (1 << (ty.bits() - 1))),
            UnaryOp::FAbs => Bits(a & !(1 << (ty.bits() - 1))),
            UnaryOp::FSqrt => {
                if ty == Ty::F32 {
                    Float((f32::from_bits(a as u32).sqrt()).to_bits() as u64, 1)
                } else {
                    Float(f64::from_bits(a).sqrt().to_bits(), 1)
                }
            }
            UnaryOp::FFloor => fl(f(ty, a).floor()),
            UnaryOp::FCeil => fl(f(ty, a).ceil()),
            UnaryOp::FTrunc => fl(f(ty, a).trunc()),
            UnaryOp::FRoundEven => fl(f(ty, a).round_ties_even()),
            UnaryOp::Popcount => Bits(a.count_ones() as u64),
            UnaryOp::CountLeadingZeros => Bits((a.leading_zeros() - (64 - ty.bits())) as u64),
            UnaryOp::BitReverse => Bits(a.reverse_bits() >> (64 - ty.bits())),
        },
        Case::Bin(op) => {
            use BinaryOp::*;
            let w = ty.bits();
            let s = (b as u32 & (w - 1)) as u64; // shift amount (the kernel masks it the same way)
            let (sa, sb) = (sx(ty, a), sx(ty, b));
            let divides = b != 0 && !(matches!(op, DivS | RemS) && sb == -1 && sa == sx(ty, 1 << (w - 1)));
            if matches!(op, DivU | DivS | RemU | RemS) && !divides {
                return Any;
            }
            let r = match op {
                Add => a.wrapping_add(b),
                Sub => a.wrapping_sub(b),
                Mul => a.wrapping_mul(b),
                MulHiU => ((a as u128 * b as u128) >> w) as u64,
                MulHiS => ((sa as i128 * sb as i128) >> w) as u64,
                DivU => a / b,
                RemU => a % b,
                DivS => (sa / sb) as u64,
                RemS => (sa % sb) as u64,
                And => a & b,
                Or => a | b,
                Xor => a ^ b,
                Shl => a << s,
                ShrU => a >> s,
                ShrS => (sa >> s) as u64,
                MinU => a.min(b),
                MaxU => a.max(b),
                MinS => sa.min(sb) as u64,
                MaxS => sa.max(sb) as u64,
                FAdd | FSub | FMul | FDiv | FMin | FMax => {
                    let (x, y) = (f(ty, a), f(ty, b));
                    if matches!(op, FMin | FMax) && (x.is_nan() || y.is_nan() || (x == 0.0 && y == 0.0 && a != b)) {
                        return Any;
                    }
                    return match (op, ty) {
                        (FAdd, Ty::F32) => Float((x as f32 + y as f32).to_bits() as u64, 0),
                        (FSub, Ty::F32) => Float((x as f32 - y as f32).to_bits() as u64, 0),
                        (FMul, Ty::F32) => Float((x as f32 * y as f32).to_bits() as u64, 0),
                        (FDiv, Ty::F32) => Float((x as f32 / y as f32).to_bits() as u64, 3),
                        (FAdd, _) => Float((x + y).to_bits(), 0),
                        (FSub, _) => Float((x - y).to_bits(), 0),
                        (FMul, _) => Float((x * y).to_bits(), 0),
                        (FDiv, _) => Float((x / y).to_bits(), 3),
                        (FMin, _) => fl(x.min(y)),
                        _ => fl(x.max(y)),
                    };
                }
            };
            Bits(r & m)
        }
        Case::Cmp(op) => {
            use CmpOp::*;
            let (sa, sb) = (sx(ty, a), sx(ty, b));
            let (x, y) = if ty.is_float() { (f(ty, a), f(ty, b)) } else { (0.0, 0.0) };
            let r = match op {
                Eq => a == b,
                Ne => a != b,
                LtU => a < b,
                LeU => a <= b,
                GtU => a > b,
                GeU => a >= b,
                LtS => sa < sb,
                LeS => sa <= sb,
                GtS => sa > sb,
                GeS => sa >= sb,
                FEq => x == y,
                FNe => !x.is_nan() && !y.is_nan() && x != y,
                FLt => x < y,
                FLe => x <= y,
                FGt => x > y,
                FGe => x >= y,
            };
            Bits(r as u64)
        }
        Case::Conv(op, to) => {
            use ConvertOp::*;
            match op {
                Truncate => Bits(a & 0xffff_ffff),
                ZeroExtend => Bits(a),
                SignExtend => Bits(a as u32 as i32 as i64 as u64),
                Bitcast => Bits(a),
                FloatToUint | FloatToSint => {
                    let t = f(ty, a).trunc();
                    let (lo, hi) = match (op, to) {
                        (FloatToUint, Ty::U32) => (0.0, 4294967296.0),
                        (FloatToUint, _) => (0.0, 18446744073709551616.0),
                        (_, Ty::U32) => (-2147483648.0, 2147483648.0),
                        _ => (-9223372036854775808.0, 9223372036854775808.0),
                    };
                    if t.is_nan() || t < lo || t >= hi {
                        return Any;
                    }
                    let v = if op == FloatToUint { t as u64 } else { t as i64 as u64 };
                    Bits(v & mask(to))
                }
                UintToFloat | SintToFloat => {
                    let r = match (op, to) {
                        (UintToFloat, Ty::F32) => (a as f32).to_bits() as u64,
                        (UintToFloat, _) => (a as f64).to_bits(),
                        (_, Ty::F32) => (sx(ty, a) as f32).to_bits() as u64,
                        _ => (sx(ty, a) as f64).to_bits(),
                    };
                    Float(r, 0)
                }
                FloatToFloat => {
                    if to == Ty::F32 {
                        Float((f64::from_bits(a) as f32).to_bits() as u64, 0)
                    } else {
                        Float((f32::from_bits(a as u32) as f64).to_bits(), 0)
                    }
                }
            }
        }
        Case::Fma => {
            if ty == Ty::F32 {
                let (x, y, z) = (f32::from_bits(a as u32), f32::from_bits(b as u32), f32::from_bits(c as u32));
                Fma(x.mul_add(y, z).to_bits() as u64, (x * y + z).to_bits() as u64)
            } else {
                let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
                Fma(x.mul_add(y, z).to_bits(), (x * y + z).to_bits())
            }
        }
    }
}

/// Float arithmetic may flush subnormal inputs and results to zero (WebGPU allows it;
/// SwiftShader does it, lavapipe does not): the cases where that is allowed.
fn may_flush(case: Case, ty: Ty) -> bool {
    ty.is_float()
        && match case {
            Case::Un(op) => op == UnaryOp::FSqrt,
            Case::Bin(_) | Case::Cmp(_) | Case::Fma => true,
            Case::Conv(op, _) => matches!(op, ConvertOp::FloatToUint | ConvertOp::FloatToSint | ConvertOp::FloatToFloat),
            _ => false,
        }
}

fn flush(ty: Ty, x: u64) -> u64 {
    let (exp, sign) = if ty == Ty::F32 { (0x7f80_0000u64, 1u64 << 31) } else { (0x7ff0_0000_0000_0000, 1 << 63) };
    if x & exp == 0 {
        x & sign
    } else {
        x
    }
}

fn matches_want(ty: Ty, got: u64, want: Want) -> bool {
    match want {
        Want::Any => true,
        Want::Fma(fused, unfused) => {
            matches_want(ty, got, Want::Float(fused, 0)) || matches_want(ty, got, Want::Float(unfused, 0))
        }
        Want::Bits(w) => got == w,
        Want::Float(w, ulps) => {
            let (sign, exp_mask, man_mask) = if ty == Ty::F32 {
                (1u64 << 31, 0x7f80_0000u64, 0x007f_ffffu64)
            } else {
                (1u64 << 63, 0x7ff0_0000_0000_0000, 0x000f_ffff_ffff_ffff)
            };
            let nan = |x: u64| x & exp_mask == exp_mask && x & man_mask != 0;
            if nan(w) || nan(got) {
                return nan(w) && nan(got);
            }
            let subnormal = w & exp_mask == 0 && w & man_mask != 0;
            if got == w || (subnormal && got == w & sign) {
                return true;
            }
            // Same sign, within `ulps` (ordered as integers).
            got & sign == w & sign && got.abs_diff(w) <= ulps
        }
    }
}

// ---- inputs ----

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn edges(ty: Ty) -> Vec<u64> {
    match ty {
        Ty::Bool => vec![0, 1],
        Ty::U32 => vec![0, 1, 2, 3, 31, 0x7fff_ffff, 0x8000_0000, 0x8000_0001, 0xffff_ffff, 0xffff_fffe, 0x1_0000 - 1, 0x1234_5678, 0xdead_beef],
        Ty::U64 => vec![
            0,
            1,
            2,
            63,
            0xffff_ffff,
            0x1_0000_0000,
            0x7fff_ffff_ffff_ffff,
            0x8000_0000_0000_0000,
            0x8000_0000_0000_0001,
            u64::MAX,
            u64::MAX - 1,
            0x0123_4567_89ab_cdef,
            0xffff_ffff_0000_0000,
        ],
        Ty::F32 => [
            0.0f32, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 3.0, 0.1, -7.75, 1e10, -3e9, 4294967040.0, 2147483520.0,
            -2147483648.0, 16777217.0, 1e-20, -0.5, 0.49999997, -0.7, 8388607.5, -8388609.0, f32::MAX, f32::MIN_POSITIVE, f32::INFINITY, f32::NEG_INFINITY,
        ]
        .iter()
        .map(|x| x.to_bits() as u64)
        .chain([0x7fc0_0000, 0xffc0_1234, 1, 0x8000_0001])
        .collect(),
        Ty::F64 => [
            0.0f64, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.1, 1e300, -1e-300, 4294967295.0, 1.8446744073709550e19,
            -9.2233720368547758e18, 9007199254740993.0, -0.5, 0.49999999999999994, -0.7, 4503599627370495.5, -3.5, 3.4028235677973366e38, 1e-40, f64::MAX, f64::INFINITY,
            f64::NEG_INFINITY,
        ]
        .iter()
        .map(|x| x.to_bits())
        .chain([0x7ff8_0000_0000_0000, 0xfff8_0000_0000_1234, 1])
        .collect(),
    }
}

fn random(ty: Ty, r: &mut Rng) -> u64 {
    let x = r.next();
    match ty {
        Ty::Bool => x & 1,
        Ty::U32 => {
            (match x % 4 {
                0 => x >> 32,
                1 => (x >> 40) & 0xff,
                2 => ((x >> 32) as i32 >> 16) as u32 as u64,
                _ => (x >> 32) | 0x8000_0000,
            }) & 0xffff_ffff
        }
        Ty::U64 => match x % 3 {
            0 => r.next(),
            1 => r.next() >> 40,
            _ => ((r.next() as i64) >> 30) as u64,
        },
        Ty::F32 => {
            // Mostly moderate magnitudes, some anything.
            if x % 4 == 0 {
                (r.next() >> 32) & 0xffff_ffff
            } else {
                let v = ((r.next() as i64 >> 11) as f64) / (1u64 << (x % 40)) as f64;
                (v as f32).to_bits() as u64
            }
        }
        Ty::F64 => {
            if x % 4 == 0 {
                r.next()
            } else {
                (((r.next() as i64 >> 11) as f64) / (1u64 << (x % 60)) as f64).to_bits()
            }
        }
    }
}

/// (a, b, c) triples: all pairs of edge values, then random ones.
fn inputs(ty: Ty) -> Vec<[u64; 3]> {
    let e = edges(ty);
    let mut r = Rng(0x9e37_79b9_7f4a_7c15 ^ ty.bits() as u64 ^ (ty.is_float() as u64) << 8);
    let mut v = Vec::new();
    for (i, &a) in e.iter().enumerate() {
        for &b in &e {
            v.push([a, b, e[(i * 7 + 3) % e.len()]]);
        }
    }
    while v.len() % WG as usize != 0 || v.len() < 1024 {
        v.push([random(ty, &mut r), random(ty, &mut r), random(ty, &mut r)]);
    }
    v
}

// ---- the kernel: thread g reads a, b, c (2 words each) and writes every case's result ----

struct Gen {
    b: Kb,
}

impl Gen {
    fn word_index(&mut self, g: VarId, base: u32, stride: u32, k: u32) -> VarId {
        let w = self.b.var(Ty::U32, "w");
        self.b.extend([
            assign(w, bin(BinaryOp::Mul, Ty::U32, g, c32(stride))),
            assign(w, bin(BinaryOp::Add, Ty::U32, w, c32(base + k))),
        ]);
        w
    }
    fn load_value(&mut self, ty: Ty, at: VarId) -> VarId {
        let lo = self.b.var(Ty::U32, "lo");
        let hi = self.b.var(Ty::U32, "hi");
        let at1 = self.b.var(Ty::U32, "at1");
        let v = self.b.var(ty, "in");
        self.b.extend([
            assign(lo, load(Memory::Heap, at)),
            assign(at1, bin(BinaryOp::Add, Ty::U32, at, c32(1))),
            assign(hi, load(Memory::Heap, at1)),
        ]);
        let s = match ty {
            Ty::Bool => vec![assign(v, cmp(CmpOp::Ne, Ty::U32, lo, c32(0)))],
            Ty::U32 => vec![assign(v, Expr::Use(lo.into()))],
            Ty::F32 => vec![assign(v, conv(ConvertOp::Bitcast, Ty::U32, Ty::F32, lo))],
            Ty::U64 | Ty::F64 => {
                let t = self.b.var(Ty::U64, "t");
                let u = self.b.var(Ty::U64, "u");
                let mut s = vec![
                    assign(t, conv(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, hi)),
                    assign(t, bin(BinaryOp::Shl, Ty::U64, t, c32(32))),
                    assign(u, conv(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, lo)),
                    assign(u, bin(BinaryOp::Or, Ty::U64, u, t)),
                ];
                s.push(if ty == Ty::U64 {
                    assign(v, Expr::Use(u.into()))
                } else {
                    assign(v, conv(ConvertOp::Bitcast, Ty::U64, Ty::F64, u))
                });
                s
            }
        };
        self.b.extend(s);
        v
    }
    fn store_value(&mut self, ty: Ty, v: VarId, at: VarId) {
        let lo = self.b.var(Ty::U32, "lo");
        let hi = self.b.var(Ty::U32, "hi");
        let at1 = self.b.var(Ty::U32, "at1");
        let s = match ty {
            Ty::Bool => vec![assign(lo, Expr::Select { ty: Ty::U32, cond: v.into(), a: c32(1), b: c32(0) })],
            Ty::U32 => vec![assign(lo, Expr::Use(v.into()))],
            Ty::F32 => vec![assign(lo, conv(ConvertOp::Bitcast, Ty::F32, Ty::U32, v))],
            Ty::U64 | Ty::F64 => {
                let u = self.b.var(Ty::U64, "u");
                vec![
                    if ty == Ty::U64 {
                        assign(u, Expr::Use(v.into()))
                    } else {
                        assign(u, conv(ConvertOp::Bitcast, Ty::F64, Ty::U64, v))
                    },
                    assign(lo, conv(ConvertOp::Truncate, Ty::U64, Ty::U32, u)),
                    assign(u, bin(BinaryOp::ShrU, Ty::U64, u, c32(32))),
                    assign(hi, conv(ConvertOp::Truncate, Ty::U64, Ty::U32, u)),
                ]
            }
        };
        self.b.extend(s);
        self.b.extend([
            store(Memory::Heap, at, lo),
            assign(at1, bin(BinaryOp::Add, Ty::U32, at, c32(1))),
            store(Memory::Heap, at1, hi),
        ]);
    }
}

fn ops_kernel(ty: Ty, n: u32, cases: &[(Case, Ty)]) -> Kernel {
    let mut g = Gen { b: Kb::new("ops", [WG, 1, 1]) };
    let gid = g.b.var(Ty::U32, "g");
    let t = g.b.var(Ty::U32, "tid");
    g.b.extend([
        assign(gid, Expr::Builtin(Builtin::CtaId(0))),
        assign(gid, bin(BinaryOp::Mul, Ty::U32, gid, c32(WG))),
        assign(t, Expr::Builtin(Builtin::ThreadId(0))),
        assign(gid, bin(BinaryOp::Add, Ty::U32, gid, t)),
    ]);
    let mut vals = Vec::new();
    for k in 0..3 {
        let at = g.word_index(gid, BASE, 6, 2 * k);
        vals.push(g.load_value(ty, at));
    }
    let (a, b, c) = (vals[0], vals[1], vals[2]);
    let out_base = BASE + 6 * n;
    let per = 2 * cases.len() as u32;
    for (k, &(case, rty)) in cases.iter().enumerate() {
        let d = g.b.var(rty, "d");
        let e = match case {
            Case::Use => Expr::Use(a.into()),
            Case::Select => {
                // cond = low bit of a's low word
                let lo = g.b.var(Ty::U32, "lo");
                let p = g.b.var(Ty::Bool, "p");
                let at = g.word_index(gid, BASE, 6, 0);
                g.b.extend([
                    assign(lo, load(Memory::Heap, at)),
                    assign(lo, bin(BinaryOp::And, Ty::U32, lo, c32(1))),
                    assign(p, cmp(CmpOp::Ne, Ty::U32, lo, c32(0))),
                ]);
                Expr::Select { ty, cond: p.into(), a: b.into(), b: c.into() }
            }
            Case::Un(op) => un(op, ty, a),
            Case::Bin(op @ (BinaryOp::Shl | BinaryOp::ShrU | BinaryOp::ShrS)) => {
                let s = g.b.var(Ty::U32, "s");
                let bl = if ty == Ty::U64 {
                    let x = g.b.var(Ty::U32, "bl");
                    g.b.push(assign(x, conv(ConvertOp::Truncate, Ty::U64, Ty::U32, b)));
                    x
                } else {
                    b
                };
                g.b.push(assign(s, bin(BinaryOp::And, Ty::U32, bl, c32(ty.bits() - 1))));
                bin(op, ty, a, s)
            }
            Case::Bin(op) => bin(op, ty, a, b),
            Case::Cmp(op) => cmp(op, ty, a, b),
            Case::Conv(op, to) => conv(op, ty, to, a),
            Case::Fma => Expr::Fma { ty, a: a.into(), b: b.into(), c: c.into() },
        };
        let needs_divisor = matches!(case, Case::Bin(BinaryOp::DivU | BinaryOp::DivS | BinaryOp::RemU | BinaryOp::RemS));
        let at = g.word_index(gid, out_base, per, 2 * k as u32);
        if needs_divisor {
            // The precondition (b != 0; signed: not MIN / -1) is kept inside the kernel.
            let signed = matches!(case, Case::Bin(BinaryOp::DivS | BinaryOp::RemS));
            let ok = g.b.var(Ty::Bool, "ok");
            let p = g.b.var(Ty::Bool, "p");
            let q = g.b.var(Ty::Bool, "q");
            let (zero, min, minus1) = if ty == Ty::U64 {
                (c64(0), c64(1 << 63), c64(u64::MAX))
            } else {
                (c32(0), c32(1 << 31), c32(u32::MAX))
            };
            g.b.extend([
                assign(ok, cmp(CmpOp::Ne, ty, b, zero)),
                assign(p, cmp(CmpOp::Ne, ty, a, min)),
                assign(q, cmp(CmpOp::Ne, ty, b, minus1)),
                assign(p, bin(BinaryOp::Or, Ty::Bool, p, q)),
                assign(p, bin(BinaryOp::Or, Ty::Bool, p, cbool(!signed))),
                assign(ok, bin(BinaryOp::And, Ty::Bool, ok, p)),
            ]);
            let save = std::mem::take(&mut g.b.k.body.stmts);
            g.b.push(assign(d, e));
            g.store_value(rty, d, at);
            let then = std::mem::replace(&mut g.b.k.body.stmts, save);
            g.b.push(if_(ok, then, vec![]));
        } else {
            g.b.push(assign(d, e));
            g.store_value(rty, d, at);
        }
    }
    g.b.build()
}

/// Runs every case on `ty` inputs: the 32-bit ones in the webgpu profile, all in the wgpu
/// profile where the device has the 64-bit features.
fn run_ops(ty: Ty) {
    let Some(gpu) = gpu::gpu() else { return };
    if !ty_is_64(ty) {
        let cs: Vec<(Case, Ty)> = cases(ty).into_iter().filter(|&(_, r)| !ty_is_64(r)).collect();
        run_cases(gpu, ty, &cs, Profile::WebGpu);
    }
    if gpu.int64() && gpu.float64() {
        run_cases(gpu, ty, &cases(ty), Profile::Wgpu);
    } else {
        eprintln!("NOTE: {} lacks SHADER_INT64/SHADER_F64: 64-bit cases on {ty:?} skipped", gpu.name);
    }
}

fn ty_is_64(ty: Ty) -> bool {
    matches!(ty, Ty::U64 | Ty::F64)
}

fn run_cases(gpu: &gpu::Gpu, ty: Ty, cs: &[(Case, Ty)], profile: Profile) {
    let cs = cs.to_vec();
    let ins = inputs(ty);
    let n = ins.len() as u32;
    let k = ops_kernel(ty, n, &cs);
    let wgsl = emit(&module(vec![k]), profile).unwrap_or_else(|e| panic!("{e}\n{e:?}"));
    let per = 2 * cs.len();
    let mut heap = vec![0u32; (BASE + 6 * n) as usize + per * n as usize];
    for (i, [a, b, c]) in ins.iter().enumerate() {
        for (k, v) in [a, b, c].iter().enumerate() {
            heap[BASE as usize + 6 * i + 2 * k] = **v as u32;
            heap[BASE as usize + 6 * i + 2 * k + 1] = (**v >> 32) as u32;
        }
    }
    let out_base = (BASE + 6 * n) as usize;
    // Sentinel: a guarded (skipped) division leaves it.
    for w in &mut heap[out_base..] {
        *w = 0xa5a5_a5a5;
    }
    gpu.run(&wgsl, "ops", &mut heap, &[0; 4], [n / WG, 1, 1]).unwrap_or_else(|e| panic!("{e}\n{wgsl}"));
    assert_eq!(heap[abi::FAULT_WORD as usize], 0, "fault word");
    let mut failures = Vec::new();
    for (i, [a, b, c]) in ins.iter().enumerate() {
        for (k, &(case, rty)) in cs.iter().enumerate() {
            let at = out_base + i * per + 2 * k;
            let got = heap[at] as u64 | (heap[at + 1] as u64) << 32;
            let want = eval(case, ty, *a, *b, *c);
            if got == 0xa5a5_a5a5_a5a5_a5a5 && matches!(want, Want::Any) {
                continue;
            }
            let flushed = may_flush(case, ty)
                && matches_want(rty, got, eval(case, ty, flush(ty, *a), flush(ty, *b), flush(ty, *c)));
            if !matches_want(rty, got, want) && !flushed {
                failures.push(format!("{case:?} on {ty:?}: a={a:#x} b={b:#x} c={c:#x}: got {got:#x}, want {want:x?}"));
            }
        }
    }
    if !failures.is_empty() {
        let n = failures.len();
        // At most 4 per case.
        let mut seen = std::collections::HashMap::new();
        failures.retain(|f| {
            let key = f.split(':').next().unwrap().to_string();
            let c = seen.entry(key).or_insert(0);
            *c += 1;
            *c <= 4
        });
        panic!("{n} wrong results on {} ({profile}):\n{}", gpu.name, failures.join("\n"));
    }
}

#[test]
fn exec_bool_ops() {
    run_ops(Ty::Bool);
}
#[test]
fn exec_u32_ops() {
    run_ops(Ty::U32);
}
#[test]
fn exec_f32_ops() {
    run_ops(Ty::F32);
}
#[test]
fn exec_u64_ops() {
    run_ops(Ty::U64);
}
#[test]
fn exec_f64_ops() {
    run_ops(Ty::F64);
}
