//! Contexts. Every context of the device shares its heap (one address space); each owns its
//! allocations and modules, which are released with it. The current context is per thread.

use std::collections::HashMap;
use std::ffi::{c_int, c_uint};

use super::entry;
use crate::generated::CUlimit as L;
use crate::state::{self, handle, out, put, Ctx, Kind};
use crate::types::*;

fn check_device(dev: CUdevice) -> Result<(), CUresult> {
    if dev == 0 {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_DEVICE)
    }
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut Handle, dev: CUdevice) -> CUresult {
    entry("cuDevicePrimaryCtxRetain", || {
        state::with(|d| {
            check_device(dev)?;
            out(pctx)?;
            d.primary_refs += 1;
            put(pctx, handle(Kind::Context, d.primary))
        })
    })
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    entry("cuDevicePrimaryCtxRelease_v2", || {
        let last = state::with(|d| {
            check_device(dev)?;
            Ok((d.primary_refs == 1).then(|| handle(Kind::Context, d.primary)))
        })?;
        if let Some(primary) = last {
            super::export_tables::context_storage_destroyed(primary);
        }
        state::with(|d| {
            if d.primary_refs == 0 {
                return Err(CUDA_ERROR_INVALID_CONTEXT);
            }
            d.primary_refs -= 1;
            if d.primary_refs == 0 {
                let p = d.primary;
                d.release_ctx_resources(p);
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult {
    entry("cuDevicePrimaryCtxReset_v2", || {
        let primary = state::with(|d| {
            check_device(dev)?;
            Ok(handle(Kind::Context, d.primary))
        })?;
        super::export_tables::context_storage_destroyed(primary);
        state::with(|d| {
            let p = d.primary;
            d.release_ctx_resources(p);
            d.primary_refs = 0;
            d.primary_flags = 0;
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) -> CUresult {
    entry("cuDevicePrimaryCtxGetState", || {
        state::with(|d| {
            check_device(dev)?;
            put(flags, d.primary_flags)?;
            put(active, (d.primary_refs > 0) as c_int)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) -> CUresult {
    entry("cuDevicePrimaryCtxSetFlags_v2", || {
        state::with(|d| {
            check_device(dev)?;
            d.primary_flags = flags;
            Ok(())
        })
    })
}

fn create(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> Result<(), CUresult> {
    state::with(|d| {
        check_device(dev)?;
        out(pctx)?;
        let id = d.new_id();
        d.contexts.insert(id, Ctx { primary: false, flags, sticky: None, limits: HashMap::new(), printf: String::new() });
        state::push_current(id);
        put(pctx, handle(Kind::Context, id))
    })
}

#[no_mangle]
pub extern "C" fn cuCtxCreate_v2(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> CUresult {
    entry("cuCtxCreate_v2", || create(pctx, flags, dev))
}

#[no_mangle]
pub extern "C" fn cuCtxCreate_v4(pctx: *mut Handle, params: *mut CUctxCreateParams, flags: c_uint, dev: CUdevice) -> CUresult {
    entry("cuCtxCreate_v4", || {
        // SAFETY: null or a valid parameter struct, as the API requires.
        if let Some(p) = unsafe { params.as_ref() } {
            if !p.exec_affinity_params.is_null() || !p.cig_params.is_null() {
                crate::log::error("cuCtxCreate: execution affinity and CIG parameters are not supported");
                return Err(CUDA_ERROR_NOT_SUPPORTED);
            }
        }
        create(pctx, flags, dev)
    })
}

#[no_mangle]
pub extern "C" fn cuCtxDestroy_v2(ctx: Handle) -> CUresult {
    entry("cuCtxDestroy_v2", || {
        state::with(|d| {
            let id = d.ctx_of(ctx)?;
            if id == d.primary {
                return Err(CUDA_ERROR_INVALID_CONTEXT);
            }
            Ok(())
        })?;
        super::export_tables::context_storage_destroyed(ctx);
        state::with(|d| {
            let id = d.ctx_of(ctx)?;
            d.release_ctx_resources(id);
            d.contexts.remove(&id);
            if state::current() == Some(id) {
                state::pop_current();
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuCtxSetCurrent(ctx: Handle) -> CUresult {
    entry("cuCtxSetCurrent", || {
        if ctx.is_null() {
            state::set_current(None);
            return Ok(());
        }
        state::with(|d| {
            let id = d.ctx_of(ctx)?;
            state::set_current(Some(id));
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuCtxGetCurrent(pctx: *mut Handle) -> CUresult {
    entry("cuCtxGetCurrent", || {
        state::with(|_| Ok(()))?;
        put(pctx, state::current().map(|id| handle(Kind::Context, id)).unwrap_or(state::null()))
    })
}

#[no_mangle]
pub extern "C" fn cuCtxPushCurrent_v2(ctx: Handle) -> CUresult {
    entry("cuCtxPushCurrent_v2", || {
        state::with(|d| {
            let id = d.ctx_of(ctx)?;
            state::push_current(id);
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuCtxPopCurrent_v2(pctx: *mut Handle) -> CUresult {
    entry("cuCtxPopCurrent_v2", || {
        state::with(|_| Ok(()))?;
        let id = state::pop_current().ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
        if !pctx.is_null() {
            put(pctx, handle(Kind::Context, id))?;
        }
        Ok(())
    })
}

/// Work is synchronous: synchronizing only reports a pending kernel fault.
#[no_mangle]
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    entry("cuCtxSynchronize", || {
        state::with(|d| {
            d.flush_printf();
            d.current_ctx().map(drop)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuCtxSynchronize_v2(ctx: Handle) -> CUresult {
    entry("cuCtxSynchronize_v2", || {
        state::with(|d| {
            d.flush_printf();
            let id = if ctx.is_null() { d.current_ctx()? } else { d.ctx_of(ctx)? };
            match d.contexts.get(&id).and_then(|c| c.sticky) {
                Some(code) => Err(code),
                None => Ok(()),
            }
        })
    })
}

#[no_mangle]
pub extern "C" fn cuCtxGetDevice(dev: *mut CUdevice) -> CUresult {
    entry("cuCtxGetDevice", || state::with(|d| d.current_ctx().and_then(|_| put(dev, 0))))
}

#[no_mangle]
pub extern "C" fn cuCtxGetDevice_v2(dev: *mut CUdevice, ctx: Handle) -> CUresult {
    entry("cuCtxGetDevice_v2", || {
        state::with(|d| {
            if ctx.is_null() {
                d.current_ctx()?;
            } else {
                d.ctx_of(ctx)?;
            }
            put(dev, 0)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuCtxGetApiVersion(ctx: Handle, version: *mut c_uint) -> CUresult {
    entry("cuCtxGetApiVersion", || {
        state::with(|d| {
            if ctx.is_null() {
                d.current_ctx()?;
            } else {
                d.ctx_of(ctx)?;
            }
            put(version, super::init::DRIVER_VERSION as c_uint)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult {
    entry("cuCtxGetFlags", || {
        state::with(|d| {
            let id = d.current_ctx()?;
            let f = if id == d.primary { d.primary_flags } else { d.contexts[&id].flags };
            put(flags, f)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuCtxGetId(ctx: Handle, id: *mut u64) -> CUresult {
    entry("cuCtxGetId", || {
        state::with(|d| {
            let c = if ctx.is_null() { d.current_ctx()? } else { d.ctx_of(ctx)? };
            put(id, c)
        })
    })
}

/// Default values of the limits ptxcross knows (bytes or counts).
fn default_limit(limit: i64) -> Option<usize> {
    Some(match limit {
        L::CU_LIMIT_STACK_SIZE => 1024,
        L::CU_LIMIT_PRINTF_FIFO_SIZE => ptxcross_lower::printf::REGION_BYTES as usize,
        L::CU_LIMIT_MALLOC_HEAP_SIZE => ptxcross_lower::device_runtime::HEAP_BYTES as usize,
        L::CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH => 2,
        L::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT => 2048,
        L::CU_LIMIT_MAX_L2_FETCH_GRANULARITY => 64,
        L::CU_LIMIT_PERSISTING_L2_CACHE_SIZE => 0,
        _ => return None,
    })
}

#[no_mangle]
pub extern "C" fn cuCtxGetLimit(value: *mut usize, limit: c_int) -> CUresult {
    entry("cuCtxGetLimit", || {
        state::with(|d| {
            let id = d.current_ctx()?;
            // The malloc heap and the printf buffer have one size each: a smaller one set is
            // not what kernels get, so the real size is reported, as CUDA reports the value
            // it rounded a limit to.
            if let Some(size) = fixed_size(limit as i64) {
                return put(value, size);
            }
            let v = d.contexts[&id].limits.get(&(limit as i64)).copied();
            let v = v.or_else(|| default_limit(limit as i64)).ok_or(CUDA_ERROR_UNSUPPORTED_LIMIT)?;
            put(value, v)
        })
    })
}

/// The limits whose size is fixed: each module's device `malloc` heap
/// (`ptxcross_lower::device_runtime`) and printf buffer (`ptxcross_lower::printf`).
fn fixed_size(limit: i64) -> Option<usize> {
    match limit {
        L::CU_LIMIT_MALLOC_HEAP_SIZE | L::CU_LIMIT_PRINTF_FIFO_SIZE => default_limit(limit),
        _ => None,
    }
}

/// Limits are remembered and reported back; they change nothing: ptxcross's code has no device
/// stack limit, and the printf buffer and the malloc heap have fixed sizes (docs/coverage.md):
/// asking for more than those is refused with `CUDA_ERROR_UNSUPPORTED_LIMIT` (kernels would
/// get NULL from `malloc` or lose printf lines where the program counts on the room it asked
/// for); asking for less is accepted, and `cuCtxGetLimit` reports the real size.
#[no_mangle]
pub extern "C" fn cuCtxSetLimit(limit: c_int, value: usize) -> CUresult {
    entry("cuCtxSetLimit", || {
        state::with(|d| {
            let id = d.current_ctx()?;
            default_limit(limit as i64).ok_or(CUDA_ERROR_UNSUPPORTED_LIMIT)?;
            if fixed_size(limit as i64).is_some_and(|size| value > size) {
                return Err(CUDA_ERROR_UNSUPPORTED_LIMIT);
            }
            if let Some(c) = d.contexts.get_mut(&id) {
                c.limits.insert(limit as i64, value);
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuCtxGetCacheConfig(config: *mut c_int) -> CUresult {
    entry("cuCtxGetCacheConfig", || state::with(|d| d.current_ctx().and_then(|_| put(config, 0))))
}

#[no_mangle]
pub extern "C" fn cuCtxSetCacheConfig(_config: c_int) -> CUresult {
    entry("cuCtxSetCacheConfig", || state::with(|d| d.current_ctx().map(drop)))
}

#[no_mangle]
pub extern "C" fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) -> CUresult {
    entry("cuCtxGetStreamPriorityRange", || {
        state::with(|d| {
            d.current_ctx()?;
            if !least.is_null() {
                put(least, 0)?;
            }
            if !greatest.is_null() {
                put(greatest, 0)?;
            }
            Ok(())
        })
    })
}
