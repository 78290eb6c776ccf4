//! Entry-point lookup, error names, the per-thread current context and bad handles, through
//! the exported C functions (the values are CUDA's documented ones).

mod common;

use std::ffi::{c_char, c_void, CStr, CString};

use cuda::api::*;
use cuda::types::*;
use common::push_primary_context;

fn lookup(name: &str, version: i32) -> (CUresult, usize, i32) {
    let name = CString::new(name).unwrap();
    let mut p: *mut c_void = std::ptr::null_mut();
    let mut status = -1;
    let r = cuGetProcAddress_v2(name.as_ptr(), &mut p, version, 0, &mut status);
    (r, p as usize, status)
}

#[test]
fn get_proc_address_resolves_versions_like_the_driver() {
    // `cuMemAlloc` is `cuMemAlloc_v2` for any CUDA ≥ 3.2 caller (cuda.h's #define).
    assert_eq!(lookup("cuMemAlloc", 3020), (CUDA_SUCCESS, cuMemAlloc_v2 as *const () as usize, 0));
    // Two ABIs under one name: the caller's version picks one.
    assert_eq!(lookup("cuCtxGetDevice", 2000).1, cuCtxGetDevice as *const () as usize);
    assert_eq!(lookup("cuCtxGetDevice", 13000).1, cuCtxGetDevice_v2 as *const () as usize);
    assert_eq!(lookup("cuEventElapsedTime", 2000).1, cuEventElapsedTime as *const () as usize);
    // Unimplemented functions resolve (to a refusing stub); unknown names do not.
    let (r, p, s) = lookup("cuGraphCreate", 10000);
    assert_eq!((r, s), (CUDA_SUCCESS, 0));
    assert_ne!(p, 0);
    assert_eq!(lookup("cuNoSuchFunction", 12000), (CUDA_ERROR_NOT_FOUND, 0, 1));
}

#[test]
fn error_names_and_strings() {
    let mut s: *const c_char = std::ptr::null();
    assert_eq!(cuGetErrorName(700, &mut s), CUDA_SUCCESS);
    assert_eq!(unsafe { CStr::from_ptr(s) }.to_str().unwrap(), "CUDA_ERROR_ILLEGAL_ADDRESS");
    assert_eq!(cuGetErrorString(2, &mut s), CUDA_SUCCESS);
    assert_eq!(unsafe { CStr::from_ptr(s) }.to_str().unwrap(), "out of memory");
    assert_eq!(cuGetErrorName(123_456, &mut s), CUDA_ERROR_INVALID_VALUE);
}

#[test]
fn current_context_is_per_thread_and_bad_handles_are_refused() {
    let Some(ctx) = push_primary_context() else { return };
    let mut p = 0u64;
    assert_eq!(cuMemAlloc_v2(&mut p, 64), CUDA_SUCCESS);
    // Another thread has no current context until it sets one.
    std::thread::spawn(move || {
        let mut q = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut q, 64), CUDA_ERROR_INVALID_CONTEXT);
        let mut free = 0usize;
        let mut total = 0usize;
        assert_eq!(cuMemGetInfo_v2(&mut free, &mut total), CUDA_ERROR_INVALID_CONTEXT);
    })
    .join()
    .unwrap();
    let ctx_addr = ctx as usize;
    std::thread::spawn(move || {
        assert_eq!(cuCtxSetCurrent(ctx_addr as Handle), CUDA_SUCCESS);
        let (mut free, mut total) = (0usize, 0usize);
        assert_eq!(cuMemGetInfo_v2(&mut free, &mut total), CUDA_SUCCESS);
        assert!(total > 0 && free > 0 && free <= total);
    })
    .join()
    .unwrap();
    // Handles of the wrong kind, or made up, are refused.
    let mut f = std::ptr::null_mut();
    let name = CString::new("k").unwrap();
    assert_eq!(cuModuleGetFunction(&mut f, ctx, name.as_ptr()), CUDA_ERROR_INVALID_HANDLE);
    assert_eq!(cuStreamSynchronize(0x1234_5678 as Handle), CUDA_ERROR_INVALID_HANDLE);
    assert_eq!(cuCtxSetCurrent(0x42 as Handle), CUDA_ERROR_INVALID_CONTEXT);
    assert_eq!(cuDeviceGet(&mut 0, 7), CUDA_ERROR_INVALID_DEVICE);
    // Over the device's memory: out of memory, not a crash.
    let mut big = 0u64;
    assert_eq!(cuMemAlloc_v2(&mut big, 1 << 50), CUDA_ERROR_OUT_OF_MEMORY);
    assert_eq!(cuMemFree_v2(p), CUDA_SUCCESS);
    assert_eq!(cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE);
    let mut popped = std::ptr::null_mut();
    assert_eq!(cuCtxPopCurrent_v2(&mut popped), CUDA_SUCCESS);
    assert_eq!(popped, ctx);
}

#[test]
fn module_globals_initialized_with_addresses_hold_the_patched_addresses() {
    let Some(_ctx) = push_primary_context() else { return };
    // PTX ISA §5.4.4: `table+8` / `generic(table)+8` is the address of table's byte 8; mask()
    // puts one byte of an address at the lowest position of the field.
    let ptx = CString::new(
        ".version 8.5\n.target sm_80\n.address_size 64\n\
         .global .align 4 .u32 table[4] = {1, 2, 3, 4};\n\
         .global .u64 tp = generic(table)+8;\n\
         .const .u64 ctab[2] = {table, later+4};\n\
         .global .align 8 .u8 tb[2] = {0xFF(table+4), 0xFF00(table+4)};\n\
         .global .u32 later[2];\n\
         .visible .entry k() { ret; }\n",
    )
    .unwrap();
    let mut module = std::ptr::null_mut();
    assert_eq!(cuModuleLoadData(&mut module, ptx.as_ptr().cast()), CUDA_SUCCESS);
    let global = |name: &str| {
        let (mut p, mut size) = (0u64, 0usize);
        let name = CString::new(name).unwrap();
        assert_eq!(cuModuleGetGlobal_v2(&mut p, &mut size, module, name.as_ptr()), CUDA_SUCCESS);
        (p, size)
    };
    let read = |p: u64, n: usize| {
        let mut b = vec![0u8; n];
        assert_eq!(cuMemcpyDtoH_v2(b.as_mut_ptr().cast(), p, n), CUDA_SUCCESS);
        b
    };
    let (table, _) = global("table");
    let (later, _) = global("later");
    let (tp, tp_size) = global("tp");
    assert_eq!(tp_size, 8);
    assert_eq!(read(tp, 8), (table + 8).to_le_bytes());
    let (ctab, _) = global("ctab");
    assert_eq!(read(ctab, 16), [table.to_le_bytes(), (later + 4).to_le_bytes()].concat());
    let (tb, _) = global("tb");
    assert_eq!(read(tb, 2), [(table + 4) as u8, ((table + 4) >> 8) as u8]);
    assert_eq!(read(table + 8, 4), 3u32.to_le_bytes());
    assert_eq!(cuModuleUnload(module), CUDA_SUCCESS);
    let mut popped = std::ptr::null_mut();
    assert_eq!(cuCtxPopCurrent_v2(&mut popped), CUDA_SUCCESS);
}

/// The device-side malloc heap and the printf buffer have one size each (8 MiB and 1 MiB, each
/// module's): a larger limit is refused (kernels would not get the room asked for), a smaller
/// one accepted, and `cuCtxGetLimit` reports the size kernels really get.
#[test]
fn malloc_heap_limit_reports_the_real_heap_size() {
    let Some(_ctx) = push_primary_context() else { return };
    const MALLOC_HEAP_SIZE: i32 = 2; // CU_LIMIT_MALLOC_HEAP_SIZE
    let mut v = 0usize;
    assert_eq!(cuCtxGetLimit(&mut v, MALLOC_HEAP_SIZE), CUDA_SUCCESS);
    assert_eq!(v, 8 << 20);
    assert_eq!(cuCtxSetLimit(MALLOC_HEAP_SIZE, 64 << 20), CUDA_ERROR_UNSUPPORTED_LIMIT);
    assert_eq!(cuCtxSetLimit(MALLOC_HEAP_SIZE, 4 << 20), CUDA_SUCCESS);
    assert_eq!(cuCtxGetLimit(&mut v, MALLOC_HEAP_SIZE), CUDA_SUCCESS);
    assert_eq!(v, 8 << 20, "the heap stays 8 MiB");
    const PRINTF_FIFO_SIZE: i32 = 1; // CU_LIMIT_PRINTF_FIFO_SIZE
    assert_eq!(cuCtxSetLimit(PRINTF_FIFO_SIZE, 2 << 20), CUDA_ERROR_UNSUPPORTED_LIMIT);
    assert_eq!(cuCtxSetLimit(PRINTF_FIFO_SIZE, 1 << 20), CUDA_SUCCESS);
    assert_eq!(cuCtxGetLimit(&mut v, PRINTF_FIFO_SIZE), CUDA_SUCCESS);
    assert_eq!(v, 1 << 20);
    let mut popped = std::ptr::null_mut();
    assert_eq!(cuCtxPopCurrent_v2(&mut popped), CUDA_SUCCESS);
}

/// ELF images: a cubin (identification bytes as nvcc 13.5's `-cubin` writes them: 64-bit,
/// little-endian, version 1, OS/ABI 0x41, ABI version 8) is refused as CUDA refuses a cubin it
/// cannot run, CUDA_ERROR_NO_BINARY_FOR_GPU; an ELF header that is no cubin is
/// CUDA_ERROR_INVALID_IMAGE, NVIDIA's answer (driver 580 on an H200) for `\x7fELF\2\1\1`.
#[test]
fn elf_images_are_cubins_or_invalid_images_as_nvidia_says() {
    let Some(_ctx) = push_primary_context() else { return };
    let mut module = std::ptr::null_mut();
    let mut cubin = vec![0x7fu8, b'E', b'L', b'F', 2, 1, 1, 0x41, 8];
    cubin.resize(64, 0);
    assert_eq!(cuModuleLoadData(&mut module, cubin.as_ptr().cast()), CUDA_ERROR_NO_BINARY_FOR_GPU);
    cubin[7] = 0x33; // OS/ABI of older toolkits' cubins
    assert_eq!(cuModuleLoadData(&mut module, cubin.as_ptr().cast()), CUDA_ERROR_NO_BINARY_FOR_GPU);
    let not_cubin = b"\x7fELF\x02\x01\x01\0";
    assert_eq!(cuModuleLoadData(&mut module, not_cubin.as_ptr().cast()), CUDA_ERROR_INVALID_IMAGE);
    let elf32 = b"\x7fELF\x01\x01\x01\x41\0";
    assert_eq!(cuModuleLoadData(&mut module, elf32.as_ptr().cast()), CUDA_ERROR_INVALID_IMAGE);
}
