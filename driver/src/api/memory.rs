//! Device memory (carved out of the device heap), managed memory (`crate::managed`: heap memory
//! mapped at the same address in the process), page-locked host memory (ordinary host memory
//! here), copies and memsets. Copies are synchronous, their `Async` forms too.

use std::alloc::Layout;
use std::ffi::{c_int, c_uint, c_void};

use ptxcross::DevicePtr;

use super::entry;
use crate::generated::CUpointer_attribute as P;
use crate::state::{self, handle, out, put, Driver, Kind};
use crate::types::*;

fn runtime_error(what: &str, e: ptxcross::Error) -> CUresult {
    crate::log::error(format_args!("{what}: {e}"));
    match e {
        ptxcross::Error::OutOfMemory { .. } | ptxcross::Error::AllocationTooLarge { .. } => CUDA_ERROR_OUT_OF_MEMORY,
        ptxcross::Error::InvalidPointer { .. } => CUDA_ERROR_INVALID_VALUE,
        ptxcross::Error::Timeout { .. } => CUDA_ERROR_LAUNCH_TIMEOUT,
        _ => CUDA_ERROR_UNKNOWN,
    }
}

pub(crate) fn alloc(d: &mut Driver, ctx: u64, bytes: u64) -> Result<u64, CUresult> {
    let p = d.device.heap.alloc(bytes).map_err(|e| runtime_error("cuMemAlloc", e))?;
    d.allocations.insert(p.0, (bytes, ctx));
    Ok(p.0)
}

#[no_mangle]
pub extern "C" fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytes: usize) -> CUresult {
    entry("cuMemAlloc_v2", || {
        state::with(|d| {
            let ctx = d.current_ctx()?;
            out(dptr)?;
            if bytes == 0 {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            let p = alloc(d, ctx, bytes as u64)?;
            put(dptr, p)
        })
    })
}

fn free(d: &mut Driver, dptr: CUdeviceptr) -> Result<(), CUresult> {
    d.current_ctx()?;
    if dptr == 0 {
        return Ok(());
    }
    if d.allocations.remove(&dptr).is_none() {
        crate::log::error(format_args!("cuMemFree: {dptr:#x} is not the start of a live allocation"));
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // A managed allocation's host mapping goes with it (host accesses after the free fault, as
    // in CUDA).
    d.managed.remove(dptr);
    d.device.heap.free(DevicePtr(dptr)).map_err(|e| runtime_error("cuMemFree", e))
}

/// Managed memory (`managed.rs`): a heap allocation whose addresses are mapped in the process
/// too. `flags`: exactly one of `CU_MEM_ATTACH_GLOBAL` and `CU_MEM_ATTACH_HOST` (both mean the
/// same here: every launch sees every managed allocation, and the host may use it between
/// launches, which is what `CONCURRENT_MANAGED_ACCESS` = 0 allows for either).
#[no_mangle]
pub extern "C" fn cuMemAllocManaged(dptr: *mut CUdeviceptr, bytes: usize, flags: c_uint) -> CUresult {
    entry("cuMemAllocManaged", || {
        state::with(|d| {
            let ctx = d.current_ctx()?;
            out(dptr)?;
            if bytes == 0 {
                crate::log::error(format_args!("cuMemAllocManaged: size 0"));
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            if flags != crate::managed::ATTACH_GLOBAL && flags != crate::managed::ATTACH_HOST {
                crate::log::error(format_args!(
                    "cuMemAllocManaged: flags {flags:#x} (CU_MEM_ATTACH_GLOBAL = 1 or CU_MEM_ATTACH_HOST = 2 are allowed)"
                ));
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            // Whole words in the heap (launches move them, `Managed::insert`); the allocation
            // is the size asked for.
            let words = (bytes as u64).next_multiple_of(4);
            let p = alloc(d, ctx, words)?;
            d.allocations.insert(p, (bytes as u64, ctx));
            if let Err(message) = d.managed.insert(p, bytes as u64, flags, words) {
                crate::log::error(format_args!("cuMemAllocManaged of {bytes} bytes: {message}"));
                d.allocations.remove(&p);
                let _ = d.device.heap.free(DevicePtr(p));
                return Err(CUDA_ERROR_OUT_OF_MEMORY);
            }
            put(dptr, p)
        })
    })
}

/// `[ptr, ptr + bytes)` must lie in one managed allocation (CUDA's rule for prefetches and
/// advice: `CUDA_ERROR_INVALID_VALUE` otherwise).
fn check_managed_range(d: &Driver, what: &str, ptr: u64, bytes: usize) -> Result<(), CUresult> {
    d.current_ctx()?;
    match d.managed.span(ptr, bytes as u64) {
        Ok(Some(_)) if bytes > 0 => Ok(()),
        Ok(_) => {
            crate::log::error(format_args!("{what}: {bytes} bytes at {ptr:#x} are not managed memory"));
            Err(CUDA_ERROR_INVALID_VALUE)
        }
        Err(message) => {
            crate::log::error(format_args!("{what}: {message}"));
            Err(CUDA_ERROR_INVALID_VALUE)
        }
    }
}

/// `CU_DEVICE_CPU`.
const DEVICE_CPU: CUdevice = -1;
/// `CUmemLocationType`: `CU_MEM_LOCATION_TYPE_DEVICE`, `_HOST`, `_HOST_NUMA`, `_HOST_NUMA_CURRENT`.
const LOCATION_DEVICE: c_int = 1;
const LOCATION_HOST: c_int = 2;
const LOCATION_HOST_NUMA_CURRENT: c_int = 4;

/// `CUmemLocation` (by value in the _v2 prefetch and advice calls).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MemLocation {
    pub kind: c_int,
    pub id: c_int,
}

fn check_location(what: &str, loc: MemLocation) -> Result<(), CUresult> {
    match loc.kind {
        LOCATION_DEVICE if loc.id == 0 => Ok(()),
        LOCATION_DEVICE => Err(CUDA_ERROR_INVALID_DEVICE),
        LOCATION_HOST..=LOCATION_HOST_NUMA_CURRENT => Ok(()),
        k => {
            crate::log::error(format_args!("{what}: memory location type {k}"));
            Err(CUDA_ERROR_INVALID_VALUE)
        }
    }
}

/// The location a pre-`_v2` prefetch or advice names by device number (CU_DEVICE_CPU: the host).
fn legacy_location(device: CUdevice) -> MemLocation {
    if device == DEVICE_CPU {
        MemLocation { kind: LOCATION_HOST, id: 0 }
    } else {
        MemLocation { kind: LOCATION_DEVICE, id: device }
    }
}

/// A prefetch is a hint and changes no result; managed memory moves at every launch anyway
/// (`managed.rs`). CUDA documents a prefetch to a GPU without concurrent managed access as an
/// error, but programs written for newer GPUs prefetch unconditionally (NVIDIA's tutorials do),
/// and nothing here depends on where the data is, so it is accepted.
fn prefetch(what: &str, ptr: CUdeviceptr, bytes: usize, loc: MemLocation, stream: Handle) -> Result<(), CUresult> {
    state::with(|d| {
        d.check_stream(stream)?;
        check_location(what, loc)?;
        check_managed_range(d, what, ptr, bytes)
    })
}

#[no_mangle]
pub extern "C" fn cuMemPrefetchAsync(ptr: CUdeviceptr, bytes: usize, device: CUdevice, stream: Handle) -> CUresult {
    let loc = legacy_location(device);
    entry("cuMemPrefetchAsync", || prefetch("cuMemPrefetchAsync", ptr, bytes, loc, stream))
}

#[no_mangle]
pub extern "C" fn cuMemPrefetchAsync_v2(ptr: CUdeviceptr, bytes: usize, loc: MemLocation, flags: c_uint, stream: Handle) -> CUresult {
    entry("cuMemPrefetchAsync_v2", || {
        if flags != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        prefetch("cuMemPrefetchAsync_v2", ptr, bytes, loc, stream)
    })
}

/// `CUmem_advise`: 1 ..= 6 (read mostly, preferred location, accessed by, each set and unset).
fn advise(what: &str, ptr: CUdeviceptr, bytes: usize, advice: c_int, loc: MemLocation) -> Result<(), CUresult> {
    state::with(|d| {
        if !(1..=6).contains(&advice) {
            crate::log::error(format_args!("{what}: advice {advice}"));
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        check_location(what, loc)?;
        // Advice tunes where pages live and who maps them: hints, which change no result here.
        check_managed_range(d, what, ptr, bytes)
    })
}

#[no_mangle]
pub extern "C" fn cuMemAdvise(ptr: CUdeviceptr, bytes: usize, advice: c_int, device: CUdevice) -> CUresult {
    let loc = legacy_location(device);
    entry("cuMemAdvise", || advise("cuMemAdvise", ptr, bytes, advice, loc))
}

#[no_mangle]
pub extern "C" fn cuMemAdvise_v2(ptr: CUdeviceptr, bytes: usize, advice: c_int, loc: MemLocation) -> CUresult {
    entry("cuMemAdvise_v2", || advise("cuMemAdvise_v2", ptr, bytes, advice, loc))
}

/// Attaching managed memory to a stream (or to the host) decides, with concurrent managed
/// access 0, which launches the host must wait for before touching it; launches here finish
/// before their call returns, so any attachment is already what it asks for. `length` 0 is the
/// whole allocation; `flags` are `CU_MEM_ATTACH_GLOBAL`, `_HOST` or `_SINGLE` (4).
#[no_mangle]
pub extern "C" fn cuStreamAttachMemAsync(stream: Handle, ptr: CUdeviceptr, length: usize, flags: c_uint) -> CUresult {
    entry("cuStreamAttachMemAsync", || {
        state::with(|d| {
            d.check_stream(stream)?;
            if ![1, 2, 4].contains(&flags) {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            match d.managed.containing(ptr) {
                Some((start, size, _)) if start == ptr && (length == 0 || length as u64 == size) => Ok(()),
                _ => {
                    crate::log::error(format_args!("cuStreamAttachMemAsync: {ptr:#x} ({length} bytes) is not a whole managed allocation"));
                    Err(CUDA_ERROR_INVALID_VALUE)
                }
            }
        })
    })
}

#[no_mangle]
pub extern "C" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    entry("cuMemFree_v2", || state::with(|d| free(d, dptr)))
}

/// Stream-ordered allocation (cudaMallocAsync, CUB's default memory resource). All work here
/// is synchronous (`stream.rs`), so everything ordered before it on the stream has finished
/// and an ordinary allocation is what stream order asks for.
#[no_mangle]
pub extern "C" fn cuMemAllocAsync(dptr: *mut CUdeviceptr, bytes: usize, stream: Handle) -> CUresult {
    entry("cuMemAllocAsync", || {
        state::with(|d| {
            let ctx = d.current_ctx()?;
            d.check_stream(stream)?;
            out(dptr)?;
            if bytes == 0 {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            let p = alloc(d, ctx, bytes as u64)?;
            put(dptr, p)
        })
    })
}

/// Stream-ordered free: the stream's earlier work has finished (synchronous), so the memory
/// is free to go now.
#[no_mangle]
pub extern "C" fn cuMemFreeAsync(dptr: CUdeviceptr, stream: Handle) -> CUresult {
    entry("cuMemFreeAsync", || {
        state::with(|d| {
            d.check_stream(stream)?;
            free(d, dptr)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    entry("cuMemGetInfo_v2", || {
        state::with(|d| {
            d.current_ctx()?;
            put(free, d.device.heap.free_bytes() as usize)?;
            put(total, d.device.heap.heap_bytes() as usize)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuMemGetAddressRange_v2(base: *mut CUdeviceptr, size: *mut usize, dptr: CUdeviceptr) -> CUresult {
    entry("cuMemGetAddressRange_v2", || {
        state::with(|d| {
            d.current_ctx()?;
            let (start, len) = d.allocation_of(dptr).ok_or(CUDA_ERROR_NOT_FOUND)?;
            if !base.is_null() {
                put(base, start)?;
            }
            if !size.is_null() {
                put(size, len as usize)?;
            }
            Ok(())
        })
    })
}

const HOST_ALIGN: usize = 4096;

fn host_alloc(pp: *mut *mut c_void, bytes: usize) -> Result<(), CUresult> {
    state::with(|d| {
        d.current_ctx()?;
        out(pp)?;
        let layout = Layout::from_size_align(bytes.max(1), HOST_ALIGN).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return Err(CUDA_ERROR_OUT_OF_MEMORY);
        }
        d.host_allocations.insert(p as usize, bytes.max(1));
        put(pp, p as *mut c_void)
    })
}

#[no_mangle]
pub extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytes: usize) -> CUresult {
    entry("cuMemAllocHost_v2", || host_alloc(pp, bytes))
}

/// Flags (portable, mapped, write-combined) change nothing: the device never reads host memory
/// directly, copies do.
#[no_mangle]
pub extern "C" fn cuMemHostAlloc(pp: *mut *mut c_void, bytes: usize, _flags: c_uint) -> CUresult {
    entry("cuMemHostAlloc", || host_alloc(pp, bytes))
}

#[no_mangle]
pub extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    entry("cuMemFreeHost", || {
        state::with(|d| {
            let size = d.host_allocations.remove(&(p as usize)).ok_or(CUDA_ERROR_INVALID_VALUE)?;
            let layout = Layout::from_size_align(size, HOST_ALIGN).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
            // SAFETY: allocated by host_alloc with this layout, removed from the table above.
            unsafe { std::alloc::dealloc(p as *mut u8, layout) };
            Ok(())
        })
    })
}

/// Host memory registration: nothing to pin, the copies read host memory directly.
#[no_mangle]
pub extern "C" fn cuMemHostRegister_v2(p: *mut c_void, bytes: usize, _flags: c_uint) -> CUresult {
    entry("cuMemHostRegister_v2", || {
        state::with(|d| {
            d.current_ctx()?;
            if p.is_null() || bytes == 0 {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    entry("cuMemHostUnregister", || {
        state::with(|d| {
            d.current_ctx()?;
            if p.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            Ok(())
        })
    })
}

/// The managed range holding `[ptr, ptr + len)`, if `ptr` is managed (an error if the bytes run
/// past its end).
fn managed_span(d: &Driver, what: &str, ptr: u64, len: usize) -> Result<bool, CUresult> {
    d.managed.span(ptr, len as u64).map(|s| s.is_some()).map_err(|message| {
        crate::log::error(format_args!("{what}: {message}"));
        CUDA_ERROR_INVALID_VALUE
    })
}

/// Device memory's bytes; managed memory's are its host copy (the truth between launches,
/// `managed.rs`).
pub(crate) fn read(d: &Driver, src: u64, bytes: usize) -> Result<Vec<u8>, CUresult> {
    if managed_span(d, "copy from managed memory", src, bytes)? {
        // SAFETY: inside a mapped managed range (checked just above).
        return Ok(unsafe { std::slice::from_raw_parts(src as usize as *const u8, bytes) }.to_vec());
    }
    d.device.heap.read(DevicePtr(src), bytes as u64).map_err(|e| runtime_error("copy from the device", e))
}

pub(crate) fn write(d: &mut Driver, dst: u64, data: &[u8]) -> Result<(), CUresult> {
    if managed_span(d, "copy to managed memory", dst, data.len())? {
        // SAFETY: inside a mapped managed range (checked just above); `data` is a slice of the
        // caller's that may be this very memory (a copy within one allocation): `copy`.
        unsafe { std::ptr::copy(data.as_ptr(), dst as usize as *mut u8, data.len()) };
        return Ok(());
    }
    d.device.heap.write(DevicePtr(dst), data).map_err(|e| runtime_error("copy to the device", e))
}

/// # Safety: `src` holds `bytes` readable bytes (the caller's promise to the API).
pub(crate) fn host_slice<'a>(src: *const c_void, bytes: usize) -> Result<&'a [u8], CUresult> {
    if bytes == 0 {
        return Ok(&[]);
    }
    if src.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: see above.
    Ok(unsafe { std::slice::from_raw_parts(src as *const u8, bytes) })
}

fn htod(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: Handle) -> Result<(), CUresult> {
    state::with(|d| {
        d.current_ctx()?;
        d.check_stream(stream)?;
        let data = host_slice(src, bytes)?;
        write(d, dst, data)
    })
}

fn dtoh(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: Handle) -> Result<(), CUresult> {
    state::with(|d| {
        d.current_ctx()?;
        d.check_stream(stream)?;
        if bytes == 0 {
            return Ok(());
        }
        if dst.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let data = read(d, src, bytes)?;
        if stream.is_null() {
            // A blocking copy to the host is a synchronization point.
            d.flush_printf();
        }
        // SAFETY: the caller's buffer holds `bytes` bytes.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst as *mut u8, bytes) };
        Ok(())
    })
}

fn dtod(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: Handle) -> Result<(), CUresult> {
    state::with(|d| {
        d.current_ctx()?;
        d.check_stream(stream)?;
        let data = read(d, src, bytes)?;
        write(d, dst, &data)
    })
}

#[no_mangle]
pub extern "C" fn cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize) -> CUresult {
    entry("cuMemcpyHtoD_v2", || htod(dst, src, bytes, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: Handle) -> CUresult {
    entry("cuMemcpyHtoDAsync_v2", || htod(dst, src, bytes, stream))
}
#[no_mangle]
pub extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize) -> CUresult {
    entry("cuMemcpyDtoH_v2", || dtoh(dst, src, bytes, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: Handle) -> CUresult {
    entry("cuMemcpyDtoHAsync_v2", || dtoh(dst, src, bytes, stream))
}
#[no_mangle]
pub extern "C" fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) -> CUresult {
    entry("cuMemcpyDtoD_v2", || dtod(dst, src, bytes, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemcpyDtoDAsync_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: Handle) -> CUresult {
    entry("cuMemcpyDtoDAsync_v2", || dtod(dst, src, bytes, stream))
}

/// cuMemcpy with unified addressing: each side is device memory if it lies in an allocation.
fn copy_unified(dst: u64, src: u64, bytes: usize, stream: Handle) -> Result<(), CUresult> {
    let (dst_dev, src_dev) = state::with(|d| Ok((d.allocation_of(dst).is_some(), d.allocation_of(src).is_some())))?;
    match (dst_dev, src_dev) {
        (true, true) => dtod(dst, src, bytes, stream),
        (true, false) => htod(dst, src as usize as *const c_void, bytes, stream),
        (false, true) => dtoh(dst as usize as *mut c_void, src, bytes, stream),
        (false, false) => {
            if bytes > 0 {
                if dst == 0 || src == 0 {
                    return Err(CUDA_ERROR_INVALID_VALUE);
                }
                // SAFETY: two host buffers of `bytes` bytes, as the caller promises.
                unsafe { std::ptr::copy(src as usize as *const u8, dst as usize as *mut u8, bytes) };
            }
            Ok(())
        }
    }
}

#[no_mangle]
pub extern "C" fn cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) -> CUresult {
    entry("cuMemcpy", || copy_unified(dst, src, bytes, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemcpyAsync(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: Handle) -> CUresult {
    entry("cuMemcpyAsync", || copy_unified(dst, src, bytes, stream))
}

/// Fills `count` elements of `elem.len()` bytes at `dst` with `elem`.
fn memset(dst: CUdeviceptr, elem: &[u8], count: usize, stream: Handle) -> Result<(), CUresult> {
    state::with(|d| {
        d.current_ctx()?;
        d.check_stream(stream)?;
        if !dst.is_multiple_of(elem.len() as u64) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let bytes = count.checked_mul(elem.len()).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let data: Vec<u8> = elem.iter().copied().cycle().take(bytes).collect();
        write(d, dst, &data)
    })
}

#[no_mangle]
pub extern "C" fn cuMemsetD8_v2(dst: CUdeviceptr, v: u8, n: usize) -> CUresult {
    entry("cuMemsetD8_v2", || memset(dst, &[v], n, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemsetD16_v2(dst: CUdeviceptr, v: u16, n: usize) -> CUresult {
    entry("cuMemsetD16_v2", || memset(dst, &v.to_le_bytes(), n, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemsetD32_v2(dst: CUdeviceptr, v: u32, n: usize) -> CUresult {
    entry("cuMemsetD32_v2", || memset(dst, &v.to_le_bytes(), n, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemsetD8Async(dst: CUdeviceptr, v: u8, n: usize, stream: Handle) -> CUresult {
    entry("cuMemsetD8Async", || memset(dst, &[v], n, stream))
}
#[no_mangle]
pub extern "C" fn cuMemsetD16Async(dst: CUdeviceptr, v: u16, n: usize, stream: Handle) -> CUresult {
    entry("cuMemsetD16Async", || memset(dst, &v.to_le_bytes(), n, stream))
}
#[no_mangle]
pub extern "C" fn cuMemsetD32Async(dst: CUdeviceptr, v: u32, n: usize, stream: Handle) -> CUresult {
    entry("cuMemsetD32Async", || memset(dst, &v.to_le_bytes(), n, stream))
}

/// `CU_MEMORYTYPE_HOST` / `CU_MEMORYTYPE_DEVICE`.
const MEMORYTYPE_HOST: c_uint = 1;
const MEMORYTYPE_DEVICE: c_uint = 2;

/// Writes one pointer attribute; `None`: the attribute does not apply to this pointer.
fn pointer_attribute(d: &Driver, attr: i64, ptr: u64, data: *mut c_void) -> Result<(), CUresult> {
    let dev = d.allocation_of(ptr);
    let host = d.host_allocations.range(..=(ptr as usize)).next_back().filter(|(&s, &n)| (ptr as usize) < s + n);
    if dev.is_none() && host.is_none() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let managed = d.managed.containing(ptr).is_some();
    let ctx_of = |start: u64| d.allocations.get(&start).map(|&(_, c)| c).unwrap_or(d.primary);
    match (attr, dev) {
        (P::CU_POINTER_ATTRIBUTE_CONTEXT, Some((s, _))) => put(data as *mut Handle, handle(Kind::Context, ctx_of(s))),
        (P::CU_POINTER_ATTRIBUTE_CONTEXT, None) => put(data as *mut Handle, handle(Kind::Context, d.primary)),
        (P::CU_POINTER_ATTRIBUTE_MEMORY_TYPE, _) => {
            put(data as *mut c_uint, if dev.is_some() { MEMORYTYPE_DEVICE } else { MEMORYTYPE_HOST })
        }
        (P::CU_POINTER_ATTRIBUTE_DEVICE_POINTER, Some(_)) => put(data as *mut u64, ptr),
        (P::CU_POINTER_ATTRIBUTE_HOST_POINTER, None) => put(data as *mut u64, ptr),
        // Managed memory has the same address on the host.
        (P::CU_POINTER_ATTRIBUTE_HOST_POINTER, Some(_)) if managed => put(data as *mut u64, ptr),
        (P::CU_POINTER_ATTRIBUTE_DEVICE_POINTER, None) | (P::CU_POINTER_ATTRIBUTE_HOST_POINTER, Some(_)) => {
            Err(CUDA_ERROR_INVALID_VALUE)
        }
        (P::CU_POINTER_ATTRIBUTE_IS_MANAGED, _) => put(data as *mut c_uint, managed as c_uint),
        (P::CU_POINTER_ATTRIBUTE_MAPPED, _) => put(data as *mut c_uint, 1),
        (P::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, _) => put(data as *mut c_int, 0),
        (P::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, _) => put(data as *mut c_uint, 1),
        (P::CU_POINTER_ATTRIBUTE_BUFFER_ID, Some((s, _))) => put(data as *mut u64, s),
        (P::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, Some((s, _))) => put(data as *mut u64, s),
        (P::CU_POINTER_ATTRIBUTE_RANGE_SIZE, Some((_, n))) => put(data as *mut usize, n as usize),
        (P::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, None) => put(data as *mut u64, *host.map(|(s, _)| s).unwrap_or(&0) as u64),
        (P::CU_POINTER_ATTRIBUTE_RANGE_SIZE, None) => put(data as *mut usize, *host.map(|(_, n)| n).unwrap_or(&0)),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    }
}

#[no_mangle]
pub extern "C" fn cuPointerGetAttribute(data: *mut c_void, attribute: c_int, ptr: CUdeviceptr) -> CUresult {
    entry("cuPointerGetAttribute", || {
        state::with(|d| {
            if data.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            pointer_attribute(d, attribute as i64, ptr, data)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuPointerGetAttributes(n: c_uint, attributes: *const c_int, data: *mut *mut c_void, ptr: CUdeviceptr) -> CUresult {
    entry("cuPointerGetAttributes", || {
        state::with(|d| {
            if attributes.is_null() || data.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            for i in 0..n as usize {
                // SAFETY: both arrays hold `n` entries, as the API requires.
                let (a, p) = unsafe { (*attributes.add(i), *data.add(i)) };
                // An attribute that does not apply leaves its slot alone (as documented).
                if !p.is_null() {
                    let _ = pointer_attribute(d, a as i64, ptr, p);
                }
            }
            Ok(())
        })
    })
}

/// Fills `height` rows of `width` elements, `pitch` bytes apart, at `dst` with `elem`.
fn memset2d(dst: CUdeviceptr, pitch: usize, elem: &[u8], width: usize, height: usize, stream: Handle) -> Result<(), CUresult> {
    let row = width.checked_mul(elem.len()).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    if height > 1 && pitch < row {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    for y in 0..height {
        let at = (y as u64).checked_mul(pitch as u64).and_then(|o| dst.checked_add(o)).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        memset(at, elem, width, stream)?;
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn cuMemsetD2D8_v2(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize) -> CUresult {
    entry("cuMemsetD2D8_v2", || memset2d(dst, pitch, &[v], w, h, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemsetD2D16_v2(dst: CUdeviceptr, pitch: usize, v: u16, w: usize, h: usize) -> CUresult {
    entry("cuMemsetD2D16_v2", || memset2d(dst, pitch, &v.to_le_bytes(), w, h, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemsetD2D32_v2(dst: CUdeviceptr, pitch: usize, v: u32, w: usize, h: usize) -> CUresult {
    entry("cuMemsetD2D32_v2", || memset2d(dst, pitch, &v.to_le_bytes(), w, h, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemsetD2D8Async(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize, stream: Handle) -> CUresult {
    entry("cuMemsetD2D8Async", || memset2d(dst, pitch, &[v], w, h, stream))
}
#[no_mangle]
pub extern "C" fn cuMemsetD2D16Async(dst: CUdeviceptr, pitch: usize, v: u16, w: usize, h: usize, stream: Handle) -> CUresult {
    entry("cuMemsetD2D16Async", || memset2d(dst, pitch, &v.to_le_bytes(), w, h, stream))
}
#[no_mangle]
pub extern "C" fn cuMemsetD2D32Async(dst: CUdeviceptr, pitch: usize, v: u32, w: usize, h: usize, stream: Handle) -> CUresult {
    entry("cuMemsetD2D32Async", || memset2d(dst, pitch, &v.to_le_bytes(), w, h, stream))
}
