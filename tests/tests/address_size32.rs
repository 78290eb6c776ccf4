//! `.address_size 32` modules (PTX ISA §11.1.3) on both backends: 32-bit pointer parameters,
//! global, const, shared and local memory through 32-bit generic addresses (`cvta` both ways,
//! `isspacep`), 32-bit addresses in initializers (`.u32 p = g+8`, `generic()`, `mask()`),
//! atomics through 32-bit addresses; and clang-16's 32-bit OpenCL output (`tests/addr32`).
//!
//! The address map (`abi::SHARED_WINDOW_BASE_32`): a 32-bit global address is the heap byte
//! offset, i.e. the low 32 bits of the 64-bit device pointer, so the host passes pointers as
//! their low 32 bits. Expected values come from the kernels' semantics written down here.

use ptxcross::{translate, Backend, Context, ContextOptions, DevicePtr};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::launch::{bytes, gpu_or_skip, words};

/// Runs kernel `kernel` of `ptx` once over `grid` blocks of `block` threads; `args` are raw
/// parameter bytes, except that `Ptr(i)` passes buffer `i`'s 32-bit address. Returns the
/// buffers afterwards and their 64-bit device pointers.
enum Arg {
    Ptr(usize),
    Raw(Vec<u8>),
}

/// `None` when the device rightly refuses the kernel on `backend` (it flushes subnormals there).
fn run(ptx: &str, kernel: &str, grid: u32, block: u32, buffers: &[Vec<u8>], args: &[Arg], backend: Backend) -> Option<(Vec<Vec<u8>>, Vec<DevicePtr>)> {
    let gpu = gpu_or_skip().expect("checked by the caller");
    let file = SourceFile::new(format!("{kernel}.ptx"), ptx);
    let options = LowerOptions { block: Some([block, 1, 1]), kernel: Some(kernel.into()), ..Default::default() };
    let program = translate::build_program(&file, &options, &[backend], true).unwrap_or_else(|e| panic!("{}", e.render()));
    let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu) }).unwrap();
    let ptrs: Vec<DevicePtr> = buffers
        .iter()
        .map(|b| {
            let p = ctx.alloc(b.len() as u64).unwrap();
            ctx.write(p, b).unwrap();
            p
        })
        .collect();
    let raw: Vec<Vec<u8>> = args
        .iter()
        .map(|a| match a {
            Arg::Ptr(i) => (ptrs[*i].0 as u32).to_le_bytes().to_vec(),
            Arg::Raw(b) => b.clone(),
        })
        .collect();
    let refs: Vec<&[u8]> = raw.iter().map(Vec::as_slice).collect();
    match ctx.launch(&program, kernel, [grid, 1, 1], &refs, backend) {
        Ok(()) => {}
        Err(e @ ptxcross::Error::SubnormalsFlushed { .. }) => {
            eprintln!("{kernel}: skipped on {backend}: {e}");
            return None;
        }
        Err(e) => panic!("{backend} {kernel}: {e}"),
    }
    let out = buffers.iter().zip(&ptrs).map(|(b, &p)| ctx.read(p, b.len() as u64).unwrap()).collect();
    Some((out, ptrs))
}

const MEMORY_PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 32

.global .align 4 .u32 g[4] = {11, 22, 33, 44};
.global .u32 gp = g+8;
.global .u32 gg = generic(g)+12;
.const .align 4 .u32 c[2] = {5, 6};
.global .u32 cp = c+4;
.global .align 4 .u8 gb[4] = {0xFF(g+4), 0xFF00(g+4), 0xFF0000(g+4), 0xFF000000(g+4)};

.visible .entry k(.param .u32 out, .param .u32 inp)
{
    .shared .align 4 .u32 sh[8];
    .local .align 4 .u32 loc[4];
    .reg .pred %p<8>;
    .reg .b32 %r<40>;
    ld.param.u32 %r1, [out];
    ld.param.u32 %r2, [inp];
    // Global memory through 32-bit pointers, with offsets; generic through a global pointer.
    ld.global.u32 %r3, [%r2];
    ld.global.u32 %r4, [%r2+4];
    add.u32 %r5, %r3, %r4;
    st.global.u32 [%r1], %r5;
    ld.u32 %r6, [%r2+8];
    st.u32 [%r1+4], %r6;
    // Shared memory through its generic address, both ways.
    mov.u32 %r7, sh;
    cvta.shared.u32 %r8, %r7;
    st.u32 [%r8+12], %r3;
    ld.shared.u32 %r9, [sh+12];
    st.global.u32 [%r1+8], %r9;
    st.shared.u32 [sh+16], %r4;
    ld.u32 %r10, [%r8+16];
    st.global.u32 [%r1+12], %r10;
    cvta.to.shared.u32 %r11, %r8;
    sub.u32 %r11, %r11, %r7;
    st.global.u32 [%r1+16], %r11;
    // Local memory through its generic address.
    mov.u32 %r12, loc;
    cvta.local.u32 %r13, %r12;
    st.u32 [%r13+4], %r6;
    ld.local.u32 %r14, [loc+4];
    st.global.u32 [%r1+20], %r14;
    // isspacep on 32-bit generic addresses: shared, local, global, not shared, not global.
    isspacep.shared %p1, %r8;
    isspacep.local %p2, %r13;
    isspacep.global %p3, %r2;
    isspacep.shared %p4, %r2;
    isspacep.global %p5, %r13;
    selp.u32 %r15, 1, 0, %p1;
    selp.u32 %r16, 2, 0, %p2;
    or.b32 %r15, %r15, %r16;
    selp.u32 %r16, 4, 0, %p3;
    or.b32 %r15, %r15, %r16;
    selp.u32 %r16, 8, 0, %p4;
    or.b32 %r15, %r15, %r16;
    selp.u32 %r16, 16, 0, %p5;
    or.b32 %r15, %r15, %r16;
    st.global.u32 [%r1+24], %r15;
    // Addresses of variables, in registers and in initializers.
    mov.u32 %r17, g;
    ld.global.u32 %r18, [gp];
    sub.u32 %r19, %r18, %r17;
    st.global.u32 [%r1+28], %r19;
    ld.global.u32 %r20, [%r18];
    st.global.u32 [%r1+32], %r20;
    ld.global.u32 %r21, [gg];
    ld.u32 %r22, [%r21];
    st.global.u32 [%r1+36], %r22;
    ld.global.u32 %r23, [cp];
    ld.const.u32 %r24, [%r23];
    st.global.u32 [%r1+40], %r24;
    ld.global.u32 %r25, [gb];
    sub.u32 %r25, %r25, %r17;
    st.global.u32 [%r1+44], %r25;
    // The pointer itself, an atomic through it, and cvta.global (the identity).
    st.global.u32 [%r1+48], %r2;
    atom.global.add.u32 %r26, [%r2+12], 5;
    st.global.u32 [%r1+52], %r26;
    cvta.global.u32 %r27, %r2;
    ld.u32 %r28, [%r27+4];
    st.global.u32 [%r1+56], %r28;
    // isspacep.const: inside c, not in g.
    mov.u32 %r29, c;
    cvta.const.u32 %r29, %r29;
    add.u32 %r29, %r29, 4;
    isspacep.const %p6, %r29;
    isspacep.const %p7, %r17;
    selp.u32 %r30, 1, 0, %p6;
    selp.u32 %r31, 2, 0, %p7;
    or.b32 %r30, %r30, %r31;
    st.global.u32 [%r1+60], %r30;
    // A kernel parameter through its 32-bit generic address.
    mov.u32 %r32, inp;
    cvta.param.u32 %r33, %r32;
    ld.u32 %r34, [%r33];
    sub.u32 %r34, %r34, %r2;
    isspacep.param %p6, %r33;
    selp.u32 %r35, 1, 0, %p6;
    add.u32 %r34, %r34, %r35;
    st.global.u32 [%r1+64], %r34;
    ret;
}
"#;

#[test]
fn memory_through_32_bit_addresses() {
    let Some(_) = gpu_or_skip() else { return };
    let inp = [0x1234_5678u32, 0x0bad_f00d, 0xcafe_0001, 1000];
    for backend in Backend::ALL {
        let Some((out, ptrs)) = run(MEMORY_PTX, "k", 1, 1, &[vec![0; 68], bytes(&inp)], &[Arg::Ptr(0), Arg::Ptr(1)], backend) else { continue };
        let want = [
            inp[0].wrapping_add(inp[1]),
            inp[2],
            inp[0],
            inp[1],
            0,
            inp[2],
            0b00111,
            8,
            33,
            44,
            6,
            4,
            ptrs[1].0 as u32,
            inp[3],
            inp[1],
            1,
            1,
        ];
        assert_eq!(words(&out[0]), want, "{backend}: out");
        assert_eq!(words(&out[1]), [inp[0], inp[1], inp[2], inp[3] + 5], "{backend}: inp after the atomic");
    }
}

/// clang-16's 32-bit OpenCL kernel `mix32` (tests/addr32/mix32.cl) at -O2 and -O0.
#[test]
fn clang_32_bit_opencl_kernel() {
    let Some(_) = gpu_or_skip() else { return };
    let (grid, block, n) = (2u32, 64u32, 100usize);
    let total = (grid * block) as usize;
    let x: Vec<f32> = (0..total).map(|i| i as f32 * 0.37 - 11.0).collect();
    let y: Vec<f32> = (0..total).map(|i| 1.0 / (i as f32 + 0.5)).collect();
    let o: Vec<u32> = (0..total as u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let a = 1.75f32;
    // The CPU version of mix32 (both PTX files contract a*x+y into fma.rn.f32).
    let (lut, table) = ([3i32, 5, 7, 11], [100i32, 200, 300, 400]);
    let tp = 1usize;
    let mut want_y = y.clone();
    let mut want_o = o.clone();
    for i in 0..n {
        let t = i % block as usize;
        let tile = |k: usize| ((i - t + k) * 3) as i32;
        want_y[i] = a.mul_add(x[i], y[i]);
        want_o[i] = (tile(63 - t) + lut[i & 3] + table[tp + (i & 1)]).wrapping_add(o[i] as i32) as u32;
    }
    let f32s = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    for file in ["mix32.O2.ptx", "mix32.O0.ptx"] {
        let ptx = std::fs::read_to_string(format!("{}/addr32/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        for backend in Backend::ALL {
            let buffers = [f32s(&x), f32s(&y), bytes(&o)];
            let args = [Arg::Ptr(0), Arg::Ptr(1), Arg::Raw(a.to_le_bytes().to_vec()), Arg::Raw((n as u32).to_le_bytes().to_vec()), Arg::Ptr(2)];
            let Some((out, _)) = run(&ptx, "mix32", grid, block, &buffers, &args, backend) else { continue };
            let got_y: Vec<u32> = words(&out[1]);
            let want_y: Vec<u32> = want_y.iter().map(|f| f.to_bits()).collect();
            assert_eq!(got_y, want_y, "{file} {backend}: y");
            assert_eq!(words(&out[2]), want_o, "{file} {backend}: o");
        }
    }
}
