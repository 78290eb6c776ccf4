//! A managed allocation whose addresses are taken in the process (something else is mapped
//! there) is refused with CUDA_ERROR_OUT_OF_MEMORY, never placed elsewhere nor over the other
//! mapping. Its own test binary: one thread, so the heap hands out the address it predicts.

mod common;

use std::ffi::c_void;

use common::push_primary_context;
use cuda::api::*;
use cuda::types::*;

#[test]
fn managed_allocation_over_a_taken_range_is_refused() {
    let Some(_ctx) = push_primary_context() else { return };
    const BYTES: usize = 64 << 10;
    // Where the heap puts the next allocation of this size: first fit, so the same place again.
    let mut p = 0u64;
    assert_eq!(cuMemAllocManaged(&mut p, BYTES, 1), CUDA_SUCCESS);
    assert_eq!(cuMemFree_v2(p), CUDA_SUCCESS);
    let mut q = 0u64;
    assert_eq!(cuMemAlloc_v2(&mut q, BYTES), CUDA_SUCCESS);
    assert_eq!(q, p, "first fit gives the freed place again");
    assert_eq!(cuMemFree_v2(q), CUDA_SUCCESS);

    // Someone else maps the page the allocation would start on.
    let page = p & !4095;
    // SAFETY: a fresh anonymous mapping at a free address (MAP_FIXED_NOREPLACE never replaces).
    let other = unsafe {
        libc::mmap(
            page as usize as *mut c_void,
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    assert_eq!(other as usize as u64, page, "the test's own mapping");
    // SAFETY: the page just mapped.
    unsafe { *(page as usize as *mut u64) = 0x1234_5678 };

    let mut r = 0u64;
    assert_eq!(cuMemAllocManaged(&mut r, BYTES, 1), CUDA_ERROR_OUT_OF_MEMORY);
    assert_eq!(r, 0, "nothing written on failure");
    // The other mapping is untouched, and the refused allocation left nothing behind: the heap
    // place is free again (an ordinary allocation gets it).
    assert_eq!(unsafe { *(page as usize as *const u64) }, 0x1234_5678);
    let mut s = 0u64;
    assert_eq!(cuMemAlloc_v2(&mut s, BYTES), CUDA_SUCCESS);
    assert_eq!(s, p);
    assert_eq!(cuMemFree_v2(s), CUDA_SUCCESS);
    // SAFETY: the test's own mapping.
    unsafe { libc::munmap(page as usize as *mut c_void, 4096) };
    // With the range free again, managed allocation works there.
    assert_eq!(cuMemAllocManaged(&mut r, BYTES, 1), CUDA_SUCCESS);
    assert_eq!(r, p);
    assert_eq!(cuMemFree_v2(r), CUDA_SUCCESS);
}
