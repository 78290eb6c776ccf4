//! Helpers shared by the driver's test files.

#[allow(dead_code)]
pub mod client;

use cuda::api::*;
use cuda::types::*;

/// Device 0's primary context, retained and made current; `None` (a skip) without a device,
/// unless PTXCROSS_REQUIRE_GPU=1.
#[allow(dead_code)] // not every test file opens a context
pub fn push_primary_context() -> Option<Handle> {
    if cuInit(0) != CUDA_SUCCESS {
        assert_ne!(std::env::var("PTXCROSS_REQUIRE_GPU").as_deref(), Ok("1"), "no device");
        return None;
    }
    let mut ctx = std::ptr::null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), CUDA_SUCCESS);
    assert_eq!(cuCtxPushCurrent_v2(ctx), CUDA_SUCCESS);
    Some(ctx)
}

/// The `vecadd` kernel of the corpus (`tests/corpus/ptx/vecadd.sm52.ptx`), loaded into the
/// current context.
#[allow(dead_code)] // not every test file launches it
pub fn vecadd_function() -> Handle {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/ptx/vecadd.sm52.ptx");
    let ptx = std::ffi::CString::new(std::fs::read(path).unwrap()).unwrap();
    let mut module = std::ptr::null_mut();
    assert_eq!(cuModuleLoadData(&mut module, ptx.as_ptr().cast()), CUDA_SUCCESS);
    let mut f = std::ptr::null_mut();
    assert_eq!(cuModuleGetFunction(&mut f, module, c"vecadd".as_ptr()), CUDA_SUCCESS);
    f
}
