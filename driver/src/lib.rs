//! `libcuda.so.1` over ptxcross: the CUDA driver API's C ABI, so programs written against NVIDIA's
//! driver (numba-cuda and cuda-python, CuPy's raw kernels, C programs linked with `-lcuda`) run
//! their PTX unmodified on any GPU wgpu reaches.
//!
//! - [`api`]: the implemented entry points, by area.
//! - [`generated`]: from cuda.h: result names, enum values, `#define` aliases, and a
//!   `CUDA_ERROR_NOT_SUPPORTED` stub for everything else the API has.
//! - [`state`]: the device, its heap, handle tables, the per-thread current context.
//! - [`fatbin`]: the PTX inside nvcc's fat binaries.
//! - [`managed`]: managed memory (`cuMemAllocManaged`): host mappings and coherence.
//! - [`module`]: loaded PTX and its translations per launch shape; [`cache`]: the disk cache.
//!
//! Build: `bash scripts/build-driver.sh` (target/release/libcuda.so.1 and a libcuda.so link).

#![allow(non_snake_case)]
// The entry points are C functions whose pointer arguments are valid by the API's contract (a C
// caller cannot see `unsafe` anyway); every dereference is commented where it happens.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod api;
pub mod cache;
pub mod fatbin;
pub mod generated;
pub mod hmac_md2;
pub mod log;
pub mod managed;
pub mod module;
pub mod state;
pub mod types;
