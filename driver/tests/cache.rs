//! The translation cache through the API: a repeated launch shape is translated once per module
//! (memory), a module loaded again reuses the code on disk, a damaged entry is a miss, and each
//! result is checked against a CPU loop. Prints the cost of a first and a repeated launch.

use std::ffi::{c_void, CString};
use std::time::Instant;

use cuda::api::*;
use cuda::cache;
use cuda::types::*;

fn ok(r: CUresult) {
    assert_eq!(r, CUDA_SUCCESS);
}

fn has_gpu() -> bool {
    let init = cuInit(0);
    if init != CUDA_SUCCESS {
        assert_ne!(std::env::var("PTXCROSS_REQUIRE_GPU").as_deref(), Ok("1"), "no device (cuInit {init})");
        eprintln!("skipped: no GPU adapter");
        return false;
    }
    true
}

struct Vecadd {
    da: CUdeviceptr,
    db: CUdeviceptr,
    dc: CUdeviceptr,
    a: Vec<f32>,
    b: Vec<f32>,
}

const N: usize = 4096;

fn load(ptx: &CString) -> (Handle, Handle) {
    let mut module = std::ptr::null_mut();
    ok(cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void));
    let mut f = std::ptr::null_mut();
    let name = CString::new("vecadd").unwrap();
    ok(cuModuleGetFunction(&mut f, module, name.as_ptr()));
    (module, f)
}

/// Launches vecadd and checks c = a + b; returns the launch's wall time in ms.
fn launch(f: Handle, v: &Vecadd) -> f64 {
    ok(cuMemsetD32_v2(v.dc, 0, N));
    let n = N as i32;
    let mut args: [*mut c_void; 4] = [
        &v.da as *const _ as *mut c_void,
        &v.db as *const _ as *mut c_void,
        &v.dc as *const _ as *mut c_void,
        &n as *const _ as *mut c_void,
    ];
    let t = Instant::now();
    ok(cuLaunchKernel(f, (N / 128) as u32, 1, 1, 128, 1, 1, 0, std::ptr::null_mut(), args.as_mut_ptr(), std::ptr::null_mut()));
    ok(cuCtxSynchronize());
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let mut c = vec![0f32; N];
    ok(cuMemcpyDtoH_v2(c.as_mut_ptr() as *mut c_void, v.dc, N * 4));
    for (i, (c, (a, b))) in c.iter().zip(v.a.iter().zip(&v.b)).enumerate() {
        assert_eq!(c.to_bits(), (a + b).to_bits(), "c[{i}]");
    }
    ms
}

#[test]
fn translations_are_cached_in_memory_and_on_disk() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("translation-cache");
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("PTXCROSS_CACHE_DIR", &dir);
    if !has_gpu() {
        return;
    }
    let mut ctx = std::ptr::null_mut();
    ok(cuDevicePrimaryCtxRetain(&mut ctx, 0));
    ok(cuCtxSetCurrent(ctx));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/ptx/vecadd.sm52.ptx");
    let ptx = CString::new(std::fs::read(path).unwrap()).unwrap();

    let a: Vec<f32> = (0..N).map(|i| i as f32 * 0.25).collect();
    let b: Vec<f32> = (0..N).map(|i| 3.0 - i as f32).collect();
    let mut v = Vecadd { da: 0, db: 0, dc: 0, a, b };
    for (p, data) in [(&mut v.da, Some(&v.a)), (&mut v.db, Some(&v.b)), (&mut v.dc, None)] {
        ok(cuMemAlloc_v2(p, N * 4));
        if let Some(d) = data {
            ok(cuMemcpyHtoD_v2(*p, d.as_ptr() as *const c_void, N * 4));
        }
    }

    let s0 = cache::stats();
    let (module, f) = load(&ptx);
    let (mut start, mut stop) = (std::ptr::null_mut(), std::ptr::null_mut());
    ok(cuEventCreate(&mut start, 0));
    ok(cuEventCreate(&mut stop, 0));
    let window = Instant::now();
    ok(cuEventRecord(start, std::ptr::null_mut()));
    let first = launch(f, &v);
    ok(cuEventRecord(stop, std::ptr::null_mut()));
    ok(cuEventSynchronize(stop));
    let window_ms = window.elapsed().as_secs_f64() * 1e3;
    let mut event_ms = 0f32;
    ok(cuEventElapsedTime(&mut event_ms, start, stop));
    // Between the events: the kernel's GPU time (timestamps), not the translation and
    // read-back around it that the host's clock also counts. The upper bound is the host's
    // time around both records (not around the launch alone: the start record may be taken
    // before the launch's own clock starts, which a loaded machine made visible once).
    let timestamps = ptxcross::Gpu::shared().is_ok_and(|g| g.features().contains(wgpu::Features::TIMESTAMP_QUERY));
    assert!(event_ms > 0.0 && (event_ms as f64) <= window_ms, "event time {event_ms} ms, host time around both records {window_ms} ms");
    if timestamps {
        assert!((event_ms as f64) < first / 2.0, "GPU time {event_ms} ms against a first launch (translation included) of {first} ms");
    }
    let repeated: Vec<f64> = (0..5).map(|_| launch(f, &v)).collect();
    let s1 = cache::stats();
    assert_eq!(s1.translations - s0.translations, 1, "{s1:?}");
    assert_eq!(s1.memory_hits - s0.memory_hits, 5, "{s1:?}");
    // Files only: `spirv-valid/` holds the SPIR-V validator's record (ptxcross::validated).
    let entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
    assert_eq!(entries.len(), 1, "one cache entry: {entries:?}");

    // A new module with the same PTX: the code comes from disk.
    ok(cuModuleUnload(module));
    let (module, f) = load(&ptx);
    let from_disk = launch(f, &v);
    let s2 = cache::stats();
    assert_eq!(s2.disk_hits - s1.disk_hits, 1, "{s2:?}");
    assert_eq!(s2.translations, s1.translations, "{s2:?}");

    // A damaged entry is a miss, never a wrong kernel.
    std::fs::write(&entries[0], b"not spir-v").unwrap();
    ok(cuModuleUnload(module));
    let (_module, f) = load(&ptx);
    launch(f, &v);
    let s3 = cache::stats();
    assert_eq!(s3.translations - s2.translations, 1, "{s3:?}");

    let best = repeated.iter().cloned().fold(f64::INFINITY, f64::min);
    eprintln!(
        "cuLaunchKernel + cuCtxSynchronize of vecadd ({N} threads): first {first:.2} ms, repeated {best:.2} ms (best of 5), \
         new module with the translation on disk {from_disk:.2} ms; cuEventElapsedTime around the first: {event_ms:.3} ms"
    );
}
