//! Shared by the SIMT tests (atomics, barriers): translate PTX (both backends validated with
//! spirv-val and naga), run one launch on the shared GPU, read buffers back.
#![allow(dead_code)]

use ptxcross::translate;
use ptxcross::{Backend, Context, DevicePtr, Gpu, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use std::sync::Arc;

/// The shared GPU, or `None` (test skipped) when there is none and `PTXCROSS_REQUIRE_GPU` is
/// not `1`.
pub fn gpu() -> Option<Arc<Gpu>> {
    ptxcross_tests::launch::gpu_or_skip()
}

/// Lowers `ptx` for `block` (panics with the diagnostic).
fn lower_ptx(name: &str, ptx: &str, block: [u32; 3]) -> ptxcross_lower::ir::Module {
    lower_kernel(name, ptx, block, None)
}

/// Lowers `kernel` of `ptx` (every kernel: `None`) for `block`.
fn lower_kernel(name: &str, ptx: &str, block: [u32; 3], kernel: Option<&str>) -> ptxcross_lower::ir::Module {
    assert!(translate::spirv_validator_available(), "a SPIR-V validator is needed (scripts/install-deps.sh)");
    let file = SourceFile::new(name, ptx);
    let options = LowerOptions { block: Some(block), kernel: kernel.map(str::to_string), ..Default::default() };
    translate::frontend(&file, &options).unwrap_or_else(|e| panic!("{name}: {}", e.render()))
}

/// Translates `ptx` for `block` to both backends, validating each module.
pub fn program(name: &str, ptx: &str, block: [u32; 3]) -> Program {
    let module = lower_ptx(name, ptx, block);
    translate::build_program_from_ir(name, module, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// As [`program`], with only `kernel` of the file (files with many kernels, each built for
/// its own block size).
pub fn program_of(name: &str, ptx: &str, block: [u32; 3], kernel: &str) -> Program {
    let module = lower_kernel(name, ptx, block, Some(kernel));
    translate::build_program_from_ir(name, module, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Translates `ptx` for `block` to the SPIR-V backend only (validated with spirv-val), and
/// returns the WGSL backend's error (for kernels WGSL cannot express).
pub fn spirv_program(name: &str, ptx: &str, block: [u32; 3]) -> (Program, String) {
    let module = lower_ptx(name, ptx, block);
    let wgsl = match translate::emit_wgsl(&module, ptxcross_wgsl::Profile::Wgpu) {
        Ok(_) => panic!("{name}: the WGSL backend accepted a kernel it cannot express"),
        Err(e) => e.to_string(),
    };
    let program = translate::build_program_from_ir(name, module, &[Backend::Spirv], true).unwrap_or_else(|e| panic!("{name}: {e}"));
    (program, wgsl)
}

pub struct Run {
    pub ctx: Context,
}

impl Run {
    pub fn new(gpu: &Arc<Gpu>) -> Run {
        let ctx = Context::new(ptxcross::ContextOptions { heap_bytes: 16 << 20, timeout: None, gpu: Some(gpu.clone()) })
            .expect("context");
        Run { ctx }
    }
    pub fn buffer(&mut self, bytes: &[u8]) -> DevicePtr {
        let p = self.ctx.alloc(bytes.len().max(4) as u64).expect("alloc");
        self.ctx.write(p, bytes).expect("write");
        p
    }
    pub fn zeros(&mut self, len: usize) -> DevicePtr {
        self.buffer(&vec![0u8; len])
    }
    pub fn read(&self, p: DevicePtr, len: usize) -> Vec<u8> {
        self.ctx.read(p, len as u64).expect("read")
    }
    pub fn read_u32(&self, p: DevicePtr, n: usize) -> Vec<u32> {
        self.read(p, n * 4).chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
    }
    pub fn read_u64(&self, p: DevicePtr, n: usize) -> Vec<u64> {
        self.read(p, n * 8).chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
    }
    /// Launches and checks that no fault was recorded.
    pub fn launch(&mut self, program: &Program, kernel: &str, grid: [u32; 3], args: &[&[u8]], backend: Backend) {
        self.ctx.launch(program, kernel, grid, args, backend).unwrap_or_else(|e| panic!("{kernel} on {backend}: {e}"));
    }
}

pub fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
pub fn u64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
