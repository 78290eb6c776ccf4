//! The scratch buffer: local memory of kernels that keep it in device memory
//! (`ir::LocalPlacement::Scratch`, see `ptxcross_lower::local_scratch`), one slice per thread of
//! one dispatch, as CUDA keeps local memory; and the warp matrix exchange of kernels whose
//! shared memory cannot hold it (`ir::Features::scratch_exchange_words`), words per block.
//!
//! - **Size.** A thread's slice is `local_words * 4` bytes and a block's part (its exchange,
//!   then its threads' slices) is indexed by the block's index *within its dispatch*
//!   (`abi::BINDING_SCRATCH`), so a dispatch of `B` blocks of `T` threads needs
//!   `B * (exchange bytes + T * local bytes)`. The launch caps `B` so that this fits one storage
//!   binding ([`Gpu::max_segment_bytes`]: `max_storage_buffer_binding_size`, `max_buffer_size`) and
//!   [`SCRATCH_BUDGET_BYTES`], splitting the grid into more dispatches when needed (the same
//!   splitting as for huge grids, `Context::dispatch_chunks`).
//! - **Reuse across dispatches.** Consecutive dispatches of a launch (and later launches) use
//!   the same slices. They never overlap in time: WebGPU makes every dispatch its own usage
//!   scope, and wgpu 30 puts a barrier before each dispatch that uses a read-write storage
//!   buffer an earlier command used read-write (`wgpu-core` `track::skip_barrier` skips only
//!   *ordered* uses, and the Vulkan, Metal, DX12 and GL backends' `get_ordered_buffer_usages`
//!   is `INCLUSIVE | MAP_WRITE`, which excludes `STORAGE_READ_WRITE`); across command buffers
//!   and submissions wgpu's device tracker inserts the same transition. The heap already
//!   relies on this.
//! - **Isolation.** Each [`super::Context`] owns its scratch buffer, created zeroed by wgpu (also
//!   when it grows: a new buffer), so a kernel never reads another context's local memory.
//!   Local memory a thread has not written reads as zero or as what an earlier thread *of the
//!   same context* left there (CUDA leaves it undefined; private arrays read zero).
//! - **Shared memory.** A kernel whose shared memory exceeds the device's workgroup memory
//!   keeps it here instead (`ir::Features::scratch_shared_words`, see
//!   `ptxcross_lower::local_scratch::shared_in_scratch`): a block's part is then its exchange,
//!   its shared words, its threads' slices. Each CTA zeroes its shared words first (the
//!   kernel's zeroing prologue), so no CTA reads what another CTA, launch or context left.
//! - **Faults.** `lower` turns an access outside the thread's slice into an index past the
//!   buffer's end, which faults (`abi::FAULT_LOCAL_OUT_OF_RANGE`) and changes nothing.

use ptxcross_lower::ir;

use super::{Error, Gpu};

/// Most bytes of scratch one context allocates (the device's binding limit may be lower).
/// 256 MiB holds 64 Ki threads of 4 KiB in one dispatch: enough to fill a large GPU; a bigger
/// grid runs as several dispatches.
pub const SCRATCH_BUDGET_BYTES: u64 = 256 << 20;

/// Size of the buffer bound to launches that use no scratch (a binding cannot be empty).
const MIN_SCRATCH_BYTES: u64 = 256;

/// Scratch bytes one block of `k` needs (0 when its local memory is a private array and its
/// warp matrix exchange, if any, in shared memory).
pub(crate) fn bytes_per_block(k: &ir::Kernel) -> u64 {
    // The exchange, then the CTA's shared memory where it lives here
    // (`ir::Features::scratch_shared_words`), then the threads' local memory.
    let exchange = k.features.scratch_exchange_words as u64 * 4 + k.features.scratch_shared_words as u64 * 4;
    if k.local_placement != ir::LocalPlacement::Scratch {
        return exchange;
    }
    let threads: u64 = k.workgroup_size.iter().map(|&d| d as u64).product();
    exchange + threads * k.local_words as u64 * 4
}

/// The largest scratch buffer a context may have on `gpu`.
pub(crate) fn max_bytes(gpu: &Gpu) -> u64 {
    gpu.max_segment_bytes().min(SCRATCH_BUDGET_BYTES)
}

/// Most blocks of `k` one dispatch may have so that their local memory fits the scratch
/// buffer; `None` when `k` uses no scratch. `Err` when not even one block fits.
pub(crate) fn blocks_per_dispatch(gpu: &Gpu, k: &ir::Kernel) -> Result<Option<u64>, Error> {
    let per_block = bytes_per_block(k);
    if per_block == 0 {
        return Ok(None);
    }
    let max = max_bytes(gpu);
    if per_block > max {
        let [x, y, z] = k.workgroup_size;
        return Err(Error::LimitExceeded {
            kernel: k.name.clone(),
            what: format!(
                "the scratch memory of one block ({x}x{y}x{z} threads x {} bytes of local memory + {} bytes of warp matrix exchange + {} bytes of shared memory, bytes)",
                if k.local_placement == ir::LocalPlacement::Scratch { k.local_words as u64 * 4 } else { 0 },
                k.features.scratch_exchange_words as u64 * 4,
                k.features.scratch_shared_words as u64 * 4
            ),
            value: per_block,
            limit: max,
            limit_name: "the scratch buffer: max_storage_buffer_binding_size, at most 256 MiB",
        });
    }
    Ok(Some(max / per_block))
}

/// A context's scratch buffer; grows to the largest dispatch that needed it.
pub(crate) struct Scratch {
    buffer: wgpu::Buffer,
    bytes: u64,
}

impl Scratch {
    pub fn new(gpu: &Gpu) -> Result<Scratch, Error> {
        Ok(Scratch {
            buffer: create(gpu, MIN_SCRATCH_BYTES)?,
            bytes: MIN_SCRATCH_BYTES,
        })
    }

    /// The buffer, at least `bytes` long (a new, zeroed one when the current one is shorter).
    pub fn at_least(&mut self, gpu: &Gpu, bytes: u64) -> Result<&wgpu::Buffer, Error> {
        if bytes > self.bytes {
            self.buffer = create(gpu, bytes)?;
            self.bytes = bytes;
        }
        Ok(&self.buffer)
    }
}

fn create(gpu: &Gpu, bytes: u64) -> Result<wgpu::Buffer, Error> {
    let (buffer, err) = gpu.scoped(|| {
        gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ptxcross scratch (local memory)"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    });
    match err {
        Some(e) => Err(Error::Gpu {
            during: "scratch buffer creation",
            message: e.to_string(),
        }),
        None => Ok(buffer),
    }
}
