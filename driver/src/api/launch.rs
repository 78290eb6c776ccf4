//! Kernel launches. A launch runs to completion before the call returns (streams are
//! synchronous); a kernel fault becomes the context's sticky `CUDA_ERROR_ILLEGAL_ADDRESS`,
//! reported by the next call on the context, with a message naming the kernel.

use std::ffi::{c_int, c_uint, c_void};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ptxcross::runtime::Deadline;

use super::entry;
use super::module::function_id;
use crate::generated::CUlaunchAttributeID as LA;
use crate::state::{self, out, put, Driver};
use crate::types::*;

/// The parameter area from `kernelParams` (one pointer per parameter) or `extra`
/// (`CU_LAUNCH_PARAM_BUFFER_POINTER`/`_SIZE`: the area already laid out).
fn pack_params(k: &ptxcross_lower::KernelFacts, params: *mut *mut c_void, extra: *mut *mut c_void) -> Result<Vec<u8>, CUresult> {
    let bad = |message: String| {
        crate::log::error(format_args!("cuLaunchKernel `{}`: {message}", k.name));
        CUDA_ERROR_INVALID_VALUE
    };
    let mut area = vec![0u8; k.param_bytes as usize];
    if !params.is_null() {
        for (i, slot) in k.params.iter().enumerate() {
            // SAFETY: `kernelParams` holds one pointer per parameter, each to the argument's
            // bytes (the API's contract).
            let p = unsafe { *params.add(i) } as *const u8;
            if p.is_null() {
                return Err(bad(format!("kernelParams[{i}] (parameter `{}`) is null", slot.name)));
            }
            let at = slot.offset as usize;
            let dst = area.get_mut(at..at + slot.size as usize).ok_or_else(|| bad(format!("parameter `{}` lies outside the parameter area", slot.name)))?;
            // SAFETY: see above; the argument has the parameter's size.
            dst.copy_from_slice(unsafe { std::slice::from_raw_parts(p, slot.size as usize) });
        }
        return Ok(area);
    }
    if !extra.is_null() {
        let (mut buf, mut size): (*const u8, Option<usize>) = (std::ptr::null(), None);
        let mut i = 0;
        loop {
            // SAFETY: `extra` is a CU_LAUNCH_PARAM_END-terminated list of key/value pairs.
            let key = unsafe { *extra.add(i) } as usize;
            match key {
                CU_LAUNCH_PARAM_END => break,
                CU_LAUNCH_PARAM_BUFFER_POINTER => buf = unsafe { *extra.add(i + 1) } as *const u8,
                CU_LAUNCH_PARAM_BUFFER_SIZE => {
                    // SAFETY: the value of BUFFER_SIZE points at a size_t.
                    size = unsafe { (*extra.add(i + 1) as *const usize).as_ref() }.copied()
                }
                other => return Err(bad(format!("unknown `extra` key {other:#x}"))),
            }
            i += 2;
        }
        let size = size.ok_or_else(|| bad("`extra` has no CU_LAUNCH_PARAM_BUFFER_SIZE".into()))?;
        if buf.is_null() {
            return Err(bad("`extra` has no CU_LAUNCH_PARAM_BUFFER_POINTER".into()));
        }
        // A C struct of the arguments may carry trailing padding beyond the last parameter.
        if size > area.len().next_multiple_of(8) {
            return Err(bad(format!("{size} parameter bytes given, the kernel takes {}", area.len())));
        }
        let n = size.min(area.len());
        // SAFETY: the buffer holds `size` >= n bytes.
        area[..n].copy_from_slice(unsafe { std::slice::from_raw_parts(buf, n) });
        return Ok(area);
    }
    if k.params.is_empty() {
        Ok(area)
    } else {
        Err(bad(format!("the kernel has {} parameter(s) but neither kernelParams nor extra was given", k.params.len())))
    }
}

/// The CUDA error of a kernel fault: an out-of-range access is an illegal address; the other
/// faults (misalignment, trap, a loop the device cut short) have their own codes.
fn fault_code(bits: u32) -> CUresult {
    use ptxcross_lower::abi::*;
    let out_of_range = FAULT_GLOBAL_OUT_OF_RANGE | FAULT_SHARED_OUT_OF_RANGE | FAULT_LOCAL_OUT_OF_RANGE | FAULT_PARAM_OUT_OF_RANGE;
    if bits & out_of_range != 0 {
        CUDA_ERROR_ILLEGAL_ADDRESS
    } else if bits & FAULT_MISALIGNED != 0 {
        CUDA_ERROR_MISALIGNED_ADDRESS
    } else if bits & FAULT_ASSERT != 0 {
        CUDA_ERROR_ASSERT
    } else {
        CUDA_ERROR_LAUNCH_FAILED
    }
}

fn launch_error(d: &mut Driver, ctx: u64, kernel: &str, e: ptxcross::Error) -> CUresult {
    use ptxcross::Error as E;
    let (code, sticky) = match &e {
        E::KernelFault { bits, .. } => (fault_code(*bits), true),
        E::Timeout { .. } => (CUDA_ERROR_LAUNCH_TIMEOUT, true),
        E::LimitExceeded { .. } | E::BadArguments { .. } => (CUDA_ERROR_INVALID_VALUE, false),
        E::MissingFeature { .. } | E::SubnormalsFlushed { .. } | E::MissingWorkaround { .. } | E::SeveralSegments { .. } => (CUDA_ERROR_NOT_SUPPORTED, false),
        E::OutOfMemory { .. } => (CUDA_ERROR_OUT_OF_MEMORY, false),
        _ => (CUDA_ERROR_LAUNCH_FAILED, false),
    };
    crate::log::error(format_args!("launch of kernel `{kernel}`: {e}"));
    if sticky {
        if let Some(c) = d.contexts.get_mut(&ctx) {
            c.sticky = Some(code);
        }
        // Reported by the next call, as CUDA reports asynchronous faults.
        return CUDA_SUCCESS;
    }
    code
}

/// Exit status of a process ended by the launch watchdog (as `timeout(1)`'s).
pub const LAUNCH_TIMEOUT_EXIT: i32 = 124;

/// `PTXCROSS_LAUNCH_TIMEOUT`: seconds one launch (translation, pipeline creation, run) may take,
/// default 600; 0 or `none`: no limit. Vulkan cannot cancel a dispatch nor a pipeline build
/// (lavapipe builds at the first dispatch, and LLVM's build time grows quadratically with the
/// kernel), and a process that leaves one running can block in exit, so the only bounded answer
/// is to end the process with a message naming the launch (docs: driver/README.md, "Launch
/// watchdog").
fn launch_timeout() -> Option<Duration> {
    static LIMIT: OnceLock<Option<Duration>> = OnceLock::new();
    *LIMIT.get_or_init(|| match std::env::var("PTXCROSS_LAUNCH_TIMEOUT") {
        Err(_) => Some(Duration::from_secs(600)),
        Ok(v) => match v.trim() {
            "0" | "none" => None,
            t => match t.parse::<f64>() {
                Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Some(Duration::from_secs_f64(s)),
                _ => {
                    crate::log::error(format_args!("PTXCROSS_LAUNCH_TIMEOUT=`{v}` is not a number of seconds; using 600"));
                    Some(Duration::from_secs(600))
                }
            },
        },
    })
}

/// Ends the process unless dropped within [`launch_timeout`].
fn launch_deadline(name: &str, grid: [u32; 3], block: [u32; 3]) -> Option<Deadline> {
    launch_timeout().map(|t| {
        Deadline::arm(
            t,
            format!(
                "ptxcross: launch of kernel `{name}` grid {grid:?} block {block:?} did not finish within {} s \
                 (PTXCROSS_LAUNCH_TIMEOUT; translation, the driver's pipeline build and the run together; \
                 no Vulkan driver can cancel it): ending the process with exit status {LAUNCH_TIMEOUT_EXIT}",
                t.as_secs_f64()
            ),
            LAUNCH_TIMEOUT_EXIT,
        )
    })
}

#[allow(clippy::too_many_arguments)]
fn launch(func: Handle, grid: [u32; 3], block: [u32; 3], shared: u32, stream: Handle, params: *mut *mut c_void, extra: *mut *mut c_void) -> Result<(), CUresult> {
    state::with(|d| {
        let ctx = d.current_ctx()?;
        d.check_stream(stream)?;
        let fid = function_id(d, func)?;
        let (mid, name, max_dyn) = {
            let f = &d.functions[&fid];
            (f.module, f.kernel.clone(), f.max_dynamic_shared)
        };
        let lim = d.device.gpu.limits().clone();
        let threads = block.iter().map(|&b| b as u64).product::<u64>();
        if threads == 0 || grid.contains(&0) {
            crate::log::error(format_args!("launch of `{name}`: empty grid {grid:?} or block {block:?}"));
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if threads > lim.max_compute_invocations_per_workgroup as u64 {
            crate::log::error(format_args!(
                "launch of `{name}`: {threads} threads per block, the device allows {}",
                lim.max_compute_invocations_per_workgroup
            ));
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // More dynamic shared memory than a block can ever have is a bad launch argument (as
        // CUDA answers it), not a translation failure.
        // (Beyond the device's workgroup memory, `lower` keeps shared memory in global memory.)
        let shared_limit = super::device::shared_per_block_optin(d);
        if shared > shared_limit {
            crate::log::error(format_args!("launch of `{name}`: {shared} dynamic shared bytes, the device allows {shared_limit} per block"));
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if let Some(max) = max_dyn.filter(|&m| shared > m) {
            crate::log::error(format_args!("launch of `{name}`: {shared} dynamic shared bytes, the function allows {max}"));
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let Driver { modules, device, managed, .. } = d;
        let module = modules.get_mut(&mid).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        let kernel = module.kernel(&name).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        let area = pack_params(kernel, params, extra)?;
        let _deadline = launch_deadline(&name, grid, block);
        let t0 = Instant::now();
        let before = crate::cache::stats();
        let program = module.program(device, &(name.clone(), block, shared)).map_err(|message| {
            crate::log::error(format_args!("cannot translate kernel `{name}` for block {block:?}:\n{}", message.trim_end()));
            CUDA_ERROR_INVALID_PTX
        })?;
        let translated = t0.elapsed();
        if module.globals_base != 0 {
            device.heap.set_globals_base(&program, module.globals_base);
        }
        let backend = device.backend;
        // Managed memory (`crate::managed`): the host copy is the truth between launches; the
        // kernel sees it, and the host sees what the kernel wrote once the launch returns.
        let t_up = Instant::now();
        managed.upload(&mut device.heap).map_err(|e| {
            crate::log::error(format_args!("launch of kernel `{name}`: cannot upload managed memory: {e}"));
            CUDA_ERROR_UNKNOWN
        })?;
        let uploaded = t_up.elapsed();
        let r = device.heap.launch_packed(&program, &name, grid, &area, backend);
        let t_down = Instant::now();
        let downloaded = managed.download(&device.heap);
        let managed_sync = (!managed.is_empty()).then(|| (uploaded, t_down.elapsed()));
        // Launches here are synchronous: the launch's printf text is kept for the context's
        // next synchronization point (`Driver::flush_printf`).
        let printed = device.heap.take_printf();
        if printed.dropped > 0 {
            crate::log::error(format_args!("`{name}`: {} printf record(s) dropped: the printf buffer was full", printed.dropped));
        }
        if let Some(c) = d.contexts.get_mut(&ctx) {
            c.printf.push_str(&printed.text);
        }
        // Untimed launches (before the first event) count in no event's difference.
        if r.is_ok() && device.heap.times_launches() {
            d.gpu_time = d.gpu_time.zip(device.heap.last_kernel_time()).map(|(total, t)| total + t);
        }
        crate::log::trace(format_args!(
            "launch `{name}` grid {grid:?} block {block:?}: translation {:.3} ms{}, launch {:.3} ms",
            translated.as_secs_f64() * 1e3,
            {
                let after = crate::cache::stats();
                if after.translations > before.translations {
                    " (translated)"
                } else if after.disk_hits > before.disk_hits {
                    " (from the disk cache)"
                } else {
                    " (in memory)"
                }
            },
            (t0.elapsed() - translated).as_secs_f64() * 1e3
        ));
        if let Some((up, down)) = managed_sync {
            crate::log::trace(format_args!(
                "launch `{name}`: managed memory upload {:.3} ms, download {:.3} ms",
                up.as_secs_f64() * 1e3,
                down.as_secs_f64() * 1e3
            ));
        }
        if let Err(e) = downloaded {
            crate::log::error(format_args!("launch of kernel `{name}`: cannot download managed memory: {e}"));
            return Err(CUDA_ERROR_UNKNOWN);
        }
        match r {
            Ok(()) => Ok(()),
            Err(e) => match launch_error(d, ctx, &name, e) {
                CUDA_SUCCESS => Ok(()),
                code => Err(code),
            },
        }
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn cuLaunchKernel(
    func: Handle,
    gx: u32,
    gy: u32,
    gz: u32,
    bx: u32,
    by: u32,
    bz: u32,
    shared: u32,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    entry("cuLaunchKernel", || launch(func, [gx, gy, gz], [bx, by, bz], shared, stream, params, extra))
}

/// `CUlaunchAttribute`: id, padding to 8, a 64-byte value union.
#[repr(C)]
struct LaunchAttribute {
    id: u32,
    _pad: u32,
    value: [u32; 16],
}

#[no_mangle]
pub extern "C" fn cuLaunchKernelEx(config: *const CUlaunchConfig, func: Handle, params: *mut *mut c_void, extra: *mut *mut c_void) -> CUresult {
    entry("cuLaunchKernelEx", || {
        // SAFETY: a valid config, as the API requires.
        let c = unsafe { config.as_ref() }.ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let attrs = c.attrs as *const LaunchAttribute;
        for i in 0..c.num_attrs as usize {
            if attrs.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            // SAFETY: `attrs` holds `num_attrs` entries.
            let a = unsafe { &*attrs.add(i) };
            let unsupported = match a.id as i64 {
                LA::CU_LAUNCH_ATTRIBUTE_COOPERATIVE => a.value[0] != 0,
                LA::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION => a.value[..3].iter().any(|&v| v > 1),
                _ => false,
            };
            if unsupported {
                crate::log::error(format_args!("cuLaunchKernelEx: launch attribute {} (cooperative or cluster launch) is not supported", a.id));
                return Err(CUDA_ERROR_NOT_SUPPORTED);
            }
        }
        launch(func, c.grid_dim, c.block_dim, c.shared_mem_bytes, c.stream, params, extra)
    })
}

/// The largest block (a multiple of the warp size) whose dynamic shared memory fits.
#[no_mangle]
pub extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut c_int,
    block_size: *mut c_int,
    func: Handle,
    smem_for_block: Option<extern "C" fn(c_int) -> usize>,
    dynamic_smem: usize,
    block_limit: c_int,
) -> CUresult {
    entry("cuOccupancyMaxPotentialBlockSize", || {
        state::with(|d| {
            out(min_grid)?;
            out(block_size)?;
            let fid = function_id(d, func)?;
            let static_shared = super::module::lowered_memory(d, fid)?.0 as usize;
            let shared_limit = super::device::shared_per_block_optin(d) as usize;
            let lim = d.device.gpu.limits();
            let mut block = lim.max_compute_invocations_per_workgroup as c_int;
            if block_limit > 0 {
                block = block.min(block_limit);
            }
            block = (block / 32 * 32).max(block.min(32));
            while block > 32 {
                let smem = smem_for_block.map(|cb| cb(block)).unwrap_or(dynamic_smem);
                if static_shared + smem <= shared_limit {
                    break;
                }
                block -= 32;
            }
            put(block_size, block)?;
            let sms = super::device::attribute(d, crate::generated::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).unwrap_or(1);
            put(min_grid, sms as c_int)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks: *mut c_int, func: Handle, block_size: c_int, dynamic_smem: usize) -> CUresult {
    entry("cuOccupancyMaxActiveBlocksPerMultiprocessor", || {
        state::with(|d| {
            let fid = function_id(d, func)?;
            let static_shared = super::module::lowered_memory(d, fid)?.0 as usize;
            let shared_limit = super::device::shared_per_block_optin(d) as usize;
            let lim = d.device.gpu.limits();
            let fits = block_size > 0
                && block_size as u32 <= lim.max_compute_invocations_per_workgroup
                && static_shared + dynamic_smem <= shared_limit;
            put(blocks, fits as c_int)
        })
    })
}

/// `CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE` (the only flag): ptxcross has no cache to configure,
/// so the flags change nothing; unknown bits are refused.
const OCCUPANCY_FLAGS: c_uint = 1;

/// What the CUDA runtime's `cudaOccupancyMaxActiveBlocksPerMultiprocessor` calls.
#[no_mangle]
pub extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks: *mut c_int, func: Handle, block_size: c_int, dynamic_smem: usize, flags: c_uint) -> CUresult {
    if flags & !OCCUPANCY_FLAGS != 0 {
        return CUDA_ERROR_INVALID_VALUE;
    }
    cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, func, block_size, dynamic_smem)
}

#[no_mangle]
pub extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut c_int,
    block_size: *mut c_int,
    func: Handle,
    smem_for_block: Option<extern "C" fn(c_int) -> usize>,
    dynamic_smem: usize,
    block_limit: c_int,
    flags: c_uint,
) -> CUresult {
    if flags & !OCCUPANCY_FLAGS != 0 {
        return CUDA_ERROR_INVALID_VALUE;
    }
    cuOccupancyMaxPotentialBlockSize(min_grid, block_size, func, smem_for_block, dynamic_smem, block_limit)
}
