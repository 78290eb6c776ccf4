//! A CUDA-driver-like runtime over wgpu.
//!
//! - [`Gpu`]: one adapter + device, opened once per process ([`Gpu::shared`]) and shared by
//!   every context; it caches shader modules and pipelines per (program, backend, kernel).
//! - [`Context`]: one heap (the global memory of `ptxcross_lower::abi`: segments, each a storage
//!   buffer of at most one binding viewed as words, byte `i` of segment `k` at virtual address
//!   `abi::HEAP_BASE + k * abi::SEGMENT_WINDOW + i`), device allocations carved out of them
//!   (one never straddles segments), module globals, and kernel launches. A launch binds the
//!   one segment its pointer arguments point into.
//! - [`Program`]: a translated module (IR facts + SPIR-V and/or WGSL).
//!
//! A launch checks the kernel against the adapter's limits and features (once per kernel and
//! context, then kept with its pipeline), writes the parameter buffer (`abi::PARAM_HEADER_WORDS`
//! header words: globals segment base …; then the parameters at their `ParamSlot::offset`) into
//! the context's buffer of that size (reused with its bind group), dispatches, and copies the
//! fault word into a fault log. [`Context::launch`] then waits and reads the log: a non-zero
//! fault word is returned as [`Error::KernelFault`] and cleared. [`Context::launch_async`]
//! returns at once; [`Context::synchronize`] (or the next synchronous call) waits for every
//! pending launch, reads their log entries in one transfer and reports the first that faulted.

mod error;
mod gpu;
mod memory;
mod printf;
mod probe;
mod program;
mod scratch;
mod watchdog;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use ptxcross_lower::{abi, ir};

pub use error::{Error, NO_ADAPTER_HINT};
pub use gpu::{adapters, Gpu, GpuOptions, WarpPath, WANTED_FEATURES};
pub use printf::PrintfOutput;
pub use probe::{FmaMode, Subnormals, SUBNORMAL_CHECKS};
pub use memory::DevicePtr;
pub use program::{Program, SegmentVariants};
pub use scratch::SCRATCH_BUDGET_BYTES;
pub use watchdog::Deadline;

use memory::Allocator;

/// Which code of a [`Program`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Backend {
    /// The SPIR-V module, handed to the driver as-is (`Features::PASSTHROUGH_SHADERS`).
    Spirv,
    /// The WGSL module, compiled by wgpu (naga) for the adapter's API.
    Wgsl,
}

impl Backend {
    pub const ALL: [Backend; 2] = [Backend::Spirv, Backend::Wgsl];
    pub fn name(self) -> &'static str {
        match self {
            Backend::Spirv => "spirv",
            Backend::Wgsl => "wgsl",
        }
    }
    pub fn parse(s: &str) -> Option<Backend> {
        match s.to_ascii_lowercase().as_str() {
            "spirv" | "spir-v" | "spv" => Some(Backend::Spirv),
            "wgsl" => Some(Backend::Wgsl),
            _ => None,
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Spirv => "SPIR-V",
            Backend::Wgsl => "WGSL",
        })
    }
}

/// Options of a [`Context`].
#[derive(Clone, Debug)]
pub struct ContextOptions {
    /// Size of the heap (global memory) in bytes, reserved words included; rounded up to a
    /// multiple of 256. At most [`Gpu::max_heap_bytes`]. A heap larger than one segment (one
    /// storage binding, [`Gpu::max_segment_bytes`]) is several segments, the first created at
    /// once, the others when allocations need them.
    pub heap_bytes: u64,
    /// How long to wait for a launch or a copy; `None`: forever.
    pub timeout: Option<Duration>,
    /// The device to use; `None`: [`Gpu::shared`].
    pub gpu: Option<Arc<Gpu>>,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            heap_bytes: 64 << 20,
            timeout: None,
            gpu: None,
        }
    }
}

/// Launches of fewer threads (grid × block) run the checked kernel even where its launch
/// precondition holds (`Context::set_launch_specialisation_threshold`).
pub const LAUNCH_SPECIALISATION_THREADS: u64 = 1 << 16;

/// Global memory plus launches on one device. Contexts are independent (their own heap and fault
/// word) but share the device and its pipeline cache.
pub struct Context {
    gpu: Arc<Gpu>,
    /// The heap's segments; segment `k` holds virtual addresses from
    /// `abi::HEAP_BASE + k * abi::SEGMENT_WINDOW` (see `abi`).
    segments: Vec<Segment>,
    /// Capacity of the heap: the segments' sizes add up to at most this.
    heap_bytes: u64,
    /// Size of a full segment.
    segment_bytes: u64,
    /// Globals segment base address per program id (allocated at the program's first launch).
    globals: HashMap<u64, u64>,
    timeout: Option<Duration>,
    /// Set when a wait timed out: the device may still run that work and write the heap, so
    /// nothing of this context can be trusted or reused any more.
    timed_out: std::sync::atomic::AtomicBool,
    /// Caps of one dispatch (workgroups per axis, in total); see `limit_dispatch_size`.
    dispatch_cap: (u32, u64),
    /// Whether synchronous launches are timed (`Context::time_launches`).
    time_launches: bool,
    /// Launches submitted and not yet synchronized, with their fault logs.
    inflight: std::sync::Mutex<Inflight>,
    /// Parameter buffers and bind groups by parameter-buffer size, reused by launches.
    param_slots: HashMap<u64, ParamSlot>,
    /// Per (program id, kernel index, backend): checked against the device, with its pipeline.
    kernels: HashMap<(u64, usize, Backend), Arc<LaunchInfo>>,
    /// The timestamp queries of launches and the buffer they resolve into, kept between
    /// launches (grown when a launch has more batches than they hold).
    launch_timer: Option<(wgpu::QuerySet, wgpu::Buffer)>,
    /// Local memory of kernels that keep it in device memory (see `scratch.rs`).
    scratch: scratch::Scratch,
    /// Launches so far: the next launch's `%gridid` (`abi::PARAM_GRID_ID_WORD`).
    launches: u64,
    /// Which translation the last launch of a kernel with native warp collectives ran.
    last_warp_path: Option<WarpPath>,
    /// Whether launches may run a kernel's launch-specialised variant (`launch_proof`).
    specialise_launches: bool,
    /// Launches of fewer threads run the checked kernel (`Context::set_launch_specialisation`).
    specialise_from_threads: u64,
    /// Whether the last launch ran one, and how many did.
    last_launch_specialised: bool,
    specialised_launches: u64,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("gpu", &self.gpu)
            .field("heap_bytes", &self.heap_bytes)
            .finish()
    }
}

/// One heap segment: a storage buffer of at most one binding and the allocations in it.
struct Segment {
    buffer: wgpu::Buffer,
    bytes: u64,
    alloc: Allocator,
    /// Bytes from here on were never allocated nor reachable by a kernel, so they are still
    /// zero as wgpu created them; a launch that binds the segment (and may write anywhere in
    /// it) resets it to the end. Lets a spec's thousands of allocations skip a clear each.
    untouched_from: u64,
}

/// What a launch needs of its kernel after the first launch in a context.
struct LaunchInfo {
    pipeline: wgpu::ComputePipeline,
    kernel: String,
    /// `program::fault_site_texts`.
    fault_sites: Vec<String>,
    /// The formats of the module's `printf` calls, if this kernel has any (only then does a
    /// launch read its printf buffer back).
    printf: Option<Arc<printf::Formats>>,
}

/// A parameter buffer of one size and the bind group over it, the heap segments and the
/// scratch buffer.
struct ParamSlot {
    buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    scratch: wgpu::Buffer,
    /// The heap segments bound: slot 0's, then (a kernel translated for several segment
    /// slots) slot j's.
    segments: Vec<usize>,
    /// What the last launch wrote into `buffer`.
    contents: Vec<u8>,
}

/// A launch submitted but not yet synchronized: its fault word is entry `i` of the fault logs
/// (`i` its position in `Inflight::pending`).
struct PendingLaunch {
    info: Arc<LaunchInfo>,
    /// The staging buffer its timestamps are copied to (timed launches).
    timing: Option<wgpu::Buffer>,
    /// The address of its module's printf buffer, for a kernel with `printf`.
    printf_region: Option<u64>,
}

/// Launches in flight (see [`Context::launch_async`]).
#[derive(Default)]
struct Inflight {
    pending: Vec<PendingLaunch>,
    /// MAP_READ buffers of `FAULT_LOG_ENTRIES` entries of 8 bytes (fault word, fault site word),
    /// kept for reuse: pending launch `i` writes entry `i % FAULT_LOG_ENTRIES` of log
    /// `i / FAULT_LOG_ENTRIES`.
    logs: Vec<wgpu::Buffer>,
    time_staging: Option<wgpu::Buffer>,
    /// GPU execution time of the last timed launch, from timestamps (devices with
    /// TIMESTAMP_QUERY).
    last_kernel_time: Option<std::time::Duration>,
    /// Device-side `printf` output of synchronized launches, not yet taken.
    printf: PrintfOutput,
}

/// Most (program, kernel, backend) entries a context keeps (then it starts afresh).
const MAX_CACHED_KERNELS: usize = 256;
/// Most parameter buffers (one per size) a context keeps (then it starts afresh).
const MAX_PARAM_SLOTS: usize = 32;

/// Fault log entries per log buffer (8 bytes each).
const FAULT_LOG_ENTRIES: usize = 512;

/// The bind group of a launch of a kernel translated for `slots.len()` ≥ 2 heap segments:
/// [`bind_group`]'s with `slots[0]` as the heap, and slot `j`'s segment at
/// `abi::segment_binding(j)` and `abi::segment_binding64(j)`.
fn segments_bind_group(gpu: &Gpu, slots: &[&wgpu::Buffer], params: &wgpu::Buffer, scratch: &wgpu::Buffer) -> wgpu::BindGroup {
    let (layout, _) = gpu.layouts(slots.len() as u32);
    let mut entries = vec![
        wgpu::BindGroupEntry { binding: abi::BINDING_HEAP, resource: slots[0].as_entire_binding() },
        wgpu::BindGroupEntry { binding: abi::BINDING_PARAMS, resource: params.as_entire_binding() },
        wgpu::BindGroupEntry { binding: abi::BINDING_SCRATCH, resource: scratch.as_entire_binding() },
        wgpu::BindGroupEntry { binding: abi::BINDING_HEAP64, resource: slots[0].as_entire_binding() },
    ];
    for (j, buf) in slots.iter().enumerate().skip(1) {
        for binding in [abi::segment_binding(j as u32), abi::segment_binding64(j as u32)] {
            entries.push(wgpu::BindGroupEntry { binding, resource: buf.as_entire_binding() });
        }
    }
    gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("ptxcross kernel resources, several heap segments"),
        layout: &layout,
        entries: &entries,
    })
}

/// The bind group of a launch (see `abi`'s bindings).
fn bind_group(gpu: &Gpu, heap: &wgpu::Buffer, params: &wgpu::Buffer, scratch: &wgpu::Buffer) -> wgpu::BindGroup {
    gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("ptxcross kernel resources"),
        layout: &gpu.bind_group_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: abi::BINDING_HEAP,
                resource: heap.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: abi::BINDING_PARAMS,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: abi::BINDING_SCRATCH,
                resource: scratch.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: abi::BINDING_HEAP64,
                resource: heap.as_entire_binding(),
            },
        ],
    })
}

/// Bytes at the start of every heap segment reserved for the runtime (fault word …).
pub const HEAP_RESERVED_BYTES: u64 = abi::HEAP_RESERVED_WORDS as u64 * 4;
/// Most heap segments of a context (virtual addresses up to `abi::HEAP_BASE + 256 *
/// abi::SEGMENT_WINDOW`; a launch binds one, so the count is not bounded by binding limits).
pub const MAX_SEGMENTS: usize = 256;
/// Alignment of every allocation (CUDA guarantees ≥ 256).
pub const ALLOC_ALIGN: u64 = 256;
/// Most workgroups in one dispatch: lavapipe computes a dispatch's total in 32 bits.
pub const MAX_DISPATCH_WORKGROUPS: u64 = 1 << 31;
/// Dispatches recorded per queue submission when a grid is split.
const DISPATCHES_PER_SUBMIT: usize = 4096;
/// CUDA's grid limits (x, y, z): larger grids are refused before anything runs.
pub const MAX_GRID: [u32; 3] = [(1 << 31) - 1, 65_535, 65_535];

impl Context {
    pub fn new(options: ContextOptions) -> Result<Context, Error> {
        Context::with_segment_bytes(options, u64::MAX)
    }

    /// Like [`Context::new`], with heap segments of at most `segment_bytes` (rounded down to a
    /// multiple of [`ALLOC_ALIGN`], at least 512, at most one storage binding): smaller
    /// segments let tests exercise several segments with little memory.
    pub fn with_segment_bytes(options: ContextOptions, segment_bytes: u64) -> Result<Context, Error> {
        let gpu = match options.gpu {
            Some(g) => g,
            None => Gpu::shared()?,
        };
        let heap_bytes = options
            .heap_bytes
            .max(HEAP_RESERVED_BYTES + ALLOC_ALIGN)
            .checked_next_multiple_of(ALLOC_ALIGN)
            .unwrap_or(u64::MAX);
        let segment_bytes = segment_bytes
            .min(gpu.max_segment_bytes())
            .max(HEAP_RESERVED_BYTES + ALLOC_ALIGN)
            & !(ALLOC_ALIGN - 1);
        let max = segment_bytes * MAX_SEGMENTS as u64;
        if heap_bytes > max {
            return Err(Error::HeapTooLarge {
                requested: heap_bytes,
                max,
            });
        }
        let first = create_segment(&gpu, 0, heap_bytes.min(segment_bytes))?;
        let scratch = scratch::Scratch::new(&gpu)?;
        Ok(Context {
            gpu,
            scratch,
            segments: vec![first],
            heap_bytes,
            segment_bytes,
            globals: HashMap::new(),
            timeout: options.timeout,
            timed_out: Default::default(),
            dispatch_cap: (u32::MAX, u64::MAX),
            time_launches: false,
            inflight: Default::default(),
            param_slots: HashMap::new(),
            kernels: HashMap::new(),
            launch_timer: None,
            launches: 0,
            last_warp_path: None,
            specialise_launches: std::env::var_os("PTXCROSS_NO_LAUNCH_SPECIALISATION").is_none(),
            specialise_from_threads: std::env::var("PTXCROSS_LAUNCH_SPECIALISATION_THREADS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(LAUNCH_SPECIALISATION_THREADS),
            last_launch_specialised: false,
            specialised_launches: 0,
        })
    }

    /// A context on the shared device with a heap of `heap_bytes`.
    pub fn with_heap(heap_bytes: u64) -> Result<Context, Error> {
        Context::new(ContextOptions {
            heap_bytes,
            ..ContextOptions::default()
        })
    }

    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }
    pub fn heap_bytes(&self) -> u64 {
        self.heap_bytes
    }
    /// Size of a full heap segment: the largest allocation is this less
    /// [`HEAP_RESERVED_BYTES`].
    pub fn segment_bytes(&self) -> u64 {
        self.segment_bytes
    }
    /// Heap segments created so far.
    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }
    /// Bytes not allocated (possibly fragmented), in the segments created so far and those
    /// still to come.
    pub fn free_bytes(&self) -> u64 {
        let created: u64 = self.segments.iter().map(|s| s.bytes).sum();
        let in_segments: u64 = self.segments.iter().map(|s| s.alloc.free_bytes()).sum();
        in_segments + self.uncreated_usable(created)
    }

    /// Usable bytes of the segments not created yet, when those created hold `created` bytes.
    fn uncreated_usable(&self, created: u64) -> u64 {
        let mut left = self.heap_bytes.saturating_sub(created);
        let mut usable = 0;
        let mut n = self.segments.len();
        while left >= HEAP_RESERVED_BYTES + ALLOC_ALIGN && n < MAX_SEGMENTS {
            let seg = left.min(self.segment_bytes);
            usable += seg - HEAP_RESERVED_BYTES;
            left -= seg;
            n += 1;
        }
        usable
    }

    /// Allocates `bytes` (≥ 1; 0 is treated as 1) of global memory, 256-byte aligned, zeroed:
    /// first fit in the segments in order, then in a new segment while the heap's capacity
    /// allows. One allocation lies in one segment, so it holds at most
    /// [`Context::segment_bytes`] less [`HEAP_RESERVED_BYTES`].
    pub fn alloc(&mut self, bytes: u64) -> Result<DevicePtr, Error> {
        let max = self.segment_bytes - HEAP_RESERVED_BYTES;
        if bytes > max && self.heap_bytes > self.segment_bytes {
            return Err(Error::AllocationTooLarge { requested: bytes, max });
        }
        let mut found = None;
        for (k, seg) in self.segments.iter_mut().enumerate() {
            if let Ok(offset) = seg.alloc.alloc(bytes) {
                found = Some((k, offset));
                break;
            }
        }
        let (k, offset) = match found {
            Some(f) => f,
            None => {
                let created: u64 = self.segments.iter().map(|s| s.bytes).sum();
                let left = self.heap_bytes.saturating_sub(created);
                let size = left.min(self.segment_bytes);
                let fits = size >= HEAP_RESERVED_BYTES + bytes.max(1).next_multiple_of(ALLOC_ALIGN);
                if !fits || self.segments.len() >= MAX_SEGMENTS {
                    return Err(Error::OutOfMemory { requested: bytes, free: self.free_bytes() });
                }
                let k = self.segments.len();
                let mut seg = create_segment(&self.gpu, k, size).map_err(|e| match e {
                    // The device has no memory for another segment.
                    Error::Gpu { .. } => Error::OutOfMemory { requested: bytes, free: 0 },
                    e => e,
                })?;
                let offset = seg.alloc.alloc(bytes)?;
                self.segments.push(seg);
                (k, offset)
            }
        };
        let seg = &mut self.segments[k];
        let size = seg.alloc.size_of(offset).unwrap_or(bytes).div_ceil(4) * 4;
        let untouched = offset >= seg.untouched_from;
        seg.untouched_from = seg.untouched_from.max(offset + size.max(4));
        let ptr = segment_address(k, offset);
        if untouched {
            // Still as wgpu created it (zeroed): no clear, no submission.
            return Ok(ptr);
        }
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&seg.buffer, offset, Some(size.max(4)));
        let (_, err) = self.gpu.scoped(|| self.gpu.queue.submit([enc.finish()]));
        if let Some(e) = err {
            let _ = self.segments[k].alloc.free(offset);
            return Err(Error::Gpu {
                during: "alloc",
                message: e.to_string(),
            });
        }
        Ok(ptr)
    }

    /// Frees an allocation made by [`Context::alloc`] (its start address).
    pub fn free(&mut self, ptr: DevicePtr) -> Result<(), Error> {
        let (k, offset) = self.heap_offset(ptr, 0)?;
        self.segments[k]
            .alloc
            .free(offset)
            .map_err(|reason| Error::InvalidPointer {
                ptr: ptr.0,
                len: 0,
                reason,
            })
    }

    /// The segment and its byte offset of `ptr` after checking `[ptr, ptr+len)` lies in one
    /// live allocation.
    fn heap_offset(&self, ptr: DevicePtr, len: u64) -> Result<(usize, u64), Error> {
        self.usable()?;
        let bad = |reason: &str| Error::InvalidPointer {
            ptr: ptr.0,
            len,
            reason: reason.to_string(),
        };
        let Some((k, offset)) = self.locate(ptr.0) else {
            return Err(bad("not a global-memory (heap) address"));
        };
        match self.segments[k].alloc.containing(offset) {
            Some((start, size))
                if offset
                    .checked_add(len)
                    .is_some_and(|end| end <= start + size) =>
            {
                Ok((k, offset))
            }
            Some((start, size)) => Err(Error::InvalidPointer {
                ptr: ptr.0,
                len,
                reason: format!(
                    "runs past the end of its allocation ({}, {size} bytes)",
                    segment_address(k, start)
                ),
            }),
            None => Err(bad("not inside a live allocation")),
        }
    }

    /// The segment (created) and byte offset in it of a global address.
    fn locate(&self, addr: u64) -> Option<(usize, u64)> {
        let rel = addr.checked_sub(abi::HEAP_BASE)?;
        let k = usize::try_from(rel / abi::SEGMENT_WINDOW).ok()?;
        (k < self.segments.len()).then_some((k, rel % abi::SEGMENT_WINDOW))
    }

    /// The segment of a live allocation that `addr` points into or just past the end of
    /// (a kernel's end pointer), if any.
    fn segment_of_allocation(&self, addr: u64) -> Option<usize> {
        let (k, offset) = self.locate(addr)?;
        let alloc = &self.segments[k].alloc;
        let inside = alloc.containing(offset).is_some()
            || offset.checked_sub(1).and_then(|o| alloc.containing(o)).is_some();
        inside.then_some(k)
    }

    /// Copies host bytes to global memory at `ptr` (any alignment).
    pub fn write(&mut self, ptr: DevicePtr, data: &[u8]) -> Result<(), Error> {
        let (k, offset) = self.heap_offset(ptr, data.len() as u64)?;
        self.write_heap(k, offset, data)
    }

    fn write_heap(&self, k: usize, offset: u64, data: &[u8]) -> Result<(), Error> {
        if data.is_empty() {
            return Ok(());
        }
        let start = offset & !3;
        let end = (offset + data.len() as u64).div_ceil(4) * 4;
        let owned;
        let words: &[u8] = if start == offset && end == offset + data.len() as u64 {
            data
        } else {
            // Read-modify-write the partial words at the edges (the allocation always covers
            // whole words, so this never touches another allocation's bytes).
            let mut buf = self.read_spans(&[(k, start, end - start)])?.pop().unwrap_or_default();
            let at = (offset - start) as usize;
            buf[at..at + data.len()].copy_from_slice(data);
            owned = buf;
            &owned
        };
        // Staged; wgpu applies it before the next submission's commands (a launch or a read).
        let buffer = &self.segments[k].buffer;
        let (_, err) = self.gpu.scoped(|| self.gpu.queue.write_buffer(buffer, start, words));
        match err {
            Some(e) => Err(Error::Gpu {
                during: "write",
                message: e.to_string(),
            }),
            None => Ok(()),
        }
    }

    /// Copies `len` bytes of global memory at `ptr` to the host.
    pub fn read(&self, ptr: DevicePtr, len: u64) -> Result<Vec<u8>, Error> {
        self.settle()?;
        let (k, offset) = self.heap_offset(ptr, len)?;
        Ok(self.read_spans(&[(k, offset, len)])?.pop().unwrap_or_default())
    }

    /// Copies several ranges of global memory (each inside one live allocation) to the host in
    /// one transfer: reading thousands of buffers back costs one round trip, not thousands.
    pub fn read_many(&self, ranges: &[(DevicePtr, u64)]) -> Result<Vec<Vec<u8>>, Error> {
        self.settle()?;
        let places: Vec<(usize, u64)> = ranges.iter().map(|&(p, len)| self.heap_offset(p, len)).collect::<Result<_, _>>()?;
        // One span per segment, from its lowest to its highest byte read.
        let mut spans: Vec<(usize, u64, u64)> = Vec::new();
        for (&(k, o), r) in places.iter().zip(ranges) {
            match spans.iter_mut().find(|s| s.0 == k) {
                Some(s) => {
                    let end = (s.1 + s.2).max(o + r.1);
                    s.1 = s.1.min(o);
                    s.2 = end - s.1;
                }
                None => spans.push((k, o, r.1)),
            }
        }
        let data = self.read_spans(&spans)?;
        Ok(places
            .iter()
            .zip(ranges)
            .map(|(&(k, o), r)| {
                let i = spans.iter().position(|s| s.0 == k).expect("a span per segment");
                data[i][(o - spans[i].1) as usize..][..r.1 as usize].to_vec()
            })
            .collect())
    }

    /// Like [`Context::read_many`], but copies each range's bytes straight from the mapped
    /// read-back memory into the caller's buffer (`ranges[i].1`, whose length is the range's):
    /// one host copy instead of several (the driver's managed memory downloads every managed
    /// allocation after each launch this way).
    pub fn read_many_into(&self, ranges: &mut [(DevicePtr, &mut [u8])]) -> Result<(), Error> {
        self.settle()?;
        let places: Vec<(usize, u64)> = ranges.iter().map(|(p, b)| self.heap_offset(*p, b.len() as u64)).collect::<Result<_, _>>()?;
        // One span per segment, from its lowest to its highest byte read (as read_many).
        let mut spans: Vec<(usize, u64, u64)> = Vec::new();
        for (&(k, o), r) in places.iter().zip(ranges.iter()) {
            let len = r.1.len() as u64;
            match spans.iter_mut().find(|s| s.0 == k) {
                Some(s) => {
                    let end = (s.1 + s.2).max(o + len);
                    s.1 = s.1.min(o);
                    s.2 = end - s.1;
                }
                None => spans.push((k, o, len)),
            }
        }
        self.read_spans_with(&spans, |i, bytes| {
            let (k, start, _) = spans[i];
            for (&(rk, o), r) in places.iter().zip(ranges.iter_mut()) {
                if rk == k {
                    let at = (o - start) as usize;
                    let n = r.1.len();
                    r.1.copy_from_slice(&bytes[at..at + n]);
                }
            }
        })
    }

    /// Reads `(segment, byte offset, length)` spans of the heap (one submission, one wait).
    fn read_spans(&self, spans: &[(usize, u64, u64)]) -> Result<Vec<Vec<u8>>, Error> {
        let mut out = vec![Vec::new(); spans.len()];
        self.read_spans_with(spans, |i, bytes| out[i] = bytes.to_vec())?;
        Ok(out)
    }

    /// Reads spans like [`Context::read_spans`], handing span `i`'s bytes to `f(i, bytes)`
    /// while its read-back buffer is mapped (empty spans are not handed over).
    fn read_spans_with(&self, spans: &[(usize, u64, u64)], mut f: impl FnMut(usize, &[u8])) -> Result<(), Error> {
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        let mut staged = Vec::new();
        for &(k, offset, len) in spans.iter().filter(|s| s.2 > 0) {
            let start = offset & !3;
            let end = (offset + len).div_ceil(4) * 4;
            let staging = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("ptxcross readback"),
                size: end - start,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            enc.copy_buffer_to_buffer(&self.segments[k].buffer, start, &staging, 0, end - start);
            staged.push((staging, end - start));
        }
        if staged.is_empty() {
            return Ok(());
        }
        let (_, err) = self.gpu.scoped(|| self.gpu.queue.submit([enc.finish()]));
        if let Some(e) = err {
            return Err(Error::Gpu {
                during: "read",
                message: e.to_string(),
            });
        }
        // The non-empty spans, in order: staged buffer j is span nonempty[j].
        let nonempty: Vec<usize> = (0..spans.len()).filter(|&i| spans[i].2 > 0).collect();
        self.map_read_with(&staged, "read", |j, bytes| {
            let (_, offset, len) = spans[nonempty[j]];
            let at = (offset - (offset & !3)) as usize;
            f(nonempty[j], &bytes[at..at + len as usize]);
        })
    }

    /// `Err` once a wait of this context has timed out (see `timed_out`).
    fn usable(&self) -> Result<(), Error> {
        if self.timed_out.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(Error::Timeout {
                during: "an earlier operation of this context, which is unusable since",
                seconds: self.timeout.map(|t| t.as_secs()).unwrap_or(0),
            });
        }
        Ok(())
    }

    /// Maps the first `len` bytes of each MAP_READ buffer after the queue finishes (one wait)
    /// and copies them out.
    fn map_read_many(&self, buffers: &[(wgpu::Buffer, u64)], during: &'static str) -> Result<Vec<Vec<u8>>, Error> {
        let mut out = Vec::with_capacity(buffers.len());
        self.map_read_with(buffers, during, |_, bytes| out.push(bytes.to_vec()))?;
        Ok(out)
    }

    /// Maps `buffers` for reading and hands buffer `i`'s first `len` bytes to `f(i, bytes)`, in
    /// order, while mapped; unmaps them all.
    fn map_read_with(&self, buffers: &[(wgpu::Buffer, u64)], during: &'static str, mut f: impl FnMut(usize, &[u8])) -> Result<(), Error> {
        let (tx, rx) = std::sync::mpsc::channel();
        for (i, (b, len)) in buffers.iter().enumerate() {
            let tx = tx.clone();
            b.slice(..*len).map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send((i, r));
            });
        }
        drop(tx);
        if let Err(e) = self.gpu.wait(during, self.timeout) {
            if matches!(e, Error::Timeout { .. }) {
                self.timed_out.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            return Err(e);
        }
        let mut failed = None;
        let mut mapped = vec![false; buffers.len()];
        for _ in buffers {
            match rx.recv() {
                Ok((i, Ok(()))) => mapped[i] = true,
                Ok((_, Err(e))) => failed = failed.or(Some(e.to_string())),
                Err(_) => failed = failed.or(Some("the map callback never ran".to_string())),
            }
        }
        for (i, ((b, len), mapped)) in buffers.iter().zip(mapped).enumerate() {
            if failed.is_none() {
                match b.slice(..*len).get_mapped_range() {
                    Ok(view) => f(i, &view),
                    Err(e) => failed = Some(e.to_string()),
                }
            }
            if mapped {
                b.unmap();
            }
        }
        match failed {
            Some(message) => Err(Error::Gpu { during, message }),
            None => Ok(()),
        }
    }

    /// The fault words of this context's heap segments, OR-ed (normally 0: launches clear
    /// them).
    pub fn fault_word(&self) -> Result<u32, Error> {
        let spans: Vec<(usize, u64, u64)> = (0..self.segments.len()).map(|k| (k, abi::FAULT_WORD as u64 * 4, 4)).collect();
        Ok(self
            .read_spans(&spans)?
            .iter()
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .fold(0, |a, w| a | w))
    }

    /// Base address of `program`'s globals segment in this context (0 if it has none);
    /// allocates and initializes it on first use.
    pub fn globals_base(&mut self, program: &Program) -> Result<u64, Error> {
        if let Some(&b) = self.globals.get(&program.id()) {
            return Ok(b);
        }
        let g = &program.module().globals;
        let size = g
            .vars
            .iter()
            .map(|v| v.offset + v.size)
            .max()
            .unwrap_or(0)
            .max(g.init.len() as u64);
        let base = if size == 0 {
            0
        } else {
            let ptr = self.alloc(size)?;
            self.write(ptr, &g.image(ptr.0))?;
            ptr.0
        };
        self.globals.insert(program.id(), base);
        Ok(base)
    }

    /// Drops what this context keeps of `program`'s kernels (their checks and pipelines), e.g.
    /// when it is unloaded (see also [`Gpu::forget_program`]).
    pub fn forget_program(&mut self, program_id: u64) {
        self.kernels.retain(|k, _| k.0 != program_id);
    }

    /// Makes `program` use the globals segment at `base` (allocated by the caller, laid out as
    /// `program.module().globals`) instead of one of its own: translations of one PTX module for
    /// several block shapes are several programs that must share the module's globals.
    pub fn set_globals_base(&mut self, program: &Program, base: u64) {
        self.globals.insert(program.id(), base);
    }

    /// Checks that `kernel` can run on this device with this grid (block size, shared memory,
    /// features, code present), without running it.
    pub fn check_launch(
        &self,
        program: &Program,
        kernel: &ir::Kernel,
        grid: [u32; 3],
        backend: Backend,
    ) -> Result<(), Error> {
        if !program.has_code(backend) {
            return Err(Error::MissingCode { backend });
        }
        self.check_kernel(program, kernel, backend)?;
        self.check_grid(kernel, grid)?;
        // Where the device flushes subnormals, a kernel whose results depend on them would be
        // silently wrong: refuse it (only the launched kernel runs, so only it is checked).
        self.gpu.check_subnormals(kernel, backend)
    }

    /// The grid's part of [`Context::check_launch`].
    fn check_grid(&self, kernel: &ir::Kernel, grid: [u32; 3]) -> Result<(), Error> {
        let exceeded = |what: String, value: u64, limit: u64, limit_name: &'static str| Error::LimitExceeded {
            kernel: kernel.name.clone(),
            what,
            value,
            limit,
            limit_name,
        };
        // A 32-bit kernel's addresses are byte offsets in its heap segment, below the 32-bit
        // windows.
        if kernel.features.pointers32 && self.segment_bytes > abi::HEAP_LIMIT_32 {
            return Err(exceeded(
                "the heap segments of a context running an `.address_size 32` kernel".into(),
                self.segment_bytes,
                abi::HEAP_LIMIT_32,
                "32-bit addresses reach 3.5 GiB of global memory",
            ));
        }
        for (i, &g) in grid.iter().enumerate() {
            let axis = ["x", "y", "z"][i];
            if g == 0 {
                return Err(exceeded(
                    format!("grid size in {axis}"),
                    0,
                    0,
                    "grid dimensions must be ≥ 1",
                ));
            }
            // Larger than one dispatch is fine: the launch splits it (see `dispatch_chunks`).
            if g > MAX_GRID[i] {
                return Err(exceeded(
                    format!("grid size in {axis}"),
                    g as u64,
                    MAX_GRID[i] as u64,
                    "CUDA's grid limit (x < 2^31, y and z ≤ 65535)",
                ));
            }
        }
        Ok(())
    }

    /// The part of [`Context::check_launch`] that depends only on the kernel and the device
    /// (block size, shared memory, local memory, features, driver workarounds; not the
    /// subnormal verdict), checked
    /// once per kernel and backend by launches.
    fn check_kernel(&self, program: &Program, kernel: &ir::Kernel, backend: Backend) -> Result<(), Error> {
        let lim = self.gpu.limits();
        let name = &kernel.name;
        let exceeded =
            |what: String, value: u64, limit: u64, limit_name: &'static str| Error::LimitExceeded {
                kernel: name.clone(),
                what,
                value,
                limit,
                limit_name,
            };
        let [bx, by, bz] = kernel.workgroup_size;
        let threads = bx as u64 * by as u64 * bz as u64;
        let dims = [
            (
                bx,
                lim.max_compute_workgroup_size_x,
                "max_compute_workgroup_size_x",
                'x',
            ),
            (
                by,
                lim.max_compute_workgroup_size_y,
                "max_compute_workgroup_size_y",
                'y',
            ),
            (
                bz,
                lim.max_compute_workgroup_size_z,
                "max_compute_workgroup_size_z",
                'z',
            ),
        ];
        for (v, l, ln, axis) in dims {
            if v > l {
                return Err(exceeded(
                    format!("block size in {axis}"),
                    v as u64,
                    l as u64,
                    ln,
                ));
            }
        }
        if threads == 0 {
            return Err(exceeded(
                "the block's thread count".into(),
                0,
                0,
                "block must be non-empty",
            ));
        }
        if threads > lim.max_compute_invocations_per_workgroup as u64 {
            return Err(exceeded(
                format!("the block's thread count ({bx}x{by}x{bz})"),
                threads,
                lim.max_compute_invocations_per_workgroup as u64,
                "max_compute_invocations_per_workgroup",
            ));
        }
        scratch::blocks_per_dispatch(&self.gpu, kernel)?;
        let shared = kernel.shared_words as u64 * 4;
        if shared > lim.max_compute_workgroup_storage_size as u64 {
            return Err(exceeded(
                // The kernel's own words plus those `lower` adds (warp-collective emulation
                // scratch, barrier counters): a user comparing it with the PTX's declarations
                // must know the difference is ours.
                "shared memory per block (static + dynamic, plus what ptxcross adds for warp collectives and barriers; bytes)".into(),
                shared,
                lim.max_compute_workgroup_storage_size as u64,
                "max_compute_workgroup_storage_size",
            ));
        }
        let features = self.gpu.features();
        let need_at = |kernel: &str,
                       cond: bool,
                       what: &str,
                       f: wgpu::Features,
                       fname: &'static str,
                       site: Option<String>| {
            if cond && !features.contains(f) {
                Err(Error::MissingFeature { kernel: kernel.to_string(), what: what.into(), feature: fname, site })
            } else {
                Ok(())
            }
        };
        let need = |kernel: &str, cond: bool, what: &str, f: wgpu::Features, fname: &'static str| {
            need_at(kernel, cond, what, f, fname, None)
        };
        need(
            name,
            backend == Backend::Spirv,
            "SPIR-V passthrough (the spirv backend)",
            wgpu::Features::PASSTHROUGH_SHADERS,
            "PASSTHROUGH_SHADERS",
        )?;
        // The shader module holds every kernel of the program, so the device must accept what
        // any of them needs; the launched kernel is checked first so the message names it.
        let others = program
            .module()
            .kernels
            .iter()
            .filter(|o| o.name != kernel.name);
        // A kernel's native warp translation shares its name (and module) with its emulated twin.
        let native_warps = program.module().kernels.iter().find(|o| o.features.native_warps);
        if let Some(k) = native_warps {
            need(
                &k.name,
                true,
                "subgroup operations (it was translated with native warp collectives)",
                wgpu::Features::SUBGROUP,
                "SUBGROUP",
            )?;
        }
        for k in std::iter::once(kernel).chain(others) {
            let (int64, float64) = match backend {
                Backend::Spirv => (k.features.int64, k.features.float64),
                Backend::Wgsl => {
                    // The WGSL backend also spells f64 bit operations with u64.
                    let r = ptxcross_wgsl::requirements(k);
                    (r.int64 || k.features.int64, r.float64 || k.features.float64)
                }
            };
            need(
                &k.name,
                k.features.heap_atomics64 || k.features.shared_atomics64,
                "64-bit atomics whose old value is used (or f64 atomic add)",
                wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS,
                "SHADER_INT64_ATOMIC_ALL_OPS",
            )?;
            need(
                &k.name,
                int64,
                "64-bit integers",
                wgpu::Features::SHADER_INT64,
                "SHADER_INT64",
            )?;
            need_at(
                &k.name,
                float64,
                "64-bit floats",
                wgpu::Features::SHADER_F64,
                "SHADER_F64",
                program::float64_site_text(program, k),
            )?;
        }
        // A driver workaround the kernel was lowered without (hand-built `LowerOptions`).
        self.gpu.check_workarounds(kernel, backend)
    }

    /// Places one argument per parameter (each exactly the parameter's size) at the parameters'
    /// offsets; returns the parameter area (`kernel.param_bytes` bytes).
    pub fn pack_args(kernel: &ir::Kernel, args: &[&[u8]]) -> Result<Vec<u8>, Error> {
        let bad = |message: String| Error::BadArguments {
            kernel: kernel.name.clone(),
            message,
        };
        if args.len() != kernel.params.len() {
            return Err(bad(format!(
                "{} argument(s) given, the kernel has {} parameter(s){}",
                args.len(),
                kernel.params.len(),
                describe_params(kernel)
            )));
        }
        let mut area = vec![0u8; kernel.param_bytes as usize];
        for (i, (slot, arg)) in kernel.params.iter().zip(args).enumerate() {
            if arg.len() as u64 != slot.size as u64 {
                return Err(bad(format!(
                    "argument {i} has {} byte(s), parameter `{}` has {} byte(s)",
                    arg.len(),
                    slot.name,
                    slot.size
                )));
            }
            let at = slot.offset as usize;
            let Some(dst) = area.get_mut(at..at + arg.len()) else {
                return Err(bad(format!(
                    "parameter `{}` lies outside the parameter area",
                    slot.name
                )));
            };
            dst.copy_from_slice(arg);
        }
        Ok(area)
    }

    /// Runs `kernel` of `program` on a `grid` of blocks (the block shape is the one the kernel
    /// was translated for) with one byte string per parameter; waits for it to finish.
    ///
    /// A fault of this launch is returned as [`Error::KernelFault`] naming the kernel and the
    /// faulting instruction. Launches made with [`Context::launch_async`] before it are
    /// synchronized too, and the first of them that faulted is the one reported.
    pub fn launch(
        &mut self,
        program: &Program,
        kernel: &str,
        grid: [u32; 3],
        args: &[&[u8]],
        backend: Backend,
    ) -> Result<(), Error> {
        let k = find_kernel(program, kernel)?;
        let area = Context::pack_args(k, args)?;
        self.launch_packed(program, kernel, grid, &area, backend)
    }

    /// Like [`Context::launch`], with the parameter area already laid out
    /// (`kernel.param_bytes` bytes; shorter is zero-padded).
    pub fn launch_packed(
        &mut self,
        program: &Program,
        kernel: &str,
        grid: [u32; 3],
        params: &[u8],
        backend: Backend,
    ) -> Result<(), Error> {
        self.set_last_kernel_time(None);
        self.submit_launch(program, kernel, grid, params, backend, true)?;
        self.synchronize()
    }

    /// Submits a launch like [`Context::launch`] and returns without waiting for it. Errors
    /// found before the kernel runs (unknown kernel, bad arguments, limits, pipeline creation)
    /// are returned here; a fault of the kernel is reported by the next call that synchronizes
    /// ([`Context::synchronize`], [`Context::launch`], [`Context::read`], [`Context::read_many`]),
    /// as [`Error::KernelFault`] naming the first launch that faulted
    /// since the last synchronization and its instruction (CUDA reports its asynchronous
    /// faults on the next call, too). Launches run in order; each one's fault word is copied
    /// into a log on the device, so synchronizing reads every pending launch's fault word back
    /// in one transfer. No GPU time is measured ([`Context::last_kernel_time`] is `None`
    /// after a synchronization of only asynchronous launches).
    pub fn launch_async(
        &mut self,
        program: &Program,
        kernel: &str,
        grid: [u32; 3],
        args: &[&[u8]],
        backend: Backend,
    ) -> Result<(), Error> {
        let k = find_kernel(program, kernel)?;
        let area = Context::pack_args(k, args)?;
        self.submit_launch(program, kernel, grid, &area, backend, false)
    }

    /// Like [`Context::launch_async`], with the parameter area already laid out.
    pub fn launch_packed_async(
        &mut self,
        program: &Program,
        kernel: &str,
        grid: [u32; 3],
        params: &[u8],
        backend: Backend,
    ) -> Result<(), Error> {
        self.submit_launch(program, kernel, grid, params, backend, false)
    }

    /// Waits for every launch submitted so far and reports the first fault among those not yet
    /// synchronized (see [`Context::launch_async`]); the fault word is cleared after a fault.
    pub fn synchronize(&mut self) -> Result<(), Error> {
        self.settle()
    }

    /// The per-kernel facts of launches of `k` (key: program id, kernel index, backend), kept
    /// after its first launch in this context (`check_kernel` passed).
    fn launch_info(
        &mut self,
        program: &Program,
        k: &ir::Kernel,
        key: (u64, usize, Backend),
        backend: Backend,
    ) -> Result<Arc<LaunchInfo>, Error> {
        let pipeline = self.pipeline(program, k, backend)?;
        let info = Arc::new(LaunchInfo {
            pipeline,
            kernel: k.name.clone(),
            fault_sites: program::fault_site_texts(program, k),
            printf: if k.printf.is_empty() { None } else { printf::Formats::of(program.module()) },
        });
        // Bounded: a long-lived context that runs many short-lived programs (the differential
        // tester, the driver library) must not keep every pipeline alive.
        if self.kernels.len() >= MAX_CACHED_KERNELS {
            self.kernels.clear();
        }
        self.kernels.insert(key, info.clone());
        Ok(info)
    }

    /// Checks, builds and submits one launch; with `timed`, with timestamps around its passes
    /// (the caller synchronizes right after).
    fn submit_launch(
        &mut self,
        program: &Program,
        kernel: &str,
        grid: [u32; 3],
        params: &[u8],
        backend: Backend,
        timed: bool,
    ) -> Result<(), Error> {
        let k = find_kernel(program, kernel)?;
        let index = program.module().kernels.iter().position(|x| std::ptr::eq(x, k)).unwrap_or(0);
        if !k.features.native_warps {
            self.last_warp_path = None;
            return self.submit_kernel(program, index, grid, params, backend, timed, false);
        }
        // A kernel with native warp collectives; its emulated twin follows it.
        let twin = index + 1;
        if !program.module().kernels.get(twin).is_some_and(|t| t.features.warp_fallback && t.name == k.name) {
            return Err(Error::Gpu {
                during: "launch",
                message: format!("kernel {} has native warp collectives but no emulated translation beside it", k.name),
            });
        }
        let key = (program.id(), backend, k.entry_point.clone());
        let verdict = if self.gpu.features().contains(wgpu::Features::SUBGROUP) {
            self.gpu.warp_layouts.lock().unwrap_or_else(|p| p.into_inner()).get(&key).copied()
        } else {
            Some(false)
        };
        let record = |gpu: &Gpu, ok: bool| {
            gpu.warp_layouts.lock().unwrap_or_else(|p| p.into_inner()).insert(key.clone(), ok);
        };
        match verdict {
            Some(true) => {
                self.last_warp_path = Some(WarpPath::Native);
                self.submit_kernel(program, index, grid, params, backend, timed, false)
            }
            Some(false) => {
                self.last_warp_path = Some(WarpPath::Emulated);
                self.submit_kernel(program, twin, grid, params, backend, timed, false)
            }
            None => {
                // First launch of this pipeline: a check-only launch of it over the same grid
                // (`abi::PARAM_WARP_CHECK_ONLY_WORD`), alone, then its fault word. Every
                // invocation runs the layout check (`ptxcross_lower` `warp_layout`) and
                // returns, recording `FAULT_WARP_LAYOUT` where its CTA's subgroups do not hold
                // whole warps. Nothing of the kernel has run yet, so whatever the verdicts of
                // the workgroups (even if only some failed), this launch then runs once, on
                // the translation chosen: the emulated twin if any workgroup failed (and every
                // later launch too), else the native one. (Launches still pending before it
                // are synchronized first, so a fault of theirs is reported here.)
                self.settle()?;
                self.submit_kernel(program, index, grid, params, backend, false, true)?;
                let native = match self.settle() {
                    Err(Error::KernelFault { bits, .. }) if bits & abi::FAULT_WARP_LAYOUT != 0 => false,
                    Ok(()) => true,
                    Err(e) => return Err(e),
                };
                record(&self.gpu, native);
                if native {
                    self.last_warp_path = Some(WarpPath::Native);
                    self.submit_kernel(program, index, grid, params, backend, timed, false)
                } else {
                    self.last_warp_path = Some(WarpPath::Emulated);
                    self.submit_kernel(program, twin, grid, params, backend, timed, false)
                }
            }
        }
    }

    /// Which translation the last launch of a kernel with warp collectives ran, when it was
    /// translated with native ones too (`LowerOptions::native_warps`); `None` after a launch of
    /// any other kernel.
    pub fn last_warp_path(&self) -> Option<WarpPath> {
        self.last_warp_path
    }

    /// Whether launches may run a kernel's launch-specialised variant (issue 11, on by
    /// default; the environment variable `PTXCROSS_NO_LAUNCH_SPECIALISATION` turns the
    /// default off): a translation without the heap fault recording that the launch's values
    /// prove unnecessary (`ptxcross_lower::launch_proof`). The host evaluates the kernel's
    /// launch precondition on each launch's parameters, grid and heap, exactly, and runs the
    /// variant only when it holds; results are the same bits either way.
    ///
    /// Only launches of at least [`LAUNCH_SPECIALISATION_THREADS`] threads (by default) run it:
    /// building the variant and its pipeline costs about as much as the kernel's first
    /// translation and pipeline (tens to hundreds of ms on lavapipe), which a small launch
    /// never earns back (the variant saves a fraction of the kernel's time), and which would
    /// make test suites of many small kernels a third slower. See
    /// [`Context::set_launch_specialisation_threshold`].
    pub fn set_launch_specialisation(&mut self, on: bool) {
        self.specialise_launches = on;
    }

    /// The fewest threads (grid × block) a launch needs to run a launch-specialised variant
    /// (default [`LAUNCH_SPECIALISATION_THREADS`], or the environment variable
    /// `PTXCROSS_LAUNCH_SPECIALISATION_THREADS` when set: `=0` makes whole test suites run
    /// the variants; 0: every launch whose precondition holds).
    pub fn set_launch_specialisation_threshold(&mut self, threads: u64) {
        self.specialise_from_threads = threads;
    }

    /// Whether the last launch ran a launch-specialised variant (see
    /// [`Context::set_launch_specialisation`]).
    pub fn last_launch_specialised(&self) -> bool {
        self.last_launch_specialised
    }

    /// How many launches of this context ran a launch-specialised variant.
    pub fn specialised_launches(&self) -> u64 {
        self.specialised_launches
    }

    /// [`Context::submit_launch`] of kernel `index` of the program's module; with
    /// `check_only`, a check-only launch of a kernel with native warp collectives (only its
    /// subgroup layout check runs; `abi::PARAM_WARP_CHECK_ONLY_WORD`), which is not counted
    /// as a launch (`%gridid`).
    #[allow(clippy::too_many_arguments)]
    fn submit_kernel(
        &mut self,
        program: &Program,
        index: usize,
        grid: [u32; 3],
        params: &[u8],
        backend: Backend,
        timed: bool,
        check_only: bool,
    ) -> Result<(), Error> {
        let k = &program.module().kernels[index];
        self.usable()?;
        if !program.has_code(backend) {
            return Err(Error::MissingCode { backend });
        }
        let key = (program.id(), index, backend);
        let cached = self.kernels.get(&key).cloned();
        if cached.is_none() {
            self.check_kernel(program, k, backend)?;
        }
        self.check_grid(k, grid)?;
        // The device's subnormal verdict may change (`Gpu::assume_subnormals`): not cached.
        self.gpu.check_subnormals(k, backend)?;
        if params.len() > k.param_bytes as usize {
            return Err(Error::BadArguments {
                kernel: k.name.clone(),
                message: format!(
                    "{} parameter bytes given, the kernel takes {}",
                    params.len(),
                    k.param_bytes
                ),
            });
        }
        let globals = self.globals_base(program)?;
        let bound = self.launch_segments(k, params, globals);
        let slots = k.features.segment_slots.max(1) as usize;
        if bound.len() > slots {
            // Pointers into several segments: the kernel's translation for that many
            // (issue 11), built at the first such launch, when the device binds them all.
            let limit = if program.has_segment_variants() { self.gpu.max_segment_slots() } else { 1 };
            let several = || Error::SeveralSegments { kernel: k.name.clone(), segments: bound.clone(), limit };
            if k.features.pointers32 {
                return Err(Error::SeveralSegments { kernel: k.name.clone(), segments: bound, limit: 0 });
            }
            if k.features.segment_slots != 0 || bound.len() > limit as usize {
                return Err(several());
            }
            let variant = match program.segment_variant(bound.len() as u32, &k.name) {
                None => return Err(several()),
                Some(Err(message)) => return Err(Error::Pipeline { kernel: k.name.clone(), backend, message }),
                Some(Ok(v)) => v,
            };
            // The same translation (native warps or their emulated twin) of the same kernel.
            let twin = |v: &ir::Kernel| {
                v.name == k.name
                    && v.features.native_warps == k.features.native_warps
                    && v.features.warp_fallback == k.features.warp_fallback
                    && v.features.segment_slots == bound.len() as u32
            };
            let Some(vi) = variant.module().kernels.iter().position(twin) else {
                return Err(Error::Pipeline {
                    kernel: k.name.clone(),
                    backend,
                    message: "the several-segment translation does not hold this kernel".into(),
                });
            };
            // The variant is the same module's code: it shares the program's globals (their
            // layout is the module's, whichever kernels are translated).
            if variant.module().globals != program.module().globals {
                return Err(Error::Pipeline {
                    kernel: k.name.clone(),
                    backend,
                    message: "the several-segment translation lays out the module's globals differently".into(),
                });
            }
            self.globals.insert(variant.id(), globals);
            return self.submit_kernel(&variant, vi, grid, params, backend, timed, check_only);
        }
        // A kernel for `slots` segments binds exactly that many (only launches with that many
        // reach it, above); `bound[j]` is slot `j`'s segment.
        if slots >= 2 && bound.len() != slots {
            return Err(Error::SeveralSegments { kernel: k.name.clone(), segments: bound, limit: slots as u32 });
        }
        let segment = bound[0];
        // From here the kernel may write anywhere in the segments it binds.
        for &s in &bound {
            self.segments[s].untouched_from = self.segments[s].bytes;
        }

        // Parameter buffer: header + area, whole words (and the segment numbers of slots 1..,
        // which the kernel reads without a bounds check: `ir::Kernel::param_word_in_range`).
        let header = abi::PARAM_HEADER_WORDS as usize * 4;
        let mut bytes = vec![0u8; (header + k.param_bytes as usize).div_ceil(4) * 4 + 4 * (slots - 1)];
        for (j, &s) in bound.iter().enumerate().skip(1) {
            let at = abi::segment_slot_word(j as u32, k.param_bytes) as usize * 4;
            bytes[at..at + 4].copy_from_slice(&(s as u32).to_le_bytes());
        }
        let g = abi::PARAM_GLOBALS_BASE_WORD as usize * 4;
        bytes[g..g + 8].copy_from_slice(&globals.to_le_bytes());
        let one = abi::PARAM_ONE_F32_WORD as usize * 4;
        bytes[one..one + 4].copy_from_slice(&abi::ONE_F32_BITS.to_le_bytes());
        let seg_at = abi::PARAM_HEAP_SEGMENT_WORD as usize * 4;
        bytes[seg_at..seg_at + 4].copy_from_slice(&(segment as u32).to_le_bytes());
        bytes[header..header + params.len()].copy_from_slice(params);

        // A launch that satisfies the kernel's launch precondition runs its variant without
        // the heap fault recording (issue 11, `ptxcross_lower::launch_proof`): evaluated here
        // on the words the kernel reads (the `%gridid` and `%ctaid` base words, written below,
        // are never part of it), the grid and the bound heap's length.
        let threads = grid.iter().chain(&k.workgroup_size).map(|&d| d as u64).product::<u64>();
        if !check_only
            && slots == 1
            && self.specialise_launches
            && threads >= self.specialise_from_threads
            && !k.features.launch_specialised
        {
            if let Some(v) = program.launch_variant(index) {
                let heap_words = self.segments[segment].buffer.size() / 4;
                if v.holds(&bytes, grid, heap_words) {
                    self.globals.insert(v.program.id(), globals);
                    self.submit_kernel(&v.program, 0, grid, params, backend, timed, check_only)?;
                    self.last_launch_specialised = true;
                    self.specialised_launches += 1;
                    return Ok(());
                }
            }
        }
        if !check_only {
            self.last_launch_specialised = k.features.launch_specialised;
        }
        // The pipeline, made here (after the choice above) so that a launch that runs the
        // variant does not create the checked kernel's pipeline too.
        let info = match cached {
            Some(info) => info,
            None => self.launch_info(program, k, key, backend)?,
        };

        // %gridid: this launch's number in the context (§10.10), from 1.
        if check_only {
            let at = abi::PARAM_WARP_CHECK_ONLY_WORD as usize * 4;
            bytes[at..at + 4].copy_from_slice(&1u32.to_le_bytes());
        } else {
            self.launches += 1;
        }
        let id_at = abi::PARAM_GRID_ID_WORD as usize * 4;
        bytes[id_at..id_at + 8].copy_from_slice(&self.launches.to_le_bytes());
        let grid_at = abi::PARAM_GRID_SIZE_WORD as usize * 4;
        for (i, g) in grid.iter().enumerate() {
            bytes[grid_at + 4 * i..][..4].copy_from_slice(&g.to_le_bytes());
        }
        // Kernels with local memory in the scratch buffer: as many blocks per dispatch as
        // their slices fit (see `scratch.rs`).
        let scratch_blocks = scratch::blocks_per_dispatch(&self.gpu, k)?.unwrap_or(u64::MAX);
        let chunks = self.dispatch_chunks(grid, scratch_blocks);
        let largest = chunks.iter().map(|(_, s)| s.iter().map(|&d| d as u64).product::<u64>()).max().unwrap_or(0);
        let scratch_buf = self.scratch.at_least(&self.gpu, largest * scratch::bytes_per_block(k))?.clone();

        let gpu = self.gpu.clone();
        let base_at = abi::PARAM_CTA_BASE_WORD as usize * 4;
        let last_batch = chunks.len().div_ceil(DISPATCHES_PER_SUBMIT);
        // Timestamps at the start and end of each batch's compute pass.
        let timing = if timed && self.time_launches { self.launch_timer(2 * last_batch as u32) } else { None };
        // Where this launch's fault word goes in the fault log; the staging buffer of the
        // timestamps (read back by `settle`).
        let (log, slot) = self.fault_log_slot();
        let time_staging = timing.as_ref().map(|(_, _, count)| self.time_staging(*count));
        // A grid of one dispatch (the usual case) reuses the context's parameter buffer and
        // bind group of its size (over the segments it binds, one or several): the parameters
        // are written with `queue.write_buffer`, which the queue orders after every earlier
        // submission and before the next, so launches in flight keep theirs. A split grid has a
        // parameter buffer per dispatch (their `%ctaid` bases differ) within one submission.
        let reused = if chunks.len() == 1 {
            for (i, v) in chunks[0].0.iter().enumerate() {
                bytes[base_at + 4 * i..][..4].copy_from_slice(&v.to_le_bytes());
            }
            Some(self.param_slot(&bytes, &scratch_buf, &bound))
        } else {
            None
        };
        let ((), err) = gpu.scoped(|| {
            for (b, batch) in chunks.chunks(DISPATCHES_PER_SUBMIT).enumerate() {
                let bind_groups: Vec<wgpu::BindGroup> = match &reused {
                    Some(bg) => vec![bg.clone()],
                    None => batch
                        .iter()
                        .map(|(base, _)| {
                            for (i, v) in base.iter().enumerate() {
                                bytes[base_at + 4 * i..][..4].copy_from_slice(&v.to_le_bytes());
                            }
                            let param_buf = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                                label: Some("ptxcross params"),
                                size: bytes.len() as u64,
                                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                                mapped_at_creation: false,
                            });
                            gpu.queue.write_buffer(&param_buf, 0, &bytes);
                            if slots >= 2 {
                                let bufs: Vec<&wgpu::Buffer> = bound.iter().map(|&s| &self.segments[s].buffer).collect();
                                segments_bind_group(&gpu, &bufs, &param_buf, &scratch_buf)
                            } else {
                                bind_group(&gpu, &self.segments[segment].buffer, &param_buf, &scratch_buf)
                            }
                        })
                        .collect(),
                };
                let mut enc = gpu
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("ptxcross launch"),
                    });
                {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(&k.name),
                        timestamp_writes: timing.as_ref().map(|(set, _, _)| wgpu::ComputePassTimestampWrites {
                            query_set: set,
                            beginning_of_pass_write_index: Some(2 * b as u32),
                            end_of_pass_write_index: Some(2 * b as u32 + 1),
                        }),
                    });
                    pass.set_pipeline(&info.pipeline);
                    for ((_, size), bind_group) in batch.iter().zip(&bind_groups) {
                        pass.set_bind_group(abi::BIND_GROUP, bind_group, &[]);
                        pass.dispatch_workgroups(size[0], size[1], size[2]);
                    }
                }
                if b + 1 == last_batch {
                    // The fault word and the fault site word (adjacent; see `abi`), into this
                    // launch's entry of the fault log.
                    enc.copy_buffer_to_buffer(&self.segments[segment].buffer, abi::FAULT_WORD as u64 * 4, &log, slot * 8, 8);
                    if let (Some((set, resolved, count)), Some(staging)) = (&timing, &time_staging) {
                        enc.resolve_query_set(set, 0..*count, resolved, 0);
                        enc.copy_buffer_to_buffer(resolved, 0, staging, 0, 8 * *count as u64);
                    }
                }
                gpu.queue.submit([enc.finish()]);
            }
        });
        if let Some(e) = err {
            // Nothing of it is known to have run: the log entry stays unused.
            return Err(Error::Gpu {
                during: "launch",
                message: e.to_string(),
            });
        }
        let mut inflight = self.inflight.lock().unwrap_or_else(|p| p.into_inner());
        let printf_region = info.printf.as_ref().and(program.module().globals.printf_region).map(|r| globals + r);
        inflight.pending.push(PendingLaunch { info, timing: time_staging, printf_region });
        Ok(())
    }

    /// The fault log buffer and entry of the next launch (a new log of `FAULT_LOG_ENTRIES`
    /// entries when the current ones are full).
    fn fault_log_slot(&mut self) -> (wgpu::Buffer, u64) {
        let mut inflight = self.inflight.lock().unwrap_or_else(|p| p.into_inner());
        let n = inflight.pending.len();
        let (log, entry) = (n / FAULT_LOG_ENTRIES, n % FAULT_LOG_ENTRIES);
        while inflight.logs.len() <= log {
            let buf = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("ptxcross fault log"),
                size: 8 * FAULT_LOG_ENTRIES as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            inflight.logs.push(buf);
        }
        (inflight.logs[log].clone(), entry as u64)
    }

    /// A MAP_READ buffer of `count` timestamps (the context's, grown if needed).
    fn time_staging(&mut self, count: u32) -> wgpu::Buffer {
        let mut inflight = self.inflight.lock().unwrap_or_else(|p| p.into_inner());
        if inflight.time_staging.as_ref().is_none_or(|b| b.size() < 8 * count as u64) {
            inflight.time_staging = Some(self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("ptxcross launch time"),
                size: 8 * count as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        inflight.time_staging.clone().expect("just set")
    }

    /// The bind group of a one-dispatch launch with parameter buffer `bytes`: the context's
    /// buffer of that size (bound whole, so a kernel's parameter accesses are checked against
    /// exactly its own parameter area, as before), written only when its contents change.
    fn param_slot(&mut self, bytes: &[u8], scratch: &wgpu::Buffer, bound: &[usize]) -> wgpu::BindGroup {
        let gpu = &self.gpu;
        let segments = &self.segments;
        // One segment: `bind_group`; several (a kernel translated for that many slots):
        // `segments_bind_group` with slot j's segment `bound[j]`.
        let make = |params: &wgpu::Buffer| {
            if bound.len() >= 2 {
                let bufs: Vec<&wgpu::Buffer> = bound.iter().map(|&s| &segments[s].buffer).collect();
                segments_bind_group(gpu, &bufs, params, scratch)
            } else {
                bind_group(gpu, &segments[bound[0]].buffer, params, scratch)
            }
        };
        if self.param_slots.len() >= MAX_PARAM_SLOTS && !self.param_slots.contains_key(&(bytes.len() as u64)) {
            self.param_slots.clear();
        }
        let slot = self.param_slots.entry(bytes.len() as u64).or_insert_with(|| {
            let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("ptxcross params"),
                size: bytes.len() as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            ParamSlot {
                bind_group: make(&buffer),
                buffer,
                scratch: scratch.clone(),
                segments: bound.to_vec(),
                contents: Vec::new(),
            }
        });
        if slot.scratch != *scratch || slot.segments != bound {
            slot.bind_group = make(&slot.buffer);
            slot.scratch = scratch.clone();
            slot.segments.clear();
            slot.segments.extend_from_slice(bound);
        }
        if slot.contents != bytes {
            gpu.queue.write_buffer(&slot.buffer, 0, bytes);
            slot.contents.clear();
            slot.contents.extend_from_slice(bytes);
        }
        slot.bind_group.clone()
    }

    /// Waits for the pending launches and reads their fault log entries back (one transfer);
    /// `Err` for the first that faulted (the fault word is cleared then).
    fn settle(&self) -> Result<(), Error> {
        let mut inflight = self.inflight.lock().unwrap_or_else(|p| p.into_inner());
        if inflight.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut inflight.pending);
        let n = pending.len();
        let mut buffers: Vec<(wgpu::Buffer, u64)> = inflight
            .logs
            .iter()
            .take(n.div_ceil(FAULT_LOG_ENTRIES))
            .enumerate()
            .map(|(i, b)| (b.clone(), 8 * (n - i * FAULT_LOG_ENTRIES).min(FAULT_LOG_ENTRIES) as u64))
            .collect();
        let timed = pending.last().and_then(|p| p.timing.clone());
        if let Some(t) = &timed {
            buffers.push((t.clone(), t.size()));
        }
        drop(inflight);
        let mut data = self.map_read_many(&buffers, "the kernel launch")?;
        let times = timed.map(|_| data.pop().unwrap_or_default());
        let log: Vec<u8> = data.concat();
        let entry = |i: usize| {
            let w = |at: usize| u32::from_le_bytes(log[at..at + 4].try_into().expect("4 bytes"));
            (w(8 * i), w(8 * i + 4))
        };
        // Sum of the passes' durations (the time between batches is the host's, not the GPU's).
        let gpu = &self.gpu;
        self.set_last_kernel_time(times.map(|t| {
            let ticks: u64 = t
                .chunks_exact(16)
                .map(|t| {
                    let begin = u64::from_le_bytes(t[..8].try_into().unwrap());
                    let end = u64::from_le_bytes(t[8..].try_into().unwrap());
                    end.saturating_sub(begin)
                })
                .sum();
            std::time::Duration::from_nanos((ticks as f64 * gpu.queue.get_timestamp_period() as f64) as u64)
        }));
        self.drain_printf(&pending)?;
        // The fault word accumulates (it is cleared only here), so the first launch whose entry
        // is non-zero is the one that faulted first.
        // (Launches binding different segments record into their segment's fault word; a
        // launch's entry is non-zero if it or an earlier launch on its segment faulted, and
        // that earlier one's entry is non-zero too.)
        if (0..n).map(entry).any(|(bits, site)| bits != 0 || site != 0) {
            for k in 0..self.segments.len() {
                self.write_heap(k, abi::FAULT_WORD as u64 * 4, &[0u8; 8])?;
            }
        }
        if let Some((p, (bits, site))) = pending.iter().zip((0..n).map(entry)).find(|(_, (bits, _))| *bits != 0) {
            let info = &p.info;
            // The site is of the thread's first recorded fault; a cut loop records none (its
            // check runs at the end), so with other bits the site is theirs, which may have come
            // before the cut (an endless loop storing out of range) or from it
            // (`abi::describe_faults` names the cut first and says so).
            let site = if bits == abi::FAULT_LOOP_CUT || site == 0 {
                None
            } else {
                // An id outside the kernel's table would be ptxcross's own error: say so
                // rather than drop it.
                Some(info.fault_sites.get(site as usize - 1).cloned().unwrap_or_else(|| {
                    format!("fault site id {site}, not among the kernel's {} sites (internal error)", info.fault_sites.len())
                }))
            };
            return Err(Error::KernelFault {
                kernel: info.kernel.clone(),
                bits,
                faults: abi::describe_faults(bits),
                site,
            });
        }
        Ok(())
    }

    /// Reads back and formats the printf buffers the settled launches wrote (each module's
    /// once), then empties them. CUDA prints at synchronization too.
    fn drain_printf(&self, pending: &[PendingLaunch]) -> Result<(), Error> {
        let mut regions: Vec<(u64, &Arc<printf::Formats>)> = Vec::new();
        for p in pending {
            if let (Some(r), Some(f)) = (p.printf_region, &p.info.printf) {
                if !regions.iter().any(|(q, _)| *q == r) {
                    regions.push((r, f));
                }
            }
        }
        let header = ptxcross_lower::printf::REGION_HEADER_BYTES as u64;
        for (region, formats) in regions {
            let Some((k, offset)) = self.locate(region) else { continue };
            let head = self.read_spans(&[(k, offset, header)])?.pop().unwrap_or_default();
            let claimed = u32::from_le_bytes(head[0..4].try_into().expect("4 bytes"));
            let dropped = u32::from_le_bytes(head[4..8].try_into().expect("4 bytes"));
            let used = claimed.min(ptxcross_lower::printf::REGION_CAPACITY) as u64;
            let records = self.read_spans(&[(k, offset + header, used)])?.pop().unwrap_or_default();
            self.write_heap(k, offset, &[0u8; 8])?;
            let mut strings = |addr: u64| self.device_string(addr);
            let mut text = Vec::new();
            printf::decode(&records, formats, &mut strings, &mut text);
            let mut inflight = self.inflight.lock().unwrap_or_else(|p| p.into_inner());
            // Text nobody takes (`take_printf`) must not grow without bound in a long-lived
            // context: past the limit, later text is discarded.
            if inflight.printf.text.len() + text.len() <= printf::MAX_TEXT_BYTES {
                inflight.printf.text.push_str(&String::from_utf8_lossy(&text));
            }
            inflight.printf.dropped += dropped as u64;
        }
        Ok(())
    }

    /// The bytes of the NUL-terminated string at heap address `addr` (at most
    /// `printf::MAX_STRING_BYTES`, never past its segment), `None` outside the heap.
    fn device_string(&self, addr: u64) -> Option<Vec<u8>> {
        let (k, offset) = self.locate(addr)?;
        let reserved = abi::HEAP_RESERVED_WORDS as u64 * 4;
        let end = self.segments[k].bytes;
        if offset < reserved || offset >= end {
            return None;
        }
        let len = (end - offset).min(printf::MAX_STRING_BYTES);
        let mut bytes = self.read_spans(&[(k, offset, len)]).ok()?.pop()?;
        if let Some(nul) = bytes.iter().position(|&b| b == 0) {
            bytes.truncate(nul);
        }
        Some(bytes)
    }

    /// Takes what device-side `printf` printed in the launches synchronized so far (see
    /// [`PrintfOutput`]), leaving it empty.
    pub fn take_printf(&self) -> PrintfOutput {
        std::mem::take(&mut self.inflight.lock().unwrap_or_else(|p| p.into_inner()).printf)
    }

    fn set_last_kernel_time(&self, t: Option<std::time::Duration>) {
        self.inflight.lock().unwrap_or_else(|p| p.into_inner()).last_kernel_time = t;
    }

    /// `count` timestamp queries and their resolve buffer (the context's, grown if needed), or
    /// `None` on a device without timestamp queries.
    fn launch_timer(&mut self, count: u32) -> Option<(wgpu::QuerySet, wgpu::Buffer, u32)> {
        if !self.gpu.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        if self.launch_timer.as_ref().is_none_or(|(set, _)| set.count() < count) {
            let set = self.gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("ptxcross launch time"),
                ty: wgpu::QueryType::Timestamp,
                count,
            });
            let resolved = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("ptxcross launch time"),
                size: 8 * count as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            self.launch_timer = Some((set, resolved));
        }
        self.launch_timer.as_ref().map(|(set, resolved)| (set.clone(), resolved.clone(), count))
    }

    /// Times every synchronous launch ([`Context::launch`]) with timestamps around its compute
    /// passes, for [`Context::last_kernel_time`]; off by default: resolving and reading the
    /// timestamps back costs about as much as the launch of a small kernel (on lavapipe a
    /// synchronous launch of an empty kernel took 2.3× as long timed as untimed).
    pub fn time_launches(&mut self, on: bool) {
        self.time_launches = on;
    }

    /// Whether launches are timed ([`Context::time_launches`]).
    pub fn times_launches(&self) -> bool {
        self.time_launches
    }

    /// GPU execution time of the last launch that ran, measured with timestamps around its
    /// compute passes; `None` unless launches are timed ([`Context::time_launches`]) on a
    /// device with timestamp queries, and after a synchronization of only
    /// [`Context::launch_async`] launches.
    pub fn last_kernel_time(&self) -> Option<std::time::Duration> {
        self.inflight.lock().unwrap_or_else(|p| p.into_inner()).last_kernel_time
    }

    /// Caps each dispatch of a launch at `per_dimension` workgroups per axis and `total`
    /// workgroups (they also stay within the device's limits): tests use small caps to run the
    /// splitting of large grids on small ones.
    pub fn limit_dispatch_size(&mut self, per_dimension: u32, total: u64) {
        self.dispatch_cap = (per_dimension.max(1), total.max(1));
    }

    /// A grid as dispatches: (`%ctaid` of the first workgroup, workgroups per axis), each within
    /// `max_compute_workgroups_per_dimension` per axis, [`MAX_DISPATCH_WORKGROUPS`] in total
    /// (lavapipe counts a dispatch's workgroups in 32 bits) and `max_blocks` (what the scratch
    /// buffer holds), covering every block once.
    fn dispatch_chunks(&self, grid: [u32; 3], max_blocks: u64) -> Vec<([u32; 3], [u32; 3])> {
        let (per_dim, total) = self.dispatch_cap;
        let max_dim = self.gpu.limits().max_compute_workgroups_per_dimension.clamp(1, per_dim) as u64;
        let total = total.min(MAX_DISPATCH_WORKGROUPS).min(max_blocks).max(1);
        let cx = (grid[0] as u64).min(max_dim).min(total).max(1);
        let cy = (grid[1] as u64).min(max_dim).min(total / cx).max(1);
        let cz = (grid[2] as u64).min(max_dim).min(total / (cx * cy)).max(1);
        let mut out = Vec::new();
        for z in (0..grid[2] as u64).step_by(cz as usize) {
            for y in (0..grid[1] as u64).step_by(cy as usize) {
                for x in (0..grid[0] as u64).step_by(cx as usize) {
                    let size = [cx.min(grid[0] as u64 - x), cy.min(grid[1] as u64 - y), cz.min(grid[2] as u64 - z)];
                    out.push(([x as u32, y as u32, z as u32], size.map(|v| v as u32)));
                }
            }
        }
        out
    }

    /// The heap segments a launch binds, in increasing order (at least one): those its
    /// pointer arguments point into (every 8 bytes of the parameter area at a 4-byte boundary
    /// that is the address of, or just past, a live allocation counts), and the module's
    /// globals' if the kernel reads them; none found: segment 0. Any other address is out of
    /// range for the kernel (a fault), so a wrong guess is never a wrong access; pointers read
    /// from memory into a segment not bound fault, which the README states. With one segment,
    /// that one.
    fn launch_segments(&self, k: &ir::Kernel, params: &[u8], globals: u64) -> Vec<usize> {
        if self.segments.len() == 1 {
            return vec![0];
        }
        if k.features.pointers32 {
            // A 32-bit address is the offset in its segment (`abi::HEAP_LIMIT_32`), the same
            // number in every segment, so the arguments cannot say which segment they mean:
            // the launch binds the one segment that holds live allocations (the module's
            // globals are one), and with several it is refused (`submit_kernel`). Binding
            // the first segment stored through a pointer into the second at the same offset
            // of the first (`segments` test).
            let used: Vec<usize> = (0..self.segments.len()).filter(|&j| !self.segments[j].alloc.is_empty()).collect();
            return if used.is_empty() { vec![0] } else { used };
        }
        let mut found: Vec<usize> = (0..params.len().saturating_sub(7))
            .step_by(4)
            .filter_map(|i| self.segment_of_allocation(u64::from_le_bytes(params[i..i + 8].try_into().expect("8 bytes"))))
            .collect();
        if k.features.globals && globals != 0 {
            found.extend(self.segment_of_allocation(globals));
        }
        found.sort_unstable();
        found.dedup();
        if found.is_empty() {
            found.push(0);
        }
        found
    }

    /// Creates the shader module and compute pipeline of `kernel` ahead of its first launch
    /// (as `cuModuleLoad` compiles), so that the launch does not pay for it. Drivers may still
    /// finish compiling at the first dispatch (lavapipe does: see docs/performance.md,
    /// "Pipeline creation for big kernels").
    pub fn prepare(&self, program: &Program, kernel: &str, backend: Backend) -> Result<(), Error> {
        let k = find_kernel(program, kernel)?;
        self.gpu.check_workarounds(k, backend)?;
        self.pipeline(program, k, backend).map(drop)
    }

    /// The cached pipeline of (program, kernel, backend), created on first use.
    fn pipeline(
        &self,
        program: &Program,
        k: &ir::Kernel,
        backend: Backend,
    ) -> Result<wgpu::ComputePipeline, Error> {
        let gpu = &self.gpu;
        let key = (program.id(), backend, k.entry_point.clone());
        if let Some(p) = gpu.pipelines.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(p);
        }
        let perr = |message: String| Error::Pipeline {
            kernel: k.name.clone(),
            backend,
            message,
        };
        let module = {
            let cached = gpu
                .modules
                .lock()
                .ok()
                .and_then(|m| m.get(&(program.id(), backend)).cloned());
            match cached {
                Some(m) => m,
                None => {
                    let (m, err) = gpu.scoped(|| create_module(gpu, program, backend));
                    let m = m?;
                    if let Some(e) = err {
                        return Err(perr(e.to_string()));
                    }
                    if let Ok(mut map) = gpu.modules.lock() {
                        map.insert((program.id(), backend), m.clone());
                    }
                    m
                }
            }
        };
        let (_, layout) = gpu.layouts(k.features.segment_slots);
        let (pipeline, err) = gpu.scoped(|| {
            gpu.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&k.name),
                    layout: Some(&layout),
                    module: &module,
                    entry_point: Some(&k.entry_point),
                    // WGSL kernels have no shared-memory zeroing prologue: they rely on wgpu
                    // zeroing workgroup memory (`ptxcross_lower::zeroing_prologue`; isolation).
                    compilation_options: wgpu::PipelineCompilationOptions {
                        zero_initialize_workgroup_memory: true,
                        ..Default::default()
                    },
                    cache: None,
                })
        });
        if let Some(e) = err {
            return Err(perr(e.to_string()));
        }
        if let Ok(mut map) = gpu.pipelines.lock() {
            map.insert(key, pipeline.clone());
        }
        Ok(pipeline)
    }
}

fn create_module(
    gpu: &Gpu,
    program: &Program,
    backend: Backend,
) -> Result<wgpu::ShaderModule, Error> {
    let label = Some(program.name());
    match backend {
        Backend::Spirv => {
            let words = program.spirv().ok_or(Error::MissingCode { backend })?;
            let entry_points: Vec<wgpu::PassthroughShaderEntryPoint> = program
                .module()
                .kernels
                .iter()
                .map(|k| wgpu::PassthroughShaderEntryPoint {
                    name: k.entry_point.as_str().into(),
                    workgroup_size: (
                        k.workgroup_size[0],
                        k.workgroup_size[1],
                        k.workgroup_size[2],
                    ),
                })
                .collect();
            let desc = wgpu::ShaderModuleDescriptorPassthrough {
                label,
                entry_points: entry_points.into(),
                spirv: Some(words.into()),
                ..Default::default()
            };
            // SAFETY: the SPIR-V comes from our backend, which emits Vulkan-valid modules that
            // are bounds-safe by construction (every heap/shared/local/param access is checked
            // against the array length, see `ptxcross_lower::ir::Expr::LoadWord`), and uses only
            // the bindings of the pipeline layout. Callers handing in their own code promise the
            // same (see `Program::new`).
            Ok(unsafe { gpu.device.create_shader_module_passthrough(desc) })
        }
        Backend::Wgsl => {
            let text = program.wgsl().ok_or(Error::MissingCode { backend })?;
            Ok(gpu
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label,
                    source: wgpu::ShaderSource::Wgsl(text.into()),
                }))
        }
    }
}

/// The address of byte `offset` of heap segment `k`.
fn segment_address(k: usize, offset: u64) -> DevicePtr {
    DevicePtr(abi::HEAP_BASE + k as u64 * abi::SEGMENT_WINDOW + offset)
}

/// A zeroed heap segment of `bytes` (its reserved words included).
fn create_segment(gpu: &Gpu, k: usize, bytes: u64) -> Result<Segment, Error> {
    let (buffer, err) = gpu.scoped(|| {
        gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&format!("ptxcross heap segment {k}")),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    });
    if let Some(e) = err {
        return Err(Error::Gpu {
            during: "heap creation",
            message: e.to_string(),
        });
    }
    Ok(Segment {
        buffer,
        bytes,
        alloc: Allocator::new(HEAP_RESERVED_BYTES, bytes, ALLOC_ALIGN),
        untouched_from: HEAP_RESERVED_BYTES,
    })
}

fn find_kernel<'p>(program: &'p Program, name: &str) -> Result<&'p ir::Kernel, Error> {
    program.kernel(name).ok_or_else(|| Error::KernelNotFound {
        name: name.to_string(),
        available: program.kernel_names(),
    })
}

fn describe_params(kernel: &ir::Kernel) -> String {
    if kernel.params.is_empty() {
        return String::new();
    }
    let list: Vec<String> = kernel
        .params
        .iter()
        .map(|p| format!("{} ({} bytes)", p.name, p.size))
        .collect();
    format!(": {}", list.join(", "))
}
