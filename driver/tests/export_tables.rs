//! cuGetExportTable through the C ABI, as the CUDA runtime uses it: tables found by UUID,
//! their size slots, the context-local storage, the integrity check's fixed answers.
//! (That libcudart 13 accepts all of it is driver/tests/clients.rs's runtime test.)

mod common;

use std::ffi::c_void;

use cuda::api::*;
use cuda::types::*;

fn uuid(text: &str) -> [u8; 16] {
    let hex: String = text.chars().filter(|c| c.is_ascii_hexdigit()).collect();
    let mut b = [0u8; 16];
    for (i, byte) in b.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    b
}

fn table(text: &str) -> (CUresult, *const *const c_void) {
    let id = uuid(text);
    // Not null, so that a refusal visibly clears it.
    let mut t: *const c_void = std::ptr::dangling();
    let r = cuGetExportTable(&mut t, id.as_ptr() as *const c_void);
    (r, t as *const *const c_void)
}

fn slot(t: *const *const c_void, i: usize) -> *const c_void {
    // SAFETY: `t` is a table the driver served, with at least `i + 1` slots.
    unsafe { *t.add(i) }
}

#[test]
fn tables_are_found_by_uuid_and_unknown_ones_refused() {
    // The CUDA runtime's interface (13 slots) and the integrity check (3): slot 0 is the size.
    for (id, slots) in [("6bd5fb6c-5bf4-e74a-8987-d93912fd9df9", 13), ("d4082055-bde6-704b-8d34-ba123c66e1f2", 3), ("21318c60-9714-3248-8ca6-41ff7324c8f2", 95)] {
        let (r, t) = table(id);
        assert_eq!(r, CUDA_SUCCESS, "{id}");
        assert_eq!(slot(t, 0) as usize, slots * 8, "{id}");
    }
    let (r, t) = table("00000000-0000-0000-0000-000000000000");
    assert_eq!((r, t), (CUDA_ERROR_NOT_SUPPORTED, std::ptr::null()));
    // The table cuBLAS and the runtime probe first stays refused (the runtime goes on without it).
    assert_eq!(table("f8cff951-2146-8b4e-b9e2-fb469e7c0dd9").0, CUDA_ERROR_NOT_SUPPORTED);
    assert_eq!(cuGetExportTable(std::ptr::null_mut(), [0u8; 16].as_ptr() as *const c_void), CUDA_ERROR_INVALID_VALUE);
}

#[test]
fn context_local_storage_keeps_values_per_context_and_key() {
    let Some(ctx) = common::push_primary_context() else { return };
    let (r, t) = table("c693336e-1121-df11-a8c3-68f355d89593");
    assert_eq!(r, CUDA_SUCCESS);
    type Put = extern "C" fn(Handle, *mut c_void, *mut c_void, *const c_void) -> CUresult;
    type Delete = extern "C" fn(Handle, *mut c_void) -> CUresult;
    type Get = extern "C" fn(*mut *mut c_void, Handle, *mut c_void) -> CUresult;
    // SAFETY: the slots' signatures as documented in export_tables.rs.
    let (put, delete, get): (Put, Delete, Get) = unsafe {
        (
            std::mem::transmute::<*const c_void, Put>(slot(t, 0)),
            std::mem::transmute::<*const c_void, Delete>(slot(t, 1)),
            std::mem::transmute::<*const c_void, Get>(slot(t, 2)),
        )
    };
    let key = 0x1234 as *mut c_void;
    let mut v: *mut c_void = std::ptr::null_mut();
    assert_eq!(get(&mut v, ctx, key), CUDA_ERROR_INVALID_HANDLE);
    assert_eq!(put(ctx, key, 0xabc as *mut c_void, std::ptr::null()), CUDA_SUCCESS);
    // A null context is the current one.
    assert_eq!(get(&mut v, std::ptr::null_mut(), key), CUDA_SUCCESS);
    assert_eq!(v as usize, 0xabc);
    assert_eq!(delete(std::ptr::null_mut(), key), CUDA_SUCCESS);
    assert_eq!(get(&mut v, ctx, key), CUDA_ERROR_INVALID_HANDLE);
}

static DESTROYED: std::sync::Mutex<Vec<(usize, usize, usize)>> = std::sync::Mutex::new(Vec::new());

extern "C" fn record_destructor(ctx: Handle, key: *mut c_void, value: *mut c_void) {
    DESTROYED.lock().unwrap().push((ctx as usize, key as usize, value as usize));
}

/// A stored value's destructor runs once when its context is destroyed (the runtime frees its
/// per-context state there), and the value is gone.
#[test]
fn context_storage_destructors_run_when_the_context_goes() {
    let Some(_primary) = common::push_primary_context() else { return };
    let (_, t) = table("c693336e-1121-df11-a8c3-68f355d89593");
    type Put = extern "C" fn(Handle, *mut c_void, *mut c_void, Option<extern "C" fn(Handle, *mut c_void, *mut c_void)>) -> CUresult;
    type Get = extern "C" fn(*mut *mut c_void, Handle, *mut c_void) -> CUresult;
    // SAFETY: the slots' signatures as documented in export_tables.rs.
    let (put, get) = unsafe { (std::mem::transmute::<*const c_void, Put>(slot(t, 0)), std::mem::transmute::<*const c_void, Get>(slot(t, 2))) };
    let mut ctx = std::ptr::null_mut();
    assert_eq!(cuCtxCreate_v2(&mut ctx, 0, 0), CUDA_SUCCESS);
    let key = 0x77 as *mut c_void;
    assert_eq!(put(ctx, key, 0x99 as *mut c_void, Some(record_destructor)), CUDA_SUCCESS);
    assert!(DESTROYED.lock().unwrap().is_empty());
    assert_eq!(cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
    assert_eq!(*DESTROYED.lock().unwrap(), vec![(ctx as usize, 0x77, 0x99)]);
    let mut v: *mut c_void = std::ptr::null_mut();
    assert_ne!(get(&mut v, ctx, key), CUDA_SUCCESS);
}

#[test]
fn integrity_check_fixed_answers() {
    let (r, t) = table("d4082055-bde6-704b-8d34-ba123c66e1f2");
    assert_eq!(r, CUDA_SUCCESS);
    type Check = extern "C" fn(u32, u64, *mut [u64; 2]) -> CUresult;
    // SAFETY: slot 1's signature as documented in export_tables.rs.
    let check = unsafe { std::mem::transmute::<*const c_void, Check>(slot(t, 1)) };
    let mut out = [0u64; 2];
    // Runtime versions ending in 0 and 1 expect fixed answers (ZLUDA's dark_api records them).
    assert_eq!(check(13050, 0, &mut out), CUDA_SUCCESS);
    assert_eq!(out, [0x3341181C03CB675C, 0x8ED383AA1F4CD1E8]);
    assert_eq!(check(13051, 0, &mut out), CUDA_SUCCESS);
    assert_eq!(out, [0x1841181C03CB675C, 0x8ED383AA1F4CD1E8]);
}
