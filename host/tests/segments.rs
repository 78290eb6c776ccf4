//! Memory beyond one storage binding (issue 11): a context's heap is several segments, each a
//! buffer of at most one binding; an allocation lies in one segment, and a launch binds the
//! segments its pointer arguments point into (`abi::PARAM_HEAP_SEGMENT_WORD`; with several, the
//! kernel's translation for that many segment slots, `ir::Features::segment_slots`).
//!
//! CI runs these with 1 MiB segments (`Context::with_segment_bytes`), so several segments cost
//! little memory; the ignored test uses the device's real binding size and 8 allocations of a
//! whole segment each (1 GiB less 8 × 256 reserved bytes on lavapipe):
//! `PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross --test segments -- --ignored --nocapture`.

mod common;
use common::gpu;

use ptxcross::runtime::{Backend, Context, ContextOptions, DevicePtr, Error, Program, HEAP_RESERVED_BYTES};
use ptxcross::translate;
use ptxcross_frontend::SourceFile;
use ptxcross_lower::{abi, LowerOptions};

const BLOCK: u32 = 256;

/// `fill(out, n, seed)`: `out[i] = i * 0x9e3779b1 + seed` (u32) for `i < n`;
/// `bump(a, n)`: `a[i] = a[i] * 3 + 1`; `copy(src, dst, n)`: `dst[i] = src[i]`;
/// `store_via(table, v)`: stores `v` at the address held in `table[0]` (a pointer read from
/// memory); `store_at(a, off, v)`: stores `v` at byte `a + off`.
const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry fill(.param .u64 out, .param .u32 n, .param .u32 seed)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    ld.param.u32 %r2, [seed];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r6, %r1;
    @%p1 bra DONE;
    mad.lo.s32 %r7, %r6, -1640531535, %r2;
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r6, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
DONE:
    ret;
}

.visible .entry bump(.param .u64 a, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<9>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a];
    ld.param.u32 %r1, [n];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r6, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r6, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r7, [%rd3];
    mad.lo.s32 %r8, %r7, 3, 1;
    st.global.u32 [%rd3], %r8;
DONE:
    ret;
}

.visible .entry copy(.param .u64 src, .param .u64 dst, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd4, [dst];
    ld.param.u32 %r1, [n];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r6, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r6, 4;
    add.s64 %rd3, %rd1, %rd2;
    add.s64 %rd5, %rd4, %rd2;
    ld.global.u32 %r7, [%rd3];
    st.global.u32 [%rd5], %r7;
DONE:
    ret;
}

.visible .entry store_via(.param .u64 table, .param .u32 v)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [table];
    ld.param.u32 %r1, [v];
    ld.global.u64 %rd2, [%rd1];
    st.global.u32 [%rd2], %r1;
    ret;
}

.visible .entry store_at(.param .u64 a, .param .u64 off, .param .u32 v)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [off];
    ld.param.u32 %r1, [v];
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}

// c[i] = a[i] + b[i] (u32).
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    ld.param.u32 %r1, [n];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r6, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd4, %r6, 4;
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    add.s64 %rd7, %rd3, %rd4;
    ld.global.u32 %r7, [%rd5];
    ld.global.u32 %r8, [%rd6];
    add.s32 %r9, %r7, %r8;
    st.global.u32 [%rd7], %r9;
DONE:
    ret;
}

// Thread 0, every heap access kind: a vector load, a 64-bit load and a generic load from a;
// 32- and 64-bit atomic adds on b (old values used); a 32-bit, a 64-bit, a byte and a generic
// store to c.
.visible .entry mixed(.param .u64 a, .param .u64 b, .param .u64 c)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b32 sm[1];
    mov.u32 %r7, %tid.x;
    setp.ne.u32 %p1, %r7, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    ld.global.v2.u32 {%r1, %r2}, [%rd1];
    ld.global.u64 %rd4, [%rd1+8];
    ld.u32 %r3, [%rd1+16];
    atom.global.add.u32 %r4, [%rd2], %r1;
    atom.global.add.u64 %rd5, [%rd2+8], %rd4;
    st.global.u32 [%rd3], %r4;
    st.global.u64 [%rd3+8], %rd5;
    st.global.u8 [%rd3+17], %r2;
    st.u32 [%rd3+20], %r3;
    st.shared.u32 [sm], %r3;
DONE:
    ret;
}

// Stores `v` at the address held in `table[0]`; `other` only names a segment for the launch.
.visible .entry store_via2(.param .u64 table, .param .u64 other, .param .u32 v)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [table];
    ld.param.u32 %r1, [v];
    ld.global.u64 %rd2, [%rd1];
    st.global.u32 [%rd2], %r1;
    ret;
}

// p7[i] = p0[i] + p1[i] + … + p7[i] (u32): a kernel touching eight allocations.
.visible .entry sum8(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3,
    .param .u64 p4, .param .u64 p5, .param .u64 p6, .param .u64 p7, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    ld.param.u32 %r1, [n];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r6, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd9, %r6, 4;
    mov.u32 %r7, 0;
    ld.param.u64 %rd1, [p0];
    add.s64 %rd1, %rd1, %rd9;
    ld.global.u32 %r8, [%rd1];
    add.s32 %r7, %r7, %r8;
    ld.param.u64 %rd1, [p1];
    add.s64 %rd1, %rd1, %rd9;
    ld.global.u32 %r8, [%rd1];
    add.s32 %r7, %r7, %r8;
    ld.param.u64 %rd1, [p2];
    add.s64 %rd1, %rd1, %rd9;
    ld.global.u32 %r8, [%rd1];
    add.s32 %r7, %r7, %r8;
    ld.param.u64 %rd1, [p3];
    add.s64 %rd1, %rd1, %rd9;
    ld.global.u32 %r8, [%rd1];
    add.s32 %r7, %r7, %r8;
    ld.param.u64 %rd1, [p4];
    add.s64 %rd1, %rd1, %rd9;
    ld.global.u32 %r8, [%rd1];
    add.s32 %r7, %r7, %r8;
    ld.param.u64 %rd1, [p5];
    add.s64 %rd1, %rd1, %rd9;
    ld.global.u32 %r8, [%rd1];
    add.s32 %r7, %r7, %r8;
    ld.param.u64 %rd1, [p6];
    add.s64 %rd1, %rd1, %rd9;
    ld.global.u32 %r8, [%rd1];
    add.s32 %r7, %r7, %r8;
    ld.param.u64 %rd1, [p7];
    add.s64 %rd1, %rd1, %rd9;
    ld.global.u32 %r8, [%rd1];
    add.s32 %r7, %r7, %r8;
    st.global.u32 [%rd1], %r7;
DONE:
    ret;
}

// Stores 1 to p0[0]; its sixteen pointers only name segments for the launch.
.visible .entry touch16(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3,
    .param .u64 p4, .param .u64 p5, .param .u64 p6, .param .u64 p7,
    .param .u64 p8, .param .u64 p9, .param .u64 p10, .param .u64 p11,
    .param .u64 p12, .param .u64 p13, .param .u64 p14, .param .u64 p15)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p0];
    mov.u32 %r1, 1;
    st.global.u32 [%rd1], %r1;
    ret;
}
"#;

fn program() -> Program {
    let file = SourceFile::new("segments.ptx", PTX.to_string());
    let options = LowerOptions { block: Some([BLOCK, 1, 1]), ..common::device_options() };
    translate::build_program(&file, &options, &Backend::ALL, true).expect("translate")
}

/// The CPU reference of `fill` then `bump`.
fn expected(n: u32, seed: u32) -> Vec<u8> {
    (0..n).flat_map(|i| (i.wrapping_mul(0x9e37_79b1).wrapping_add(seed).wrapping_mul(3).wrapping_add(1)).to_le_bytes()).collect()
}

fn grid(n: u32) -> [u32; 3] {
    [n.div_ceil(BLOCK), 1, 1]
}

fn segment_of(p: DevicePtr) -> u64 {
    (p.0 - abi::HEAP_BASE) / abi::SEGMENT_WINDOW
}

/// Allocates `count` allocations of a whole segment each (`segment_bytes` less the reserved
/// bytes) in a heap of `count` segments, runs `fill` and `bump` on each (one launch each, so
/// each launch binds another segment), and checks every word on the host.
fn whole_segments(ctx: &mut Context, program: &Program, count: usize, backend: Backend) -> Vec<DevicePtr> {
    let bytes = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
    let n = u32::try_from(bytes / 4).expect("words");
    let ptrs: Vec<DevicePtr> = (0..count).map(|_| ctx.alloc(bytes).expect("alloc")).collect();
    assert_eq!(ctx.segment_count(), count);
    // Each in its own segment, in order.
    assert_eq!(ptrs.iter().map(|&p| segment_of(p)).collect::<Vec<_>>(), (0..count as u64).collect::<Vec<_>>());
    // The heap is full now.
    assert!(matches!(ctx.alloc(256), Err(Error::OutOfMemory { .. })), "{backend}");
    for (k, &p) in ptrs.iter().enumerate() {
        let seed = 0x1234_0000 + k as u32;
        ctx.launch(program, "fill", grid(n), &[&p.to_le_bytes(), &n.to_le_bytes(), &seed.to_le_bytes()], backend)
            .unwrap_or_else(|e| panic!("{backend} fill {k}: {e}"));
    }
    for (k, &p) in ptrs.iter().enumerate() {
        ctx.launch(program, "bump", grid(n), &[&p.to_le_bytes(), &n.to_le_bytes()], backend)
            .unwrap_or_else(|e| panic!("{backend} bump {k}: {e}"));
    }
    for (k, &p) in ptrs.iter().enumerate() {
        let got = ctx.read(p, bytes).expect("read");
        let want = expected(n, 0x1234_0000 + k as u32);
        if got != want {
            let i = got.chunks(4).zip(want.chunks(4)).position(|(a, b)| a != b).unwrap_or(0);
            panic!("{backend}: allocation {k} differs first at word {i}: {:?} vs {:?}", &got[4 * i..4 * i + 4], &want[4 * i..4 * i + 4]);
        }
    }
    ptrs
}

fn small_segments(gpu: &std::sync::Arc<ptxcross::runtime::Gpu>, segments: u64) -> Context {
    let seg = 1 << 20;
    Context::with_segment_bytes(ContextOptions { heap_bytes: segments * seg, gpu: Some(gpu.clone()), ..ContextOptions::default() }, seg)
        .expect("context")
}

#[test]
fn allocations_fill_several_segments_and_kernels_use_each() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    for backend in Backend::ALL {
        let mut ctx = small_segments(&gpu, 3);
        assert_eq!(ctx.segment_count(), 1, "later segments are created when needed");
        whole_segments(&mut ctx, &program, 3, backend);
        assert_eq!(ctx.fault_word().unwrap(), 0);
    }
}

#[test]
fn allocation_limits() {
    let Some(gpu) = gpu() else { return };
    let mut ctx = small_segments(&gpu, 3);
    let max = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
    assert!(matches!(ctx.alloc(max + 1), Err(Error::AllocationTooLarge { .. })));
    let free = ctx.free_bytes();
    assert_eq!(free, 3 * max);
    // Small allocations pack into the first segment; freed space is reused.
    let a = ctx.alloc(1000).unwrap();
    let b = ctx.alloc(max - 1024).unwrap();
    assert_eq!((segment_of(a), segment_of(b)), (0, 0));
    let c = ctx.alloc(2048).unwrap();
    assert_eq!(segment_of(c), 1);
    ctx.free(a).unwrap();
    assert_eq!(segment_of(ctx.alloc(512).unwrap()), 0);
    // Host copies check the allocation in its own segment.
    ctx.write(c, &[7; 2048]).unwrap();
    assert!(matches!(ctx.write(c, &[7; 2049]), Err(Error::InvalidPointer { .. })));
    assert!(matches!(ctx.read(DevicePtr(c.0 + abi::SEGMENT_WINDOW), 4), Err(Error::InvalidPointer { .. })));
    let got = ctx.read_many(&[(c, 4), (b, 4), (c.offset(2044), 4)]).unwrap();
    assert_eq!(got, vec![vec![7; 4], vec![0; 4], vec![7; 4]]);
}

#[test]
fn launches_bind_the_segment_of_their_pointers_and_other_segments_fault() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    let before: Vec<u8> = (0..64u8).collect();
    for backend in Backend::ALL {
        let mut ctx = small_segments(&gpu, 3);
        let max = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
        // Segment 0 full; two allocations in segment 1, one in segment 2.
        let s0 = ctx.alloc(max).unwrap();
        let a = ctx.alloc(64).unwrap();
        let b = ctx.alloc(64).unwrap();
        let _rest = ctx.alloc(max - 512).unwrap();
        let c = ctx.alloc(64).unwrap();
        assert_eq!([s0, a, b, c].map(segment_of), [0, 1, 1, 2]);
        for p in [a, b, c] {
            ctx.write(p, &before).unwrap();
        }
        // Two pointers into one segment: runs.
        let n = 16u32;
        ctx.launch(&program, "copy", [1, 1, 1], &[&a.to_le_bytes(), &b.to_le_bytes(), &n.to_le_bytes()], backend).unwrap();
        assert_eq!(ctx.read(b, 64).unwrap(), before);
        // Pointers into two segments: the two-segment translation runs it.
        let ramp: Vec<u8> = (100..164u8).collect();
        ctx.write(a, &ramp).unwrap();
        ctx.launch(&program, "copy", [1, 1, 1], &[&a.to_le_bytes(), &c.to_le_bytes(), &n.to_le_bytes()], backend).unwrap();
        assert_eq!(ctx.read(c, 64).unwrap(), ramp, "{backend}");
        for p in [a, c] {
            ctx.write(p, &before).unwrap();
        }
        // An end pointer (one past an allocation) counts for its allocation's segment.
        let end = c.offset(64);
        ctx.launch(&program, "store_at", [1, 1, 1], &[&end.to_le_bytes(), &(-4i64).to_le_bytes(), &9u32.to_le_bytes()], backend)
            .unwrap();
        let mut want_c = before.clone();
        want_c[60..64].copy_from_slice(&9u32.to_le_bytes());
        assert_eq!(ctx.read(c, 64).unwrap(), want_c);
        // An address past the bound segment, into the same offset of the next segment: a fault,
        // and the other segment's allocation is unchanged.
        let off = c.0 - a.0;
        match ctx.launch(&program, "store_at", [1, 1, 1], &[&a.to_le_bytes(), &off.to_le_bytes(), &5u32.to_le_bytes()], backend) {
            Err(Error::KernelFault { bits, site, .. }) => {
                assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE);
                assert!(site.as_deref().is_some_and(|s| s.contains("st.global.u32")), "{site:?}");
            }
            other => panic!("{backend}: {other:?}"),
        }
        assert_eq!(ctx.read(c, 64).unwrap(), want_c, "{backend}");
        assert_eq!(ctx.read(a, 64).unwrap(), before, "{backend}");
        // A pointer read from memory into the bound segment works; into a segment the launch
        // does not bind it faults and changes nothing.
        ctx.write(a, &b.offset(8).to_le_bytes()).unwrap();
        ctx.launch(&program, "store_via", [1, 1, 1], &[&a.to_le_bytes(), &0xabcdu32.to_le_bytes()], backend).unwrap();
        assert_eq!(ctx.read(b.offset(8), 4).unwrap(), 0xabcdu32.to_le_bytes());
        ctx.write(a, &c.to_le_bytes()).unwrap();
        match ctx.launch(&program, "store_via", [1, 1, 1], &[&a.to_le_bytes(), &0x5555u32.to_le_bytes()], backend) {
            Err(Error::KernelFault { bits, .. }) => assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE),
            other => panic!("{backend}: {other:?}"),
        }
        assert_eq!(ctx.read(c, 64).unwrap(), want_c, "{backend}");
        // The faults were cleared: later launches on either segment run.
        ctx.launch(&program, "copy", [1, 1, 1], &[&c.to_le_bytes(), &c.to_le_bytes(), &n.to_le_bytes()], backend).unwrap();
        assert_eq!(ctx.fault_word().unwrap(), 0);
    }
}

/// 1 GiB (less 8 × 256 reserved bytes) in 8 allocations of one storage binding each, on the
/// device's real binding size (128 MiB on lavapipe), each written and read by kernels.
#[test]
#[ignore = "1 GiB of device memory; run with --ignored"]
fn one_gib_in_eight_allocations() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    let seg = gpu.max_segment_bytes();
    for backend in Backend::ALL {
        let t = std::time::Instant::now();
        let mut ctx = Context::new(ContextOptions { heap_bytes: 8 * seg, gpu: Some(gpu.clone()), ..ContextOptions::default() }).expect("context");
        let ptrs = whole_segments(&mut ctx, &program, 8, backend);
        eprintln!(
            "{backend}: 8 allocations of {} bytes ({} MiB in all) filled, bumped and checked in {:.1} s",
            seg - HEAP_RESERVED_BYTES,
            (8 * (seg - HEAP_RESERVED_BYTES)) >> 20,
            t.elapsed().as_secs_f64()
        );
        // One kernel touching all eight (eight segment slots), where the device binds them.
        if gpu.max_segment_slots() < 8 {
            eprintln!("{backend}: the device binds {} segments in one launch: sum8 skipped", gpu.max_segment_slots());
            continue;
        }
        let t = std::time::Instant::now();
        let n = ((seg - HEAP_RESERVED_BYTES) / 4) as u32;
        let mut args: Vec<[u8; 8]> = ptrs.iter().map(|p| p.to_le_bytes()).collect();
        let mut n_arg = [0u8; 8];
        n_arg[..4].copy_from_slice(&n.to_le_bytes());
        args.push(n_arg);
        let args: Vec<&[u8]> = args.iter().enumerate().map(|(i, a)| if i == 8 { &a[..4] } else { a.as_slice() }).collect();
        ctx.launch(&program, "sum8", grid(n), &args, backend).unwrap_or_else(|e| panic!("{backend} sum8: {e}"));
        let got = u32s(&ctx.read(ptrs[7], n as u64 * 4).expect("read"));
        // `fill` then `bump` left word i of allocation k at (i * 0x9e3779b1 + seed_k) * 3 + 1.
        let word = |k: u32, i: u32| i.wrapping_mul(0x9e37_79b1).wrapping_add(0x1234_0000 + k).wrapping_mul(3).wrapping_add(1);
        for (i, &g) in got.iter().enumerate() {
            let want = (0..8).fold(0u32, |s, k| s.wrapping_add(word(k, i as u32)));
            assert_eq!(g, want, "{backend} sum8 word {i}");
        }
        eprintln!("{backend}: sum8 over the 8 allocations (8 segments in one launch) checked in {:.1} s", t.elapsed().as_secs_f64());
    }
}

/// Asynchronous launches on different segments: each records into its segment's fault word,
/// and synchronizing reports the first launch that faulted, whichever segment it bound.
#[test]
fn asynchronous_launches_on_several_segments_report_the_first_fault() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    let order = [0usize, 2, 1, 1, 0, 2, 1];
    for backend in Backend::ALL {
        let mut ctx = small_segments(&gpu, 3);
        let max = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
        let p: Vec<DevicePtr> = (0..3).map(|_| ctx.alloc(max).unwrap()).collect();
        // `store_via` reads its target from word 256 of segment 2's allocation: segment 0's.
        let table = p[2].offset(1024);
        ctx.write(table, &p[0].to_le_bytes()).unwrap();
        let mut model = std::collections::HashMap::new();
        // Round 0: launch 3 (`store_at` past segment 1) and launch 5 (`store_via` into segment
        // 0 from segment 2) fault; round 1: only launch 5; round 2: none.
        for round in 0..3u32 {
            let faults = |i: usize| (i == 3 && round == 0) || (i == 5 && round < 2);
            for (i, &k) in order.iter().enumerate() {
                let v = 100 * (round + 1) + i as u32;
                let r = if i == 5 && faults(i) {
                    ctx.launch_async(&program, "store_via", [1, 1, 1], &[&table.to_le_bytes(), &v.to_le_bytes()], backend)
                } else {
                    let off = if faults(i) { max } else { 4 * i as u64 };
                    ctx.launch_async(&program, "store_at", [1, 1, 1], &[&p[k].to_le_bytes(), &off.to_le_bytes(), &v.to_le_bytes()], backend)
                };
                r.unwrap();
            }
            match (round, ctx.synchronize()) {
                (0, Err(Error::KernelFault { kernel, .. })) => assert_eq!(kernel, "store_at", "{backend}"),
                (1, Err(Error::KernelFault { kernel, .. })) => assert_eq!(kernel, "store_via", "{backend}"),
                (2, Ok(())) => {}
                (_, other) => panic!("{backend} round {round}: {other:?}"),
            }
            // Every launch that did not fault stored its value; the faulting ones nothing.
            for (i, &k) in order.iter().enumerate() {
                if !faults(i) {
                    model.insert((k, i), 100 * (round + 1) + i as u32);
                }
            }
            for (i, &k) in order.iter().enumerate() {
                let want = model.get(&(k, i)).copied().unwrap_or(0);
                assert_eq!(ctx.read(p[k].offset(4 * i as u64), 4).unwrap(), want.to_le_bytes(), "{backend} round {round} launch {i}");
            }
            // (Launch 0 wrote word 0 of segment 0's allocation: a `store_via` that had stored
            // there after it would show above.)
        }
        assert_eq!(ctx.fault_word().unwrap(), 0);
    }
}

/// Deterministic words (a xorshift stream) as bytes.
fn words(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .flat_map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x.to_le_bytes()
        })
        .collect()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Three whole-segment allocations (one per segment); `vadd` reads two and writes the third in
/// one launch, in every arrangement of the three segments; checked against a CPU reference.
#[test]
fn one_launch_reads_two_segments_and_writes_a_third() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    for backend in Backend::ALL {
        let mut ctx = small_segments(&gpu, 3);
        let bytes = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
        let n = (bytes / 4) as u32;
        let p: Vec<DevicePtr> = (0..3).map(|_| ctx.alloc(bytes).unwrap()).collect();
        assert_eq!(p.iter().map(|&q| segment_of(q)).collect::<Vec<_>>(), [0, 1, 2]);
        for (a, b, c) in [(0, 1, 2), (2, 0, 1), (1, 2, 0)] {
            let (da, db) = (words(n as usize, 11 + a as u32), words(n as usize, 23 + b as u32));
            ctx.write(p[a], &da).unwrap();
            ctx.write(p[b], &db).unwrap();
            ctx.write(p[c], &vec![0xee; bytes as usize]).unwrap();
            ctx.launch(&program, "vadd", grid(n), &[&p[a].to_le_bytes(), &p[b].to_le_bytes(), &p[c].to_le_bytes(), &n.to_le_bytes()], backend)
                .unwrap_or_else(|e| panic!("{backend} {a}{b}{c}: {e}"));
            let want: Vec<u32> = u32s(&da).iter().zip(u32s(&db)).map(|(x, y)| x.wrapping_add(y)).collect();
            let got = u32s(&ctx.read(p[c], bytes).unwrap());
            if let Some(i) = got.iter().zip(&want).position(|(g, w)| g != w) {
                panic!("{backend} {a}{b}{c}: word {i}: {:#x}, want {:#x}", got[i], want[i]);
            }
            // The inputs are unchanged.
            assert_eq!(ctx.read(p[a], bytes).unwrap(), da, "{backend}");
            assert_eq!(ctx.read(p[b], bytes).unwrap(), db, "{backend}");
        }
        assert_eq!(ctx.fault_word().unwrap(), 0);
    }
}

/// Every heap access kind (vector, 64-bit, generic, sub-word store, 32- and 64-bit atomics
/// whose old values are used) reaches the slot its address selects: the three pointers in
/// three segments, in two segments and in one give the same results, the CPU reference's.
#[test]
fn every_access_kind_reaches_its_segment() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    for backend in Backend::ALL {
        let mut ctx = small_segments(&gpu, 3);
        let max = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
        let s: Vec<DevicePtr> = (0..3).map(|_| ctx.alloc(max).unwrap()).collect();
        // Arrangements: a, b, c in segments (1, 1, 1) (the one-segment translation), (2, 2, 0), (0, 1, 2).
        for (ka, kb, kc, tag) in [(1usize, 1usize, 1usize, 2u32), (2, 2, 0, 1), (0, 1, 2, 0)] {
            let (a, b, c) = (s[ka].offset(4096), s[kb].offset(8192), s[kc].offset(12288));
            let da = words(8, 101 + tag);
            let db = words(8, 202 + tag);
            let dc = words(8, 303 + tag);
            ctx.write(a, &da).unwrap();
            ctx.write(b, &db).unwrap();
            ctx.write(c, &dc).unwrap();
            ctx.launch(&program, "mixed", [1, 1, 1], &[&a.to_le_bytes(), &b.to_le_bytes(), &c.to_le_bytes()], backend)
                .unwrap_or_else(|e| panic!("{backend} {tag}: {e}"));
            let (wa, wb) = (u32s(&da), u32s(&db));
            let a64 = wa[2] as u64 | (wa[3] as u64) << 32;
            let b64 = wb[2] as u64 | (wb[3] as u64) << 32;
            let mut want_b = db.clone();
            want_b[0..4].copy_from_slice(&wb[0].wrapping_add(wa[0]).to_le_bytes());
            want_b[8..16].copy_from_slice(&b64.wrapping_add(a64).to_le_bytes());
            let mut want_c = dc.clone();
            want_c[0..4].copy_from_slice(&wb[0].to_le_bytes());
            want_c[8..16].copy_from_slice(&b64.to_le_bytes());
            want_c[17] = wa[1] as u8;
            want_c[20..24].copy_from_slice(&wa[4].to_le_bytes());
            assert_eq!(ctx.read(b, 32).unwrap(), want_b, "{backend} {tag}: b");
            assert_eq!(ctx.read(c, 32).unwrap(), want_c, "{backend} {tag}: c");
            assert_eq!(ctx.read(a, 32).unwrap(), da, "{backend} {tag}: a");
        }
        assert_eq!(ctx.fault_word().unwrap(), 0);
    }
}

/// A pointer read from memory (in one bound segment) into another bound segment reaches it;
/// one into a segment the launch does not bind faults and changes nothing.
#[test]
fn pointers_from_memory_reach_bound_segments_only() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    for backend in Backend::ALL {
        let mut ctx = small_segments(&gpu, 3);
        let max = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
        let s: Vec<DevicePtr> = (0..3).map(|_| ctx.alloc(max).unwrap()).collect();
        let table = s[0].offset(64);
        let zeros = vec![0u8; 64];
        ctx.write(s[1], &zeros).unwrap();
        ctx.write(s[2], &zeros).unwrap();
        // Bound: segments 0 (table) and 1 (other); the pointer in the table is into 1.
        ctx.write(table, &s[1].offset(12).to_le_bytes()).unwrap();
        ctx.launch(&program, "store_via2", [1, 1, 1], &[&table.to_le_bytes(), &s[1].to_le_bytes(), &0x600du32.to_le_bytes()], backend)
            .unwrap_or_else(|e| panic!("{backend}: {e}"));
        let mut want1 = zeros.clone();
        want1[12..16].copy_from_slice(&0x600du32.to_le_bytes());
        assert_eq!(ctx.read(s[1], 64).unwrap(), want1, "{backend}");
        // The pointer into segment 2, which this launch (segments 0 and 1) does not bind.
        ctx.write(table, &s[2].offset(12).to_le_bytes()).unwrap();
        match ctx.launch(&program, "store_via2", [1, 1, 1], &[&table.to_le_bytes(), &s[1].to_le_bytes(), &0xbadu32.to_le_bytes()], backend) {
            Err(Error::KernelFault { bits, site, .. }) => {
                assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
                assert!(site.as_deref().is_some_and(|s| s.contains("st.global.u32")), "{site:?}");
            }
            other => panic!("{backend}: {other:?}"),
        }
        assert_eq!(ctx.read(s[2], 64).unwrap(), zeros, "{backend}");
        assert_eq!(ctx.read(s[1], 64).unwrap(), want1, "{backend}");
        // Slot 1's last word is stored; the word past it (past the segment's binding) faults and
        // changes nothing (`lower`'s range test of slot 1, against slot 1's length).
        let last = s[1].offset(max - 4);
        ctx.write(table, &last.to_le_bytes()).unwrap();
        ctx.launch(&program, "store_via2", [1, 1, 1], &[&table.to_le_bytes(), &s[1].to_le_bytes(), &0x1a57u32.to_le_bytes()], backend)
            .unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert_eq!(ctx.read(last, 4).unwrap(), 0x1a57u32.to_le_bytes(), "{backend}");
        ctx.write(table, &s[1].offset(max).to_le_bytes()).unwrap();
        match ctx.launch(&program, "store_via2", [1, 1, 1], &[&table.to_le_bytes(), &s[1].to_le_bytes(), &0xbadu32.to_le_bytes()], backend) {
            Err(Error::KernelFault { bits, .. }) => assert_eq!(bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}"),
            other => panic!("{backend}: {other:?}"),
        }
        assert_eq!(ctx.read(last, 4).unwrap(), 0x1a57u32.to_le_bytes(), "{backend}");
        assert_eq!(ctx.read(s[1], 64).unwrap(), want1, "{backend}");
        assert_eq!(ctx.fault_word().unwrap(), 0);
    }
}

/// A launch with pointers into more segments than the device binds is refused, clearly,
/// before anything runs; so is one whose program cannot build a several-segment translation.
#[test]
fn more_segments_than_bindings_is_refused() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    let limit = gpu.max_segment_slots() as usize;
    assert!((1..=abi::MAX_SEGMENT_SLOTS as usize).contains(&limit), "{limit}");
    // `touch16` takes 16 pointers: a device that binds all 16 segments (NVIDIA: its storage
    // buffers per stage are practically unlimited) cannot be handed one too many by it.
    let refusable = limit < 16;
    if !refusable {
        eprintln!("this device binds {limit} segments: the refusal of one more is not reachable with 16 pointers");
    }
    for backend in Backend::ALL {
        let mut ctx = small_segments(&gpu, limit as u64 + 1);
        let max = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
        let s: Vec<DevicePtr> = (0..=limit).map(|_| ctx.alloc(max).unwrap()).collect();
        ctx.write(s[0], &[0; 4]).unwrap();
        if refusable {
            let ptrs: Vec<[u8; 8]> = (0..16).map(|i| s[i.min(limit)].to_le_bytes()).collect();
            let args: Vec<&[u8]> = ptrs.iter().map(|p| p.as_slice()).collect();
            match ctx.launch(&program, "touch16", [1, 1, 1], &args, backend) {
                Err(e @ Error::SeveralSegments { .. }) => {
                    let text = e.to_string();
                    assert!(text.contains("not supported yet") && text.contains(&format!("at most {limit} segments")), "{text}");
                }
                other => panic!("{backend}: {other:?}"),
            }
            assert_eq!(ctx.read(s[0], 4).unwrap(), [0; 4], "{backend}");
        }
        // `limit` segments run.
        let ptrs: Vec<[u8; 8]> = (0..16).map(|i| s[i.min(limit - 1)].to_le_bytes()).collect();
        let args: Vec<&[u8]> = ptrs.iter().map(|p| p.as_slice()).collect();
        ctx.launch(&program, "touch16", [1, 1, 1], &args, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert_eq!(ctx.read(s[0], 4).unwrap(), 1u32.to_le_bytes(), "{backend}");
        // A program made from IR alone has no several-segment translation.
        let file = SourceFile::new("segments.ptx", PTX.to_string());
        let options = LowerOptions { block: Some([BLOCK, 1, 1]), ..common::device_options() };
        let ir = translate::frontend(&file, &options).unwrap();
        let bare = translate::build_program_from_ir("segments.ptx", ir, &[backend], true).unwrap();
        let n = 4u32;
        match ctx.launch(&bare, "copy", [1, 1, 1], &[&s[0].to_le_bytes(), &s[1].to_le_bytes(), &n.to_le_bytes()], backend) {
            Err(e @ Error::SeveralSegments { .. }) => assert!(e.to_string().contains("no translation for several segments"), "{e}"),
            other => panic!("{backend}: {other:?}"),
        }
    }
}

/// Every slot count (2 to `abi::MAX_SEGMENT_SLOTS`) translates every kernel of this file to
/// SPIR-V that spirv-val accepts and to WGSL that naga accepts, on the wgpu profile and (64-bit
/// integers split, the `mixed` kernel's 64-bit atomic aside) the WebGPU one; `.address_size 32`
/// kernels are refused clearly. No device needed.
#[test]
fn every_slot_count_translates_to_valid_code() {
    let file = SourceFile::new("segments.ptx", PTX.to_string());
    for slots in 2..=abi::MAX_SEGMENT_SLOTS {
        let options = LowerOptions { block: Some([BLOCK, 1, 1]), segment_slots: slots, ..common::device_options() };
        let module = translate::frontend(&file, &options).expect("lower");
        assert!(module.kernels.iter().all(|k| k.features.segment_slots == slots));
        let words = translate::emit_spirv(&module).expect("spirv");
        translate::validate_spirv(&words).unwrap_or_else(|e| panic!("{slots} slots: {}", e.render()));
        let text = translate::emit_wgsl(&module, translate::Profile::Wgpu).expect("wgsl");
        translate::validate_wgsl(&text, translate::Profile::Wgpu).unwrap_or_else(|e| panic!("{slots} slots: {}", e.render()));
        let split = LowerOptions { split_int64: true, kernel: Some("vadd".into()), ..options.clone() };
        let module = translate::frontend(&file, &split).expect("lower split");
        let text = translate::emit_wgsl(&module, translate::Profile::WebGpu).expect("webgpu wgsl");
        translate::validate_wgsl(&text, translate::Profile::WebGpu).unwrap_or_else(|e| panic!("{slots} slots, webgpu: {}", e.render()));
    }
    let narrow = PTX.replace(".address_size 64", ".address_size 32");
    let file32 = SourceFile::new("segments32.ptx", narrow);
    let options = LowerOptions { kernel: Some("touch16".into()), segment_slots: 2, ..common::device_options() };
    let e = translate::frontend(&file32, &options).expect_err("32-bit addresses and several segments");
    assert!(e.render().contains("not supported yet: several heap segments"), "{}", e.render());
}

/// Module globals and pointers in other segments in one launch: the several-segment
/// translation shares the program's globals (`set` writes them through the one-segment
/// translation, `add_globals` reads them with its pointers in two other segments), checked
/// against the CPU reference.
#[test]
fn globals_are_shared_with_the_several_segment_translation() {
    let Some(gpu) = gpu() else { return };
    let ptx = r#"
.version 7.0
.target sm_70
.address_size 64
.global .align 4 .u32 g[4] = {10, 20, 30, 40};

.visible .entry set(.param .u32 v)
{
    .reg .b32 %r<2>;
    ld.param.u32 %r1, [v];
    st.global.u32 [g+8], %r1;
    ret;
}

// out[i] = in[i] + g[i] for i < 4 (thread i).
.visible .entry add_globals(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 4;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    mov.u64 %rd6, g;
    add.s64 %rd7, %rd6, %rd3;
    ld.global.u32 %r2, [%rd4];
    ld.global.u32 %r3, [%rd7];
    add.s32 %r4, %r2, %r3;
    st.global.u32 [%rd5], %r4;
DONE:
    ret;
}
"#;
    let file = SourceFile::new("globals.ptx", ptx.to_string());
    let options = LowerOptions { block: Some([32, 1, 1]), ..common::device_options() };
    let program = translate::build_program(&file, &options, &Backend::ALL, true).expect("translate");
    for backend in Backend::ALL {
        let mut ctx = small_segments(&gpu, 3);
        let max = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
        // The globals take the first segment (at the first launch); `in` and `out` the others.
        ctx.launch(&program, "set", [1, 1, 1], &[&333u32.to_le_bytes()], backend).unwrap();
        let input = ctx.alloc(max).unwrap();
        let out = ctx.alloc(max).unwrap();
        assert_eq!((segment_of(input), segment_of(out)), (1, 2));
        ctx.write(input, &[1u32, 2, 3, 4].iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
        ctx.launch(&program, "add_globals", [1, 1, 1], &[&input.to_le_bytes(), &out.to_le_bytes()], backend)
            .unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert_eq!(u32s(&ctx.read(out, 16).unwrap()), [11, 22, 336, 44], "{backend}");
        assert_eq!(ctx.fault_word().unwrap(), 0);
    }
}

/// Asynchronous launches over several segments: a faulting one (its fault in its slot 0's
/// fault word) is reported by the next synchronization, and the launches around it run.
#[test]
fn asynchronous_launches_over_several_segments_report_their_fault() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    for backend in Backend::ALL {
        let mut ctx = small_segments(&gpu, 3);
        let max = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
        let s: Vec<DevicePtr> = (0..3).map(|_| ctx.alloc(max).unwrap()).collect();
        let n = 64u32;
        let (a, b) = (words(64, 5), words(64, 6));
        ctx.write(s[1], &a).unwrap();
        ctx.write(s[2], &b).unwrap();
        // Table in segment 1 points into segment 0, which `store_via2(table, s[2])` does not bind.
        let table = s[1].offset(4096);
        ctx.write(table, &s[0].offset(64).to_le_bytes()).unwrap();
        ctx.write(s[0].offset(64), &[0; 4]).unwrap();
        let vadd = |ctx: &mut Context, out: DevicePtr| {
            ctx.launch_async(&program, "vadd", [1, 1, 1], &[&s[1].to_le_bytes(), &s[2].to_le_bytes(), &out.to_le_bytes(), &n.to_le_bytes()], backend)
        };
        vadd(&mut ctx, s[0]).unwrap();
        ctx.launch_async(&program, "store_via2", [1, 1, 1], &[&table.to_le_bytes(), &s[2].to_le_bytes(), &9u32.to_le_bytes()], backend).unwrap();
        vadd(&mut ctx, s[0].offset(1024)).unwrap();
        match ctx.synchronize() {
            Err(Error::KernelFault { kernel, bits, .. }) => {
                assert_eq!((kernel.as_str(), bits), ("store_via2", abi::FAULT_GLOBAL_OUT_OF_RANGE), "{backend}");
            }
            other => panic!("{backend}: {other:?}"),
        }
        let want: Vec<u32> = u32s(&a).iter().zip(u32s(&b)).map(|(x, y)| x.wrapping_add(y)).collect();
        // The first vadd wrote words 0..64 of segment 0, so word 16 (byte 64) holds its sum:
        // the faulting store did not change it.
        assert_eq!(u32s(&ctx.read(s[0], 256).unwrap()), want, "{backend}");
        assert_eq!(u32s(&ctx.read(s[0].offset(1024), 256).unwrap()), want, "{backend}");
        assert_eq!(ctx.fault_word().unwrap(), 0);
    }
}

/// An `.address_size 32` kernel takes the low 32 bits of an address, its offset in its
/// segment, which is the same number in every segment: the launch cannot tell from its
/// arguments which segment they mean. With allocations in two segments, a 32-bit kernel given
/// a pointer into the second must store there or be refused, clearly, before it runs; it
/// stored into the first segment's allocation at the same offset instead (a wrong result).
#[test]
fn address_size_32_kernels_never_reach_another_segment() {
    let Some(gpu) = gpu() else { return };
    let ptx = ".version 7.0\n.target sm_50\n.address_size 32\n\
        .visible .entry st32(.param .u32 p, .param .u32 v)\n{\n .reg .b32 %r<4>;\n\
        ld.param.u32 %r1, [p];\n ld.param.u32 %r2, [v];\n st.global.u32 [%r1], %r2;\n ret;\n}\n\
        .visible .entry gst32(.param .u32 p, .param .u32 v)\n{\n .reg .b32 %r<4>;\n\
        ld.param.u32 %r1, [p];\n ld.param.u32 %r2, [v];\n cvta.global.u32 %r3, %r1;\n st.u32 [%r3+4], %r2;\n ret;\n}\n";
    let options = LowerOptions { block: Some([1, 1, 1]), ..common::device_options() };
    let program = translate::build_program(&SourceFile::new("st32.ptx", ptx.to_string()), &options, &Backend::ALL, true).expect("translate");
    for backend in Backend::ALL {
        let mut ctx = small_segments(&gpu, 2);
        let max = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
        let (a, b) = (ctx.alloc(max).unwrap(), ctx.alloc(max).unwrap());
        assert_eq!((segment_of(a), segment_of(b)), (0, 1));
        let zeros = vec![0u8; 64];
        ctx.write(a, &zeros).unwrap();
        ctx.write(b, &zeros).unwrap();
        let target = b.offset(16);
        match ctx.launch(&program, "st32", [1, 1, 1], &[&(target.0 as u32).to_le_bytes(), &0x600du32.to_le_bytes()], backend) {
            Ok(()) => {
                let mut want = zeros.clone();
                want[16..20].copy_from_slice(&0x600du32.to_le_bytes());
                assert_eq!(ctx.read(b, 64).unwrap(), want, "{backend}: the store missed its segment");
            }
            Err(e @ Error::SeveralSegments { .. }) => assert!(e.to_string().contains("address_size 32"), "{backend}: {e}"),
            Err(e) => panic!("{backend}: {e}"),
        }
        assert_eq!(ctx.read(a, 64).unwrap(), zeros, "{backend}: the other segment's allocation changed");
        // Pointers into one segment (the first) still run.
        ctx.free(b).unwrap();
        ctx.launch(&program, "st32", [1, 1, 1], &[&(a.offset(8).0 as u32).to_le_bytes(), &7u32.to_le_bytes()], backend)
            .unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert_eq!(ctx.read(a.offset(8), 4).unwrap(), 7u32.to_le_bytes(), "{backend}");
        // Live allocations in the second segment only: the launch binds that one.
        ctx.free(a).unwrap();
        let (x, y) = (ctx.alloc(max).unwrap(), ctx.alloc(max).unwrap());
        assert_eq!((segment_of(x), segment_of(y)), (0, 1));
        ctx.write(y, &zeros).unwrap();
        ctx.free(x).unwrap();
        ctx.launch(&program, "st32", [1, 1, 1], &[&(y.offset(4).0 as u32).to_le_bytes(), &9u32.to_le_bytes()], backend)
            .unwrap_or_else(|e| panic!("{backend}: {e}"));
        let mut want = zeros.clone();
        want[4..8].copy_from_slice(&9u32.to_le_bytes());
        assert_eq!(ctx.read(y, 64).unwrap(), want, "{backend}: the store missed the only segment in use");
        // The same through a generic address.
        ctx.launch(&program, "gst32", [1, 1, 1], &[&(y.offset(4).0 as u32).to_le_bytes(), &11u32.to_le_bytes()], backend)
            .unwrap_or_else(|e| panic!("{backend}: {e}"));
        want[8..12].copy_from_slice(&11u32.to_le_bytes());
        assert_eq!(ctx.read(y, 64).unwrap(), want, "{backend}: the generic store missed the only segment in use");
    }
}

/// More access kinds on each slot, with the address of `c` computed from two parameters
/// (`c - b + b`, as a compiler's pointer difference makes it): `ld.global.nc.v4`,
/// `ld.volatile`, `ld.relaxed`, `st.relaxed`, `atom.cas.b32`, `atom.exch.b64`,
/// `atom.min.s64`, `atom.max.u32`, `atom.inc.u32`, `red.add.f32`, a generic `atom.add`,
/// `st.v4.u32`, `st.v2.u64` and `st.u16`. §9.7.9 (ld/st), §9.7.13.5 (atom), §9.7.13.6 (red).
const MORE_KINDS: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry more(.param .u64 a, .param .u64 b, .param .u64 c)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    .reg .f32 %f<2>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    sub.s64 %rd4, %rd3, %rd2;
    add.s64 %rd4, %rd4, %rd2;
    ld.global.nc.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];
    ld.volatile.global.u32 %r5, [%rd1+16];
    atom.global.cas.b32 %r6, [%rd2], %r1, %r2;
    mov.b64 %rd6, {%r3, %r4};
    atom.global.exch.b64 %rd5, [%rd2+8], %rd6;
    atom.global.min.s64 %rd7, [%rd2+16], %rd6;
    atom.global.max.u32 %r7, [%rd2+24], %r5;
    mov.f32 %f1, 0f40000000;
    red.global.add.f32 [%rd2+28], %f1;
    atom.global.inc.u32 %r8, [%rd4+32], 10;
    cvta.global.u64 %rd8, %rd2;
    atom.add.u32 %r9, [%rd8+36], 7;
    st.global.v4.u32 [%rd4], {%r6, %r7, %r8, %r9};
    st.global.v2.u64 [%rd4+16], {%rd5, %rd7};
    st.global.u16 [%rd4+40], %r5;
    st.relaxed.gpu.global.u32 [%rd4+44], %r1;
    ld.relaxed.gpu.global.u32 %r10, [%rd2+4];
    st.global.u32 [%rd4+48], %r10;
    ret;
}
"#;

#[test]
fn more_access_kinds_reach_their_segments() {
    let Some(gpu) = gpu() else { return };
    for backend in Backend::ALL {
        // Translated as the host does: in the exact mode where this backend flushes f32
        // subnormals (the kernel's `red.add.f32` depends on them; NVIDIA's WGSL flushes).
        let options = LowerOptions { block: Some([1, 1, 1]), flushed_f32: gpu.flushes_f32(backend), ..common::device_options() };
        let program = translate::build_program(&SourceFile::new("more.ptx", MORE_KINDS.to_string()), &options, &[backend], true)
            .expect("translate");
        let mut ctx = small_segments(&gpu, 3);
        let max = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
        let s: Vec<DevicePtr> = (0..3).map(|_| ctx.alloc(max).unwrap()).collect();
        for (ka, kb, kc, tag) in [(1usize, 1usize, 1usize, 0u32), (0, 1, 2, 1), (2, 0, 1, 2), (1, 1, 0, 3)] {
            let (a, b, c) = (s[ka].offset(1024), s[kb].offset(2048), s[kc].offset(4096));
            let wa = u32s(&words(8, 11 + tag));
            let mut wb = u32s(&words(16, 22 + tag));
            let mut wc = u32s(&words(16, 33 + tag));
            wb[0] = wa[0]; // the compare-and-swap succeeds
            wb[7] = 1.5f32.to_bits();
            wc[8] = 4;
            let bytes = |w: &[u32]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
            ctx.write(a, &bytes(&wa)).unwrap();
            ctx.write(b, &bytes(&wb)).unwrap();
            ctx.write(c, &bytes(&wc)).unwrap();
            ctx.launch(&program, "more", [1, 1, 1], &[&a.to_le_bytes(), &b.to_le_bytes(), &c.to_le_bytes()], backend)
                .unwrap_or_else(|e| panic!("{backend} {tag}: {e}"));
            // The CPU reference.
            let d64 = |w: &[u32], i: usize| w[i] as u64 | (w[i + 1] as u64) << 32;
            let (mut eb, mut ec) = (wb.clone(), wc.clone());
            let old_cas = wb[0];
            eb[0] = wa[1];
            let v = wa[2] as u64 | (wa[3] as u64) << 32;
            let old_exch = d64(&wb, 2);
            eb[2] = wa[2];
            eb[3] = wa[3];
            let old_min = d64(&wb, 4);
            let m = (old_min as i64).min(v as i64) as u64;
            eb[4] = m as u32;
            eb[5] = (m >> 32) as u32;
            let old_max = wb[6];
            eb[6] = wb[6].max(wa[4]);
            eb[7] = 3.5f32.to_bits();
            let old_inc = wc[8];
            ec[8] = if old_inc >= 10 { 0 } else { old_inc + 1 };
            let old_add = wb[9];
            eb[9] = wb[9].wrapping_add(7);
            ec[0..4].copy_from_slice(&[old_cas, old_max, old_inc, old_add]);
            ec[4] = old_exch as u32;
            ec[5] = (old_exch >> 32) as u32;
            ec[6] = old_min as u32;
            ec[7] = (old_min >> 32) as u32;
            ec[10] = (wc[10] & 0xffff_0000) | (wa[4] & 0xffff);
            ec[11] = wa[0];
            ec[12] = wb[1];
            assert_eq!(u32s(&ctx.read(a, 32).unwrap()), wa, "{backend} {tag}: a");
            assert_eq!(u32s(&ctx.read(b, 64).unwrap()), eb, "{backend} {tag}: b");
            assert_eq!(u32s(&ctx.read(c, 64).unwrap()), ec, "{backend} {tag}: c");
        }
        assert_eq!(ctx.fault_word().unwrap(), 0);
    }
}

/// A launch over several segments reuses the context's parameter buffer and bind group of its
/// size, as a one-segment launch does: 24 asynchronous launches in flight, each with its own
/// output pointer, length and input order, all checked against the CPU reference; the words
/// past each launch's length stay as written.
#[test]
fn asynchronous_launches_over_several_segments_keep_their_own_parameters() {
    let Some(gpu) = gpu() else { return };
    let program = program();
    for backend in Backend::ALL {
        let mut ctx = small_segments(&gpu, 3);
        let max = ctx.segment_bytes() - HEAP_RESERVED_BYTES;
        let s: Vec<DevicePtr> = (0..3).map(|_| ctx.alloc(max).unwrap()).collect();
        let (a, b) = (words(64, 7), words(64, 8));
        ctx.write(s[1], &a).unwrap();
        ctx.write(s[2], &b).unwrap();
        ctx.write(s[0], &vec![0xee; 24 * 256]).unwrap();
        for i in 0..24u32 {
            let n = 64 - 2 * i;
            let (x, y) = if i % 2 == 0 { (s[1], s[2]) } else { (s[2], s[1]) };
            let out = s[0].offset(256 * u64::from(i));
            ctx.launch_async(&program, "vadd", [1, 1, 1], &[&x.to_le_bytes(), &y.to_le_bytes(), &out.to_le_bytes(), &n.to_le_bytes()], backend)
                .unwrap_or_else(|e| panic!("{backend} launch {i}: {e}"));
        }
        ctx.synchronize().unwrap_or_else(|e| panic!("{backend}: {e}"));
        let sum: Vec<u32> = u32s(&a).iter().zip(u32s(&b)).map(|(x, y)| x.wrapping_add(y)).collect();
        let got = u32s(&ctx.read(s[0], 24 * 256).unwrap());
        for i in 0..24usize {
            let n = 64 - 2 * i;
            let want: Vec<u32> = (0..64).map(|k| if k < n { sum[k] } else { 0xeeee_eeee }).collect();
            assert_eq!(got[64 * i..64 * i + 64], want[..], "{backend}: launch {i}");
        }
        assert_eq!(ctx.fault_word().unwrap(), 0);
    }
}
