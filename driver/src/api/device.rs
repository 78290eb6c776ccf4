//! Devices: ptxcross exposes one, the adapter `ptxcross::Gpu::shared` opens
//! (`PTXCROSS_ADAPTER` picks it by name; `ptxcross devices` lists them).

use std::ffi::{c_char, c_int};

use super::entry;
use crate::generated::CUdevice_attribute as A;
use crate::state::{self, put, Driver};
use crate::types::*;

/// Compute capability reported to programs: 7.5. Compilers size their output by it; NVVM 13
/// (numba-cuda) accepts nothing older, and newer targets invite instructions (async copies,
/// tensor-core and cluster operations) that ptxcross does not translate.
pub const COMPUTE_CAPABILITY: (c_int, c_int) = (7, 5);

/// Shared memory per block reported to programs, in bytes: CUDA's for compute capability 7.5
/// (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability": 48 KiB per
/// block without opt-in, 64 KiB with `cudaFuncSetAttribute(MaxDynamicSharedMemorySize)`, 64
/// KiB per multiprocessor), or the device's workgroup memory where that is larger. Not the
/// device's own limit: a kernel with more shared memory than a workgroup may have keeps it in
/// global memory (`ptxcross_lower::local_scratch::shared_in_scratch`), so CUB and the other
/// libraries that size their tiles by these numbers pick the tunings they pick on CUDA.
pub fn shared_per_block(d: &Driver) -> u32 {
    (48 << 10).max(d.device.gpu.limits().max_compute_workgroup_storage_size)
}

/// The opt-in limit of [`shared_per_block`]: the most shared memory (static + dynamic) one
/// block may have.
pub fn shared_per_block_optin(d: &Driver) -> u32 {
    (64 << 10).max(d.device.gpu.limits().max_compute_workgroup_storage_size)
}

fn check_device(dev: CUdevice) -> Result<(), CUresult> {
    if dev == 0 {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_DEVICE)
    }
}

/// Runs `f` on the initialized driver after checking the ordinal.
fn with_device<R>(dev: CUdevice, f: impl FnOnce(&mut Driver) -> Result<R, CUresult>) -> Result<R, CUresult> {
    state::with(|d| {
        check_device(dev)?;
        f(d)
    })
}

#[no_mangle]
pub extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult {
    entry("cuDeviceGet", || {
        state::with(|_| Ok(()))?;
        check_device(ordinal)?;
        put(device, ordinal)
    })
}

#[no_mangle]
pub extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    entry("cuDeviceGetCount", || state::with(|_| put(count, 1)))
}

/// Copies `s` into a caller's buffer of `len` bytes, NUL-terminated (truncated if needed).
pub(crate) fn copy_c_string(s: &str, buf: *mut c_char, len: c_int) -> Result<(), CUresult> {
    if buf.is_null() || len <= 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let n = s.len().min(len as usize - 1);
    // SAFETY: the caller's buffer holds `len` bytes; we write n + 1 <= len.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr() as *const c_char, buf, n);
        *buf.add(n) = 0;
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    entry("cuDeviceGetName", || {
        with_device(dev, |d| {
            let info = d.device.gpu.adapter_info();
            copy_c_string(&format!("ptxcross on {} ({:?})", info.name, info.backend), name, len)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    entry("cuDeviceTotalMem_v2", || with_device(dev, |d| put(bytes, d.device.heap.heap_bytes() as usize)))
}

#[no_mangle]
pub extern "C" fn cuDeviceComputeCapability(major: *mut c_int, minor: *mut c_int, dev: CUdevice) -> CUresult {
    entry("cuDeviceComputeCapability", || {
        with_device(dev, |_| {
            put(major, COMPUTE_CAPABILITY.0)?;
            put(minor, COMPUTE_CAPABILITY.1)
        })
    })
}

/// A stable UUID for the adapter: a hash of its identity.
fn uuid(d: &Driver) -> CUuuid {
    let info = d.device.gpu.adapter_info();
    let text = format!("{} {:?} {:x} {:x} {}", info.name, info.backend, info.vendor, info.device, info.driver);
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&blake3::hash(text.as_bytes()).as_bytes()[..16]);
    CUuuid { bytes }
}

#[no_mangle]
pub extern "C" fn cuDeviceGetUuid_v2(out: *mut CUuuid, dev: CUdevice) -> CUresult {
    entry("cuDeviceGetUuid_v2", || with_device(dev, |d| put(out, uuid(d))))
}

#[no_mangle]
pub extern "C" fn cuDeviceGetUuid(out: *mut CUuuid, dev: CUdevice) -> CUresult {
    cuDeviceGetUuid_v2(out, dev)
}

#[no_mangle]
pub extern "C" fn cuDeviceGetPCIBusId(buf: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    entry("cuDeviceGetPCIBusId", || with_device(dev, |_| copy_c_string("0000:00:00.0", buf, len)))
}

/// Processors the device is estimated to have: the CPU's cores for a CPU adapter (lavapipe runs
/// workgroups on them), else a modest GPU's count. Only used by programs to size grids.
fn multiprocessors(d: &Driver) -> i64 {
    match d.device.gpu.adapter_info().device_type {
        wgpu::DeviceType::Cpu => std::thread::available_parallelism().map(|n| n.get() as i64).unwrap_or(1),
        _ => 16,
    }
}

/// The value of a device attribute: from the adapter's limits where it has one, CUDA's
/// architectural value where ptxcross emulates it (warp size 32), 0 for features it lacks.
pub(crate) fn attribute(d: &Driver, attr: i64) -> Option<i64> {
    let lim = d.device.gpu.limits();
    let max_threads = lim.max_compute_invocations_per_workgroup as i64;
    let (shared, optin) = (shared_per_block(d) as i64, shared_per_block_optin(d) as i64);
    let info = d.device.gpu.adapter_info();
    let integrated = matches!(info.device_type, wgpu::DeviceType::Cpu | wgpu::DeviceType::IntegratedGpu);
    Some(match attr {
        A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK => max_threads,
        A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X => lim.max_compute_workgroup_size_x as i64,
        A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y => lim.max_compute_workgroup_size_y as i64,
        A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z => lim.max_compute_workgroup_size_z as i64,
        A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X
        | A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y
        | A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z => lim.max_compute_workgroups_per_dimension as i64,
        A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK => shared,
        A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN | A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR => optin,
        A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY => 65536,
        A::CU_DEVICE_ATTRIBUTE_WARP_SIZE => 32,
        A::CU_DEVICE_ATTRIBUTE_MAX_PITCH => (d.device.heap.heap_bytes() as i64).min(i32::MAX as i64),
        A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK | A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR => 65536,
        A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE | A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE => 1_000_000,
        A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH => 256,
        A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE => 4 << 20,
        A::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT => 512,
        A::CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT => 32,
        A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT => multiprocessors(d),
        A::CU_DEVICE_ATTRIBUTE_INTEGRATED => integrated as i64,
        A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR => COMPUTE_CAPABILITY.0 as i64,
        A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR => COMPUTE_CAPABILITY.1 as i64,
        A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR => max_threads,
        A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR => 1,
        // One address space for every allocation of the device (the heap).
        A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING => 1,
        A::CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED | A::CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED => 1,
        // Managed memory (`crate::managed`) with pre-Pascal semantics: the host may touch it
        // only while no kernel runs (CONCURRENT_MANAGED_ACCESS, PAGEABLE_MEMORY_ACCESS and
        // DIRECT_MANAGED_MEM_ACCESS_FROM_HOST stay 0).
        A::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY => 1,
        // CU_COMPUTEMODE_DEFAULT.
        A::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE => 0,
        a if (0..A::CU_DEVICE_ATTRIBUTE_MAX).contains(&a) => 0,
        _ => return None,
    })
}

#[no_mangle]
pub extern "C" fn cuDeviceGetAttribute(value: *mut c_int, attrib: c_int, dev: CUdevice) -> CUresult {
    entry("cuDeviceGetAttribute", || {
        with_device(dev, |d| {
            let v = attribute(d, attrib as i64).ok_or(CUDA_ERROR_INVALID_VALUE)?;
            put(value, v.min(c_int::MAX as i64) as c_int)
        })
    })
}
