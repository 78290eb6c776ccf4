//! CUDA arrays, 2D/3D copies and texture objects through the exported C functions: the
//! arrays' documented layout (row-major, no padding) seen through linear copies, pitched
//! copies in every direction leaving the bytes between rows alone, texture objects over an
//! array, pitched memory and linear memory sampled by the nvcc kernels of `tests/texture`
//! (the sampling arithmetic itself is checked against the guide in
//! `tests/tests/texture_e2e.rs`), and the refusals.

use std::ffi::{c_void, CString};

use cuda::api::*;
use cuda::types::*;

fn ok(r: CUresult) {
    assert_eq!(r, CUDA_SUCCESS);
}

/// Device 0's primary context made current; `false` (a skip) without a device, unless
/// PTXCROSS_REQUIRE_GPU=1.
fn context() -> bool {
    if cuInit(0) != CUDA_SUCCESS {
        assert_ne!(std::env::var("PTXCROSS_REQUIRE_GPU").as_deref(), Ok("1"), "no device");
        return false;
    }
    let mut ctx = std::ptr::null_mut();
    ok(cuDevicePrimaryCtxRetain(&mut ctx, 0));
    ok(cuCtxSetCurrent(ctx));
    true
}

const FLOAT: u32 = 0x20;
const U8: u32 = 0x01;
const NV12: u32 = 0xb0;
const HOST: u32 = 1;
const DEVICE: u32 = 2;
const ARRAY: u32 = 3;

fn array2d(w: usize, h: usize, format: u32, channels: u32) -> Handle {
    let mut a = std::ptr::null_mut();
    ok(cuArrayCreate_v2(&mut a, &CudaArrayDescriptor { width: w, height: h, format, num_channels: channels }));
    a
}

fn copy2d() -> CudaMemcpy2d {
    CudaMemcpy2d {
        src_x_in_bytes: 0,
        src_y: 0,
        src_memory_type: 0,
        src_host: std::ptr::null(),
        src_device: 0,
        src_array: std::ptr::null_mut(),
        src_pitch: 0,
        dst_x_in_bytes: 0,
        dst_y: 0,
        dst_memory_type: 0,
        dst_host: std::ptr::null_mut(),
        dst_device: 0,
        dst_array: std::ptr::null_mut(),
        dst_pitch: 0,
        width_in_bytes: 0,
        height: 0,
    }
}

fn array_bytes(a: Handle, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    ok(cuMemcpyAtoH_v2(v.as_mut_ptr() as *mut c_void, a, 0, n));
    v
}

#[test]
fn arrays_and_pitched_copies_keep_the_documented_layout() {
    if !context() {
        return;
    }
    // A 5×4 array of 4-byte texels: row pitch 20 bytes, no padding.
    let a = array2d(5, 4, FLOAT, 1);
    let mut d = CudaArrayDescriptor::default();
    ok(cuArrayGetDescriptor_v2(&mut d, a));
    assert_eq!((d.width, d.height, d.format, d.num_channels), (5, 4, FLOAT, 1));
    ok(cuMemcpyHtoA_v2(a, 0, vec![0xeeu8; 80].as_ptr() as *const c_void, 80));
    // Host rows of pitch 32 (bytes 100 + …), region x = 4..16 bytes, rows 1..4 → array (1, 0).
    let host: Vec<u8> = (0..32 * 4).map(|i| i as u8).collect();
    let mut c = copy2d();
    (c.src_memory_type, c.src_host, c.src_pitch, c.src_x_in_bytes, c.src_y) = (HOST, host.as_ptr() as *const c_void, 32, 4, 1);
    (c.dst_memory_type, c.dst_array, c.dst_x_in_bytes) = (ARRAY, a, 4);
    (c.width_in_bytes, c.height) = (12, 3);
    ok(cuMemcpy2D_v2(&c));
    let got = array_bytes(a, 80);
    for y in 0..4 {
        for x in 0..20 {
            let want = if (4..16).contains(&x) && y < 3 { host[(y + 1) * 32 + x] } else { 0xee };
            assert_eq!(got[y * 20 + x], want, "array byte ({x}, {y})");
        }
    }
    // Array → pitched device memory → host, each with offsets; the bytes between rows stay.
    let (mut dev, mut pitch) = (0u64, 0usize);
    ok(cuMemAllocPitch_v2(&mut dev, &mut pitch, 20, 4, 4));
    assert!(pitch >= 20 && pitch % 32 == 0);
    ok(cuMemsetD8_v2(dev, 0x11, pitch * 4));
    let mut c = copy2d();
    (c.src_memory_type, c.src_array) = (ARRAY, a);
    (c.dst_memory_type, c.dst_device, c.dst_pitch, c.dst_y) = (DEVICE, dev, pitch, 1);
    (c.width_in_bytes, c.height) = (20, 3);
    ok(cuMemcpy2D_v2(&c));
    let mut back = vec![0u8; pitch * 4];
    ok(cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut c_void, dev, pitch * 4));
    for y in 0..4 {
        for x in 0..pitch {
            let want = if y >= 1 && x < 20 { got[(y - 1) * 20 + x] } else { 0x11 };
            assert_eq!(back[y * pitch + x], want, "pitched byte ({x}, {y})");
        }
    }
    let mut out = vec![0x77u8; 64];
    let mut c = copy2d();
    (c.src_memory_type, c.src_device, c.src_pitch, c.src_x_in_bytes, c.src_y) = (DEVICE, dev, pitch, 8, 2);
    (c.dst_memory_type, c.dst_host, c.dst_pitch) = (HOST, out.as_mut_ptr() as *mut c_void, 16);
    (c.width_in_bytes, c.height) = (8, 2);
    ok(cuMemcpy2D_v2(&c));
    for (i, &b) in out.iter().enumerate() {
        let (y, x) = (i / 16, i % 16);
        let want = if y < 2 && x < 8 { back[(y + 2) * pitch + 8 + x] } else { 0x77 };
        assert_eq!(b, want, "host byte {i}");
    }
    // A region outside the array is refused, not clipped.
    let mut c = copy2d();
    (c.src_memory_type, c.src_host, c.src_pitch) = (HOST, host.as_ptr() as *const c_void, 32);
    (c.dst_memory_type, c.dst_array, c.dst_y) = (ARRAY, a, 2);
    (c.width_in_bytes, c.height) = (20, 3);
    assert_eq!(cuMemcpy2D_v2(&c), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(cuMemcpyHtoA_v2(a, 72, host.as_ptr() as *const c_void, 16), CUDA_ERROR_INVALID_VALUE);
    ok(cuArrayDestroy(a));
    assert_eq!(cuArrayDestroy(a), CUDA_ERROR_INVALID_HANDLE);
    // cuMemsetD2D16: 3 elements of 3 rows, the rest of each row and the last row untouched.
    ok(cuMemsetD8_v2(dev, 0x11, pitch * 4));
    ok(cuMemsetD2D16_v2(dev, pitch, 0xbeef, 3, 3));
    ok(cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut c_void, dev, pitch * 4));
    for (i, &b) in back.iter().enumerate() {
        let (y, x) = (i / pitch, i % pitch);
        let want = if y < 3 && x < 6 { [0xef, 0xbe][x % 2] } else { 0x11 };
        assert_eq!(b, want, "memset byte ({x}, {y})");
    }
    ok(cuMemFree_v2(dev));
}

#[test]
fn three_d_copies_fill_slices_row_by_row() {
    if !context() {
        return;
    }
    let mut a = std::ptr::null_mut();
    let desc = CudaArray3dDescriptor { width: 3, height: 2, depth: 2, format: U8, num_channels: 2, flags: 0 };
    ok(cuArray3DCreate_v2(&mut a, &desc));
    let mut got = CudaArray3dDescriptor::default();
    ok(cuArray3DGetDescriptor_v2(&mut got, a));
    assert_eq!((got.width, got.height, got.depth, got.num_channels), (3, 2, 2, 2));
    // Host volume of 8-byte rows, 3 rows per slice; copy 6 bytes × 2 rows × 2 slices.
    let host: Vec<u8> = (0..8 * 3 * 2).map(|i| (i * 7) as u8).collect();
    let mut c: CudaMemcpy3d = unsafe { std::mem::zeroed() };
    (c.src_memory_type, c.src_host, c.src_pitch, c.src_height, c.src_y) = (HOST, host.as_ptr() as *const c_void, 8, 3, 1);
    (c.dst_memory_type, c.dst_array) = (ARRAY, a);
    (c.width_in_bytes, c.height, c.depth) = (6, 2, 2);
    ok(cuMemcpy3D_v2(&c));
    let bytes = array_bytes(a, 24);
    for z in 0..2 {
        for y in 0..2 {
            for x in 0..6 {
                assert_eq!(bytes[(z * 2 + y) * 6 + x], host[(z * 3 + y + 1) * 8 + x], "({x}, {y}, {z})");
            }
        }
    }
    ok(cuArrayDestroy(a));
    // Layered and cubemap arrays are refused by name.
    let layered = CudaArray3dDescriptor { flags: 1, ..desc };
    assert_eq!(cuArray3DCreate_v2(&mut a, &layered), CUDA_ERROR_NOT_SUPPORTED);
    assert_eq!(cuArrayCreate_v2(&mut a, &CudaArrayDescriptor { width: 4, height: 4, format: NV12, num_channels: 1 }), CUDA_ERROR_NOT_SUPPORTED);
}

fn resource_array(a: Handle) -> CudaResourceDesc {
    let mut r = CudaResourceDesc { res_type: 0, res: [0; 16], flags: 0 };
    r.res[0] = a as u64;
    r
}

fn launch(kernel: &str, t: u64, coords: &[u8], n: usize) -> Vec<f32> {
    let ptx = CString::new(std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/texture/ptx/texture.nvcc.ptx")).unwrap()).unwrap();
    let mut module = std::ptr::null_mut();
    ok(cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void));
    let mut f = std::ptr::null_mut();
    let name = CString::new(kernel).unwrap();
    ok(cuModuleGetFunction(&mut f, module, name.as_ptr()));
    let (mut dc, mut dout) = (0u64, 0u64);
    ok(cuMemAlloc_v2(&mut dc, coords.len()));
    ok(cuMemcpyHtoD_v2(dc, coords.as_ptr() as *const c_void, coords.len()));
    ok(cuMemAlloc_v2(&mut dout, n * 16));
    let n32 = n as i32;
    let mut args: [*mut c_void; 4] =
        [&t as *const _ as *mut c_void, &dc as *const _ as *mut c_void, &dout as *const _ as *mut c_void, &n32 as *const _ as *mut c_void];
    ok(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, std::ptr::null_mut(), args.as_mut_ptr(), std::ptr::null_mut()));
    let mut out = vec![0f32; n * 4];
    ok(cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, dout, n * 16));
    ok(cuMemFree_v2(dc));
    ok(cuMemFree_v2(dout));
    ok(cuModuleUnload(module));
    out
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn texture_objects_over_arrays_pitched_and_linear_memory() {
    if !context() {
        return;
    }
    // A 4×2 array of float4 texels: channel c of texel (x, y) = 10y + x + c/4 (exact sums).
    let texel = |x: usize, y: usize, c: usize| (10 * y + x) as f32 + c as f32 / 4.0;
    let host: Vec<f32> = (0..2).flat_map(|y| (0..4).flat_map(move |x| (0..4).map(move |c| texel(x, y, c)))).collect();
    let a = array2d(4, 2, FLOAT, 4);
    ok(cuMemcpyHtoA_v2(a, 0, host.as_ptr() as *const c_void, host.len() * 4));
    // Linear filtering, clamp: texel centres give texels, midpoints the mean, outside clamps.
    let mut tex = CudaTextureDesc { address_mode: [1, 1, 1], filter_mode: 1, ..Default::default() };
    let mut t = 0u64;
    ok(cuTexObjectCreate(&mut t, &resource_array(a), &tex, std::ptr::null()));
    let coords = [0.5f32, 0.5, 2.5, 1.5, 1.0, 0.5, 2.0, 1.0, -3.0, 9.0];
    let out = launch("sample2d", t, &f32_bytes(&coords), 5);
    let mean = |pts: &[(usize, usize)], c: usize| pts.iter().map(|&(x, y)| texel(x, y, c)).sum::<f32>() / pts.len() as f32;
    for c in 0..4 {
        assert_eq!(out[c], texel(0, 0, c));
        assert_eq!(out[4 + c], texel(2, 1, c));
        assert_eq!(out[8 + c], mean(&[(0, 0), (1, 0)], c));
        assert_eq!(out[12 + c], mean(&[(1, 0), (2, 0), (1, 1), (2, 1)], c));
        assert_eq!(out[16 + c], texel(0, 1, c));
    }
    let mut back = CudaTextureDesc::default();
    ok(cuTexObjectGetTextureDesc(&mut back, t));
    assert_eq!((back.address_mode, back.filter_mode), ([1, 1, 1], 1));
    ok(cuTexObjectDestroy(t));
    assert_eq!(cuTexObjectDestroy(t), CUDA_ERROR_INVALID_VALUE);

    // Pitched memory (cuMemAllocPitch), point sampling, border mode with a border colour.
    let (mut dev, mut pitch) = (0u64, 0usize);
    ok(cuMemAllocPitch_v2(&mut dev, &mut pitch, 64, 2, 16));
    let mut c = copy2d();
    (c.src_memory_type, c.src_array) = (ARRAY, a);
    (c.dst_memory_type, c.dst_device, c.dst_pitch) = (DEVICE, dev, pitch);
    (c.width_in_bytes, c.height) = (64, 2);
    ok(cuMemcpy2D_v2(&c));
    let mut r = CudaResourceDesc { res_type: 3, res: [0; 16], flags: 0 };
    r.res[..5].copy_from_slice(&[dev, FLOAT as u64 | 4 << 32, 4, 2, pitch as u64]);
    tex = CudaTextureDesc { address_mode: [3, 3, 3], filter_mode: 0, border_color: [9.0, 8.0, 7.0, 6.0], ..Default::default() };
    ok(cuTexObjectCreate(&mut t, &r, &tex, std::ptr::null()));
    let out = launch("sample2d", t, &f32_bytes(&[3.9, 1.2, 4.0, 0.5, 0.1, -0.1]), 3);
    assert_eq!(out[..4], [texel(3, 1, 0), texel(3, 1, 1), texel(3, 1, 2), texel(3, 1, 3)]);
    assert_eq!(out[4..], [9.0, 8.0, 7.0, 6.0, 9.0, 8.0, 7.0, 6.0]);
    ok(cuTexObjectDestroy(t));

    // Linear memory (`tex1Dfetch`): integer indices, out of range reads 0 whatever the modes.
    let mut r = CudaResourceDesc { res_type: 2, res: [0; 16], flags: 0 };
    r.res[..3].copy_from_slice(&[dev, FLOAT as u64 | 4 << 32, 64]);
    tex = CudaTextureDesc { address_mode: [1, 1, 1], filter_mode: 1, ..Default::default() };
    ok(cuTexObjectCreate(&mut t, &r, &tex, std::ptr::null()));
    let idx: Vec<u8> = [3i32, 4, -1, 0].iter().flat_map(|i| i.to_le_bytes()).collect();
    let out = launch("fetch1d", t, &idx, 4);
    assert_eq!(out[..4], [texel(3, 0, 0), texel(3, 0, 1), texel(3, 0, 2), texel(3, 0, 3)]);
    assert_eq!(out[4..12], [0.0; 8]);
    assert_eq!(out[12..], [texel(0, 0, 0), texel(0, 0, 1), texel(0, 0, 2), texel(0, 0, 3)]);
    ok(cuTexObjectDestroy(t));

    // Refusals: resource views, mipmapped arrays, sRGB, filtering integers read as integers.
    let view = [0u8; 128];
    assert_eq!(cuTexObjectCreate(&mut t, &resource_array(a), &tex, view.as_ptr() as *const c_void), CUDA_ERROR_NOT_SUPPORTED);
    let mip = CudaResourceDesc { res_type: 1, res: [0; 16], flags: 0 };
    assert_eq!(cuTexObjectCreate(&mut t, &mip, &tex, std::ptr::null()), CUDA_ERROR_NOT_SUPPORTED);
    let srgb = CudaTextureDesc { flags: 0x10, ..tex };
    assert_eq!(cuTexObjectCreate(&mut t, &resource_array(a), &srgb, std::ptr::null()), CUDA_ERROR_NOT_SUPPORTED);
    let bytes = array2d(4, 4, U8, 4);
    let as_integer = CudaTextureDesc { flags: 0x01, filter_mode: 1, ..tex };
    assert_eq!(cuTexObjectCreate(&mut t, &resource_array(bytes), &as_integer, std::ptr::null()), CUDA_ERROR_INVALID_VALUE);
    // A surface needs an array made for surface loads and stores.
    assert_eq!(cuSurfObjectCreate(&mut t, &resource_array(bytes)), CUDA_ERROR_INVALID_VALUE);
    ok(cuArrayDestroy(bytes));
    ok(cuArrayDestroy(a));
    ok(cuMemFree_v2(dev));
}
