//! Facts about a device that only running code can tell, measured once per device and backend.
//!
//! - **Fused fma.** Vulkan and WebGPU let `fma` be an unfused multiply-add (lavapipe does
//!   that), while PTX's `fma.rn` rounds once. `lower` emulates it exactly unless told the
//!   target fuses (`LowerOptions::native_fma`); the probe computes `fma(a, a, -(a*a))` for
//!   `a = 1 + 2^-12`, which is `2^-24` when fused and `0` when not. The inputs come from the
//!   parameter buffer, so no compiler can fold them.

use std::sync::Arc;

use ptxcross_lower::{abi, ir::*};

use super::{Backend, Context, ContextOptions, Error, Gpu};

/// `1 + 2^-12`: its square needs 25 significant bits.
const A_BITS: u32 = 0x3f80_0800;

fn probe_module() -> Module {
    let v = |i: u32| VarId(i);
    let p = |w: u32| Operand::Const(Const::U32(abi::PARAM_HEADER_WORDS + w));
    let vars = [Ty::U32, Ty::U32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, Ty::U32]
        .into_iter()
        .map(|ty| VarInfo { ty, name: "probe".into() })
        .collect();
    let stmts = vec![
        Stmt::Assign { dst: v(0), expr: Expr::LoadWord { memory: Memory::Param, index: p(0) } },
        Stmt::Assign { dst: v(1), expr: Expr::LoadWord { memory: Memory::Param, index: p(1) } },
        Stmt::Assign {
            dst: v(2),
            expr: Expr::Convert { op: ConvertOp::Bitcast, from: Ty::U32, to: Ty::F32, arg: Operand::Var(v(1)) },
        },
        Stmt::Assign {
            dst: v(3),
            expr: Expr::Binary { op: BinaryOp::FMul, ty: Ty::F32, lhs: Operand::Var(v(2)), rhs: Operand::Var(v(2)) },
        },
        Stmt::Assign { dst: v(4), expr: Expr::Unary { op: UnaryOp::FNeg, ty: Ty::F32, arg: Operand::Var(v(3)) } },
        Stmt::Assign {
            dst: v(5),
            expr: Expr::Fma { ty: Ty::F32, a: Operand::Var(v(2)), b: Operand::Var(v(2)), c: Operand::Var(v(4)) },
        },
        Stmt::Assign {
            dst: v(6),
            expr: Expr::Convert { op: ConvertOp::Bitcast, from: Ty::F32, to: Ty::U32, arg: Operand::Var(v(5)) },
        },
        Stmt::StoreWord { memory: Memory::Heap, index: Operand::Var(v(0)), value: Operand::Var(v(6)) },
    ];
    let kernel = Kernel {
        name: "ptxcross_fma_probe".into(),
        entry_point: "k_ptxcross_fma_probe".into(),
        workgroup_size: [1, 1, 1],
        vars,
        body: Block { stmts },
        shared_words: 0,
        local_words: 0,
        params: vec![
            ParamSlot { name: "out_word".into(), offset: 0, size: 4, align: 4 },
            ParamSlot { name: "a".into(), offset: 4, size: 4, align: 4 },
        ],
        param_bytes: 8,
        features: Features::default(),
    };
    Module { kernels: vec![kernel], globals: GlobalSegment::default() }
}

/// Runs the probe on `backend`.
fn run_fma_probe(gpu: &Arc<Gpu>, backend: Backend) -> Result<bool, Error> {
    let module = probe_module();
    let program = crate::translate::build_program_from_ir("fma probe", module, &[backend], true)
        .map_err(|e| Error::Pipeline { kernel: "ptxcross_fma_probe".into(), backend, message: e.to_string() })?;
    let mut ctx = Context::new(ContextOptions { heap_bytes: 64 << 10, timeout: None, gpu: Some(gpu.clone()) })?;
    let out = ctx.alloc(4)?;
    let word = ((out.0 - abi::HEAP_BASE) / 4) as u32;
    let params = [word.to_le_bytes(), A_BITS.to_le_bytes()].concat();
    ctx.launch_packed(&program, "ptxcross_fma_probe", [1, 1, 1], &params, backend)?;
    let bits = ctx.read(out, 4)?;
    gpu.forget_program(program.id());
    Ok(u32::from_le_bytes([bits[0], bits[1], bits[2], bits[3]]) != 0)
}

impl Gpu {
    /// Whether `fma` on `backend` rounds once on this device (measured on first use; a probe
    /// that cannot run counts as "not fused", which only costs speed).
    pub fn fma_is_fused(self: &Arc<Self>, backend: Backend) -> bool {
        if let Some(&known) = self.fma_fused.lock().ok().and_then(|m| m.get(&backend).copied()).as_ref() {
            return known;
        }
        let fused = run_fma_probe(self, backend).unwrap_or(false);
        if let Ok(mut m) = self.fma_fused.lock() {
            m.insert(backend, fused);
        }
        fused
    }
}
