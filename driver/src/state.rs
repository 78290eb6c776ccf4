//! The driver's process-wide state: one device (the adapter `ptxcross::Gpu::shared` opens), one
//! heap shared by every context of it (so device pointers form one address space, as CUDA's
//! unified addressing promises), and the tables behind every handle.
//!
//! Every entry point locks [`DRIVER`] for its whole duration: launches and copies are
//! synchronous (a call returns when the device is done), so streams and events need no queues.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use ptxcross::runtime::{Backend, Context, ContextOptions, Gpu};
use ptxcross_lower::LowerOptions;

use crate::module::Module;
use crate::types::*;

/// What a handle points at; the kind lives in the handle's top bits, so a handle of one kind
/// passed where another is expected is refused (`CUDA_ERROR_INVALID_HANDLE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Kind {
    Context = 1,
    /// Modules and libraries (`CUmodule`, `CUlibrary`) are one thing here.
    Module = 2,
    /// Functions and kernels (`CUfunction`, `CUkernel`): numba passes a `CUkernel` where a
    /// `CUfunction` is expected, which is then simply right.
    Function = 3,
    Stream = 4,
    Event = 5,
    Link = 6,
    /// CUDA arrays (`CUarray`).
    Array = 7,
}

const KIND_SHIFT: u32 = 48;

pub fn handle(kind: Kind, id: u64) -> Handle {
    (((kind as u64) << KIND_SHIFT) | id) as usize as Handle
}

/// The id of `h` if it is a handle of `kind` (null is never one).
pub fn id_of(h: Handle, kind: Kind) -> Option<u64> {
    let v = h as usize as u64;
    (v >> KIND_SHIFT == kind as u64 && v & ((1 << KIND_SHIFT) - 1) != 0).then_some(v & ((1 << KIND_SHIFT) - 1))
}

pub struct Ctx {
    pub primary: bool,
    pub flags: u32,
    /// A kernel fault: every later call on the context returns it (CUDA's sticky errors),
    /// until the context is destroyed or the primary context reset.
    pub sticky: Option<CUresult>,
    pub limits: HashMap<i64, usize>,
    /// Device-side `printf` text of this context's launches, printed at its next
    /// synchronization point ([`Driver::flush_printf`]).
    pub printf: String,
}

pub struct Function {
    pub module: u64,
    pub kernel: String,
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` as set by the program.
    pub max_dynamic_shared: Option<u32>,
}

pub struct Stream {
    pub ctx: u64,
    pub flags: u32,
}

pub struct Event {
    pub flags: u32,
    /// When it was recorded: work is synchronous, so this is when everything before it ended.
    pub recorded: Option<Instant>,
    /// [`Driver::gpu_time`] when it was recorded.
    pub gpu_time: Option<std::time::Duration>,
}

/// Inputs of a `cuLink*` session.
pub struct Link {
    pub inputs: Vec<(String, Vec<u8>)>,
    /// The linked image handed out by cuLinkComplete (valid until cuLinkDestroy).
    pub output: Option<Vec<u8>>,
    pub error_log: Option<(*mut u8, usize)>,
}

pub struct Device {
    pub gpu: Arc<Gpu>,
    /// The heap every context allocates from.
    pub heap: Context,
    pub backend: Backend,
    /// What every translation for this device and `backend` starts from (`Gpu::lower_options`:
    /// fused fma, cut loops, 64-bit integers, native warps, flushed f32 subnormals, limits).
    pub options: LowerOptions,
}

pub struct Driver {
    pub device: Device,
    next_id: u64,
    pub contexts: HashMap<u64, Ctx>,
    /// The primary context's id, retain count and flags.
    pub primary: u64,
    pub primary_refs: u32,
    pub primary_flags: u32,
    pub modules: HashMap<u64, Module>,
    pub functions: HashMap<u64, Function>,
    pub streams: HashMap<u64, Stream>,
    pub events: HashMap<u64, Event>,
    /// GPU execution time of every kernel launched since the first event was created, from
    /// timestamps around each launch (`None` once a launch could not be timed: the device has
    /// no timestamp queries).
    pub gpu_time: Option<std::time::Duration>,
    pub links: HashMap<u64, Link>,
    /// Device allocations: address → (size, owning context).
    pub allocations: BTreeMap<u64, (u64, u64)>,
    /// Page-locked host allocations (`cuMemAllocHost`): address → size.
    pub host_allocations: BTreeMap<usize, usize>,
    /// CUDA arrays (`api::texture`); their texels are device allocations of the same context.
    pub arrays: HashMap<u64, crate::api::CudaArray>,
    /// Texture and surface objects: descriptor address (an allocation) → what it was made of.
    pub texture_objects: HashMap<u64, crate::api::TextureObject>,
    /// Managed allocations (`cuMemAllocManaged`), each also in `allocations`.
    pub managed: crate::managed::Managed,
}

// SAFETY: the raw pointers held (link error-log buffers) belong to the program, which owns
// their synchronization; the driver only writes them inside API calls, under the lock.
unsafe impl Send for Driver {}

/// The state, once cuInit succeeded; `Err(code)`: cuInit failed (remembered).
static DRIVER: Mutex<Option<Result<Driver, CUresult>>> = Mutex::new(None);

thread_local! {
    /// This thread's context stack; the last entry is the current context.
    static CURRENT: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

pub fn current() -> Option<u64> {
    CURRENT.with(|c| c.borrow().last().copied())
}

pub fn set_current(ctx: Option<u64>) {
    CURRENT.with(|c| {
        let mut s = c.borrow_mut();
        s.pop();
        if let Some(id) = ctx {
            s.push(id);
        }
    })
}

pub fn push_current(ctx: u64) {
    CURRENT.with(|c| c.borrow_mut().push(ctx))
}

pub fn pop_current() -> Option<u64> {
    CURRENT.with(|c| c.borrow_mut().pop())
}

/// Heap size: `PTXCROSS_HEAP_MB`, else 1 GiB, capped by `Gpu::max_heap_bytes`. A heap larger
/// than one storage binding is several segments (created as allocations need them); one
/// allocation fits in one segment.
fn heap_bytes(gpu: &Gpu) -> u64 {
    let wanted = std::env::var("PTXCROSS_HEAP_MB")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(|mb| mb << 20)
        .unwrap_or(1 << 30);
    wanted.min(gpu.max_heap_bytes())
}

fn choose_backend(gpu: &Gpu) -> Backend {
    if let Some(b) = std::env::var("PTXCROSS_BACKEND").ok().and_then(|v| Backend::parse(&v)) {
        return b;
    }
    // SPIR-V goes to the driver as emitted; WGSL only where passthrough is unavailable.
    if gpu.features().contains(wgpu::Features::PASSTHROUGH_SHADERS) {
        Backend::Spirv
    } else {
        Backend::Wgsl
    }
}

/// cuInit: opens the device once.
pub fn init() -> CUresult {
    let mut guard = match DRIVER.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    if let Some(r) = guard.as_ref() {
        return r.as_ref().err().copied().unwrap_or(CUDA_SUCCESS);
    }
    let r = open();
    let code = r.as_ref().err().copied().unwrap_or(CUDA_SUCCESS);
    *guard = Some(r);
    code
}

fn open() -> Result<Driver, CUresult> {
    let gpu = Gpu::shared().map_err(|e| {
        crate::log::error(format_args!("cuInit: {e}"));
        CUDA_ERROR_NO_DEVICE
    })?;
    let heap = Context::new(ContextOptions {
        heap_bytes: heap_bytes(&gpu),
        timeout: None,
        gpu: Some(gpu.clone()),
    })
    .map_err(|e| {
        crate::log::error(format_args!("cuInit: cannot create the device heap: {e}"));
        CUDA_ERROR_OUT_OF_MEMORY
    })?;
    let backend = choose_backend(&gpu);
    let options = gpu.lower_options(&[backend]);
    let mut d = Driver {
        device: Device { gpu, heap, backend, options },
        next_id: 1,
        contexts: HashMap::new(),
        primary: 0,
        primary_refs: 0,
        primary_flags: 0,
        modules: HashMap::new(),
        functions: HashMap::new(),
        streams: HashMap::new(),
        events: HashMap::new(),
        gpu_time: Some(std::time::Duration::ZERO),
        links: HashMap::new(),
        allocations: BTreeMap::new(),
        host_allocations: BTreeMap::new(),
        arrays: HashMap::new(),
        texture_objects: HashMap::new(),
        managed: Default::default(),
    };
    d.primary = d.new_id();
    d.contexts.insert(d.primary, Ctx { primary: true, flags: 0, sticky: None, limits: HashMap::new(), printf: String::new() });
    Ok(d)
}

/// Runs `f` on the initialized driver (`CUDA_ERROR_NOT_INITIALIZED` before cuInit).
pub fn with<R>(f: impl FnOnce(&mut Driver) -> Result<R, CUresult>) -> Result<R, CUresult> {
    let mut guard: MutexGuard<'_, _> = match DRIVER.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    match guard.as_mut() {
        Some(Ok(d)) => f(d),
        Some(Err(_)) | None => Err(CUDA_ERROR_NOT_INITIALIZED),
    }
}

impl Driver {
    pub fn new_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Prints the current context's device-side `printf` text to stdout: CUDA prints it at
    /// synchronization points (context, stream and event synchronization, blocking copies to
    /// the host), not at the launch.
    pub fn flush_printf(&mut self) {
        let Some(ctx) = current().and_then(|id| self.contexts.get_mut(&id)) else { return };
        if ctx.printf.is_empty() {
            return;
        }
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(std::mem::take(&mut ctx.printf).as_bytes()).and_then(|()| out.flush());
    }

    /// The current context, checked: it exists and carries no sticky error.
    pub fn current_ctx(&self) -> Result<u64, CUresult> {
        let id = current().ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
        let ctx = self.contexts.get(&id).ok_or(CUDA_ERROR_CONTEXT_IS_DESTROYED)?;
        match ctx.sticky {
            Some(code) => Err(code),
            None => Ok(id),
        }
    }

    pub fn ctx_of(&self, h: Handle) -> Result<u64, CUresult> {
        let id = id_of(h, Kind::Context).ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
        if self.contexts.contains_key(&id) {
            Ok(id)
        } else {
            Err(CUDA_ERROR_INVALID_CONTEXT)
        }
    }

    /// A stream handle: null and the special legacy/per-thread handles are the default stream.
    pub fn check_stream(&self, h: Handle) -> Result<(), CUresult> {
        let v = h as usize;
        if v <= 2 {
            return Ok(());
        }
        let id = id_of(h, Kind::Stream).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        if self.streams.contains_key(&id) {
            Ok(())
        } else {
            Err(CUDA_ERROR_INVALID_HANDLE)
        }
    }

    /// Frees everything a context owns (allocations, modules, streams) and clears its error.
    pub fn release_ctx_resources(&mut self, ctx: u64) {
        // Libraries (cuLibraryLoadData) are context-independent in CUDA: they stay loaded, and
        // their globals start over from their initial values, as in a fresh context. The CUDA
        // runtime relies on it: after cudaDeviceReset it launches the kernels it got before.
        let libraries: Vec<(u64, u64)> =
            self.modules.iter().filter(|(_, m)| m.ctx == ctx && m.library).map(|(&id, m)| (id, m.globals_base)).collect();
        let owned: Vec<u64> = self
            .allocations
            .iter()
            .filter(|(p, &(_, c))| c == ctx && !libraries.iter().any(|&(_, base)| base == **p))
            .map(|(&p, _)| p)
            .collect();
        for p in owned {
            self.allocations.remove(&p);
            self.managed.remove(p);
            let _ = self.device.heap.free(ptxcross::DevicePtr(p));
        }
        let modules: Vec<u64> = self.modules.iter().filter(|(_, m)| m.ctx == ctx && !m.library).map(|(&id, _)| id).collect();
        for m in modules {
            self.unload_module(m);
        }
        for (id, base) in libraries {
            if base != 0 {
                let image = self.modules[&id].facts.globals.image(base);
                if let Err(e) = self.device.heap.write(ptxcross::DevicePtr(base), &image) {
                    crate::log::error(format_args!("cannot reinitialize a library's globals: {e}"));
                }
                // Its `__managed__` variables' host copies (the truth between launches) too.
                self.managed.overwrite_within(base, &image);
            }
        }
        self.streams.retain(|_, s| s.ctx != ctx);
        self.arrays.retain(|_, a| a.ctx != ctx);
        self.texture_objects.retain(|_, t| t.ctx != ctx);
        if let Some(c) = self.contexts.get_mut(&ctx) {
            c.sticky = None;
        }
    }

    pub fn unload_module(&mut self, id: u64) {
        if let Some(m) = self.modules.remove(&id) {
            for id in m.programs.values().flat_map(|p| p.ids()) {
                self.device.gpu.forget_program(id);
                self.device.heap.forget_program(id);
            }
            if m.globals_base != 0 {
                if let Some(&(size, _)) = self.allocations.get(&m.globals_base) {
                    for (start, _) in self.managed.within(m.globals_base, size) {
                        self.managed.remove(start);
                    }
                }
                self.allocations.remove(&m.globals_base);
                let _ = self.device.heap.free(ptxcross::DevicePtr(m.globals_base));
            }
            self.functions.retain(|_, f| f.module != id);
        }
    }

    /// The live device allocation holding `ptr`: (start, size).
    pub fn allocation_of(&self, ptr: u64) -> Option<(u64, u64)> {
        let (&start, &(size, _)) = self.allocations.range(..=ptr).next_back()?;
        (ptr < start + size.max(1)).then_some((start, size))
    }
}

/// A host pointer argument that must not be null.
pub fn out<'a, T>(p: *mut T) -> Result<&'a mut T, CUresult> {
    // SAFETY: the caller (a C program) passes a valid pointer or null, as the API requires.
    unsafe { p.as_mut() }.ok_or(CUDA_ERROR_INVALID_VALUE)
}

/// Writes `v` through an out-pointer.
pub fn put<T>(p: *mut T, v: T) -> Result<(), CUresult> {
    *out(p)? = v;
    Ok(())
}

pub fn null() -> Handle {
    std::ptr::null_mut::<c_void>()
}
