//! `atom`/`red` end to end on both backends (spec §9.7.14.5–6): every operation and type on
//! global, shared and generic addresses against a CPU reference written from the spec's
//! Semantics (inc/dec wrap, cas, float add of NaN, ±0, subnormals), and a stress test with
//! many CTAs contending on the same counters, checked exactly.

mod simt_util;
use ptxcross::{Backend, Program};
use simt_util::*;

const N: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Space {
    Global,
    Shared,
    GenericGlobal,
    GenericShared,
    /// Shared, in a kernel that also has a 64-bit shared atomic whose result is used: its
    /// shared memory is doublewords (`lower`'s `shared64`), so 32- and 16-bit operations on
    /// it act on halves of them (neighbouring threads' slots share a doubleword).
    SharedWide,
}

/// The `.sem.scope` qualifiers the kernels of [`every_atomic_operation_matches_the_spec_semantics`]
/// take in turn (§9.7.13.5: `atom{.sem}{.scope}`, `red{.sem}{.scope}`; none: `.relaxed.gpu`),
/// so every operation, type and space meets several: they order memory and never change an
/// atomic's result. `SEMS` on both backends; `ORDERED_SEMS` on SPIR-V only (they add fences
/// outside barriers, which WGSL cannot express: that backend refuses such kernels). `red`
/// has no `.acquire`: it takes `.release` there.
const SEMS: [&str; 4] = ["", ".relaxed.gpu", ".relaxed.sys", ".relaxed.cta"];
const ORDERED_SEMS: [&str; 6] = [".acquire.cta", ".release.gpu", ".acq_rel.sys", ".acquire.gpu", ".release.cta", ".acq_rel.cta"];

/// One kernel per (instruction, space): thread i stores a[i] in its own slot, runs
/// `atom<sem>.<op>` with b[i] (and c[i]), and writes out[2i] = final slot value, out[2i+1] = d.
fn kernel(name: &str, inst: &str, w: u32, space: Space, sem: &str) -> String {
    let (bits, reg) = (w * 8, if w == 8 { "%rd" } else if w == 2 { "%h" } else { "%r" });
    let cas = inst.starts_with("cas.");
    let c_operand = if cas { format!(", {reg}12") } else { String::new() };
    let (addr, atom_space, ld_space) = match space {
        Space::Global => ("%rd6", ".global", ".global"),
        Space::GenericGlobal => ("%rd6", "", ".global"),
        Space::Shared | Space::SharedWide => ("%rd9", ".shared", ".shared"),
        Space::GenericShared => ("%rd15", "", ".shared"),
    };
    let wide = if space == Space::SharedWide {
        format!("    mov.u64 %rd11, {};
    atom.shared.exch.b64 %rd14, [sm+{}], %rd11;
    add.s64 %rd14, %rd14, 1;
", 0x1234, w as usize * N)
    } else {
        String::new()
    };
    let slot_init = match space {
        Space::Global | Space::GenericGlobal => format!("    st.global.b{bits} [%rd6], {reg}10;\n"),
        _ => format!("    st.shared.b{bits} [%rd9], {reg}10;\n"),
    };
    let (op, ty) = inst.rsplit_once('.').unwrap();
    format!(
        "
.visible .entry {name}(.param .u64 inp, .param .u64 out)
{{
    .reg .b16 %h<16>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .shared .align 8 .b8 sm[{smem}];
{wide}
    ld.param.u64 %rd1, [inp];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, {w3};
    add.s64 %rd4, %rd1, %rd3;
    ld.global.b{bits} {reg}10, [%rd4];
    ld.global.b{bits} {reg}11, [%rd4+{w}];
    ld.global.b{bits} {reg}12, [%rd4+{w2}];
    mul.wide.u32 %rd5, %r1, {w2};
    add.s64 %rd6, %rd2, %rd5;
    mul.wide.u32 %rd7, %r1, {w};
    mov.u64 %rd8, sm;
    add.s64 %rd9, %rd8, %rd7;
    cvta.shared.u64 %rd15, %rd9;
{slot_init}    {atom}
    ld{ld_space}.b{bits} {reg}14, [{ld_addr}];
    st.global.b{bits} [%rd6], {reg}14;
    st.global.b{bits} [%rd6+{w}], {reg}13;
    ret;
}}
",
        smem = w as usize * N + 8,
        w2 = 2 * w,
        w3 = 3 * w,
        // `red.*` (kernels named `red_*`): no result; d is then a copy of a.
        atom = if name.starts_with("red") {
            let sem = sem.replace(".acquire.", ".release.").replace(".acq_rel.", ".release.");
            format!("red{sem}{atom_space}.{op}.{ty} [{addr}], {reg}11;\n    mov.b{bits} {reg}13, {reg}10;")
        } else {
            format!("atom{sem}{atom_space}.{op}.{ty} {reg}13, [{addr}], {reg}11{c_operand};")
        },
        ld_addr = if matches!(space, Space::Global | Space::GenericGlobal) { "%rd6" } else { "%rd9" },
    )
}

fn f32_nan(x: u32) -> bool {
    f32::from_bits(x).is_nan()
}
fn f64_nan(x: u64) -> bool {
    f64::from_bits(x).is_nan()
}

/// A half format: (exponent bits, mantissa bits).
type Half = (u32, u32);
const F16: Half = (5, 10);
const BF16: Half = (8, 7);

/// The exact value of half `h` (NaN for NaNs).
fn half_value(h: u64, (eb, mb): Half) -> f64 {
    let (sign, e, m) = ((h >> (eb + mb)) & 1, (h >> mb) & ((1 << eb) - 1), h & ((1 << mb) - 1));
    let bias = (1i32 << (eb - 1)) - 1;
    let mag = if e == (1 << eb) - 1 {
        if m == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else if e == 0 {
        m as f64 * 2f64.powi(1 - bias - mb as i32)
    } else {
        (m as f64 / (1u64 << mb) as f64 + 1.0) * 2f64.powi(e as i32 - bias)
    };
    if sign == 1 {
        -mag
    } else {
        mag
    }
}

/// `x` rounded to nearest even in the half format (IEEE 754: overflow to infinity, subnormals
/// kept); NaN gives a NaN.
fn half_round(x: f64, (eb, mb): Half) -> u64 {
    let sign = if x.is_sign_negative() { 1u64 << (eb + mb) } else { 0 };
    let inf = ((1u64 << eb) - 1) << mb;
    if x.is_nan() {
        return inf | 1 << (mb - 1);
    }
    let a = x.abs();
    if a.is_infinite() {
        return sign | inf;
    }
    let bias = (1i32 << (eb - 1)) - 1;
    let emin = 1 - bias;
    // The exponent of the ulp at a's binade (subnormals: the smallest normal's).
    let e = if a == 0.0 { emin } else { (a.log2().floor() as i32).max(emin) };
    // log2 may be off by one near powers of two: fix so that 2^e <= a < 2^(e+1) (or subnormal).
    let e = if a >= 2f64.powi(e + 1) { e + 1 } else if e > emin && a < 2f64.powi(e) { e - 1 } else { e };
    let ulp = 2f64.powi(e - mb as i32);
    let q = (a / ulp).round_ties_even(); // exact: a is a dyadic rational of few bits
    let v = q * ulp;
    if v >= 2f64.powi(bias + 1) {
        return sign | inf;
    }
    // Re-encode v (q may have carried into the next binade).
    let bits = if v < 2f64.powi(emin) {
        (v / 2f64.powi(emin - mb as i32)) as u64
    } else {
        let e2 = if v >= 2f64.powi(e + 1) { e + 1 } else { e };
        let m = (v / 2f64.powi(e2 - mb as i32)) as u64 - (1 << mb);
        ((e2 + bias) as u64) << mb | m
    };
    sign | bits
}

/// `add.noftz` of halves: each 16-bit lane of `a` plus the same lane of `b`, rounded once.
fn half_add(a: u64, b: u64, fmt: Half, lanes: u32) -> u64 {
    (0..lanes)
        .map(|l| {
            let (x, y) = ((a >> (16 * l)) & 0xffff, (b >> (16 * l)) & 0xffff);
            half_round(half_value(x, fmt) + half_value(y, fmt), fmt) << (16 * l)
        })
        .fold(0, |acc, v| acc | v)
}

fn half_is_nan(h: u64, (eb, mb): Half) -> bool {
    (h >> mb) & ((1 << eb) - 1) == (1 << eb) - 1 && h & ((1 << mb) - 1) != 0
}
/// Sign-preserving flush of an f32 subnormal.
fn ftz(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// The new memory value per the spec's Semantics, `None`: result is NaN (any NaN is fine).
fn reference(inst: &str, space: Space, a: u64, b: u64, c: u64) -> Option<u64> {
    let global = matches!(space, Space::Global | Space::GenericGlobal);
    let (a32, b32) = (a as u32, b as u32);
    Some(match inst {
        "add.u32" => a32.wrapping_add(b32) as u64,
        "and.b32" => (a32 & b32) as u64,
        "or.b32" => (a32 | b32) as u64,
        "xor.b32" => (a32 ^ b32) as u64,
        "exch.b32" => b32 as u64,
        "min.u32" => a32.min(b32) as u64,
        "max.u32" => a32.max(b32) as u64,
        "min.s32" => (a32 as i32).min(b32 as i32) as u32 as u64,
        "max.s32" => (a32 as i32).max(b32 as i32) as u32 as u64,
        "cas.b32" => (if a32 == b32 { c as u32 } else { a32 }) as u64,
        // inc(r, s) = (r >= s) ? 0 : r+1;  dec(r, s) = (r==0 || r > s) ? s : r-1
        "inc.u32" => (if a32 >= b32 { 0 } else { a32 + 1 }) as u64,
        "dec.u32" => (if a32 == 0 || a32 > b32 { b32 } else { a32 - 1 }) as u64,
        "add.f32" => {
            let (x, y) = if global { (ftz(a32), ftz(b32)) } else { (a32, b32) };
            let r = (f32::from_bits(x) + f32::from_bits(y)).to_bits();
            if f32_nan(r) {
                return None;
            }
            (if global { ftz(r) } else { r }) as u64
        }
        "cas.b16" => (if a as u16 == b as u16 { c as u16 } else { a as u16 }) as u64,
        "add.u64" => a.wrapping_add(b),
        "and.b64" => a & b,
        "or.b64" => a | b,
        "xor.b64" => a ^ b,
        "exch.b64" => b,
        "min.u64" => a.min(b),
        "max.u64" => a.max(b),
        "min.s64" => (a as i64).min(b as i64) as u64,
        "max.s64" => (a as i64).max(b as i64) as u64,
        "cas.b64" => {
            if a == b {
                c
            } else {
                a
            }
        }
        "add.noftz.f16" => half_add(a, b, F16, 1),
        "add.noftz.bf16" => half_add(a, b, BF16, 1),
        "add.noftz.f16x2" => half_add(a, b, F16, 2),
        "add.noftz.bf16x2" => half_add(a, b, BF16, 2),
        "add.f64" => {
            let r = f64::from_bits(a) + f64::from_bits(b);
            if r.is_nan() {
                return None;
            }
            r.to_bits()
        }
        _ => unreachable!("{inst}"),
    })
}

/// Deterministic edge-case inputs (a, b, c) for thread i.
fn inputs(inst: &str, i: usize) -> (u64, u64, u64) {
    let mut x = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(i as u64 + 1);
    x ^= x >> 29;
    let e32: [u32; 12] = [0, 1, 2, 5, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff, 6, 4, 100, 3];
    let e64: [u64; 8] = [0, 1, 0xffff_ffff, 0x1_0000_0000, u64::MAX, 1 << 63, (1 << 63) - 1, 0x1234_5678_9abc_def0];
    let f32s: [u32; 16] = [
        0x7fc0_0000, 0xffc0_0001, 0x8000_0000, 0x0000_0000, 0x7f80_0000, 0xff80_0000, 0x0000_0001, 0x807f_ffff,
        0x3f80_0000, 0x3380_0000, 0x7f7f_ffff, 0x0040_0000, 0xbf80_0000, 0x4b80_0000, 0x3f80_0001, 0x0080_0000,
    ];
    let f64s: [u64; 10] = [
        0x7ff8_0000_0000_0000, 0x8000_0000_0000_0000, 0, 0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000, 1,
        0x800f_ffff_ffff_ffff, 0x3ff0_0000_0000_0000, 0x3ca0_0000_0000_0000, 0x7fef_ffff_ffff_ffff,
    ];
    let f16s: [u64; 16] = [
        0x0000, 0x8000, 0x3c00, 0x0001, 0x03ff, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x3c01, 0x1400, 0xbc00, 0x0400,
        0x8001, 0x7bfe, 0x0200,
    ];
    let bf16s: [u64; 16] = [
        0x0000, 0x8000, 0x3f80, 0x0001, 0x007f, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x3f81, 0x3b80, 0xbf80, 0x0080,
        0x8001, 0x7f7e, 0x4f80,
    ];
    let pick32 = |k: usize| e32[k % e32.len()] as u64;
    let pick64 = |k: usize| e64[k % e64.len()];
    let (a, b) = match inst {
        "add.f32" => (f32s[i % 16] as u64, f32s[(i / 16 + i * 7) % 16] as u64),
        "add.f64" => (f64s[i % 10], f64s[(i / 10 + i * 3) % 10]),
        "add.noftz.f16" => (f16s[i % 16], f16s[(i / 16 + i * 7) % 16]),
        "add.noftz.bf16" => (bf16s[i % 16], bf16s[(i / 16 + i * 7) % 16]),
        "add.noftz.f16x2" => (f16s[i % 16] | f16s[(i + 5) % 16] << 16, f16s[(i * 7) % 16] | f16s[(i * 3 + 1) % 16] << 16),
        "add.noftz.bf16x2" => (bf16s[i % 16] | bf16s[(i + 5) % 16] << 16, bf16s[(i * 7) % 16] | bf16s[(i * 3 + 1) % 16] << 16),
        "cas.b16" => ((i % 3) as u64 * 0x8001, if i.is_multiple_of(2) { (i % 3) as u64 * 0x8001 } else { 0xffff }),
        _ if inst.ends_with("64") => (pick64(i), pick64(i / 8 + i * 5)),
        _ => (pick32(i), pick32(i / 12 + i * 5)),
    };
    // cas: compare equal for even threads.
    let b = if inst.starts_with("cas") && i.is_multiple_of(2) { a } else { b };
    let c = if inst == "cas.b16" { x & 0xffff } else if inst.ends_with("64") { x } else { x & 0xffff_ffff };
    (a, b, c)
}

/// Launches the one-CTA kernel `name` of [`kernel`] with thread i's (a, b, c) from
/// `inputs(inst, i)` and checks it ([`check`]).
#[allow(clippy::too_many_arguments)]
fn run_case(run: &mut Run, program: &Program, name: &str, inst: &str, w: u32, space: Space, backend: Backend, inputs: fn(&str, usize) -> (u64, u64, u64)) -> Result<(), String> {
    let mut inp = Vec::new();
    for i in 0..N {
        let (a, b, c) = inputs(inst, i);
        for v in [a, b, c] {
            inp.extend_from_slice(&v.to_le_bytes()[..w as usize]);
        }
    }
    let inp = run.buffer(&inp);
    let out = run.zeros(2 * N * w as usize);
    run.launch(program, name, [1, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
    check(inst, space, w, &run.read(out, 2 * N * w as usize), backend, inputs)
}

/// The final slot values and returned old values of a [`kernel`] whose thread i ran on
/// `inputs(inst, i)`, against the spec's Semantics ([`reference`]).
fn check(inst: &str, space: Space, w: u32, out: &[u8], backend: Backend, inputs: fn(&str, usize) -> (u64, u64, u64)) -> Result<(), String> {
    let mask = if w == 8 { u64::MAX } else { (1u64 << (w * 8)) - 1 };
    for i in 0..N {
        let (a, b, c) = inputs(inst, i);
        let get = |k: usize| {
            let mut v = [0u8; 8];
            v[..w as usize].copy_from_slice(&out[(2 * i + k) * w as usize..][..w as usize]);
            u64::from_le_bytes(v)
        };
        let (fin, old) = (get(0), get(1));
        let ctx = format!("{inst} {space:?} {backend} thread {i}: a={a:#x} b={b:#x} c={c:#x}");
        if old != a & mask {
            return Err(format!("{ctx}: returned {old:#x}, expected {:#x}", a & mask));
        }
        let half = match inst {
            "add.noftz.f16" | "add.noftz.f16x2" => Some(F16),
            "add.noftz.bf16" | "add.noftz.bf16x2" => Some(BF16),
            _ => None,
        };
        let ok = match (reference(inst, space, a, b, c), half) {
            // Halves: lane by lane, any NaN where the sum is NaN.
            (Some(want), Some(fmt)) => (0..w / 2).all(|l| {
                let (g, r) = ((fin >> (16 * l)) & 0xffff, (want >> (16 * l)) & 0xffff);
                g == r || (half_is_nan(g, fmt) && half_is_nan(r, fmt))
            }),
            (Some(want), None) => fin == want & mask,
            (None, _) if w == 4 => f32_nan(fin as u32),
            (None, _) => f64_nan(fin),
        };
        if !ok {
            return Err(format!("{ctx}: new value {fin:#x}, expected {:?}", reference(inst, space, a, b, c)));
        }
    }
    Ok(())
}

const INSTS: [(&str, u32); 31] = [
    ("add.u32", 4),
    ("and.b32", 4),
    ("or.b32", 4),
    ("xor.b32", 4),
    ("exch.b32", 4),
    ("min.u32", 4),
    ("max.u32", 4),
    ("min.s32", 4),
    ("max.s32", 4),
    ("cas.b32", 4),
    ("inc.u32", 4),
    ("dec.u32", 4),
    ("add.f32", 4),
    ("cas.b16", 2),
    ("add.u64", 8),
    ("and.b64", 8),
    ("or.b64", 8),
    ("xor.b64", 8),
    ("exch.b64", 8),
    ("min.u64", 8),
    ("max.u64", 8),
    ("min.s64", 8),
    ("max.s64", 8),
    ("cas.b64", 8),
    ("add.f64", 8),
    ("add.noftz.f16", 2),
    ("add.noftz.bf16", 2),
    ("add.noftz.f16x2", 4),
    ("add.noftz.bf16x2", 4),
    // Without a result: the split word pairs (every device), `red` and `atom … _`.
    ("red.add.u64", 8),
    ("red.xor.b64", 8),
];

#[test]
fn every_atomic_operation_matches_the_spec_semantics() {
    let Some(gpu) = gpu() else { return };
    let spaces = [Space::Global, Space::Shared, Space::GenericGlobal, Space::GenericShared, Space::SharedWide];
    let mut ptx = String::from(".version 8.5\n.target sm_80\n.address_size 64\n");
    let mut ordered = ptx.clone();
    let (mut cases, mut ordered_cases) = (Vec::new(), Vec::new());
    for (k, &(inst, w)) in INSTS.iter().enumerate() {
        let (red, inst) = match inst.strip_prefix("red.") {
            Some(i) => (true, i),
            None => (false, inst),
        };
        for (s, &space) in spaces.iter().enumerate() {
            // Generic addresses share the dispatch code: a few operations of each kind suffice.
            let generic = matches!(space, Space::GenericGlobal | Space::GenericShared);
            if generic && !["add.u32", "add.f32", "cas.b16", "add.u64", "cas.b64", "add.f64", "add.noftz.f16"].contains(&inst) {
                continue;
            }
            // 64-bit operations make a shared kernel wide by themselves.
            if space == Space::SharedWide && w == 8 {
                continue;
            }
            let name = format!("{}_{k}_{s}", if red { "red" } else { "atom" });
            ptx.push_str(&kernel(&name, inst, w, space, SEMS[(k + s) % SEMS.len()]));
            cases.push((name.clone(), inst, w, space));
            if matches!(space, Space::Global | Space::Shared) {
                ordered.push_str(&kernel(&name, inst, w, space, ORDERED_SEMS[(k + s) % ORDERED_SEMS.len()]));
                ordered_cases.push((name, inst, w, space));
            }
        }
    }
    let program = program("atomics.ptx", &ptx, [N as u32, 1, 1]);
    let (ordered, wgsl) = spirv_program("atomics_ordered.ptx", &ordered, [N as u32, 1, 1]);
    assert!(wgsl.contains("memory fence outside a barrier"), "{wgsl}");
    let mut failures = Vec::new();
    let runs = Backend::ALL.iter().map(|&b| (&program, &cases, b, SEMS.as_slice())).chain([(&ordered, &ordered_cases, Backend::Spirv, ORDERED_SEMS.as_slice())]);
    for (program, cases, backend, sems) in runs {
        if ptxcross_tests::launch::refused_for_subnormals(&gpu, program, backend) {
            continue;
        }
        let mut run = Run::new(&gpu);
        for (name, inst, w, space) in cases {
            if let Err(e) = run_case(&mut run, program, name, inst, *w, *space, backend, inputs) {
                failures.push(format!("{e} (kernel {name}, one of {sems:?})"));
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Float atomic adds of signed zeros and NaNs (§9.7.14.5: `.add` "rounds to nearest even";
/// IEEE 754 §6.3: x + (−x) and −0 + +0 are +0 under it, −0 + −0 is −0; a NaN operand gives a
/// NaN), for every float type on global, shared and generic addresses, `atom` and `red`:
/// thread i adds the i-th pair of [`zero_and_nan_inputs`] to its own slot. The table of
/// [`every_atomic_operation_matches_the_spec_semantics`] reaches −0 + −0 only through a
/// flushed global f32 subnormal, and −0 + +0 not at all.
#[test]
fn float_atomic_adds_of_signed_zeros_and_nans() {
    let Some(gpu) = gpu() else { return };
    let insts: [(&str, u32); 6] =
        [("add.f32", 4), ("add.f64", 8), ("add.noftz.f16", 2), ("add.noftz.bf16", 2), ("add.noftz.f16x2", 4), ("add.noftz.bf16x2", 4)];
    let spaces = [Space::Global, Space::Shared, Space::GenericGlobal, Space::GenericShared, Space::SharedWide];
    let mut ptx = String::from(".version 8.5\n.target sm_80\n.address_size 64\n");
    let mut cases = Vec::new();
    for (k, &(inst, w)) in insts.iter().enumerate() {
        for (s, &space) in spaces.iter().enumerate() {
            if space == Space::SharedWide && w == 8 {
                continue;
            }
            // `red` (no result) on the plain spaces of the 32- and 64-bit forms.
            let reds: &[bool] = if k < 2 && s < 2 { &[false, true] } else { &[false] };
            for &red in reds {
                let name = format!("{}_zero_{k}_{s}", if red { "red" } else { "atom" });
                ptx.push_str(&kernel(&name, inst, w, space, ""));
                cases.push((name, inst, w, space));
            }
        }
    }
    let program = program("atomic_zeros.ptx", &ptx, [N as u32, 1, 1]);
    let mut failures = Vec::new();
    for backend in Backend::ALL {
        if ptxcross_tests::launch::refused_for_subnormals(&gpu, &program, backend) {
            continue;
        }
        let mut run = Run::new(&gpu);
        for (name, inst, w, space) in &cases {
            if let Err(e) = run_case(&mut run, &program, name, inst, *w, *space, backend, zero_and_nan_inputs) {
                failures.push(format!("{e} (kernel {name})"));
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// (a, b, 0) for thread i of [`float_atomic_adds_of_signed_zeros_and_nans`]: signed zeros
/// against each other, exact cancellations (normal and subnormal), NaNs of both signs with
/// −0, and −0 beside infinities, a normal and a subnormal. Packed halves pair entry i with
/// entry i + 5.
fn zero_and_nan_inputs(inst: &str, i: usize) -> (u64, u64, u64) {
    // Per format: −0, +0, 1, −1, NaN, −NaN (payload), 1.5, −min subnormal, +min subnormal,
    // +inf, −inf, min normal, −min normal.
    let [nz, pz, one, mone, nan, mnan, x15, msub, sub, inf, minf, norm, mnorm]: [u64; 13] = match inst {
        "add.f32" => [0x8000_0000, 0, 0x3f80_0000, 0xbf80_0000, 0x7fc0_0000, 0xffc0_0001, 0x3fc0_0000, 0x8000_0001, 1, 0x7f80_0000, 0xff80_0000, 0x0080_0000, 0x8080_0000],
        "add.f64" => [1 << 63, 0, 0x3ff0 << 48, 0xbff0 << 48, 0x7ff8 << 48, 0xfff8_0000_0000_0001, 0x3ff8 << 48, (1 << 63) | 1, 1, 0x7ff0 << 48, 0xfff0 << 48, 0x0010 << 48, 0x8010 << 48],
        "add.noftz.f16" | "add.noftz.f16x2" => [0x8000, 0, 0x3c00, 0xbc00, 0x7e00, 0xfe01, 0x3e00, 0x8001, 1, 0x7c00, 0xfc00, 0x0400, 0x8400],
        _ => [0x8000, 0, 0x3f80, 0xbf80, 0x7fc0, 0xffc1, 0x3fc0, 0x8001, 1, 0x7f80, 0xff80, 0x0080, 0x8080],
    };
    let pairs = [
        (nz, nz),
        (nz, pz),
        (pz, nz),
        (one, mone),
        (mone, one),
        (nan, nz),
        (nz, mnan),
        (nz, x15),
        (nz, msub),
        (sub, msub),
        (msub, sub),
        (inf, minf),
        (minf, nz),
        (nz, inf),
        (norm, mnorm),
        (mnorm, nz),
    ];
    let pair = |k: usize| pairs[k % pairs.len()];
    let (a, b) = if inst.ends_with("x2") {
        let ((a0, b0), (a1, b1)) = (pair(i), pair(i + 5));
        (a0 | a1 << 16, b0 | b1 << 16)
    } else {
        pair(i)
    };
    (a, b, 0)
}

/// The `fence`/`membar` forms and strong accesses of §9.7.13.4 and §9.7.9.8/9.7.9.10 that
/// `fences_and_release_acquire_hand_off_results_across_ctas` (nvcc/clang: `membar.gl`,
/// `ld.acquire`, `st.release`, `atom.acq_rel`) does not reach, end to end: the
/// threadFenceReduction pattern, each thread storing its value with `STORE`, then `FENCE`, then
/// taking a ticket with `atom{SEM}.add`; the thread with the last ticket `FENCE`s again and sums
/// every stored value with `LOAD` (§8.9: the fences and the morally strong ticket chain order
/// each store before the last thread's loads). 4 CTAs of 64; the sum of 3·in[i] + 1 (32-bit),
/// or of in[i]·(2^32 + 1) (64-bit). SPIR-V; WGSL must refuse each by name (no fence outside a
/// barrier). On lavapipe (coherent CPU caches) weaker code would pass too: this shows the
/// forms translate and run right, not that their ordering is needed.
#[test]
fn fence_and_strong_access_forms_hand_off_values_across_ctas() {
    let Some(gpu) = gpu() else { return };
    // (store, fence, atomic's .sem.scope, load, width in bytes)
    let forms: [(&str, &str, &str, &str, u32); 8] = [
        ("st.relaxed.gpu.global", "fence.acq_rel.gpu;", "", "ld.relaxed.gpu.global", 4),
        ("st.relaxed.sys.global", "fence.sc.sys;", "", "ld.relaxed.sys.global", 4),
        ("st.volatile.global", "membar.sys;", "", "ld.volatile.global", 4),
        ("st.global", "fence.sc.gpu;", "", "ld.global", 4),
        ("st.global", "fence.acq_rel.sys;", ".relaxed.sys", "ld.relaxed.sys.global", 4),
        ("st.global", "fence.acq_rel.gpu;", ".relaxed.gpu", "ld.acquire.gpu.global", 4),
        ("st.release.sys.global", "", ".acq_rel.sys", "ld.global", 4),
        ("st.relaxed.gpu.global", "fence.sc.gpu;", ".relaxed.gpu", "ld.relaxed.gpu.global", 8),
    ];
    let (block, grid) = (64usize, 4usize);
    let total = block * grid;
    let input: Vec<u32> = (0..total as u32).map(|i| i.wrapping_mul(0x9e37_79b9) >> 3).collect();
    let mut failures = Vec::new();
    for (k, &(store, fence, sem, load, w)) in forms.iter().enumerate() {
        let name = format!("handoff_{k}");
        let (reg, bits, value, sum) = if w == 8 {
            ("%rd", 64, "cvt.u64.u32 %rd10, %r7;\n    shl.b64 %rd11, %rd10, 32;\n    or.b64 %rd11, %rd11, %rd10;", "add.s64 %rd13, %rd13, %rd12;")
        } else {
            ("%r", 32, "mad.lo.s32 %r11, %r7, 3, 1;", "add.s32 %r13, %r13, %r12;")
        };
        let ptx = format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n\
.visible .entry {name}(.param .u64 inp, .param .u64 part, .param .u64 ticket, .param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [inp];
    ld.param.u64 %rd2, [part];
    ld.param.u64 %rd3, [ticket];
    ld.param.u64 %rd4, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %nctaid.x;
    mad.lo.s32 %r5, %r2, %r3, %r1;
    mul.lo.s32 %r6, %r3, %r4;
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd6, %rd1, %rd5;
    ld.global.u32 %r7, [%rd6];
    {value}
    mul.wide.u32 %rd7, %r5, {w};
    add.s64 %rd7, %rd2, %rd7;
    {store}.u{bits} [%rd7], {reg}11;
    {fence}
    atom{sem}.global.add.u32 %r8, [%rd3], 1;
    sub.s32 %r9, %r6, 1;
    setp.ne.u32 %p1, %r8, %r9;
    @%p1 bra DONE;
    {fence}
    mov.u32 %r10, 0;
    mov.b{bits} {reg}13, 0;
LOOP:
    mul.wide.u32 %rd8, %r10, {w};
    add.s64 %rd9, %rd2, %rd8;
    {load}.u{bits} {reg}12, [%rd9];
    {sum}
    add.s32 %r10, %r10, 1;
    setp.lt.u32 %p2, %r10, %r6;
    @%p2 bra LOOP;
    st.global.u{bits} [%rd4], {reg}13;
DONE:
    ret;
}}
"
        );
        let (program, wgsl) = spirv_program(&format!("{name}.ptx"), &ptx, [block as u32, 1, 1]);
        if !wgsl.contains("memory fence outside a barrier") {
            failures.push(format!("{store} / {fence} / atom{sem} / {load}: WGSL's refusal does not say why: {wgsl}"));
        }
        let want: u64 = if w == 8 {
            input.iter().fold(0u64, |a, &x| a.wrapping_add(x as u64 * 0x1_0000_0001))
        } else {
            input.iter().fold(0u32, |a, &x| a.wrapping_add(x.wrapping_mul(3).wrapping_add(1))) as u64
        };
        let mut run = Run::new(&gpu);
        let inp = run.buffer(&u32s(&input));
        let (part, ticket, out) = (run.zeros(total * w as usize), run.zeros(4), run.zeros(8));
        let a = [inp, part, ticket, out].map(|p| p.to_le_bytes());
        let args: Vec<&[u8]> = a.iter().map(|x| &x[..]).collect();
        run.launch(&program, &name, [grid as u32, 1, 1], &args, Backend::Spirv);
        let got = run.read_u64(out, 1)[0] & if w == 8 { u64::MAX } else { 0xffff_ffff };
        if got != want {
            failures.push(format!("{store} / {fence} / atom{sem} / {load}: sum {got:#x}, expected {want:#x}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A fence in a loop that one thread (5) of a 32-thread CTA runs `n` times: it sums inp[0..n]
/// into out[0], with a marker stored before the loop, the trip count after it and a counter
/// its `atom` form adds to. Every form that makes a fence: `fence.acq_rel.gpu`, `fence.sc.gpu`,
/// `membar.gl`, `ld.acquire.gpu` (fence after the load), `atom.acq_rel.gpu`
/// (fences around it); n = 24, 32, 100. lavapipe of Mesa 22.3.6 abandoned the thread at the
/// fences (SPIR-V: marker stored, nothing after the loop) before the host's probe made such
/// drivers get fences as sink-word atomics (`Gpu::fences_lose_threads`, docs/simt.md
/// "Fences on lavapipe"). SPIR-V; WGSL refuses such fences.
///   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test simt_atomics a_device_fence
#[test]
fn a_device_fence_in_a_loop_one_thread_runs() {
    let Some(gpu) = gpu() else { return };
    // (fence before the add, the load, an atomic in the loop)
    let forms: [(&str, &str, &str); 5] = [
        ("fence.acq_rel.gpu;", "ld.global.u32", ""),
        ("fence.sc.gpu;", "ld.global.u32", ""),
        ("membar.gl;", "ld.global.u32", ""),
        ("", "ld.acquire.gpu.global.u32", ""),
        ("", "ld.global.u32", "atom.acq_rel.gpu.global.add.u32 %r14, [%rd4+12], 1;"),
    ];
    let input: Vec<u32> = (1..=100).collect();
    let mut failures = Vec::new();
    for (fence, load, atom) in forms {
        for n in [24u32, 32, 100] {
            let ptx = format!(
                "
.version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 inp, .param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [inp];
    ld.param.u64 %rd4, [out];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 5;
    @%p1 bra DONE;
    st.global.u32 [%rd4+4], 0xdead;
    mov.u32 %r10, 0;
    mov.u32 %r13, 0;
LOOP:
    mul.wide.u32 %rd8, %r10, 4;
    add.s64 %rd9, %rd1, %rd8;
    {load} %r12, [%rd9];
    {fence}
    {atom}
    add.s32 %r13, %r13, %r12;
    add.s32 %r10, %r10, 1;
    setp.lt.u32 %p2, %r10, {n};
    @%p2 bra LOOP;
    st.global.u32 [%rd4], %r13;
    st.global.u32 [%rd4+8], %r10;
DONE:
    ret;
}}
"
            );
            let (program, _) = spirv_program("fence_loop.ptx", &ptx, [32, 1, 1]);
            let mut run = Run::new(&gpu);
            let inp = run.buffer(&u32s(&input));
            let out = run.zeros(16);
            run.launch(&program, "k", [1, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], Backend::Spirv);
            let got = run.read_u32(out, 4);
            // Sum of 1..=n, the marker, the trip count, the atomic's count.
            let want = [n * (n + 1) / 2, 0xdead, n, if atom.is_empty() { 0 } else { n }];
            if got != want {
                failures.push(format!("{fence}{load} {atom} n={n}: {got:?}, expected {want:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const STRESS_PTX: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry stress(.param .u64 counters, .param .u64 tickets32, .param .u64 tickets64, .param .u64 per_cta)
{
    .reg .pred %p;
    .reg .b32 %r<16>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<24>;
    .shared .align 8 .b8 sm[16];
    ld.param.u64 %rd1, [counters];
    ld.param.u64 %rd2, [tickets32];
    ld.param.u64 %rd3, [tickets64];
    ld.param.u64 %rd4, [per_cta];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    setp.ne.s32 %p, %r1, 0;
    @%p bra SKIP_INIT;
    mov.u64 %rd20, 0;
    st.shared.u64 [sm], %rd20;
    st.shared.u32 [sm+8], 0;
SKIP_INIT:
    bar.sync 0;
    // 32-bit tickets: every value 0..N-1 exactly once.
    atom.global.add.u32 %r5, [%rd1], 1;
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r5;
    // A 64-bit add whose result is unused (nvcc's unused atomicAdd), carrying out of the low
    // word on every step.
    atom.global.add.u64 %rd7, [%rd1+8], 4294967297;
    // Wrapping increment and decrement.
    atom.global.inc.u32 %r6, [%rd1+16], 99;
    red.global.dec.u32 [%rd1+20], 6;
    // Float add of exact integers (order-independent) and a 64-bit signed max.
    mov.f32 %f1, 0f3F800000;
    red.global.add.f32 [%rd1+24], %f1;
    sub.s32 %r9, %r4, 8000;
    red.global.max.s32 [%rd1+32], %r9;
    red.global.min.s32 [%rd1+40], %r9;
    // Shared-memory counters of this CTA, 64- and 32-bit.
    atom.shared.add.u64 %rd12, [sm], 3;
    atom.shared.inc.u32 %r7, [sm+8], 1000000;
    bar.sync 0;
    @%p bra DONE;
    ld.shared.u64 %rd13, [sm];
    ld.shared.u32 %r8, [sm+8];
    mul.wide.u32 %rd14, %r2, 16;
    add.s64 %rd15, %rd4, %rd14;
    st.global.u64 [%rd15], %rd13;
    st.global.u32 [%rd15+8], %r8;
DONE:
    ret;
}
";

#[test]
fn many_ctas_contending_on_the_same_counters_count_exactly() {
    let Some(gpu) = gpu() else { return };
    const CTAS: usize = 64;
    const BLOCK: usize = 256;
    const T: usize = CTAS * BLOCK;
    let program = program("stress.ptx", STRESS_PTX, [BLOCK as u32, 1, 1]);
    for backend in Backend::ALL {
        if ptxcross_tests::launch::refused_for_subnormals(&gpu, &program, backend) {
            continue;
        }
        let mut run = Run::new(&gpu);
        // [0] u32 tickets, [1] u64 tickets, [2] inc | dec (both from 0), [3] f32 sum,
        // [4] s32 max (from MIN), [5] s32 min (from MAX).
        let mut init = vec![0u64; 6];
        init[4] = i32::MIN as u32 as u64;
        init[5] = i32::MAX as u64;
        let counters = run.buffer(&u64s(&init));
        let t32 = run.zeros(T * 4);
        let t64 = run.zeros(8);
        let per_cta = run.zeros(CTAS * 16);
        let args = [counters.to_le_bytes(), t32.to_le_bytes(), t64.to_le_bytes(), per_cta.to_le_bytes()];
        let args: Vec<&[u8]> = args.iter().map(|a| &a[..]).collect();
        run.launch(&program, "stress", [CTAS as u32, 1, 1], &args, backend);
        let c = run.read_u32(counters, 12);
        assert_eq!(c[0] as usize, T, "{backend}: 32-bit counter");
        assert_eq!(c[2] as u64 | (c[3] as u64) << 32, T as u64 * 0x1_0000_0001, "{backend}: 64-bit counter");
        // T increments of inc(r, 99) from 0: T mod 100; T decrements of dec(r, 6) from 0: the
        // sequence 0 → 6 → 5 … → 0 has period 7.
        assert_eq!(c[4] as usize, T % 100, "{backend}: inc wrap");
        assert_eq!(c[5] as usize, (7 - T % 7) % 7, "{backend}: dec wrap");
        assert_eq!(f32::from_bits(c[6]), T as f32, "{backend}: float add");
        assert_eq!(c[8] as i32, T as i32 - 1 - 8000, "{backend}: signed max");
        assert_eq!(c[10] as i32, -8000, "{backend}: signed min");
        let mut tickets = run.read_u32(t32, T);
        tickets.sort_unstable();
        assert!(tickets.iter().enumerate().all(|(i, &t)| t as usize == i), "{backend}: 32-bit tickets not a permutation");
        let per = run.read_u32(per_cta, CTAS * 4);
        for k in 0..CTAS {
            assert_eq!(per[4 * k] as u64 | (per[4 * k + 1] as u64) << 32, 3 * BLOCK as u64, "{backend}: CTA {k} shared u64");
            assert_eq!(per[4 * k + 2] as usize, BLOCK, "{backend}: CTA {k} shared inc");
        }
    }
}

const STRESS64_PTX: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry stress64(.param .u64 out, .param .u64 per_cta)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .f64 %fd<4>;
    .reg .b64 %rd<32>;
    // [0] u64 ticket, [8] u64 stack head, [16] u64 exch slot, [24] f64 sum, [32] u32 inc,
    // [36] u32 add, [40] u32 leader, [44] u32 add.
    .shared .align 8 .b8 sm[48];
    // The stack's links: next[t] for thread t.
    .shared .align 8 .b8 next[2048];
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [per_cta];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra SKIP_INIT;
    // Tickets start below 2^32: the low half carries into the high half midway.
    mov.u64 %rd20, 4294967168;
    st.shared.u64 [sm], %rd20;
    mov.u64 %rd20, 0;
    st.shared.u64 [sm+8], %rd20;
    st.shared.u64 [sm+16], %rd20;
    st.shared.u64 [sm+24], %rd20;
    st.shared.u32 [sm+32], 0;
    st.shared.u32 [sm+36], 0;
    st.shared.u64 [sm+40], %rd20;
SKIP_INIT:
    bar.sync 0;
    atom.shared.add.u64 %rd5, [sm], 1;
    // Node value of thread t: (t + 1) * 0x1_0000_0001 (both halves non-zero).
    cvt.u64.u32 %rd6, %r1;
    add.u64 %rd6, %rd6, 1;
    mul.lo.u64 %rd7, %rd6, 4294967297;
    // Push onto a lock-free stack: link to the head seen, CAS the head from it to this node.
    mul.wide.u32 %rd8, %r1, 8;
    mov.u64 %rd9, next;
    add.u64 %rd10, %rd9, %rd8;
    ld.shared.u64 %rd11, [sm+8];
RETRY:
    st.shared.u64 [%rd10], %rd11;
    atom.shared.cas.b64 %rd12, [sm+8], %rd11, %rd7;
    setp.ne.u64 %p2, %rd12, %rd11;
    mov.u64 %rd11, %rd12;
    @%p2 bra RETRY;
    atom.shared.exch.b64 %rd13, [sm+16], %rd7;
    // f64 add of (t + 1) / 4: exact, so every order gives the same sums.
    cvt.rn.f64.u32 %fd1, %r1;
    add.f64 %fd1, %fd1, 0d3FF0000000000000;
    mul.f64 %fd1, %fd1, 0d3FD0000000000000;
    atom.shared.add.f64 %fd2, [sm+24], %fd1;
    // 32-bit operations on halves of the doublewords.
    atom.shared.inc.u32 %r5, [sm+32], 1000000;
    atom.shared.add.u32 %r6, [sm+36], 3;
    // Every thread stores its id + 1 to one word (CUDA's racy leader election: one of them
    // must be left) while the other half of its doubleword is added to.
    add.u32 %r7, %r1, 1;
    st.shared.u32 [sm+40], %r7;
    atom.shared.add.u32 %r8, [sm+44], 5;
    bar.sync 0;
    // out[t] = ticket, exch old, f64 old, inc old | add old << 32, next[t].
    mul.wide.u32 %rd14, %r4, 40;
    add.s64 %rd15, %rd1, %rd14;
    st.global.u64 [%rd15], %rd5;
    st.global.u64 [%rd15+8], %rd13;
    st.global.f64 [%rd15+16], %fd2;
    st.global.u32 [%rd15+24], %r5;
    st.global.u32 [%rd15+28], %r6;
    ld.shared.u64 %rd16, [%rd10];
    st.global.u64 [%rd15+32], %rd16;
    @%p1 bra DONE;
    mul.wide.u32 %rd17, %r2, 48;
    add.s64 %rd18, %rd2, %rd17;
    ld.shared.v2.u64 {%rd21, %rd22}, [sm];
    ld.shared.v2.u64 {%rd23, %rd24}, [sm+16];
    ld.shared.v2.u64 {%rd25, %rd26}, [sm+32];
    st.global.v2.u64 [%rd18], {%rd21, %rd22};
    st.global.v2.u64 [%rd18+16], {%rd23, %rd24};
    st.global.v2.u64 [%rd18+32], {%rd25, %rd26};
DONE:
    ret;
}
";

/// 64-bit atomics on shared memory whose results are used, contended by a whole CTA: every
/// thread's `atom.shared.add.u64` of 1 returns a distinct ticket (crossing 2^32), a lock-free
/// stack pushed with `atom.shared.cas.b64` links every thread exactly once, the old values of
/// `exch.b64` and `add.f64` form one chain (each old value is the one before plus the
/// operand), 32-bit atomics on halves of the same doublewords count exactly, and racing
/// 32-bit stores to one word leave one of the stored values.
#[test]
fn contended_shared_64_bit_atomics_form_chains() {
    let Some(gpu) = gpu() else { return };
    const CTAS: usize = 16;
    const BLOCK: usize = 256;
    const T: usize = CTAS * BLOCK;
    const START: u64 = 0xffff_ff80;
    let node = |t: usize| (t as u64 + 1) * 0x1_0000_0001;
    let program = program("stress64.ptx", STRESS64_PTX, [BLOCK as u32, 1, 1]);
    for backend in Backend::ALL {
        if ptxcross_tests::launch::refused_for_subnormals(&gpu, &program, backend) {
            continue;
        }
        let mut run = Run::new(&gpu);
        let out = run.zeros(T * 40);
        let per_cta = run.zeros(CTAS * 48);
        run.launch(&program, "stress64", [CTAS as u32, 1, 1], &[&out.to_le_bytes(), &per_cta.to_le_bytes()], backend);
        let out = run.read_u64(out, T * 5);
        let per = run.read_u64(per_cta, CTAS * 6);
        for k in 0..CTAS {
            let ctx = format!("{backend} CTA {k}");
            let rec = |t: usize| &out[5 * (k * BLOCK + t)..][..5];
            let fin = &per[6 * k..][..6];
            // Tickets: a permutation of START..START+BLOCK.
            let mut tickets: Vec<u64> = (0..BLOCK).map(|t| rec(t)[0]).collect();
            tickets.sort_unstable();
            assert!(tickets.iter().enumerate().all(|(i, &v)| v == START + i as u64), "{ctx}: tickets {tickets:x?}");
            assert_eq!(fin[0], START + BLOCK as u64, "{ctx}: final ticket");
            // The stack: from the head, every node once, ending at 0.
            let mut seen = vec![false; BLOCK];
            let mut at = fin[1];
            for _ in 0..BLOCK {
                let t = (at / 0x1_0000_0001) as usize;
                assert!(at.is_multiple_of(0x1_0000_0001) && (1..=BLOCK).contains(&t) && !seen[t - 1], "{ctx}: bad link {at:#x}");
                seen[t - 1] = true;
                at = rec(t - 1)[4];
            }
            assert_eq!(at, 0, "{ctx}: the stack does not end after {BLOCK} nodes");
            // exch: the old values chain 0 → node(a) → node(b) … → the final value.
            let mut by_old: std::collections::HashMap<u64, u64> = (0..BLOCK).map(|t| (rec(t)[1], node(t))).collect();
            assert_eq!(by_old.len(), BLOCK, "{ctx}: exch returned a value twice");
            let mut at = 0;
            for _ in 0..BLOCK {
                at = by_old.remove(&at).unwrap_or_else(|| panic!("{ctx}: exch chain breaks at {at:#x}"));
            }
            assert_eq!(at, fin[2], "{ctx}: exch final value");
            // add.f64: sorted by old value, each old is the previous old plus its operand.
            let mut sums: Vec<(f64, f64)> = (0..BLOCK).map(|t| (f64::from_bits(rec(t)[2]), (t as f64 + 1.0) / 4.0)).collect();
            sums.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut acc = 0.0f64;
            for &(old, x) in &sums {
                assert_eq!(old.to_bits(), acc.to_bits(), "{ctx}: f64 chain");
                acc += x;
            }
            assert_eq!(fin[3], acc.to_bits(), "{ctx}: f64 sum");
            // 32-bit inc and add on the halves of one doubleword.
            let mut inc: Vec<u64> = (0..BLOCK).map(|t| rec(t)[3] & 0xffff_ffff).collect();
            let mut add: Vec<u64> = (0..BLOCK).map(|t| rec(t)[3] >> 32).collect();
            inc.sort_unstable();
            add.sort_unstable();
            assert!(inc.iter().enumerate().all(|(i, &v)| v == i as u64), "{ctx}: inc olds");
            assert!(add.iter().enumerate().all(|(i, &v)| v == 3 * i as u64), "{ctx}: add olds");
            assert_eq!(fin[4], BLOCK as u64 | (3 * BLOCK as u64) << 32, "{ctx}: inc | add");
            let leader = fin[5] & 0xffff_ffff;
            assert!((1..=BLOCK as u64).contains(&leader), "{ctx}: the racing stores left {leader:#x}, which no thread stored");
            assert_eq!(fin[5] >> 32, 5 * BLOCK as u64, "{ctx}: add beside the racing stores");
        }
    }
}

/// Half adds without `.noftz` are refused, and 64-bit atomics whose result is used (on shared
/// memory too) on a target without 64-bit integers (the `webgpu` profile's `split_int64`),
/// with the place.
#[test]
fn atomics_without_a_sound_translation_are_refused() {
    let no_int64 = "not supported yet: a 64-bit atomic whose old value is used (or an f64 atomic add), on a target without 64-bit integers";
    let cases = [
        ("atom.shared.min.s64 %rd3, [%rd1], %rd2;", no_int64, true),
        ("atom.shared.add.f64 %fd1, [%rd1], %fd1;", no_int64, true),
        ("atom.shared.add.u64 %rd3, [%rd1], %rd2;", no_int64, true),
        ("atom.add.u64 %rd3, [%rd1], %rd2;", no_int64, true),
        ("atom.global.add.f16 %h1, [%rd1], %h1;", "not supported yet: `atom.global.add.f16`", false),
    ];
    for (inst, want, split_int64) in cases {
        let ptx = format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n    .reg .b64 %rd<5>;\n    .reg .f64 %fd<2>;\n    .reg .b16 %h<2>;\n    .shared .align 8 .b8 sm[16];\n    mov.u64 %rd1, sm;\n    mov.u64 %rd2, 7;\n    {inst}\n    ld.param.u64 %rd1, [p];\n    st.global.u64 [%rd1], %rd3;\n    st.global.f64 [%rd1], %fd1;\n    st.global.b16 [%rd1], %h1;\n    ret;\n}}\n"
        );
        let options = ptxcross_lower::LowerOptions { split_int64, ..Default::default() };
        let file = ptxcross_frontend::SourceFile::new("atom64.ptx", ptx);
        let err = ptxcross::translate::frontend(&file, &options).expect_err(inst);
        let text = err.render();
        // The int64 refusal names the kernel (line 4); the others the instruction (line 12).
        let line = if split_int64 { "atom64.ptx:4:" } else { "atom64.ptx:12:" };
        assert!(text.contains(want) && text.contains(line), "{inst}: {text}");
    }
}

/// The vector forms (§9.7.14.5 "Atomic operation with vector type", sm_90): thread i's slot
/// holds the vector a[i], `atom.<op>.vN.<type>` adds/mins/maxes b[i] element by element; out
/// holds the slot afterwards and the old vector. Each element must equal the scalar form's
/// semantics (f32 add: global flushing; halves: one rounding; min/max: §9.7.4 min/max).
const VECTOR_INSTS: [(&str, &str, usize); 14] = [
    ("add", "f32", 2),
    ("add", "f32", 4),
    ("add.noftz", "f16", 8),
    ("min.noftz", "f16", 2),
    ("max.noftz", "f16", 4),
    ("add.noftz", "bf16", 4),
    ("min.noftz", "bf16", 8),
    ("max.noftz", "bf16", 2),
    ("add.noftz", "f16x2", 2),
    ("min.noftz", "f16x2", 4),
    ("max.noftz", "bf16x2", 2),
    ("add.noftz", "bf16x2", 4),
    // Every op of each packed type (§9.7.14.5's table: .add, .min, .max on .f16x2/.bf16x2).
    ("max.noftz", "f16x2", 4),
    ("min.noftz", "bf16x2", 2),
];

fn vector_kernel(name: &str, op: &str, ty: &str, n: usize, generic: bool, red: bool) -> String {
    let w = if ty == "f16" || ty == "bf16" { 2 } else { 4 };
    let bits = w * 8;
    let reg = if w == 2 { "%h" } else { "%r" };
    let list = |base: usize| (0..n).map(|i| format!("{reg}{}", base + i)).collect::<Vec<_>>().join(", ");
    let mut body = String::new();
    for i in 0..n {
        body.push_str(&format!("    ld.global.b{bits} {reg}{}, [%rd4+{}];\n", i, i * w));
        body.push_str(&format!("    ld.global.b{bits} {reg}{}, [%rd4+{}];\n", 8 + i, (n + i) * w));
        body.push_str(&format!("    st.global.b{bits} [%rd6+{}], {reg}{};\n", i * w, i));
    }
    let space = if generic { "" } else { ".global" };
    if red {
        body.push_str(&format!("    red{space}.{op}.v{n}.{ty} [%rd6], {{{}}};\n", list(8)));
    } else {
        body.push_str(&format!("    atom{space}.{op}.v{n}.{ty} {{{}}}, [%rd6], {{{}}};\n", list(16), list(8)));
    }
    for i in 0..n {
        body.push_str(&format!("    ld.global.b{bits} {reg}{}, [%rd6+{}];\n", 24 + i, i * w));
        body.push_str(&format!("    st.global.b{bits} [%rd6+{}], {reg}{};\n", i * w, 24 + i));
        if !red {
            body.push_str(&format!("    st.global.b{bits} [%rd6+{}], {reg}{};\n", (n + i) * w, 16 + i));
        }
    }
    format!(
        "
.visible .entry {name}(.param .u64 inp, .param .u64 out)
{{
    .reg .b16 %h<32>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [inp];
    ld.param.u64 %rd2, [out];
    mov.u32 %r31, %tid.x;
    mul.wide.u32 %rd3, %r31, {two_s};
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd6, %rd2, %rd3;
{body}    ret;
}}
",
        two_s = 2 * n * w
    )
}

/// Element `e` (16 or 32 bits) of thread `i`'s a or b vector: edge values of the type.
fn vector_input(ty: &str, i: usize, e: usize, second: bool) -> u64 {
    let k = i * 13 + e * 5 + if second { 7 + i / 3 } else { 0 };
    match ty {
        "f32" => inputs("add.f32", k).0,
        "f16" => inputs("add.noftz.f16", k).0,
        "bf16" => inputs("add.noftz.bf16", k).0,
        "f16x2" => inputs("add.noftz.f16x2", k).0,
        _ => inputs("add.noftz.bf16x2", k).0,
    }
}

#[test]
fn vector_atomics_act_element_by_element() {
    use ptxcross_tests::ptx_ref::half::{min_max, Fmt};
    use ptxcross_tests::sweep::Expect;
    let Some(gpu) = gpu() else { return };
    let mut ptx = String::from(".version 8.5\n.target sm_90\n.address_size 64\n");
    let mut cases = Vec::new();
    for (k, &(op, ty, n)) in VECTOR_INSTS.iter().enumerate() {
        for (variant, (generic, red)) in [(false, false), (true, false), (false, true)].into_iter().enumerate() {
            if variant > 0 && k % 3 != 0 {
                continue;
            }
            let name = format!("vec_{k}_{variant}");
            ptx.push_str(&vector_kernel(&name, op, ty, n, generic, red));
            cases.push((name, op, ty, n, red));
        }
    }
    let program = program("vector_atomics.ptx", &ptx, [N as u32, 1, 1]);
    let mut failures = Vec::new();
    for backend in Backend::ALL {
        if ptxcross_tests::launch::refused_for_subnormals(&gpu, &program, backend) {
            continue;
        }
        let mut run = Run::new(&gpu);
        for (name, op, ty, n, red) in &cases {
            let w = if *ty == "f16" || *ty == "bf16" { 2 } else { 4 };
            let mut inp = Vec::new();
            for i in 0..N {
                for second in [false, true] {
                    for e in 0..*n {
                        inp.extend_from_slice(&vector_input(ty, i, e, second).to_le_bytes()[..w]);
                    }
                }
            }
            let inp = run.buffer(&inp);
            let out = run.zeros(2 * N * n * w);
            run.launch(&program, name, [1, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
            let got = run.read(out, 2 * N * n * w);
            let word = |i: usize, k: usize| {
                let mut v = [0u8; 8];
                v[..w].copy_from_slice(&got[(i * 2 * n + k) * w..][..w]);
                u64::from_le_bytes(v)
            };
            for i in 0..N {
                for e in 0..*n {
                    let (a, b) = (vector_input(ty, i, e, false), vector_input(ty, i, e, true));
                    let (fin, old) = (word(i, e), word(i, n + e));
                    let ctx = format!("{op}.v{n}.{ty} {backend} thread {i} element {e}: a={a:#x} b={b:#x}");
                    if !red && old != a {
                        failures.push(format!("{ctx}: old {old:#x}"));
                    }
                    let lanes = if ty.ends_with("x2") { 2 } else { 1 };
                    let ok = match (op.split('.').next().unwrap(), ty.starts_with("bf") as usize) {
                        ("add", _) if *ty == "f32" => match reference("add.f32", Space::Global, a, b, 0) {
                            Some(want) => fin == want,
                            None => f32_nan(fin as u32),
                        },
                        ("add", bf) => {
                            let fmt = [F16, BF16][bf];
                            let want = half_add(a, b, fmt, lanes);
                            (0..lanes).all(|l| {
                                let (g, r) = ((fin >> (16 * l)) & 0xffff, (want >> (16 * l)) & 0xffff);
                                g == r || (half_is_nan(g, fmt) && half_is_nan(r, fmt))
                            })
                        }
                        (mm, bf) => (0..lanes).all(|l| {
                            let (x, y, g) = ((a >> (16 * l)) as u16, (b >> (16 * l)) as u16, (fin >> (16 * l)) as u16);
                            match min_max(mm == "min", [Fmt::F16, Fmt::Bf16][bf], x, y, false) {
                                Expect::Bits(r) => g as u64 == r,
                                other => panic!("min/max reference gave {other:?}"),
                            }
                        }),
                    };
                    if !ok {
                        failures.push(format!("{ctx}: new value {fin:#x}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Many threads on the same vector: each element is its own atomic, so every update lands.
#[test]
fn contended_vector_atomics_lose_no_update() {
    let Some(gpu) = gpu() else { return };
    let ptx = "
.version 8.5
.target sm_90
.address_size 64
.visible .entry contend(.param .u64 out)
{
    .reg .b16 %h<8>;
    .reg .b32 %r<4>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mad.lo.s32 %r3, %r2, 64, %r1;
    mov.f32 %f1, 0f3F800000;
    mov.f32 %f2, 0f40000000;
    red.global.add.v2.f32 [%rd1], {%f1, %f2};
    // A descending key per thread: the minimum is thread 0 of CTA 0's.
    cvt.rn.f16.u32 %h1, %r3;
    neg.f16 %h2, %h1;
    atom.global.min.noftz.v2.f16 {%h3, %h4}, [%rd1+8], {%h1, %h2};
    ret;
}
";
    let program = program("contend.ptx", ptx, [64, 1, 1]);
    for backend in Backend::ALL {
        if ptxcross_tests::launch::refused_for_subnormals(&gpu, &program, backend) {
            continue;
        }
        let mut run = Run::new(&gpu);
        // out: two f32 sums from 0, then two f16 minima from +inf (0x7c00).
        let init: Vec<u8> = [0u32.to_le_bytes(), 0u32.to_le_bytes(), 0x7c00_7c00u32.to_le_bytes()].concat();
        let out = run.buffer(&init);
        run.launch(&program, "contend", [16, 1, 1], &[&out.to_le_bytes()], backend);
        let v = run.read_u32(out, 3);
        assert_eq!(f32::from_bits(v[0]), 1024.0, "{backend}: element 0 of the f32 sum");
        assert_eq!(f32::from_bits(v[1]), 2048.0, "{backend}: element 1 of the f32 sum");
        // min(0..1023 as f16) = +0 (0x0000); min(-k) = -1023 → f16 0xe3fe.
        assert_eq!(v[2], 0xe3fe_0000, "{backend}: f16 minima");
    }
}

/// A kernel for [`shared64_cost`]: 64 rounds of a shared-memory exchange between
/// neighbours (a store, a barrier, a load, a barrier; `atomics`: plus a 32-bit shared
/// atomic add per round), then one 64-bit shared atomic add whose result is used (`wide`:
/// the kernel's shared memory becomes doublewords) or unused (two word atomics).
fn cost_kernel(atomics: bool, wide: bool) -> String {
    let atom = if wide { "atom.shared.add.u64 %rd3, [acc], %rd2;" } else { "red.shared.add.u64 [acc], %rd2;\n    mov.u64 %rd3, 0;" };
    let atom32 = if atomics { "red.shared.add.u32 [%r12], 1;" } else { "" };
    format!(
        "
.version 8.5
.target sm_80
.address_size 64
.visible .entry cost(.param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<16>;
    .shared .align 8 .b8 buf[1024];
    .shared .align 8 .b8 cnt[1024];
    .shared .align 8 .b8 acc[8];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mad.lo.s32 %r3, %r2, 256, %r1;
    shl.b32 %r4, %r1, 2;
    mov.u32 %r5, buf;
    add.u32 %r6, %r5, %r4;
    add.u32 %r7, %r1, 1;
    and.b32 %r7, %r7, 255;
    shl.b32 %r7, %r7, 2;
    add.u32 %r8, %r5, %r7;
    mul.lo.u32 %r9, %r1, 7;
    and.b32 %r9, %r9, 255;
    shl.b32 %r9, %r9, 2;
    mov.u32 %r11, cnt;
    add.u32 %r12, %r11, %r9;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra L0;
    mov.u64 %rd9, 0;
    st.shared.u64 [acc], %rd9;
L0:
    mov.u32 %r10, %r3;
    mov.u32 %r20, 0;
LOOP:
    st.shared.u32 [%r6], %r10;
    {atom32}
    bar.sync 0;
    ld.shared.u32 %r13, [%r8];
    add.u32 %r10, %r10, %r13;
    mul.lo.u32 %r10, %r10, 3;
    bar.sync 0;
    add.u32 %r20, %r20, 1;
    setp.lt.u32 %p2, %r20, 64;
    @%p2 bra LOOP;
    cvt.u64.u32 %rd2, %r10;
    {atom}
    bar.sync 0;
    ld.shared.u64 %rd4, [acc];
    xor.b64 %rd5, %rd4, %rd3;
    mul.wide.u32 %rd6, %r3, 8;
    add.s64 %rd7, %rd1, %rd6;
    st.global.u64 [%rd7], %rd5;
    ret;
}}
"
    )
}

/// What the doubleword layout costs a kernel with 64-bit shared atomics whose result is used
/// (kernels without one keep their code byte for byte). Best of 5 launches, the word and
/// doubleword kernels interleaved, 3 rounds; 256 CTAs of 256 threads:
///   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test simt_atomics shared64_cost -- --ignored --nocapture
#[test]
#[ignore]
fn shared64_cost() {
    let Some(gpu) = gpu() else { return };
    const GRID: u32 = 256;
    let n = GRID as usize * 256;
    for atomics in [false, true] {
        let programs: Vec<_> = [false, true].iter().map(|&wide| program("cost.ptx", &cost_kernel(atomics, wide), [256, 1, 1])).collect();
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let out = run.zeros(n * 8);
            let args = out.to_le_bytes();
            let mut best = [f64::MAX; 2];
            for p in &programs {
                run.launch(p, "cost", [GRID, 1, 1], &[&args], backend); // pipeline creation
            }
            for _round in 0..3 {
                for (k, p) in programs.iter().enumerate() {
                    for _ in 0..5 {
                        let t = std::time::Instant::now();
                        run.launch(p, "cost", [GRID, 1, 1], &[&args], backend);
                        best[k] = best[k].min(t.elapsed().as_secs_f64());
                    }
                }
            }
            eprintln!(
                "{backend}, {}: words {:.2} ms, doublewords {:.2} ms ({:.2}x)",
                if atomics { "stores, loads and a 32-bit atomic per round" } else { "stores and loads per round" },
                best[0] * 1e3,
                best[1] * 1e3,
                best[1] / best[0]
            );
        }
    }
}

/// 64-bit atomics through generic addresses that the translator cannot resolve statically:
/// odd threads point into shared memory, even ones into global memory (one `selp`), so each
/// `atom` dispatches on the address at run time (§9.7.14.5: generic addressing). Every thread
/// adds to its own slot, initialised to a known value, and CASes a second one; the old values
/// and the final slots are checked.
#[test]
fn generic_64_bit_atomics_that_reach_shared_or_global_memory_at_run_time() {
    let Some(gpu) = gpu() else { return };
    const PTX: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry generic64(.param .u64 glob, .param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<24>;
    .shared .align 8 .b8 sm[1024];
    ld.param.u64 %rd1, [glob];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    // Slot of thread t: 16 bytes in shared (odd t) or global (even t) memory.
    mov.u64 %rd4, sm;
    add.s64 %rd5, %rd4, %rd3;
    cvta.shared.u64 %rd6, %rd5;
    add.s64 %rd7, %rd1, %rd3;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 1;
    selp.b64 %rd8, %rd6, %rd7, %p1;
    // Initial values: (t + 1) * 0x1_0000_0001 - 2 and t.
    cvt.u64.u32 %rd9, %r1;
    add.u64 %rd10, %rd9, 1;
    mul.lo.u64 %rd10, %rd10, 4294967297;
    sub.u64 %rd10, %rd10, 2;
    st.u64 [%rd8], %rd10;
    st.u64 [%rd8+8], %rd9;
    atom.add.u64 %rd11, [%rd8], 3;
    // cas: matches (stores ~t) for threads t with t mod 4 < 2, else compares against t + 1.
    and.b32 %r3, %r1, 2;
    setp.eq.u32 %p2, %r3, 0;
    add.u64 %rd12, %rd9, 1;
    selp.b64 %rd13, %rd9, %rd12, %p2;
    not.b64 %rd14, %rd9;
    atom.cas.b64 %rd15, [%rd8+8], %rd13, %rd14;
    ld.u64 %rd16, [%rd8];
    ld.u64 %rd17, [%rd8+8];
    mul.wide.u32 %rd18, %r1, 32;
    add.s64 %rd19, %rd2, %rd18;
    st.global.v2.u64 [%rd19], {%rd11, %rd15};
    st.global.v2.u64 [%rd19+16], {%rd16, %rd17};
    ret;
}
";
    const BLOCK: usize = 64;
    let program = program("generic64.ptx", PTX, [BLOCK as u32, 1, 1]);
    for backend in Backend::ALL {
        if ptxcross_tests::launch::refused_for_subnormals(&gpu, &program, backend) {
            continue;
        }
        let mut run = Run::new(&gpu);
        let glob = run.zeros(BLOCK * 16);
        let out = run.zeros(BLOCK * 32);
        run.launch(&program, "generic64", [1, 1, 1], &[&glob.to_le_bytes(), &out.to_le_bytes()], backend);
        let o = run.read_u64(out, BLOCK * 4);
        for t in 0..BLOCK as u64 {
            let r = &o[4 * t as usize..][..4];
            let a = (t + 1) * 0x1_0000_0001 - 2;
            let matched = t % 4 < 2;
            let want = [a, t, a.wrapping_add(3), if matched { !t } else { t }];
            assert_eq!(r, want, "{backend}: thread {t} ({})", if t % 2 == 1 { "shared" } else { "global" });
        }
    }
}

/// A 64-bit shared atomic whose result is used in a barrier loop that threads leave by `ret`
/// after different trip counts (thread t after t mod 5 + 1 rounds): `simt` makes the loop
/// workgroup-uniform (its votes, barriers and uniform loads then act on shared doublewords
/// too). After round k's barrier the counter holds the adds of rounds 0..=k exactly, and the
/// tickets of all rounds are 0..total-1 (their sum is checked).
#[test]
fn shared_64_bit_atomics_in_a_barrier_loop_with_returns() {
    let Some(gpu) = gpu() else { return };
    const PTX: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry loop64(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<16>;
    .shared .align 8 .b8 acc[8];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    rem.u32 %r6, %r1, 5;
    add.u32 %r6, %r6, 1;
    mov.u32 %r5, 0;
    mov.u64 %rd7, 0;
    mul.wide.u32 %rd2, %r1, 16;
    add.s64 %rd4, %rd1, %rd2;
    setp.ne.u32 %p2, %r1, 0;
    @%p2 bra START;
    mov.u64 %rd8, 0;
    st.shared.u64 [acc], %rd8;
START:
    bar.sync 0;
LOOP:
    setp.ge.u32 %p1, %r5, %r6;
    @%p1 ret;
    atom.shared.add.u64 %rd3, [acc], 1;
    add.u64 %rd7, %rd7, %rd3;
    st.global.u64 [%rd4], %rd7;
    bar.sync 0;
    ld.shared.u64 %rd9, [acc];
    st.global.u64 [%rd4+8], %rd9;
    add.u32 %r5, %r5, 1;
    bar.sync 0;
    bra LOOP;
}
";
    const BLOCK: usize = 100;
    let program = program("loop64.ptx", PTX, [BLOCK as u32, 1, 1]);
    // Threads in round k: those with t mod 5 >= k; the counter after round k: their sum so far.
    let in_round = |k: usize| (0..BLOCK).filter(|t| t % 5 >= k).count() as u64;
    let after: Vec<u64> = (0..5).scan(0, |s, k| {
        *s += in_round(k);
        Some(*s)
    }).collect();
    let total = after[4];
    for backend in Backend::ALL {
        if ptxcross_tests::launch::refused_for_subnormals(&gpu, &program, backend) {
            continue;
        }
        let mut run = Run::new(&gpu);
        let out = run.zeros(BLOCK * 16);
        run.launch(&program, "loop64", [1, 1, 1], &[&out.to_le_bytes()], backend);
        let o = run.read_u64(out, BLOCK * 2);
        for t in 0..BLOCK {
            assert_eq!(o[2 * t + 1], after[t % 5], "{backend}: thread {t}: counter after its last round");
        }
        let sum: u64 = (0..BLOCK).map(|t| o[2 * t]).sum();
        assert_eq!(sum, total * (total - 1) / 2, "{backend}: the tickets are not 0..{total}");
    }
}

/// Warp collectives (emulated through shared scratch words on every subgroup size) in a kernel
/// whose shared memory is doublewords: a `shfl.sync.down` warp sum and a `vote.sync.ballot`,
/// then lane 0 of each warp adds the sum to a 64-bit shared counter and records the old value
/// (the warps' old values must chain: sorted, each is the previous plus its warp's sum).
#[test]
fn warp_collectives_beside_shared_64_bit_atomics() {
    let Some(gpu) = gpu() else { return };
    const PTX: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry warp64(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .shared .align 8 .b8 acc[8];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra START;
    mov.u64 %rd2, 4294967000;
    st.shared.u64 [acc], %rd2;
START:
    bar.sync 0;
    mul.lo.u32 %r2, %r1, 3;
    add.u32 %r2, %r2, 1;
    shfl.sync.down.b32 %r3, %r2, 16, 31, -1;
    add.u32 %r2, %r2, %r3;
    shfl.sync.down.b32 %r3, %r2, 8, 31, -1;
    add.u32 %r2, %r2, %r3;
    shfl.sync.down.b32 %r3, %r2, 4, 31, -1;
    add.u32 %r2, %r2, %r3;
    shfl.sync.down.b32 %r3, %r2, 2, 31, -1;
    add.u32 %r2, %r2, %r3;
    shfl.sync.down.b32 %r3, %r2, 1, 31, -1;
    add.u32 %r2, %r2, %r3;
    and.b32 %r4, %r1, 1;
    setp.eq.u32 %p2, %r4, 1;
    vote.sync.ballot.b32 %r5, %p2, -1;
    and.b32 %r6, %r1, 31;
    setp.ne.u32 %p3, %r6, 0;
    mov.u64 %rd3, 0;
    @%p3 bra SKIP;
    cvt.u64.u32 %rd4, %r2;
    atom.shared.add.u64 %rd3, [acc], %rd4;
SKIP:
    bar.sync 0;
    ld.shared.u64 %rd5, [acc];
    mul.wide.u32 %rd6, %r1, 24;
    add.s64 %rd7, %rd1, %rd6;
    cvt.u64.u32 %rd8, %r2;
    cvt.u64.u32 %rd9, %r5;
    shl.b64 %rd9, %rd9, 32;
    or.b64 %rd8, %rd8, %rd9;
    st.global.u64 [%rd7], %rd8;
    st.global.u64 [%rd7+8], %rd3;
    st.global.u64 [%rd7+16], %rd5;
    ret;
}
";
    const BLOCK: usize = 96;
    const START: u64 = 4_294_967_000;
    // The device's choice, and the native translation with its emulated twin and the native
    // lowering simulated whatever the device: the layout check's shared word must join the
    // doubleword layout too (it did not once, an invalid module).
    let shape = [BLOCK as u32, 1, 1];
    let programs = [
        ("device", program("warp64.ptx", PTX, shape)),
        ("native", native_program("warp64.ptx", PTX, shape)),
        ("simulated native", simulated_native_program("warp64.ptx", PTX, shape)),
    ];
    let value = |t: usize| t as u64 * 3 + 1;
    // shfl.down with clamp 31: lane l's sum covers lanes l.. of its warp, a source lane past
    // 31 giving the lane's own value (§9.7.8.6), so lane 0 holds the warp's sum.
    let warp_sum = |w: usize| (32 * w..32 * w + 32).map(value).sum::<u64>();
    let total: u64 = (0..BLOCK / 32).map(warp_sum).sum();
    for ((label, program), b) in programs.iter().flat_map(|p| Backend::ALL.map(|b| (p, b))) {
        let backend = format!("{b} ({label})");
        let mut run = Run::new(&gpu);
        let out = run.zeros(BLOCK * 24);
        run.launch(program, "warp64", [1, 1, 1], &[&out.to_le_bytes()], b);
        let o = run.read_u64(out, BLOCK * 3);
        let mut olds = Vec::new();
        for t in 0..BLOCK {
            assert_eq!(o[3 * t] >> 32, 0xaaaa_aaaa, "{backend}: thread {t}: ballot of odd lanes");
            assert_eq!(o[3 * t + 2], START + total, "{backend}: thread {t}: final counter");
            if t % 32 == 0 {
                assert_eq!(o[3 * t] & 0xffff_ffff, warp_sum(t / 32), "{backend}: warp {}: shfl sum", t / 32);
                olds.push((o[3 * t + 1], warp_sum(t / 32)));
            }
        }
        olds.sort_unstable();
        let mut at = START;
        for (old, x) in olds {
            assert_eq!(old, at, "{backend}: the warps' old values do not chain");
            at += x;
        }
    }
}

/// A 64-bit shared atomic whose 8 bytes pass the end of a shared memory of 12 bytes (an odd
/// number of words: the last doubleword's high half is padding) faults like any access
/// outside shared memory; the one before it works.
#[test]
fn a_shared_64_bit_atomic_past_the_end_faults() {
    let Some(gpu) = gpu() else { return };
    const PTX: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry odd(.param .u64 p)
{
    .reg .b64 %rd<5>;
    .reg .b32 %r<3>;
    .shared .align 8 .b8 sm[12];
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1];
    mul.wide.u32 %rd4, %r1, 8;
    mov.u64 %rd3, sm;
    add.u64 %rd3, %rd3, %rd4;
    atom.shared.add.u64 %rd2, [%rd3], 5;
    add.u64 %rd2, %rd2, 1;
    st.global.u64 [%rd1], %rd2;
    ret;
}
";
    let program = program("odd.ptx", PTX, [1, 1, 1]);
    for backend in Backend::ALL {
        if ptxcross_tests::launch::refused_for_subnormals(&gpu, &program, backend) {
            continue;
        }
        let mut run = Run::new(&gpu);
        let p = run.buffer(&u64s(&[0]));
        run.launch(&program, "odd", [1, 1, 1], &[&p.to_le_bytes()], backend);
        assert_eq!(run.read_u64(p, 1)[0], 1, "{backend}: the atomic inside shared memory");
        let p = run.buffer(&u64s(&[1]));
        let err = run.ctx.launch(&program, "odd", [1, 1, 1], &[&p.to_le_bytes()], backend).expect_err("bytes 8..16 of 12");
        assert!(err.to_string().contains("shared"), "{backend}: {err}");
    }
}

/// A 64-bit `atom.add` inside a device function whose old value the caller reads, through a
/// `.param` return (nvcc's form) and through a `.reg` return: the old values are the counter's
/// successive values (a permutation of init..init+n, across the 2^32 carry) on both backends.
/// Device functions are inlined into the kernel, and whether an atomic's result is read was
/// judged from the kernel's own statements only, so these results were taken for unused and
/// never written (the 64-bit add then runs as two word atomics without an old value).
#[test]
fn atomics_in_device_functions_return_their_old_value() {
    let Some(gpu) = gpu() else { return };
    let ptx = r#"
.version 8.5
.target sm_80
.address_size 64
.func (.param .b64 func_retval0) bump(.param .b64 bump_param_0)
{
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [bump_param_0];
    atom.global.add.u64 %rd2, [%rd1], 1;
    st.param.b64 [func_retval0], %rd2;
    ret;
}
.func (.reg .b64 %old) bump_reg(.reg .b64 %at)
{
    atom.global.or.b64 %old, [%at], 4294967296;
    ret;
}
.visible .entry k(.param .u64 counter, .param .u64 out, .param .u64 flags)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<20>;
    ld.param.u64 %rd11, [counter];
    ld.param.u64 %rd13, [out];
    ld.param.u64 %rd15, [flags];
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd11;
    .param .b64 retval0;
    call.uni (retval0), bump, (param0);
    ld.param.b64 %rd14, [retval0];
    }
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd16, %r4, 16;
    add.s64 %rd17, %rd13, %rd16;
    st.global.u64 [%rd17], %rd14;
    call.uni (%rd18), bump_reg, (%rd15);
    st.global.u64 [%rd17+8], %rd18;
    ret;
}
"#;
    let (block, grid) = (64usize, 2usize);
    let n = block * grid;
    let init = (1u64 << 32) - 37;
    let program = program("devfn_atomics.ptx", ptx, [block as u32, 1, 1]);
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let counter = run.buffer(&u64s(&[init]));
        let out = run.zeros(16 * n);
        let flags = run.buffer(&u64s(&[0x5]));
        run.launch(&program, "k", [grid as u32, 1, 1], &[&counter.to_le_bytes(), &out.to_le_bytes(), &flags.to_le_bytes()], backend);
        let words = run.read_u64(out, 2 * n);
        let mut olds: Vec<u64> = words.iter().step_by(2).copied().collect();
        olds.sort_unstable();
        assert_eq!(olds, (init..init + n as u64).collect::<Vec<_>>(), "{backend}: atom.add.u64 old values through a .param return");
        assert_eq!(run.read_u64(counter, 1), vec![init + n as u64], "{backend}: final counter");
        // Every `or` returns the flags as they were: 0x5 before the first, 0x1_0000_0005 after.
        let ors: Vec<u64> = words.iter().skip(1).step_by(2).copied().collect();
        assert_eq!(ors.iter().filter(|&&v| v == 0x5).count(), 1, "{backend}: exactly one `or` sees the flags unset: {ors:x?}");
        assert!(ors.iter().all(|&v| v == 0x5 || v == 0x1_0000_0005), "{backend}: atom.or.b64 old values through a .reg return: {ors:x?}");
    }
}

/// Single-copy atomicity of 64-bit strong accesses (§8.10.3: conflicting morally strong
/// operations — here `st.relaxed.gpu.u64` and `ld.relaxed.gpu.u64` of the same doubleword —
/// are performed with single-copy atomicity; a read never returns bytes of two writes).
/// CTA 0's thread 0 stores k·(2^32 + 1) for k = 1..n, the other CTAs' threads load the
/// doubleword n times each and count values whose halves differ: the spec allows none.
/// Failed before the fix (audit10, lavapipe: 100,591 and 14,980 torn loads in the first SPIR-V
/// round of two runs; none seen on WGSL), when `lower` made a strong 64-bit access two 32-bit
/// word atomics; now one doubleword atomic (`memory_ordering`'s
/// `strong_eight_byte_accesses_are_one_doubleword_atomic` shows the translation). A race
/// detector by nature: a pass proves little, a failure is a wrong result.
#[test]
fn strong_64_bit_loads_never_return_halves_of_two_stores() {
    strong_8_byte_race("st.relaxed.gpu.global.u64 [%rd2], %rd4;", "ld.relaxed.gpu.global.u64 %rd5, [%rd2];\n    cvt.u32.u64 %r6, %rd5;\n    shr.u64 %rd6, %rd5, 32;\n    cvt.u32.u64 %r7, %rd6;", 20_000);
}

/// The same race with `.v2.u32` (what CUB's decoupled look-back uses for its `{status,
/// value}` tile descriptors: a torn one is a wrong scan). The spec models a vector access as
/// element accesses (§8.2.4), but NVIDIA performs an aligned 8-byte vector access as one, and
/// CUB relies on it: ptxcross makes it one doubleword atomic.
#[test]
fn strong_v2_u32_loads_never_return_halves_of_two_stores() {
    strong_8_byte_race("st.relaxed.gpu.global.v2.u32 [%rd2], {%r3, %r3};", "ld.relaxed.gpu.global.v2.u32 {%r6, %r7}, [%rd2];", 20_000);
}

/// CTA 0's thread 0 stores `store` (of `%rd4` = k·(2^32 + 1), or `{%r3, %r3}` = {k, k}) for
/// k = 1..n; the other CTAs load with `load` (into `%r6`, `%r7`: the low and high words) n
/// times per thread and count loads whose words differ.
fn strong_8_byte_race(store: &str, load: &str, n: u32) {
    let Some(gpu) = gpu() else { return };
    let ptx = format!("
.version 8.5
.target sm_80
.address_size 64
.visible .entry tear(.param .u64 p_out, .param .u64 p_x, .param .u32 n)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p_out];
    ld.param.u64 %rd2, [p_x];
    ld.param.u32 %r9, [n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra READ;
    setp.ne.u32 %p2, %r2, 0;
    @%p2 bra DONE;
    mov.u32 %r3, 1;
WRITE:
    cvt.u64.u32 %rd3, %r3;
    shl.b64 %rd4, %rd3, 32;
    or.b64 %rd4, %rd4, %rd3;
    {store}
    add.u32 %r3, %r3, 1;
    setp.le.u32 %p3, %r3, %r9;
    @%p3 bra WRITE;
    bra.uni DONE;
READ:
    mov.u32 %r4, 0;
    mov.u32 %r5, 0;
LOAD:
    {load}
    setp.ne.u32 %p3, %r6, %r7;
    selp.u32 %r8, 1, 0, %p3;
    add.u32 %r5, %r5, %r8;
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p3, %r4, %r9;
    @%p3 bra LOAD;
    red.global.add.u32 [%rd1], %r5;
DONE:
    ret;
}}
");
    let program = program("tear.ptx", &ptx, [32, 1, 1]);
    // `n` below lavapipe's 65,535 loop iterations per thread (at 30,000 the WGSL translation
    // of the u64 form hits it: `FAULT_LOOP_CUT`); 2 rounds per backend keep it to seconds.
    let mut torn = Vec::new();
    for backend in Backend::ALL {
        for round in 0..2 {
            let mut run = Run::new(&gpu);
            let (out, x) = (run.zeros(4), run.zeros(16));
            run.launch(&program, "tear", [16, 1, 1], &[&out.to_le_bytes(), &x.to_le_bytes(), &n.to_le_bytes()], backend);
            torn.push((backend, round, run.read_u32(out, 1)[0]));
            // The last store is visible at the end of the launch, whole.
            assert_eq!(run.read_u32(x, 2), vec![n, n], "{backend}: the last store");
        }
    }
    assert!(torn.iter().all(|t| t.2 == 0), "loads that returned halves of two different stores (backend, round, count): {torn:?}");
}

/// Single-copy atomicity of strong 16-byte accesses (§8.10.3; NVIDIA performs an aligned
/// 16-byte access as one, and CUB's decoupled look-back keeps `{status, value}` descriptors of
/// 8-byte scan values in `ld/st.relaxed.gpu.v2.u64`). Vulkan has no 128-bit atomic: ptxcross
/// takes a lock per location (`lower/src/wide_lock.rs`). Every thread of 16 CTAs alternates n
/// times between storing {v, v, v, v} into descriptor `tid % 4` (v = ctaid·2^16 + i + 1, as
/// `.v4.u32`, or `.v2.u64` of v·(2^32 + 1)) and loading it, counting loads whose four words
/// differ: the spec allows none. Lanes `i` and `i + 4` of a subgroup contend for one lock, and
/// CTAs on other cores for all four. The descriptors end whole. WGSL refuses the kernel, naming
/// the instruction (its atomics are relaxed and it has no fence outside a barrier, so a lock
/// cannot order the data). A race detector by nature: with the lock taken out of
/// `locked_wide_access` (the access run bare between fences), lavapipe returned torn loads
/// (docs/simt.md, "Strong 16-byte accesses").
#[test]
fn strong_16_byte_loads_never_return_parts_of_two_stores() {
    let v2 = "    cvt.u64.u32 %rd3, %r3;\n    shl.b64 %rd4, %rd3, 32;\n    or.b64 %rd4, %rd4, %rd3;\n";
    let split = "    cvt.u32.u64 %r6, %rd5;\n    shr.u64 %rd5, %rd5, 32;\n    cvt.u32.u64 %r7, %rd5;\n    cvt.u32.u64 %r11, %rd6;\n    shr.u64 %rd6, %rd6, 32;\n    cvt.u32.u64 %r12, %rd6;";
    for (store, load) in [
        ("    st.relaxed.gpu.global.v4.u32 [%rd2], {%r3, %r3, %r3, %r3};".to_string(), "ld.relaxed.gpu.global.v4.u32 {%r6, %r7, %r11, %r12}, [%rd2];".to_string()),
        // CUB's form, through generic addresses, with the kernel's own release/acquire.
        (format!("{v2}    st.release.gpu.v2.u64 [%rd2], {{%rd4, %rd4}};"), format!("ld.acquire.gpu.v2.u64 {{%rd5, %rd6}}, [%rd2];\n{split}")),
        // Two shapes of one 16 bytes are morally strong too (same size, complete overlap).
        (format!("{v2}    st.volatile.global.v2.u64 [%rd2], {{%rd4, %rd4}};"), "ld.relaxed.gpu.global.v4.u32 {%r6, %r7, %r11, %r12}, [%rd2];".to_string()),
    ] {
        strong_16_byte_race(&store, &load, 2_000);
    }
}

/// See [`strong_16_byte_loads_never_return_parts_of_two_stores`]: `store` (of `%r3` = v),
/// `load` (into `%r6`, `%r7`, `%r11`, `%r12`), each n / 2 times per thread.
fn strong_16_byte_race(store: &str, load: &str, n: u32) {
    let Some(gpu) = gpu() else { return };
    let ptx = format!("
.version 8.5
.target sm_80
.address_size 64
.visible .entry tear16(.param .u64 p_out, .param .u64 p_x, .param .u32 n)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p_out];
    ld.param.u64 %rd2, [p_x];
    ld.param.u32 %r9, [n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    and.b32 %r10, %r2, 3;
    mul.wide.u32 %rd7, %r10, 16;
    add.u64 %rd2, %rd2, %rd7;
    shl.b32 %r1, %r1, 16;
    mov.u32 %r4, 0;
    mov.u32 %r5, 0;
STEP:
    xor.b32 %r13, %r4, %r2;
    and.b32 %r13, %r13, 1;
    setp.eq.u32 %p1, %r13, 0;
    @%p1 bra LOAD;
    add.u32 %r3, %r1, %r4;
    add.u32 %r3, %r3, 1;
{store}
    bra.uni NEXT;
LOAD:
    {load}
    setp.ne.u32 %p3, %r6, %r7;
    setp.ne.or.u32 %p3, %r6, %r11, %p3;
    setp.ne.or.u32 %p3, %r6, %r12, %p3;
    selp.u32 %r8, 1, 0, %p3;
    add.u32 %r5, %r5, %r8;
NEXT:
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p3, %r4, %r9;
    @%p3 bra STEP;
    red.global.add.u32 [%rd1], %r5;
    ret;
}}
");
    let (program, wgsl) = spirv_program("tear16.ptx", &ptx, [32, 1, 1]);
    // The refusal names the store (the first locked access) and its line.
    let (line, text) = ptx.lines().enumerate().find(|(_, l)| l.trim_start().starts_with("st.")).expect("the store");
    let site = format!("`{}` at line {}:", text.split_whitespace().next().unwrap_or(""), line + 1);
    assert!(wgsl.contains("strong 16-byte access") && wgsl.contains(&site) && wgsl.contains("use the spirv backend"), "{site}: {wgsl}");
    // `n` keeps every thread's loop iterations (its steps, and the lock's tries) well below
    // lavapipe's 65,535; 2 rounds keep it to seconds.
    // A waiter whose lock holder's CPU thread the OS preempts mid-section can spend the
    // driver's loop limit (a loop-cut or lock-spin fault: a refusal, never a torn value); such a
    // launch is run again, at most three times a round.
    let driver_limit = ptxcross_lower::abi::FAULT_LOOP_CUT | ptxcross_lower::abi::FAULT_LOCK_SPIN;
    let mut torn = Vec::new();
    for round in 0..2 {
        let (run, out, x) = (0..3)
            .find_map(|attempt| {
                let mut run = Run::new(&gpu);
                let (out, x) = (run.zeros(4), run.zeros(64));
                match run.ctx.launch(&program, "tear16", [16, 1, 1], &[&out.to_le_bytes(), &x.to_le_bytes(), &n.to_le_bytes()], Backend::Spirv) {
                    Ok(()) => Some((run, out, x)),
                    Err(ptxcross::Error::KernelFault { bits, .. }) if bits & !driver_limit == 0 && attempt < 2 => {
                        eprintln!("{store}: round {round} attempt {attempt} stopped by the driver's loop limit ({bits:#x}); again");
                        None
                    }
                    Err(e) => panic!("{store}: {e}"),
                }
            })
            .expect("a launch");
        torn.push((round, run.read_u32(out, 1)[0]));
        // Each descriptor ends whole: one store's four words (the last store of a thread is
        // step n - 1 or n - 2: its value's low 16 bits are n - 1 or n).
        for (d, w) in run.read_u32(x, 16).chunks(4).enumerate() {
            assert!(w.iter().all(|&x| x == w[0]) && matches!(w[0] & 0xffff, v if v + 1 == n || v == n), "{store}: descriptor {d} ended as {w:x?}");
        }
    }
    assert!(torn.iter().all(|t| t.1 == 0), "{store} / {load}: loads that returned parts of two different stores (round, count): {torn:?}");
}

/// A lock of a strong 16-byte access left held (as a launch stopped by the timeout in the
/// middle of its section would leave it) makes the next launch fault with
/// `abi::FAULT_LOCK_SPIN` (after 2^16 tries; on lavapipe its loop limit cuts the spin first,
/// which faults too) instead of hanging or making the access without the lock. The lock
/// table is the module's whole globals segment here (the kernel has no variables), so setting
/// every word of it holds every lock.
#[test]
fn a_lock_left_held_faults_instead_of_hanging() {
    let Some(gpu) = gpu() else { return };
    const PTX: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry held(.param .u64 p_x)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p_x];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.relaxed.gpu.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd1];
    add.u32 %r2, %r2, 1;
    st.relaxed.gpu.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};
DONE:
    ret;
}
";
    let (program, _) = spirv_program("held.ptx", PTX, [32, 1, 1]);
    let mut run = Run::new(&gpu);
    let x = run.zeros(16);
    run.launch(&program, "held", [1, 1, 1], &[&x.to_le_bytes()], Backend::Spirv);
    assert_eq!(run.read_u32(x, 4), vec![1, 0, 0, 0], "the access under a free lock");
    let base = run.ctx.globals_base(&program).expect("globals");
    let bytes = program.module().globals.init.len();
    assert_eq!(bytes, 16 * 1024, "the segment is the lock table");
    run.ctx.write(ptxcross::DevicePtr(base), &vec![1u8; bytes]).expect("hold every lock");
    let err = run.ctx.launch(&program, "held", [1, 1, 1], &[&x.to_le_bytes()], Backend::Spirv).expect_err("ran with its lock held");
    let text = err.to_string();
    // `abi::describe_faults`' text for `FAULT_LOCK_SPIN`.
    assert!(text.contains("could not take its lock"), "{text}");
    assert_eq!(run.read_u32(x, 4), vec![1, 0, 0, 0], "no access without the lock");
}

/// CUB's decoupled look-back over 16-byte tile descriptors, end to end: tests/simt/src/
/// lookback_scan.cu (nvcc 13.5, sm_80) scans 64-bit integers one tile of 512 per CTA with
/// `cub::ScanTileState<long long>` and `cub::TilePrefixCallbackOp`, as `cub::DeviceScan` does:
/// each tile publishes `{status, value}` with `st.relaxed.gpu.v2.u64` and its successors poll
/// it with `ld.relaxed.gpu.v2.u64`, which ptxcross runs under a lock (`wide_lock`); a torn
/// descriptor (a new status with an old value) would give a wrong sum. Checked against a CPU
/// prefix sum (wrapping, as the GPU's 64-bit adds). Refused before the lock ("strong 16-byte
/// access"); WGSL still refuses it by name.
#[test]
fn cub_lookback_scan_of_int64_matches_a_cpu_prefix_sum() {
    let Some(gpu) = gpu() else { return };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("simt/ptx/lookback_scan.sm80.ptx");
    let ptx = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (program, wgsl) = spirv_program("lookback_scan.sm80.ptx", &ptx, [128, 1, 1]);
    assert!(wgsl.contains("strong 16-byte access") && wgsl.contains("relaxed.gpu"), "{wgsl}");
    const TILE: usize = 512;
    for n in [1usize, 3 * TILE + 77, 40 * TILE + 5] {
        // Values across the whole 64-bit range, so a sum split or torn in 32-bit halves shows.
        let mut w = words(n as u32 + 7);
        let data: Vec<i64> = (0..n).map(|_| ((u64::from(w.next().unwrap()) << 32) | u64::from(w.next().unwrap())) as i64 >> 3).collect();
        let want: Vec<i64> = data.iter().scan(0i64, |acc, &x| {
            *acc = acc.wrapping_add(x);
            Some(*acc)
        }).collect();
        let tiles = n.div_ceil(TILE);
        let mut run = Run::new(&gpu);
        let input = run.buffer(&data.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>());
        let out = run.zeros(n * 8);
        // 32 padding descriptors, then one per tile, 16 bytes each (`ScanTileState::AllocationSize`).
        let descriptors = run.zeros((tiles + 32) * 16);
        let t = (tiles as i32).to_le_bytes();
        run.launch(&program, "lookback_init", [tiles.div_ceil(128) as u32, 1, 1], &[&descriptors.to_le_bytes(), &t], Backend::Spirv);
        let args: [&[u8]; 5] = [&input.to_le_bytes(), &out.to_le_bytes(), &descriptors.to_le_bytes(), &(n as i32).to_le_bytes(), &t];
        run.launch(&program, "lookback_scan", [tiles as u32, 1, 1], &args, Backend::Spirv);
        let got: Vec<i64> = run.read_u64(out, n).into_iter().map(|x| x as i64).collect();
        let first_bad = got.iter().zip(&want).position(|(g, w)| g != w);
        assert!(first_bad.is_none(), "n = {n}: first wrong sum at {first_bad:?} (tile {:?})", first_bad.map(|i| i / TILE));
    }
}

/// Strong 8-byte accesses to shared memory: with `.shared` one doubleword atomic (the kernel's
/// shared memory becomes doublewords, `shared64`), so a `st.relaxed.cta.shared.v2.u32` then an
/// `ld.relaxed.cta.shared.u64` of it give the stored words; through a generic address that
/// reaches shared memory the launch is refused (`abi::FAULT_STRONG_SHARED_DWORD`: one
/// doubleword atomic there would make every kernel with a generic strong 8-byte access pay for
/// doubleword shared memory), while the same generic access to global memory runs.
#[test]
fn strong_8_byte_shared_accesses_are_doublewords_or_refused_through_generic_addresses() {
    let Some(gpu) = gpu() else { return };
    const PTX: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p_out, .param .u32 via_generic)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    .shared .align 8 .b8 sm[16];
    ld.param.u64 %rd1, [p_out];
    ld.param.u32 %r3, [via_generic];
    mov.u32 %r1, 0x89abcdef;
    mov.u32 %r2, 0x01234567;
    st.relaxed.cta.shared.v2.u32 [sm+8], {%r1, %r2};
    ld.relaxed.cta.shared.u64 %rd2, [sm+8];
    st.global.u64 [%rd1], %rd2;
    mov.u64 %rd3, sm;
    cvta.shared.u64 %rd4, %rd3;
    setp.ne.u32 %p1, %r3, 0;
    selp.b64 %rd4, %rd4, %rd1, %p1;
    ld.relaxed.gpu.u64 %rd5, [%rd4+8];
    st.global.u64 [%rd1+8], %rd5;
    ret;
}
";
    let program = program("strong_shared.ptx", PTX, [1, 1, 1]);
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let out = run.buffer(&u64s(&[0, 0]));
        run.launch(&program, "k", [1, 1, 1], &[&out.to_le_bytes(), &0u32.to_le_bytes()], backend);
        assert_eq!(run.read_u64(out, 2), vec![0x0123_4567_89ab_cdef, 0], "{backend}: .shared v2.u32 then u64; generic to global");
        let err = run.ctx.launch(&program, "k", [1, 1, 1], &[&out.to_le_bytes(), &1u32.to_le_bytes()], backend).expect_err("generic to shared");
        assert!(err.to_string().contains("through a generic address reached shared memory"), "{backend}: {err}");
    }
}
