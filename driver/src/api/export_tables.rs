//! `cuGetExportTable`: the private tables the CUDA runtime (libcudart, static or shared) asks
//! the driver for before it does anything else. Each is an array of pointers found by a
//! UUID; slot 0 usually holds the table's size in bytes. Nothing about them is documented by
//! NVIDIA: the UUIDs and slot meanings below are the facts ZLUDA's `dark_api/src/lib.rs` and
//! `zluda/src/impl/driver.rs` record (github.com/vosen/ZLUDA), checked here by tracing what
//! libcudart 13 asks for (`PTXCROSS_DRIVER_LOG=1`; driver/README.md "CUDA runtime").
//! Unlisted tables and slots stay absent: an unknown id is NOT_SUPPORTED, and traced.

use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::Mutex;

use super::*;
use crate::state::put;
use crate::types::*;

/// A table as the runtime reads it: pointers (or, in slot 0, a size).
#[repr(C)]
pub struct Table<const N: usize>([*const c_void; N]);
// SAFETY: immutable function pointers and integers.
unsafe impl<const N: usize> Sync for Table<N> {}

impl<const N: usize> Table<N> {
    fn start(&'static self) -> *const c_void {
        self.0.as_ptr() as *const c_void
    }
}

const fn size_of_table(n: usize) -> *const c_void {
    (n * std::mem::size_of::<usize>()) as *const c_void
}

const NULL: *const c_void = std::ptr::null();

/// {6BD5FB6C-5BF4-E74A-8987-D93912FD9DF9}: the runtime's main interface (module loading for
/// `__cudaRegisterFatBinary`, the primary context).
const CUDART_INTERFACE: [u8; 16] = [0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9];
static CUDART_TABLE: Table<13> = Table([
    size_of_table(13),
    get_module_from_fatbin as *const c_void,
    primary_context as *const c_void,
    NULL,
    NULL,
    NULL,
    get_module_from_fatbin_ex as *const c_void,
    ignore_usize as *const c_void,
    get_module_from_fatbin_header as *const c_void,
    NULL,
    NULL,
    NULL,
    load_compilers as *const c_void,
]);

/// {42D85A81-23F6-CB47-8298-F6E78A3AECDC}: tools (profiler) thread-local hooks; the runtime
/// needs the table to exist, the hooks may be absent.
const TOOLS_TLS: [u8; 16] = [0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc];
static TOOLS_TLS_TABLE: Table<4> = Table([size_of_table(4), NULL, NULL, NULL]);

/// {A094798C-2E74-2E74-93F2-0800200C0A66}: tools callback hooks; slots 2 and 6 hand the
/// runtime two buffers it keeps its callback state in (16 KiB and 14 bytes).
const TOOLS_CALLBACKS: [u8; 16] = [0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66];
static TOOLS_CALLBACKS_TABLE: Table<7> =
    Table([size_of_table(7), NULL, callback_buffer_1 as *const c_void, NULL, NULL, NULL, callback_buffer_2 as *const c_void]);

/// {C693336E-1121-DF11-A8C3-68F355D89593}: per-context storage the runtime keeps its state
/// in (put, delete, get; no size slot).
const CONTEXT_STORAGE: [u8; 16] = [0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93];
static CONTEXT_STORAGE_TABLE: Table<4> =
    Table([storage_put as *const c_void, storage_delete as *const c_void, storage_get as *const c_void, NULL]);

/// {263E8860-7CD2-6143-92F6-BBD5006DFA7E}: context checks that report "nothing set".
const CONTEXT_CHECKS: [u8; 16] = [0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e];
static CONTEXT_CHECKS_TABLE: Table<4> = Table([size_of_table(4), NULL, context_check as *const c_void, zero_u32 as *const c_void]);

/// {D4082055-BDE6-704B-8D34-BA123C66E1F2}: the runtime's integrity check (an HMAC over the
/// process, the tables and the devices; a wrong answer is cudaErrorSoftwareValidityNotEstablished).
const INTEGRITY_CHECK: [u8; 16] = [0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2];
static INTEGRITY_TABLE: Table<3> = Table([size_of_table(3), integrity_check as *const c_void, NULL]);


/// {21318C60-9714-3248-8CA6-41FF7324C8F2}: the tools context table, 94 slots (CUDA 13 runtimes
/// refuse to start without it; its slots' meanings are unknown, see [`unknown_slot`]).
const TOOLS_CONTEXT: [u8; 16] = [0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48, 0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8, 0xf2];
static TOOLS_CONTEXT_TABLE: Table<95> = Table([
    size_of_table(95),
    unknown_slot::<1> as *const c_void, unknown_slot::<2> as *const c_void, unknown_slot::<3> as *const c_void, unknown_slot::<4> as *const c_void,
    unknown_slot::<5> as *const c_void, unknown_slot::<6> as *const c_void, unknown_slot::<7> as *const c_void, unknown_slot::<8> as *const c_void,
    unknown_slot::<9> as *const c_void, unknown_slot::<10> as *const c_void, unknown_slot::<11> as *const c_void, unknown_slot::<12> as *const c_void,
    unknown_slot::<13> as *const c_void, unknown_slot::<14> as *const c_void, unknown_slot::<15> as *const c_void, unknown_slot::<16> as *const c_void,
    unknown_slot::<17> as *const c_void, unknown_slot::<18> as *const c_void, unknown_slot::<19> as *const c_void, unknown_slot::<20> as *const c_void,
    unknown_slot::<21> as *const c_void, unknown_slot::<22> as *const c_void, unknown_slot::<23> as *const c_void, unknown_slot::<24> as *const c_void,
    unknown_slot::<25> as *const c_void, unknown_slot::<26> as *const c_void, unknown_slot::<27> as *const c_void, unknown_slot::<28> as *const c_void,
    unknown_slot::<29> as *const c_void, unknown_slot::<30> as *const c_void, unknown_slot::<31> as *const c_void, unknown_slot::<32> as *const c_void,
    unknown_slot::<33> as *const c_void, unknown_slot::<34> as *const c_void, unknown_slot::<35> as *const c_void, unknown_slot::<36> as *const c_void,
    unknown_slot::<37> as *const c_void, unknown_slot::<38> as *const c_void, unknown_slot::<39> as *const c_void, unknown_slot::<40> as *const c_void,
    unknown_slot::<41> as *const c_void, unknown_slot::<42> as *const c_void, unknown_slot::<43> as *const c_void, unknown_slot::<44> as *const c_void,
    unknown_slot::<45> as *const c_void, unknown_slot::<46> as *const c_void, unknown_slot::<47> as *const c_void, unknown_slot::<48> as *const c_void,
    unknown_slot::<49> as *const c_void, unknown_slot::<50> as *const c_void, unknown_slot::<51> as *const c_void, unknown_slot::<52> as *const c_void,
    unknown_slot::<53> as *const c_void, unknown_slot::<54> as *const c_void, unknown_slot::<55> as *const c_void, unknown_slot::<56> as *const c_void,
    unknown_slot::<57> as *const c_void, unknown_slot::<58> as *const c_void, unknown_slot::<59> as *const c_void, unknown_slot::<60> as *const c_void,
    unknown_slot::<61> as *const c_void, unknown_slot::<62> as *const c_void, unknown_slot::<63> as *const c_void, unknown_slot::<64> as *const c_void,
    unknown_slot::<65> as *const c_void, unknown_slot::<66> as *const c_void, unknown_slot::<67> as *const c_void, unknown_slot::<68> as *const c_void,
    unknown_slot::<69> as *const c_void, unknown_slot::<70> as *const c_void, unknown_slot::<71> as *const c_void, unknown_slot::<72> as *const c_void,
    unknown_slot::<73> as *const c_void, unknown_slot::<74> as *const c_void, unknown_slot::<75> as *const c_void, unknown_slot::<76> as *const c_void,
    unknown_slot::<77> as *const c_void, unknown_slot::<78> as *const c_void, unknown_slot::<79> as *const c_void, unknown_slot::<80> as *const c_void,
    unknown_slot::<81> as *const c_void, unknown_slot::<82> as *const c_void, unknown_slot::<83> as *const c_void, unknown_slot::<84> as *const c_void,
    unknown_slot::<85> as *const c_void, unknown_slot::<86> as *const c_void, unknown_slot::<87> as *const c_void, unknown_slot::<88> as *const c_void,
    unknown_slot::<89> as *const c_void, unknown_slot::<90> as *const c_void, unknown_slot::<91> as *const c_void, unknown_slot::<92> as *const c_void,
    unknown_slot::<93> as *const c_void, unknown_slot::<94> as *const c_void,
]);

/// A slot of a table whose meaning is unknown: libcudart 13.5 fetches the tools context table
/// but calls none of it for the programs tested. A call is refused (NOT_SUPPORTED), naming the
/// slot and its first six arguments; its signature is unknown, so the refusal is the answer.
extern "C" fn unknown_slot<const SLOT: usize>(a: usize, b: usize, c: usize, d: usize, e: usize, f: usize) -> CUresult {
    crate::log::error(format_args!(
        "the CUDA runtime called slot {SLOT} of the tools context table, which ptxcross does not implement \
         (arguments {a:#x}, {b:#x}, {c:#x}, {d:#x}, {e:#x}, {f:#x})"
    ));
    CUDA_ERROR_NOT_SUPPORTED
}

/// A table id as the usual `{XXXXXXXX-XXXX-...}` text (the bytes in order).
pub fn uuid_text(b: &[u8; 16]) -> String {
    let h: Vec<String> = b.iter().map(|x| format!("{x:02X}")).collect();
    format!("{{{}-{}-{}-{}-{}}}", h[0..4].concat(), h[4..6].concat(), h[6..8].concat(), h[8..10].concat(), h[10..16].concat())
}

fn table(id: &[u8; 16]) -> Option<*const c_void> {
    Some(match *id {
        CUDART_INTERFACE => CUDART_TABLE.start(),
        TOOLS_TLS => TOOLS_TLS_TABLE.start(),
        TOOLS_CALLBACKS => TOOLS_CALLBACKS_TABLE.start(),
        CONTEXT_STORAGE => CONTEXT_STORAGE_TABLE.start(),
        CONTEXT_CHECKS => CONTEXT_CHECKS_TABLE.start(),
        INTEGRITY_CHECK => INTEGRITY_TABLE.start(),
        TOOLS_CONTEXT => TOOLS_CONTEXT_TABLE.start(),
        _ => return None,
    })
}

#[no_mangle]
pub extern "C" fn cuGetExportTable(out: *mut *const c_void, id: *const c_void) -> CUresult {
    entry("cuGetExportTable", || {
        if out.is_null() || id.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: the id is a CUuuid (16 bytes), as the API requires.
        let id = unsafe { *(id as *const [u8; 16]) };
        let found = table(&id);
        crate::log::trace(format_args!("cuGetExportTable {}: {}", uuid_text(&id), if found.is_some() { "served" } else { "not supported" }));
        put(out, found.unwrap_or(NULL))?;
        found.map(|_| ()).ok_or(CUDA_ERROR_NOT_SUPPORTED)
    })
}

/// Slot 1: load the fatbin nvcc's wrapper points at (what `__cudaRegisterFatBinary` got).
extern "C" fn get_module_from_fatbin(module: *mut Handle, wrapper: *const c_void) -> CUresult {
    crate::log::trace("cudart interface: load a fatbin wrapper");
    cuModuleLoadData(module, wrapper)
}

/// Slot 6: the same, with three more arguments whose meaning is unknown; only their absence
/// (null, null, 0) is accepted, which is what libcudart 13 passes.
extern "C" fn get_module_from_fatbin_ex(module: *mut Handle, wrapper: *const c_void, a: *const c_void, b: *const c_void, c: u32) -> CUresult {
    crate::log::trace(format_args!("cudart interface: load a fatbin wrapper ({a:?}, {b:?}, {c})"));
    if !a.is_null() || !b.is_null() || c != 0 {
        crate::log::error(format_args!("the CUDA runtime loads a module with options ptxcross does not know ({a:?}, {b:?}, {c})"));
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    cuModuleLoadData(module, wrapper)
}

/// Slot 8: as slot 6, given the fatbin itself (argument order swapped).
extern "C" fn get_module_from_fatbin_header(fatbin: *const c_void, module: *mut Handle, a: *const c_void, b: *const c_void, c: u32) -> CUresult {
    get_module_from_fatbin_ex(module, fatbin, a, b, c)
}

/// Slot 2: the device's primary context (retained).
extern "C" fn primary_context(pctx: *mut Handle, dev: CUdevice) -> CUresult {
    crate::log::trace(format_args!("cudart interface: primary context of device {dev}"));
    cuDevicePrimaryCtxRetain(pctx, dev)
}

/// Slot 7: takes one integer and returns nothing; nothing to do.
extern "C" fn ignore_usize(_: usize) {}

/// Slot 12: loads the PTX compiler and NVVM in NVIDIA's driver; ptxcross needs neither.
extern "C" fn load_compilers() -> CUresult {
    CUDA_SUCCESS
}

struct Buffer<const N: usize>(std::cell::UnsafeCell<[u8; N]>);
// SAFETY: the runtime owns the contents; the driver only hands out the address.
unsafe impl<const N: usize> Sync for Buffer<N> {}
/// Buffer 1 holds one "callback enabled" word per runtime API (indexed by callback id, no
/// bounds check): libcudart 13.5 reads offset 0x6E0 in cudaGetDeviceProperties, past the
/// 1024 bytes older runtimes used, and a nonzero word there makes it call the (absent) tools
/// hooks. 16 KiB of zeros leaves every callback off with room for future ids.
const CALLBACK_BUFFER_1_SIZE: usize = 16384;
static CALLBACK_BUFFER_1: Buffer<CALLBACK_BUFFER_1_SIZE> = Buffer(std::cell::UnsafeCell::new([0; CALLBACK_BUFFER_1_SIZE]));
static CALLBACK_BUFFER_2: Buffer<14> = Buffer(std::cell::UnsafeCell::new([0; 14]));

extern "C" fn callback_buffer_1(ptr: *mut *mut c_void, size: *mut usize) {
    let _ = put(ptr, CALLBACK_BUFFER_1.0.get() as *mut c_void).and_then(|_| put(size, CALLBACK_BUFFER_1_SIZE));
}

extern "C" fn callback_buffer_2(ptr: *mut *mut c_void, size: *mut usize) {
    let _ = put(ptr, CALLBACK_BUFFER_2.0.get() as *mut c_void).and_then(|_| put(size, 14usize));
}

/// The destructor the runtime registers with a value: called with (context, key, value) when
/// the context goes away (destroyed, its last primary reference released, or reset).
type StorageDestructor = Option<extern "C" fn(Handle, *mut c_void, *mut c_void)>;

/// Context-local storage: (context, key) → (value, destructor). A null context means the
/// current one.
type Storage = HashMap<(usize, usize), (usize, StorageDestructor)>;
static STORAGE: Mutex<Option<Storage>> = Mutex::new(None);

fn storage_context(ctx: Handle) -> Result<usize, CUresult> {
    if !ctx.is_null() {
        return Ok(ctx as usize);
    }
    let mut current: Handle = std::ptr::null_mut();
    match cuCtxGetCurrent(&mut current) {
        CUDA_SUCCESS if !current.is_null() => Ok(current as usize),
        CUDA_SUCCESS => Err(CUDA_ERROR_INVALID_CONTEXT),
        e => Err(e),
    }
}

fn with_storage<T>(f: impl FnOnce(&mut Storage) -> T) -> T {
    let mut s = STORAGE.lock().unwrap_or_else(|p| p.into_inner());
    f(s.get_or_insert_with(HashMap::new))
}

/// Slot 0: store `value` under `key` for the context.
extern "C" fn storage_put(ctx: Handle, key: *mut c_void, value: *mut c_void, destructor: StorageDestructor) -> CUresult {
    entry("context storage put", || {
        let ctx = storage_context(ctx)?;
        with_storage(|s| s.insert((ctx, key as usize), (value as usize, destructor)));
        Ok(())
    })
}

extern "C" fn storage_delete(ctx: Handle, key: *mut c_void) -> CUresult {
    entry("context storage delete", || {
        let ctx = storage_context(ctx)?;
        with_storage(|s| s.remove(&(ctx, key as usize)));
        Ok(())
    })
}

/// Slot 2: the value stored under `key`; INVALID_HANDLE when there is none.
extern "C" fn storage_get(value: *mut *mut c_void, ctx: Handle, key: *mut c_void) -> CUresult {
    entry("context storage get", || {
        let ctx = storage_context(ctx)?;
        let v = with_storage(|s| s.get(&(ctx, key as usize)).map(|e| e.0)).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        put(value, v as *mut c_void)
    })
}

/// The context is going away: its stored values are dropped and their destructors run (with
/// no driver lock held, since the runtime's destructors call the driver). Without this, a
/// program that calls cudaDeviceReset would keep using the runtime's state for the old context.
pub(crate) fn context_storage_destroyed(ctx: Handle) {
    let gone: Vec<((usize, usize), (usize, StorageDestructor))> = with_storage(|s| {
        let keys: Vec<(usize, usize)> = s.keys().filter(|k| k.0 == ctx as usize).copied().collect();
        keys.into_iter().filter_map(|k| s.remove(&k).map(|v| (k, v))).collect()
    });
    for ((_, key), (value, destructor)) in gone {
        if let Some(destructor) = destructor {
            destructor(ctx, key as *mut c_void, value as *mut c_void);
        }
    }
}

/// Context checks: report 0 (no flags set) for any context.
extern "C" fn context_check(_ctx: Handle, result: *mut u32, _other: *mut *const c_void) -> CUresult {
    entry("context check", || put(result, 0u32))
}

extern "C" fn zero_u32() -> u32 {
    0
}

/// The HMAC key of the integrity check (ZLUDA: the "pass 1" result, which uses no input).
const INTEGRITY_KEY: [u8; 16] = [0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52, 0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F];

extern "C" {
    fn pthread_self() -> usize;
}

/// Slot 1: the runtime's check that it talks to a real driver. It passes its version and the
/// time; the answer is HMAC-MD2 (key above) of: driver version, that version, process id,
/// thread id (u32 each), the addresses of the cudart table, of this table and of this
/// function, the time (u64); then per device its UUID and PCI domain, bus and device (i32
/// each). Runtime versions ending in 0 or 1 expect fixed answers.
extern "C" fn integrity_check(version: u32, unix_seconds: u64, result: *mut [u64; 2]) -> CUresult {
    entry("integrity check", || {
        crate::log::trace(format_args!("integrity check: runtime version {version}"));
        let answer = match version % 10 {
            0 => [0x3341181C03CB675C, 0x8ED383AA1F4CD1E8],
            1 => [0x1841181C03CB675C, 0x8ED383AA1F4CD1E8],
            _ => {
                // SAFETY: pthread_self has no preconditions.
                let thread = unsafe { pthread_self() } as u32;
                let digest = crate::hmac_md2::hmac_md2(&INTEGRITY_KEY, &integrity_message(version, unix_seconds, thread)?);
                let word = |i: usize| u64::from_ne_bytes(digest[i..i + 8].try_into().unwrap_or([0; 8]));
                [word(0), word(8)]
            }
        };
        put(result, answer)
    })
}

fn integrity_message(version: u32, unix_seconds: u64, thread: u32) -> Result<Vec<u8>, CUresult> {
    let mut m = Vec::new();
    m.extend_from_slice(&(DRIVER_VERSION as u32).to_ne_bytes());
    m.extend_from_slice(&version.to_ne_bytes());
    m.extend_from_slice(&std::process::id().to_ne_bytes());
    m.extend_from_slice(&thread.to_ne_bytes());
    for address in [CUDART_TABLE.start() as usize, INTEGRITY_TABLE.start() as usize, integrity_check as *const () as usize] {
        m.extend_from_slice(&(address as u64).to_ne_bytes());
    }
    m.extend_from_slice(&unix_seconds.to_ne_bytes());
    let mut count: c_int = 0;
    check(cuDeviceGetCount(&mut count))?;
    for dev in 0..count {
        let mut uuid = CUuuid::default();
        check(cuDeviceGetUuid_v2(&mut uuid, dev))?;
        m.extend_from_slice(&uuid.bytes);
        for attr in [A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID] {
            let mut v: c_int = 0;
            check(cuDeviceGetAttribute(&mut v, attr as c_int, dev))?;
            m.extend_from_slice(&v.to_ne_bytes());
        }
    }
    Ok(m)
}

use crate::generated::CUdevice_attribute as A;

fn check(r: CUresult) -> Result<(), CUresult> {
    if r == CUDA_SUCCESS {
        Ok(())
    } else {
        Err(r)
    }
}
