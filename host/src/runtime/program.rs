//! A translated module ready to launch: the IR's host-visible facts plus the target code.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ptxcross_lower::ir;

use super::Backend;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Translates kernel `name` of a program again for launches whose pointers lie in `S` heap
/// segments (`ptxcross_lower::LowerOptions::segment_slots = S`, otherwise the same options and
/// backends): `variants(S, name)` is a program holding that kernel (and its emulated twin, if
/// it has one); an error is the rendered diagnostics.
pub type SegmentVariants = Arc<dyn Fn(u32, &str) -> Result<Program, String> + Send + Sync>;

/// One translated PTX module (all or some of its kernels) with SPIR-V and/or WGSL code.
///
/// The fields are private so a program cannot change under the pipelines cached for it; each
/// `Program` has a process-unique [`Program::id`].
pub struct Program {
    id: u64,
    name: String,
    module: ir::Module,
    spirv: Option<Vec<u32>>,
    wgsl: Option<String>,
    /// How to build the several-segment translations (none: such launches are refused).
    variants: Option<SegmentVariants>,
    /// Those built so far, by segment count and kernel name.
    built: Mutex<HashMap<(u32, String), Arc<Program>>>,
    /// Launch-specialised variants by kernel index (issue 11, `launch_proof`), built at the
    /// kernel's first launch; `None`: the kernel has none.
    launch_variants: Mutex<HashMap<usize, Option<Arc<LaunchVariant>>>>,
}

/// A kernel's launch precondition and the translation of its variant without the fault
/// recording the precondition makes unnecessary (`ptxcross_lower::launch_proof`).
pub(crate) struct LaunchVariant {
    pub proof: ptxcross_lower::launch_proof::LaunchProof,
    /// A program holding the variant alone (kernel index 0).
    pub program: Arc<Program>,
    /// The last launch's inputs to the precondition (parameter buffer bytes as evaluated,
    /// grid, heap words) and its verdict: a launch repeated with the same values (the usual
    /// loop) does not evaluate again (transpose's 24 claims take tens of µs).
    pub last: Mutex<Option<LastVerdict>>,
}

/// A launch's precondition inputs (parameter bytes, grid, heap words) and the verdict.
type LastVerdict = (Vec<u8>, [u32; 3], u64, bool);

impl LaunchVariant {
    /// Whether the precondition holds for a launch with parameter buffer `bytes` (header
    /// included; its `%ctaid` base and `%gridid` words not yet written), `grid` and a bound
    /// heap of `heap_words`.
    pub fn holds(&self, bytes: &[u8], grid: [u32; 3], heap_words: u64) -> bool {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((b, g, h, verdict)) = last.as_ref() {
            if b.as_slice() == bytes && *g == grid && *h == heap_words {
                return *verdict;
            }
        }
        let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let launch = ptxcross_lower::launch_proof::LaunchValues { params: &words, grid, heap_words };
        let verdict = self.proof.holds(launch);
        *last = Some((bytes.to_vec(), grid, heap_words, verdict));
        verdict
    }
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("module", &self.module)
            .field("spirv", &self.spirv.as_ref().map(|w| w.len()))
            .field("wgsl", &self.wgsl.as_ref().map(|t| t.len()))
            .field("segment_variants", &self.variants.is_some())
            .finish()
    }
}

impl Program {
    /// `name` is for messages (usually the PTX file). `module` supplies the kernels' entry
    /// points, workgroup sizes, parameter layout, shared memory size, features and the globals
    /// segment; the code must follow `ptxcross_lower::abi`.
    pub fn new(
        name: impl Into<String>,
        module: ir::Module,
        spirv: Option<Vec<u32>>,
        wgsl: Option<String>,
    ) -> Program {
        Program {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            name: name.into(),
            module,
            spirv,
            wgsl,
            variants: None,
            built: Mutex::new(HashMap::new()),
            launch_variants: Mutex::new(HashMap::new()),
        }
    }

    /// This program, able to run launches whose pointers lie in several heap segments
    /// (issue 11): `variants(S, kernel)` translates the kernel for `S` segment slots, once per
    /// `S` and kernel, at its first such launch. Without it such a launch is refused
    /// (`Error::SeveralSegments`).
    pub fn with_segment_variants(mut self, variants: SegmentVariants) -> Program {
        self.variants = Some(variants);
        self
    }

    /// Its id and those of the several-segment translations built so far: what to forget
    /// (`Gpu::forget_program`, `Context::forget_program`) when it is unloaded.
    pub fn ids(&self) -> Vec<u64> {
        let built = self.built.lock().unwrap_or_else(|p| p.into_inner());
        let launch = self.launch_variants.lock().unwrap_or_else(|p| p.into_inner());
        std::iter::once(self.id)
            .chain(built.values().map(|p| p.id))
            .chain(launch.values().flatten().map(|v| v.program.id))
            .collect()
    }

    /// The launch-specialised variant of kernel `name` (issue 11, `ptxcross_lower::launch_proof`)
    /// as a program of its own, built if not yet: what launches that satisfy the kernel's launch
    /// precondition run (for inspection: the runtime picks it by itself). `None`: it has none.
    pub fn launch_specialised(&self, name: &str) -> Option<Arc<Program>> {
        let index = self.module.kernels.iter().position(|k| k.name == name && !k.features.warp_fallback)?;
        self.launch_variant(index).map(|v| v.program.clone())
    }

    /// Kernel `index`'s launch precondition and launch-specialised variant (built on first
    /// use, with the backends this program has code for, validated as any translation);
    /// `None` when it has none (nothing to prove, or the variant failed to build: the checked
    /// kernel then runs every launch).
    pub(crate) fn launch_variant(&self, index: usize) -> Option<Arc<LaunchVariant>> {
        let mut variants = self.launch_variants.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = variants.get(&index) {
            return v.clone();
        }
        let build = || -> Option<Arc<LaunchVariant>> {
            let k = self.module.kernels.get(index)?;
            let proof = ptxcross_lower::launch_proof::analyse(k)?;
            let kernel = ptxcross_lower::launch_proof::specialise(k, &proof)?;
            let module = ir::Module { kernels: vec![kernel], globals: self.module.globals.clone() };
            let backends: Vec<Backend> =
                [Backend::Spirv, Backend::Wgsl].into_iter().filter(|&b| self.has_code(b)).collect();
            let program = crate::translate::build_program_from_ir(&self.name, module, &backends, true).ok()?;
            Some(Arc::new(LaunchVariant { proof, program: Arc::new(program), last: Mutex::new(None) }))
        };
        let v = build();
        variants.insert(index, v.clone());
        v
    }

    /// Whether [`Program::with_segment_variants`] gave it a way to build them.
    pub fn has_segment_variants(&self) -> bool {
        self.variants.is_some()
    }

    /// The translation of kernel `name` for `slots` heap segments (built on first use);
    /// `None` when the program cannot build one.
    pub(crate) fn segment_variant(&self, slots: u32, name: &str) -> Option<Result<Arc<Program>, String>> {
        let variants = self.variants.as_ref()?;
        let mut built = self.built.lock().unwrap_or_else(|p| p.into_inner());
        let key = (slots, name.to_string());
        if let Some(p) = built.get(&key) {
            return Some(Ok(p.clone()));
        }
        let p = match variants(slots, name) {
            Ok(p) => Arc::new(p),
            Err(e) => return Some(Err(e)),
        };
        built.insert(key, p.clone());
        Some(Ok(p))
    }
    pub fn id(&self) -> u64 {
        self.id
    }
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn module(&self) -> &ir::Module {
        &self.module
    }
    pub fn spirv(&self) -> Option<&[u32]> {
        self.spirv.as_deref()
    }
    pub fn wgsl(&self) -> Option<&str> {
        self.wgsl.as_deref()
    }
    pub fn has_code(&self, backend: Backend) -> bool {
        match backend {
            Backend::Spirv => self.spirv.is_some(),
            Backend::Wgsl => self.wgsl.is_some(),
        }
    }
    /// The kernel with this PTX name (or, failing that, this entry-point name).
    pub fn kernel(&self, name: &str) -> Option<&ir::Kernel> {
        let ks = &self.module.kernels;
        ks.iter()
            .find(|k| k.name == name)
            .or_else(|| ks.iter().find(|k| k.entry_point == name))
    }
    /// The kernels' PTX names (an emulated twin, `ir::Features::warp_fallback`, is not listed:
    /// it shares its kernel's name).
    pub fn kernel_names(&self) -> Vec<String> {
        self.module.kernels.iter().filter(|k| !k.features.warp_fallback).map(|k| k.name.clone()).collect()
    }
}

/// Each fault site of `k` as the host reports it: `file:line:col (`opcode`)`, indexed by site id
/// − 1 (`abi::FAULT_SITE_WORD` holds the id of the faulting instruction; 0: none). The site of a
/// fault that is only a loop the driver cut is not reported (it is no instruction's fault; the
/// site word may hold the last instruction that ran): see `Context::settle`.
pub(crate) fn fault_site_texts(program: &Program, k: &ir::Kernel) -> Vec<String> {
    k.fault_sites
        .iter()
        .map(|s| format!("{}:{}:{} (`{}`)", program.name(), s.line, s.col, s.instruction))
        .collect()
}

/// The first instruction of `k` that needs 64-bit floats as the host reports it
/// (`file:line:col: `opcode``, the CLI's `--no-float64` refusal's form), where `lower` recorded
/// one (`ir::Features::float64_site`: translations for a device without them).
pub(crate) fn float64_site_text(program: &Program, k: &ir::Kernel) -> Option<String> {
    let s = k.recorded_site(k.features.float64_site)?;
    Some(format!("{}:{}:{}: `{}`", program.name(), s.line, s.col, s.instruction))
}
