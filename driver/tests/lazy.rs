//! Lazy module loading (see `cuda::module`): cuModuleLoadData parses a module, lays out its
//! parameters and globals and checks every instruction; the passes over a kernel's whole body
//! run at its first launch (or when an attribute needs that lowering), so what only they find
//! surfaces there and leaves the module's other kernels usable. `CUDA_MODULE_LOADING=EAGER`
//! lowers every kernel at load.

use std::ffi::{c_void, CString};

use cuda::api::*;
use cuda::generated::CUfunction_attribute as F;
use cuda::types::*;

/// `good` stores 42 + its second parameter at `out[1]`; `deep` nests more loops than the
/// structurizer accepts (512 levels; `host/tests/hostile_input.rs`): only the structurizer
/// finds that, not the instructions' check at load.
fn ptx(deep_levels: usize) -> String {
    let mut deep = String::from(".visible .entry deep(.param .u64 out) {\n  .reg .pred %p;\n  .reg .u32 %r<3>;\n");
    for i in 0..deep_levels {
        deep += &format!("H{i}:\n  add.u32 %r1, %r1, 1;\n");
    }
    for i in (0..deep_levels).rev() {
        deep += &format!("  add.u32 %r2, %r2, 1;\n  setp.lt.u32 %p, %r2, 3;\n  @%p bra H{i};\n");
    }
    deep += "  ret;\n}\n";
    format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n\
         .visible .entry good(.param .u64 out, .param .u32 x) {{\n\
           .reg .u64 %rd<2>;\n  .reg .u32 %r<2>;\n\
           .shared .align 4 .b8 buf[64];\n\
           ld.param.u64 %rd0, [out];\n  ld.param.u32 %r0, [x];\n\
           add.u32 %r1, %r0, 42;\n  st.shared.u32 [buf+60], %r1;\n  ld.shared.u32 %r1, [buf+60];\n\
           st.global.u32 [%rd0+4], %r1;\n  ret;\n}}\n{deep}"
    )
}

/// `ptx` with a kernel whose instruction reads an undeclared register.
fn bad_instruction(ptx: &str) -> String {
    format!("{ptx}.visible .entry bad() {{\n  .reg .u32 %r<2>;\n  add.u32 %r0, %r1, %nope;\n  ret;\n}}\n")
}

fn function(module: Handle, name: &str) -> (CUresult, Handle) {
    let mut f = std::ptr::null_mut();
    let name = CString::new(name).unwrap();
    let r = cuModuleGetFunction(&mut f, module, name.as_ptr());
    (r, f)
}

fn attribute(f: Handle, attr: i64) -> (CUresult, i32) {
    let mut v = -7;
    let r = cuFuncGetAttribute(&mut v, attr as i32, f);
    (r, v)
}

fn load(text: &str) -> (CUresult, Handle) {
    let ptx = CString::new(text).unwrap();
    let mut module = std::ptr::null_mut();
    let r = cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
    (r, module)
}

#[test]
fn kernel_bodies_are_lowered_at_first_use() {
    std::env::remove_var("CUDA_MODULE_LOADING");
    if cuInit(0) != CUDA_SUCCESS {
        assert_ne!(std::env::var("PTXCROSS_REQUIRE_GPU").as_deref(), Ok("1"), "no device");
        return;
    }
    let mut ctx = std::ptr::null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), CUDA_SUCCESS);
    assert_eq!(cuCtxSetCurrent(ctx), CUDA_SUCCESS);

    // Errors in instructions are still refused at load, as CUDA's JIT does.
    let deep = ptx(600);
    assert_eq!(load(&deep.replace("ret;\n}\n.visible .entry deep", "ret\n}\n.visible .entry deep")).0, CUDA_ERROR_INVALID_PTX);
    assert_eq!(load(&bad_instruction(&deep)).0, CUDA_ERROR_INVALID_PTX);

    let (r, module) = load(&deep);
    assert_eq!(r, CUDA_SUCCESS, "the structurizer's refusal of `deep` waits for its first use");
    let (r, good) = function(module, "good");
    assert_eq!(r, CUDA_SUCCESS);
    let (r, bad) = function(module, "deep");
    assert_eq!(r, CUDA_SUCCESS, "cuModuleGetFunction needs only the kernel's name");
    assert_eq!(function(module, "missing").0, CUDA_ERROR_NOT_FOUND);

    // Attributes that need no lowering work for either; shared memory needs the lowering.
    assert_eq!(attribute(bad, F::CU_FUNC_ATTRIBUTE_NUM_REGS).0, CUDA_SUCCESS);
    assert_eq!(attribute(bad, F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES).0, CUDA_ERROR_INVALID_PTX);
    assert_eq!(attribute(bad, F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES).0, CUDA_ERROR_INVALID_PTX, "the error is kept");
    let (r, shared) = attribute(good, F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    assert_eq!((r, shared), (CUDA_SUCCESS, 64), "`buf` is 64 bytes");

    let mut out = 0u64;
    assert_eq!(cuMemAlloc_v2(&mut out, 8), CUDA_SUCCESS);
    assert_eq!(cuMemsetD32_v2(out, 0, 2), CUDA_SUCCESS);
    let x = 1000u32;
    let mut args: [*mut c_void; 2] = [&out as *const _ as *mut c_void, &x as *const _ as *mut c_void];
    let launch = |f: Handle, args: &mut [*mut c_void]| cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, std::ptr::null_mut(), args.as_mut_ptr(), std::ptr::null_mut());
    assert_eq!(launch(bad, &mut args[..1]), CUDA_ERROR_INVALID_PTX);
    assert_eq!(launch(good, &mut args), CUDA_SUCCESS, "the module's other kernels stay usable");
    assert_eq!(cuCtxSynchronize(), CUDA_SUCCESS);
    let mut host = [7u32; 2];
    assert_eq!(cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, out, 8), CUDA_SUCCESS);
    assert_eq!(host, [0, 1042]);
    assert_eq!(cuModuleUnload(module), CUDA_SUCCESS);

    // Eager loading lowers every kernel at load, as CUDA's CUDA_MODULE_LOADING=EAGER.
    std::env::set_var("CUDA_MODULE_LOADING", "EAGER");
    assert_eq!(load(&deep).0, CUDA_ERROR_INVALID_PTX);
    let (r, module) = load(&ptx(100));
    std::env::remove_var("CUDA_MODULE_LOADING");
    assert_eq!(r, CUDA_SUCCESS);
    let (r, good) = function(module, "good");
    assert_eq!(r, CUDA_SUCCESS);
    assert_eq!(attribute(good, F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), (CUDA_SUCCESS, 64));
    assert_eq!(cuModuleUnload(module), CUDA_SUCCESS);
    assert_eq!(cuMemFree_v2(out), CUDA_SUCCESS);
}

/// A module's kernels are lowered only when asked (no device needed: `Module` directly).
#[test]
fn loading_lowers_no_kernel() {
    let mut m = cuda::module::Module::load_with("lazy.ptx", ptx(600), 0, false).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(m.lowered_count(), 0);
    assert_eq!(m.kernel("good").map(|k| (k.params.len(), k.param_bytes)), Some((2, 12)));
    assert!(m.lowered("good").is_some_and(|k| k.is_ok()));
    assert!(m.lowered("deep").is_some_and(|k| k.is_err_and(|e| e.contains("loops nest more than 512 levels"))), "the structurizer's depth limit");
    assert!(m.lowered("missing").is_none());
    assert_eq!(m.lowered_count(), 2);
    let m = cuda::module::Module::load_with("lazy.ptx", ptx(100), 0, true).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(m.lowered_count(), 2);
    let e = cuda::module::Module::load_with("lazy.ptx", bad_instruction(&ptx(100)), 0, false).err().expect("refused at load");
    assert!(e.message.contains("%nope"), "{}", e.message);
}

/// Load time of the CUB/Thrust file (`tests/parse-corpus/large/cub_zoo.sm_80.ptx`, generated by
/// the parse-corpus tests or `translate_time`), lazily and eagerly, without a device:
///
///     cargo test -p ptxcross-driver --test lazy -- --ignored --nocapture
#[test]
#[ignore]
fn cub_file_load_time() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/parse-corpus/large/cub_zoo.sm_80.ptx");
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("skipped: {path} is missing (cargo bench -p ptxcross-tests --bench translate_time makes it)");
        return;
    };
    let entries = text.lines().filter(|l| l.contains(".entry ")).count();
    for round in 0..2 {
        for eager in [false, true] {
            let (t, c) = (std::time::Instant::now(), cpu_seconds());
            let m = cuda::module::Module::load_with("cub_zoo.sm_80.ptx", text.clone(), 0, eager).unwrap_or_else(|e| panic!("{}", e.message));
            let (s, c) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
            assert_eq!(m.facts.kernels.len(), entries);
            println!("round {round}: {} load: {s:.3} s wall, {c:.3} s CPU ({} kernels)", if eager { "eager" } else { "lazy" }, m.facts.kernels.len());
        }
    }
}

/// CPU time of this process (all threads), in seconds.
fn cpu_seconds() -> f64 {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, t: *mut Timespec) -> i32;
    }
    let mut t = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec; 2 is CLOCK_PROCESS_CPUTIME_ID.
    unsafe { clock_gettime(2, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}
