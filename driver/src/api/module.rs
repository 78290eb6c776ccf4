//! Modules, libraries, functions/kernels and the PTX linker. A library is a module and a
//! kernel a function (the same handles), which is what lets numba pass a `CUkernel` where a
//! `CUfunction` is expected.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

use super::entry;
use crate::generated::{CUfunction_attribute as F, CUjitInputType as J, CUjit_option as O};
use crate::module::{file_text, image_text, LoadError, Module};
use ptxcross_frontend::{ast, SourceFile};
use crate::state::{self, handle, id_of, out, put, Driver, Function, Kind, Link};
use crate::types::*;

/// The error-log buffer among JIT options (`CU_JIT_ERROR_LOG_BUFFER` + its size).
fn error_log(n: c_uint, options: *const c_int, values: *mut *mut c_void) -> Option<(*mut u8, usize)> {
    if n == 0 || options.is_null() || values.is_null() {
        return None;
    }
    let (mut buf, mut size) = (None, None);
    for i in 0..n as usize {
        // SAFETY: both arrays hold `n` entries, as the API requires.
        let (o, v) = unsafe { (*options.add(i), *values.add(i)) };
        match o as i64 {
            O::CU_JIT_ERROR_LOG_BUFFER => buf = Some(v as *mut u8),
            O::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES => size = Some(v as usize),
            _ => {}
        }
    }
    match (buf, size) {
        (Some(b), Some(s)) if !b.is_null() && s > 0 => Some((b, s)),
        _ => None,
    }
}

fn write_log(log: Option<(*mut u8, usize)>, message: &str) {
    if let Some((buf, size)) = log {
        let n = message.len().min(size - 1);
        // SAFETY: the program's buffer holds `size` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(message.as_ptr(), buf, n);
            *buf.add(n) = 0;
        }
    }
}

/// Loads PTX text as a module of the current context; logs and returns the cause on failure.
fn load_text(d: &mut Driver, ctx: u64, name: &str, text: Result<String, LoadError>, log: Option<(*mut u8, usize)>) -> Result<Handle, CUresult> {
    let module = text.and_then(|t| Module::load(name, t, ctx));
    let mut module = match module {
        Ok(m) => m,
        Err(e) => {
            crate::log::error(format_args!("cannot load module {name}:\n{}", e.message.trim_end()));
            write_log(log, &e.message);
            return Err(e.code);
        }
    };
    let size = module.globals_size();
    if size > 0 {
        let base = super::memory::alloc(d, ctx, size)?;
        d.device.heap.write(ptxcross::DevicePtr(base), &module.facts.globals.image(base)).map_err(|e| {
            crate::log::error(format_args!("cannot initialize the globals of {name}: {e}"));
            CUDA_ERROR_OUT_OF_MEMORY
        })?;
        module.globals_base = base;
        map_managed_vars(d, &module, name)?;
    }
    let id = d.new_id();
    d.modules.insert(id, module);
    Ok(handle(Kind::Module, id))
}

/// Names of the module-scope `.global .attribute(.managed)` variables (CUDA's `__managed__`).
fn managed_var_names(module: &Module) -> Vec<&str> {
    module
        .ast
        .items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Var(v) if v.space == ast::StateSpace::Global && v.attributes.iter().any(|a| a.contains(".managed")) => Some(v),
            _ => None,
        })
        .flat_map(|v| v.names.iter().map(|n| &*n.name.name))
        .collect()
}

/// Makes the module's `__managed__` variables managed memory (`crate::managed`): their bytes
/// of the globals allocation are mapped at the same address in the process, holding their
/// initial values, so the host reaches them through the address cudart gets for them
/// (`cuLibraryGetManaged`) and kernels through the globals. On failure the globals allocation
/// is freed and the load refused.
fn map_managed_vars(d: &mut Driver, module: &Module, name: &str) -> Result<(), CUresult> {
    let base = module.globals_base;
    let image = module.facts.globals.image(base);
    for var_name in managed_var_names(module) {
        let Some(var) = module.facts.globals.vars.iter().find(|v| v.name == var_name) else { continue };
        let start = base + var.offset;
        if let Err(message) = d.managed.insert(start, var.size, crate::managed::ATTACH_GLOBAL, var.size) {
            crate::log::error(format_args!("cannot load module {name}: `__managed__` variable `{var_name}`: {message}"));
            for (s, _) in d.managed.within(base, image.len() as u64) {
                d.managed.remove(s);
            }
            d.allocations.remove(&base);
            let _ = d.device.heap.free(ptxcross::DevicePtr(base));
            return Err(CUDA_ERROR_OUT_OF_MEMORY);
        }
    }
    d.managed.overwrite_within(base, &image);
    Ok(())
}

/// `caller`: the entry point, for the trace. A library (`cuLibraryLoadData`) is
/// context-independent, as in CUDA: without a current context it goes to the primary one
/// (the CUDA runtime loads a program's library before any context exists when the program
/// first touches a `__managed__` variable: `__cudaInitModule`).
fn load_image(caller: &str, pmod: *mut Handle, image: *const c_void, log: Option<(*mut u8, usize)>, library: bool) -> Result<(), CUresult> {
    crate::log::trace(format_args!("{caller}"));
    state::with(|d| {
        out(pmod)?;
        let ctx = match state::current() {
            None if library => d.primary,
            _ => d.current_ctx()?,
        };
        // SAFETY: the program passes an image, as the API requires.
        let text = unsafe { image_text(image) };
        let h = load_text(d, ctx, "<module image>", text, log)?;
        put(pmod, h)
    })
}

#[no_mangle]
pub extern "C" fn cuModuleLoadData(pmod: *mut Handle, image: *const c_void) -> CUresult {
    entry("cuModuleLoadData", || load_image("cuModuleLoadData", pmod, image, None, false))
}

#[no_mangle]
pub extern "C" fn cuModuleLoadDataEx(pmod: *mut Handle, image: *const c_void, n: c_uint, options: *const c_int, values: *mut *mut c_void) -> CUresult {
    entry("cuModuleLoadDataEx", || load_image("cuModuleLoadDataEx", pmod, image, error_log(n, options, values), false))
}

/// A fatbin (or nvcc's wrapper of one): its best PTX entry is loaded.
#[no_mangle]
pub extern "C" fn cuModuleLoadFatBinary(pmod: *mut Handle, fat_cubin: *const c_void) -> CUresult {
    entry("cuModuleLoadFatBinary", || load_image("cuModuleLoadFatBinary", pmod, fat_cubin, None, false))
}

/// `CU_MODULE_LAZY_LOADING` (2), or `CU_MODULE_EAGER_LOADING` (1) under
/// `CUDA_MODULE_LOADING=EAGER`: how [`Module::load`] treats kernels (the CUDA runtime asks).
#[no_mangle]
pub extern "C" fn cuModuleGetLoadingMode(mode: *mut c_int) -> CUresult {
    entry("cuModuleGetLoadingMode", || put(mode, if Module::eager_loading() { 1 } else { 2 }))
}

fn c_str<'a>(p: *const c_char) -> Result<&'a str, CUresult> {
    if p.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: a NUL-terminated string, as the API requires.
    unsafe { CStr::from_ptr(p) }.to_str().map_err(|_| CUDA_ERROR_INVALID_VALUE)
}

fn read_file(path: &str) -> Result<String, LoadError> {
    let bytes = std::fs::read(path).map_err(|e| LoadError {
        code: CUDA_ERROR_FILE_NOT_FOUND,
        message: format!("cannot read {path}: {e}"),
    })?;
    file_text(bytes)
}

#[no_mangle]
pub extern "C" fn cuModuleLoad(pmod: *mut Handle, fname: *const c_char) -> CUresult {
    entry("cuModuleLoad", || {
        let path = c_str(fname)?;
        state::with(|d| {
            out(pmod)?;
            let ctx = d.current_ctx()?;
            let h = load_text(d, ctx, path, read_file(path), None)?;
            put(pmod, h)
        })
    })
}

fn module_id(d: &Driver, h: Handle) -> Result<u64, CUresult> {
    let id = id_of(h, Kind::Module).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    d.modules.contains_key(&id).then_some(id).ok_or(CUDA_ERROR_INVALID_HANDLE)
}

fn unload(h: Handle) -> Result<(), CUresult> {
    state::with(|d| {
        let id = module_id(d, h)?;
        d.unload_module(id);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuModuleUnload(h: Handle) -> CUresult {
    entry("cuModuleUnload", || unload(h))
}

fn get_function(pfunc: *mut Handle, h: Handle, name: *const c_char) -> Result<(), CUresult> {
    let name = c_str(name)?;
    state::with(|d| {
        out(pfunc)?;
        let mid = module_id(d, h)?;
        if let Some(&f) = d.modules[&mid].functions.get(name) {
            return put(pfunc, handle(Kind::Function, f));
        }
        if d.modules[&mid].kernel(name).is_none() {
            return Err(CUDA_ERROR_NOT_FOUND);
        }
        let fid = d.new_id();
        d.functions.insert(fid, Function { module: mid, kernel: name.to_string(), max_dynamic_shared: None });
        if let Some(m) = d.modules.get_mut(&mid) {
            m.functions.insert(name.to_string(), fid);
        }
        put(pfunc, handle(Kind::Function, fid))
    })
}

#[no_mangle]
pub extern "C" fn cuModuleGetFunction(pfunc: *mut Handle, h: Handle, name: *const c_char) -> CUresult {
    entry("cuModuleGetFunction", || get_function(pfunc, h, name))
}

fn get_global(dptr: *mut CUdeviceptr, bytes: *mut usize, h: Handle, name: *const c_char) -> Result<(), CUresult> {
    let name = c_str(name)?;
    state::with(|d| {
        let m = &d.modules[&module_id(d, h)?];
        let var = m.facts.globals.vars.iter().find(|v| v.name == name).ok_or(CUDA_ERROR_NOT_FOUND)?;
        if !dptr.is_null() {
            put(dptr, m.globals_base + var.offset)?;
        }
        if !bytes.is_null() {
            put(bytes, var.size as usize)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuModuleGetGlobal_v2(dptr: *mut CUdeviceptr, bytes: *mut usize, h: Handle, name: *const c_char) -> CUresult {
    entry("cuModuleGetGlobal_v2", || get_global(dptr, bytes, h, name))
}

// ---- libraries and kernels

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn cuLibraryLoadData(
    plib: *mut Handle,
    code: *const c_void,
    n_jit: c_uint,
    jit_options: *const c_int,
    jit_values: *mut *mut c_void,
    _n_lib: c_uint,
    _lib_options: *const c_int,
    _lib_values: *mut *mut c_void,
) -> CUresult {
    entry("cuLibraryLoadData", || {
        load_image("cuLibraryLoadData", plib, code, error_log(n_jit, jit_options, jit_values), true)?;
        mark_library(plib)
    })
}

/// The module just loaded into `*plib` is a library (see [`Module::library`]).
fn mark_library(plib: *mut Handle) -> Result<(), CUresult> {
    // SAFETY: written by the successful load just before.
    let h = unsafe { *plib };
    state::with(|d| {
        let id = module_id(d, h)?;
        d.modules.get_mut(&id).ok_or(CUDA_ERROR_INVALID_HANDLE)?.library = true;
        Ok(())
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn cuLibraryLoadFromFile(
    plib: *mut Handle,
    fname: *const c_char,
    _n_jit: c_uint,
    _jit_options: *const c_int,
    _jit_values: *mut *mut c_void,
    _n_lib: c_uint,
    _lib_options: *const c_int,
    _lib_values: *mut *mut c_void,
) -> CUresult {
    match cuModuleLoad(plib, fname) {
        CUDA_SUCCESS => entry("cuLibraryLoadFromFile", || mark_library(plib)),
        e => e,
    }
}

#[no_mangle]
pub extern "C" fn cuLibraryUnload(h: Handle) -> CUresult {
    entry("cuLibraryUnload", || unload(h))
}

#[no_mangle]
pub extern "C" fn cuLibraryGetKernel(pkernel: *mut Handle, h: Handle, name: *const c_char) -> CUresult {
    entry("cuLibraryGetKernel", || get_function(pkernel, h, name))
}

#[no_mangle]
pub extern "C" fn cuLibraryGetModule(pmod: *mut Handle, h: Handle) -> CUresult {
    entry("cuLibraryGetModule", || state::with(|d| module_id(d, h).and_then(|_| put(pmod, h))))
}

/// A `__managed__` variable's address (valid on the host and in kernels) and size;
/// `CUDA_ERROR_NOT_FOUND` for a name that is not a managed variable of the library.
#[no_mangle]
pub extern "C" fn cuLibraryGetManaged(dptr: *mut CUdeviceptr, bytes: *mut usize, h: Handle, name: *const c_char) -> CUresult {
    entry("cuLibraryGetManaged", || {
        let (mut p, mut n) = (0u64, 0usize);
        get_global(&mut p, &mut n, h, name)?;
        state::with(|d| {
            if d.managed.containing(p).map(|r| r.0) != Some(p) {
                crate::log::error(format_args!("cuLibraryGetManaged: `{}` is not a `__managed__` variable", c_str(name).unwrap_or_default()));
                return Err(CUDA_ERROR_NOT_FOUND);
            }
            if !dptr.is_null() {
                put(dptr, p)?;
            }
            if !bytes.is_null() {
                put(bytes, n)?;
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuLibraryGetGlobal(dptr: *mut CUdeviceptr, bytes: *mut usize, h: Handle, name: *const c_char) -> CUresult {
    entry("cuLibraryGetGlobal", || get_global(dptr, bytes, h, name))
}

pub(crate) fn function_id(d: &Driver, h: Handle) -> Result<u64, CUresult> {
    let id = id_of(h, Kind::Function).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    d.functions.contains_key(&id).then_some(id).ok_or(CUDA_ERROR_INVALID_HANDLE)
}

#[no_mangle]
pub extern "C" fn cuKernelGetFunction(pfunc: *mut Handle, kernel: Handle) -> CUresult {
    entry("cuKernelGetFunction", || state::with(|d| function_id(d, kernel).and_then(|_| put(pfunc, kernel))))
}

#[no_mangle]
pub extern "C" fn cuFuncGetModule(pmod: *mut Handle, func: Handle) -> CUresult {
    entry("cuFuncGetModule", || {
        state::with(|d| {
            let f = &d.functions[&function_id(d, func)?];
            put(pmod, handle(Kind::Module, f.module))
        })
    })
}

fn name_of(pname: *mut *const c_char, func: Handle) -> Result<(), CUresult> {
    static NAMES: std::sync::Mutex<Vec<(u64, usize)>> = std::sync::Mutex::new(Vec::new());
    state::with(|d| {
        let id = function_id(d, func)?;
        let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
        let p = match names.iter().find(|(i, _)| *i == id) {
            Some(&(_, p)) => p,
            None => {
                let s = Box::leak(format!("{}\0", d.functions[&id].kernel).into_boxed_str()).as_ptr() as usize;
                names.push((id, s));
                s
            }
        };
        put(pname, p as *const c_char)
    })
}

#[no_mangle]
pub extern "C" fn cuFuncGetName(pname: *mut *const c_char, func: Handle) -> CUresult {
    entry("cuFuncGetName", || name_of(pname, func))
}

#[no_mangle]
pub extern "C" fn cuKernelGetName(pname: *mut *const c_char, kernel: Handle) -> CUresult {
    entry("cuKernelGetName", || name_of(pname, kernel))
}

/// A function's kernel lowered with the default options (lowered now on its first use; see
/// `crate::module`): its static shared and local memory. An error in its body is
/// `CUDA_ERROR_INVALID_PTX` (the diagnostics are logged).
pub(crate) fn lowered_memory(d: &mut Driver, fid: u64) -> Result<(u32, u32), CUresult> {
    let f = &d.functions[&fid];
    let m = d.modules.get_mut(&f.module).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    match m.lowered(&f.kernel).ok_or(CUDA_ERROR_INVALID_HANDLE)? {
        // Shared memory in a workgroup array or, beyond the device's, in global memory.
        Ok(k) => Ok(((k.shared_words + k.features.scratch_shared_words) * 4, k.local_words * 4)),
        Err(_) => Err(CUDA_ERROR_INVALID_PTX),
    }
}

/// Function attributes. Those only a lowering knows (shared and local memory) lower the
/// kernel on first use; the others need nothing from it.
fn function_attribute(d: &mut Driver, func: Handle, attr: i64) -> Result<c_int, CUresult> {
    let fid = function_id(d, func)?;
    let needs_lowering = matches!(
        attr,
        F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES | F::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES | F::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    );
    let (static_shared, local) = if needs_lowering { lowered_memory(d, fid)? } else { (0, 0) };
    // Without opt-in: CUDA's default maximum of dynamic shared memory is the per-block limit
    // less the static size.
    let shared_limit = super::device::shared_per_block(d) as c_int;
    let lim = d.device.gpu.limits();
    let f = &d.functions[&fid];
    let static_shared = static_shared as c_int;
    let device_arch = super::device::COMPUTE_CAPABILITY.0 * 10 + super::device::COMPUTE_CAPABILITY.1;
    Ok(match attr {
        F::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK => lim.max_compute_invocations_per_workgroup as c_int,
        F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES => static_shared,
        F::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES => 0,
        F::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES => local as c_int,
        // Registers are the target compiler's business; a typical count keeps occupancy
        // calculators sensible.
        F::CU_FUNC_ATTRIBUTE_NUM_REGS => 32,
        // The architecture the kernel's PTX targets (CUB and Thrust pick their tuning, and
        // refuse kernels built for none of it, by this), and the device's for the binary,
        // which is what the PTX is compiled for.
        F::CU_FUNC_ATTRIBUTE_PTX_VERSION => d.modules.get(&f.module).and_then(|m| m.target_arch()).unwrap_or(device_arch),
        F::CU_FUNC_ATTRIBUTE_BINARY_VERSION => device_arch,
        F::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => {
            f.max_dynamic_shared.map(|v| v as c_int).unwrap_or((shared_limit - static_shared).max(0))
        }
        F::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => -1,
        a if (0..F::CU_FUNC_ATTRIBUTE_MAX).contains(&a) => 0,
        _ => return Err(CUDA_ERROR_INVALID_VALUE),
    })
}

fn set_function_attribute(d: &mut Driver, func: Handle, attr: i64, value: c_int) -> Result<(), CUresult> {
    let id = function_id(d, func)?;
    let limit = super::device::shared_per_block_optin(d) as c_int;
    match attr {
        F::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => {
            if !(0..=limit).contains(&value) {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            if let Some(f) = d.functions.get_mut(&id) {
                f.max_dynamic_shared = Some(value as u32);
            }
            Ok(())
        }
        a if (0..F::CU_FUNC_ATTRIBUTE_MAX).contains(&a) => Ok(()),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    }
}

#[no_mangle]
pub extern "C" fn cuFuncGetAttribute(value: *mut c_int, attrib: c_int, func: Handle) -> CUresult {
    entry("cuFuncGetAttribute", || state::with(|d| put(value, function_attribute(d, func, attrib as i64)?)))
}

#[no_mangle]
pub extern "C" fn cuFuncSetAttribute(func: Handle, attrib: c_int, value: c_int) -> CUresult {
    entry("cuFuncSetAttribute", || state::with(|d| set_function_attribute(d, func, attrib as i64, value)))
}

#[no_mangle]
pub extern "C" fn cuKernelGetAttribute(value: *mut c_int, attrib: c_int, kernel: Handle, dev: CUdevice) -> CUresult {
    entry("cuKernelGetAttribute", || {
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        state::with(|d| put(value, function_attribute(d, kernel, attrib as i64)?))
    })
}

#[no_mangle]
pub extern "C" fn cuKernelSetAttribute(attrib: c_int, value: c_int, kernel: Handle, dev: CUdevice) -> CUresult {
    entry("cuKernelSetAttribute", || {
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        state::with(|d| set_function_attribute(d, kernel, attrib as i64, value))
    })
}

/// Cache configuration is a hint; accepted and ignored.
#[no_mangle]
pub extern "C" fn cuFuncSetCacheConfig(func: Handle, _config: c_int) -> CUresult {
    entry("cuFuncSetCacheConfig", || state::with(|d| function_id(d, func).map(drop)))
}

#[no_mangle]
pub extern "C" fn cuKernelSetCacheConfig(kernel: Handle, _config: c_int, dev: CUdevice) -> CUresult {
    entry("cuKernelSetCacheConfig", || {
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        state::with(|d| function_id(d, kernel).map(drop))
    })
}

// ---- the linker: PTX inputs only

fn link_id(d: &Driver, h: Handle) -> Result<u64, CUresult> {
    let id = id_of(h, Kind::Link).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    d.links.contains_key(&id).then_some(id).ok_or(CUDA_ERROR_INVALID_HANDLE)
}

#[no_mangle]
pub extern "C" fn cuLinkCreate_v2(n: c_uint, options: *mut c_int, values: *mut *mut c_void, pstate: *mut Handle) -> CUresult {
    entry("cuLinkCreate_v2", || {
        state::with(|d| {
            d.current_ctx()?;
            out(pstate)?;
            let id = d.new_id();
            d.links.insert(id, Link { inputs: Vec::new(), output: None, error_log: error_log(n, options, values) });
            put(pstate, handle(Kind::Link, id))
        })
    })
}

fn add_input(link: Handle, kind: c_int, data: Vec<u8>, name: &str) -> Result<(), CUresult> {
    state::with(|d| {
        let id = link_id(d, link)?;
        let l = d.links.get_mut(&id).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        if kind as i64 != J::CU_JIT_INPUT_PTX {
            let message = format!("cuLinkAdd: input `{name}` is not PTX (input type {kind}); ptxcross links PTX only");
            crate::log::error(&message);
            write_log(l.error_log, &message);
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        l.inputs.push((name.to_string(), data));
        Ok(())
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn cuLinkAddData_v2(
    link: Handle,
    kind: c_int,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    _n: c_uint,
    _options: *mut c_int,
    _values: *mut *mut c_void,
) -> CUresult {
    entry("cuLinkAddData_v2", || {
        if data.is_null() || size == 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let name = if name.is_null() { "<input>" } else { c_str(name)? };
        // SAFETY: `data` holds `size` bytes.
        let mut bytes = unsafe { std::slice::from_raw_parts(data as *const u8, size) }.to_vec();
        while bytes.last() == Some(&0) {
            bytes.pop();
        }
        add_input(link, kind, bytes, name)
    })
}

#[no_mangle]
pub extern "C" fn cuLinkAddFile_v2(link: Handle, kind: c_int, path: *const c_char, _n: c_uint, _options: *mut c_int, _values: *mut *mut c_void) -> CUresult {
    entry("cuLinkAddFile_v2", || {
        let path = c_str(path)?;
        let bytes = std::fs::read(path).map_err(|e| {
            crate::log::error(format_args!("cuLinkAddFile: cannot read {path}: {e}"));
            CUDA_ERROR_FILE_NOT_FOUND
        })?;
        add_input(link, kind, bytes, path)
    })
}

/// The linked image is PTX text (loaded later by cuModuleLoadData): the one input itself, or
/// several inputs linked by `ptxcross_frontend::link` (unresolved, duplicate or mismatched
/// symbols are reported with their input's file:line:col in the error log).
#[no_mangle]
pub extern "C" fn cuLinkComplete(link: Handle, cubin: *mut *mut c_void, size: *mut usize) -> CUresult {
    entry("cuLinkComplete", || {
        state::with(|d| {
            let id = link_id(d, link)?;
            let l = d.links.get_mut(&id).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
            let text = match l.inputs.as_slice() {
                [(_, text)] => text.clone(),
                [] => return Err(CUDA_ERROR_INVALID_VALUE),
                more => {
                    let linked = more
                        .iter()
                        .map(|(name, bytes)| {
                            String::from_utf8(bytes.clone())
                                .map(|t| SourceFile::new(name.clone(), t))
                                .map_err(|_| vec![format!("cuLinkComplete: input `{name}` is not UTF-8 text, so not PTX")])
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .and_then(|files| ptxcross_frontend::link::link_sources(&files));
                    match linked {
                        Ok(text) => text.into_bytes(),
                        Err(errors) => {
                            let message = format!("cuLinkComplete: linking failed:\n{}", errors.join("\n"));
                            crate::log::error(&message);
                            write_log(l.error_log, &message);
                            return Err(CUDA_ERROR_INVALID_PTX);
                        }
                    }
                }
            };
            let mut image = text;
            image.push(0);
            let len = image.len();
            let output = l.output.insert(image);
            put(cubin, output.as_mut_ptr() as *mut c_void)?;
            if !size.is_null() {
                put(size, len)?;
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuLinkDestroy(link: Handle) -> CUresult {
    entry("cuLinkDestroy", || {
        state::with(|d| {
            let id = link_id(d, link)?;
            d.links.remove(&id);
            Ok(())
        })
    })
}
