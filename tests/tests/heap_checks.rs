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

.visible .entry pair(.param .u64 a, .param .u64 b, .param .u64 out)
{
    .reg .b32 %r<5>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [out];
    ld.global.u32 %r1, [%rd1];
    ld.global.u32 %r2, [%rd2];
    add.u32 %r3, %r1, %r2;
    xor.b32 %r4, %r1, %r2;
    st.global.u32 [%rd3], %r3;
    st.global.u32 [%rd3+4], %r4;
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

/// The 1-based line of `PTX` holding `text` in kernel `pair`.
fn ptx_line(text: &str) -> usize {
    let start = PTX.lines().position(|l| l.contains(".entry pair")).expect("pair");
    start + PTX.lines().skip(start).position(|l| l.contains(text)).expect("line") + 1
}

/// WGSL statements of the function whose header line contains `header` (lines ending in `;`
/// or opening `if`/`loop`/`switch`, as `kernel_speed` counts them).
fn statements_of(wgsl: &str, header: &str) -> usize {
    let mut lines = wgsl.lines().skip_while(|l| !(l.starts_with("fn ") && l.contains(header)));
    lines.next().unwrap_or_else(|| panic!("no function {header} in\n{wgsl}"));
    lines
        .take_while(|l| *l != "}")
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .filter(|t| t.ends_with(';') || ["if ", "if(", "loop", "switch "].iter().any(|c| t.starts_with(c)))
        .count()
}

/// Plain heap loads and stores of a kernel with two of each are one call each of a function
/// that holds the access's whole sequence (issue 11, code size: `heap_outline`), emitted once;
/// the kernel body stays small (bounded statements per access), and each access still reads
/// and writes exactly, faults at its edges with the bits and the site of its own instruction,
/// and a faulting store changes nothing. Both backends.
#[test]
fn outlined_accesses_keep_their_values_faults_and_sites() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program();
    // The size effect, on the emitted code: one function per access kind, one statement per
    // access in the kernel body: 36 statements with its parameter loads, against 100 inline
    // (`PTXCROSS_NO_HEAP_OUTLINE=1`, checked to fail here); a regression to the inline form
    // fails.
    let wgsl = prog.wgsl().expect("wgsl");
    let kernel_fn = wgsl.lines().find(|l| l.starts_with("fn ") && l.contains("pair(")).expect("entry point").to_string();
    let header = kernel_fn.trim_start_matches("fn ").split('(').next().unwrap().to_string();
    let body = statements_of(wgsl, &format!("{header}("));
    assert!(body <= 40, "kernel `pair`: {body} WGSL statements for 2 loads and 2 stores:\n{wgsl}");
    for name in ["heap_load32", "heap_store32"] {
        assert_eq!(wgsl.matches(&format!("// {name} (")).count(), 1, "one {name} function in the module:\n{wgsl}");
    }
    let spirv = prog.spirv().expect("spirv");
    let text = ptxcross_spirv::disassemble(spirv);
    assert!(text.matches("OpFunctionCall").count() >= 4, "{text}");

    let site_of = |text: &str| format!("heap_checks.ptx:{}:", ptx_line(text));
    for backend in Backend::ALL {
        let mut s = setup(&gpu);
        let (base, end, last) = (s.base, s.base + s.size, s.size / 4 - 1);
        let out = base + 16;
        let run = |s: &mut Setup, a: u64, b: u64, out: u64| {
            let args = [a.to_le_bytes(), b.to_le_bytes(), out.to_le_bytes()];
            s.ctx.launch(&prog, "pair", [1, 1, 1], &[&args[0], &args[1], &args[2]], backend)
        };
        let read2 = |s: &mut Setup, at: u64| -> [u32; 2] {
            let got = s.ctx.read(DevicePtr(at), 8).unwrap();
            [0, 1].map(|i| u32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap()))
        };
        // In range: word 2 and the heap's last word, stored as sum and xor at word 4.
        run(&mut s, base + 8, end - 4, out).unwrap_or_else(|e| panic!("{backend}: in range: {e}"));
        let (x, y) = (pattern(2), pattern(last));
        assert_eq!(read2(&mut s, out), [x.wrapping_add(y), x ^ y], "{backend}: in range");
        // `b` one past the heap: out of range at the second load, which yields 0.
        let e = run(&mut s, base + 8, end, out).expect_err("b past the end");
        let Error::KernelFault { bits, site, .. } = &e else { panic!("{backend}: {e}") };
        assert_eq!(*bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}: {e}");
        assert!(site.as_deref().is_some_and(|t| t.contains(&site_of("ld.global.u32 %r2"))), "{backend}: {e}");
        assert_eq!(read2(&mut s, out), [x, x], "{backend}: the faulting load yields 0");
        // `a` misaligned: a misalignment fault at the first load.
        let e = run(&mut s, base + 9, base + 8, out).expect_err("a misaligned");
        let Error::KernelFault { bits, site, .. } = &e else { panic!("{backend}: {e}") };
        assert_eq!(*bits, abi::FAULT_MISALIGNED, "{backend}: {e}");
        assert!(site.as_deref().is_some_and(|t| t.contains(&site_of("ld.global.u32 %r1"))), "{backend}: {e}");
        // `out` misaligned: both stores fault as misaligned (the first names the site), and
        // neither changes memory.
        let before = read2(&mut s, base + 32);
        let e = run(&mut s, base + 8, base + 8, base + 34).expect_err("out misaligned");
        let Error::KernelFault { bits, site, .. } = &e else { panic!("{backend}: {e}") };
        assert_eq!(*bits, abi::FAULT_MISALIGNED, "{backend}: {e}");
        assert!(site.as_deref().is_some_and(|t| t.contains(&site_of("st.global.u32 [%rd3], %r3"))), "{backend}: {e}");
        assert_eq!(read2(&mut s, base + 32), before, "{backend}: misaligned stores change nothing");
        // `out` at the heap's last word: the first store lands, the second (`out + 4`) is past
        // the heap and faults at its own site.
        let e = run(&mut s, base + 8, base + 8, end - 4).expect_err("second store past the end");
        let Error::KernelFault { bits, site, .. } = &e else { panic!("{backend}: {e}") };
        assert_eq!(*bits, abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}: {e}");
        assert!(site.as_deref().is_some_and(|t| t.contains(&site_of("st.global.u32 [%rd3+4]"))), "{backend}: {e}");
        let got = s.ctx.read(DevicePtr(end - 4), 4).unwrap();
        assert_eq!(u32::from_le_bytes(got.try_into().unwrap()), x.wrapping_add(x), "{backend}: the first store lands");
    }
}

// Sub-word stores and word atomics without a branch (issue 11, `ir::AtomicOp::identity`):
// out of range or misaligned, they change nothing, yield 0 and fault with the same bits as
// before (deferred, like plain accesses).
const SUB_WORD: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry st16(.param .u64 a, .param .u64 out)
{
    .reg .b16 %h<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [a];
    mov.b16 %h1, 0xbeef;
    st.global.b16 [%rd1], %h1;
    ret;
}

.visible .entry atom_or(.param .u64 a, .param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [out];
    atom.global.or.b32 %r1, [%rd1], 0xf0f0;
    st.global.u32 [%rd2], %r1;
    ret;
}

// `a` is a byte offset into `s`: a b16 store there and an atomic add, then the atomic's
// result and both words of `s` to `out`.
.visible .entry shared_sub_word(.param .u64 a, .param .u64 out)
{
    .shared .align 4 .b8 s[8];
    .reg .b16 %h<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [out];
    cvt.u32.u64 %r1, %rd1;
    mov.u32 %r2, s;
    st.shared.u32 [%r2], 0x11111111;
    st.shared.u32 [%r2+4], 0x22222222;
    add.u32 %r3, %r2, %r1;
    mov.b16 %h1, 0xbeef;
    st.shared.b16 [%r3], %h1;
    and.b32 %r4, %r3, -4;
    atom.shared.add.u32 %r5, [%r4], 5;
    ld.shared.u32 %r6, [%r2];
    ld.shared.u32 %r7, [%r2+4];
    st.global.u32 [%rd2], %r5;
    st.global.u32 [%rd2+4], %r6;
    st.global.u32 [%rd2+8], %r7;
    ret;
}
"#;

/// The text of WGSL function `name` (up to its closing brace at the start of a line).
fn wgsl_fn<'a>(wgsl: &'a str, name: &str) -> &'a str {
    let start = wgsl.find(&format!("fn {name}(")).unwrap_or_else(|| panic!("no `{name}` in:\n{wgsl}"));
    let len = wgsl[start..].find("\n}\n").expect("function end");
    &wgsl[start..start + len]
}

#[test]
fn sub_word_stores_and_atomics_fault_without_a_branch() {
    let Some(gpu) = gpu_or_skip() else { return };
    let file = SourceFile::new("sub_word.ptx".to_string(), SUB_WORD.to_string());
    let options = LowerOptions { block: Some([1, 1, 1]), ..Default::default() };
    let prog = translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()));
    // The shape (what makes llvmpipe's pipeline builds fast): no branch to an immediate fault
    // in the atomics that sub-word stores and `atom` become.
    let wgsl = prog.wgsl().unwrap();
    for helper in ["px_heap_atomic_and", "px_heap_atomic_or", "px_k2_shared_atomic_add"] {
        let text = wgsl_fn(wgsl, helper);
        assert!(!text.contains("if ") && !text.contains("px_fault("), "{helper} branches:\n{text}");
    }
    for backend in Backend::ALL {
        let mut s = setup(&gpu);
        let word = |s: &Setup, at: u64| u32::from_le_bytes(s.ctx.read(DevicePtr(at), 4).unwrap().try_into().unwrap());
        // Global b16: in range it replaces its two bytes only.
        let at = s.base + 64;
        let w = word(&s, at);
        launch(&mut s, &prog, "st16", at + 2, backend).unwrap_or_else(|e| panic!("{backend}: st16: {e}"));
        assert_eq!(word(&s, at), (w & 0xffff) | 0xbeef << 16, "{backend}: st16 in range");
        // Misaligned: the misalignment alone, nothing stored; past the heap: out of range only.
        let before = s.ctx.read(DevicePtr(at), 8).unwrap();
        let r = launch(&mut s, &prog, "st16", at + 1, backend);
        assert_eq!(fault_bits(r, "misaligned st16"), abi::FAULT_MISALIGNED, "{backend}");
        assert_eq!(s.ctx.read(DevicePtr(at), 8).unwrap(), before, "{backend}: a misaligned st16 stores nothing");
        let end = s.base + s.size;
        let r = launch(&mut s, &prog, "st16", end, backend);
        assert_eq!(fault_bits(r, "st16 past the heap"), abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
        // Global atom.or: the old word, and the word ORed; past the heap: a fault, 0, nothing
        // changed (the output word is the first of the allocation).
        let at = s.base + 128;
        let w = word(&s, at);
        launch(&mut s, &prog, "atom_or", at, backend).unwrap_or_else(|e| panic!("{backend}: atom_or: {e}"));
        assert_eq!((word(&s, s.base), word(&s, at)), (w, w | 0xf0f0), "{backend}: atom.or in range");
        let last = word(&s, end - 4);
        let r = launch(&mut s, &prog, "atom_or", end, backend);
        assert_eq!(fault_bits(r, "atom.or past the heap"), abi::FAULT_GLOBAL_OUT_OF_RANGE, "{backend}");
        assert_eq!((word(&s, s.base), word(&s, end - 4)), (0, last), "{backend}: atom.or out of range yields 0, changes nothing");
        // Shared: b16 at byte 6, then the add on word 1.
        launch(&mut s, &prog, "shared_sub_word", 6, backend).unwrap_or_else(|e| panic!("{backend}: shared: {e}"));
        let got: Vec<u32> = (0..3).map(|i| word(&s, s.base + 4 * i)).collect();
        assert_eq!(got, vec![0xbeef_2222, 0x1111_1111, 0xbeef_2227], "{backend}: shared b16 and add in range");
        // Misaligned b16 (byte 5): the misalignment alone; the add on word 1 still runs.
        let r = launch(&mut s, &prog, "shared_sub_word", 5, backend);
        assert_eq!(fault_bits(r, "misaligned shared b16"), abi::FAULT_MISALIGNED, "{backend}");
        let got: Vec<u32> = (0..3).map(|i| word(&s, s.base + 4 * i)).collect();
        assert_eq!(got, vec![0x2222_2222, 0x1111_1111, 0x2222_2227], "{backend}: misaligned shared b16 stores nothing");
        // Past the array (byte 8): both out of range, the add yields 0, `s` unchanged.
        let r = launch(&mut s, &prog, "shared_sub_word", 8, backend);
        assert_eq!(fault_bits(r, "shared past the array"), abi::FAULT_SHARED_OUT_OF_RANGE, "{backend}");
        let got: Vec<u32> = (0..3).map(|i| word(&s, s.base + 4 * i)).collect();
        assert_eq!(got, vec![0, 0x1111_1111, 0x2222_2222], "{backend}: shared out of range changes nothing");
    }
}
