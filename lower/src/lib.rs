//! ptxcross-lower: PTX AST → structured, typed IR ([`ir`]).
//!
//! Every PTX semantic rule lives here, once: name resolution, PTX type rules, the memory
//! layout and address windows ([`abi`]), CFG construction, structurization, and the SIMT
//! (barrier uniformity) checks. Backends consume [`ir::Module`] and decide nothing semantic.

pub mod abi;
mod barriers;
pub mod build;
mod call;
pub mod device_runtime;
mod cleanup;
pub mod cfg;
mod consts;
mod fault_site;
mod flush_sim;
mod features;
mod function;
mod grid;
pub mod interp;
mod inst;
mod int64;
mod isolation;
mod kernel;
mod layout;
pub mod induction;
pub mod heap_outline;
pub mod emission;
pub mod launch_proof;
pub mod local_scratch;
mod meeting;
mod loop_cut;
mod loop_exits;
pub(crate) mod operand_types;
pub mod printf;
mod ptx_types;
pub mod ir;
mod shared64;
mod misread_constants;
mod narrowed_shifts;
mod outline;
pub use misread_constants::{checked_load_word, heap_range_tests_of, hidden_vars};
pub use isolation::zeroing_prologue;
mod scheduler;
mod simt;
pub mod threads;
mod warp_layout;
mod warp_loads;
mod wide_lock;
pub mod structurize;

use ptxcross_frontend::{ast, Diagnostic, SourceFile};

/// What to translate, and for which launch shape.
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// Inline every long instruction expansion instead of emitting it once as a function of
    /// the kernel (`ir::Function`, `FnLower::outlined`) and calling it at each use: the code
    /// as before issue 11's outlining, for comparisons.
    pub no_outline: bool,
    /// Only this kernel (`.entry` name); `None`: every kernel of the module.
    pub kernel: Option<String>,
    /// Block (CTA) shape `%ntid` is folded to. `None`: the kernel's `.reqntid`, else
    /// [`DEFAULT_BLOCK`].
    pub block: Option<[u32; 3]>,
    /// Bytes of dynamic shared memory (`.extern .shared` arrays) the launch provides.
    pub dynamic_shared_bytes: u32,
    /// The device's shared memory per block in bytes (wgpu's
    /// `max_compute_workgroup_storage_size`); `None`: not known (translation without a device).
    /// A kernel whose emulated warp matrix exchange would take it past this limit keeps the
    /// exchange in the launch's scratch buffer instead (`inst::warp`, `warp_exchange`);
    /// `Some(0)` does that for every such kernel (tests cover that path so).
    pub max_shared_bytes: Option<u32>,
    /// The target's `fma` is known to be fused (one rounding). Vulkan and WebGPU allow an
    /// unfused multiply-add (lavapipe does that), so by default `fma.rn.f32` is emulated
    /// exactly; a host that has probed its device may set this to use the native op.
    pub native_fma: bool,
    /// The target's `fma` is known to be fused but may flush subnormal operands and results
    /// (NVIDIA's Vulkan driver, 580: its f32 `fma` flushes a subnormal result although the
    /// SPIR-V module declares `DenormPreserve 32`, which every other f32 operation honours).
    /// Without `native_fma`, `fma.rn.f32` then uses the native op with the guard of the
    /// exact-f32 mode (`inst::flushed`, `f32_arith_flushed`): recomputed exactly only where an
    /// operand is subnormal or the result is at most 2^-126 in magnitude; the f64 `fma` is
    /// native (the host sets this only where the f64 fma is fused and keeps subnormals). In the
    /// exact-f32 mode (`flushed_f32`) it makes that mode's fast path the native fma. The host
    /// sets it from its probes of the device.
    pub native_fma_guarded: bool,
    /// Instructions a kernel may gain by inlining device functions before further calls go
    /// through the call stack; `None`: the default (`call::INLINE_BUDGET`). `Some(0)` sends
    /// every call through the stack (tests use it to cover that path with real PTX).
    pub inline_budget: Option<usize>,
    /// The target may end loops early on its own (lavapipe's iteration limit): add the check
    /// that turns such a cut into a kernel fault (`abi::FAULT_LOOP_CUT`, see `loop_cut`). The
    /// host sets it from a probe of the device.
    pub detect_cut_loops: bool,
    /// The target loses a thread's work after a memory fence that not every thread of its
    /// workgroup reaches alike (lavapipe of Mesa 22.x, see `Features::fences_as_sink_atomics`):
    /// the SPIR-V backend then emits each `Stmt::Fence` in the form that driver compiles right.
    /// The host sets it from a probe of the device.
    pub fences_as_sink_atomics: bool,
    /// Largest globals segment (module `.global`/`.const` variables) in bytes; `None`:
    /// [`DEFAULT_MAX_GLOBAL_BYTES`]. The host passes what the device's heap can hold, so a
    /// segment too large is refused before its image is built in host memory.
    pub max_global_bytes: Option<u64>,
    /// The target has no 64-bit integers (WebGPU in browsers; Vulkan devices without
    /// `shaderInt64`): every 64-bit integer becomes two 32-bit halves (see `int64`), and the
    /// kernel's `Features::int64` is false. Kernels with 64-bit floats are refused then.
    pub split_int64: bool,
    /// The target has no 64-bit floats (WebGPU; Vulkan devices without `shaderFloat64`):
    /// emulations that would compute in f64 (correctly rounded f32 `div`/`rcp`/`sqrt`, `fma`)
    /// use 32-bit integers instead (`FnLower::no_float64`). `split_int64` implies it. The
    /// host sets it where the device lacks `SHADER_F64`.
    pub no_float64: bool,
    /// Local memory per thread (bytes) from which a kernel keeps it in a per-thread slice of
    /// the scratch buffer instead of a private array (see `local_scratch`); `None`:
    /// [`local_scratch::DEFAULT_LOCAL_SCRATCH_BYTES`]. `Some(0)` moves all of it (tests cover
    /// the scratch path with small kernels that way), `Some(u32::MAX)` none.
    pub local_scratch_bytes: Option<u32>,
    /// Also translate each kernel with warp collectives to native subgroup operations (see
    /// `warp_layout` and `ir::Features::native_warps`): the module then holds, for such a
    /// kernel, the native translation followed by its emulated twin (`warp_fallback`), and the
    /// host runs the native one where the device's subgroups hold whole warps. The target
    /// must offer subgroup ballot and shuffle (wgpu `Features::SUBGROUP`).
    pub native_warps: bool,
    /// Tests only, with `native_warps`: the native collectives' subgroup operations are then
    /// replaced by shared memory and barriers (`warp_layout::simulate`), exact on any device,
    /// and the kernel has no layout check nor emulated twin. Runs the native lowering (the
    /// collectives' rules and the SIMT pass's masks) on devices whose subgroups are narrower
    /// than a warp; the subgroup operations themselves need a device with 32-wide subgroups.
    pub simulate_native_warps: bool,
    /// Tests only, with `native_warps` and `simulate_native_warps`: the simulated kernel keeps
    /// the layout check's protocol and its emulated twin (the host treats it as a native-warps
    /// kernel), with the check's verdict chosen here instead of read from subgroups: a CTA
    /// passes where its workgroup x index in the dispatch is below this value
    /// (`warp_layout::simulate_layout_check`). `u32::MAX`: every CTA passes; 0: none; between:
    /// a launch whose workgroups disagree.
    pub simulate_warp_layout: Option<u32>,
    /// The target flushes f32 subnormals (the host's probe says so, see `inst::flushed`):
    /// the f32 instructions that `inst::flushed` covers are computed so that such a device
    /// still gives PTX's bits (a native fast path, and a rare exact path on integers);
    /// the others still mark the kernel `Features::f32_subnormals` (with the first such
    /// instruction in `Features::f32_subnormals_site`). Exact on any device, only slower.
    pub flushed_f32: bool,
    /// Tests only: make every f32 float operation of the kernel act as on a device that flushes
    /// f32 subnormals (each operand and result flushed to the zero of its sign, see
    /// `flush_sim`), so that `flushed_f32` can be checked on a device that keeps them.
    pub simulate_flushed_f32: bool,
    /// Tests only: the same for the f32 `fma` alone (`Expr::Fma`), as NVIDIA's Vulkan driver
    /// acts under `DenormPreserve 32` (see `native_fma_guarded`).
    pub simulate_flushed_fma: bool,
    /// 0 or 1: heap accesses reach the one segment a launch binds (every kernel's usual
    /// translation). `S` ≥ 2 (at most `abi::MAX_SEGMENT_SLOTS`): the translation the host runs
    /// when a launch's pointers lie in `S` segments: each heap access compares its address's
    /// high word with the `S` bound segments' and goes to that slot's binding
    /// (`ir::Memory::Segment`); an address in none of them is out of range. Refused for
    /// `.address_size 32` modules (their addresses are offsets in one segment).
    pub segment_slots: u32,
    /// Tests and measurements only: how a kernel whose warp collectives may meet at different
    /// instructions is lowered (`meeting`, `kernel::lower_body`, `inst::warp`).
    pub meeting: Meeting,
}

/// See [`LowerOptions::meeting`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Meeting {
    /// A kernel whose collectives may meet at different instructions (`meeting::may_meet`)
    /// runs through the CTA barrier scheduler, where they meet as on sm_70+ (§9.7.8.6), on
    /// targets sm_70 and later; it keeps the run-time meeting check where the scheduler refuses
    /// it, where the scheduler's code would be much larger (`kernel::too_big_to_meet`), and on
    /// `.target sm_6x` or below (where such a meeting is undefined).
    #[default]
    Meet,
    /// As `Meet`, whatever the size of the scheduler's code (measurements).
    MeetAlways,
    /// The run-time meeting check at every waiting collective of such a kernel, nowhere else
    /// (before kernels that may meet went to the scheduler).
    Check,
    /// At every waiting collective of every kernel (as before the static proof).
    CheckEverywhere,
}

/// Globals segment limit when the device is not known (`check`, `translate`).
pub const DEFAULT_MAX_GLOBAL_BYTES: u64 = 256 << 20;

/// Block shape used for translation when neither the caller nor `.reqntid` fixes one.
pub const DEFAULT_BLOCK: [u32; 3] = [256, 1, 1];

/// Lowers a parsed module to IR. Errors carry spans into the source (e.g. "not supported
/// yet: X"); all kernels are lowered and every error is returned.
pub fn lower(module: &ast::Module, file: &SourceFile, options: &LowerOptions) -> Result<ir::Module, Vec<Diagnostic>> {
    device_runtime::with_runtime(module, file, |module, file| lower_attached(module, file, options))
}

/// [`lower`] of a module whose device runtime (`device_runtime`) is attached if it needs one.
fn lower_attached(module: &ast::Module, file: &SourceFile, options: &LowerOptions) -> Result<ir::Module, Vec<Diagnostic>> {
    // CFG construction, the structurizer and the IR passes recurse as deep as the program's
    // control flow nests (thousands of levels in generated or hostile PTX; the result is then
    // refused above `kernel::MAX_CONTROL_DEPTH`), so they run on a thread with a large stack,
    // whatever thread the caller has (test threads get 2 MiB). Pages are committed only when
    // touched. A panic is passed on to the caller unchanged.
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("ptxcross lower".into())
            .stack_size(LOWER_STACK_BYTES)
            .spawn_scoped(scope, || lower_here(module, file, options));
        match worker {
            Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => lower_here(module, file, options),
        }
    })
}

/// Longest kernel name accepted.
const MAX_KERNEL_NAME_BYTES: usize = 4096;

/// Stack of the lowering thread.
const LOWER_STACK_BYTES: usize = 512 << 20;

/// Lowers each kernel of `names` into a module of its own (as `lower` with
/// `options.kernel = Some(name)` would), analysing the module's functions and laying out its
/// globals once for all of them: per-kernel translation of a large file (the CUB file's 247
/// kernels) spent a quarter of its time redoing that whole-file work for every kernel.
pub fn lower_each(module: &ast::Module, file: &SourceFile, options: &LowerOptions, names: &[String]) -> Vec<Result<ir::Module, Vec<Diagnostic>>> {
    match device_runtime::attach(module, file) {
        Ok(Some(a)) => lower_each_attached(&a.module, &a.file, options, names).into_iter().map(|r| r.map_err(|ds| a.place(ds))).collect(),
        Ok(None) => lower_each_attached(module, file, options, names),
        Err(d) => names.iter().map(|_| Err(d.clone())).collect(),
    }
}

fn lower_each_attached(module: &ast::Module, file: &SourceFile, options: &LowerOptions, names: &[String]) -> Vec<Result<ir::Module, Vec<Diagnostic>>> {
    let shared = match Shared::new(module, options) {
        Ok(s) => s,
        Err(d) => return names.iter().map(|_| Err(d.clone())).collect(),
    };
    let one = |name: &String| {
        let options = LowerOptions { kernel: Some(name.clone()), ..options.clone() };
        lower_with(module, file, &options, &shared)
    };
    // Kernels are independent once the module-wide analysis is done: several threads, each
    // with the large stack `lower` explains.
    threads::map_ordered(names, "ptxcross lower", LOWER_STACK_BYTES, one)
}

/// What a host needs of a module before it lowers any kernel: the kernels' names and
/// parameter layouts and the globals segment (layout and initial image). The driver library
/// loads modules with this and lowers a kernel only when it is launched (or an attribute needs
/// its lowering): lowering every kernel of the CUB file at load took 4.4 s.
#[derive(Clone, Debug)]
pub struct ModuleFacts {
    pub globals: ir::GlobalSegment,
    /// Entry kernels with a body, in file order.
    pub kernels: Vec<KernelFacts>,
}

/// A kernel's parameter layout, as [`ir::Kernel::params`] and [`ir::Kernel::param_bytes`]
/// of its lowering have it (one rule: `layout::layout_params`).
#[derive(Clone, Debug)]
pub struct KernelFacts {
    pub name: String,
    pub params: Vec<ir::ParamSlot>,
    pub param_bytes: u32,
}

/// The module-wide work of [`lower`] and a check of every kernel's instructions, without the
/// passes over whole kernel bodies (CFG, structurizer, SIMT, cleanup: 90% of lowering's
/// time): the functions' analysis, the globals' layout, each kernel's parameters, and each
/// instruction lowered once and dropped (`kernel::check_kernel`), so invalid or unsupported
/// instructions are reported here. What only the whole-body passes find (a barrier some
/// thread could skip, control flow nested too deep once structured) is reported by
/// [`lower`] of that kernel.
pub fn module_facts(module: &ast::Module, file: &SourceFile, options: &LowerOptions) -> Result<ModuleFacts, Vec<Diagnostic>> {
    // On the lowering thread, as `lower` (the functions' analysis walks the call graph).
    let run = || module_facts_here(module, file, options);
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new().name("ptxcross lower".into()).stack_size(LOWER_STACK_BYTES).spawn_scoped(scope, run);
        match worker {
            Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => run(),
        }
    })
}

fn module_facts_here(module: &ast::Module, file: &SourceFile, options: &LowerOptions) -> Result<ModuleFacts, Vec<Diagnostic>> {
    device_runtime::with_runtime(module, file, |module, _| module_facts_attached(module, options))
}

fn module_facts_attached(module: &ast::Module, options: &LowerOptions) -> Result<ModuleFacts, Vec<Diagnostic>> {
    let shared = Shared::new(module, options)?;
    let mut kernels = Vec::new();
    let mut errors = Vec::new();
    for i in &module.items {
        if let ast::Item::Function(f) = i {
            if f.kind == ast::FunctionKind::Entry && f.body.is_some() {
                let checked = kernel::check_kernel(module, f, &shared.global_places, &shared.functions, options);
                match checked.and_then(|()| layout::layout_params(&f.params)) {
                    Ok((params, param_bytes)) => kernels.push(KernelFacts { name: f.name.name.to_string(), params, param_bytes }),
                    Err(d) => errors.push(d),
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(ModuleFacts { globals: shared.globals, kernels })
    } else {
        Err(errors)
    }
}

/// What every kernel of a module shares: its functions and its globals' layout.
struct Shared<'a> {
    functions: call::Functions<'a>,
    globals: ir::GlobalSegment,
    global_places: Vec<(String, layout::GlobalPlace)>,
}

impl<'a> Shared<'a> {
    fn new(module: &'a ast::Module, options: &LowerOptions) -> Result<Shared<'a>, Vec<Diagnostic>> {
        let functions = call::Functions::new(module).map_err(|d| vec![d])?;
        let address_size = module.address_size.unwrap_or(32);
        let max_globals = options.max_global_bytes.unwrap_or(DEFAULT_MAX_GLOBAL_BYTES);
        let (globals, global_places) =
            layout::layout_globals(&module.items, &|name| functions.address(name, address_size), address_size, max_globals)
                .map_err(|d| vec![d])?;
        Ok(Shared { functions, globals, global_places })
    }
}

fn lower_here(module: &ast::Module, file: &SourceFile, options: &LowerOptions) -> Result<ir::Module, Vec<Diagnostic>> {
    let shared = Shared::new(module, options)?;
    lower_with(module, file, options, &shared)
}

fn lower_with(module: &ast::Module, file: &SourceFile, options: &LowerOptions, shared: &Shared) -> Result<ir::Module, Vec<Diagnostic>> {
    let (functions, global_places) = (&shared.functions, &shared.global_places);
    let globals = shared.globals.clone();
    let entries: Vec<&ast::Function> = module
        .items
        .iter()
        .filter_map(|i| match i {
            ast::Item::Function(f) if f.kind == ast::FunctionKind::Entry && f.body.is_some() => Some(f),
            _ => None,
        })
        .collect();
    let selected: Vec<&ast::Function> = match &options.kernel {
        None => entries.clone(),
        Some(name) => entries.iter().copied().filter(|f| &f.name.name == name).collect(),
    };
    if selected.is_empty() {
        let names: Vec<&str> = entries.iter().map(|f| f.name.name.as_str()).collect();
        let msg = match &options.kernel {
            Some(k) => format!("no kernel named `{k}` (kernels: {})", if names.is_empty() { "none".into() } else { names.join(", ") }),
            None => "the module has no kernel (`.entry` with a body)".to_string(),
        };
        return Err(vec![Diagnostic::new(msg, ast::Span::default())]);
    }
    let mut kernels = Vec::new();
    let mut errors = Vec::new();
    let mut used_names = std::collections::HashSet::new();
    for f in selected {
        if f.name.name.len() > MAX_KERNEL_NAME_BYTES {
            // SPIR-V caps a literal string at 65,535 words; names this long are never real.
            errors.push(Diagnostic::new(
                format!("not supported yet: a kernel name of {} bytes (at most {MAX_KERNEL_NAME_BYTES})", f.name.name.len()),
                f.name.span,
            ));
            continue;
        }
        match kernel::lower_kernel(file, module, f, global_places, functions, options) {
            Ok(mut k) => {
                let mut ep = kernel::entry_point_name(&k.name);
                while !used_names.insert(ep.clone()) {
                    ep.push('_');
                }
                k.entry_point = ep.clone();
                let native = k.features.native_warps;
                kernels.push(k);
                if native {
                    // The emulated twin the host falls back to (see `ir::Features::warp_fallback`).
                    let emulated = LowerOptions { native_warps: false, ..options.clone() };
                    match kernel::lower_kernel(file, module, f, global_places, functions, &emulated) {
                        Ok(mut t) => {
                            let mut tep = format!("{ep}_emulated_warps");
                            while !used_names.insert(tep.clone()) {
                                tep.push('_');
                            }
                            t.entry_point = tep;
                            t.features.warp_fallback = true;
                            kernels.push(t);
                        }
                        Err(d) => errors.push(d),
                    }
                }
            }
            Err(d) => errors.push(d),
        }
    }
    if errors.is_empty() {
        Ok(ir::Module { kernels, globals })
    } else {
        Err(errors)
    }
}
