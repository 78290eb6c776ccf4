//! The heap access check `lower` makes once per access (issue 11: `heap_word_check`, with
//! `ir::Kernel::heap_indices_in_range` letting the backends access the word without their own
//! check), at its edges, on both backends: the heap's last word and doubleword are read; one
//! byte past the heap, a doubleword whose second word lies past it, a reserved word below the
//! first allocation (the sink word itself) and an address in another segment's window (the
//! high word of the 64-bit address out of range, the low word in range) fault as out of range
//! and read nothing; a misaligned store faults as misaligned only and changes nothing.
//! Expected values come from what the test wrote, the expected faults from PTX's rules
//! (§9.7.9.8: an access outside any allocation, or not aligned to its size, is an error).

use ptxcross::runtime::{DevicePtr, Error};
use ptxcross::{translate, Backend, Context, ContextOptions, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::{abi, LowerOptions};
use ptxcross_tests::launch::gpu_or_skip;

const PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry ld32(.param .u64 a, .param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [out];
    ld.global.u32 %r1, [%rd1];
    st.global.u32 [%rd2], %r1;
    ret;
}

.visible .entry ld64(.param .u64 a, .param .u64 out)
{
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [out];
    ld.global.u64 %rd3, [%rd1];
    st.global.u64 [%rd2], %rd3;
    ret;
}

.visible .entry st64(.param .u64 a, .param .u64 out)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [a];
    mov.u64 %rd2, 0x1122334455667788;
    st.global.u64 [%rd1], %rd2;
    ret;
}
"#;

const HEAP: u64 = 1 << 20;

fn program() -> Program {
    let file = SourceFile::new("heap_checks.ptx".to_string(), PTX.to_string());
    let options = LowerOptions { block: Some([1, 1, 1]), ..Default::default() };
    translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()))
}

/// A context whose one heap segment is taken by one allocation that ends at the segment's
/// end, filled with a word pattern; the kernels write their output to its first 8 bytes.
struct Setup {
    ctx: Context,
    base: u64,
    size: u64,
}

fn pattern(word: u64) -> u32 {
    (word as u32).wrapping_mul(0x9e37_79b9) ^ 0x5a5a_5a5a
}

fn setup(gpu: &std::sync::Arc<ptxcross::Gpu>) -> Setup {
    let mut ctx = Context::new(ContextOptions { heap_bytes: HEAP, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
    assert!(ctx.segment_bytes() >= HEAP, "one segment of HEAP bytes");
    let size = HEAP - abi::HEAP_RESERVED_WORDS as u64 * 4;
    let base = ctx.alloc(size).unwrap().0;
    let bytes: Vec<u8> = (0..size / 4).flat_map(|w| pattern(w).to_le_bytes()).collect();
    ctx.write(DevicePtr(base), &bytes).unwrap();
    Setup { ctx, base, size }
}

fn launch(s: &mut Setup, prog: &Program, kernel: &str, addr: u64, backend: Backend) -> Result<(), Error> {
    let a = addr.to_le_bytes().to_vec();
    let out = s.base.to_le_bytes().to_vec();
    s.ctx.launch(prog, kernel, [1, 1, 1], &[&a, &out], backend)
}

fn fault_bits(r: Result<(), Error>, what: &str) -> u32 {
    match r {
        Err(Error::KernelFault { bits, .. }) => bits,
        other => panic!("{what}: expected a kernel fault, got {other:?}"),
    }
}

#[test]
fn the_heap_ends_where_its_last_word_ends() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program();
    for backend in Backend::ALL {
        let mut s = setup(&gpu);
        let end = s.base + s.size;
        let last = s.size / 4 - 1;
        // The last word and the last doubleword: in range, read exactly.
        launch(&mut s, &prog, "ld32", end - 4, backend).unwrap_or_else(|e| panic!("{backend}: last word: {e}"));
        let got = s.ctx.read(DevicePtr(s.base), 4).unwrap();
        assert_eq!(u32::from_le_bytes(got.try_into().unwrap()), pattern(last), "{backend}: last word");
        launch(&mut s, &prog, "ld64", end - 8, backend).unwrap_or_else(|e| panic!("{backend}: last doubleword: {e}"));
        let got = s.ctx.read(DevicePtr(s.base), 8).unwrap();
        let want = (pattern(last) as u64) << 32 | pattern(last - 1) as u64;
        assert_eq!(u64::from_le_bytes(got.try_into().unwrap()), want, "{backend}: last doubleword");
        // One word past the heap: out of range, and the load yields 0 (stored to the output).
        let r = launch(&mut s, &prog, "ld32", end, backend);
        assert_eq!(fault_bits(r, "one past the end"), abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
        assert_eq!(s.ctx.read(DevicePtr(s.base), 4).unwrap(), vec![0; 4], "{backend}: a load out of range yields 0");
    }
}

#[test]
fn a_doubleword_whose_second_word_is_past_the_heap_faults() {
    // Misaligned (4 mod 8), so also a misalignment fault; its second word is the word after
    // the heap's last: the range test must cover both words of the access, not the first.
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program();
    for backend in Backend::ALL {
        let mut s = setup(&gpu);
        let end = s.base + s.size;
        let r = launch(&mut s, &prog, "ld64", end - 4, backend);
        assert_eq!(fault_bits(r, "straddling the end"), abi::FAULT_GLOBAL_OUT_OF_RANGE | abi::FAULT_MISALIGNED, "{backend}");
    }
}

#[test]
fn reserved_words_and_other_segments_are_out_of_range() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program();
    for backend in Backend::ALL {
        let mut s = setup(&gpu);
        let segment = s.base & !0xffff_ffff;
        // The sink word (a reserved word that bad accesses are redirected to) and the last
        // reserved word: below the first allocation.
        for word in [abi::HEAP_SINK_WORD as u64, abi::HEAP_RESERVED_WORDS as u64 - 1] {
            let r = launch(&mut s, &prog, "ld32", segment + 4 * word, backend);
            assert_eq!(fault_bits(r, "reserved word"), abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}: word {word}");
        }
        // The same low word in the next segment's window (no such segment is bound), and the
        // high word alone changed by a bit far up: out of range though the low word is in.
        for addr in [s.base + (1 << 32), s.base ^ (1 << 60)] {
            let r = launch(&mut s, &prog, "ld32", addr, backend);
            assert_eq!(fault_bits(r, "other segment"), abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}: {addr:#x}");
            assert_eq!(s.ctx.read(DevicePtr(s.base), 4).unwrap(), vec![0; 4], "{backend}: {addr:#x} read nothing");
        }
    }
}

#[test]
fn a_misaligned_store_faults_as_misaligned_only_and_stores_nothing() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program();
    for backend in Backend::ALL {
        let mut s = setup(&gpu);
        let before = s.ctx.read(DevicePtr(s.base), 64).unwrap();
        let at = s.base + 20;
        let r = launch(&mut s, &prog, "st64", at, backend);
        assert_eq!(fault_bits(r, "misaligned store"), abi::FAULT_MISALIGNED, "{backend}");
        assert_eq!(s.ctx.read(DevicePtr(s.base), 64).unwrap(), before, "{backend}: memory unchanged");
        // Misaligned and past the heap's end: the misalignment alone, as for every
        // misaligned store (it stores nothing, so nothing is out of range).
        let end = s.base + s.size;
        let r = launch(&mut s, &prog, "st64", end - 4, backend);
        assert_eq!(fault_bits(r, "misaligned store at the end"), abi::FAULT_MISALIGNED, "{backend}");
        // Aligned, in range: stored.
        let at = s.base + 24;
        launch(&mut s, &prog, "st64", at, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let got = s.ctx.read(DevicePtr(s.base + 24), 8).unwrap();
        assert_eq!(u64::from_le_bytes(got.try_into().unwrap()), 0x1122334455667788, "{backend}");
    }
}

// Shared indices that `Kernel::value_facts` bounds by the block size are accessed without a
// check; one past the array is not, and still faults.
const SHARED: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry reversed(.param .u64 out)
{
    .shared .align 4 .b8 s[256];
    .reg .b32 %r<9>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    sub.u32 %r2, 63, %r1;
    shl.b32 %r3, %r2, 2;
    mov.u32 %r4, s;
    add.u32 %r5, %r4, %r3;
    st.shared.u32 [%r5], %r1;
    bar.sync 0;
    shl.b32 %r6, %r1, 2;
    add.u32 %r7, %r4, %r6;
    ld.shared.u32 %r8, [%r7];
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r8;
    ret;
}

.visible .entry one_past(.param .u64 out)
{
    .shared .align 4 .b8 s[256];
    .reg .b32 %r<6>;
    mov.u32 %r1, %tid.x;
    add.u32 %r2, %r1, 1;
    shl.b32 %r3, %r2, 2;
    mov.u32 %r4, s;
    add.u32 %r5, %r4, %r3;
    st.shared.u32 [%r5], %r1;
    ret;
}
"#;

#[test]
fn shared_indices_bounded_by_the_block_and_one_past_the_array() {
    let Some(gpu) = gpu_or_skip() else { return };
    let file = SourceFile::new("shared_checks.ptx".to_string(), SHARED.to_string());
    let options = LowerOptions { block: Some([64, 1, 1]), ..Default::default() };
    let prog = translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()));
    for backend in Backend::ALL {
        let mut ctx = Context::new(ContextOptions { heap_bytes: HEAP, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
        let out = ctx.alloc(256).unwrap();
        let arg = out.0.to_le_bytes().to_vec();
        ctx.launch(&prog, "reversed", [1, 1, 1], &[&arg], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let got = ctx.read(out, 256).unwrap();
        let want: Vec<u8> = (0..64u32).flat_map(|t| (63 - t).to_le_bytes()).collect();
        assert_eq!(got, want, "{backend}: s[63 - tid] = tid, read back at s[tid]");
        let r = ctx.launch(&prog, "one_past", [1, 1, 1], &[&arg], backend);
        assert_eq!(fault_bits(r, "one past the shared array"), abi::FAULT_SHARED_OUT_OF_RANGE, "{backend}");
    }
}
