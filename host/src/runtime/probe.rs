//! Facts about a device that only running code can tell, measured once per device and backend.
//!
//! - **Fused fma.** Vulkan and WebGPU let `fma` be an unfused multiply-add (lavapipe does
//!   that), while PTX's `fma.rn` rounds once. `lower` emulates it exactly unless told the
//!   target fuses (`LowerOptions::native_fma`); the probe computes `fma(a, a, -(a*a))` for
//!   `a = 1 + 2^-12`, which is `2^-24` when fused and `0` when not. The inputs come from the
//!   parameter buffer, so no compiler can fold them.

use std::sync::Arc;

use ptxcross_lower::build::*;
use ptxcross_lower::{abi, ir::*};

use super::{Backend, Context, ContextOptions, Error, Gpu};

/// `1 + 2^-12`: its square needs 25 significant bits.
const A_BITS: u32 = 0x3f80_0800;

fn probe_module() -> Module {
    let v = |i: u32| VarId(i);
    let p = |w: u32| c32(abi::PARAM_HEADER_WORDS + w);
    let vars = [Ty::U32, Ty::U32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, Ty::U32]
        .into_iter()
        .map(|ty| VarInfo { ty, name: "probe".into() })
        .collect();
    let (a, sq, neg, r) = (var(v(2)), var(v(3)), var(v(4)), var(v(5)));
    let stmts = vec![
        assign(v(0), load(Memory::Param, p(0))),
        assign(v(1), load(Memory::Param, p(1))),
        assign(v(2), conv(ConvertOp::Bitcast, Ty::U32, Ty::F32, v(1))),
        assign(v(3), bin(BinaryOp::FMul, Ty::F32, a, a)),
        assign(v(4), un(UnaryOp::FNeg, Ty::F32, sq)),
        assign(v(5), Expr::Fma { ty: Ty::F32, a, b: a, c: neg }),
        assign(v(6), conv(ConvertOp::Bitcast, Ty::F32, Ty::U32, r)),
        store(Memory::Heap, v(0), v(6)),
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
    module(vec![kernel])
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
