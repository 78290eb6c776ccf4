//! Launches that must not run the launch-specialised variant (`launch_proof`), end to end on
//! both backends: each kernel is run once in range (the variant runs, values checked against
//! a CPU reference) and once where an access leaves the heap or is misaligned, placed at the
//! heap's end so that the checked kernel faults; that launch must run the checked kernel
//! (`Context::last_launch_specialised`) and report the fault at the access (PTX §9.7.9.8: an
//! access outside every allocation or not aligned to its size is an error). The proof's
//! corners are swept without a device in `lower/tests/launch_proof_attacks.rs`; these are the
//! shapes that the host's plumbing must get right too: a `!=` loop whose step jumps over its
//! bound, a do-while counter tested after its step, a misalignment that only an immediate
//! offset makes.

use ptxcross::runtime::{DevicePtr, Error};
use ptxcross::{translate, Backend, Context, ContextOptions, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::{abi, LowerOptions};
use ptxcross_tests::launch::gpu_or_skip;

const HEAP: u64 = 1 << 20;

fn program(name: &str, ptx: &str, block: u32) -> Program {
    let file = SourceFile::new(name.to_string(), ptx.to_string());
    let options = LowerOptions { block: Some([block, 1, 1]), ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()))
}

/// A context whose heap is one allocation; returns it, the allocation's base and its end (the
/// heap's end).
fn context(gpu: &std::sync::Arc<ptxcross::Gpu>) -> (Context, u64, u64) {
    let mut ctx = Context::new(ContextOptions { heap_bytes: HEAP, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
    ctx.set_launch_specialisation_threshold(0);
    let size = HEAP - abi::HEAP_RESERVED_WORDS as u64 * 4;
    let base = ctx.alloc(size).unwrap().0;
    (ctx, base, base + size)
}

fn fault(r: Result<(), Error>, what: &str) -> (u32, String) {
    match r {
        Err(Error::KernelFault { bits, site, .. }) => (bits, site.unwrap_or_default()),
        other => panic!("{what}: expected a kernel fault, got {other:?}"),
    }
}

/// `for (i = k; i != n; i += s) x[i] = i` (u32, tested at the head): with `s` a power of two
/// and `n ≡ k` modulo it the loop stops at `n`; with `n` not congruent the step jumps over it
/// and `i` runs on until it wraps, far past any heap.
const NE_LOOP: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry ne(.param .u64 x, .param .u32 n, .param .u32 s, .param .u32 k)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x];
    ld.param.u32 %r1, [n];
    ld.param.u32 %r2, [s];
    ld.param.u32 %r3, [k];
LOOP:
    setp.eq.u32 %p1, %r3, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    add.s32 %r3, %r3, %r2;
    bra LOOP;
DONE:
    ret;
}
"#;

#[test]
fn a_ne_loop_whose_step_jumps_over_its_bound_runs_checked() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program("ne.ptx", NE_LOOP, 1);
    for backend in Backend::ALL {
        let (mut ctx, _, end) = context(&gpu);
        // x ends at the heap's end with 64 words: i = 0, 4, ..., 60 stops at n = 64.
        let x = end - 4 * 64;
        let args = |n: u32, s: u32| [x.to_le_bytes().to_vec(), n.to_le_bytes().to_vec(), s.to_le_bytes().to_vec(), 0u32.to_le_bytes().to_vec()];
        let a = args(64, 4);
        let a: Vec<&[u8]> = a.iter().map(|v| v.as_slice()).collect();
        ctx.launch(&prog, "ne", [1, 1, 1], &a, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(ctx.last_launch_specialised(), "{backend}: i stops at n");
        let got = ctx.read(DevicePtr(x), 256).unwrap();
        let want: Vec<u8> = (0..64u32).flat_map(|i| if i % 4 == 0 { i.to_le_bytes() } else { [0; 4] }).collect();
        assert_eq!(got, want, "{backend}: x[i] = i for i = 0, 4, ..., 60");
        // n = 62: i = 60, 64, ... skips it and stores past the heap's end.
        let a = args(62, 4);
        let a: Vec<&[u8]> = a.iter().map(|v| v.as_slice()).collect();
        let (bits, site) = fault(ctx.launch(&prog, "ne", [1, 1, 1], &a, backend), "the step jumps over n");
        assert!(!ctx.last_launch_specialised(), "{backend}: the checked kernel ran");
        assert_eq!(bits & abi::FAULT_GLOBAL_OUT_OF_RANGE, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}: {bits:#x}");
        assert!(site.contains("st.global.u32"), "{backend}: {site}");
    }
}

/// A do-while counter tested after its step beside the pointer it indexes (nvcc's tile loop):
/// `i = 0; p = x + 4 tid; do { *p = tid; p += 4 ntid; i += 1 } while (i < n)` (signed).
const DO_WHILE: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry dw(.param .u64 x, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [x];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r3, 0;
LOOP:
    st.global.u32 [%rd3], %r3;
    add.s64 %rd3, %rd3, 256;
    add.s32 %r3, %r3, 1;
    setp.lt.s32 %p1, %r3, %r1;
    @%p1 bra LOOP;
    ret;
}
"#;

#[test]
fn a_do_while_counter_one_trip_too_many_runs_checked() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program("dw.ptx", DO_WHILE, 64);
    for backend in Backend::ALL {
        let (mut ctx, _, end) = context(&gpu);
        // 10 trips of 64 words end exactly at the heap's end.
        let x = end - 4 * 640;
        let launch = |ctx: &mut Context, n: u32| ctx.launch(&prog, "dw", [1, 1, 1], &[&x.to_le_bytes(), &n.to_le_bytes()], backend);
        launch(&mut ctx, 10).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(ctx.last_launch_specialised(), "{backend}");
        let got = ctx.read(DevicePtr(x), 4 * 640).unwrap();
        assert_eq!(got, (0..640u32).flat_map(|w| (w / 64).to_le_bytes()).collect::<Vec<_>>(), "{backend}: x[64 j + tid] = j");
        let (bits, site) = fault(launch(&mut ctx, 11), "an 11th trip past the heap");
        assert!(!ctx.last_launch_specialised(), "{backend}");
        assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
        assert!(site.contains("st.global.u32"), "{backend}: {site}");
        // A negative n is one trip (do-while); as unsigned it would be billions.
        launch(&mut ctx, (-3i32) as u32).unwrap();
        assert!(ctx.last_launch_specialised(), "{backend}: one trip");
        let (bits, _) = fault(launch(&mut ctx, 1000), "1000 trips");
        assert!(!ctx.last_launch_specialised(), "{backend}");
        assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
    }
}

/// `y[tid] = x[tid]` through `ld.global.u32 [%rd + OFF]`: an aligned `x` with `OFF = 2` is
/// misaligned for every thread; `OFF = 4` is fine.
const OFFSET: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry off(.param .u64 x, .param .u64 y)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4+OFF];
    st.global.u32 [%rd5], %r2;
    ret;
}
"#;

#[test]
fn a_misaligning_immediate_offset_runs_checked() {
    let Some(gpu) = gpu_or_skip() else { return };
    let four = program("off4.ptx", &OFFSET.replace("OFF", "4"), 32);
    let two = program("off2.ptx", &OFFSET.replace("OFF", "2"), 32);
    for backend in Backend::ALL {
        let (mut ctx, base, _) = context(&gpu);
        let (x, y) = (base, base + 4096);
        let words: Vec<u8> = (0..40u32).flat_map(|w| (w * 7 + 1).to_le_bytes()).collect();
        ctx.write(DevicePtr(x), &words).unwrap();
        ctx.launch(&four, "off", [1, 1, 1], &[&x.to_le_bytes(), &y.to_le_bytes()], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(ctx.last_launch_specialised(), "{backend}");
        assert_eq!(ctx.read(DevicePtr(y), 128).unwrap(), words[4..132].to_vec(), "{backend}: y[t] = x[t + 1]");
        let (bits, site) = fault(ctx.launch(&two, "off", [1, 1, 1], &[&x.to_le_bytes(), &y.to_le_bytes()], backend), "offset 2");
        assert!(!ctx.last_launch_specialised(), "{backend}");
        assert_eq!(bits, abi::FAULT_MISALIGNED, "{backend}");
        assert!(site.contains("ld.global.u32"), "{backend}: {site}");
    }
}
