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
    for _ in 0..3 {
        s = s.min(best_of(1, &small));
        l = l.min(best_of(1, &large));
    }
    let ratio = l.as_secs_f64() / s.as_secs_f64().max(1e-9);
    eprintln!("naga: {n} statements {s:?}, {} statements {l:?}: ×{ratio:.1} (linear 4, quadratic 16)", 4 * n);
    // Linear is 4; naga 30.0.1 unpatched gives ≈ 14-16 here.
    assert!(ratio < 8.0, "naga's WGSL validation grows ×{ratio:.1} for 4× the statements of one function");
}
