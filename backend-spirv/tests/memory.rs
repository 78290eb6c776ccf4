//! Word accesses on every memory, atomics, barriers, faults, builtins, capabilities and the
//! module-level interface.

mod common;

use common::*;
use ptxcross_lower::ir::*;


fn atomic(memory: Memory, op: AtomicOp, index: Operand, value: Operand) -> Expr {
    let comparand = (op == AtomicOp::CompareExchange).then_some(c32(5));
    Expr::AtomicWord { memory, op, index, value, comparand }
}

#[test]
fn loads_and_stores_on_every_memory() {
    let mut k = KernelBuilder::new("mem");
    k.shared_words = 256;
    k.local_words = 16;
    let i = k.var(Ty::U32);
    let w = k.var(Ty::U32);
    let mut body = vec![assign(i, Expr::Builtin(Builtin::ThreadId(0)))];
    for m in [Memory::Heap, Memory::Shared, Memory::Local, Memory::Param] {
        body.push(assign(w, load(m, v(i))));
        body.push(assign(w, load(m, c32(3))));
        if m != Memory::Param {
            body.push(store(m, v(i), v(w)));
            body.push(store(m, c32(1), c32(0xdead_beef)));
        }
    }
    let words = check(&module(vec![k.finish(body)]));
    let text = ptxcross_spirv::disassemble(&words);
    for needle in ["Workgroup", "Private", "OpArrayLength", "NonWritable", "Binding 0", "Binding 1"] {
        assert!(text.contains(needle), "missing {needle}:\n{text}");
    }
    naga_report("loads_and_stores_on_every_memory", &words);
}

#[test]
fn zero_sized_shared_and_local_fault_on_every_access() {
    let mut k = KernelBuilder::new("nomem");
    let w = k.var(Ty::U32);
    let body = vec![
        assign(w, load(Memory::Shared, c32(0))),
        store(Memory::Shared, c32(0), v(w)),
        assign(w, load(Memory::Local, c32(0))),
        store(Memory::Local, c32(0), v(w)),
        assign(w, atomic(Memory::Shared, AtomicOp::Add, c32(0), c32(1))),
    ];
    let words = check(&module(vec![k.finish(body)]));
    let text = ptxcross_spirv::disassemble(&words);
    assert!(!text.contains(" Workgroup\n"), "no shared array when shared_words == 0:\n{text}");
    assert!(!text.contains("Private"), "no local array when local_words == 0:\n{text}");
}

#[test]
fn atomics_on_heap_and_shared() {
    let mut k = KernelBuilder::new("atomics");
    k.shared_words = 32;
    k.features.heap_atomics = true;
    k.features.shared_atomics = true;
    let i = k.var(Ty::U32);
    let old = k.var(Ty::U32);
    let mut body = vec![assign(i, Expr::Builtin(Builtin::ThreadId(0)))];
    for m in [Memory::Heap, Memory::Shared] {
        for op in AtomicOp::ALL {
            body.push(assign(old, atomic(m, op, v(i), v(old))));
            body.push(assign(old, atomic(m, op, c32(70), c32(1))));
        }
    }
    let words = check(&module(vec![k.finish(body)]));
    let caps = capabilities(&words);
    assert_eq!(caps, ["Shader"], "word atomics need no extra capability");
    let text = ptxcross_spirv::disassemble(&words);
    for op in [
        "OpAtomicIAdd",
        "OpAtomicISub",
        "OpAtomicAnd",
        "OpAtomicOr",
        "OpAtomicXor",
        "OpAtomicExchange",
        "OpAtomicUMin",
        "OpAtomicUMax",
        "OpAtomicSMin",
        "OpAtomicSMax",
        "OpAtomicCompareExchange",
    ] {
        assert!(text.contains(op), "missing {op}");
    }
    naga_report("atomics", &words);
}

#[test]
fn atomics_elsewhere_are_refused() {
    for m in [Memory::Local, Memory::Param] {
        let mut k = KernelBuilder::new("bad");
        k.local_words = 4;
        let w = k.var(Ty::U32);
        let body = vec![assign(w, atomic(m, AtomicOp::Add, c32(0), c32(1)))];
        expect_invalid(&module(vec![k.finish(body)]), "atomic");
    }
    let mut k = KernelBuilder::new("bad");
    let w = k.var(Ty::U32);
    let cas = Expr::AtomicWord { memory: Memory::Heap, op: AtomicOp::CompareExchange, index: c32(64), value: c32(1), comparand: None };
    expect_invalid(&module(vec![k.finish(vec![assign(w, cas)])]), "comparand");
    let mut k = KernelBuilder::new("bad");
    let w = k.var(Ty::U32);
    let add = Expr::AtomicWord { memory: Memory::Heap, op: AtomicOp::Add, index: c32(64), value: c32(1), comparand: Some(c32(0)) };
    expect_invalid(&module(vec![k.finish(vec![assign(w, add)])]), "comparand");
}

#[test]
fn param_stores_and_bad_word_types_are_refused() {
    let k = KernelBuilder::new("bad").finish(vec![store(Memory::Param, c32(4), c32(1))]);
    expect_invalid(&module(vec![k]), "parameter");
    let k = KernelBuilder::new("bad").finish(vec![store(Memory::Heap, c64(64), c32(1))]);
    expect_invalid(&module(vec![k]), "store index");
    let k = KernelBuilder::new("bad").finish(vec![store(Memory::Heap, c32(64), cf32(1.0))]);
    expect_invalid(&module(vec![k]), "stored word");
    let mut k = KernelBuilder::new("bad");
    let f = k.var(Ty::F32);
    let m = module(vec![k.finish(vec![assign(f, load(Memory::Heap, c32(64)))])]);
    expect_invalid(&m, "assignment");
}

#[test]
fn barrier_and_fault() {
    let mut k = KernelBuilder::new("sync");
    k.shared_words = 64;
    let i = k.var(Ty::U32);
    let w = k.var(Ty::U32);
    let body = vec![
        assign(i, Expr::Builtin(Builtin::ThreadId(0))),
        store(Memory::Shared, v(i), v(i)),
        Stmt::Barrier,
        assign(w, load(Memory::Shared, c32(0))),
        Stmt::Fault { code: ptxcross_lower::abi::FAULT_TRAP },
        loop_(vec![Stmt::Barrier, Stmt::Break]),
    ];
    let words = check(&module(vec![k.finish(body)]));
    let text = ptxcross_spirv::disassemble(&words);
    assert!(text.contains("OpControlBarrier"), "{text}");
    naga_report("barrier_and_fault", &words);
}

#[test]
fn every_builtin() {
    let mut k = KernelBuilder::new("builtins");
    k.workgroup_size = [8, 4, 2];
    let w = k.var(Ty::U32);
    let mut body = Vec::new();
    for d in 0..3 {
        for b in [Builtin::ThreadId(d), Builtin::CtaId(d), Builtin::NumCtas(d)] {
            body.push(assign(w, Expr::Builtin(b)));
        }
    }
    let words = check(&module(vec![k.finish(body)]));
    let text = ptxcross_spirv::disassemble(&words);
    assert!(text.contains("LocalSize 8 4 2"), "{text}");
    for b in ["LocalInvocationId", "WorkgroupId", "NumWorkgroups"] {
        assert!(text.contains(&format!("BuiltIn {b}")), "{b}:\n{text}");
    }
    naga_report("every_builtin", &words);

    let mut k = KernelBuilder::new("bad");
    let w = k.var(Ty::U32);
    expect_invalid(&module(vec![k.finish(vec![assign(w, Expr::Builtin(Builtin::CtaId(3)))])]), "dimension");
}

#[test]
fn several_kernels_share_buffers_but_not_shared_memory() {
    let mut kernels = Vec::new();
    for (n, shared) in [("a", 16), ("b", 1024), ("c", 0)] {
        let mut k = KernelBuilder::new(n);
        k.shared_words = shared;
        k.local_words = shared / 4;
        let w = k.var(Ty::U32);
        kernels.push(k.finish(vec![
            assign(w, load(Memory::Heap, c32(100))),
            // Beyond the header and the (empty) parameter area: a checked load (a word below
            // that may be read directly, `Kernel::direct_param_loads`).
            assign(w, load(Memory::Param, c32(40))),
            // Indices not known to be in range (`Kernel::index_in_range`): the helpers.
            store(Memory::Shared, v(w), v(w)),
            assign(w, load(Memory::Local, v(w))),
            assign(w, atomic(Memory::Heap, AtomicOp::Add, c32(64), v(w))),
            Stmt::Barrier,
        ]));
    }
    let words = check(&module(kernels));
    let text = ptxcross_spirv::disassemble(&words);
    assert_eq!(text.matches("OpEntryPoint").count(), 3);
    // heap/param helpers once per module, shared/local ones per kernel
    let names: Vec<&str> = text.lines().filter(|l| l.starts_with("OpName")).collect();
    let count = |n: &str| names.iter().filter(|l| l.contains(&format!("\"{n}"))).count();
    assert_eq!(count("load_heap"), 1, "{names:?}");
    assert_eq!(count("load_param"), 1, "{names:?}");
    assert_eq!(count("atomic_add_heap"), 1, "{names:?}");
    assert_eq!(count("store_shared"), 3, "{names:?}");
    assert_eq!(count("load_local"), 3, "{names:?}");
    assert_eq!(text.matches("DescriptorSet 0").count(), 2, "one heap and one param buffer");
}

#[test]
fn capabilities_follow_use() {
    // 32-bit only
    let words = check(&module(vec![{
        let mut k = KernelBuilder::new("k32");
        let a = k.var(Ty::U32);
        let f = k.var(Ty::F32);
        k.finish(vec![
            assign(a, un(UnaryOp::CountLeadingZeros, Ty::U32, v(a))),
            assign(f, un(UnaryOp::FNeg, Ty::F32, v(f))),
        ])
    }]));
    // Kernels with float variables ask the driver to keep subnormals (PTX semantics).
    assert_eq!(capabilities(&words), ["Shader", "DenormPreserve"]);
    // f64 sign manipulation needs no Int64
    let words = check(&module(vec![{
        let mut k = KernelBuilder::new("kf64");
        let d = k.var(Ty::F64);
        k.finish(vec![assign(d, un(UnaryOp::FNeg, Ty::F64, v(d))), assign(d, un(UnaryOp::FAbs, Ty::F64, v(d)))])
    }]));
    assert_eq!(capabilities(&words), ["Shader", "Float64", "DenormPreserve"]);
    // a U64 constant alone turns Int64 on, even when features forgot it
    let words = check(&module(vec![{
        let mut k = KernelBuilder::new("ku64");
        let a = k.var(Ty::U32);
        k.features = Features::default();
        k.finish(vec![assign(
            a,
            Expr::Convert { op: ConvertOp::Truncate, from: Ty::U64, to: Ty::U32, arg: c64(1 << 40) },
        )])
    }]));
    assert_eq!(capabilities(&words), ["Shader", "Int64"]);
    // never anything wgpu-hal does not enable
    let words = check(&module(vec![vecadd()]));
    let text = ptxcross_spirv::disassemble(&words);
    for bad in ["8BitAccess", "16BitAccess", "PhysicalStorageBuffer", "Int64Atomics", "VariablePointers"] {
        assert!(!text.contains(bad), "{bad} in:\n{text}");
    }
    // The one extension: float controls, core in Vulkan 1.2 (VK_KHR_shader_float_controls).
    let extensions: Vec<&str> = text.lines().filter(|l| l.contains("OpExtension ")).collect();
    assert!(extensions.iter().all(|l| l.contains("SPV_KHR_float_controls")), "{extensions:?}");
    assert_eq!(words[1], 0x0001_0300, "SPIR-V 1.3");
}

#[test]
fn module_level_errors() {
    let mut k = KernelBuilder::new("zero");
    k.workgroup_size = [0, 1, 1];
    expect_invalid(&module(vec![k.finish(vec![])]), "workgroup size");
    let a = KernelBuilder::new("same").finish(vec![]);
    let b = KernelBuilder::new("same").finish(vec![]);
    expect_invalid(&module(vec![a, b]), "duplicate entry point");
    let mut k = KernelBuilder::new("x").finish(vec![]);
    k.entry_point = String::new();
    expect_invalid(&module(vec![k]), "entry point name");
    let k = KernelBuilder::new("vars").finish(vec![copy(VarId(7), c32(1))]);
    expect_invalid(&module(vec![k]), "v7");
    let k = KernelBuilder::new("vars").finish(vec![store(Memory::Heap, v(VarId(3)), c32(1))]);
    expect_invalid(&module(vec![k]), "v3");
    // the error names the kernel
    let k = KernelBuilder::new("named_kernel").finish(vec![Stmt::Break]);
    let e = ptxcross_spirv::emit(&module(vec![k])).unwrap_err();
    assert_eq!(e.kernel.as_deref(), Some("named_kernel"));
    assert!(e.to_string().contains("named_kernel"), "{e}");
}

#[test]
fn module_without_kernels_is_a_clear_error() {
    let e = ptxcross_spirv::emit(&Module::default()).unwrap_err();
    assert!(matches!(e.kind, ptxcross_spirv::EmitErrorKind::Unsupported(_)), "{e}");
    assert!(e.to_string().contains("no kernels"), "{e}");
}

/// `Features::fences_as_sink_atomics` (a driver that loses threads at memory barriers,
/// lavapipe 22.3): each fence, of either scope, becomes a relaxed device-scope atomic add of 0
/// to the heap's sink word, and no `OpMemoryBarrier` is left; without it, barriers.
#[test]
fn fences_as_sink_word_atomics() {
    for sink in [false, true] {
        let mut k = KernelBuilder::new("fences");
        k.features.fences_as_sink_atomics = sink;
        let body = vec![Stmt::Fence { scope: Scope::Device }, Stmt::Fence { scope: Scope::Workgroup }];
        let words = check(&Module { kernels: vec![k.finish(body)], ..Default::default() });
        let text = ptxcross_spirv::disassemble(&words);
        let barriers = text.matches("OpMemoryBarrier").count();
        let adds: Vec<&str> = text.lines().filter(|l| l.contains("OpAtomicIAdd")).collect();
        if sink {
            assert_eq!((barriers, adds.len()), (0, 2), "{text}");
            // The disassembly names ids by number: `%id = OpConstant %t value`.
            let value_of = |id: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(&format!("{id} = OpConstant ")))
                    .and_then(|rest| rest.split_whitespace().last()?.parse::<u32>().ok())
            };
            for add in &adds {
                // `%r = OpAtomicIAdd %t %ptr %scope %semantics %value`.
                let ops: Vec<&str> = add.split_whitespace().collect();
                let ptr = ops[4];
                let chain = text.lines().find(|l| l.starts_with(&format!("{ptr} = OpAccessChain"))).expect("pointer");
                let word = chain.split_whitespace().last().unwrap();
                assert_eq!(value_of(word), Some(ptxcross_lower::abi::HEAP_SINK_WORD), "{text}");
                // Scope Device (1), semantics Relaxed (0), value 0.
                assert_eq!([ops[5], ops[6], ops[7]].map(value_of), [Some(1), Some(0), Some(0)], "{text}");
            }
        } else {
            assert_eq!((barriers, adds.len()), (2, 0), "{text}");
        }
    }
}
