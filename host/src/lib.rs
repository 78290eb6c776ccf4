//! ptxcross host: the runtime over wgpu (a CUDA-driver-like API: contexts, device memory,
//! kernel launches) and the `ptxcross` command line.
//!
//! - [`runtime`]: [`runtime::Gpu`], [`runtime::Context`], [`runtime::Program`].
//! - [`translate`]: the one place that drives frontend → lower → backends.
//! - [`ptx_dump`]: `PTXCROSS_PTX_DUMP`, the PTX every translation lowers, collected for later checks.
//! - [`validated`]: SPIR-V validation remembered across processes (once per module and machine).
//! - [`spec`]: launch specs (JSON) that `ptxcross run` and `ptxcross verify` execute.
//! - [`cli`]: the command line.

pub mod cli;
pub mod files;
pub mod ptx_dump;
pub mod runtime;
pub mod spec;
pub mod translate;
pub mod validated;

pub use runtime::{Backend, Context, ContextOptions, DevicePtr, Error, Gpu, Program};
