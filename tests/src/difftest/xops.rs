//! Integer instructions beyond the base generator ([`Ins::X`]): 16-bit registers and
//! arithmetic (through `cvt` to and from `.b16` registers), carry chains (`add.cc/addc`,
//! `sub.cc/subc`, 32 and 64 bit), `lop3`, `bfind` (`.shiftamt`), `fns`, `bmsk`, `szext`, `sad`,
//! `mul24`/`mad24`, `dp4a`/`dp2a`, `add/sub.sat.s32`, `testp` and `copysign`. Semantics in
//! `model.rs` (from `ptx_ref::int`, written from the spec); shape, generation and printing here.

use super::fops::FTy;
use super::gen::Rng;
use super::program::*;
use std::fmt::Write;

/// 16-bit operations: `op.{u16,s16}` on `%h0, %h1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op16 {
    Add,
    Sub,
    MulLo,
    MulHi,
    Min,
    Max,
    Shl,
    Shr,
    /// `mul.wide.{u16,s16}` into the 32-bit destination.
    Wide,
}

/// `testp` classes (`normal` left out: NVIDIA's hardware calls ±0 normal, README).
pub const TESTP: [&str; 5] = ["finite", "infinite", "number", "notanumber", "subnormal"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XIns {
    /// `cvt.u16.u32 %h0, a; cvt.u16.u32 %h1, b; op.t16 %h0, %h0, %h1; cvt.u32.t16 d, %h0`
    /// (shifts take `b` as the 32-bit amount; `Wide` writes `d` directly).
    H16 { op: Op16, signed: bool, d: u8, a: u8, b: u8 },
    /// `add.cc/sub.cc d0, a0, b0; addc/subc d1, a1, b1` (`wide`: `.u64` on `%rd`, else `.u32`).
    Carry { sub: bool, wide: bool, d0: Reg, d1: Reg, a0: Src, a1: Src, b0: Src, b1: Src },
    Lop3 { d: u8, a: Src, b: Src, c: Src, lut: u8 },
    /// `bfind{.shiftamt}.ty %rD, a`.
    Bfind { ty: IntTy, shiftamt: bool, d: u8, a: Reg },
    /// `fns.b32 d, mask, base, offset` (base an immediate below 32).
    Fns { d: u8, mask: Src, base: u8, offset: Src },
    Bmsk { clamp: bool, d: u8, a: Src, b: Src },
    Szext { clamp: bool, signed: bool, d: u8, a: Src, b: Src },
    Sad { ty: IntTy, d: Reg, a: Src, b: Src, c: Src },
    /// `mul24.{lo,hi}.t32 d, a, b` / `mad24.{lo,hi}{.sat}.t32 d, a, b, c`.
    Mul24 { hi: bool, signed: bool, sat: bool, d: u8, a: Src, b: Src, c: Option<Src> },
    /// `dp4a.at.bt d, a, b, c` / `dp2a.{lo,hi}.at.bt d, a, b, c`.
    Dot { dp2: bool, hi: bool, a_signed: bool, b_signed: bool, d: u8, a: Src, b: Src, c: Src },
    /// `add.sat.s32` / `sub.sat.s32`.
    AddSat { sub: bool, d: u8, a: Src, b: Src },
    /// `testp.class.fty p, a`.
    Testp { class: u8, ty: FTy, p: u8, a: Reg },
    /// `copysign.fty d, a, b`: b with a's sign bit.
    Copysign { ty: FTy, d: Reg, a: Reg, b: Reg },
    /// A vector load or store at `[base + off]` of `mem`: `ld/st.space.v{n}.{u32,u64}` of
    /// registers `regs[..n]` (`%r` or, `wide`, `%rd`), or (`b128`) `ld/st.space.b128` through
    /// `%qq`, packed from / unpacked to `{%rd0, %rd1}` by `mov.b128`. `off` is a multiple of the
    /// access's size; loads name distinct registers.
    Vec { st: bool, n: u8, wide: bool, b128: bool, regs: [u8; 4], mem: Mem, off: u32 },
    /// `atom.space.op.ty d, [base + off], b{, c}` on the thread's own scratch or shared words
    /// (`ty`: its width and signedness; `.b32/.b64` printed for the bitwise ops, cas and exch).
    Atom { op: AtomOp, ty: IntTy, d: Reg, mem: Mem, off: u32, b: Src, c: Src },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    Cas,
    Exch,
    And,
    Or,
    Xor,
}

impl XIns {
    /// Bytes of one element and elements of a vector access.
    pub fn vec_shape(n: u8, wide: bool, b128: bool) -> (u32, u32) {
        if b128 {
            (8, 2)
        } else {
            (if wide { 8 } else { 4 }, n as u32)
        }
    }
}

fn r(rng: &mut Rng) -> u8 {
    rng.below(NR as u64) as u8
}

fn src32(rng: &mut Rng) -> Src {
    if rng.chance(25) {
        Src::Imm(rng.value() & 0xffff_ffff)
    } else {
        Src::Reg(Reg::R(r(rng)))
    }
}

fn reg_of(rng: &mut Rng, wide: bool) -> Reg {
    if wide {
        Reg::D(rng.below(ND as u64) as u8)
    } else {
        Reg::R(r(rng))
    }
}

fn src_of(rng: &mut Rng, wide: bool) -> Src {
    if rng.chance(25) {
        Src::Imm(if wide { rng.value() } else { rng.value() & 0xffff_ffff })
    } else {
        Src::Reg(reg_of(rng, wide))
    }
}

pub fn gen(rng: &mut Rng) -> XIns {
    match rng.below(16) {
        0..=2 => {
            let op = rng.pick(&[Op16::Add, Op16::Sub, Op16::MulLo, Op16::MulHi, Op16::Min, Op16::Max, Op16::Shl, Op16::Shr, Op16::Wide]);
            XIns::H16 { op, signed: rng.chance(50), d: r(rng), a: r(rng), b: r(rng) }
        }
        3..=4 => {
            let wide = rng.chance(30);
            XIns::Carry {
                sub: rng.chance(50),
                wide,
                d0: reg_of(rng, wide),
                d1: reg_of(rng, wide),
                a0: src_of(rng, wide),
                a1: src_of(rng, wide),
                b0: src_of(rng, wide),
                b1: src_of(rng, wide),
            }
        }
        5 => XIns::Lop3 { d: r(rng), a: src32(rng), b: src32(rng), c: src32(rng), lut: rng.next_u64() as u8 },
        6 => {
            let ty = rng.pick(&[IntTy::U32, IntTy::S32, IntTy::U64, IntTy::S64]);
            XIns::Bfind { ty, shiftamt: rng.chance(50), d: r(rng), a: reg_of(rng, ty.bits() == 64) }
        }
        7 => {
            let offset = if rng.chance(50) { Src::Imm(rng.below(70).wrapping_sub(35) & 0xffff_ffff) } else { src32(rng) };
            XIns::Fns { d: r(rng), mask: src32(rng), base: rng.below(32) as u8, offset }
        }
        8 => {
            let small = |rng: &mut Rng| if rng.chance(50) { Src::Imm(rng.below(40)) } else { src32(rng) };
            if rng.chance(50) {
                XIns::Bmsk { clamp: rng.chance(50), d: r(rng), a: small(rng), b: small(rng) }
            } else {
                XIns::Szext { clamp: rng.chance(50), signed: rng.chance(50), d: r(rng), a: src32(rng), b: small(rng) }
            }
        }
        9 => {
            let ty = rng.pick(&[IntTy::U32, IntTy::S32, IntTy::U64, IntTy::S64]);
            let w = ty.bits() == 64;
            XIns::Sad { ty, d: reg_of(rng, w), a: src_of(rng, w), b: src_of(rng, w), c: src_of(rng, w) }
        }
        10 => {
            let (hi, signed) = (rng.chance(50), rng.chance(50));
            let c = rng.chance(50).then(|| src32(rng));
            let sat = hi && signed && c.is_some() && rng.chance(50);
            XIns::Mul24 { hi, signed, sat, d: r(rng), a: src32(rng), b: src32(rng), c }
        }
        11 => XIns::Dot {
            dp2: rng.chance(50),
            hi: rng.chance(50),
            a_signed: rng.chance(50),
            b_signed: rng.chance(50),
            d: r(rng),
            a: src32(rng),
            b: src32(rng),
            c: src32(rng),
        },
        15 if rng.chance(70) => {
            // Vector accesses (in this arm so that older arms draw as before).
            let st = rng.chance(50);
            let b128 = rng.chance(25);
            let wide = !b128 && rng.chance(35);
            let n = if b128 { 1 } else if wide { 2 } else { rng.pick(&[2u8, 4]) };
            let (eb, k) = XIns::vec_shape(n, wide, b128);
            let mems: &[Mem] = if st { &[Mem::Scratch, Mem::SharedRw, Mem::Local] } else { &[Mem::Scratch, Mem::SharedRw, Mem::Local, Mem::Table] };
            let mem = rng.pick(mems);
            let size = eb * k;
            let off = rng.below((mem.bytes(64) / size) as u64) as u32 * size;
            let nr = if wide || b128 { ND } else { NR } as u64;
            let mut regs = [0u8; 4];
            let mut i = 0;
            while i < k as usize {
                let r = rng.below(nr) as u8;
                if st || !regs[..i].contains(&r) {
                    regs[i] = r;
                    i += 1;
                }
            }
            XIns::Vec { st, n, wide, b128, regs, mem, off }
        }
        13 | 15 if rng.chance(50) => {
            let op = rng.pick(&[AtomOp::Add, AtomOp::Min, AtomOp::Max, AtomOp::Inc, AtomOp::Dec, AtomOp::Cas, AtomOp::Exch, AtomOp::And, AtomOp::Or, AtomOp::Xor]);
            let ty = match op {
                AtomOp::Inc | AtomOp::Dec => IntTy::U32,
                AtomOp::Add => rng.pick(&[IntTy::U32, IntTy::S32, IntTy::U64]),
                _ => rng.pick(&[IntTy::U32, IntTy::S32, IntTy::U64, IntTy::S64]),
            };
            let wide = ty.bits() == 64;
            let mem = rng.pick(&[Mem::Scratch, Mem::SharedRw]);
            let eb = if wide { 8 } else { 4 };
            let off = rng.below(16 / eb) as u32 * eb as u32;
            // Small operands make inc/dec wrap and cas hit often.
            let small = |rng: &mut Rng| if rng.chance(40) { Src::Imm(rng.below(8)) } else { src_of(rng, wide) };
            XIns::Atom { op, ty, d: reg_of(rng, wide), mem, off, b: small(rng), c: src_of(rng, wide) }
        }
        12 => XIns::AddSat { sub: rng.chance(50), d: r(rng), a: src32(rng), b: src32(rng) },
        13 | 14 => {
            let ty = if rng.chance(60) { FTy::F32 } else { FTy::F64 };
            XIns::Testp { class: rng.below(TESTP.len() as u64) as u8, ty, p: rng.below(NP as u64) as u8, a: reg_of(rng, ty == FTy::F64) }
        }
        _ => {
            let ty = if rng.chance(60) { FTy::F32 } else { FTy::F64 };
            let w = ty == FTy::F64;
            XIns::Copysign { ty, d: reg_of(rng, w), a: reg_of(rng, w), b: reg_of(rng, w) }
        }
    }
}

/// An operand; immediates as unsigned hex (fits any 32/64-bit integer type).
fn s(x: Src, wide: bool) -> String {
    match x {
        Src::Reg(r) => reg(r),
        Src::Imm(v) if wide => format!("{v:#x}"),
        Src::Imm(v) => format!("{:#x}", v as u32),
    }
}

fn sn(signed: bool, bits: u32) -> String {
    format!("{}{bits}", if signed { "s" } else { "u" })
}

pub fn print(w: &mut String, gs: &str, ins: &XIns) {
    let _ = match *ins {
        XIns::H16 { op, signed, d, a, b } => {
            let t = sn(signed, 16);
            let _ = writeln!(w, "    {gs}cvt.u16.u32 %h0, %r{a};\n    {gs}cvt.u16.u32 %h1, %r{b};");
            let (name, bop) = match op {
                Op16::Add => ("add", "%h1"),
                Op16::Sub => ("sub", "%h1"),
                Op16::MulLo => ("mul.lo", "%h1"),
                Op16::MulHi => ("mul.hi", "%h1"),
                Op16::Min => ("min", "%h1"),
                Op16::Max => ("max", "%h1"),
                Op16::Shl => ("shl", ""),
                Op16::Shr => ("shr", ""),
                Op16::Wide => ("mul.wide", "%h1"),
            };
            match op {
                Op16::Wide => writeln!(w, "    {gs}mul.wide.{t} %r{d}, %h0, %h1;"),
                Op16::Shl => writeln!(w, "    {gs}shl.b16 %h0, %h0, %r{b};\n    {gs}cvt.u32.{t} %r{d}, %h0;"),
                Op16::Shr => writeln!(w, "    {gs}shr.{t} %h0, %h0, %r{b};\n    {gs}cvt.u32.{t} %r{d}, %h0;"),
                _ => writeln!(w, "    {gs}{name}.{t} %h0, %h0, {bop};\n    {gs}cvt.u32.{t} %r{d}, %h0;"),
            }
        }
        XIns::Carry { sub, wide, d0, d1, a0, a1, b0, b1 } => {
            let (op, t) = (if sub { "sub" } else { "add" }, if wide { "u64" } else { "u32" });
            writeln!(
                w,
                "    {gs}{op}.cc.{t} {}, {}, {};\n    {gs}{op}c.{t} {}, {}, {};",
                reg(d0),
                s(a0, wide),
                s(b0, wide),
                reg(d1),
                s(a1, wide),
                s(b1, wide)
            )
        }
        XIns::Lop3 { d, a, b, c, lut } => writeln!(w, "    {gs}lop3.b32 %r{d}, {}, {}, {}, {lut:#x};", s(a, false), s(b, false), s(c, false)),
        XIns::Bfind { ty, shiftamt, d, a } => {
            writeln!(w, "    {gs}bfind{}.{} %r{d}, {};", if shiftamt { ".shiftamt" } else { "" }, ty.name(), reg(a))
        }
        XIns::Fns { d, mask, base, offset } => {
            let off = match offset {
                Src::Imm(v) => format!("{}", v as u32 as i32),
                o => s(o, false),
            };
            writeln!(w, "    {gs}fns.b32 %r{d}, {}, {base}, {off};", s(mask, false))
        }
        XIns::Bmsk { clamp, d, a, b } => {
            writeln!(w, "    {gs}bmsk.{}.b32 %r{d}, {}, {};", if clamp { "clamp" } else { "wrap" }, s(a, false), s(b, false))
        }
        XIns::Szext { clamp, signed, d, a, b } => writeln!(
            w,
            "    {gs}szext.{}.{} %r{d}, {}, {};",
            if clamp { "clamp" } else { "wrap" },
            sn(signed, 32),
            s(a, false),
            s(b, false)
        ),
        XIns::Sad { ty, d, a, b, c } => {
            let wd = ty.bits() == 64;
            writeln!(w, "    {gs}sad.{} {}, {}, {}, {};", ty.name(), reg(d), s(a, wd), s(b, wd), s(c, wd))
        }
        XIns::Mul24 { hi, signed, sat, d, a, b, c } => {
            let part = if hi { "hi" } else { "lo" };
            match c {
                None => writeln!(w, "    {gs}mul24.{part}.{} %r{d}, {}, {};", sn(signed, 32), s(a, false), s(b, false)),
                Some(c) => writeln!(
                    w,
                    "    {gs}mad24.{part}{}.{} %r{d}, {}, {}, {};",
                    if sat { ".sat" } else { "" },
                    sn(signed, 32),
                    s(a, false),
                    s(b, false),
                    s(c, false)
                ),
            }
        }
        XIns::Dot { dp2, hi, a_signed, b_signed, d, a, b, c } => {
            let name = if dp2 { format!("dp2a.{}", if hi { "hi" } else { "lo" }) } else { "dp4a".into() };
            writeln!(w, "    {gs}{name}.{}.{} %r{d}, {}, {}, {};", sn(a_signed, 32), sn(b_signed, 32), s(a, false), s(b, false), s(c, false))
        }
        XIns::AddSat { sub, d, a, b } => {
            writeln!(w, "    {gs}{}.sat.s32 %r{d}, {}, {};", if sub { "sub" } else { "add" }, s(a, false), s(b, false))
        }
        XIns::Testp { class, ty, p, a } => writeln!(w, "    {gs}testp.{}.{} %p{p}, {};", TESTP[class as usize], ty.name(), reg(a)),
        XIns::Copysign { ty, d, a, b } => writeln!(w, "    {gs}copysign.{} {}, {}, {};", ty.name(), reg(d), reg(a), reg(b)),
        XIns::Atom { op, ty, d, mem, off, b, c } => {
            let wide = ty.bits() == 64;
            let bits = if wide { "b64" } else { "b32" };
            let (name, t) = match op {
                AtomOp::Add => ("add", ty.name()),
                AtomOp::Min => ("min", ty.name()),
                AtomOp::Max => ("max", ty.name()),
                AtomOp::Inc => ("inc", "u32"),
                AtomOp::Dec => ("dec", "u32"),
                AtomOp::Cas => ("cas", bits),
                AtomOp::Exch => ("exch", bits),
                AtomOp::And => ("and", bits),
                AtomOp::Or => ("or", bits),
                AtomOp::Xor => ("xor", bits),
            };
            let c = if op == AtomOp::Cas { format!(", {}", s(c, wide)) } else { String::new() };
            writeln!(w, "    {gs}atom{}.{name}.{t} {}, [{}+{off}], {}{c};", mem.space(), reg(d), base(mem), s(b, wide))
        }
        XIns::Vec { st, n, wide, b128, regs, mem, off } => {
            let (_, k) = XIns::vec_shape(n, wide, b128);
            let rn = |i: usize| if wide || b128 { format!("%rd{}", regs[i]) } else { format!("%r{}", regs[i]) };
            let list = (0..k as usize).map(rn).collect::<Vec<_>>().join(", ");
            let (space, addr) = (mem.space(), format!("[{}+{off}]", base(mem)));
            match (st, b128) {
                (true, true) => writeln!(w, "    {gs}mov.b128 %qq, {{{list}}};\n    {gs}st{space}.b128 {addr}, %qq;"),
                (false, true) => writeln!(w, "    {gs}ld{space}.b128 %qq, {addr};\n    {gs}mov.b128 {{{list}}}, %qq;"),
                (true, false) => writeln!(w, "    {gs}st{space}.v{n}.{} {addr}, {{{list}}};", if wide { "u64" } else { "u32" }),
                (false, false) => writeln!(w, "    {gs}ld{space}.v{n}.{} {{{list}}}, {addr};", if wide { "u64" } else { "u32" }),
            }
        }
    };
}
