//! Initialization, versions, error names, entry-point lookup.

use std::ffi::{c_char, c_int, c_void, CStr};

use super::entry;
use crate::generated::{HEADER_CUDA_VERSION, RESULT_NAMES};
use crate::state::{self, put};
use crate::types::*;

/// The CUDA version ptxcross answers to (cuDriverGetVersion): the driver API of CUDA 13.0.
pub const DRIVER_VERSION: c_int = 13000;

#[no_mangle]
pub extern "C" fn cuInit(flags: u32) -> CUresult {
    entry("cuInit", || {
        if flags != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        match state::init() {
            CUDA_SUCCESS => Ok(()),
            e => Err(e),
        }
    })
}

#[no_mangle]
pub extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    entry("cuDriverGetVersion", || put(version, DRIVER_VERSION))
}

fn result_name(code: CUresult) -> Option<&'static str> {
    RESULT_NAMES.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
}

/// NUL-terminated copies of the names and descriptions, made once.
fn c_string(s: String) -> *const c_char {
    Box::leak(format!("{s}\0").into_boxed_str()).as_ptr() as *const c_char
}

fn cached(table: &'static std::sync::Mutex<Vec<(CUresult, usize)>>, code: CUresult, make: impl FnOnce() -> String) -> *const c_char {
    let mut t = table.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&(_, p)) = t.iter().find(|(c, _)| *c == code) {
        return p as *const c_char;
    }
    let p = c_string(make());
    t.push((code, p as usize));
    p
}

#[no_mangle]
pub extern "C" fn cuGetErrorName(error: CUresult, out: *mut *const c_char) -> CUresult {
    static NAMES: std::sync::Mutex<Vec<(CUresult, usize)>> = std::sync::Mutex::new(Vec::new());
    entry("cuGetErrorName", || {
        let name = result_name(error).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        put(out, cached(&NAMES, error, || name.to_string()))
    })
}

/// A sentence per code; the common ones spelled out, the rest from the code's name.
fn describe(code: CUresult, name: &str) -> String {
    match code {
        CUDA_SUCCESS => "no error".into(),
        CUDA_ERROR_INVALID_VALUE => "invalid argument".into(),
        CUDA_ERROR_OUT_OF_MEMORY => "out of memory".into(),
        CUDA_ERROR_NOT_INITIALIZED => "initialization error (cuInit has not been called)".into(),
        CUDA_ERROR_NO_DEVICE => "no CUDA-capable device is detected (ptxcross found no GPU adapter)".into(),
        CUDA_ERROR_INVALID_DEVICE => "invalid device ordinal".into(),
        CUDA_ERROR_INVALID_CONTEXT => "invalid device context".into(),
        CUDA_ERROR_NO_BINARY_FOR_GPU => "no kernel image is available for execution on the device (ptxcross runs PTX only)".into(),
        CUDA_ERROR_INVALID_PTX => "a PTX JIT compilation failed".into(),
        CUDA_ERROR_INVALID_HANDLE => "invalid resource handle".into(),
        CUDA_ERROR_NOT_FOUND => "named symbol not found".into(),
        CUDA_ERROR_NOT_READY => "device not ready".into(),
        CUDA_ERROR_ILLEGAL_ADDRESS => "an illegal memory access was encountered".into(),
        CUDA_ERROR_LAUNCH_TIMEOUT => "the launch timed out and was terminated".into(),
        CUDA_ERROR_NOT_SUPPORTED => "operation not supported".into(),
        _ => name.trim_start_matches("CUDA_ERROR_").replace('_', " ").to_lowercase(),
    }
}

#[no_mangle]
pub extern "C" fn cuGetErrorString(error: CUresult, out: *mut *const c_char) -> CUresult {
    static TEXTS: std::sync::Mutex<Vec<(CUresult, usize)>> = std::sync::Mutex::new(Vec::new());
    entry("cuGetErrorString", || {
        let name = result_name(error).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        put(out, cached(&TEXTS, error, || describe(error, name)))
    })
}

/// Functions cuda.h declares under several ABIs by name (`cuCtxGetDevice` and
/// `cuCtxGetDevice_v2`), with the CUDA version that introduced each: the caller's
/// `cudaVersion` picks one, as the real driver does.
const VERSIONED: &[(&str, &str, c_int)] = &[
    ("cuCtxGetDevice", "cuCtxGetDevice_v2", 13000),
    ("cuCtxSynchronize", "cuCtxSynchronize_v2", 13000),
    ("cuCtxCreate", "cuCtxCreate_v4", 12050),
    ("cuCtxCreate", "cuCtxCreate_v3", 11040),
    ("cuEventElapsedTime", "cuEventElapsedTime_v2", 12080),
    ("cuStreamGetCtx", "cuStreamGetCtx_v2", 12050),
    ("cuLaunchHostFunc", "cuLaunchHostFunc_v2", 13000),
    ("cuMemPrefetchAsync", "cuMemPrefetchAsync_v2", 12020),
    ("cuMemAdvise", "cuMemAdvise_v2", 12020),
    ("cuStreamGetCaptureInfo", "cuStreamGetCaptureInfo_v3", 12030),
    ("cuStreamGetCaptureInfo", "cuStreamGetCaptureInfo_v2", 11030),
    ("cuGraphAddNode", "cuGraphAddNode_v3", 13000),
    ("cuGraphAddNode", "cuGraphAddNode_v2", 12030),
];

/// The symbol `name` resolves to for a caller built against `cuda_version`.
pub fn resolve(name: &str, cuda_version: c_int) -> Option<usize> {
    let table = crate::generated::entry_points();
    let find = |sym: &str| table.iter().find(|(n, _)| *n == sym).map(|(_, p)| *p);
    let versioned: Vec<_> = VERSIONED.iter().filter(|(n, _, _)| *n == name).collect();
    if !versioned.is_empty() {
        return match versioned.iter().find(|(_, _, v)| cuda_version >= *v) {
            Some((_, sym, _)) => find(sym),
            None => find(name),
        };
    }
    let sym = crate::generated::ALIASES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s).unwrap_or(name);
    find(sym)
}

/// `CU_GET_PROC_ADDRESS_*` symbol status values.
const SYMBOL_SUCCESS: c_int = 0;
const SYMBOL_NOT_FOUND: c_int = 1;
const VERSION_NOT_SUFFICIENT: c_int = 2;

#[no_mangle]
pub extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cuda_version: c_int,
    _flags: u64,
    status: *mut c_int,
) -> CUresult {
    entry("cuGetProcAddress_v2", || {
        if symbol.is_null() || pfn.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: `symbol` is a NUL-terminated name (checked non-null above).
        let name = unsafe { CStr::from_ptr(symbol) }.to_string_lossy();
        let set_status = |s: c_int| {
            if !status.is_null() {
                // SAFETY: a non-null status pointer is writable, as the API requires.
                unsafe { *status = s };
            }
        };
        if cuda_version > HEADER_CUDA_VERSION.max(DRIVER_VERSION) + 1000 {
            set_status(VERSION_NOT_SUFFICIENT);
        }
        // Per-thread default-stream variants (flags) are the same functions: work is synchronous.
        match resolve(&name, cuda_version) {
            Some(p) => {
                crate::log::trace(format_args!("cuGetProcAddress {name} (CUDA {cuda_version})"));
                put(pfn, p as *mut c_void)?;
                set_status(SYMBOL_SUCCESS);
                Ok(())
            }
            None => {
                crate::log::trace(format_args!("cuGetProcAddress {name} (CUDA {cuda_version}): not found"));
                put(pfn, std::ptr::null_mut())?;
                set_status(SYMBOL_NOT_FOUND);
                Err(CUDA_ERROR_NOT_FOUND)
            }
        }
    })
}

#[no_mangle]
pub extern "C" fn cuGetProcAddress(symbol: *const c_char, pfn: *mut *mut c_void, cuda_version: c_int, flags: u64) -> CUresult {
    cuGetProcAddress_v2(symbol, pfn, cuda_version, flags, std::ptr::null_mut())
}
