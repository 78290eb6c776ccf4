//! Validation time grows linearly with the size of one function (issue 11: the CUB radix sort's
//! first launch waited minutes in the validators).
//!
//! naga's WGSL front end, which wgpu runs in `create_shader_module` and `ptxcross_wgsl::validate`
//! runs before that, typified a function's expressions in time quadratic in their number
//! (`Typifier::grow`; 88 s for one CUB kernel's WGSL). The workspace uses naga with the fix
//! (`vendor/naga/PTXCROSS-PATCH.md`); this pins it: one function of 4N statements must not take
//! ~16× (quadratic) the time of N statements. Measured in one process, interleaved, the best of
//! several rounds each, so load on the machine does not decide the ratio.

use std::time::{Duration, Instant};

use ptxcross_wgsl::Profile;

/// One compute function of `n` statements on a few variables (≈ 7 naga expressions each).
fn long_function(n: usize) -> String {
    let mut s = String::from("@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\n@compute @workgroup_size(1)\nfn main() {\n    var a: u32 = 1u;\n    var b: u32 = 2u;\n");
    for i in 0..n {
        if i % 2 == 0 {
            s += &format!("    a = (a * {}u) ^ (b + {}u);\n", 2 * i + 1, i);
        } else {
            s += &format!("    b = (b >> 3u) + (a & {}u);\n", i);
        }
    }
    s += "    out[0] = a + b;\n}\n";
    s
}

fn best_of(rounds: usize, text: &str) -> Duration {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            ptxcross_wgsl::validate(text, Profile::Wgpu).expect("valid WGSL");
            t.elapsed()
        })
        .min()
        .unwrap()
}

#[test]
fn naga_validation_is_linear_in_the_statements_of_one_function() {
    let n = 6_000;
    let (small, large) = (long_function(n), long_function(4 * n));
    let (mut s, mut l) = (Duration::MAX, Duration::MAX);
    for _ in 0..5 {
        s = s.min(best_of(1, &small));
        l = l.min(best_of(1, &large));
    }
    let ratio = l.as_secs_f64() / s.as_secs_f64().max(1e-9);
    eprintln!("naga: {n} statements {s:?}, {} statements {l:?}: ×{ratio:.1} (linear 4, quadratic 16)", 4 * n);
    // Linear is 4; naga 30.0.1 unpatched gives ≈ 15 here.
    assert!(ratio < 9.0, "naga's WGSL validation grows ×{ratio:.1} for 4× the statements of one function");
}

/// `n` guarded updates in a row: each `if (r10 < c) { r10 = … }` is a selection of its own at
/// the kernel's top level, so the dominator tree is a chain n deep unless the emitter groups them.
fn guarded_steps(n: u32) -> String {
    let mut body = String::from("mov.u32 %r10, %r6;\n");
    for i in 0..n {
        body += &format!(
            "setp.lt.u32 %p1, %r10, {c};\n@%p1 bra S{i};\nxor.b32 %r10, %r10, {x};\nmul.lo.u32 %r10, %r10, 2654435761;\nS{i}:\n",
            c = 0x8000_0000u32.wrapping_add(i.wrapping_mul(0x9E37_79B9) >> 2),
            x = i.wrapping_mul(0x85EB_CA6B) | 1
        );
        if i == n / 2 {
            // A loop in the middle (its own construct among the selections).
            body += "mov.u32 %r11, 0;\nL:\nadd.u32 %r10, %r10, %r11;\nadd.u32 %r11, %r11, 1;\nsetp.lt.u32 %p2, %r11, 5;\n@%p2 bra L;\n";
        }
    }
    body += "st.global.u32 [%rd7], %r10;\n";
    body
}

fn guarded_model(n: u32) -> impl Fn(u32) -> u32 {
    move |x: u32| {
        let mut r = x;
        for i in 0..n {
            let c = 0x8000_0000u32.wrapping_add(i.wrapping_mul(0x9E37_79B9) >> 2);
            if r >= c {
                r = (r ^ (i.wrapping_mul(0x85EB_CA6B) | 1)).wrapping_mul(2_654_435_761);
            }
            if i == n / 2 {
                for k in 0..5 {
                    r = r.wrapping_add(k);
                }
            }
        }
        r
    }
}

fn guarded_module(n: u32) -> Vec<u32> {
    let ptx = format!(
        "{}.visible .entry k(.param .u64 out, .param .u64 inp)\n{{\n.reg .pred %p<8>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<12>;\n\
         ld.param.u64 %rd1, [out];\nmov.u32 %r6, %tid.x;\nmul.wide.u32 %rd5, %r6, 4;\nadd.s64 %rd7, %rd1, %rd5;\n{}ret;\n}}\n",
        ptxcross_tests::launch::PER_THREAD_HEADER,
        guarded_steps(n)
    );
    let file = ptxcross_frontend::SourceFile::new("guarded.ptx", ptx);
    let module = ptxcross::translate::frontend(&file, &ptxcross_lower::LowerOptions::default()).expect("lowers");
    ptxcross::translate::emit_spirv(&module).expect("SPIR-V")
}

/// Khronos' validator walks the dominator tree per variable use and per construct block, so a
/// chain of n selections cost n² (the CUB radix sort: 100 s). The SPIR-V emitter groups long
/// runs of selections under constant-true selections (depth ≈ 2√n): 4× the selections must
/// not take ~16× the time.
#[test]
fn spirv_validation_is_near_linear_in_selections_in_a_row() {
    let n = 2_000;
    let (small, large) = (guarded_module(n), guarded_module(4 * n));
    let asm = ptxcross::translate::disassemble_spirv(&large);
    // The constant `true`'s id, and the selections on it.
    let t = asm.lines().find_map(|l| l.split_once(" = OpConstantTrue").map(|(id, _)| id.trim().to_string()));
    let grouped = t.map_or(0, |t| asm.lines().filter(|l| l.trim_start().starts_with(&format!("OpBranchConditional {t} "))).count());
    assert!(grouped >= 60, "the run of selections is not grouped ({grouped} constant-true selections)");
    let time = |w: &[u32]| {
        let t = Instant::now();
        ptxcross::translate::validate_spirv(w).expect("valid SPIR-V");
        t.elapsed()
    };
    let (mut s, mut l) = (Duration::MAX, Duration::MAX);
    for _ in 0..5 {
        s = s.min(time(&small));
        l = l.min(time(&large));
    }
    let ratio = l.as_secs_f64() / s.as_secs_f64().max(1e-9);
    eprintln!("SPIR-V validation: {n} selections in a row {s:?}, {} {l:?}: ×{ratio:.1} (linear 4, quadratic 16)", 4 * n);
    assert!(ratio < 9.0, "SPIR-V validation grows ×{ratio:.1} for 4× the selections in a row");
}

/// The grouped selections compute what the kernel says, on both backends, against a CPU model.
#[test]
fn grouped_selections_run_right() {
    let n = 300;
    ptxcross_tests::launch::check_per_thread("guarded steps", "", &guarded_steps(n), 4, 64, guarded_model(n));
}
