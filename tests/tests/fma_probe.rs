//! `fma.rn.f32` rounds once on every device: the exact emulation always, and the native op
//! exactly where the host's probe says the device fuses. The probe itself is checked against
//! reality on hard inputs (where an unfused multiply-add must differ), so the test holds on any
//! GPU without knowing which kind it runs on. `fma.rn.f64` the same, against the f64 probe
//! (`LowerOptions::native_fma` covers both formats, so the host needs both fused).

use ptxcross::translate;
use ptxcross::{Backend, Context, Gpu};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;

const N: usize = 256;

const PTX: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry fmak(.param .u64 out, .param .u64 in)
{
    .reg .b32 %r<3>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<7>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 12;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    ld.global.f32 %f2, [%rd4+4];
    ld.global.f32 %f3, [%rd4+8];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd6, %rd1, %rd5;
    st.global.f32 [%rd6], %f4;
    ret;
}";

fn inputs() -> Vec<[f32; 3]> {
    let mut v = Vec::new();
    let mut x = 0x2545_f491u32;
    for i in 0..N as u32 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        // a = 1 + k·2^-12 style values: their products need more than 24 bits.
        let a = f32::from_bits(0x3f80_0000 | ((i + 1) << 11) | (x & 0x7ff));
        let b = if i % 2 == 0 { a } else { f32::from_bits(0x3f80_0000 | (x >> 9)) };
        let c = -(a * b);
        v.push([a, b, c]);
    }
    v
}

/// `kernel` of `ptx` run once on `backend` over `input` (block `N`), its `out_bytes` of output;
/// translated as the host does on a device that flushes f32 subnormals (the exact mode,
/// `flushed_f32`); `None` where the device rightly refuses the kernel on `backend` (f64
/// subnormals flushed, and `fma.rn.f64` keeps them).
fn launch(gpu: &std::sync::Arc<Gpu>, backend: Backend, native: bool, name: &str, ptx: &str, input: &[u8], out_bytes: u64) -> Option<Vec<u8>> {
    let options = LowerOptions { native_fma: native, flushed_f32: gpu.flushes_f32(backend), ..Default::default() };
    launch_with(gpu, backend, options, name, ptx, input, out_bytes)
}

/// [`launch`] translated with `options` (block `N`).
fn launch_with(
    gpu: &std::sync::Arc<Gpu>,
    backend: Backend,
    options: LowerOptions,
    name: &str,
    ptx: &str,
    input: &[u8],
    out_bytes: u64,
) -> Option<Vec<u8>> {
    let file = SourceFile::new(name, ptx);
    let options = LowerOptions { block: Some([N as u32, 1, 1]), ..options };
    let module = translate::frontend(&file, &options).expect("translates");
    let program = translate::build_program_from_ir(name, module, &[backend], true).expect("emits and validates");
    if ptxcross_tests::launch::refused_for_subnormals(gpu, &program, backend) {
        return None;
    }
    let mut ctx = Context::new(ptxcross::ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) })
        .expect("context");
    let inp = ctx.alloc(input.len() as u64).unwrap();
    ctx.write(inp, input).unwrap();
    let out = ctx.alloc(out_bytes).unwrap();
    ctx.launch(&program, "fmak", [1, 1, 1], &[&out.to_le_bytes(), &inp.to_le_bytes()], backend).expect("launch");
    Some(ctx.read(out, out_bytes).unwrap())
}

/// The f32 kernel's results, `None` where it is refused (see [`launch`]).
fn run(gpu: &std::sync::Arc<Gpu>, backend: Backend, native: bool) -> Option<Vec<u32>> {
    let input: Vec<u8> = inputs().iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
    let out = launch(gpu, backend, native, "fma.ptx", PTX, &input, N as u64 * 4)?;
    Some(out.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

#[test]
fn fma_rounds_once_and_the_probe_tells_the_truth() {
    let Some(gpu) = ptxcross_tests::launch::gpu_or_skip() else { return };
    let exact: Vec<u32> = inputs().iter().map(|[a, b, c]| a.mul_add(*b, *c).to_bits()).collect();
    for backend in Backend::ALL {
        let Some(emulated) = run(&gpu, backend, false) else { continue };
        assert_eq!(emulated, exact, "{backend}: emulated fma.rn.f32 is not exact");
        if gpu.flushes_f32(backend) {
            // The exact mode for flushed subnormals decides how an fma runs there; the host
            // never uses the native one on such a device (`Gpu::native_fma_usable`).
            assert!(!gpu.native_fma_usable(backend), "{backend}: native fma used although f32 subnormals are flushed");
            continue;
        }
        let native = run(&gpu, backend, true).expect("refused like the emulation");
        if gpu.fma_is_fused(backend) {
            assert_eq!(native, exact, "{backend}: the probe said fused, the native fma is not exact");
        } else {
            assert_ne!(native, exact, "{backend}: the probe said not fused, but the native fma is exact");
        }
        eprintln!("{backend}: fma fused: {}", gpu.fma_is_fused(backend));
    }
}

const PTX64: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry fmak(.param .u64 out, .param .u64 in)
{
    .reg .b32 %r<3>;
    .reg .f64 %fd<5>;
    .reg .b64 %rd<7>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 24;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f64 %fd1, [%rd4];
    ld.global.f64 %fd2, [%rd4+8];
    ld.global.f64 %fd3, [%rd4+16];
    fma.rn.f64 %fd4, %fd1, %fd2, %fd3;
    mul.wide.u32 %rd5, %r1, 8;
    add.s64 %rd6, %rd1, %rd5;
    st.global.f64 [%rd6], %fd4;
    ret;
}";

/// f64 triples whose products need more than 53 bits, with c = −RN(a·b): a single rounding
/// leaves the product's exact error, an unfused multiply-add 0.
fn inputs64() -> Vec<[f64; 3]> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..N as u64)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = f64::from_bits(0x3ff0_0000_0000_0000 | ((i + 1) << 40) | (x & 0xff_ffff_ffff));
            let b = if i % 2 == 0 { a } else { f64::from_bits(0x3ff0_0000_0000_0000 | (x >> 12)) };
            [a, b, -(a * b)]
        })
        .collect()
}

/// The f64 kernel's results, `None` where it is refused (see [`launch`]).
fn run64(gpu: &std::sync::Arc<Gpu>, backend: Backend, native: bool) -> Option<Vec<u64>> {
    let input: Vec<u8> = inputs64().iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
    let out = launch(gpu, backend, native, "fma64.ptx", PTX64, &input, N as u64 * 8)?;
    Some(out.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect())
}

/// `fma.rn.f64` likewise: `native_fma` maps f64 `fma` to the native op too, so the host uses it
/// only where the f64 probe also says fused (`Gpu::native_fma_usable`); the f64 probe is checked
/// against reality here the same way.
#[test]
fn fma_f64_rounds_once_and_the_probe_tells_the_truth() {
    let Some(gpu) = ptxcross_tests::launch::gpu_or_skip() else { return };
    if !gpu.features().contains(wgpu::Features::SHADER_F64) {
        eprintln!("skipped: no f64 on this device");
        return;
    }
    let exact: Vec<u64> = inputs64().iter().map(|[a, b, c]| a.mul_add(*b, *c).to_bits()).collect();
    assert!(exact.iter().all(|&e| e != 0), "every case must expose the product's rounding error");
    for backend in Backend::ALL {
        let Some(emulated) = run64(&gpu, backend, false) else { continue };
        assert_eq!(emulated, exact, "{backend}: emulated fma.rn.f64 is not exact");
        // The native f64 fma is refused where f64 subnormals are flushed (the emulation, on
        // integers, is not).
        let Some(native) = run64(&gpu, backend, true) else { continue };
        if gpu.fma_f64_is_fused(backend) {
            assert_eq!(native, exact, "{backend}: the f64 probe said fused, the native fma is not exact");
        } else {
            assert_ne!(native, exact, "{backend}: the f64 probe said not fused, but the native fma is exact");
        }
        if gpu.native_fma_usable(backend) {
            assert!(gpu.fma_f64_is_fused(backend), "{backend}: native fma used although f64 fma is not fused");
        }
        eprintln!("{backend}: f64 fma fused: {}", gpu.fma_f64_is_fused(backend));
    }
}

/// `m · 2^e` as an f32 (exact for the small `m` used here).
fn scaled(m: i64, e: i32) -> f32 {
    let x = m as f64 * 2f64.powi(e);
    assert_eq!(x as f32 as f64, x, "{m}·2^{e} is not an f32");
    x as f32
}

/// Triples whose product a·b is exact in f32 (8-bit significands; a subnormal product only where
/// it is representable), so that an unfused multiply-add (lavapipe's) gives the fused result:
/// what differs is then only subnormal handling. A quarter each: normal operands and results;
/// a subnormal result of normal factors; a subnormal addend; a subnormal factor.
fn guard_inputs() -> Vec<[f32; 3]> {
    let mut x = 0x9e37_79b9u32;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let mut v = Vec::new();
    for i in 0..N as i64 {
        let (r1, r2, r3) = (next() as i64, next() as i64, next());
        let sign = |r: i64| if r & 1 == 0 { 1 } else { -1 };
        let (m1, m2) = (128 + (r1 >> 1) % 128, sign(r2) * (128 + (r2 >> 1) % 128));
        let [a, b, c] = match i % 4 {
            0 => {
                let (a, b) = (scaled(m1, -(i as i32 % 10)), scaled(m2, -7));
                let c = scaled(sign(r3 as i64) * (r3 as i64 >> 8), -20 - (i as i32 % 8));
                [a, b, c]
            }
            1 => {
                // a·b = m1·m2·2^s with s in [-149, -143]: subnormal and exact.
                let s = -149 + (i as i32 / 4) % 7;
                let ea = -60 - (i as i32 / 4) % 20;
                let (a, b) = (scaled(m1, ea), scaled(m2, s - ea));
                let c = match (i / 4) % 4 {
                    0 => 0.0,
                    1 => f32::from_bits(r3 & 0x8000_03ff),
                    2 => scaled(-sign(r2), -126),
                    _ => -f32::from_bits(r3 & 0x0000_0fff),
                };
                [a, b, c]
            }
            2 => {
                let s = -136 + (i as i32 / 4) % 14;
                let (a, b) = (scaled(m1, -60), scaled(m2, s + 60));
                [a, b, f32::from_bits(r3 & 0x807f_ffff)]
            }
            _ => {
                let a = f32::from_bits((r3 & 0x8000_0000) | (r1 as u32 & 0xff) | 1);
                let b = scaled(m2, (i as i32 / 4) % 40);
                let p = a as f64 * b as f64;
                let c = match (i / 4) % 3 {
                    0 => 0.0,
                    1 => -(p as f32) + f32::from_bits(r3 & 0x3ff),
                    _ => scaled(sign(r1), -100),
                };
                [a, b, c]
            }
        };
        assert_eq!((a as f64 * b as f64) as f32 as f64, a as f64 * b as f64, "case {i}: inexact product");
        v.push([a, b, c]);
    }
    v
}

/// The f32 kernel over [`guard_inputs`] translated with `options`.
fn run_guard(gpu: &std::sync::Arc<Gpu>, backend: Backend, options: LowerOptions) -> Option<Vec<u32>> {
    let input: Vec<u8> = guard_inputs().iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
    let out = launch_with(gpu, backend, options, "fma_guard.ptx", PTX, &input, N as u64 * 4)?;
    Some(out.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

/// `LowerOptions::native_fma_guarded` (the native fma behind the exact-f32 mode's guard, for
/// NVIDIA's Vulkan driver, whose fused f32 fma flushes subnormal results even under
/// `DenormPreserve 32`), checked on any device with NVIDIA's behaviour simulated: the fma alone
/// flushes its operands and result (`simulate_flushed_fma`). The guarded translation gives
/// PTX's bits, the bare native fma does not (the simulation bites), and so does the guarded one
/// in the exact-f32 mode under full simulated flushing (NVIDIA's WGSL path). Also the host's
/// decision on this device: a device whose fma is not fused (lavapipe) keeps the emulation.
#[test]
fn guarded_native_fma_is_exact_where_the_native_one_flushes() {
    let Some(gpu) = ptxcross_tests::launch::gpu_or_skip() else { return };
    let exact: Vec<u32> = guard_inputs().iter().map(|[a, b, c]| a.mul_add(*b, *c).to_bits()).collect();
    let subnormal_results = exact.iter().filter(|&&e| e & 0x7f80_0000 == 0 && e & 0x7fff_ffff != 0).count();
    assert!(subnormal_results >= N / 8, "only {subnormal_results} subnormal results");
    let base = LowerOptions { native_fma: false, native_fma_guarded: true, flushed_f32: false, ..Default::default() };
    for backend in Backend::ALL {
        let mode = gpu.fma_mode(backend);
        if !gpu.fma_is_fused(backend) {
            assert_eq!(mode, ptxcross::runtime::FmaMode::Emulated, "{backend}: an unfused fma must be emulated");
            assert!(!gpu.lower_options(&[backend]).native_fma_guarded, "{backend}: guard chosen for an unfused fma");
        }
        eprintln!("{backend}: fma mode {mode:?}");
        let flushing = gpu.flushes_f32(backend);
        let cases = [
            ("guarded", LowerOptions { flushed_f32: flushing, ..base.clone() }, true),
            ("guarded, fma flushing", LowerOptions { simulate_flushed_fma: true, ..base.clone() }, true),
            (
                "guarded, exact-f32 mode, everything flushing",
                LowerOptions { flushed_f32: true, simulate_flushed_f32: true, ..base.clone() },
                true,
            ),
            (
                "bare native, fma flushing",
                LowerOptions { native_fma: true, native_fma_guarded: false, simulate_flushed_fma: true, ..base.clone() },
                false,
            ),
        ];
        for (what, options, should_match) in cases {
            if flushing && !options.flushed_f32 {
                continue; // refused on such a device
            }
            let Some(got) = run_guard(&gpu, backend, options) else { continue };
            let wrong: Vec<String> = (0..N)
                .filter(|&i| got[i] != exact[i])
                .map(|i| format!("{:?} → {:#010x}, expected {:#010x}", guard_inputs()[i], got[i], exact[i]))
                .collect();
            if should_match {
                assert!(wrong.is_empty(), "{backend}, {what}: {} wrong:\n{}", wrong.len(), wrong.join("\n"));
            } else {
                assert!(wrong.len() >= subnormal_results / 2, "{backend}, {what}: the simulation does not bite ({} wrong)", wrong.len());
            }
        }
    }
}
