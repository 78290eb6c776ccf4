//! Hand-built IR kernels for the backend tests.
#![allow(dead_code)]

use ptxcross_lower::abi;
use ptxcross_lower::ir::*;
pub use ptxcross_lower::build::*;

/// A kernel under construction.
pub struct Kb {
    pub k: Kernel,
}

impl Kb {
    pub fn new(name: &str, workgroup_size: [u32; 3]) -> Kb {
        Kb {
            k: Kernel {
                name: name.to_string(),
                entry_point: name.to_string(),
                workgroup_size,
                vars: Vec::new(),
                body: Block::new(),
                shared_words: 0,
                local_words: 0,
                local_placement: Default::default(),
                fault_site_var: None,
                fault_sites: Vec::new(),
                params: Vec::new(),
                param_bytes: 0,
                features: Features::default(),
                functions: Vec::new(),
                printf: Vec::new(),
            },
        }
    }
    pub fn var(&mut self, ty: Ty, name: &str) -> VarId {
        self.k.vars.push(VarInfo { ty, name: name.into() });
        match ty {
            Ty::U64 => self.k.features.int64 = true,
            Ty::F64 => self.k.features.float64 = true,
            _ => {}
        }
        VarId(self.k.vars.len() as u32 - 1)
    }
    pub fn push(&mut self, s: Stmt) -> &mut Self {
        self.k.body.stmts.push(s);
        self
    }
    pub fn extend(&mut self, s: impl IntoIterator<Item = Stmt>) -> &mut Self {
        self.k.body.stmts.extend(s);
        self
    }
    pub fn param(&mut self, name: &str, offset: u32, size: u32) {
        self.k.params.push(ParamSlot { name: name.to_string(), offset, size, align: size });
        self.k.param_bytes = self.k.param_bytes.max(offset + size);
    }
    pub fn build(self) -> Kernel {
        self.k
    }
}


/// `c[i] = a[i] + b[i]` on f32 for `i < n`: `vecadd(float *a, float *b, float *c, int n)`, 64-bit
/// pointers read from the parameter buffer, heap word = (address - HEAP_BASE) / 4.
pub fn vecadd() -> Kernel {
    use BinaryOp::*;
    let mut b = Kb::new("vecadd", [64, 1, 1]);
    b.param("a", 0, 8);
    b.param("b", 8, 8);
    b.param("c", 16, 8);
    b.param("n", 24, 4);
    let tid = b.var(Ty::U32, "%r1");
    let ctaid = b.var(Ty::U32, "%r2");
    let i = b.var(Ty::U32, "%r3");
    let n = b.var(Ty::U32, "%r4");
    let p = b.var(Ty::Bool, "%p1");
    let lo = b.var(Ty::U32, "lo");
    let hi = b.var(Ty::U32, "hi");
    let t = b.var(Ty::U64, "t");
    let off = b.var(Ty::U64, "%rd1");
    let ptrs = [b.var(Ty::U64, "%rd2"), b.var(Ty::U64, "%rd3"), b.var(Ty::U64, "%rd4")];
    let words = [b.var(Ty::U32, "wa"), b.var(Ty::U32, "wb"), b.var(Ty::U32, "wc")];
    let x = b.var(Ty::U32, "x");
    let fa = b.var(Ty::F32, "%f1");
    let fb = b.var(Ty::F32, "%f2");
    let ph = abi::PARAM_HEADER_WORDS;
    b.extend([
        assign(tid, Expr::Builtin(Builtin::ThreadId(0))),
        assign(ctaid, Expr::Builtin(Builtin::CtaId(0))),
        assign(i, bin(Mul, Ty::U32, ctaid, c32(64))),
        assign(i, bin(Add, Ty::U32, i, tid)),
        assign(n, load(Memory::Param, c32(ph + 6))),
        assign(p, cmp(CmpOp::GeS, Ty::U32, i, n)),
        if_(p, vec![Stmt::Return], vec![]),
        assign(off, conv(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, i)),
        assign(off, bin(Shl, Ty::U64, off, c32(2))),
    ]);
    for k in 0..3 {
        b.extend([
            assign(lo, load(Memory::Param, c32(ph + 2 * k as u32))),
            assign(hi, load(Memory::Param, c32(ph + 2 * k as u32 + 1))),
            assign(t, conv(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, hi)),
            assign(t, bin(Shl, Ty::U64, t, c32(32))),
            assign(ptrs[k], conv(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, lo)),
            assign(ptrs[k], bin(Or, Ty::U64, ptrs[k], t)),
            assign(ptrs[k], bin(Add, Ty::U64, ptrs[k], off)),
            assign(t, bin(Sub, Ty::U64, ptrs[k], c64(abi::HEAP_BASE))),
            assign(t, bin(ShrU, Ty::U64, t, c32(2))),
            assign(words[k], conv(ConvertOp::Truncate, Ty::U64, Ty::U32, t)),
        ]);
    }
    b.extend([
        assign(x, load(Memory::Heap, words[0])),
        assign(fa, conv(ConvertOp::Bitcast, Ty::U32, Ty::F32, x)),
        assign(x, load(Memory::Heap, words[1])),
        assign(fb, conv(ConvertOp::Bitcast, Ty::U32, Ty::F32, x)),
        assign(fa, bin(FAdd, Ty::F32, fa, fb)),
        assign(x, conv(ConvertOp::Bitcast, Ty::F32, Ty::U32, fa)),
        store(Memory::Heap, words[2], x),
    ]);
    b.build()
}

/// The same with 32-bit arithmetic only: heap word indices are passed directly as u32 params.
pub fn vecadd32() -> Kernel {
    use BinaryOp::*;
    let mut b = Kb::new("vecadd32", [64, 1, 1]);
    for (k, name) in ["a", "b", "c", "n"].iter().enumerate() {
        b.param(name, 4 * k as u32, 4);
    }
    let tid = b.var(Ty::U32, "%r1");
    let i = b.var(Ty::U32, "%r2");
    let n = b.var(Ty::U32, "%r3");
    let p = b.var(Ty::Bool, "%p1");
    let w = b.var(Ty::U32, "w");
    let fa = b.var(Ty::F32, "%f1");
    let fb = b.var(Ty::F32, "%f2");
    let x = b.var(Ty::U32, "x");
    let ph = abi::PARAM_HEADER_WORDS;
    b.extend([
        assign(tid, Expr::Builtin(Builtin::ThreadId(0))),
        assign(i, Expr::Builtin(Builtin::CtaId(0))),
        assign(i, bin(Mul, Ty::U32, i, c32(64))),
        assign(i, bin(Add, Ty::U32, i, tid)),
        assign(n, load(Memory::Param, c32(ph + 3))),
        assign(p, cmp(CmpOp::LtU, Ty::U32, i, n)),
        if_(
            p,
            vec![
                assign(w, load(Memory::Param, c32(ph))),
                assign(w, bin(Add, Ty::U32, w, i)),
                assign(x, load(Memory::Heap, w)),
                assign(fa, conv(ConvertOp::Bitcast, Ty::U32, Ty::F32, x)),
                assign(w, load(Memory::Param, c32(ph + 1))),
                assign(w, bin(Add, Ty::U32, w, i)),
                assign(x, load(Memory::Heap, w)),
                assign(fb, conv(ConvertOp::Bitcast, Ty::U32, Ty::F32, x)),
                assign(fa, bin(FAdd, Ty::F32, fa, fb)),
                assign(fa, bin(FMul, Ty::F32, fa, cf32(0.5))),
                assign(x, conv(ConvertOp::Bitcast, Ty::F32, Ty::U32, fa)),
                assign(w, load(Memory::Param, c32(ph + 2))),
                assign(w, bin(Add, Ty::U32, w, i)),
                store(Memory::Heap, w, x),
            ],
            vec![],
        ),
    ]);
    b.build()
}

/// With `PTXCROSS_WGSL_DUMP=<dir>`, writes `wgsl` there (named by its hash) for outside
/// checkers, e.g. `tools/tint-check` (the browser's WGSL compiler, stricter than naga).
pub fn dump(wgsl: &str) {
    let Some(dir) = std::env::var_os("PTXCROSS_WGSL_DUMP") else { return };
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    wgsl.hash(&mut h);
    let dir = std::path::PathBuf::from(dir);
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{:016x}.wgsl", h.finish())), wgsl);
}
