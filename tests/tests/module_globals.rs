//! Module-scope `.global`/`.const` variables and their initializers (PTX ISA §5.4.4), run on
//! both backends: addresses of variables (`var`, `var+offset`, `generic(var)+offset`, tables
//! of them, forward references), the `mask()` operator on addresses and on integer constant
//! expressions, nested and incomplete initializer lists, unsized arrays sized by their
//! initializer; nvcc's output for pointer-initialized globals (`tests/globals`), and the
//! parse corpus's `templates` files, which hold `generic(g_table)+8`.
//!
//! Expected values come from the spec's rules, not from the translation: a field initialized
//! with `var+k` holds the address of `var` plus k, where the address of `var` is what the host
//! placed it at (the globals segment's base in the context + the variable's offset, as
//! `cuModuleGetGlobal` reports it), and loading through it reads the initial value of the
//! variable's byte `k`, which the test writes down from the initializers.

use ptxcross::{translate, Backend, Context, ContextOptions, DevicePtr, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::launch::{gpu_or_skip, words};

/// What [`launch`] returns: the program, the buffers after the launch, the globals segment's
/// base in the context and the segment's bytes then.
type Launched = (Program, Vec<Vec<u8>>, u64, Vec<u8>);

/// Translates kernel `kernel` of `ptx` (validating both modules), launches it once with one
/// pointer per entry of `outs` (zeroed buffers of that many bytes).
fn launch(ptx: &str, kernel: &str, block: u32, outs: &[usize], backend: Backend) -> Result<Launched, String> {
    let gpu = gpu_or_skip().expect("checked by the caller");
    let file = SourceFile::new("globals.ptx", ptx);
    let options = LowerOptions { block: Some([block, 1, 1]), kernel: Some(kernel.into()), ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let program = translate::build_program(&file, &options, &[backend], true).map_err(|e| e.render())?;
    let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu) }).map_err(|e| e.to_string())?;
    let ptrs: Vec<DevicePtr> = outs.iter().map(|&n| ctx.alloc(n as u64).unwrap()).collect();
    for (&p, &n) in ptrs.iter().zip(outs) {
        ctx.write(p, &vec![0u8; n]).map_err(|e| e.to_string())?;
    }
    let args: Vec<[u8; 8]> = ptrs.iter().map(|p| p.to_le_bytes()).collect();
    let arg_refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
    ctx.launch(&program, kernel, [1, 1, 1], &arg_refs, backend).map_err(|e| format!("{backend} launch: {e}"))?;
    let bufs = ptrs.iter().zip(outs).map(|(&p, &n)| ctx.read(p, n as u64).unwrap()).collect();
    let base = ctx.globals_base(&program).map_err(|e| e.to_string())?;
    let size = program.module().globals.init.len() as u64;
    let segment = ctx.read(DevicePtr(base), size).map_err(|e| e.to_string())?;
    Ok((program, bufs, base, segment))
}

/// The offset of variable `name` in `program`'s globals segment.
fn offset_of(program: &Program, name: &str) -> u64 {
    program.module().globals.vars.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no variable {name}")).offset
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

const ADDRESS_PTX: &str = r#"
.version 8.5
.target sm_80
.address_size 64

.global .align 4 .u32 arr[6] = {10, 20, 30, 40, 50, 60};
.const .align 4 .u32 carr[4] = {7, 8, 9, 11};
// §5.4.4: "the resulting address is the offset in the variable's state space"; generic() the
// generic address; var+offset "a byte offset added to the address of var".
.global .u64 p = arr;
.global .u64 p8 = arr+8;
.global .u64 g = generic(arr);
.global .u64 g8 = generic(arr)+8;
// A table of addresses: .const and .global variables, a forward reference, a negative offset.
.global .u64 tab[4] = {carr, arr+4, generic(carr)+12, later-4};
// mask(): byte k of an address (and of integer expressions) at the lowest position.
.global .align 8 .u8 bytes[8] = {0xFF(generic(arr)+20), 0xFF00(generic(arr)+20), 0xFF0000(generic(arr)+20),
    0xFF000000(generic(arr)+20), 0xFF00000000(generic(arr)+20), 0xFF0000000000(generic(arr)+20),
    0xFF000000000000(generic(arr)+20), 0XFF00000000000000(generic(arr)+20)};
.global .u32 m[4] = {0xFF00(arr), 0xFF(1000 + 546), 0xFF00(131187), 0xFF000000(carr+3)};
.global .align 4 .u32 later[2] = {77, 88};
.const .u64 cp = generic(later)+4;

.visible .entry k(.param .u64 vals, .param .u64 derefs)
{
    .reg .pred %p<4>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<40>;
    ld.param.u64 %rd1, [vals];
    ld.param.u64 %rd2, [derefs];
    // The stored pointers, as the kernel sees them.
    ld.global.u64 %rd3, [p];        st.global.u64 [%rd1+0], %rd3;
    ld.global.u64 %rd4, [p8];       st.global.u64 [%rd1+8], %rd4;
    ld.global.u64 %rd5, [g];        st.global.u64 [%rd1+16], %rd5;
    ld.global.u64 %rd6, [g8];       st.global.u64 [%rd1+24], %rd6;
    ld.global.u64 %rd7, [tab];      st.global.u64 [%rd1+32], %rd7;
    ld.global.u64 %rd8, [tab+8];    st.global.u64 [%rd1+40], %rd8;
    ld.global.u64 %rd9, [tab+16];   st.global.u64 [%rd1+48], %rd9;
    ld.global.u64 %rd10, [tab+24];  st.global.u64 [%rd1+56], %rd10;
    ld.global.u64 %rd11, [bytes];   st.global.u64 [%rd1+64], %rd11;
    ld.const.u64 %rd12, [cp];       st.global.u64 [%rd1+72], %rd12;
    ld.global.u32 %r1, [m];         st.global.u32 [%rd1+80], %r1;
    ld.global.u32 %r2, [m+4];       st.global.u32 [%rd1+84], %r2;
    ld.global.u32 %r3, [m+8];       st.global.u32 [%rd1+88], %r3;
    ld.global.u32 %r4, [m+12];      st.global.u32 [%rd1+92], %r4;
    // "as is the case when taking the address of a variable with a mov instruction"
    mov.u64 %rd13, arr;
    setp.eq.u64 %p1, %rd13, %rd3;
    selp.u32 %r5, 1, 0, %p1;
    st.global.u32 [%rd1+96], %r5;
    mov.u64 %rd14, carr;
    cvta.const.u64 %rd14, %rd14;
    add.u64 %rd14, %rd14, 12;
    setp.eq.u64 %p2, %rd14, %rd9;
    selp.u32 %r6, 1, 0, %p2;
    st.global.u32 [%rd1+100], %r6;
    // Loads through them: global, const, generic.
    ld.global.u32 %r7, [%rd4];      st.global.u32 [%rd2+0], %r7;
    ld.u32 %r7, [%rd6];             st.global.u32 [%rd2+4], %r7;
    ld.const.u32 %r7, [%rd7];       st.global.u32 [%rd2+8], %r7;
    ld.global.u32 %r7, [%rd8];      st.global.u32 [%rd2+12], %r7;
    ld.u32 %r7, [%rd9];             st.global.u32 [%rd2+16], %r7;
    ld.global.u32 %r7, [%rd10+4];   st.global.u32 [%rd2+20], %r7;
    ld.u32 %r7, [%rd11];            st.global.u32 [%rd2+24], %r7;
    ld.u32 %r7, [%rd12];            st.global.u32 [%rd2+28], %r7;
    // Pointer arithmetic on a loaded pointer, and a store through one that the variable sees.
    ld.global.u32 %r7, [%rd3+12];   st.global.u32 [%rd2+32], %r7;
    mov.u32 %r8, 1234;
    st.global.u32 [%rd5+4], %r8;
    ld.global.u32 %r7, [arr+4];     st.global.u32 [%rd2+36], %r7;
    ret;
}
"#;

#[test]
fn addresses_in_initializers() {
    let Some(_) = gpu_or_skip() else { return };
    for backend in Backend::ALL {
        let (program, out, base, segment) =
            launch(ADDRESS_PTX, "k", 1, &[104, 40], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let addr = |name: &str, k: i64| base.wrapping_add(offset_of(&program, name)).wrapping_add(k as u64);
        let (arr, carr, later) = (addr("arr", 0), addr("carr", 0), addr("later", 0));
        let expected_ptrs = [
            ("p", arr),
            ("p8", arr + 8),
            ("g", arr),
            ("g8", arr + 8),
            ("tab[0]", carr),
            ("tab[1]", arr + 4),
            ("tab[2]", carr + 12),
            ("tab[3]", later - 4),
            ("bytes", arr + 20),
            ("cp", later + 4),
        ];
        let vals = &out[0];
        for (i, (name, want)) in expected_ptrs.iter().enumerate() {
            assert_eq!(u64_at(vals, 8 * i), *want, "{backend}: `{name}` as the kernel reads it");
        }
        // The same fields in the segment as the host sees it (cuModuleGetGlobal + a copy).
        for (name, k, want) in [("p", 0, arr), ("p8", 0, arr + 8), ("tab", 24, later - 4), ("bytes", 0, arr + 20)] {
            let at = offset_of(&program, name) as usize + k;
            assert_eq!(u64_at(&segment, at), want, "{backend}: `{name}` in the segment");
        }
        let cp_at = offset_of(&program, "cp") as usize;
        assert_eq!(u64_at(&segment, cp_at), later + 4, "{backend}: `cp` in the segment");
        // mask(): byte 1 of arr's address; 1546 & 0xff; byte 1 of 131187 (0x20073); byte 3 of carr+3.
        let m = words(&vals[80..96]);
        assert_eq!(m, [((arr >> 8) & 0xff) as u32, 1546 & 0xff, 0x00, (((carr + 3) >> 24) & 0xff) as u32], "{backend}: m");
        assert_eq!(u32_at(vals, 96), 1, "{backend}: `arr` in an initializer is `mov.u64 %rd, arr`");
        assert_eq!(u32_at(vals, 100), 1, "{backend}: generic(carr)+12 is cvta.const of carr, plus 12");
        let derefs = words(&out[1]);
        assert_eq!(derefs, [30, 30, 7, 20, 11, 77, 60, 88, 40, 1234], "{backend}: loads through the pointers");
        // The store through g+4 changed arr[1] in the segment.
        assert_eq!(u32_at(&segment, offset_of(&program, "arr") as usize + 4), 1234, "{backend}: store through g+4");
    }
}

const NESTED_PTX: &str = r#"
.version 8.5
.target sm_80
.address_size 64
// §5.4.4: `{ {1,2}, {3} }` is `{ {1,2}, {3,0}, {0,0} }`.
.global .s32 x[3][2] = { {1, 2}, {3} };
.global .s32 y[3][2] = { {5}, {6, 7} };
.global .u32 bar[] = { 2, 3, 5 };
.global .f32 blur[][3] = {{.05, .1, .05}, {.1, .4, .1}};
.global .v2 .u32 v[3] = { {8, 9}, {10} };
.global .u16 flat[2][3] = { 1, 2, 3, 4 };
// ISA 1.4 §5.3.4 (`blur_kernel[][]`): inner dimensions from the longest list.
.global .u16 two[][] = { {7}, {8, 9, 10} };
.const .s32 after = -1;

.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    .reg .u32 %i;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    mov.u64 %rd2, x;
    mov.u32 %i, 0;
LOOP:
    // Copy the 35 words from x on (the segment in declaration order; sizes are multiples of 4).
    mul.wide.u32 %rd3, %i, 4;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.u32 %r1, [%rd4];
    add.u64 %rd5, %rd1, %rd3;
    st.global.u32 [%rd5], %r1;
    add.u32 %i, %i, 1;
    setp.lt.u32 %p, %i, 35;
    @%p bra LOOP;
    ret;
}
"#;

#[test]
fn nested_and_unsized_initializers() {
    let Some(_) = gpu_or_skip() else { return };
    for backend in Backend::ALL {
        let (program, out, _, _) = launch(NESTED_PTX, "k", 1, &[140], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let sizes: Vec<(&str, u64, u64)> =
            program.module().globals.vars.iter().map(|v| (v.name.as_str(), v.offset, v.size)).collect();
        assert_eq!(
            sizes,
            [("x", 0, 24), ("y", 24, 24), ("bar", 48, 12), ("blur", 60, 24), ("v", 88, 24), ("flat", 112, 12), ("two", 124, 12), ("after", 136, 4)],
            "{backend}: layout (unsized arrays sized by their initializers; .v2 .u32 aligned to 8)"
        );
        let f = |x: f64| (x as f32).to_bits();
        let mut want = vec![1, 2, 3, 0, 0, 0, 5, 0, 6, 7, 0, 0, 2, 3, 5];
        want.extend([f(0.05), f(0.1), f(0.05), f(0.1), f(0.4), f(0.1), 0]);
        want.extend([8, 9, 10, 0, 0, 0]);
        want.extend([1 | 2 << 16, 3 | 4 << 16, 0]);
        want.extend([7, 8 << 16, 9 | 10 << 16, u32::MAX]);
        assert_eq!(words(&out[0]), want, "{backend}: the segment's words");
    }
}

/// nvcc's pointer-initialized globals (`tests/globals/ptrinit.cu`): `readptrs` reads through
/// every kind of field, `write_through` stores through `ptrs[2]` and `after` (a later launch in
/// the same context) sees it in `table[3]`.
#[test]
fn nvcc_pointer_initialized_globals() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = include_str!("../globals/ptrinit.sm_80.ptx");
    // The CPU version of the kernels.
    let mut table = [10, 20, 30, 40, 50, 60i32];
    let ctab = [7, 8, 9, 11i32];
    let (tp, ptrs, cp) = (2usize, [0usize, 5, 3], 1usize);
    let nodes = [(b'a' as i32, 1usize, 5i32), (b'b' as i32, 4, 6)];
    let pk = (*b"xyz", 2usize);
    let readptrs: Vec<i32> = (0..8)
        .map(|t| match t {
            0 => table[tp],
            1 => ptrs.iter().map(|&p| table[p]).sum(),
            2..=4 => ctab[cp + t - 2],
            5 => table[nodes[0].1] + table[nodes[1].1] + nodes[1].0 + nodes[0].2,
            6 => table[pk.1] + pk.0[1] as i32,
            _ => table[ptrs[1] - 1] + table[tp - 2],
        })
        .collect();
    table[ptrs[2]] = -77;
    let after: Vec<i32> = (0..8).map(|t| table[3] + table[tp] + t).collect();

    for backend in Backend::ALL {
        let file = SourceFile::new("ptrinit.sm_80.ptx", ptx);
        let options = LowerOptions { block: Some([8, 1, 1]), ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
        let program = translate::build_program(&file, &options, &[backend], true).unwrap_or_else(|e| panic!("{}", e.render()));
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
        let out = ctx.alloc(32).unwrap();
        let run = |ctx: &mut Context, kernel: &str, arg: &[u8]| {
            ctx.launch(&program, kernel, [1, 1, 1], &[arg], backend).unwrap_or_else(|e| panic!("{backend} {kernel}: {e}"));
        };
        let read = |ctx: &mut Context| -> Vec<i32> { words(&ctx.read(out, 32).unwrap()).iter().map(|&w| w as i32).collect() };
        run(&mut ctx, "readptrs", &out.to_le_bytes());
        assert_eq!(read(&mut ctx), readptrs, "{backend}: readptrs");
        run(&mut ctx, "write_through", &(-77i32).to_le_bytes());
        run(&mut ctx, "after", &out.to_le_bytes());
        assert_eq!(read(&mut ctx), after, "{backend}: after write_through");
    }
}

/// The parse corpus's nvcc/NVRTC `templates` files hold `.global .u64 g_table_ptr =
/// generic(g_table)+8;` (their `calls` kernel prints it; their `heap` kernel's `malloc` makes
/// the segment 9 MiB: `tests/malloc_e2e.rs` runs it): kernel `local_and_switch` (which reads `g_table`) runs against the CPU version of
/// its source, and the segment holds the address of `g_table[2]`.
#[test]
fn templates_corpus_with_generic_initializer() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 64usize;
    let sel: Vec<i32> = (0..n as i32).map(|i| (i * 37 - 900) ^ (i << 3)).collect();
    // templates.cu, local_and_switch.
    let g_table = [1, 2, 3, 4i32];
    let expected: Vec<i32> = (0..n)
        .map(|i| {
            let s = sel[i];
            let scratch: Vec<i32> = (0..32).map(|k| k * s).collect();
            match s & 15 {
                0 => scratch[(s & 31) as usize],
                1 => 17,
                2 => scratch[3] * 3,
                3 => -5,
                4 => scratch[(i * 7) & 31] ^ 0x55,
                5 => 99,
                6 => (i * i) as i32,
                7 => s >> 2,
                8 => 1234567,
                9 => g_table[i & 3],
                10 => scratch[31],
                _ => 0,
            }
        })
        .collect();
    let files = [
        "nvcc/templates.sm_75.ptx",
        "nvcc/templates.sm_80.ptx",
        "nvcc/templates.sm_80.G.ptx",
        "nvcc/templates.sm_90a.ptx",
        "nvcc/templates.sm_90a.lineinfo.ptx",
        "nvrtc/templates.compute_52.ptx",
    ];
    for name in files {
        let path = format!("{}/parse-corpus/real/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        // Every file translates (both backends, validated); the -G one (no optimisation, the
        // globals read through generic addresses) also runs on both.
        let backends: &[Backend] = if name.contains(".G.") { &Backend::ALL } else { &[] };
        let file = SourceFile::new(name, &text);
        let options = LowerOptions { block: Some([64, 1, 1]), kernel: Some("local_and_switch".into()), ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
        let program = translate::build_program(&file, &options, &Backend::ALL, true)
            .unwrap_or_else(|e| panic!("{name}: {}", e.render()));
        for &backend in backends {
            // The module's printf buffer takes 1 MiB of the heap (its `calls` kernel prints).
            let mut ctx = Context::new(ContextOptions { heap_bytes: 16 << 20, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
            let sel_buf = ctx.alloc(4 * n as u64).unwrap();
            let out = ctx.alloc(4 * n as u64).unwrap();
            ctx.write(sel_buf, &ptxcross_tests::launch::bytes(&sel.iter().map(|&s| s as u32).collect::<Vec<_>>())).unwrap();
            let args = [sel_buf.to_le_bytes(), out.to_le_bytes()];
            let n_arg = (n as i32).to_le_bytes();
            ctx.launch(&program, "local_and_switch", [1, 1, 1], &[&args[0], &args[1], &n_arg], backend)
                .unwrap_or_else(|e| panic!("{name} {backend}: {e}"));
            let got: Vec<i32> = words(&ctx.read(out, 4 * n as u64).unwrap()).iter().map(|&w| w as i32).collect();
            assert_eq!(got, expected, "{name} {backend}: local_and_switch");
            let base = ctx.globals_base(&program).unwrap();
            let at = offset_of(&program, "g_table_ptr");
            let field = u64_at(&ctx.read(DevicePtr(base + at), 8).unwrap(), 0);
            assert_eq!(field, base + offset_of(&program, "g_table") + 8, "{name} {backend}: g_table_ptr = &g_table[2]");
        }
    }
}

/// `.global`/`.const` variables declared inside function bodies: static storage (one per
/// module, kept across launches like module-scope variables), visible in their scope, with
/// initializers; a block's declaration shadows a module-scope one of the same name.
const BODY_PTX: &str = r#"
.version 8.5
.target sm_80
.address_size 64
.global .align 4 .u32 n = 1000;

.func (.param .u32 r) bump()
{
    .global .align 4 .u32 calls = 10;
    .reg .b32 %r<2>;
    ld.global.u32 %r1, [calls];
    add.u32 %r1, %r1, 1;
    st.global.u32 [calls], %r1;
    st.param.u32 [r], %r1;
    ret;
}

.visible .entry k(.param .u64 out)
{
    .const .align 4 .u32 tab[3] = {7, 8, 9};
    .global .align 4 .u32 launches;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.global.u32 %r1, [launches];
    add.u32 %r1, %r1, 1;
    st.global.u32 [launches], %r1;
    st.global.u32 [%rd1], %r1;
    ld.const.u32 %r2, [tab+8];
    st.global.u32 [%rd1+4], %r2;
    {
        .global .align 4 .u32 n = 5;
        ld.global.u32 %r3, [n];
        st.global.u32 [%rd1+8], %r3;
        add.u32 %r3, %r3, 1;
        st.global.u32 [n], %r3;
    }
    ld.global.u32 %r4, [n];
    st.global.u32 [%rd1+12], %r4;
    {
        .param .b32 r;
        call.uni (r), bump, ();
        ld.param.b32 %r5, [r];
    }
    st.global.u32 [%rd1+16], %r5;
    mov.u64 %rd2, tab;
    ld.const.u32 %r6, [%rd2+4];
    st.global.u32 [%rd1+20], %r6;
    ret;
}
"#;

#[test]
fn variables_declared_inside_functions() {
    let Some(gpu) = gpu_or_skip() else { return };
    // `bump` inlined, and called through the call stack.
    for (backend, inline_budget) in Backend::ALL.into_iter().flat_map(|b| [(b, None), (b, Some(0))]) {
        let file = SourceFile::new("body.ptx", BODY_PTX);
        let options = LowerOptions { block: Some([1, 1, 1]), inline_budget, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
        let program = translate::build_program(&file, &options, &[backend], true).unwrap_or_else(|e| panic!("{}", e.render()));
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
        let out = ctx.alloc(24).unwrap();
        for launch in 1..=3u32 {
            ctx.launch(&program, "k", [1, 1, 1], &[&out.to_le_bytes()], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
            let got = words(&ctx.read(out, 24).unwrap());
            // launches counts from 0; the inner `n` from 5; the module's `n` stays 1000;
            // bump's `calls` from 10.
            assert_eq!(got, [launch, 9, 4 + launch, 1000, 10 + launch, 8], "{backend}: launch {launch}");
        }
        let names: Vec<&str> = program.module().globals.vars.iter().map(|v| v.name.as_str()).collect();
        // `.const` variables come after the `.global` ones (one range for `isspacep.const`).
        assert_eq!(names, ["n", "bump::calls", "k::launches", "k::n", "k::tab"], "{backend}");
    }
}

/// `isspacep.const` (§9.7.10.18: "the window of constant memory"): the `.const` variables are
/// laid out together in the globals segment, and only addresses inside them are in it.
#[test]
fn isspacep_const_is_the_const_variables() {
    let Some(_) = gpu_or_skip() else { return };
    let ptx = r#"
.version 8.5
.target sm_80
.address_size 64
.const .align 4 .u32 ca[4] = {1, 2, 3, 4};
.global .align 4 .u32 g[4];
.const .align 8 .u64 cb = 5;
.visible .entry k(.param .u64 out)
{
    .shared .align 4 .u32 sh[4];
    .reg .pred %p;
    .reg .b32 %r<4>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [out];
    mov.u64 %rd2, ca;            cvta.const.u64 %rd2, %rd2;
    add.u64 %rd3, %rd2, 15;
    mov.u64 %rd4, cb;            cvta.const.u64 %rd4, %rd4;
    add.u64 %rd5, %rd4, 7;
    add.u64 %rd6, %rd4, 8;
    mov.u64 %rd7, g;             cvta.global.u64 %rd7, %rd7;
    mov.u64 %rd8, sh;            cvta.shared.u64 %rd8, %rd8;
    sub.u64 %rd9, %rd2, 1;
    isspacep.const %p, %rd2;     selp.u32 %r1, 1, 0, %p;   st.global.u32 [%rd1], %r1;
    isspacep.const %p, %rd3;     selp.u32 %r1, 1, 0, %p;   st.global.u32 [%rd1+4], %r1;
    isspacep.const %p, %rd4;     selp.u32 %r1, 1, 0, %p;   st.global.u32 [%rd1+8], %r1;
    isspacep.const %p, %rd5;     selp.u32 %r1, 1, 0, %p;   st.global.u32 [%rd1+12], %r1;
    isspacep.const %p, %rd6;     selp.u32 %r1, 1, 0, %p;   st.global.u32 [%rd1+16], %r1;
    isspacep.const %p, %rd7;     selp.u32 %r1, 1, 0, %p;   st.global.u32 [%rd1+20], %r1;
    isspacep.const %p, %rd8;     selp.u32 %r1, 1, 0, %p;   st.global.u32 [%rd1+24], %r1;
    isspacep.const %p, %rd1;     selp.u32 %r1, 1, 0, %p;   st.global.u32 [%rd1+28], %r1;
    isspacep.const %p, %rd9;     selp.u32 %r1, 1, 0, %p;   st.global.u32 [%rd1+32], %r1;
    // and the data behind a const generic address
    ld.u32 %r2, [%rd3+-3];       st.global.u32 [%rd1+36], %r2;
    ret;
}
"#;
    for backend in Backend::ALL {
        let (program, out, _, _) = launch(ptx, "k", 1, &[40], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        // ca, ca+15, cb, cb+7: inside; cb+8 (the segment's end), g, sh, the output buffer, ca-1: outside.
        assert_eq!(words(&out[0]), [1, 1, 1, 1, 0, 0, 0, 0, 0, 4], "{backend}");
        let (ca, g, cb) = (offset_of(&program, "ca"), offset_of(&program, "g"), offset_of(&program, "cb"));
        assert!(g < ca && ca + 16 <= cb, "{backend}: .const after .global: g {g}, ca {ca}, cb {cb}");
    }
}

/// Generic addresses of kernel parameters (`cvta.param`, §9.7.9.17; nvcc writes it for the
/// address of a `__grid_constant__` parameter, `tests/globals/gridconst.cu`): generic loads
/// read the parameter, in the kernel and in a device function; `isspacep.param` is true there
/// (and `.global` false); `cvta.to.param` gives the parameter-space address back; a store
/// through it faults (kernel parameters are read-only) and changes nothing.
#[test]
fn generic_addresses_of_kernel_parameters() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = include_str!("../globals/gridconst.sm_80.ptx");
    let (a, s) = ([5i32, -7, 11, 1000], 2.75f32);
    let mut p: Vec<u8> = a.iter().flat_map(|v| v.to_le_bytes()).collect();
    p.extend(s.to_le_bytes());
    let want: Vec<i32> = (0..8).map(|t| a[t & 3] + a.iter().sum::<i32>() + s as i32).collect();
    let hand = r#"
.version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .align 8 .b8 blob[16], .param .u32 bad)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.b64 %rd2, blob;
    cvta.param.u64 %rd3, %rd2;
    ld.u32 %r1, [%rd3+4];            st.global.u32 [%rd1], %r1;
    ld.u64 %rd4, [%rd3+8];           st.global.u64 [%rd1+8], %rd4;
    isspacep.param %p1, %rd3;
    isspacep.global %p2, %rd3;
    isspacep.param %p3, %rd1;
    selp.u32 %r2, 1, 0, %p1;
    selp.u32 %r3, 2, 0, %p2;
    or.b32 %r2, %r2, %r3;
    selp.u32 %r3, 4, 0, %p3;
    or.b32 %r2, %r2, %r3;
    st.global.u32 [%rd1+16], %r2;
    cvta.to.param.u64 %rd5, %rd3;
    sub.u64 %rd5, %rd5, %rd2;
    st.global.u64 [%rd1+24], %rd5;
    ld.param.u32 %r4, [bad];
    setp.ne.u32 %p1, %r4, 0;
    @%p1 st.u32 [%rd3], %r4;
    ret;
}
"#;
    let blob: Vec<u8> = (1..=16u8).collect();
    for backend in Backend::ALL {
        let file = SourceFile::new("gridconst.sm_80.ptx", ptx);
        let options = LowerOptions { block: Some([8, 1, 1]), ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
        let program = translate::build_program(&file, &options, &[backend], true).unwrap_or_else(|e| panic!("{}", e.render()));
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
        let out = ctx.alloc(32).unwrap();
        ctx.launch(&program, "gc", [1, 1, 1], &[&p, &out.to_le_bytes()], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let got: Vec<i32> = words(&ctx.read(out, 32).unwrap()).iter().map(|&w| w as i32).collect();
        assert_eq!(got, want, "{backend}: nvcc gridconst");

        let file = SourceFile::new("param_window.ptx", hand);
        let options = LowerOptions { block: Some([1, 1, 1]), ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
        let program = translate::build_program(&file, &options, &[backend], true).unwrap_or_else(|e| panic!("{}", e.render()));
        let out = ctx.alloc(32).unwrap();
        ctx.launch(&program, "k", [1, 1, 1], &[&out.to_le_bytes(), &blob, &0u32.to_le_bytes()], backend)
            .unwrap_or_else(|e| panic!("{backend}: {e}"));
        let got = ctx.read(out, 32).unwrap();
        assert_eq!(u32_at(&got, 0), u32::from_le_bytes([5, 6, 7, 8]), "{backend}: ld through cvta.param");
        assert_eq!(u64_at(&got, 8), u64::from_le_bytes([9, 10, 11, 12, 13, 14, 15, 16]), "{backend}: ld.u64 through cvta.param");
        assert_eq!(u32_at(&got, 16), 1, "{backend}: isspacep.param, .global, .param of a heap address");
        assert_eq!(u64_at(&got, 24), 0, "{backend}: cvta.to.param of cvta.param");
        let e = ctx
            .launch(&program, "k", [1, 1, 1], &[&out.to_le_bytes(), &blob, &1u32.to_le_bytes()], backend)
            .expect_err("a store through a parameter's generic address faults");
        assert!(e.to_string().contains("parameter access out of range"), "{backend}: {e}");
    }
}

/// Address initializers of `.global`/`.const` variables declared inside function bodies
/// (§5.4.4 applies to them as to module-scope ones): a name denotes the innermost declaration
/// visible where the initializer is (the body's own variables, a block's shadowing one, the
/// module's), in a kernel and in a device function, with `generic()`, offsets and `mask()`.
const BODY_ADDRESS_PTX: &str = r#"
.version 8.5
.target sm_80
.address_size 64
.global .align 8 .u32 arr[4] = {10, 20, 30, 40};

.func (.param .u32 r) f()
{
    .global .align 8 .u64 fp = arr+4;
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    ld.global.u64 %rd1, [fp];
    ld.u32 %r1, [%rd1];
    st.param.u32 [r], %r1;
    ret;
}

.visible .entry k(.param .u64 out)
{
    .const .align 4 .u32 tab[2] = {7, 8};
    .global .align 8 .u64 ptab = generic(tab)+4;
    .global .align 8 .u64 both[2] = {arr+8, tab};
    .global .align 8 .u8 bytes[8] = {0xFF(ptab), 0xFF00(ptab), 0xFF0000(ptab), 0xFF000000(ptab),
        0xFF00000000(ptab), 0xFF0000000000(ptab), 0xFF000000000000(ptab), 0xFF00000000000000(ptab)};
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.global.u64 %rd2, [ptab];
    ld.u32 %r1, [%rd2];
    st.global.u32 [%rd1], %r1;
    ld.global.u64 %rd2, [both];
    ld.u32 %r1, [%rd2];
    st.global.u32 [%rd1+4], %r1;
    ld.global.u64 %rd2, [both+8];
    ld.u32 %r1, [%rd2];
    st.global.u32 [%rd1+8], %r1;
    {
        .global .align 4 .u32 arr[2] = {100, 200};
        .global .align 8 .u64 inner = arr+4;
        ld.global.u64 %rd2, [inner];
        ld.u32 %r1, [%rd2];
        st.global.u32 [%rd1+12], %r1;
    }
    .global .align 8 .u64 outer = arr;
    ld.global.u64 %rd2, [outer];
    ld.u32 %r1, [%rd2];
    st.global.u32 [%rd1+16], %r1;
    {
        .param .b32 r;
        call.uni (r), f, ();
        ld.param.b32 %r1, [r];
    }
    st.global.u32 [%rd1+20], %r1;
    ld.global.u64 %rd3, [bytes];
    st.global.u64 [%rd1+24], %rd3;
    ret;
}
"#;

#[test]
fn address_initializers_inside_functions() {
    let Some(gpu) = gpu_or_skip() else { return };
    for (backend, inline_budget) in Backend::ALL.into_iter().flat_map(|b| [(b, None), (b, Some(0))]) {
        let file = SourceFile::new("body_address.ptx", BODY_ADDRESS_PTX);
        let options = LowerOptions { block: Some([1, 1, 1]), inline_budget, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
        let program = translate::build_program(&file, &options, &[backend], true).unwrap_or_else(|e| panic!("{}", e.render()));
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
        let out = ctx.alloc(32).unwrap();
        ctx.launch(&program, "k", [1, 1, 1], &[&out.to_le_bytes()], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let got = ctx.read(out, 32).unwrap();
        let base = ctx.globals_base(&program).unwrap();
        // tab[1]; arr[2]; tab[0]; the block's arr[1]; the module's arr[0] (the block's `arr` is
        // not visible after the block); f's `arr+4` is the module's arr[1].
        assert_eq!(words(&got[..24]), [8, 30, 7, 200, 10, 20], "{backend} (inline budget {inline_budget:?})");
        // bytes: the eight bytes of ptab's own address, low first.
        assert_eq!(u64_at(&got, 24), base + offset_of(&program, "k::ptab"), "{backend}: mask() of a body variable");
        let segment = ctx.read(DevicePtr(base), program.module().globals.init.len() as u64).unwrap();
        let field = |name: &str| u64_at(&segment, offset_of(&program, name) as usize);
        assert_eq!(field("k::ptab"), base + offset_of(&program, "k::tab") + 4, "{backend}");
        assert_eq!(field("k::inner"), base + offset_of(&program, "k::arr") + 4, "{backend}");
        assert_eq!(field("k::outer"), base + offset_of(&program, "arr"), "{backend}");
        assert_eq!(field("f::fp"), base + offset_of(&program, "arr") + 4, "{backend}");
    }
}

/// Kernel parameter addresses inside device functions: a kernel parameter's param-space
/// address passed to a device function reads the parameter through `ld.param::entry`
/// (§9.7.10.8: "operand a must be a kernel parameter address"), `cvta.param` gives its generic
/// address there too (§9.7.10.19) and `cvta.to.param` takes it back; and a device function
/// reads its own parameter through its address (`mov.u64 %rd, b; ld.param [%rd]`, default
/// `::func` there). Inlined and through the call stack.
#[test]
fn kernel_parameter_addresses_in_device_functions() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = r#"
.version 8.5
.target sm_80
.address_size 64
.func (.param .u32 r) getp(.param .u64 pa)
{
    .reg .b64 %rd<4>;
    .reg .b32 %r<4>;
    ld.param.u64 %rd1, [pa];
    ld.param::entry.u32 %r1, [%rd1+4];
    cvta.param.u64 %rd2, %rd1;
    ld.u32 %r2, [%rd2+8];
    cvta.to.param.u64 %rd3, %rd2;
    ld.param::entry.u32 %r3, [%rd3+12];
    mul.lo.u32 %r2, %r2, 3;
    mul.lo.u32 %r3, %r3, 5;
    add.u32 %r1, %r1, %r2;
    add.u32 %r1, %r1, %r3;
    st.param.u32 [r], %r1;
    ret;
}
.func (.param .u32 r) own(.param .u32 a, .param .u32 b)
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    mov.u64 %rd1, b;
    ld.param.u32 %r1, [%rd1];
    st.param.u32 [r], %r1;
    ret;
}
.visible .entry k(.param .u64 out, .param .align 8 .b8 blob[16])
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u64 %rd2, blob;
    {
        .param .u64 p0;
        .param .b32 r0;
        st.param.u64 [p0], %rd2;
        call.uni (r0), getp, (p0);
        ld.param.b32 %r1, [r0];
    }
    st.global.u32 [%rd1], %r1;
    {
        .param .b32 a0;
        .param .b32 b0;
        .param .b32 r1;
        st.param.b32 [a0], 5;
        st.param.b32 [b0], 77;
        call.uni (r1), own, (a0, b0);
        ld.param.b32 %r2, [r1];
    }
    st.global.u32 [%rd1+4], %r2;
    ret;
}
"#;
    let blob: Vec<u8> = (1..=16u8).map(|b| b.wrapping_mul(29)).collect();
    let w = |i: usize| u32::from_le_bytes(blob[i..i + 4].try_into().unwrap());
    let want = [w(4).wrapping_add(w(8).wrapping_mul(3)).wrapping_add(w(12).wrapping_mul(5)), 77];
    for (backend, inline_budget) in Backend::ALL.into_iter().flat_map(|b| [(b, None), (b, Some(0))]) {
        let file = SourceFile::new("param_fn.ptx", ptx);
        let options = LowerOptions { block: Some([1, 1, 1]), inline_budget, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
        let program = translate::build_program(&file, &options, &[backend], true).unwrap_or_else(|e| panic!("{}", e.render()));
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
        let out = ctx.alloc(8).unwrap();
        ctx.launch(&program, "k", [1, 1, 1], &[&out.to_le_bytes(), &blob], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert_eq!(words(&ctx.read(out, 8).unwrap()), want, "{backend} (inline budget {inline_budget:?})");
    }
}

/// Integer constant expressions have a type, .s64 or .u64 (§4.5.5, Table 6), which decides
/// division, remainder (always unsigned), right shifts (arithmetic only for a signed first
/// operand) and ordered comparisons; in instruction operands and in initializers alike.
/// Expected values are the spec's rules applied by hand.
#[test]
fn constant_expression_types() {
    let Some(_) = gpu_or_skip() else { return };
    let exprs: [(&str, u64); 12] = [
        // 0xffffffffffffffff does not fit .s64: unsigned, so an unsigned division.
        ("0xffffffffffffffff / 2", 0x7fff_ffff_ffff_ffff),
        ("-1 / 2", 0),
        ("-7 % 3", (-7i64 as u64) % 3),
        ("0x8000000000000000 >> 4", 0x0800_0000_0000_0000),
        ("-16 >> 2", -4i64 as u64),
        ("(.u64)-16 >> 2", 0x3fff_ffff_ffff_fffc),
        ("~0 >> 60", 15),
        ("-1U >> 63", 1),
        ("0xffffffffffffffff > 1", 1),
        ("-1 > 1", 0),
        ("(0 ? 1U : -1) >> 62", 3),
        ("(.s64)0x8000000000000000 >> 62", -2i64 as u64),
    ];
    let mut ptx = String::from(".version 8.5\n.target sm_80\n.address_size 64\n");
    for (i, (e, _)) in exprs.iter().enumerate() {
        ptx += &format!(".global .align 8 .u64 init{i} = {e};\n");
    }
    ptx += ".visible .entry k(.param .u64 out)\n{\n    .reg .b64 %rd<4>;\n    ld.param.u64 %rd1, [out];\n";
    for (i, (e, _)) in exprs.iter().enumerate() {
        ptx += &format!("    mov.u64 %rd2, {e};\n    st.global.u64 [%rd1+{}], %rd2;\n", 8 * i);
        ptx += &format!("    ld.global.u64 %rd3, [init{i}];\n    st.global.u64 [%rd1+{}], %rd3;\n", 8 * (i + exprs.len()));
    }
    ptx += "    ret;\n}\n";
    for backend in Backend::ALL {
        let (_, out, _, _) = launch(&ptx, "k", 1, &[16 * exprs.len()], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        for (i, (e, want)) in exprs.iter().enumerate() {
            assert_eq!(u64_at(&out[0], 8 * i), *want, "{backend}: operand `{e}`");
            assert_eq!(u64_at(&out[0], 8 * (i + exprs.len())), *want, "{backend}: initializer `{e}`");
        }
    }
}
