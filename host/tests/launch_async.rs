//! Launches without waiting (`Context::launch_async` + `Context::synchronize`) and the reuse of
//! parameter buffers and bind groups behind every launch (issue 11): each launch sees its own
//! parameters however many are in flight, and a fault is reported for the launch that faulted
//! (the first one), naming its kernel and instruction, by the next call that synchronizes.

mod common;
use common::gpu;

use ptxcross::runtime::{Backend, Context, ContextOptions, DevicePtr, Error, Program};
use ptxcross::translate;
use ptxcross_frontend::SourceFile;
use ptxcross_lower::{abi, LowerOptions};

/// `store(out, i, v)` and `poke(out, i, v)`: thread 0 stores `v` at `out[i]` (u32); the line of
/// each `st.global` is `STORE_LINE` / `POKE_LINE`.
const PTX: &str = "\
.version 7.0
.target sm_70
.address_size 64
.visible .entry store(.param .u64 out, .param .u32 i, .param .u32 v)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p;
    mov.u32 %r3, %tid.x;
    setp.ne.u32 %p, %r3, 0;
    @%p bra DONE;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [i];
    ld.param.u32 %r2, [v];
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
DONE:
    ret;
}
.visible .entry poke(.param .u64 out, .param .u32 i, .param .u32 v)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [i];
    ld.param.u32 %r2, [v];
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
";
const STORE_LINE: &str = "launch.ptx:17:5";
const POKE_LINE: &str = "launch.ptx:30:5";

fn program() -> Program {
    let file = SourceFile::new("launch.ptx", PTX);
    let options = LowerOptions { block: Some([32, 1, 1]), ..common::device_options() };
    translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn args(out: u64, i: u32, v: u32) -> [Vec<u8>; 3] {
    [out.to_le_bytes().to_vec(), i.to_le_bytes().to_vec(), v.to_le_bytes().to_vec()]
}

fn launch_async(ctx: &mut Context, p: &Program, kernel: &str, out: u64, i: u32, v: u32, backend: Backend) {
    let a = args(out, i, v);
    let refs: Vec<&[u8]> = a.iter().map(|x| x.as_slice()).collect();
    ctx.launch_async(p, kernel, [1, 1, 1], &refs, backend).unwrap_or_else(|e| panic!("{backend} {kernel} #{i}: {e}"));
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn value(i: u32) -> u32 {
    i.wrapping_mul(0x9E37_79B9) ^ 0x5A5A_0F0F
}

/// More launches in flight than one fault log holds, each with its own parameters (one reused
/// parameter buffer): every store lands, with its value.
#[test]
fn every_launch_in_flight_sees_its_own_parameters() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    const N: u32 = 1300;
    for backend in Backend::ALL {
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, gpu: Some(gpu.clone()), ..Default::default() }).unwrap();
        let out = ctx.alloc(4 * N as u64).unwrap();
        for i in 0..N {
            // Alternate two kernels (two pipelines, one parameter buffer size).
            let kernel = if i % 3 == 0 { "poke" } else { "store" };
            launch_async(&mut ctx, &program, kernel, out.0, i, value(i), backend);
        }
        ctx.synchronize().unwrap_or_else(|e| panic!("{backend}: {e}"));
        let want: Vec<u32> = (0..N).map(value).collect();
        assert_eq!(words(&ctx.read(out, 4 * N as u64).unwrap()), want, "{backend}");
        // Synchronous launches after asynchronous ones, same buffers.
        ctx.launch(&program, "store", [1, 1, 1], &args(out.0, 5, 77).each_ref().map(|a| a.as_slice()), backend).unwrap();
        assert_eq!(words(&ctx.read(DevicePtr(out.0 + 20), 4).unwrap()), [77], "{backend}");
    }
}

/// Out of the range of the context's heap (1 MiB): a global-memory fault.
const BAD: u64 = abi::HEAP_BASE + (64 << 20);

fn expect_fault(r: Result<(), Error>, kernel: &str, line: &str, what: &str) {
    match r {
        Err(Error::KernelFault { kernel: k, bits, site, .. }) => {
            assert_eq!(k, kernel, "{what}: the fault names the wrong kernel");
            assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{what}");
            let site = site.unwrap_or_default();
            assert!(site.starts_with(line) && site.contains("st.global.u32"), "{what}: site {site}");
        }
        other => panic!("{what}: expected a fault of `{kernel}`, got {other:?}"),
    }
}

/// The first launch that faulted among those in flight is reported (kernel and instruction),
/// wherever it is in the fault logs, by `synchronize`, a read or a synchronous launch; after
/// that the context runs on, and the other launches' stores landed.
#[test]
fn the_first_faulting_launch_in_flight_is_reported() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    const N: u32 = 1100;
    for backend in Backend::ALL {
        for (poke_at, store_at) in [(700u32, 900u32), (900, 700)] {
            let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, gpu: Some(gpu.clone()), ..Default::default() }).unwrap();
            let out = ctx.alloc(4 * N as u64).unwrap();
            for i in 0..N {
                let (kernel, ptr) = match i {
                    _ if i == poke_at => ("poke", BAD),
                    _ if i == store_at => ("store", BAD),
                    _ => ("store", out.0),
                };
                launch_async(&mut ctx, &program, kernel, ptr, i, value(i), backend);
            }
            let (kernel, line) = if poke_at < store_at { ("poke", POKE_LINE) } else { ("store", STORE_LINE) };
            let what = format!("{backend}, `poke` faults at launch {poke_at}, `store` at {store_at}");
            if poke_at < store_at {
                expect_fault(ctx.synchronize(), kernel, line, &what);
            } else {
                expect_fault(ctx.read(out, 4).map(drop), kernel, line, &what);
            }
            // Reported once: the fault word was cleared.
            assert_eq!(ctx.fault_word().unwrap(), 0, "{what}");
            ctx.synchronize().unwrap_or_else(|e| panic!("{what}: reported twice: {e}"));
            let got = words(&ctx.read(out, 4 * N as u64).unwrap());
            for i in 0..N {
                let want = if i == 700 || i == 900 { 0 } else { value(i) };
                assert_eq!(got[i as usize], want, "{what}: out[{i}]");
            }
        }

        // Reported by a read, and by a synchronous launch of something else.
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, gpu: Some(gpu.clone()), ..Default::default() }).unwrap();
        let out = ctx.alloc(64).unwrap();
        launch_async(&mut ctx, &program, "store", out.0, 0, 1, backend);
        launch_async(&mut ctx, &program, "store", BAD, 1, 2, backend);
        launch_async(&mut ctx, &program, "poke", BAD, 1, 2, backend);
        expect_fault(ctx.read(out, 4).map(drop), "store", STORE_LINE, &format!("{backend}: read"));
        assert_eq!(words(&ctx.read(out, 4).unwrap()), [1], "{backend}");
        launch_async(&mut ctx, &program, "poke", BAD, 1, 2, backend);
        let a = args(out.0, 2, 3);
        let r = ctx.launch(&program, "store", [1, 1, 1], &a.each_ref().map(|a| a.as_slice()), backend);
        expect_fault(r, "poke", POKE_LINE, &format!("{backend}: launch after an async fault"));
        assert_eq!(words(&ctx.read(out, 12).unwrap()), [1, 0, 3], "{backend}");
    }
}
