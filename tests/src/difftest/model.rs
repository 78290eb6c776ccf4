//! An independent model of the generated PTX: executes the flat program ([`Flat`]) thread by
//! thread with the semantics written from the PTX ISA (§9.7.1 integer arithmetic, §9.7.3
//! comparison and selection, §9.7.5 logic and shift, §9.7.8 data movement, §9.7.9 conversion),
//! never from ptxcross's lowering or its IR interpreter.
//!
//! Threads run one at a time up to a barrier (`Publish`), a collective (`Coll`) or their
//! exit; once every non-exited thread of the CTA waits at the same one, it is executed for the
//! CTA at once (exited threads do not take part: §9.7.14.1 bar.sync with no count, and
//! "non-exited threads in membermask" of §9.7.10.6 and §9.7.14.9–12). Warp collectives act on
//! logical warps of 32 consecutive thread ids; a CTA whose size is not a multiple of 32 has a
//! partial last warp whose missing lanes count as exited. A program that would be undefined
//! PTX — threads of the CTA waiting at different barriers or collectives, a `shfl` whose
//! source lane is exited or missing ("results are undefined if a thread sources a register
//! from an inactive thread"), a read-only shared region read before it is published or
//! published twice, a runaway loop — is reported as invalid (`Err`), so the minimizer never
//! keeps such a program.

use super::calls::{Call, Depth, Func, PTy};
use super::fops::*;
use super::hops::*;
use super::program::*;
use super::xops::*;
use crate::ptx_ref::int as pi;
use crate::ptx_ref::float as pf;
use crate::ptx_ref::half::{self as ph, Fmt};
use crate::sweep::Expect;

/// What one launch leaves in the output and scratch buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub out: Vec<u32>,
    pub scratch: Vec<u32>,
    /// Some lanes wait at warp collectives that can never complete (a hang on NVIDIA; ptxcross
    /// ends such a launch with `FAULT_BARRIER_DEADLOCK`): `out` and `scratch` mean nothing then.
    pub deadlock: bool,
    /// Warp collectives completed by lanes at different instructions (sm_70+ meeting).
    pub meetings: usize,
}

/// Steps one thread may take before the model calls the program runaway.
const STEP_LIMIT: u64 = 2_000_000;
/// Calls one thread may make: far below the iterations after which lavapipe cuts a loop
/// (65,535, design.md), which a kernel whose calls go through the stack spends one per call.
const CALL_LIMIT: u64 = 4_000;
/// Loop back-edges one thread may take, counting each call and each return as one (a call
/// through the stack is a trip around the kernel's dispatch loop, `lower/src/call.rs`):
/// a quarter of the 65,535 after which lavapipe cuts every loop of the thread
/// (`lower/src/loop_cut.rs`), leaving room for the translation's own loops (the barrier
/// scheduler's rounds, emulated collectives). A program beyond it cannot run on lavapipe (the
/// translation faults with `FAULT_LOOP_CUT` there, rightly). `CALL_LIMIT` alone missed seed
/// 0x5ca20007 of the SIMT call family: few calls, but loops around recursive calls.
const BACK_EDGE_LIMIT: u64 = 16_384;
/// Nested calls of one thread (its callers' frames): within CUDA's default 1 KiB stack.
const DEPTH_LIMIT: usize = 12;

/// A caller's state while its callee runs (§5.1.6.4: the callee's registers are its own).
struct Frame {
    r: [u32; NR],
    d: [u64; ND],
    p: [bool; NP + 1],
    c: [u32; MAX_DEPTH],
    dep: u32,
    frame: [u8; NF * 4],
    func: Option<usize>,
    pc: usize,
    /// The caller's registers that receive the returns, with the returns' types.
    rets: Vec<(Reg, PTy)>,
    /// The caller's register the callee's checksum is XORed into.
    sum_reg: u8,
}

struct Thread {
    tid: u32,
    gt: u32,
    r: [u32; NR],
    d: [u64; ND],
    p: [bool; NP + 1],
    c: [u32; MAX_DEPTH],
    /// Membermask registers `%m*` (the meeting family).
    m: [u32; NM],
    local: [u8; NL * 4],
    shrw: [u8; NS * 4],
    pc: usize,
    steps: u64,
    exited: bool,
    /// The carry flag CC.CF (§9.7.2); hx programs clear it in their prologue.
    cf: bool,
    /// The device function running (`None`: the kernel), its `dep` formal, its callers.
    func: Option<usize>,
    dep: u32,
    /// The running function's own `.local` words.
    frame: [u8; NF * 4],
    stack: Vec<Frame>,
    calls: u64,
    /// Backward branches taken, calls and returns ([`BACK_EDGE_LIMIT`]).
    back_edges: u64,
}

enum Stop {
    /// At a `Publish` barrier or a collective (`flat[pc - 1]`).
    Barrier,
    Exited,
}

struct Cta<'a> {
    block: u32,
    funcs: &'a [Func],
    table: &'a [u8],
    scratch: &'a mut [u8],
    out: &'a mut [u32],
    ro: [Vec<u32>; NRO],
    published: [bool; NRO],
    /// `sh_x`: the words of [`Coll::WarpSync`]'s exchanges, one per thread.
    xch: Vec<u32>,
}

fn sext(v: u64, bits: u32) -> i128 {
    if bits == 32 {
        v as u32 as i32 as i128
    } else {
        v as i64 as i128
    }
}

/// The thread's state after the prologue of `program::print`.
fn new_thread(tid: u32, gt: u32, input: &[u32]) -> Thread {
    let w = |i: usize| input[gt as usize * NIN + i];
    let mut t = Thread {
        tid,
        gt,
        r: [0; NR],
        d: [0; ND],
        p: [false; NP + 1],
        c: [0; MAX_DEPTH],
        m: [u32::MAX; NM],
        local: [0; NL * 4],
        shrw: [0; NS * 4],
        pc: 0,
        steps: 0,
        exited: false,
        cf: false,
        func: None,
        dep: 0,
        frame: [0; NF * 4],
        stack: Vec::new(),
        calls: 0,
        back_edges: 0,
    };
    for i in 0..NR {
        t.r[i] = w(i);
    }
    for i in 0..ND {
        t.d[i] = w(NR + 2 * i) as u64 | (w(NR + 2 * i + 1) as u64) << 32;
    }
    let bits = w(NR + 2 * ND);
    for i in 0..NP {
        t.p[i] = bits & (1 << i) != 0;
    }
    for k in 0..NL {
        t.local[k * 4..k * 4 + 4].copy_from_slice(&t.r[init_local_reg(k)].to_le_bytes());
    }
    for k in 0..NS {
        t.shrw[k * 4..k * 4 + 4].copy_from_slice(&t.r[init_shared_reg(k)].to_le_bytes());
    }
    t
}

impl Thread {
    /// Counts `n` loop back-edges; `Err` past [`BACK_EDGE_LIMIT`] (a program lavapipe cuts).
    fn take_back_edges(&mut self, n: u64) -> Result<(), String> {
        self.back_edges += n;
        if self.back_edges > BACK_EDGE_LIMIT {
            return Err(format!("more than {BACK_EDGE_LIMIT} loop back-edges in a thread (lavapipe cuts loops at 65,535)"));
        }
        Ok(())
    }

    fn get(&self, s: Src, ty: IntTy) -> u64 {
        let v = match s {
            Src::Reg(Reg::R(i)) => self.r[i as usize] as u64,
            Src::Reg(Reg::D(i)) => self.d[i as usize],
            Src::Reg(Reg::C(i)) => self.c[i as usize] as u64,
            Src::Reg(Reg::M(i)) => self.m[i as usize] as u64,
            Src::Reg(Reg::Tid) => self.tid as u64,
            Src::Imm(v) => v,
        };
        v & ty.mask()
    }
    fn set(&mut self, d: Reg, v: u64) {
        match d {
            Reg::R(i) => self.r[i as usize] = v as u32,
            Reg::D(i) => self.d[i as usize] = v,
            Reg::C(i) => self.c[i as usize] = v as u32,
            Reg::M(i) => self.m[i as usize] = v as u32,
            // Read only: the generators never write it.
            Reg::Tid => {}
        }
    }
    fn guard(&self, g: Option<Guard>) -> bool {
        g.is_none_or(|g| self.p[g.p as usize] != g.neg)
    }
}

fn bin(op: Bin, ty: IntTy, a: u64, b: u64) -> u64 {
    let n = ty.bits();
    let m = ty.mask();
    let s = ty.signed();
    let r = match op {
        Bin::Add => a.wrapping_add(b),
        Bin::Sub => a.wrapping_sub(b),
        Bin::MulLo => a.wrapping_mul(b),
        Bin::MulHi if s => ((sext(a, n) * sext(b, n)) >> n) as u64,
        Bin::MulHi => ((a as u128 * b as u128) >> n) as u64,
        Bin::Min if s => if sext(a, n) <= sext(b, n) { a } else { b },
        Bin::Min => a.min(b),
        Bin::Max if s => if sext(a, n) >= sext(b, n) { a } else { b },
        Bin::Max => a.max(b),
        Bin::And => a & b,
        Bin::Or => a | b,
        Bin::Xor => a ^ b,
        // §9.7.5.7/8: shift amounts greater than the width are clamped to the width.
        Bin::Shl => if (b as u32 as u64) >= n as u64 { 0 } else { a << b },
        Bin::Shr if s => (sext(a, n) >> (b as u32 as u64).min(n as u64 - 1)) as u64,
        Bin::Shr => if (b as u32 as u64) >= n as u64 { 0 } else { a >> b },
        Bin::Div | Bin::Rem => {
            let d = (b | 1) & (m >> 1);
            match (op, s) {
                (Bin::Div, false) => a / d,
                (Bin::Rem, false) => a % d,
                (Bin::Div, true) => (sext(a, n) / d as i128) as u64,
                _ => (sext(a, n) % d as i128) as u64,
            }
        }
    };
    r & m
}

fn un(op: Un, ty: IntTy, a: u64) -> u64 {
    let n = ty.bits();
    let m = ty.mask();
    let r = match op {
        Un::Not => !a,
        Un::Neg => a.wrapping_neg(),
        Un::Abs => if sext(a, n) < 0 { a.wrapping_neg() } else { a },
        Un::Popc => a.count_ones() as u64,
        Un::Clz => (a.leading_zeros() - (64 - n)) as u64,
        Un::Brev => a.reverse_bits() >> (64 - n),
    };
    r & m
}

fn compare(c: Cmp, ty: IntTy, a: u64, b: u64) -> bool {
    let (a, b) = if ty.signed() { (sext(a, ty.bits()), sext(b, ty.bits())) } else { (a as i128, b as i128) };
    match c {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
    }
}

/// The generator keeps every access inside its memory, but the minimizer can shrink the block
/// under a constant offset into the per-thread read-only shared region (seed 0x26112150
/// panicked here): such a candidate is not a program, so it is reported, never indexed.
fn in_range(mem: Mem, off: usize, n: usize, block: u32) -> Result<(), String> {
    if off + n > mem.bytes(block) as usize {
        return Err(format!("{mem:?} access of {n} bytes at offset {off} is outside its {} bytes", mem.bytes(block)));
    }
    Ok(())
}

impl Cta<'_> {
    fn mem<'m>(&'m mut self, t: &'m mut Thread, m: Mem) -> Result<&'m mut [u8], String> {
        Ok(match m {
            Mem::Scratch => {
                let o = t.gt as usize * NG * 4;
                &mut self.scratch[o..o + NG * 4]
            }
            Mem::Local => &mut t.local,
            Mem::Frame => &mut t.frame,
            Mem::SharedRw => &mut t.shrw,
            Mem::Table | Mem::SharedRo(_) => unreachable!("read-only memory is read through `load`"),
        })
    }

    fn load(&mut self, t: &mut Thread, addr: Addr, w: Width) -> Result<u64, String> {
        let idx = addr.index.map_or(0, |r| t.r[r as usize]);
        let off = addr.offset(idx, w, self.block) as usize;
        let n = w.bytes() as usize;
        in_range(addr.mem, off, n, self.block)?;
        let mut bytes = [0u8; 8];
        match addr.mem {
            Mem::Table => bytes[..n].copy_from_slice(&self.table[off..off + n]),
            Mem::SharedRo(k) => {
                if !self.published[k as usize] {
                    return Err(format!("shared region {k} read before it is published"));
                }
                for (i, b) in bytes[..n].iter_mut().enumerate() {
                    *b = self.ro[k as usize][(off + i) / 4].to_le_bytes()[(off + i) % 4];
                }
            }
            m => bytes[..n].copy_from_slice(&self.mem(t, m)?[off..off + n]),
        }
        let v = u64::from_le_bytes(bytes);
        Ok(match w {
            Width::S8 => v as u8 as i8 as u32 as u64,
            Width::S16 => v as u16 as i16 as u32 as u64,
            _ => v,
        })
    }

    fn store(&mut self, t: &mut Thread, addr: Addr, w: Width, v: u64) -> Result<(), String> {
        let idx = addr.index.map_or(0, |r| t.r[r as usize]);
        let off = addr.offset(idx, w, self.block) as usize;
        let n = w.bytes() as usize;
        in_range(addr.mem, off, n, self.block)?;
        self.mem(t, addr.mem)?[off..off + n].copy_from_slice(&v.to_le_bytes()[..n]);
        Ok(())
    }

    fn exit(&mut self, t: &Thread, id: u32) {
        let o = &mut self.out[t.gt as usize * NOUT..(t.gt as usize + 1) * NOUT];
        let mut i = 0;
        let mut put = |v: u32| {
            o[i] = v;
            i += 1;
        };
        t.r.iter().for_each(|&v| put(v));
        t.d.iter().for_each(|&v| {
            put(v as u32);
            put((v >> 32) as u32)
        });
        t.p[..NP].iter().for_each(|&b| put(b as u32));
        t.local.chunks(4).for_each(|c| put(u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
        t.shrw.chunks(4).for_each(|c| put(u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
        (0..4).for_each(|_| put(id));
    }

    /// Runs `t` until it waits at a barrier or exits.
    fn run(&mut self, t: &mut Thread, code: &Code) -> Result<Stop, String> {
        loop {
            t.steps += 1;
            if t.steps > STEP_LIMIT {
                return Err("runaway thread".into());
            }
            let (flat, labels) = code.body(t.func);
            let f = flat.get(t.pc).ok_or("fell off the program")?;
            t.pc += 1;
            match *f {
                Flat::Exit { .. } if t.func.is_some() => self.ret(t),
                Flat::Call { g, ref call, depth } => {
                    // A recursive call happens only while the budget lasts (`Depth::Minus1`).
                    if t.guard(g) && (depth != Depth::Minus1 || t.dep != 0) {
                        self.call(t, call, depth)?;
                    }
                }
                Flat::Label(_) => {}
                Flat::Bra { g, target } => {
                    if t.guard(g) {
                        let to = labels[target as usize];
                        if to < t.pc {
                            t.take_back_edges(1)?;
                        }
                        t.pc = to;
                    }
                }
                Flat::Exit { id } => {
                    self.exit(t, id);
                    t.exited = true;
                    return Ok(Stop::Exited);
                }
                Flat::Publish { region, v } => {
                    if self.published[region as usize] {
                        return Err(format!("shared region {region} published twice"));
                    }
                    self.ro[region as usize][t.tid as usize] = t.r[v as usize];
                    return Ok(Stop::Barrier);
                }
                Flat::Op { g, ins } => {
                    if t.guard(g) {
                        self.exec(t, ins)?;
                    }
                    // The unguarded NaN canonicalization printed after float results (fops.rs).
                    if let Ins::F(f) = ins {
                        if let Some((d, ty)) = f.float_dest() {
                            if ty.is_nan(t.get(Src::Reg(d), ty.bits_ty())) {
                                t.set(d, ty.canonical_nan());
                            }
                        }
                    }
                    // The unguarded per-lane canonicalization printed after half results (hops.rs).
                    if let Ins::H(h) = ins {
                        if let Some((d, bf16, relu)) = h.half_dest() {
                            let inf = if bf16 { 0x7f80 } else { 0x7c00 };
                            let lane = |x: u32| {
                                let x = x & 0xffff;
                                if x & 0x7fff > inf {
                                    0x7fff
                                } else if relu && x == 0x8000 {
                                    0
                                } else {
                                    x
                                }
                            };
                            let v = t.r[d as usize];
                            t.r[d as usize] = lane(v) | lane(v >> 16) << 16;
                        }
                    }
                }
                Flat::Coll(c) => {
                    // The exchange's store comes before its `bar.warp.sync`.
                    if let Coll::WarpSync { x: Some(x), .. } = c {
                        self.xch[t.tid as usize] = t.r[x.v as usize];
                    }
                    return Ok(Stop::Barrier);
                }
            }
        }
    }

    /// §9.7.13.5 `call`: the arguments are copied into the callee's formals (`.param`: stored
    /// with the formal's type and loaded with it into the register the callee binds, §9.4.1;
    /// `.reg`: the same bits), the caller's state is kept; the callee's prologue
    /// (`calls::print_func`) sets its registers.
    fn call(&mut self, t: &mut Thread, call: &Call, depth: Depth) -> Result<(), String> {
        t.calls += 1;
        // The call and its return.
        t.take_back_edges(2)?;
        if t.calls > CALL_LIMIT || t.stack.len() >= DEPTH_LIMIT {
            return Err("too many calls, or calls nested too deep".into());
        }
        let target = call.target(&t.p);
        let f = &self.funcs[target];
        let dep = match depth {
            Depth::Masked(r) => t.r[r as usize] & 3,
            Depth::Same => t.dep,
            Depth::Minus1 => t.dep - 1,
        };
        let args: Vec<u64> = call.args.iter().map(|&r| t.get(Src::Reg(r), IntTy::U64)).collect();
        t.stack.push(Frame {
            r: t.r,
            d: t.d,
            p: t.p,
            c: t.c,
            dep: t.dep,
            frame: t.frame,
            func: t.func,
            pc: t.pc,
            rets: call.rets.iter().copied().zip(f.sig.rets.iter().copied()).collect(),
            sum_reg: call.depth_reg,
        });
        t.r = f.init_r;
        t.d = f.init_d;
        for ((&ty, &r), v) in f.sig.params.iter().zip(&f.binds).zip(args) {
            t.set(r, ty.pass(v, reg_bits(r)));
        }
        for i in 0..NP {
            t.p[i] = t.r[i] & (1 << i) != 0;
        }
        t.p[NP] = false;
        // The prologue stores %r0, %r1 into the activation's own `.local` words.
        t.frame[..4].copy_from_slice(&t.r[0].to_le_bytes());
        t.frame[4..].copy_from_slice(&t.r[1].to_le_bytes());
        t.c = [0; MAX_DEPTH];
        t.dep = dep;
        t.func = Some(target);
        t.pc = 0;
        Ok(())
    }

    /// §9.7.13.6 `ret` from a device function: its exit stores the returns (each with its
    /// type, §9.4.1), the caller resumes and loads them into its registers.
    fn ret(&mut self, t: &mut Thread) {
        let f = &self.funcs[t.func.expect("in a function")];
        let vals: Vec<u64> = f.ret_src.iter().map(|&r| t.get(Src::Reg(r), IntTy::U64)).collect();
        // The checksum of `calls::print_return`: the XOR of the callee's %r* and %rd* halves.
        let sum = t.r.iter().fold(0u32, |x, &v| x ^ v) ^ t.d.iter().fold(0u32, |x, &v| x ^ v as u32 ^ (v >> 32) as u32);
        let frame = t.stack.pop().expect("a caller");
        (t.r, t.d, t.p, t.c, t.dep, t.frame, t.func, t.pc) =
            (frame.r, frame.d, frame.p, frame.c, frame.dep, frame.frame, frame.func, frame.pc);
        for ((dst, ty), v) in frame.rets.into_iter().zip(vals) {
            t.set(dst, ty.pass(v, reg_bits(dst)));
        }
        t.r[frame.sum_reg as usize] ^= sum;
    }

    fn exec(&mut self, t: &mut Thread, ins: Ins) -> Result<(), String> {
        match ins {
            Ins::Bin { op, ty, d, a, b } => {
                let bty = if matches!(op, Bin::Shl | Bin::Shr) { IntTy::U32 } else { ty };
                let v = bin(op, ty, t.get(a, ty), t.get(b, bty));
                t.set(d, v);
            }
            Ins::Un { op, ty, d, a } => {
                let v = un(op, ty, t.get(a, ty));
                t.set(d, v);
            }
            Ins::Mad { hi, ty, d, a, b, c } => {
                let p = bin(if hi { Bin::MulHi } else { Bin::MulLo }, ty, t.get(a, ty), t.get(b, ty));
                t.set(d, p.wrapping_add(t.get(c, ty)) & ty.mask());
            }
            Ins::Wide { signed, d, a, b, c } => {
                let t32 = if signed { IntTy::S32 } else { IntTy::U32 };
                let (a, b) = (t.get(a, t32), t.get(b, t32));
                let p = if signed { (sext(a, 32) * sext(b, 32)) as u64 } else { a * b };
                let c = c.map_or(0, |c| t.get(c, IntTy::U64));
                t.set(d, p.wrapping_add(c));
            }
            Ins::Setp { cmp, ty, p, a, b, combine } => {
                let r = compare(cmp, ty, t.get(a, ty), t.get(b, ty));
                let r = combined(t, r, combine);
                t.p[p as usize] = r;
            }
            Ins::Selp { ty, d, a, b, p } => {
                let v = if t.p[p as usize] { t.get(a, ty) } else { t.get(b, ty) };
                t.set(d, v);
            }
            Ins::Cvt { to, from, d, a } => {
                let v = t.get(Src::Reg(a), from);
                // §9.7.9.21: integer widening sign-extends a signed source, zero-extends an
                // unsigned one; narrowing keeps the low bits.
                let v = if from.signed() { sext(v, from.bits()) as u64 } else { v };
                t.set(d, v & to.mask());
            }
            Ins::Mov { ty, d, a } => {
                let v = t.get(a, ty);
                t.set(d, v);
            }
            Ins::Bfe { ty, d, a, pos, len } => {
                // §9.7.5.11 bfe, as NVIDIA's hardware reads it (H200, driver 580): position and
                // length are their low 8 bits on 32-bit types, the whole u32 on 64-bit ones; an
                // immediate position ≥ 32 with a nonzero immediate length gives all ones on s32.
                if let (IntTy::S32, Src::Imm(p), Src::Imm(l)) = (ty, pos, len) {
                    if p >= 32 && l != 0 {
                        t.set(d, u32::MAX as u64);
                        return Ok(());
                    }
                }
                let field = |v: u64| if ty.bits() == 64 { v } else { v & 0xff };
                let (a, pos, len) = (t.get(a, ty), field(t.get(pos, IntTy::U32)), field(t.get(len, IntTy::U32)));
                let msb = ty.bits() as u64 - 1;
                let bit = |v: u64, i: u64| (v >> i) & 1;
                let sbit = if !ty.signed() || len == 0 { 0 } else { bit(a, (pos + len - 1).min(msb)) };
                let v = (0..=msb).fold(0, |v, i| v | (if i < len && pos + i <= msb { bit(a, pos + i) } else { sbit }) << i);
                t.set(d, v);
            }
            Ins::Bfi { ty, d, a, b, pos, len } => {
                // §9.7.5.12 bfi.
                let (a, mut f) = (t.get(a, ty), t.get(b, ty));
                let field = |v: u64| if ty.bits() == 64 { v } else { v & 0xff };
                let (pos, len) = (field(t.get(pos, IntTy::U32)), field(t.get(len, IntTy::U32)));
                let msb = ty.bits() as u64 - 1;
                let mut i = 0;
                while i < len && pos + i <= msb {
                    f = (f & !(1 << (pos + i))) | ((a >> i) & 1) << (pos + i);
                    i += 1;
                }
                t.set(d, f);
            }
            Ins::Prmt { d, a, b, c } => {
                // §9.7.10.7 prmt, generic form: bytes {b, a} numbered 0..7 from a's low byte;
                // nibble k of c picks d's byte k, its msb replicates the byte's sign.
                let u = IntTy::U32;
                let src = t.get(a, u) | t.get(b, u) << 32;
                let c = t.get(c, u);
                let v = (0..4).fold(0u64, |v, k| {
                    let sel = (c >> (4 * k)) & 0xf;
                    let byte = (src >> (8 * (sel & 7))) & 0xff;
                    let byte = if sel & 8 != 0 { if byte & 0x80 != 0 { 0xff } else { 0 } } else { byte };
                    v | byte << (8 * k)
                });
                t.set(d, v);
            }
            Ins::Shf { left, clamp, d, a, b, c } => {
                // §9.7.5.9 shf: shift the 64-bit {b, a}; .l keeps the high word, .r the low.
                let u = IntTy::U32;
                let c = t.get(c, u);
                let n = if clamp { c.min(32) } else { c & 31 };
                let v = t.get(a, u) | t.get(b, u) << 32;
                let r = if left { (v << n) >> 32 } else { (v >> n) & 0xffff_ffff };
                t.set(d, r);
            }
            Ins::Ld { w, d, addr } => {
                let v = self.load(t, addr, w)?;
                t.set(d, v);
            }
            Ins::St { w, addr, v } => {
                let ty = if w == Width::B64 { IntTy::U64 } else { IntTy::U32 };
                let val = t.get(Src::Reg(v), ty);
                self.store(t, addr, w, val)?;
            }
            Ins::F(f) => exec_float(t, f)?,
            Ins::X(XIns::Vec { st, n, wide, b128, regs, mem, off }) => {
                // §9.7.9.8/9 ld/st with a vector type: element i at [addr + i·size] (`.b128`:
                // the low 64 bits of `{lo, hi}` at the lower address, little-endian).
                let (eb, k) = XIns::vec_shape(n, wide, b128);
                let (w, ty) = if eb == 8 { (Width::B64, IntTy::U64) } else { (Width::B32, IntTy::U32) };
                let reg = |i: usize| if eb == 8 { Reg::D(regs[i]) } else { Reg::R(regs[i]) };
                if (off % (eb * k)) != 0 {
                    return Err("misaligned vector access".into());
                }
                let vals: Vec<u64> = (0..k as usize).map(|i| t.get(Src::Reg(reg(i)), ty)).collect();
                for (i, &val) in vals.iter().enumerate() {
                    let addr = Addr { mem, index: None, off: off + i as u32 * eb, generic: false };
                    if st {
                        self.store(t, addr, w, val)?;
                    } else {
                        let v = self.load(t, addr, w)?;
                        t.set(reg(i), v);
                    }
                }
            }
            Ins::X(XIns::Atom { op, ty, d, mem, off, b, c }) => {
                // §9.7.13.5 atom: d = *a; *a = op(*a, b[, c]) with inc(r, s) = (r >= s) ? 0 :
                // r+1, dec(r, s) = (r == 0 || r > s) ? s : r-1, exch(r, s) = s, cas(r, s, t) =
                // (r == s) ? t : r. The words are the thread's own: no other thread races.
                let (w, m) = if ty.bits() == 64 { (Width::B64, u64::MAX) } else { (Width::B32, 0xffff_ffff) };
                let addr = Addr { mem, index: None, off, generic: false };
                let (bv, cv) = (t.get(b, ty), t.get(c, ty));
                let old = self.load(t, addr, w)? & m;
                let lt = |x: u64, y: u64| if ty.signed() { sext(x, ty.bits()) < sext(y, ty.bits()) } else { x < y };
                let new = match op {
                    AtomOp::Add => old.wrapping_add(bv),
                    AtomOp::Min => if lt(bv, old) { bv } else { old },
                    AtomOp::Max => if lt(old, bv) { bv } else { old },
                    AtomOp::Inc => if old >= bv { 0 } else { old + 1 },
                    AtomOp::Dec => if old == 0 || old > bv { bv } else { old - 1 },
                    AtomOp::Cas => if old == bv { cv } else { old },
                    AtomOp::Exch => bv,
                    AtomOp::And => old & bv,
                    AtomOp::Or => old | bv,
                    AtomOp::Xor => old ^ bv,
                } & m;
                self.store(t, addr, w, new)?;
                t.set(d, old);
            }
            Ins::X(x) => exec_xint(t, x),
            Ins::H(HIns::AtomF { ty, red, mem, generic: _, off, d, b }) => {
                // §9.7.13.5 atom/red .add on floats, rounded to nearest even; `atom.add.f32`
                // flushes subnormal inputs and results on global memory, not on shared memory
                // (the memory decides, also through a generic address); `.noftz` halves keep
                // subnormals. The new value's NaN lanes are canonicalized (printed after it).
                let rn = rustc_apfloat::Round::NearestTiesToEven;
                let at = |o: u32| Addr { mem, index: None, off: off + o, generic: false };
                let global = mem == Mem::Scratch;
                let bv = t.get(Src::Reg(b), IntTy::U64);
                let half = |bf16: bool, x: u64, y: u64| -> Result<u64, String> {
                    let fmt = if bf16 { Fmt::Bf16 } else { Fmt::F16 };
                    lane16(ph::arith("add", fmt, &[x as u16, y as u16], false, false, false)).map(|h| h as u64)
                };
                let (w, old, new) = match ty {
                    AtomF::F32 => {
                        let old = self.load(t, at(0), Width::B32)? & 0xffff_ffff;
                        (Width::B32, old, bits_of(pf::arith_f32("add", rn, &[old, bv & 0xffff_ffff], global, false))?)
                    }
                    AtomF::F64 => {
                        let old = self.load(t, at(0), Width::B64)?;
                        (Width::B64, old, bits_of(pf::arith_rounded_f64("add", old, bv, rn))?)
                    }
                    AtomF::Half { bf16 } => {
                        let old = self.load(t, at(0), Width::U16)?;
                        (Width::U16, old, half(bf16, old, bv)?)
                    }
                    AtomF::Half2 { bf16 } => {
                        let old = self.load(t, at(0), Width::B32)? & 0xffff_ffff;
                        let new = half(bf16, old, bv)? | half(bf16, old >> 16, bv >> 16)? << 16;
                        (Width::B32, old, new)
                    }
                };
                self.store(t, at(0), w, new)?;
                if !red {
                    t.set(d, old);
                }
            }
            Ins::H(HIns::VecIdx { st, n, wide, regs, mem, index, generic: _ }) => {
                // ld/st .v2/.v4 at base + (index & (bytes/size - 1))·size: element i at
                // [addr + i·element], as for constant offsets (§9.7.9.8/9).
                let (eb, k) = HIns::vec_shape(n, wide);
                let size = eb * k;
                let mask = mem.bytes(self.block).min(TABLE_BYTES) / size - 1;
                let base = (t.r[index as usize] & mask) * size;
                let (w, ty) = if wide { (Width::B64, IntTy::U64) } else { (Width::B32, IntTy::U32) };
                let reg = |i: usize| if wide { Reg::D(regs[i]) } else { Reg::R(regs[i]) };
                let vals: Vec<u64> = (0..k as usize).map(|i| t.get(Src::Reg(reg(i)), ty)).collect();
                for (i, &val) in vals.iter().enumerate() {
                    let addr = Addr { mem, index: None, off: base + i as u32 * eb, generic: false };
                    if st {
                        self.store(t, addr, w, val)?;
                    } else {
                        let v = self.load(t, addr, w)?;
                        t.set(reg(i), v);
                    }
                }
            }
            Ins::H(HIns::Cas16 { mem, generic: _, off, hit, d, b, c }) => {
                // §9.7.13.5 atom.cas.b16: d = *a; *a = (*a == b) ? c : *a, on the half at
                // byte `off` of the thread's own word (the neighbouring half untouched).
                let addr = Addr { mem, index: None, off, generic: false };
                let old = self.load(t, addr, Width::U16)?;
                let cmp = if hit { old } else { (t.r[b as usize] & 0xffff) as u64 };
                let new = if old == cmp { (t.r[c as usize] & 0xffff) as u64 } else { old };
                self.store(t, addr, Width::U16, new)?;
                t.r[d as usize] = old as u32;
            }
            Ins::H(h) => exec_hx(t, h)?,
        }
        Ok(())
    }
}

/// One 16-bit lane as the program leaves it after the canonicalization of hops.rs: a NaN of
/// unspecified bits is 0x7fff; the sign of a zero the spec leaves open (`.relu` of −0) is +.
fn lane16(e: Expect) -> Result<u16, String> {
    match e {
        Expect::Bits(b) => Ok(b as u16),
        Expect::AnyNanHalf(_) => Ok(0x7fff),
        Expect::Either(0, 0x8000) => Ok(0),
        other => Err(format!("the half reference leaves the result open ({other:?})")),
    }
}

/// The families of hops.rs that act on registers only, from `ptx_ref` (half.rs: §9.7.4 and
/// §9.7.9.21; fp8.rs; float.rs min_max: §9.7.3.11/12; int.rs prmt: §9.7.10.7) and, written
/// here from the spec, the carry chains (§9.7.2) and integer `cvt` (§9.7.9.21).
fn exec_hx(t: &mut Thread, h: HIns) -> Result<(), String> {
    use crate::ptx_ref::fp8::{self as p8, Fp8};
    use crate::sweep::{Half16, Half8};
    match h {
        HIns::Const { d, v } => t.r[d as usize] = v,
        HIns::Half { op, bf16, packed, ftz, sat, relu, nan, xorsign, d, a, b, c } => {
            let fmt = if bf16 { Fmt::Bf16 } else { Fmt::F16 };
            let regs = [t.r[a as usize], t.r[b as usize], t.r[c as usize]];
            let mut v = 0u32;
            for lane in if packed { 0..2 } else { 0..1 } {
                let xs: Vec<u16> = regs.iter().map(|&x| (x >> (16 * lane)) as u16).collect();
                let flush = |h: u16| if ftz { fmt.ftz(h) } else { h };
                let r = match op {
                    HOp::Add | HOp::Sub | HOp::Mul | HOp::Fma => {
                        let name = match op {
                            HOp::Add => "add",
                            HOp::Sub => "sub",
                            HOp::Mul => "mul",
                            _ => "fma",
                        };
                        lane16(ph::arith(name, fmt, &xs[..op.arity()], ftz, sat, relu))?
                    }
                    HOp::Neg | HOp::Abs => ph::neg_abs(op == HOp::Neg, fmt, flush(xs[0])),
                    HOp::Min | HOp::Max => {
                        // §9.7.4.9/10: .xorsign.abs compares the magnitudes and gives the result
                        // the XOR of the inputs' signs, unless it is NaN.
                        let (x, y) = (flush(xs[0]), flush(xs[1]));
                        let sign = (x ^ y) & 0x8000;
                        let (x, y) = if xorsign { (x & 0x7fff, y & 0x7fff) } else { (x, y) };
                        let r = lane16(ph::min_max(op == HOp::Min, fmt, x, y, nan))?;
                        if xorsign && !fmt.is_nan(r) {
                            (r & 0x7fff) | sign
                        } else {
                            r
                        }
                    }
                };
                v |= (r as u32) << (16 * lane);
            }
            t.r[d as usize] = v;
        }
        HIns::MinMax32 { max, ftz, nan, xorsign, d, a, b } => {
            let (x, y) = (t.r[a as usize] as u64, t.r[b as usize] as u64);
            t.r[d as usize] = bits_of(pf::min_max(!max, 32, x, y, nan, xorsign, ftz))? as u32;
        }
        HIns::ToHalf { bf16, rz, relu, satfinite, pack, d, a, b } => {
            let fmt = if bf16 { Fmt::Bf16 } else { Fmt::F16 };
            let round = ph::round_of(if rz { "rz" } else { "rn" });
            let cvt = |x: u32| lane16(ph::cvt_half_f32(x, fmt, round, relu, satfinite)).map(|h| h as u32);
            // §9.7.9.21: "the value converted from input a is stored in the upper half of d".
            t.r[d as usize] = if pack { cvt(t.r[a as usize])? << 16 | cvt(t.r[b as usize])? } else { cvt(t.r[a as usize])? };
        }
        HIns::Fp8Trip { .. } | HIns::Fp8Up { .. } => {
            let (e5m2, relu) = match h {
                HIns::Fp8Trip { e5m2, relu, .. } | HIns::Fp8Up { e5m2, relu, .. } => (e5m2, relu),
                _ => unreachable!(),
            };
            let f = if e5m2 { Fp8::E5m2 } else { Fp8::E4m3 };
            // Any NaN byte stands for every NaN byte (it widens to an f16 NaN, canonicalized);
            // −0 and +0 from `.relu` both end as +0 after the canonicalization.
            let byte = |l: Half8| match l {
                Half8::Bits(b) => b,
                Half8::AnyNan(_) => 0x7f,
                Half8::Either(x, _) => x,
            };
            let (hi, lo, up_relu) = match h {
                HIns::Fp8Trip { from_half: true, a, .. } => {
                    let v = t.r[a as usize];
                    (byte(p8::f16_to_fp8((v >> 16) as u16, f, relu)), byte(p8::f16_to_fp8(v as u16, f, relu)), false)
                }
                HIns::Fp8Trip { a, b, .. } => (byte(p8::f32_to_fp8(t.r[a as usize], f, relu)), byte(p8::f32_to_fp8(t.r[b as usize], f, relu)), false),
                HIns::Fp8Up { a, .. } => {
                    let v = t.r[a as usize];
                    ((v >> 8) as u8, v as u8, relu)
                }
                _ => unreachable!(),
            };
            let up = |b: u8| match p8::fp8_to_f16(b, f, up_relu) {
                Half16::Bits(h) => h as u32,
                Half16::AnyNan(_) => 0x7fff,
                Half16::Either(x, _) => x as u32,
            };
            let d = match h {
                HIns::Fp8Trip { d, .. } | HIns::Fp8Up { d, .. } => d,
                _ => unreachable!(),
            };
            // §9.7.9.21: the upper byte widens into the upper half.
            t.r[d as usize] = up(hi) << 16 | up(lo);
        }
        HIns::Cc { op, cin, cout, ty, d, a, b, c } => {
            // §9.7.2: add.cc/addc: d = a + b (+ CC.CF); mad{c}.{lo,hi}{.cc}: d = the product's
            // low or high half + c (+ CC.CF); `.cc` writes the addition's carry-out to CC.CF.
            let n = ty.bits();
            let (av, bv, cv) = (t.get(a, ty), t.get(b, ty), t.get(c, ty));
            let (x, y) = match op {
                CcOp::Add => (av, bv),
                CcOp::Mad { hi: false } => (av.wrapping_mul(bv) & ty.mask(), cv),
                CcOp::Mad { hi: true } => {
                    let p = if ty.signed() { ((sext(av, n) * sext(bv, n)) >> n) as u64 } else { ((av as u128 * bv as u128) >> n) as u64 };
                    (p & ty.mask(), cv)
                }
            };
            let sum = x as u128 + y as u128 + (cin && t.cf) as u128;
            if cout {
                t.cf = sum >> n != 0;
            }
            t.set(d, sum as u64 & ty.mask());
        }
        HIns::PrmtMode { mode, d, a, b, c } => {
            let u = IntTy::U32;
            t.r[d as usize] = pi::prmt(PRMT_MODES[mode as usize], t.get(a, u), t.get(b, u), t.get(c, u)) as u32;
        }
        HIns::CvtInt { sat, to, from, d, a } => {
            // §9.7.9.21: the source's low bits of its type, sign- or zero-extended by it; .sat
            // clamps to the destination type's range, else its low bits are kept; the result is
            // sign-extended (signed types) or zero-extended into a wider register.
            let (_, tb, ts) = CVT_TYPES[to as usize];
            let (_, fb, fs) = CVT_TYPES[from as usize];
            let low = |v: u64, bits: u32| if bits == 64 { v } else { v & ((1u64 << bits) - 1) };
            let ext = |v: u64, bits: u32, signed: bool| -> i128 {
                let v = low(v, bits);
                if signed && bits < 64 && v >> (bits - 1) & 1 == 1 {
                    v as i128 - (1i128 << bits)
                } else if signed && bits == 64 {
                    v as i64 as i128
                } else {
                    v as i128
                }
            };
            let x = ext(t.get(Src::Reg(a), IntTy::U64), fb, fs);
            let x = if sat {
                let lo: i128 = if ts { -(1i128 << (tb - 1)) } else { 0 };
                let hi: i128 = if ts { (1i128 << (tb - 1)) - 1 } else { (1i128 << tb) - 1 };
                x.clamp(lo, hi)
            } else {
                x
            };
            let v = ext(x as u64, tb, ts) as u64;
            t.set(d, v);
        }
        HIns::HSetp { cmp, bf16, packed, ftz, combine, p, q, a, b } => {
            // §9.7.4.8 (setp on halves): p = BoolOp(lo(a) cmp lo(b), c), q the same of the
            // high halves; `.ftz` flushes f16 subnormal inputs.
            let fmt = if bf16 { Fmt::Bf16 } else { Fmt::F16 };
            let (x, y) = (t.r[a as usize], t.r[b as usize]);
            let lane = |k: u32| crate::ptx_ref::fp8::half_compare(FCMP[cmp as usize], fmt, (x >> (16 * k)) as u16, (y >> (16 * k)) as u16, ftz);
            let (lo, hi) = (combined(t, lane(0), combine), combined(t, lane(1), combine));
            t.p[p as usize] = lo;
            if packed {
                t.p[q as usize] = hi;
            }
        }
        HIns::CvtHI { to_half, bf16, rnd, ity, d, a } => {
            use rustc_apfloat::ieee::{BFloat, Half};
            use rustc_apfloat::Float;
            let fmt = if bf16 { Fmt::Bf16 } else { Fmt::F16 };
            let (iname, bits, signed) = CVT_TYPES[ity as usize];
            let low = |v: u64| if bits == 64 { v } else { v & ((1u64 << bits) - 1) };
            // The integer sign- or zero-extended from its type into the register (§9.7.9.21).
            let ext = |v: u64| -> u64 {
                let v = low(v);
                if signed && bits < 64 && v >> (bits - 1) & 1 == 1 {
                    v | !((1u64 << bits) - 1)
                } else {
                    v
                }
            };
            if to_half {
                // cvt.frnd.{f16,bf16}.ity: the integer rounded once (rustc_apfloat).
                let x = t.get(Src::Reg(a), IntTy::U64);
                let x: i128 = if signed { ext(x) as i64 as i128 } else { low(x) as i128 };
                let round = ph::round_of(["rn", "rz", "rm", "rp"][rnd as usize]);
                let h = match fmt {
                    Fmt::F16 => Half::from_i128_r(x, round).value.to_bits(),
                    Fmt::Bf16 => BFloat::from_i128_r(x, round).value.to_bits(),
                };
                t.set(d, h as u64);
            } else {
                // cvt.irnd.ity.{f16,bf16}: the exact value rounded to an integer, clamped to the
                // destination's range; NaN as NVIDIA's hardware gives it (`cvt_nan_to_int`).
                let h = t.get(Src::Reg(a), IntTy::U32) as u16;
                let v = if fmt.is_nan(h) {
                    pf::cvt_nan_to_int(fmt.suffix(), iname)
                } else {
                    let x = pf::IntRound::ALL[rnd as usize].f64(fmt.to_f64(h));
                    let (lo, hi): (f64, f64) = if signed { (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1) - 1.0) } else { (0.0, 2f64.powi(bits as i32) - 1.0) };
                    let c = x.clamp(lo, hi);
                    if signed { c as i64 as u64 } else { c as u64 }
                };
                t.set(d, ext(v));
            }
        }
        HIns::AtomF { .. } | HIns::VecIdx { .. } | HIns::Cas16 { .. } => unreachable!("memory accesses run in `Cta::exec`"),
    }
    Ok(())
}

/// What makes two warp collectives meet (§9.7.8.6 `shfl.sync`, §9.7.12.1 `vote.sync`,
/// §9.7.12.9 `match.sync`, §9.7.12.10 `redux.sync`: "wait until all non-exited threads
/// corresponding to membermask have executed [it] with the same qualifiers and same membermask
/// value"; §9.7.13.2 `bar.warp.sync`: "with the same membermask value"): the opcode and its
/// qualifiers as printed, never the operands. `None`: `bar.sync`, a CTA barrier.
fn key(c: &Coll) -> Option<(u8, u8)> {
    Some(match *c {
        Coll::Bar => return None,
        Coll::Shfl { mode, .. } => (1, mode as u8),
        Coll::Vote { mode, .. } => (2, mode as u8),
        Coll::MaskBallot { .. } => (2, VoteMode::Ballot as u8),
        // `.and`/`.or`/`.xor` print `.b32` whatever `signed` says.
        Coll::Redux { op, signed, .. } => (3, op as u8 * 2 + u8::from(signed && matches!(op, ReduxOp::Add | ReduxOp::Min | ReduxOp::Max))),
        Coll::Match { .. } => (4, 0),
        // `bar.warp.sync 0xffffffff; activemask`: its `bar.warp.sync` is one of the kind below.
        Coll::Activemask { .. } | Coll::WarpSync { .. } => (5, 0),
    })
}

/// The membermask of `c` as thread `t` runs it.
fn membermask(c: &Coll, t: &Thread) -> u32 {
    let m = match *c {
        Coll::Shfl { m, .. } | Coll::Vote { m, .. } | Coll::Redux { m, .. } | Coll::Match { m, .. } | Coll::WarpSync { m, .. } => m,
        Coll::Bar | Coll::Activemask { .. } | Coll::MaskBallot { .. } => Mask::Full,
    };
    match m {
        Mask::Full => u32::MAX,
        Mask::Reg(k) => t.m[k as usize],
        Mask::Const(m) => m,
    }
}

/// Completes one group of a warp's collectives: `part` (the non-exited lanes of the group's
/// membermask) all wait, lane `l` at its own collective `at[l]`, each with the same key and
/// membermask. Each lane contributes its own instruction's operand and computes its result
/// from its own instruction's operands (sm_70+: lanes at different instructions of one kind
/// meet, each gets what its own instruction says of the values the others contributed).
/// `xch`: the warp's exchange words.
fn complete(warp: &mut [Thread], at: &[Option<Coll>], part: u32, xch: &[u32]) -> Result<(), String> {
    let lanes = || (0..32usize).filter(move |&l| part >> l & 1 == 1);
    let value: Vec<u32> = (0..32)
        .map(|l| match at.get(l).copied().flatten() {
            Some(Coll::Shfl { a, .. } | Coll::Redux { a, .. } | Coll::Match { a, .. }) if part >> l & 1 == 1 => warp[l].r[a as usize],
            _ => 0,
        })
        .collect();
    let ballot = lanes()
        .filter(|&l| match at[l] {
            Some(Coll::Vote { a, .. }) => warp[l].p[a.p as usize] != a.neg,
            Some(Coll::MaskBallot { g, .. }) => g.is_none_or(|g| warp[l].p[g.p as usize] != g.neg),
            _ => false,
        })
        .fold(0u32, |m, l| m | 1 << l);
    for lane in lanes() {
        let coll = at[lane].expect("a lane of the group waits at a collective");
        let t = &mut warp[lane];
        match coll {
            Coll::Bar => unreachable!("bar.sync is no warp collective"),
            Coll::Shfl { mode, d, p, b, c, .. } => {
                // §9.7.8.6 shfl.sync, the Semantics block as written.
                let lane = lane as i64;
                let bval = (t.get(b, IntTy::U32) & 31) as i64;
                let cval = (c & 31) as i64;
                let seg = ((c >> 8) & 31) as i64;
                let max_lane = (lane & seg) | (cval & !seg);
                let min_lane = lane & seg;
                let (j, pval) = match mode {
                    ShflMode::Up => (lane - bval, lane - bval >= max_lane),
                    ShflMode::Down => (lane + bval, lane + bval <= max_lane),
                    ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
                    ShflMode::Idx => {
                        let j = min_lane | (bval & !seg);
                        (j, j <= max_lane)
                    }
                };
                let j = if pval { j } else { lane };
                // "results are undefined if a thread sources a register from an inactive thread
                // or a thread that is not in membermask".
                if !(0..32).contains(&j) || part >> j & 1 == 0 {
                    return Err(format!("shfl: lane {lane} of thread {} sources lane {j}, which is not active or not in the membermask (undefined)", t.tid));
                }
                t.r[d as usize] = value[j as usize];
                if let Some(p) = p {
                    t.p[p as usize] = pval;
                }
            }
            // §9.7.12.1 vote.sync: over the non-exited threads of the membermask; "a thread not
            // specified in membermask will contribute a 0" to the ballot.
            Coll::Vote { mode, d, .. } => match mode {
                VoteMode::Ballot => t.r[d as usize] = ballot,
                VoteMode::All => t.p[d as usize] = ballot == part,
                VoteMode::Any => t.p[d as usize] = ballot != 0,
                VoteMode::Uni => t.p[d as usize] = ballot == part || ballot == 0,
            },
            Coll::MaskBallot { m, .. } => t.m[m as usize] = ballot,
            Coll::Activemask { d } => t.r[d as usize] = part,
            Coll::Redux { op, signed, d, .. } => {
                // §9.7.12.10 redux.sync: over the non-exited threads of the membermask; .add wraps.
                let vals = lanes().map(|l| value[l]);
                t.r[d as usize] = match (op, signed) {
                    (ReduxOp::Add, _) => vals.fold(0u32, |x, v| x.wrapping_add(v)),
                    (ReduxOp::Min, false) => vals.min().unwrap_or(0),
                    (ReduxOp::Max, false) => vals.max().unwrap_or(0),
                    (ReduxOp::Min, true) => vals.map(|v| v as i32).min().unwrap_or(0) as u32,
                    (ReduxOp::Max, true) => vals.map(|v| v as i32).max().unwrap_or(0) as u32,
                    (ReduxOp::And, _) => vals.fold(!0, |x, v| x & v),
                    (ReduxOp::Or, _) => vals.fold(0, |x, v| x | v),
                    (ReduxOp::Xor, _) => vals.fold(0, |x, v| x ^ v),
                };
            }
            // §9.7.12.9 match.any.sync: the non-exited lanes of the membermask holding the same value.
            Coll::Match { d, .. } => {
                let me = value[lane];
                t.r[d as usize] = lanes().filter(|&l| value[l] == me).fold(0u32, |m, l| m | 1 << l);
            }
            Coll::WarpSync { x, .. } => {
                // A lane that met the exchange without storing and reading may store again
                // while a partner reads: a race (§8), not compared.
                if x.is_some() != lanes().all(|l| matches!(at[l], Some(Coll::WarpSync { x: Some(_), .. }))) {
                    return Err("a bar.warp.sync of an exchange meets one without (racy)".into());
                }
                if let Some(Xchg { d, k, .. }) = x {
                    // The printed code: lane ^ k's word if that lane is in the membermask.
                    let mask = membermask(&coll, t);
                    let partner = lane ^ (k as usize & 31);
                    let j = if mask >> partner & 1 == 1 { partner } else { lane };
                    t.r[d as usize] = xch[j];
                }
            }
        }
    }
    Ok(())
}

/// Runs `program` (`flat` = its flattening) on `input` (NIN words per thread) and the initial
/// scratch words; returns both buffers after the launch, or why the program is not valid PTX
/// to compare on.
///
/// Each CTA runs as a scheduler of the sm_70+ rule: every thread runs until it reaches a
/// barrier, a collective or its exit; a warp collective completes once every non-exited lane
/// of its membermask waits at a collective of the same kind, qualifiers and membermask
/// ([`key`]; lanes at different instructions meet), and a `bar.sync` once every non-exited
/// thread of the CTA waits at it. Groups that can complete are disjoint and stay complete
/// whatever else runs, so the order in which they are taken does not change the results.
/// (The hand-written model of `warp_meeting.rs`, each lane's k-th collective meeting the
/// others' k-th, is this rule where a warp runs one kind and one membermask; with several, as
/// here — arms with membermasks of their own, kinds that never meet — it is not.)
/// Where nothing can move and some thread still waits at a warp collective, the launch would
/// hang ([`Expected::deadlock`]). Undefined programs (`Err`): a thread not in its own
/// membermask, a `bar.warp.sync` whose membermask names a lane that exited or does not exist
/// (§9.7.13.2 waits for "all threads corresponding to membermask", not only the non-exited
/// ones), `activemask` where the warp's lanes are not all at that instruction (which lanes
/// run together there is the implementation's choice), threads at different `bar.sync`s.
pub fn run(program: &Program, flat: &[Flat], input: &[u32], scratch: &[u32]) -> Result<Expected, String> {
    let mut bodies = vec![flat.to_vec()];
    bodies.extend(program.funcs.iter().enumerate().map(|(k, f)| flatten_body(&f.body, Some(k))));
    let code = Code::new(bodies);
    let n = (program.grid * program.block) as usize;
    let table: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut scratch_bytes: Vec<u8> = scratch.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut out = vec![0u32; n * NOUT];
    let (mut deadlock, mut meetings) = (false, 0);
    for cta in 0..program.grid {
        let mut c = Cta {
            block: program.block,
            funcs: &program.funcs,
            table: &table,
            scratch: &mut scratch_bytes,
            out: &mut out,
            ro: std::array::from_fn(|_| vec![0; program.block as usize]),
            published: [false; NRO],
            xch: vec![0; program.block.div_ceil(32) as usize * 32],
        };
        let mut threads: Vec<Thread> =
            (0..program.block).map(|tid| new_thread(tid, cta * program.block + tid, input)).collect();
        // Where each thread waits: the body (`None`: the kernel's, else a function's, whose
        // collectives the kernel reaches through calls) and index of its `Publish` or `Coll`.
        let mut waiting: Vec<Option<(Option<usize>, usize)>> = vec![None; threads.len()];
        loop {
            for (t, w) in threads.iter_mut().zip(waiting.iter_mut()).filter(|(t, w)| !t.exited && w.is_none()) {
                if let Stop::Barrier = c.run(t, &code)? {
                    *w = Some((t.func, t.pc - 1));
                }
            }
            let inst_at = |(f, pc): (Option<usize>, usize)| &code.body(f).0[pc];
            let coll_at = |w: Option<(Option<usize>, usize)>| match w.map(inst_at) {
                Some(Flat::Coll(c)) if *c != Coll::Bar => Some(*c),
                _ => None,
            };
            let mut progress = false;
            for (wi, warp) in threads.chunks_mut(32).enumerate() {
                let base = wi * 32;
                let wait = &mut waiting[base..base + warp.len()];
                let live = (0..warp.len()).filter(|&l| !warp[l].exited).fold(0u32, |m, l| m | 1 << l);
                for lane in 0..warp.len() {
                    let Some(coll) = coll_at(wait[lane]) else { continue };
                    let (k, m) = (key(&coll), membermask(&coll, &warp[lane]));
                    if m >> lane & 1 == 0 {
                        return Err(format!("thread {} runs a collective whose membermask {m:#x} leaves it out (undefined)", warp[lane].tid));
                    }
                    let part = m & live;
                    let same = |l: usize| coll_at(wait[l]).is_some_and(|o| key(&o) == k && membermask(&o, &warp[l]) == m);
                    if !(0..warp.len()).filter(|&l| part >> l & 1 == 1).all(same) {
                        continue;
                    }
                    if matches!(coll, Coll::WarpSync { .. }) && part != m {
                        return Err(format!("bar.warp.sync with membermask {m:#x} in a warp whose live lanes are {live:#x} (undefined)"));
                    }
                    let pcs: Vec<(Option<usize>, usize)> = (0..warp.len()).filter(|&l| part >> l & 1 == 1).filter_map(|l| wait[l]).collect();
                    if matches!(coll, Coll::Activemask { .. }) && (part != live || pcs.iter().any(|&p| p != pcs[0])) {
                        return Err("activemask where the warp's lanes are not all at it".into());
                    }
                    meetings += usize::from(pcs.iter().any(|&p| p != pcs[0]));
                    let at: Vec<Option<Coll>> = (0..warp.len()).map(|l| if part >> l & 1 == 1 { coll_at(wait[l]) } else { None }).collect();
                    complete(warp, &at, part, &c.xch[base..base + 32])?;
                    for l in (0..warp.len()).filter(|&l| part >> l & 1 == 1) {
                        wait[l] = None;
                    }
                    progress = true;
                }
            }
            if progress {
                continue;
            }
            let stopped: Vec<(Option<usize>, usize)> = waiting.iter().flatten().copied().collect();
            if stopped.is_empty() {
                break;
            }
            let live = threads.iter().filter(|t| !t.exited).count();
            let at_bar = |w: (Option<usize>, usize)| matches!(inst_at(w), Flat::Publish { .. } | Flat::Coll(Coll::Bar));
            if stopped.len() == live && stopped.iter().all(|&pc| pc == stopped[0]) && at_bar(stopped[0]) {
                if let Flat::Publish { region, .. } = *inst_at(stopped[0]) {
                    c.published[region as usize] = true;
                }
                waiting.iter_mut().for_each(|w| *w = None);
                continue;
            }
            if stopped.iter().all(|&pc| at_bar(pc)) {
                return Err("a barrier that not every non-exited thread of the CTA reaches".into());
            }
            deadlock = true;
            break;
        }
    }
    let scratch = scratch_bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    Ok(Expected { out, scratch, deadlock, meetings })
}

/// The flat bodies of a program (the kernel's, then each function's) and their labels.
struct Code {
    bodies: Vec<(Vec<Flat>, Vec<usize>)>,
}

impl Code {
    fn new(bodies: Vec<Vec<Flat>>) -> Code {
        let bodies = bodies
            .into_iter()
            .map(|flat| {
                let mut labels = vec![usize::MAX; flat.len()];
                for (i, f) in flat.iter().enumerate() {
                    if let Flat::Label(l) = f {
                        labels[*l as usize] = i;
                    }
                }
                (flat, labels)
            })
            .collect();
        Code { bodies }
    }
    fn body(&self, func: Option<usize>) -> (&[Flat], &[usize]) {
        let (f, l) = &self.bodies[func.map_or(0, |k| k + 1)];
        (f, l)
    }
}

fn reg_bits(r: Reg) -> u32 {
    if matches!(r, Reg::D(_)) {
        64
    } else {
        32
    }
}

/// The bits an expectation names; a NaN of unspecified bits becomes the canonical NaN (the
/// program canonicalizes every float result after the instruction, see fops.rs).
fn bits_of(e: Expect) -> Result<u64, String> {
    match e {
        Expect::Bits(b) => Ok(b),
        Expect::AnyNanF32 => Ok(FTy::F32.canonical_nan()),
        Expect::AnyNanF64 => Ok(FTy::F64.canonical_nan()),
        Expect::AnyNanHalf(_) => Ok(0x7fff),
        other => Err(format!("the reference leaves the result open ({other:?}): not comparable bit for bit")),
    }
}

/// The value of float bits `v` of type `ty` as f64 (exact), f32 inputs flushed with `ftz`.
fn fval(ty: FTy, v: u64, ftz: bool) -> f64 {
    match ty {
        FTy::F32 => {
            let x = f32::from_bits(v as u32);
            (if ftz { pf::ftz(x) } else { x }) as f64
        }
        FTy::F64 => f64::from_bits(v),
    }
}

/// Float instructions (fops.rs), each from the spec-derived references of `ptx_ref` (§9.7.3
/// floating point, §9.7.6.1 setp, §9.7.9.21 cvt), never from ptxcross's lowering.
fn exec_float(t: &mut Thread, f: FIns) -> Result<(), String> {
    let op2 = |op: FOp2| match op {
        FOp2::Add => "add",
        FOp2::Sub => "sub",
        _ => "mul",
    };
    match f {
        FIns::Bin { op, ty, rnd, ftz, sat, d, a, b } => {
            let (a, b) = (t.get(a, ty.bits_ty()), t.get(b, ty.bits_ty()));
            let r = rnd.apfloat();
            let e = match (op, ty) {
                (FOp2::Min | FOp2::Max, _) => {
                    let bits = if ty == FTy::F32 { 32 } else { 64 };
                    pf::min_max(op == FOp2::Min, bits, a, b, false, false, ftz)
                }
                (FOp2::Div, FTy::F32) => pf::div_rounded_f32(a, b, r, ftz),
                (FOp2::Div, FTy::F64) => pf::div_rounded_f64(a, b, r),
                (_, FTy::F32) => pf::arith_f32(op2(op), r, &[a, b], ftz, sat),
                (_, FTy::F64) => pf::arith_rounded_f64(op2(op), a, b, r),
            };
            t.set(d, bits_of(e)?);
        }
        FIns::Fma { ty, rnd, ftz, sat, d, a, b, c } => {
            let v = [a, b, c].map(|s| t.get(s, ty.bits_ty()));
            let e = match ty {
                FTy::F32 => pf::arith_f32("fma", rnd.apfloat(), &v, ftz, sat),
                FTy::F64 => pf::fma_rounded_f64(v[0], v[1], v[2], rnd.apfloat()),
            };
            t.set(d, bits_of(e)?);
        }
        FIns::Un { op, ty, rnd, ftz, d, a } => {
            let a = t.get(Src::Reg(a), ty.bits_ty());
            let sign = if ty == FTy::F32 { 1u64 << 31 } else { 1 << 63 };
            // abs/neg (§9.7.3.9/10): the sign bit, after `.ftz` flushes a subnormal input.
            let flushed = if ftz { pf::ftz(f32::from_bits(a as u32)).to_bits() as u64 } else { a };
            // A NaN input gives NVIDIA's bits (they compile both to an add of -0): the
            // canonical NaN for f32, the input quieted with its own sign for f64.
            let nan = match ty {
                FTy::F32 => f32::from_bits(a as u32).is_nan(),
                FTy::F64 => f64::from_bits(a).is_nan(),
            };
            let v = match (op, ty) {
                (FOp1::Abs | FOp1::Neg, FTy::F32) if nan => 0x7fff_ffff,
                (FOp1::Abs | FOp1::Neg, FTy::F64) if nan => a | 1 << 51,
                (FOp1::Abs, _) => flushed & !sign,
                (FOp1::Neg, _) => flushed ^ sign,
                (FOp1::Sqrt, FTy::F32) => bits_of(pf::sqrt_rounded_f32(a, rnd.apfloat(), ftz))?,
                (FOp1::Sqrt, FTy::F64) => bits_of(pf::sqrt_rounded_f64(a, rnd.apfloat()))?,
                (FOp1::Rcp, FTy::F32) => bits_of(pf::div_rounded_f32(0x3f80_0000, a, rnd.apfloat(), ftz))?,
                (FOp1::Rcp, FTy::F64) => bits_of(pf::div_rounded_f64(1f64.to_bits(), a, rnd.apfloat()))?,
            };
            t.set(d, v);
        }
        FIns::Setp { cmp, ty, ftz, p, a, b, combine } => {
            let (x, y) = (fval(ty, t.get(a, ty.bits_ty()), ftz), fval(ty, t.get(b, ty.bits_ty()), ftz));
            let r = pf::compare(FCMP[cmp as usize], x, y);
            let r = combined(t, r, combine);
            t.p[p as usize] = r;
        }
        FIns::Selp { ty, d, a, b, p } => {
            let v = if t.p[p as usize] { t.get(a, ty.bits_ty()) } else { t.get(b, ty.bits_ty()) };
            t.set(d, v);
        }
        FIns::Mov { ty, d, a } => t.set(d, a & ty.bits_ty().mask()),
        FIns::F2I { rnd, ftz, sat: _, to, from, d, a } => {
            // §9.7.9.21: round to an integral value, then clamp to the destination's range
            // ("the result is clamped to the destination range by default"); NaN as NVIDIA's
            // hardware gives it (`ptx_ref::float::cvt_nan_to_int`).
            let v = t.get(Src::Reg(a), from.bits_ty());
            let v = if from.is_nan(v) {
                pf::cvt_nan_to_int(from.name(), to.name())
            } else {
                let x = pf::IntRound::ALL[rnd as usize].f64(fval(from, v, ftz));
                let (lo, hi): (i128, i128) = match to {
                    IntTy::U32 => (0, u32::MAX as i128),
                    IntTy::S32 => (i32::MIN as i128, i32::MAX as i128),
                    IntTy::U64 => (0, u64::MAX as i128),
                    IntTy::S64 => (i64::MIN as i128, i64::MAX as i128),
                };
                let r = if x <= lo as f64 {
                    lo
                } else if x >= hi as f64 {
                    hi
                } else {
                    x as i128
                };
                r as u64
            };
            t.set(d, v & to.mask());
        }
        FIns::I2F { rnd, to, from, d, a } => {
            let v = t.get(Src::Reg(a), from);
            let v = if from.signed() { sext(v, from.bits()) as u64 } else { v };
            t.set(d, pf::cvt_from_int64(to.name(), from.signed(), rnd.apfloat(), v));
        }
        FIns::Widen { ftz, d, a } => {
            // cvt.f64.f32 is exact; `.ftz` flushes the f32 input.
            let x = fval(FTy::F32, t.get(Src::Reg(a), IntTy::U32), ftz);
            t.set(d, x.to_bits());
        }
        FIns::Narrow { rnd, sat, d, a } => {
            let v = bits_of(pf::cvt_f32_from("f64", rnd.apfloat(), t.get(Src::Reg(a), IntTy::U64)))?;
            let v = if sat { pf::sat_f32(f32::from_bits(v as u32)).to_bits() as u64 } else { v };
            t.set(d, v);
        }
        FIns::RoundInt { rnd, ty, ftz, sat, d, a } => {
            let a = t.get(Src::Reg(a), ty.bits_ty());
            let r = pf::IntRound::ALL[rnd as usize];
            let v = match ty {
                FTy::F32 => bits_of(pf::cvt_f32_f32(a as u32, Some(r), ftz, sat))?,
                FTy::F64 => {
                    let x = r.f64(f64::from_bits(a));
                    (if sat { pf::sat_f64(x) } else { x }).to_bits()
                }
            };
            t.set(d, v);
        }
        FIns::Half { bf16, rz, d, a } => {
            let fmt = if bf16 { Fmt::Bf16 } else { Fmt::F16 };
            let round = ph::round_of(if rz { "rz" } else { "rn" });
            let h = bits_of(ph::cvt_half_f32(t.get(Src::Reg(a), IntTy::U32) as u32, fmt, round, false, false))?;
            t.set(d, bits_of(ph::cvt_f32_half(h as u16, fmt))?);
        }
        FIns::FromHalf { bf16, d, a } => {
            let fmt = if bf16 { Fmt::Bf16 } else { Fmt::F16 };
            let h = t.get(Src::Reg(a), IntTy::U32) as u16;
            t.set(d, bits_of(ph::cvt_f32_half(h, fmt))?);
        }
    }
    Ok(())
}

/// The integer families of xops.rs, from `ptx_ref::int` (written from §9.7.1, §9.7.2 carry
/// chains, §9.7.9.6 lop3) and the spec's text for 16-bit types (§9.7.1: the `.u16/.s16` forms
/// of add/sub/mul/min/max, shifts clamped to the width) and the cvt extensions (§9.7.9.21).
fn exec_xint(t: &mut Thread, x: XIns) {
    let u = IntTy::U32;
    match x {
        XIns::H16 { op, signed, d, a, b } => {
            // The shift amount is the whole 32-bit register (§9.7.5.7/8: clamped to the width).
            let n = t.r[b as usize] as u64;
            let (a, b) = (t.r[a as usize] as u64 & 0xffff, n & 0xffff);
            let s16 = |v: u64| v as u16 as i16 as i64;
            let v = |x: u64| if signed { s16(x) } else { x as i64 };
            let r = match op {
                Op16::Add => a.wrapping_add(b),
                Op16::Sub => a.wrapping_sub(b),
                Op16::MulLo => a.wrapping_mul(b),
                Op16::MulHi => ((v(a) * v(b)) >> 16) as u64,
                Op16::Min => if v(a) <= v(b) { a } else { b },
                Op16::Max => if v(a) >= v(b) { a } else { b },
                Op16::Shl => if n >= 16 { 0 } else { a << n },
                Op16::Shr if signed => (s16(a) >> n.min(15)) as u64,
                Op16::Shr => if n >= 16 { 0 } else { a >> n },
                Op16::Wide => {
                    t.r[d as usize] = (v(a) * v(b)) as u32;
                    return;
                }
            } & 0xffff;
            // cvt.u32.{u16,s16}: zero- or sign-extended.
            t.r[d as usize] = if signed { s16(r) as u32 } else { r as u32 };
        }
        XIns::Carry { sub, wide, d0, d1, a0, a1, b0, b1 } => {
            let ty = if wide { IntTy::U64 } else { u };
            let bits = ty.bits();
            let (x, y) = (t.get(a0, ty) as u128, t.get(b0, ty) as u128);
            let (lo, cf) = if sub { (x.wrapping_sub(y), (x < y) as u128) } else { (x + y, (x + y) >> bits) };
            t.set(d0, lo as u64 & ty.mask());
            let (x, y) = (t.get(a1, ty) as u128, t.get(b1, ty) as u128);
            let hi = if sub { x.wrapping_sub(y).wrapping_sub(cf) } else { x + y + cf };
            t.set(d1, hi as u64 & ty.mask());
        }
        XIns::Lop3 { d, a, b, c, lut } => t.r[d as usize] = pi::lop3(lut, t.get(a, u), t.get(b, u), t.get(c, u)) as u32,
        XIns::Bfind { ty, shiftamt, d, a } => t.r[d as usize] = pi::bfind(ty.bits(), ty.signed(), shiftamt, t.get(Src::Reg(a), ty)) as u32,
        XIns::Fns { d, mask, base, offset } => t.r[d as usize] = pi::fns(t.get(mask, u), base as u64, t.get(offset, u)) as u32,
        XIns::Bmsk { clamp, d, a, b } => t.r[d as usize] = pi::bmsk(clamp, t.get(a, u), t.get(b, u)) as u32,
        XIns::Szext { clamp, signed, d, a, b } => t.r[d as usize] = pi::szext(clamp, signed, t.get(a, u), t.get(b, u)) as u32,
        XIns::Sad { ty, d, a, b, c } => {
            let v = pi::sad(ty.bits(), ty.signed(), t.get(a, ty), t.get(b, ty), t.get(c, ty));
            t.set(d, v & ty.mask());
        }
        XIns::Mul24 { hi, signed, sat, d, a, b, c } => {
            let c = c.map(|c| t.get(c, u));
            t.r[d as usize] = pi::mul24(signed, hi, t.get(a, u), t.get(b, u), c, sat) as u32;
        }
        XIns::Dot { dp2, hi, a_signed, b_signed, d, a, b, c } => {
            let sel = if dp2 && hi { 2 } else { 0 };
            t.r[d as usize] = pi::dot(dp2, a_signed, b_signed, sel, t.get(a, u), t.get(b, u), t.get(c, u)) as u32;
        }
        XIns::AddSat { sub, d, a, b } => t.r[d as usize] = pi::add_sat_s32(t.get(a, u), t.get(b, u), sub) as u32,
        XIns::Testp { class, ty, p, a } => {
            let v = t.get(Src::Reg(a), ty.bits_ty());
            t.p[p as usize] = pf::testp(TESTP[class as usize], v, ty == FTy::F64);
        }
        XIns::Vec { .. } | XIns::Atom { .. } => unreachable!("memory accesses run in `Cta::exec`"),
        XIns::Copysign { ty, d, a, b } => {
            // §9.7.3.2: "Copy sign bit of a into value of b".
            let sign = if ty == FTy::F32 { 1u64 << 31 } else { 1 << 63 };
            let (a, b) = (t.get(Src::Reg(a), ty.bits_ty()), t.get(Src::Reg(b), ty.bits_ty()));
            t.set(d, (b & !sign) | (a & sign));
        }
    }
}

/// A `setp` result combined with a predicate (`setp.cmp.boolop`).
fn combined(t: &Thread, r: bool, combine: Option<(BoolOp, Guard)>) -> bool {
    match combine {
        None => r,
        Some((op, q)) => {
            let q = t.p[q.p as usize] != q.neg;
            match op {
                BoolOp::And => r && q,
                BoolOp::Or => r || q,
                BoolOp::Xor => r != q,
            }
        }
    }
}
