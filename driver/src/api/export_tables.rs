//! `cuGetExportTable`: the private tables the CUDA runtime (libcudart) asks the driver for.

use std::ffi::c_void;

use crate::types::*;

/// A table id as the usual `{XXXXXXXX-XXXX-...}` text (the bytes in order).
pub fn uuid_text(b: &[u8; 16]) -> String {
    let h: Vec<String> = b.iter().map(|x| format!("{x:02X}")).collect();
    format!("{{{}-{}-{}-{}-{}}}", h[0..4].concat(), h[4..6].concat(), h[6..8].concat(), h[8..10].concat(), h[10..16].concat())
}

#[no_mangle]
pub extern "C" fn cuGetExportTable(table: *mut *const c_void, id: *const c_void) -> CUresult {
    if !table.is_null() {
        // SAFETY: a non-null out-pointer is writable.
        unsafe { *table = std::ptr::null() };
    }
    if id.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: the id is a CUuuid (16 bytes), as the API requires.
    let bytes = unsafe { *(id as *const [u8; 16]) };
    crate::log::trace(format_args!("cuGetExportTable {}: not supported", uuid_text(&bytes)));
    CUDA_ERROR_NOT_SUPPORTED
}
