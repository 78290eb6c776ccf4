//! The exported entry points, by area. Each one runs inside [`entry`]: a Rust panic (a ptxcross
//! bug) becomes `CUDA_ERROR_UNKNOWN` with a message instead of unwinding into C.

mod context;
mod device;
mod export_tables;
mod init;
mod launch;
mod memory;
mod module;
mod stream;
mod texture;

pub use context::*;
pub use device::*;
pub use export_tables::*;
pub use init::*;
pub use launch::*;
pub use memory::*;
pub use module::*;
pub use stream::*;
pub use texture::*;

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::types::*;

pub(crate) fn entry(name: &str, f: impl FnOnce() -> Result<(), CUresult>) -> CUresult {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => CUDA_SUCCESS,
        Ok(Err(code)) => code,
        Err(_) => {
            crate::log::error(format_args!("internal error in {name} (please report this)"));
            CUDA_ERROR_UNKNOWN
        }
    }
}
