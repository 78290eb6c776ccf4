//! The launch watchdog (`PTXCROSS_LAUNCH_TIMEOUT`): a launch that runs past the limit ends the
//! process with exit status 124 and a message naming the kernel, grid and block, within a
//! bounded time, instead of hanging it (no Vulkan driver can cancel a dispatch, and lavapipe's
//! first dispatch of a big kernel can spend many minutes in LLVM: driver/README.md, "Launch
//! watchdog"). The watchdog ends the process, so the slow launch runs in a child: this test
//! binary run again with `SLOW_LAUNCH_CHILD` set.

use std::ffi::{c_void, CString};
use std::process::Command;
use std::time::{Duration, Instant};

use cuda::api::*;
use cuda::types::*;

/// Each thread runs 20,000 rounds of xorshift (below lavapipe's loop budget, so no loop is
/// cut) and stores only if the state is 0, which never happens, so no work can be dropped.
/// 65,535² blocks of 256 threads: ~2·10¹⁶ rounds, hours on any GPU.
const SLOW_PTX: &str = r#"
.version 7.0
.target sm_52
.address_size 64
.visible .entry slow(.param .u64 out, .param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<3>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    add.u32 %r3, %r1, %r2;
    or.b32 %r3, %r3, 1;
    ld.param.u32 %r4, [n];
    mov.u32 %r5, 0;
LOOP:
    shl.b32 %r6, %r3, 13;
    xor.b32 %r3, %r3, %r6;
    shr.u32 %r6, %r3, 17;
    xor.b32 %r3, %r3, %r6;
    shl.b32 %r6, %r3, 5;
    xor.b32 %r3, %r3, %r6;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, %r4;
    @%p1 bra LOOP;
    setp.ne.u32 %p2, %r3, 0;
    @%p2 bra DONE;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r3;
DONE:
    ret;
}
"#;

const CHILD: &str = "SLOW_LAUNCH_CHILD";
const TEST: &str = "a_launch_past_the_limit_ends_the_process_with_a_clear_error";

fn ok(r: CUresult) {
    assert_eq!(r, CUDA_SUCCESS);
}

/// The child's part: launches the slow kernel; returning at all is a failure.
fn slow_launch() {
    if cuInit(0) != CUDA_SUCCESS {
        assert_ne!(std::env::var("PTXCROSS_REQUIRE_GPU").as_deref(), Ok("1"), "no device");
        eprintln!("skipped: no GPU adapter");
        std::process::exit(77);
    }
    let mut ctx = std::ptr::null_mut();
    ok(cuDevicePrimaryCtxRetain(&mut ctx, 0));
    ok(cuCtxPushCurrent_v2(ctx));
    let ptx = CString::new(SLOW_PTX).unwrap();
    let mut module = std::ptr::null_mut();
    ok(cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void));
    let mut f = std::ptr::null_mut();
    let name = CString::new("slow").unwrap();
    ok(cuModuleGetFunction(&mut f, module, name.as_ptr()));
    let mut out: CUdeviceptr = 0;
    ok(cuMemAlloc_v2(&mut out, 4));
    let n: u32 = 20_000;
    let mut args: [*mut c_void; 2] = [&out as *const _ as *mut c_void, &n as *const _ as *mut c_void];
    let r = cuLaunchKernel(f, 65_535, 65_535, 1, 256, 1, 1, 0, std::ptr::null_mut(), args.as_mut_ptr(), std::ptr::null_mut());
    let s = cuCtxSynchronize();
    panic!("the slow launch returned ({r}, then {s}) instead of the watchdog ending the process");
}

#[test]
fn a_launch_past_the_limit_ends_the_process_with_a_clear_error() {
    if std::env::var_os(CHILD).is_some() {
        return slow_launch();
    }
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("launch-timeout-cache");
    let _ = std::fs::remove_dir_all(&cache);
    let t = Instant::now();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("PTXCROSS_LAUNCH_TIMEOUT", "2")
        .env("PTXCROSS_CACHE_DIR", &cache)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Bounded: translation and pipeline of this small kernel take about a second; a child
    // still running after two minutes is the hang this watchdog exists to prevent.
    let bound = Duration::from_secs(120);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > bound {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "the launch was still running after {bound:?} with PTXCROSS_LAUNCH_TIMEOUT=2\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let elapsed = t.elapsed();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("--- child ({status}, {elapsed:.1?}):\n{stderr}");
    if status.code() == Some(77) {
        return eprintln!("skipped: no GPU adapter");
    }
    assert_eq!(status.code(), Some(124), "exit status of a timed-out launch");
    assert!(
        stderr.contains("launch of kernel `slow` grid [65535, 65535, 1] block [256, 1, 1] did not finish within 2 s"),
        "the message names the kernel and the limit"
    );
    assert!(elapsed >= Duration::from_secs(2), "ended before the limit ({elapsed:?})");
}
