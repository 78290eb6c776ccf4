//! Translation time grows (near) linearly with kernel size (issue 12): generated straight-line
//! kernels and random forward-branch DAGs. The tests pin that 100,000 instructions and 5,000
//! blocks translate to both targets in seconds; the benchmark prints each stage's time at
//! sizes N, 2N, 4N and the growth ratios:
//!
//! `cargo test --release -p ptxcross-tests --test translate_scaling -- --ignored --nocapture`

use std::time::{Duration, Instant};

#[path = "../benches/common/mod.rs"]
mod common;

use ptxcross::translate::{self, Profile};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;

fn wrap(body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry gen(.param .u64 out_p)\n{{\n\
         \t.reg .b32 %r<64>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<4>;\n\
         \tld.param.u64 %rd1, [out_p];\n\tmov.u32 %r0, %tid.x;\n{body}\
         $END:\n\tst.global.u32 [%rd1], %r7;\n\tret;\n}}\n"
    )
}

/// `n` integer instructions on 50 registers, no branches.
fn straight_line(n: usize) -> String {
    let ops = ["add.u32", "xor.b32", "mul.lo.u32", "sub.u32"];
    let body: String = (0..n)
        .map(|i| format!("\t{} %r{}, %r{}, %r{};\n", ops[i % 4], (i * 13 + 1) % 50, i % 50, (i * 7 + 3) % 50))
        .collect();
    wrap(&body)
}

/// `n` blocks, each a little arithmetic and a predicated forward branch to a pseudo-random
/// later block (a DAG with many joins).
fn random_dag(n: usize) -> String {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut body = String::new();
    for i in 0..n {
        let target = i + 1 + (next() % 16) as usize;
        let target = if target >= n { "$END".to_string() } else { format!("$B{target}") };
        body += &format!(
            "$B{i}:\n\tadd.u32 %r{a}, %r{a}, {i};\n\tsetp.lt.u32 %p1, %r{a}, %r0;\n\t@%p1 bra {target};\n",
            a = i % 40 + 1
        );
    }
    wrap(&body)
}

/// Seconds per stage: lower, SPIR-V emission, SPIR-V validation, WGSL emission, naga validation.
fn stages(ptx: &str, validate: bool) -> [Duration; 5] {
    let file = SourceFile::new("gen.ptx", ptx);
    let t = Instant::now();
    let module = translate::frontend(&file, &LowerOptions::default()).expect("lowers");
    let lower = t.elapsed();
    let t = Instant::now();
    let words = translate::emit_spirv(&module).expect("SPIR-V");
    let spirv = t.elapsed();
    let t = Instant::now();
    if validate {
        translate::validate_spirv(&words).expect("SPIR-V validation");
    }
    let spirv_val = t.elapsed();
    let t = Instant::now();
    let wgsl = translate::emit_wgsl(&module, Profile::Wgpu).expect("WGSL");
    let wgsl_t = t.elapsed();
    let t = Instant::now();
    if validate {
        translate::validate_wgsl(&wgsl, Profile::Wgpu).expect("naga");
    }
    [lower, spirv, spirv_val, wgsl_t, t.elapsed()]
}

#[test]
fn hundred_thousand_instructions_and_five_thousand_blocks_translate_in_seconds() {
    // Generous bounds for a loaded 2-core CI machine (a dev build runs each in ~1-3 s).
    for (name, ptx) in [("100,000 instructions", straight_line(100_000)), ("5,000 blocks", random_dag(5_000))] {
        let t = Instant::now();
        let [lower, spirv, _, wgsl, _] = stages(&ptx, false);
        let total = t.elapsed();
        eprintln!("{name}: lower {lower:?}, SPIR-V {spirv:?}, WGSL {wgsl:?}");
        assert!(total < Duration::from_secs(60), "{name}: translation took {total:?}");
    }
}

#[test]
#[ignore]
fn scaling_benchmark() {
    let n: usize = std::env::var("PX_BENCH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let validate = std::env::var("PX_BENCH_VALIDATE").as_deref() != Ok("0");
    for (shape, make) in [("straight-line", straight_line as fn(usize) -> String), ("random DAG", |n| random_dag(n / 5))] {
        let mut prev: Option<[Duration; 5]> = None;
        for k in [1, 2, 4] {
            let size = n * k;
            let s = stages(&make(size), validate);
            let names = ["lower", "SPIR-V emit", "SPIR-V validate", "WGSL emit", "naga validate"];
            let mut line = format!("{shape} N={size}:");
            for (i, name) in names.iter().enumerate() {
                line += &format!(" {name} {:.3}s", s[i].as_secs_f64());
                if let Some(p) = prev {
                    line += &format!(" (x{:.2})", s[i].as_secs_f64() / p[i].as_secs_f64().max(1e-6));
                }
            }
            println!("{line}");
            prev = Some(s);
        }
    }
}

/// Prints the deepest nesting of every kernel of the corpora (issue 12's "report the maximum
/// nesting depth on the corpora"):
/// `cargo test -p ptxcross-tests --test translate_scaling -- --ignored --nocapture corpus_nesting`
#[test]
#[ignore]
fn corpus_nesting() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = common::ptx_files(&root.join("corpus/ptx"));
    files.extend(common::ptx_files(&root.join("parse-corpus/real")));
    let (mut max, mut lowered) = (0, 0);
    for f in &files {
        let Ok(file) = translate::load(f) else { continue };
        let Ok(module) = translate::frontend(&file, &LowerOptions::default()) else { continue };
        lowered += 1;
        for k in &module.kernels {
            let n = k.body.nesting();
            max = max.max(n.total);
            println!("{:>4} {:>4} {:>4}  {} {}", n.total, n.ifs, n.loops, f.display(), k.name);
        }
    }
    println!("{} files, {lowered} lowered; deepest nesting {max}", files.len());
}

/// A kernel long enough for the WGSL backend to split it into functions (naga's front end is
/// quadratic in the expressions of one function) runs right on both backends against a CPU
/// model: the register values flow through the parts' module-scope variables. (The early
/// return in the middle ends up, with the rest of the kernel, in an if/else inside the last
/// part: the structurizer nests the rest when both arms return.)
#[test]
fn a_long_kernel_split_into_parts_runs_right() {
    let n = 3_000u32;
    let mut body = String::from("mov.u32 %r10, %r6;\n");
    for i in 0..n {
        body += &match i % 3 {
            0 => format!("mul.lo.u32 %r10, %r10, {};\n", 2 * i + 0x9E37_79B1),
            1 => format!("xor.b32 %r10, %r10, {i};\n"),
            _ => "shr.u32 %r11, %r10, 7;\nadd.u32 %r10, %r10, %r11;\n".to_string(),
        };
        if i == n / 2 {
            // Threads with an odd value stop here, inside an early part.
            body += "and.b32 %r12, %r10, 1;\nsetp.eq.u32 %p1, %r12, 1;\n@%p1 st.global.u32 [%rd7], %r10;\n@%p1 ret;\n";
        }
    }
    body += "st.global.u32 [%rd7], %r10;\n";
    let model = move |x: u32| {
        let mut r = x;
        for i in 0..n {
            r = match i % 3 {
                0 => r.wrapping_mul(2 * i + 0x9E37_79B1),
                1 => r ^ i,
                _ => r.wrapping_add(r >> 7),
            };
            if i == n / 2 && r & 1 == 1 {
                return r;
            }
        }
        r
    };
    // The WGSL really is split (more than one function holds the kernel's code).
    let file = SourceFile::new("long.ptx", format!("{}.visible .entry k(.param .u64 out, .param .u64 inp)\n{{\n.reg .pred %p<8>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<12>;\nld.param.u64 %rd1, [out];\nmov.u32 %r6, %tid.x;\nmul.wide.u32 %rd5, %r6, 4;\nadd.s64 %rd7, %rd1, %rd5;\n{body}ret;\n}}\n", ptxcross_tests::launch::PER_THREAD_HEADER));
    let module = translate::frontend(&file, &LowerOptions::default()).expect("lowers");
    let wgsl = translate::emit_wgsl(&module, Profile::Wgpu).expect("WGSL");
    assert!(wgsl.contains("fn px_part1("), "not split");
    ptxcross_tests::launch::check_per_thread("long kernel", "", &body, 4, 64, model);
}
