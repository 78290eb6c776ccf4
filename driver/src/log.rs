//! Messages to stderr, prefixed `ptxcross:`. The driver API has no channel for a reason beyond
//! the error code, so the cause of every failure is written here; `PTXCROSS_DRIVER_LOG=1` adds a
//! trace of entry-point lookups.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use crate::types::{CUresult, CUDA_ERROR_NOT_SUPPORTED};

pub fn error(message: impl std::fmt::Display) {
    eprintln!("ptxcross: {message}");
}

pub fn trace_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("PTXCROSS_DRIVER_LOG").is_ok_and(|v| !v.is_empty() && v != "0"))
}

pub fn trace(message: impl std::fmt::Display) {
    if trace_enabled() {
        eprintln!("ptxcross: {message}");
    }
}

/// What every unimplemented entry point returns; says which one, once per name.
pub fn unsupported(name: &'static str) -> CUresult {
    static SEEN: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let first = SEEN
        .lock()
        .map(|mut s| s.get_or_insert_with(HashSet::new).insert(name))
        .unwrap_or(true);
    if first {
        error(format_args!("{name} is not supported by ptxcross yet (CUDA_ERROR_NOT_SUPPORTED)"));
    }
    CUDA_ERROR_NOT_SUPPORTED
}
