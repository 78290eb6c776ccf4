//! Running one PTX kernel on the device through a chosen backend, for end-to-end tests that
//! compare against their own CPU reference. Every parameter of the kernel is a `.u64` pointer
//! to one buffer; the buffers' contents after the launch come back.
//!
//! Translation goes through `ptxcross::translate` with validation on (spirv-val and naga), so
//! every module these tests run is also checked.

use ptxcross::{translate, Backend, Context, ContextOptions, Gpu};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use std::sync::Arc;

/// The process-wide device, or `None` (with a note) when there is none and
/// `PTXCROSS_REQUIRE_GPU=1` is not set.
pub fn gpu_or_skip() -> Option<Arc<Gpu>> {
    match Gpu::shared() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("PTXCROSS_REQUIRE_GPU").as_deref() != Ok("1") => {
            eprintln!("skipped: no GPU adapter ({e})");
            None
        }
        Err(e) => panic!("no GPU adapter: {e}"),
    }
}

/// One launch: the kernel's parameters are pointers to `buffers` (in order).
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    pub ptx: &'a str,
    pub kernel: &'a str,
    pub block: [u32; 3],
    pub grid: [u32; 3],
    pub buffers: Vec<Vec<u8>>,
}

/// Translates (validating both emitted modules) and runs `launch` through `backend`; returns
/// every buffer after the launch. Errors (translation, validation, launch, kernel faults) are
/// strings naming the stage.
pub fn run(gpu: &Arc<Gpu>, launch: &Launch, backend: Backend) -> Result<Vec<Vec<u8>>, String> {
    let file = SourceFile::new(format!("{}.ptx", launch.kernel), launch.ptx);
    let options = LowerOptions { block: Some(launch.block), kernel: Some(launch.kernel.to_string()), ..Default::default() };
    let program = translate::build_program(&file, &options, &[backend], true).map_err(|e| e.render())?;
    let bytes: u64 = launch.buffers.iter().map(|b| (b.len() as u64).max(1).next_multiple_of(256)).sum();
    let mut ctx = Context::new(ContextOptions { heap_bytes: bytes + (1 << 16), timeout: None, gpu: Some(gpu.clone()) })
        .map_err(|e| format!("context: {e}"))?;
    let mut ptrs = Vec::new();
    for b in &launch.buffers {
        let p = ctx.alloc(b.len() as u64).map_err(|e| format!("alloc: {e}"))?;
        ctx.write(p, b).map_err(|e| format!("write: {e}"))?;
        ptrs.push(p);
    }
    let args: Vec<[u8; 8]> = ptrs.iter().map(|p| p.to_le_bytes()).collect();
    let arg_refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
    ctx.launch(&program, launch.kernel, launch.grid, &arg_refs, backend).map_err(|e| format!("{backend} launch: {e}"))?;
    launch
        .buffers
        .iter()
        .zip(&ptrs)
        .map(|(b, &p)| ctx.read(p, b.len() as u64).map_err(|e| format!("read: {e}")))
        .collect()
}

/// Little-endian words of a byte buffer.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Bytes of little-endian words.
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
