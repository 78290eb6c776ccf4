//! Streams and events. Work is synchronous, so a stream is only a handle and stream queries
//! are always complete. An event records the GPU execution time of all kernels so far, from
//! timestamps around each launch (launches are timed once a timing event exists), so the time between two events is the GPU time of the
//! kernels launched between them (copies are synchronous host work and not counted); on a
//! device without timestamp queries it is the host clock when recorded (everything issued
//! before it had finished by then).

use std::ffi::{c_int, c_uint};
use std::time::Instant;

use super::entry;
use crate::state::{self, handle, id_of, out, put, Driver, Event, Kind, Stream};
use crate::types::*;

fn stream_id(d: &Driver, h: Handle) -> Result<Option<u64>, CUresult> {
    d.check_stream(h)?;
    Ok(id_of(h, Kind::Stream))
}

#[no_mangle]
pub extern "C" fn cuStreamCreate(pstream: *mut Handle, flags: c_uint) -> CUresult {
    entry("cuStreamCreate", || {
        state::with(|d| {
            let ctx = d.current_ctx()?;
            out(pstream)?;
            let id = d.new_id();
            d.streams.insert(id, Stream { ctx, flags });
            put(pstream, handle(Kind::Stream, id))
        })
    })
}

#[no_mangle]
pub extern "C" fn cuStreamCreateWithPriority(pstream: *mut Handle, flags: c_uint, _priority: c_int) -> CUresult {
    cuStreamCreate(pstream, flags)
}

#[no_mangle]
pub extern "C" fn cuStreamDestroy_v2(stream: Handle) -> CUresult {
    entry("cuStreamDestroy_v2", || {
        state::with(|d| {
            let id = id_of(stream, Kind::Stream).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
            d.streams.remove(&id).map(drop).ok_or(CUDA_ERROR_INVALID_HANDLE)
        })
    })
}

fn sync(stream: Handle) -> Result<(), CUresult> {
    state::with(|d| {
        d.flush_printf();
        d.current_ctx()?;
        stream_id(d, stream).map(drop)
    })
}

#[no_mangle]
pub extern "C" fn cuStreamSynchronize(stream: Handle) -> CUresult {
    entry("cuStreamSynchronize", || sync(stream))
}

#[no_mangle]
pub extern "C" fn cuStreamQuery(stream: Handle) -> CUresult {
    entry("cuStreamQuery", || sync(stream))
}

#[no_mangle]
pub extern "C" fn cuStreamGetFlags(stream: Handle, flags: *mut c_uint) -> CUresult {
    entry("cuStreamGetFlags", || {
        state::with(|d| {
            let f = stream_id(d, stream)?.map(|id| d.streams[&id].flags).unwrap_or(0);
            put(flags, f)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuStreamGetPriority(stream: Handle, priority: *mut c_int) -> CUresult {
    entry("cuStreamGetPriority", || state::with(|d| stream_id(d, stream).and_then(|_| put(priority, 0))))
}

#[no_mangle]
pub extern "C" fn cuStreamWaitEvent(stream: Handle, event: Handle, _flags: c_uint) -> CUresult {
    entry("cuStreamWaitEvent", || {
        state::with(|d| {
            stream_id(d, stream)?;
            event_id(d, event).map(drop)
        })
    })
}

fn event_id(d: &Driver, h: Handle) -> Result<u64, CUresult> {
    let id = id_of(h, Kind::Event).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    d.events.contains_key(&id).then_some(id).ok_or(CUDA_ERROR_INVALID_HANDLE)
}

#[no_mangle]
pub extern "C" fn cuEventCreate(pevent: *mut Handle, flags: c_uint) -> CUresult {
    entry("cuEventCreate", || {
        state::with(|d| {
            d.current_ctx()?;
            out(pevent)?;
            let id = d.new_id();
            // Launches are timed from the first timing event on (timing costs about as much
            // as a small launch): only differences of events' GPU times are ever reported.
            if flags & EVENT_DISABLE_TIMING == 0 {
                d.device.heap.time_launches(true);
            }
            d.events.insert(id, Event { flags, recorded: None, gpu_time: None });
            put(pevent, handle(Kind::Event, id))
        })
    })
}

#[no_mangle]
pub extern "C" fn cuEventRecord(event: Handle, stream: Handle) -> CUresult {
    entry("cuEventRecord", || {
        state::with(|d| {
            d.current_ctx()?;
            stream_id(d, stream)?;
            let id = event_id(d, event)?;
            let gpu_time = d.gpu_time;
            if let Some(e) = d.events.get_mut(&id) {
                e.recorded = Some(Instant::now());
                e.gpu_time = gpu_time;
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuEventRecordWithFlags(event: Handle, stream: Handle, _flags: c_uint) -> CUresult {
    cuEventRecord(event, stream)
}

fn event_done(event: Handle) -> Result<(), CUresult> {
    state::with(|d| {
        d.flush_printf();
        d.current_ctx()?;
        event_id(d, event).map(drop)
    })
}

#[no_mangle]
pub extern "C" fn cuEventSynchronize(event: Handle) -> CUresult {
    entry("cuEventSynchronize", || event_done(event))
}

#[no_mangle]
pub extern "C" fn cuEventQuery(event: Handle) -> CUresult {
    entry("cuEventQuery", || event_done(event))
}

/// `CU_EVENT_DISABLE_TIMING`.
const EVENT_DISABLE_TIMING: c_uint = 2;

#[no_mangle]
pub extern "C" fn cuEventElapsedTime_v2(ms: *mut f32, start: Handle, end: Handle) -> CUresult {
    entry("cuEventElapsedTime_v2", || {
        state::with(|d| {
            let (s, e) = (&d.events[&event_id(d, start)?], &d.events[&event_id(d, end)?]);
            if (s.flags | e.flags) & EVENT_DISABLE_TIMING != 0 {
                return Err(CUDA_ERROR_INVALID_HANDLE);
            }
            let (Some(t0), Some(t1)) = (s.recorded, e.recorded) else {
                return Err(CUDA_ERROR_INVALID_HANDLE);
            };
            let signed = |a: std::time::Duration, b: std::time::Duration| {
                if b >= a {
                    (b - a).as_secs_f64()
                } else {
                    -(a - b).as_secs_f64()
                }
            };
            let dt = match (s.gpu_time, e.gpu_time) {
                (Some(g0), Some(g1)) => signed(g0, g1),
                _ => {
                    if t1 >= t0 {
                        (t1 - t0).as_secs_f64()
                    } else {
                        -(t0 - t1).as_secs_f64()
                    }
                }
            };
            put(ms, (dt * 1e3) as f32)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) -> CUresult {
    cuEventElapsedTime_v2(ms, start, end)
}

#[no_mangle]
pub extern "C" fn cuEventDestroy_v2(event: Handle) -> CUresult {
    entry("cuEventDestroy_v2", || {
        state::with(|d| {
            let id = event_id(d, event)?;
            d.events.remove(&id);
            Ok(())
        })
    })
}
