//! Device memory beyond one storage binding through the driver API (issue 11): the device heap
//! (1 GiB unless `PTXCROSS_HEAP_MB` says otherwise) is segments of one binding each, so
//! `cuMemAlloc` succeeds past the first binding's worth; one allocation larger than a segment
//! is `CUDA_ERROR_OUT_OF_MEMORY`, and a launch given pointers into two segments runs (the
//! kernel's translation for two segment slots; more segments than the device binds would be
//! `CUDA_ERROR_NOT_SUPPORTED`, which the 8 segments of the 1 GiB heap never reach on lavapipe's
//! 15). Uses two segments of device memory (256 MiB on lavapipe).

mod common;

use std::ffi::c_void;

use cuda::api::*;
use cuda::types::*;

fn ok(r: CUresult) {
    assert_eq!(r, CUDA_SUCCESS);
}

const N: usize = 4096;

#[test]
fn allocations_past_one_binding() {
    std::env::set_var("PTXCROSS_CACHE_DIR", "off");
    let init = cuInit(0);
    if init != CUDA_SUCCESS {
        assert_ne!(std::env::var("PTXCROSS_REQUIRE_GPU").as_deref(), Ok("1"), "no device (cuInit {init})");
        eprintln!("skipped: no GPU adapter");
        return;
    }
    let segment = ptxcross::Gpu::shared().expect("device").max_segment_bytes();
    let whole = (segment - ptxcross::runtime::HEAP_RESERVED_BYTES) as usize;
    let mut ctx = std::ptr::null_mut();
    ok(cuDevicePrimaryCtxRetain(&mut ctx, 0));
    ok(cuCtxSetCurrent(ctx));
    let (mut free0, mut total) = (0usize, 0usize);
    ok(cuMemGetInfo_v2(&mut free0, &mut total));
    assert!(total as u64 > segment, "the default heap (1 GiB) exceeds one binding ({segment} bytes) on this device: {total}");

    // More than a segment in one allocation: out of memory, with nothing allocated.
    let mut p: CUdeviceptr = 0;
    assert_eq!(cuMemAlloc_v2(&mut p, whole + 1), CUDA_ERROR_OUT_OF_MEMORY);
    // A whole segment, then three buffers in the next one.
    let mut big: CUdeviceptr = 0;
    ok(cuMemAlloc_v2(&mut big, whole));
    let mut bufs = [0 as CUdeviceptr; 3];
    for b in &mut bufs {
        ok(cuMemAlloc_v2(b, N * 4));
    }
    let mut free1 = 0usize;
    ok(cuMemGetInfo_v2(&mut free1, &mut total));
    assert!(free1 < free0 - whole, "{free1} {free0}");

    let a: Vec<f32> = (0..N).map(|i| i as f32 * 0.25).collect();
    let b: Vec<f32> = (0..N).map(|i| 3.0 - i as f32).collect();
    ok(cuMemcpyHtoD_v2(bufs[0], a.as_ptr() as *const c_void, N * 4));
    ok(cuMemcpyHtoD_v2(bufs[1], b.as_ptr() as *const c_void, N * 4));
    let f = common::vecadd_function();
    let launch = |x: &CUdeviceptr, y: &CUdeviceptr, z: &CUdeviceptr| {
        let n = N as i32;
        let mut args: [*mut c_void; 4] =
            [x as *const _ as *mut c_void, y as *const _ as *mut c_void, z as *const _ as *mut c_void, &n as *const _ as *mut c_void];
        cuLaunchKernel(f, (N / 128) as u32, 1, 1, 128, 1, 1, 0, std::ptr::null_mut(), args.as_mut_ptr(), std::ptr::null_mut())
    };
    // Every buffer in the second segment: runs.
    ok(launch(&bufs[0], &bufs[1], &bufs[2]));
    ok(cuCtxSynchronize());
    let mut c = vec![0f32; N];
    ok(cuMemcpyDtoH_v2(c.as_mut_ptr() as *mut c_void, bufs[2], N * 4));
    for (i, (c, (a, b))) in c.iter().zip(a.iter().zip(&b)).enumerate() {
        assert_eq!(c.to_bits(), (a + b).to_bits(), "c[{i}]");
    }
    // The whole first segment and the second one in one launch: x from the end of the first
    // segment's allocation, y and z in the second.
    let x = big + (whole - N * 4) as CUdeviceptr;
    let a2: Vec<f32> = (0..N).map(|i| 1.5 * i as f32 - 700.0).collect();
    ok(cuMemcpyHtoD_v2(x, a2.as_ptr() as *const c_void, N * 4));
    ok(cuMemsetD32_v2(bufs[2], 7, N));
    ok(launch(&x, &bufs[1], &bufs[2]));
    ok(cuCtxSynchronize());
    ok(cuMemcpyDtoH_v2(c.as_mut_ptr() as *mut c_void, bufs[2], N * 4));
    for (i, (c, (a, b))) in c.iter().zip(a2.iter().zip(&b)).enumerate() {
        assert_eq!(c.to_bits(), (a + b).to_bits(), "two segments: c[{i}]");
    }
    // And the result in the first segment.
    ok(launch(&bufs[0], &bufs[1], &x));
    ok(cuCtxSynchronize());
    ok(cuMemcpyDtoH_v2(c.as_mut_ptr() as *mut c_void, x, N * 4));
    for (i, (c, (a, b))) in c.iter().zip(a.iter().zip(&b)).enumerate() {
        assert_eq!(c.to_bits(), (a + b).to_bits(), "result in the first segment: c[{i}]");
    }
    // Copies between segments.
    ok(cuMemcpyDtoD_v2(big + 1024, bufs[0], N * 4));
    ok(cuMemcpyDtoH_v2(c.as_mut_ptr() as *mut c_void, big + 1024, N * 4));
    assert_eq!(c, a);
    for p in bufs.into_iter().chain([big]) {
        ok(cuMemFree_v2(p));
    }
}
