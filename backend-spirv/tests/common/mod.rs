//! Hand-built IR kernels and the checks every emitted module must pass.
#![allow(dead_code)]

use ptxcross_lower::abi;
use ptxcross_lower::ir::*;
pub use ptxcross_lower::build::*;
pub use ptxcross_lower::build::{cbool as cb, var as v};

/// Builds one kernel: declare variables, then hand over the body.
pub struct KernelBuilder {
    name: String,
    vars: Vec<VarInfo>,
    pub workgroup_size: [u32; 3],
    pub shared_words: u32,
    pub local_words: u32,
    pub features: Features,
}

impl KernelBuilder {
    pub fn new(name: &str) -> Self {
        KernelBuilder {
            name: name.to_string(),
            vars: Vec::new(),
            workgroup_size: [64, 1, 1],
            shared_words: 0,
            local_words: 0,
            features: Features::default(),
        }
    }
    pub fn var(&mut self, ty: Ty) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(VarInfo { ty, name: format!("%v{}", id.0).into() });
        if ty == Ty::U64 {
            self.features.int64 = true;
        }
        if ty == Ty::F64 {
            self.features.float64 = true;
        }
        id
    }
    pub fn finish(self, body: Vec<Stmt>) -> Kernel {
        Kernel {
            entry_point: self.name.replace(['.', '$'], "_"),
            name: self.name,
            workgroup_size: self.workgroup_size,
            vars: self.vars,
            body: Block { stmts: body },
            shared_words: self.shared_words,
            local_words: self.local_words,
            local_placement: Default::default(),
            fault_site_var: None,
            fault_sites: Vec::new(),
            params: Vec::new(),
            param_bytes: 0,
            features: self.features,
            functions: Vec::new(),
            printf: Vec::new(),
        }
    }
}

/// `out[i] = a[i] + b[i]` over the heap: params hold three u64 heap byte addresses and `n`.
/// (Addresses are turned into word indices the way lower does: (addr - HEAP_BASE) / 4.)
pub fn vecadd() -> Kernel {
    let mut k = KernelBuilder::new("vecadd");
    let tid = k.var(Ty::U32);
    let cta = k.var(Ty::U32);
    let i = k.var(Ty::U32);
    let n = k.var(Ty::U32);
    let inb = k.var(Ty::Bool);
    let lo = k.var(Ty::U32);
    let hi = k.var(Ty::U32);
    let addr = k.var(Ty::U64);
    let widx = k.var(Ty::U32);
    let a = k.var(Ty::F32);
    let b = k.var(Ty::F32);
    let off = k.var(Ty::U64);
    let base = abi::PARAM_HEADER_WORDS;
    // word index of element i of the array whose address is at param words [p, p+1]
    let elem = |p: u32, out: VarId| -> Vec<Stmt> {
        vec![
            assign(lo, load(Memory::Param, c32(base + p))),
            assign(hi, load(Memory::Param, c32(base + p + 1))),
            assign(addr, Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: v(hi) }),
            assign(addr, bin(BinaryOp::Shl, Ty::U64, v(addr), c32(32))),
            assign(off, Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: v(lo) }),
            assign(addr, bin(BinaryOp::Or, Ty::U64, v(addr), v(off))),
            assign(off, Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: v(i) }),
            assign(off, bin(BinaryOp::Shl, Ty::U64, v(off), c32(2))),
            assign(addr, bin(BinaryOp::Add, Ty::U64, v(addr), v(off))),
            assign(addr, bin(BinaryOp::Sub, Ty::U64, v(addr), c64(abi::HEAP_BASE))),
            assign(addr, bin(BinaryOp::ShrU, Ty::U64, v(addr), c32(2))),
            assign(out, Expr::Convert { op: ConvertOp::Truncate, from: Ty::U64, to: Ty::U32, arg: v(addr) }),
        ]
    };
    let mut body = vec![
        assign(tid, Expr::Builtin(Builtin::ThreadId(0))),
        assign(cta, Expr::Builtin(Builtin::CtaId(0))),
        assign(i, bin(BinaryOp::Mul, Ty::U32, v(cta), c32(64))),
        assign(i, bin(BinaryOp::Add, Ty::U32, v(i), v(tid))),
        assign(n, load(Memory::Param, c32(base + 6))),
        assign(inb, cmp(CmpOp::GeU, Ty::U32, v(i), v(n))),
        if_(v(inb), vec![Stmt::Return], vec![]),
    ];
    body.extend(elem(0, widx));
    body.push(assign(a, Expr::Convert { op: ConvertOp::Bitcast, from: Ty::U32, to: Ty::F32, arg: Operand::Var(lo) }));
    body.push(assign(lo, load(Memory::Heap, v(widx))));
    body.push(assign(a, Expr::Convert { op: ConvertOp::Bitcast, from: Ty::U32, to: Ty::F32, arg: v(lo) }));
    body.extend(elem(2, widx));
    body.push(assign(lo, load(Memory::Heap, v(widx))));
    body.push(assign(b, Expr::Convert { op: ConvertOp::Bitcast, from: Ty::U32, to: Ty::F32, arg: v(lo) }));
    body.push(assign(a, bin(BinaryOp::FAdd, Ty::F32, v(a), v(b))));
    body.extend(elem(4, widx));
    body.push(assign(lo, Expr::Convert { op: ConvertOp::Bitcast, from: Ty::F32, to: Ty::U32, arg: v(a) }));
    body.push(store(Memory::Heap, v(widx), v(lo)));
    k.finish(body)
}

/// Emits `m`, checks it with spirv-val (vulkan1.1) and naga's SPIR-V reader + validator where
/// naga supports what the module uses; returns the words.
pub fn check(m: &Module) -> Vec<u32> {
    let words = match ptxcross_spirv::emit(m) {
        Ok(w) => w,
        Err(e) => panic!("emit failed: {e}"),
    };
    if let Err(msg) = ptxcross_spirv::validate(&words) {
        panic!("spirv-val rejected the module:\n{msg}\n{}", ptxcross_spirv::disassemble(&words));
    }
    words
}

/// naga's verdict (SPIR-V front end, then its validator), for the tests that want it.
pub fn naga_check(words: &[u32]) -> Result<(), String> {
    let words = without_float_controls(words);
    let opts = naga::front::spv::Options::default();
    let module = naga::front::spv::parse_u8_slice(&words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>(), &opts)
        .map_err(|e| format!("naga spv-in: {e:?}"))?;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&module)
        .map_err(|e| format!("naga validation: {e:?}"))?;
    Ok(())
}

/// naga 30's SPIR-V reader refuses the `DenormPreserve` capability (SPV_KHR_float_controls),
/// which only asks the driver to keep subnormals; the rest of the module is what naga judges.
fn without_float_controls(words: &[u32]) -> Vec<u32> {
    use rspirv::binary::Assemble;
    use rspirv::dr::Operand;
    let mut m = rspirv::dr::load_words(words).expect("emitted words parse");
    m.capabilities.retain(|i| i.operands[0] != Operand::Capability(rspirv::spirv::Capability::DenormPreserve));
    m.extensions.retain(|i| i.operands[0] != Operand::LiteralString("SPV_KHR_float_controls".into()));
    m.execution_modes.retain(|i| i.operands[1] != Operand::ExecutionMode(rspirv::spirv::ExecutionMode::DenormPreserve));
    m.assemble()
}

/// The module's `OpCapability` operands, e.g. `["Shader", "Int64"]`.
pub fn capabilities(words: &[u32]) -> Vec<String> {
    let m = rspirv::dr::load_words(words).expect("emitted words parse");
    m.capabilities.iter().map(|i| format!("{}", i.operands[0])).collect()
}

/// Emits and expects an `InvalidIr` error (never a panic, never an `Ok`).
pub fn expect_invalid(m: &Module, needle: &str) {
    match ptxcross_spirv::emit(m) {
        Ok(_) => panic!("emit accepted invalid IR (expected an error containing {needle:?})"),
        Err(e) => {
            assert!(matches!(e.kind, ptxcross_spirv::EmitErrorKind::InvalidIr(_)), "{e}");
            let msg = e.to_string();
            assert!(msg.contains(needle), "error {msg:?} does not mention {needle:?}");
        }
    }
}

/// naga's verdict, printed, never asserted (naga's SPIR-V reader rejects some valid modules).
pub fn naga_report(what: &str, words: &[u32]) {
    match naga_check(words) {
        Ok(()) => eprintln!("naga: {what}: ok"),
        Err(e) => eprintln!("naga: {what}: {}", e.lines().next().unwrap_or("")),
    }
}

/// A constant of type `ty` (nonzero where that matters, e.g. divisors).
pub fn const_of(ty: Ty) -> Operand {
    match ty {
        Ty::Bool => cb(true),
        Ty::U32 => c32(7),
        Ty::U64 => c64(0x1_0000_0007),
        Ty::F32 => cf32(1.5),
        Ty::F64 => cf64(-2.25),
    }
}
