//! Kernel faults name the kernel and the faulting PTX instruction (`file:line:col`): an
//! out-of-bounds global store, an out-of-slice local store (local memory in the scratch
//! buffer), a misaligned load, an out-of-bounds load whose value is never used (`lower`'s
//! cleanup must keep it), `trap` in the kernel, `trap` inside a device function from nvcc
//! (inlined and called through the call stack), and a generic `atom` whose address is local,
//! on both backends. The expected place is
//! found in the PTX text itself (a marker comment, or the only `trap` line), not from ptxcross.

use ptxcross::runtime::Error;
use ptxcross::{translate, Backend, Context, ContextOptions, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::{abi, LowerOptions};
use ptxcross_tests::launch::gpu_or_skip;
use std::path::Path;

/// `line:col` of the first non-blank character of the line containing `needle`.
fn place_of(ptx: &str, needle: &str) -> String {
    let (i, line) = ptx.lines().enumerate().find(|(_, l)| l.contains(needle)).unwrap_or_else(|| panic!("no {needle:?}"));
    let col = line.chars().take_while(|c| c.is_whitespace()).count() + 1;
    format!("{}:{col}", i + 1)
}

fn program(name: &str, ptx: &str, inline_budget: Option<usize>) -> Program {
    let file = SourceFile::new(name.to_string(), ptx.to_string());
    let options = LowerOptions { block: Some([32, 1, 1]), inline_budget, ..Default::default() };
    translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {}", e.render()))
}

/// Launches `kernel` with `args` on every backend and checks the fault: its bits, and that
/// the message names the kernel and `name:place (`instruction`)`.
fn expect_fault(prog: &Program, kernel: &str, args: impl Fn(&mut Context) -> Vec<Vec<u8>>, bits: u32, place: &str, instruction: &str) {
    let Some(gpu) = gpu_or_skip() else { return };
    for backend in Backend::ALL {
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
        let a = args(&mut ctx);
        let refs: Vec<&[u8]> = a.iter().map(Vec::as_slice).collect();
        let e = ctx.launch(prog, kernel, [1, 1, 1], &refs, backend).expect_err("the launch must fault");
        let Error::KernelFault { bits: got, site, .. } = &e else { panic!("{backend}: not a kernel fault: {e}") };
        assert_eq!(*got, bits, "{backend}: {e}");
        let want = format!("{}:{place} (`{instruction}`)", prog.name());
        assert_eq!(site.as_deref(), Some(want.as_str()), "{backend}: {e}");
        let text = e.to_string();
        assert!(text.contains(&format!("kernel `{kernel}` faulted at {want}")), "{backend}: {text}");
        // The next launch starts clean: a kernel that does not fault succeeds.
        let ok = ctx.launch(prog, "no_fault", [1, 1, 1], &[], backend);
        assert!(ok.is_ok(), "{backend}: after the fault: {ok:?}");
    }
}

const KERNELS: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry no_fault()
{
    ret;
}

.visible .entry out_of_bounds(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    st.global.u32 [%rd1], %r1;
    mul.wide.u32 %rd2, %r1, 4096;
    add.u64 %rd3, %rd1, %rd2;
    add.u64 %rd3, %rd3, 1048576;
    st.global.u32 [%rd3], %r1;   // OOB: 1 MiB past the allocation
    ret;
}

.visible .entry misaligned_first(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1+2];   // MISALIGNED: a u32 at an odd half-word
    add.u64 %rd2, %rd1, 1048576;
    st.global.u32 [%rd2], %r1;   // OOB too, but later: the first fault is named
    ret;
}

.visible .entry trap_in_kernel(.param .u32 x)
{
    .reg .b32 %r<2>;
    .reg .pred %p;
    ld.param.u32 %r1, [x];
    setp.eq.u32 %p, %r1, 7;
    @%p trap;   // TRAP
    ret;
}

.visible .entry local_out_of_slice(.param .u32 i)
{
    .local .align 4 .b8 buf[2048];
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u32 %r1, [i];
    mov.u64 %rd1, buf;
    cvt.u64.u32 %rd2, %r1;
    add.u64 %rd1, %rd1, %rd2;
    st.local.u32 [%rd1], %r1;   // LOCAL: past the thread's 2 KiB
    ret;
}

.visible .entry generic_atomic(.param .u64 p, .param .u32 sel)
{
    .local .align 4 .b8 buf[16];
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    .reg .pred %p;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [sel];
    mov.u64 %rd2, buf;
    cvta.local.u64 %rd2, %rd2;
    st.u32 [%rd2], %r1;
    setp.ne.u32 %p, %r1, 0;
    selp.b64 %rd3, %rd2, %rd1, %p;
    atom.add.u32 %r2, [%rd3], 5;   // GENERIC_ATOM: local when sel != 0
    st.global.u32 [%rd1+4], %r2;
    ret;
}
"#;

fn ptr_to(ctx: &mut Context, bytes: u64) -> Vec<u8> {
    ctx.alloc(bytes).unwrap().to_le_bytes().to_vec()
}

#[test]
fn out_of_bounds_store_names_its_line() {
    let prog = program("faults.ptx", KERNELS, None);
    let place = place_of(KERNELS, "// OOB: 1 MiB");
    expect_fault(&prog, "out_of_bounds", |c| vec![ptr_to(c, 64)], abi::FAULT_GLOBAL_OUT_OF_RANGE, &place, "st.global.u32");
}

#[test]
fn first_fault_wins_misaligned_load_before_a_bad_store() {
    let prog = program("faults.ptx", KERNELS, None);
    let place = place_of(KERNELS, "// MISALIGNED");
    let bits = abi::FAULT_MISALIGNED | abi::FAULT_GLOBAL_OUT_OF_RANGE;
    expect_fault(&prog, "misaligned_first", |c| vec![ptr_to(c, 64)], bits, &place, "ld.global.u32");
}

#[test]
fn trap_names_its_line() {
    let prog = program("faults.ptx", KERNELS, None);
    let place = place_of(KERNELS, "// TRAP");
    expect_fault(&prog, "trap_in_kernel", |_| vec![7u32.to_le_bytes().to_vec()], abi::FAULT_TRAP, &place, "trap");
}

#[test]
fn local_store_outside_the_thread_slice_names_its_line() {
    let prog = program("faults.ptx", KERNELS, None);
    assert_eq!(prog.kernel("local_out_of_slice").unwrap().local_placement, ptxcross_lower::ir::LocalPlacement::Scratch);
    let place = place_of(KERNELS, "// LOCAL");
    let args = |_: &mut Context| vec![2048u32.to_le_bytes().to_vec()];
    expect_fault(&prog, "local_out_of_slice", args, abi::FAULT_LOCAL_OUT_OF_RANGE, &place, "st.local.u32");
}

/// nvcc's `__trap()` in a `__noinline__` device function: the fault names the `trap` line of
/// the function, whether the call is inlined or goes through the call stack.
#[test]
fn trap_in_an_nvcc_device_function_names_the_function_line() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("calls/ptx/trap.nvcc.ptx");
    let ptx = std::fs::read_to_string(&path).unwrap();
    let place = place_of(&ptx, "\ttrap;");
    let with_no_fault = format!("{ptx}\n.visible .entry no_fault()\n{{\n    ret;\n}}\n");
    for budget in [None, Some(0)] {
        let prog = program(&path.display().to_string(), &with_no_fault, budget);
        let args = |c: &mut Context| {
            let input = c.alloc(4).unwrap();
            c.write(input, &0xdeadu32.to_le_bytes()).unwrap();
            vec![input.to_le_bytes().to_vec(), ptr_to(c, 4), 1i32.to_le_bytes().to_vec()]
        };
        expect_fault(&prog, "trap_kernel", args, abi::FAULT_TRAP, &place, "trap");
    }
}

/// A load whose value nobody uses, through copies and `+ 0` that `lower`'s cleanup removes:
/// the load itself must stay (it may fault), and its fault names its line.
const UNUSED_LOAD: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry no_fault()
{
    ret;
}

.visible .entry unused_load(.param .u64 p)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    mov.u64 %rd2, %rd1;
    add.u64 %rd3, %rd2, 0;
    add.u64 %rd3, %rd3, 1048576;
    ld.global.u32 %r1, [%rd3];   // UNUSED: 1 MiB past the allocation, value never read
    mov.u32 %r2, %r1;
    add.u32 %r3, %r2, 0;
    ret;
}
"#;

#[test]
fn an_out_of_bounds_load_whose_value_is_unused_still_faults() {
    let prog = program("unused.ptx", UNUSED_LOAD, None);
    let place = place_of(UNUSED_LOAD, "// UNUSED");
    expect_fault(&prog, "unused_load", |c| vec![ptr_to(c, 64)], abi::FAULT_GLOBAL_OUT_OF_RANGE, &place, "ld.global.u32");
}

/// A generic `atom` whose space inference cannot exclude local memory translates (it was "not
/// supported yet: atomics on local memory"); on a global address it adds (each of the 32
/// threads), on a local one
/// (undefined in PTX, §9.7.13.5) it faults and names its line.
#[test]
fn generic_atomic_reaching_local_memory_faults() {
    let prog = program("faults.ptx", KERNELS, None);
    let place = place_of(KERNELS, "GENERIC_ATOM");
    let args = |c: &mut Context| vec![ptr_to(c, 64), 1u32.to_le_bytes().to_vec()];
    expect_fault(&prog, "generic_atomic", args, abi::FAULT_LOCAL_OUT_OF_RANGE, &place, "atom.add.u32");
    let Some(gpu) = gpu_or_skip() else { return };
    for backend in Backend::ALL {
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
        let p = ctx.alloc(8).unwrap();
        ctx.write(p, &[7, 0, 0, 0, 9, 9, 9, 9]).unwrap();
        let a = [p.to_le_bytes().to_vec(), 0u32.to_le_bytes().to_vec()];
        let refs: Vec<&[u8]> = a.iter().map(Vec::as_slice).collect();
        ctx.launch(&prog, "generic_atomic", [1, 1, 1], &refs, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let got = ctx.read(p, 8).unwrap();
        let word = |i: usize| u32::from_le_bytes([got[i], got[i + 1], got[i + 2], got[i + 3]]);
        // 32 threads each add 5 to 7; the last store of an old value is some 7 + 5k.
        assert_eq!(word(0), 7 + 32 * 5, "{backend}");
        assert!(word(4) >= 7 && word(4) < 7 + 32 * 5 && (word(4) - 7) % 5 == 0, "{backend}: old value {}", word(4));
    }
}
