//! Facts about a device that only running code can tell, measured once per device and backend.
//!
//! - **Fused fma.** Vulkan and WebGPU let `fma` be an unfused multiply-add (lavapipe does
//!   that), while PTX's `fma.rn` rounds once. `lower` emulates it exactly unless told the
//!   target fuses (`LowerOptions::native_fma`); the probe computes `fma(a, a, -(a*a))` for
//!   `a = 1 + 2^-12`, which is `2^-24` when fused and `0` when not. The inputs come from the
//!   parameter buffer, so no compiler can fold them.
//! - **Loops cut short.** lavapipe ends every loop of a thread after 65,535 back-edges in total
//!   (see `ptxcross_lower`'s `loop_cut`). The probe counts to [`LOOP_PROBE_TRIPS`] in one loop
//!   (the trip count comes from the parameters); a smaller count means the driver cuts loops,
//!   and kernels for it get the check that reports such a cut as a fault
//!   (`LowerOptions::detect_cut_loops`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ptxcross_lower::build::*;
use ptxcross_lower::{abi, ir::*};

use super::{Backend, Context, ContextOptions, Error, Gpu};

/// `1 + 2^-12`: its square needs 25 significant bits.
const A_BITS: u32 = 0x3f80_0800;

fn probe_kernel(name: &str, vars: &[Ty], stmts: Vec<Stmt>) -> Kernel {
    Kernel {
        name: name.into(),
        entry_point: format!("k_{name}"),
        workgroup_size: [1, 1, 1],
        vars: vars.iter().map(|&ty| VarInfo { ty, name: "probe".into() }).collect(),
        body: Block { stmts },
        shared_words: 0,
        local_words: 0,
        local_placement: Default::default(),
        fault_site_var: None,
        fault_sites: Vec::new(),
        params: vec![
            ParamSlot { name: "out_word".into(), offset: 0, size: 4, align: 4 },
            ParamSlot { name: "input".into(), offset: 4, size: 4, align: 4 },
        ],
        param_bytes: 8,
        features: Features::default(),
    }
}

/// Parameter word `w` after the header.
fn p(w: u32) -> Operand {
    c32(abi::PARAM_HEADER_WORDS + w)
}

fn fma_probe() -> Kernel {
    let v = |i: u32| VarId(i);
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
    let types = [Ty::U32, Ty::U32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, Ty::U32];
    probe_kernel("ptxcross_fma_probe", &types, stmts)
}

/// Trip count of the loop probe: above lavapipe's 65,535.
pub const LOOP_PROBE_TRIPS: u32 = 70_000;

/// `out = number of iterations of a loop that runs `input` times`.
fn loop_probe() -> Kernel {
    let v = |i: u32| VarId(i);
    let stmts = vec![
        assign(v(0), load(Memory::Param, p(0))),
        assign(v(1), load(Memory::Param, p(1))),
        copy(v(2), c32(0)),
        loop_(vec![
            assign(v(3), cmp(CmpOp::GeU, Ty::U32, v(2), v(1))),
            if_(v(3), vec![Stmt::Break], vec![]),
            assign(v(2), bin(BinaryOp::Add, Ty::U32, v(2), c32(1))),
        ]),
        store(Memory::Heap, v(0), v(2)),
    ];
    probe_kernel("ptxcross_loop_probe", &[Ty::U32, Ty::U32, Ty::U32, Ty::Bool], stmts)
}

/// Runs a probe kernel on `backend` with `input` and returns the word it wrote.
fn run_probe(gpu: &Arc<Gpu>, backend: Backend, kernel: Kernel, input: u32) -> Result<u32, Error> {
    let name = kernel.name.clone();
    let program = crate::translate::build_program_from_ir(&name, module(vec![kernel]), &[backend], true)
        .map_err(|e| Error::Pipeline { kernel: name.clone(), backend, message: e.to_string() })?;
    let mut ctx = Context::new(ContextOptions { heap_bytes: 64 << 10, timeout: None, gpu: Some(gpu.clone()) })?;
    let out = ctx.alloc(4)?;
    let word = ((out.0 - abi::HEAP_BASE) / 4) as u32;
    let params = [word.to_le_bytes(), input.to_le_bytes()].concat();
    let launched = ctx.launch_packed(&program, &name, [1, 1, 1], &params, backend);
    gpu.forget_program(program.id());
    launched?;
    let bits = ctx.read(out, 4)?;
    Ok(u32::from_le_bytes([bits[0], bits[1], bits[2], bits[3]]))
}

impl Gpu {
    /// Whether `fma` on `backend` rounds once on this device (measured on first use; a probe
    /// that cannot run counts as "not fused", which only costs speed).
    pub fn fma_is_fused(self: &Arc<Self>, backend: Backend) -> bool {
        self.probed(&self.fma_fused, backend, || {
            run_probe(self, backend, fma_probe(), A_BITS).map(|bits| bits != 0).unwrap_or(false)
        })
    }

    /// Whether the driver ends long loops on its own on `backend` (measured on first use; a
    /// probe that cannot run counts as "cuts loops", which only adds a cheap check).
    pub fn cuts_long_loops(self: &Arc<Self>, backend: Backend) -> bool {
        self.probed(&self.loops_cut, backend, || {
            run_probe(self, backend, loop_probe(), LOOP_PROBE_TRIPS).map(|n| n != LOOP_PROBE_TRIPS).unwrap_or(true)
        })
    }

    fn probed(&self, cache: &Mutex<HashMap<Backend, bool>>, backend: Backend, measure: impl FnOnce() -> bool) -> bool {
        if let Some(known) = cache.lock().ok().and_then(|m| m.get(&backend).copied()) {
            return known;
        }
        let value = measure();
        if let Ok(mut m) = cache.lock() {
            m.insert(backend, value);
        }
        value
    }
}
