//! Loaded modules: the PTX, its parse, the kernels' host-visible facts, and the translations
//! made for each launch shape.
//!
//! Loading a module parses it, does the module-wide part of lowering and checks every
//! instruction (`ptxcross_lower::module_facts`: the functions' analysis, the globals' layout
//! and initial image, each kernel's parameter layout, each instruction lowered once and
//! dropped), so invalid or unsupported PTX instructions are refused by cuModuleLoadData as
//! CUDA's JIT refuses them (with the diagnostics on stderr and in the JIT error log). The
//! passes over a kernel's whole body (CFG, structurizer, SIMT, cleanup: 90% of lowering) run
//! lazily, as CUDA's lazy loading (`CUDA_MODULE_LOADING=LAZY`, the default since CUDA 12.2)
//! loads a kernel at first use: a kernel is translated on its first launch for that launch
//! shape (`%ntid` is a constant in the generated code), so each (kernel, block, dynamic shared
//! bytes) is translated once, and kept: in memory per module, on disk in [`crate::cache`].
//! The attributes only a lowering knows (static shared and local memory: cuFuncGetAttribute,
//! cuOccupancy*) lower the kernel with the default options once, on their first call. What
//! only the whole-body passes refuse (control flow nested too deep once structured, a barrier
//! that cannot be made uniform) surfaces there: `CUDA_ERROR_INVALID_PTX` from the launch or
//! the attribute query, with the diagnostics on stderr; the module's other kernels stay
//! usable. `CUDA_MODULE_LOADING=EAGER` lowers every kernel at load, as this library did
//! before (4.5 s CPU instead of 0.9 s for the CUB file), refusing the module there.

use std::collections::HashMap;
use std::sync::Arc;

use ptxcross::runtime::Program;
use ptxcross::translate::{self, TranslateError};
use ptxcross_frontend::{ast, SourceFile};
use ptxcross_lower::{ir, KernelFacts, LowerOptions, ModuleFacts};

use crate::cache::{self, DiskKey};
use crate::fatbin;
use crate::state::Device;
use crate::types::*;

/// Per-launch-shape translation key: kernel, block, dynamic shared bytes.
pub type ShapeKey = (String, [u32; 3], u32);

pub struct Module {
    pub ctx: u64,
    pub file: SourceFile,
    pub ast: ast::Module,
    /// The kernels' parameter layouts and the globals segment, known at load.
    pub facts: ModuleFacts,
    /// Kernels lowered with the default options (for their static shared and local memory),
    /// on first need; an error is kept as its rendered diagnostics.
    lowered: HashMap<String, Result<ir::Kernel, String>>,
    pub hash: blake3::Hash,
    /// Base address of the module's globals segment in the heap (0: none).
    pub globals_base: u64,
    pub programs: HashMap<ShapeKey, Arc<Program>>,
    /// Function handle per kernel name (cuModuleGetFunction returns the same one each time).
    pub functions: HashMap<String, u64>,
    /// Loaded by cuLibraryLoadData: context-independent, it outlives a reset of its context
    /// ([`crate::state::Driver::release_ctx_resources`]).
    pub library: bool,
}

/// Why an image cannot be loaded, with the message for the log.
pub struct LoadError {
    pub code: CUresult,
    pub message: String,
}

const ELF_MAGIC: &[u8] = b"\x7fELF";
/// `e_ident[EI_OSABI]` of cubins: 0x33 from older toolkits, 0x41 from nvcc/ptxas 13.5.
const ELF_OSABI_CUDA: [u8; 2] = [0x33, 0x41];

/// Reads the image a program passes to cuModuleLoadData: NUL-terminated PTX text, or a fatbin
/// (or the wrapper nvcc embeds) whose best PTX entry is taken ([`crate::fatbin`]). cubins are
/// refused (ptxcross runs PTX only).
///
/// # Safety
/// `image` is null or points at a NUL-terminated string or an ELF/fatbin image, as the API
/// requires.
pub unsafe fn image_text(image: *const std::ffi::c_void) -> Result<String, LoadError> {
    if image.is_null() {
        return Err(LoadError { code: CUDA_ERROR_INVALID_VALUE, message: "the image is a null pointer".into() });
    }
    let head = std::slice::from_raw_parts(image as *const u8, 4);
    if head == ELF_MAGIC {
        // A cubin's identification bytes say 64-bit, little-endian, version 1, OS/ABI CUDA's.
        // Anything else is no image at all: NVIDIA's driver (580, H200) answers
        // CUDA_ERROR_INVALID_IMAGE for `\x7fELF\2\1\1`. The bytes are read one at a time up to
        // the first that differs, so a short string is not read past its terminator.
        let byte = |i: usize| *(image as *const u8).add(i);
        let is_cubin = byte(4) == 2 && byte(5) == 1 && byte(6) == 1 && ELF_OSABI_CUDA.contains(&byte(7));
        if !is_cubin {
            return Err(LoadError { code: CUDA_ERROR_INVALID_IMAGE, message: "the image starts like an ELF file but is not a CUDA cubin".into() });
        }
        return Err(LoadError {
            code: CUDA_ERROR_NO_BINARY_FOR_GPU,
            message: "the image is a cubin (SASS): ptxcross runs PTX only \
                      (compile to PTX, e.g. nvcc --ptx, or keep PTX in the fatbin)"
                .into(),
        });
    }
    if let Some(bytes) = fatbin::fatbin_bytes(image as *const u8).map_err(no_ptx)? {
        return fatbin_text(bytes);
    }
    let text = std::ffi::CStr::from_ptr(image as *const std::ffi::c_char);
    text.to_str().map(str::to_string).map_err(|e| LoadError {
        code: CUDA_ERROR_INVALID_PTX,
        message: format!("the PTX is not UTF-8 text (byte {})", e.valid_up_to()),
    })
}

fn no_ptx(e: fatbin::FatbinError) -> LoadError {
    LoadError { code: CUDA_ERROR_NO_BINARY_FOR_GPU, message: e.0 }
}

/// The best PTX entry of a fatbin, for the device's compute capability.
fn fatbin_text(bytes: &[u8]) -> Result<String, LoadError> {
    let (major, minor) = crate::api::COMPUTE_CAPABILITY;
    let (entry, text) = fatbin::best_ptx(bytes, (major * 10 + minor) as u32).map_err(no_ptx)?;
    crate::log::trace(format_args!("fatbin: the PTX {}.{} entry for sm_{} (flags {:#x})", entry.version.0, entry.version.1, entry.arch, entry.flags));
    Ok(text)
}

/// Reads a module file (cuModuleLoad): PTX text, or a fatbin, parsed within the file's bytes
/// (a truncated file is refused, not read past). A wrapper holds pointers, meaningless in a file.
pub fn file_text(mut bytes: Vec<u8>) -> Result<String, LoadError> {
    let magic = bytes.get(..4).map(|m| u32::from_le_bytes([m[0], m[1], m[2], m[3]]));
    if magic == Some(fatbin::FATBIN_MAGIC) {
        return fatbin_text(&bytes);
    }
    if magic == Some(fatbin::WRAPPER_MAGIC) {
        return Err(no_ptx(fatbin::FatbinError("the file holds a fatbin wrapper (pointers), not a fatbin".into())));
    }
    bytes.push(0);
    // SAFETY: NUL-terminated above, and neither kind of fatbin.
    unsafe { image_text(bytes.as_ptr() as *const std::ffi::c_void) }
}

fn translate_error(e: TranslateError) -> LoadError {
    let code = match e.stage() {
        Some(translate::Stage::Parse) | Some(translate::Stage::Lower) => CUDA_ERROR_INVALID_PTX,
        _ => CUDA_ERROR_INVALID_IMAGE,
    };
    LoadError { code, message: e.render() }
}

impl Module {
    /// Parses `text` and gathers its module-wide facts (see the module's comment); `name`
    /// appears in diagnostics.
    pub fn load(name: &str, text: String, ctx: u64) -> Result<Module, LoadError> {
        Module::load_with(name, text, ctx, Module::eager_loading())
    }

    /// `CUDA_MODULE_LOADING=EAGER`: lower every kernel at load (lazily on first use otherwise).
    pub fn eager_loading() -> bool {
        std::env::var("CUDA_MODULE_LOADING").is_ok_and(|v| v.eq_ignore_ascii_case("EAGER"))
    }

    /// [`Module::load`]; `eager`: lower every kernel now (refusing the module if one fails).
    pub fn load_with(name: &str, text: String, ctx: u64, eager: bool) -> Result<Module, LoadError> {
        let hash = blake3::hash(text.as_bytes());
        let file = SourceFile::new(name.to_string(), text);
        let ast = translate::parse(&file).map_err(translate_error)?;
        let facts = translate::module_facts(&ast, &file, &LowerOptions::default()).map_err(translate_error)?;
        let mut module =
            Module { ctx, file, ast, facts, lowered: HashMap::new(), hash, globals_base: 0, programs: HashMap::new(), functions: HashMap::new(), library: false };
        if eager {
            let names: Vec<String> = module.facts.kernels.iter().map(|k| k.name.clone()).collect();
            let lowered = translate::lower_each(&module.ast, &module.file, &LowerOptions::default(), &names);
            for (name, ir) in names.into_iter().zip(lowered) {
                let mut ir = ir.map_err(translate_error)?;
                let kernel = ir.kernels.swap_remove(0);
                module.lowered.insert(name, Ok(kernel));
            }
        }
        Ok(module)
    }

    /// The virtual architecture the PTX was written for (`.target sm_80` → 80; `sm_90a` → 90),
    /// or `None` without a `.target sm_XY`.
    pub fn target_arch(&self) -> Option<i32> {
        self.ast.sm_version().map(|v| v as i32)
    }

    /// A kernel's name and parameter layout (known at load).
    pub fn kernel(&self, name: &str) -> Option<&KernelFacts> {
        self.facts.kernels.iter().find(|k| k.name == name)
    }

    /// `name` lowered with the default options, lowered now if it was not yet (`None`: no
    /// such kernel; an error: its rendered diagnostics, logged on the first try).
    pub fn lowered(&mut self, name: &str) -> Option<Result<&ir::Kernel, &str>> {
        self.kernel(name)?;
        if !self.lowered.contains_key(name) {
            let options = LowerOptions { kernel: Some(name.to_string()), ..LowerOptions::default() };
            let result = match translate::lower(&self.ast, &self.file, &options) {
                Ok(mut ir) => Ok(ir.kernels.swap_remove(0)),
                Err(e) => {
                    let message = e.render();
                    crate::log::error(format_args!("cannot translate kernel `{name}`:\n{}", message.trim_end()));
                    Err(message)
                }
            };
            self.lowered.insert(name.to_string(), result);
        }
        Some(self.lowered[name].as_ref().map_err(String::as_str))
    }

    /// How many kernels were lowered with the default options so far.
    pub fn lowered_count(&self) -> usize {
        self.lowered.len()
    }

    /// Size of the globals segment.
    pub fn globals_size(&self) -> u64 {
        let g = &self.facts.globals;
        g.vars.iter().map(|v| v.offset + v.size).max().unwrap_or(0).max(g.init.len() as u64)
    }

    /// The translation of `kernel` for this launch shape: from memory, else from the disk
    /// cache, else translated (and validated) now.
    pub fn program(&mut self, device: &Device, key: &ShapeKey) -> Result<Arc<Program>, String> {
        if let Some(p) = self.programs.get(key) {
            cache::count_memory_hit();
            return Ok(p.clone());
        }
        let (kernel, block, dynamic_shared) = key;
        let options = LowerOptions {
            kernel: Some(kernel.clone()),
            block: Some(*block),
            dynamic_shared_bytes: *dynamic_shared,
            ..device.options.clone()
        };
        let ir = translate::lower(&self.ast, &self.file, &options).map_err(|e| e.render())?;
        let disk = DiskKey::new(&self.hash, key, device);
        let program = match cache::load(&disk, device.backend) {
            Some(code) => code.into_program(self.file.name.clone(), ir),
            None => {
                let p = translate::build_program_from_ir(&self.file.name, ir, &[device.backend], true)
                    .map_err(|e| e.render())?;
                cache::store(&disk, &p, device.backend);
                p
            }
        };
        // A launch whose pointers lie in several heap segments (issue 11) runs the kernel's
        // translation for that many, made (from the source again) at the first such launch.
        let (file, backend) = (self.file.clone(), device.backend);
        let program = program.with_segment_variants(Arc::new(move |slots, _kernel: &str| {
            let options = LowerOptions { segment_slots: slots, ..options.clone() };
            let ast = translate::parse(&file).map_err(|e| e.render())?;
            let ir = translate::lower(&ast, &file, &options).map_err(|e| e.render())?;
            translate::build_program_from_ir(&file.name, ir, &[backend], true).map_err(|e| e.render())
        }));
        let program = Arc::new(program);
        self.programs.insert(key.clone(), program.clone());
        Ok(program)
    }
}
