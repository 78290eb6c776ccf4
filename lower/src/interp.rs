//! A single-thread reference interpreter of the IR, for tests: it runs a CFG (before
//! structurization) or a structured block (after) with the IR's documented semantics, so
//! passes can be checked by running both and comparing memory.
//!
//! Barriers and fences are no-ops (one thread); faults are recorded like the targets do.

use crate::abi;
use crate::cfg::{Cfg, Terminator};
use crate::ir::*;

/// Machine state: variables as raw bits, and the word memories.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    pub vars: Vec<u64>,
    pub heap: Vec<u32>,
    pub shared: Vec<u32>,
    pub local: Vec<u32>,
    /// The scratch buffer (`Memory::Scratch`): this thread's slice of local memory when the
    /// kernel keeps it there.
    pub scratch: Vec<u32>,
    pub params: Vec<u32>,
    pub faults: u32,
    pub thread_id: [u32; 3],
    pub cta_id: [u32; 3],
    pub num_ctas: [u32; 3],
    /// Remaining statement budget; execution stops (with `Flow::OutOfFuel`) at zero.
    pub fuel: u64,
    /// The kernel's functions (`Kernel::functions`), for `Expr::Call`.
    pub functions: Vec<crate::ir::Function>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Normal,
    Break,
    Continue,
    Return,
    OutOfFuel,
}

impl Machine {
    pub fn new(nvars: usize) -> Machine {
        Machine {
            vars: vec![0; nvars],
            heap: vec![0; abi::HEAP_RESERVED_WORDS as usize],
            shared: Vec::new(),
            local: Vec::new(),
            scratch: Vec::new(),
            params: {
                let mut p = vec![0; abi::PARAM_HEADER_WORDS as usize];
                p[abi::PARAM_ONE_F32_WORD as usize] = abi::ONE_F32_BITS;
                // A grid of one CTA, run as one dispatch (see `abi::PARAM_GRID_SIZE_WORD`).
                p[abi::PARAM_GRID_SIZE_WORD as usize..][..3].fill(1);
                p
            },
            faults: 0,
            thread_id: [0; 3],
            cta_id: [0; 3],
            num_ctas: [1; 3],
            fuel: 1_000_000,
            functions: Vec::new(),
        }
    }

    fn get(&self, o: Operand) -> u64 {
        match o {
            Operand::Var(v) => self.vars[v.index()],
            Operand::Const(c) => c.bits(),
        }
    }

    fn memory(&mut self, m: Memory) -> (&mut Vec<u32>, u32, usize) {
        match m {
            // The interpreter has one heap: every segment slot is it.
            Memory::Heap | Memory::Segment(_) => (&mut self.heap, abi::FAULT_GLOBAL_OUT_OF_RANGE, abi::HEAP_RESERVED_WORDS as usize),
            Memory::Shared => (&mut self.shared, abi::FAULT_SHARED_OUT_OF_RANGE, 0),
            Memory::Local => (&mut self.local, abi::FAULT_LOCAL_OUT_OF_RANGE, 0),
            Memory::Param => (&mut self.params, abi::FAULT_PARAM_OUT_OF_RANGE, 0),
            Memory::Scratch => (&mut self.scratch, abi::FAULT_LOCAL_OUT_OF_RANGE, 0),
        }
    }

    fn load(&mut self, m: Memory, index: u64) -> u64 {
        let (mem, fault, first) = self.memory(m);
        let i = index as usize;
        if i >= first && i < mem.len() {
            mem[i] as u64
        } else {
            self.faults |= fault;
            0
        }
    }

    fn store(&mut self, m: Memory, index: u64, value: u64) {
        let (mem, fault, first) = self.memory(m);
        let i = index as usize;
        if i >= first && i < mem.len() {
            mem[i] = value as u32;
        } else {
            self.faults |= fault;
        }
    }

    pub fn run_cfg(&mut self, cfg: &Cfg) -> Flow {
        let mut b = cfg.entry;
        loop {
            match self.run_stmts(&cfg.blocks[b].stmts) {
                Flow::Normal => {}
                f => return f,
            }
            b = match &cfg.blocks[b].term {
                Terminator::Jump(t) => *t,
                Terminator::Branch { cond, then_target, else_target } => {
                    if self.get(*cond) != 0 {
                        *then_target
                    } else {
                        *else_target
                    }
                }
                Terminator::Switch {
                    selector,
                    cases,
                    default,
                } => {
                    let s = self.get(*selector) as u32;
                    cases
                        .iter()
                        .find(|&&(v, _)| v == s)
                        .map_or(*default, |&(_, t)| t)
                }
                Terminator::Return => return Flow::Return,
                Terminator::Break => return Flow::Break,
                Terminator::Continue => return Flow::Continue,
            };
        }
    }

    pub fn run_block(&mut self, block: &Block) -> Flow {
        self.run_stmts(&block.stmts)
    }

    fn run_stmts(&mut self, stmts: &[Stmt]) -> Flow {
        for s in stmts {
            if self.fuel == 0 {
                return Flow::OutOfFuel;
            }
            self.fuel -= 1;
            match s {
                Stmt::Assign { dst, expr } => {
                    let v = self.eval(expr);
                    self.vars[dst.index()] = v;
                }
                Stmt::StoreWord { memory, index, value } => {
                    let (i, v) = (self.get(*index), self.get(*value));
                    let discard = (memory.is_heap() || *memory == Memory::Shared) && i == abi::DISCARD_INDEX as u64;
                    if !discard {
                        self.store(*memory, i, v)
                    }
                }
                Stmt::If { cond, then_body, else_body } => {
                    let f = if self.get(*cond) != 0 { self.run_block(then_body) } else { self.run_block(else_body) };
                    if f != Flow::Normal {
                        return f;
                    }
                }
                Stmt::Switch {
                    selector,
                    cases,
                    default,
                } => {
                    let s = self.get(*selector) as u32;
                    let body = cases
                        .iter()
                        .find(|c| c.values.contains(&s))
                        .map_or(default, |c| &c.body);
                    let f = self.run_block(body);
                    if f != Flow::Normal {
                        return f;
                    }
                }
                Stmt::Loop { body } => loop {
                    match self.run_block(body) {
                        Flow::Normal | Flow::Continue => {}
                        Flow::Break => break,
                        f => return f,
                    }
                },
                Stmt::Break => return Flow::Break,
                Stmt::Continue => return Flow::Continue,
                Stmt::Return => return Flow::Return,
                Stmt::Barrier | Stmt::SharedBarrier | Stmt::Fence { .. } => {}
                Stmt::Fault { code } => self.faults |= code,
            }
        }
        Flow::Normal
    }

    fn eval(&mut self, e: &Expr) -> u64 {
        match *e {
            Expr::Use(o) => self.get(o),
            Expr::Unary { op, ty, arg } => unary(op, ty, self.get(arg)),
            Expr::Binary { op, ty, lhs, rhs } => binary(op, ty, self.get(lhs), self.get(rhs)),
            Expr::Fma { ty, a, b, c } => {
                let (a, b, c) = (self.get(a), self.get(b), self.get(c));
                match ty {
                    Ty::F32 => f32::from_bits(a as u32).mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32)).to_bits() as u64,
                    _ => f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)).to_bits(),
                }
            }
            Expr::Compare { op, ty, lhs, rhs } => compare(op, ty, self.get(lhs), self.get(rhs)) as u64,
            Expr::Select { cond, a, b, .. } => {
                if self.get(cond) != 0 {
                    self.get(a)
                } else {
                    self.get(b)
                }
            }
            Expr::Convert { op, from, to, arg } => convert(op, from, to, self.get(arg)),
            Expr::Call { func, ref args, .. } => {
                let Some(f) = self.functions.get(func as usize).cloned() else { return 0 };
                let mut vars = vec![0; f.vars.len()];
                for (p, a) in f.params.iter().zip(args) {
                    vars[p.index()] = self.get(*a);
                }
                let caller = std::mem::replace(&mut self.vars, vars);
                self.run_block(&f.body);
                let r = self.get(f.result);
                self.vars = caller;
                r
            }
            Expr::Builtin(b) => match b {
                Builtin::ThreadId(d) => self.thread_id[d as usize] as u64,
                Builtin::CtaId(d) => self.cta_id[d as usize] as u64,
                Builtin::NumCtas(d) => self.num_ctas[d as usize] as u64,
                // One thread: a subgroup of 32 in which it is its lane.
                Builtin::SubgroupSize => 32,
                Builtin::SubgroupInvocationId => (self.thread_id[0] & 31) as u64,
                Builtin::HeapWords | Builtin::SegmentWords(_) => self.heap.len() as u64,
            },
            // One thread, alone in its warp: its own bit; its own value (other lanes: 0).
            Expr::WarpBallot { pred } => (self.get(pred) as u32 & 1).wrapping_shl(self.thread_id[0] & 31) as u64,
            Expr::WarpShuffle { value, lane } => {
                if self.get(lane) as u32 & 31 == self.thread_id[0] & 31 {
                    self.get(value)
                } else {
                    0
                }
            }
            Expr::LoadWord { memory, index } => {
                let i = self.get(index);
                self.load(memory, i)
            }
            Expr::LoadDword { memory, index } => {
                let i = self.get(index) as usize;
                let (mem, fault, _) = self.memory(memory);
                // The last doubleword may be half padding, which the words array does not hold.
                if i > usize::MAX / 4 || 2 * i >= mem.len() {
                    self.faults |= fault;
                    return 0;
                }
                let word = |j: usize| mem.get(j).copied().unwrap_or(0) as u64;
                word(2 * i) | word(2 * i + 1) << 32
            }
            // One thread: the barrier is a no-op.
            Expr::SharedUniformLoad { index } => {
                let i = self.get(index);
                self.load(Memory::Shared, i)
            }
            Expr::AtomicWord { memory, op, index, value, comparand } => {
                let i = self.get(index);
                let (mem, fault, first) = self.memory(memory);
                let iu = i as usize;
                if iu < first || iu >= mem.len() {
                    self.faults |= fault;
                    return 0;
                }
                let old = mem[iu];
                let v = self.get(value) as u32;
                let c = comparand.map(|c| self.get(c) as u32).unwrap_or(0);
                let new = atomic(op, Ty::U32, old as u64, v as u64, c as u64) as u32;
                let (mem, _, _) = self.memory(memory);
                mem[iu] = new;
                old as u64
            }
            Expr::AtomicDword { memory, op, index, value, comparand } => {
                let i = self.get(index) as usize;
                let (lo, hi) = (i.wrapping_mul(2), i.wrapping_mul(2).wrapping_add(1));
                let c = comparand.map(|c| self.get(c)).unwrap_or(0);
                let v = self.get(value);
                let (mem, fault, first) = self.memory(memory);
                // Shared doublewords: `shared_words.div_ceil(2)` of them (the last may be half
                // padding, which the words array does not hold).
                let len = if memory == Memory::Shared { mem.len().div_ceil(2) * 2 } else { mem.len() };
                if i > usize::MAX / 4 || lo < first || hi >= len {
                    self.faults |= fault;
                    return 0;
                }
                let word = |m: &Vec<u32>, j: usize| m.get(j).copied().unwrap_or(0) as u64;
                let old = word(mem, lo) | word(mem, hi) << 32;
                let new = atomic(op, Ty::U64, old, v, c);
                mem[lo] = new as u32;
                if hi < mem.len() {
                    mem[hi] = (new >> 32) as u32;
                }
                old
            }
        }
    }
}

/// The new value of an atomic `op` on `old` (type `U32` or `U64`) with `v` and comparand `c`.
fn atomic(op: AtomicOp, ty: Ty, old: u64, v: u64, c: u64) -> u64 {
    let r = match op {
        AtomicOp::Add => old.wrapping_add(v),
        AtomicOp::Sub => old.wrapping_sub(v),
        AtomicOp::And => old & v,
        AtomicOp::Or => old | v,
        AtomicOp::Xor => old ^ v,
        AtomicOp::Exchange => v,
        AtomicOp::MinU => old.min(v),
        AtomicOp::MaxU => old.max(v),
        AtomicOp::MinS => sext(ty, old).min(sext(ty, v)) as u64,
        AtomicOp::MaxS => sext(ty, old).max(sext(ty, v)) as u64,
        AtomicOp::CompareExchange => {
            if old == c {
                v
            } else {
                old
            }
        }
    };
    mask(ty, r)
}

fn mask(ty: Ty, v: u64) -> u64 {
    match ty {
        Ty::U32 | Ty::F32 => v & 0xffff_ffff,
        Ty::Bool => v & 1,
        _ => v,
    }
}

fn sext(ty: Ty, v: u64) -> i64 {
    match ty {
        Ty::U32 => v as u32 as i32 as i64,
        _ => v as i64,
    }
}

fn f(ty: Ty, v: u64) -> f64 {
    match ty {
        Ty::F32 => f32::from_bits(v as u32) as f64,
        _ => f64::from_bits(v),
    }
}

fn unf(ty: Ty, x: f64) -> u64 {
    match ty {
        Ty::F32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

pub fn unary(op: UnaryOp, ty: Ty, a: u64) -> u64 {
    let bits = ty.bits();
    let r = match op {
        UnaryOp::Not => !a,
        UnaryOp::Neg => a.wrapping_neg(),
        UnaryOp::FNeg => a ^ (1 << (bits - 1)),
        UnaryOp::FAbs => a & !(1 << (bits - 1)),
        UnaryOp::FSqrt => unf(ty, f(ty, a).sqrt()),
        UnaryOp::FFloor => unf(ty, f(ty, a).floor()),
        UnaryOp::FCeil => unf(ty, f(ty, a).ceil()),
        UnaryOp::FTrunc => unf(ty, f(ty, a).trunc()),
        UnaryOp::FRoundEven => unf(ty, f(ty, a).round_ties_even()),
        UnaryOp::Popcount => return mask(ty, a).count_ones() as u64,
        UnaryOp::CountLeadingZeros => {
            return if ty == Ty::U32 { (a as u32).leading_zeros() as u64 } else { a.leading_zeros() as u64 }
        }
        UnaryOp::BitReverse => {
            if ty == Ty::U32 {
                (a as u32).reverse_bits() as u64
            } else {
                a.reverse_bits()
            }
        }
    };
    mask(ty, r)
}

pub fn binary(op: BinaryOp, ty: Ty, a: u64, b: u64) -> u64 {
    let (sa, sb) = (sext(ty, a), sext(ty, b));
    let w = ty.bits();
    let r = match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::MulHiU => ((mask(ty, a) as u128 * mask(ty, b) as u128) >> w) as u64,
        BinaryOp::MulHiS => ((sa as i128 * sb as i128) >> w) as u64,
        BinaryOp::DivU => mask(ty, a).checked_div(mask(ty, b)).unwrap_or(u64::MAX),
        BinaryOp::RemU => mask(ty, a).checked_rem(mask(ty, b)).unwrap_or(a),
        BinaryOp::DivS => sa.checked_div(sb).unwrap_or(-1) as u64,
        BinaryOp::RemS => sa.checked_rem(sb).unwrap_or(sa) as u64,
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        BinaryOp::Shl => a.checked_shl(b as u32).unwrap_or(0),
        BinaryOp::ShrU => mask(ty, a).checked_shr(b as u32).unwrap_or(0),
        BinaryOp::ShrS => sa.checked_shr(b as u32).unwrap_or(sa >> 63) as u64,
        BinaryOp::MinU => mask(ty, a).min(mask(ty, b)),
        BinaryOp::MaxU => mask(ty, a).max(mask(ty, b)),
        BinaryOp::MinS => sa.min(sb) as u64,
        BinaryOp::MaxS => sa.max(sb) as u64,
        BinaryOp::FAdd => fop(ty, a, b, |x, y| x + y, |x, y| x + y),
        BinaryOp::FSub => fop(ty, a, b, |x, y| x - y, |x, y| x - y),
        BinaryOp::FMul => fop(ty, a, b, |x, y| x * y, |x, y| x * y),
        BinaryOp::FDiv => fop(ty, a, b, |x, y| x / y, |x, y| x / y),
        BinaryOp::FMin => fop(ty, a, b, f32::min, f64::min),
        BinaryOp::FMax => fop(ty, a, b, f32::max, f64::max),
    };
    mask(ty, r)
}

/// Float ops evaluated in the type itself (f32 arithmetic is correctly rounded in f32).
fn fop(ty: Ty, a: u64, b: u64, f32op: fn(f32, f32) -> f32, f64op: fn(f64, f64) -> f64) -> u64 {
    match ty {
        Ty::F32 => f32op(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits() as u64,
        _ => f64op(f64::from_bits(a), f64::from_bits(b)).to_bits(),
    }
}

pub fn compare(op: CmpOp, ty: Ty, a: u64, b: u64) -> bool {
    let (ua, ub) = (mask(ty, a), mask(ty, b));
    let (sa, sb) = (sext(ty, a), sext(ty, b));
    let (fa, fb) = (f(ty, a), f(ty, b));
    match op {
        CmpOp::Eq => ua == ub,
        CmpOp::Ne => ua != ub,
        CmpOp::LtU => ua < ub,
        CmpOp::LeU => ua <= ub,
        CmpOp::GtU => ua > ub,
        CmpOp::GeU => ua >= ub,
        CmpOp::LtS => sa < sb,
        CmpOp::LeS => sa <= sb,
        CmpOp::GtS => sa > sb,
        CmpOp::GeS => sa >= sb,
        CmpOp::FEq => fa == fb,
        CmpOp::FNe => fa != fb && !fa.is_nan() && !fb.is_nan(),
        CmpOp::FLt => fa < fb,
        CmpOp::FLe => fa <= fb,
        CmpOp::FGt => fa > fb,
        CmpOp::FGe => fa >= fb,
    }
}

pub fn convert(op: ConvertOp, from: Ty, to: Ty, a: u64) -> u64 {
    let r = match op {
        ConvertOp::Truncate => a & 0xffff_ffff,
        ConvertOp::ZeroExtend => a & 0xffff_ffff,
        ConvertOp::SignExtend => a as u32 as i32 as i64 as u64,
        ConvertOp::FloatToUint => f(from, a) as u64,
        ConvertOp::FloatToSint => f(from, a) as i64 as u64,
        ConvertOp::UintToFloat => match (from, to) {
            (Ty::U32, Ty::F32) => (a as u32 as f32).to_bits() as u64,
            (Ty::U64, Ty::F32) => (a as f32).to_bits() as u64,
            (Ty::U32, _) => (a as u32 as f64).to_bits(),
            _ => (a as f64).to_bits(),
        },
        ConvertOp::SintToFloat => match (from, to) {
            (Ty::U32, Ty::F32) => (a as u32 as i32 as f32).to_bits() as u64,
            (Ty::U64, Ty::F32) => (a as i64 as f32).to_bits() as u64,
            (Ty::U32, _) => (a as u32 as i32 as f64).to_bits(),
            _ => (a as i64 as f64).to_bits(),
        },
        ConvertOp::FloatToFloat => unf(to, f(from, a)),
        ConvertOp::Bitcast => a,
    };
    mask(to, r)
}
