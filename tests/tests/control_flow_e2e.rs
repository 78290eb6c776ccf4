//! Control-flow shapes that used to nest one level per branch (issues 12 and 13): a chain of
//! early exits to one label, nested ifs, compare-and-branch switches (one predicate register
//! per test, and one shared by all: an `else if` ladder). Each is translated (both modules validated by spirv-val and naga),
//! its nesting is checked against the drivers' limits, and it runs on both backends with
//! results compared with a CPU computation of the same program written here.
//!
//! GPU runs need an adapter (lavapipe is enough); without one they print why and pass, unless
//! `PTXCROSS_REQUIRE_GPU=1`.

use ptxcross::runtime::{Backend, Context, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;

/// Threads per launch (one block).
const THREADS: u32 = 256;

/// Deepest nesting these shapes may reach; lavapipe's condition stack mis-executes past ~80
/// levels (measured: see `lavapipe_nesting_limit`), Tint refuses 63.
const FLAT_ENOUGH: usize = 8;

fn gpu_available() -> bool {
    match ptxcross::Gpu::shared() {
        Ok(_) => true,
        Err(e) => {
            if std::env::var("PTXCROSS_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("PTXCROSS_REQUIRE_GPU=1 but: {e}");
            }
            eprintln!("skipping GPU part: {e}");
            false
        }
    }
}

/// The common frame: `out[tid] = f(in[tid])` where the body computes `%r3` from `%r2 = in[tid]`.
fn kernel(name: &str, body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\n\
         .visible .entry {name}(.param .u64 in_p, .param .u64 out_p)\n{{\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<400>;\n\
         \tld.param.u64 %rd1, [in_p];\n\tld.param.u64 %rd2, [out_p];\n\
         \tcvta.to.global.u64 %rd1, %rd1;\n\tcvta.to.global.u64 %rd2, %rd2;\n\
         \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\
         \tadd.s64 %rd4, %rd1, %rd3;\n\tld.global.u32 %r2, [%rd4];\n\tmov.u32 %r3, 0;\n\
         {body}\
         $DONE:\n\tadd.s64 %rd5, %rd2, %rd3;\n\tst.global.u32 [%rd5], %r3;\n\tret;\n}}\n"
    )
}

/// Translates (validating both modules), checks nesting, runs on both backends, compares.
fn check(name: &str, ptx: &str, input: &[u32], expect: impl Fn(u32) -> u32) {
    assert!(ptxcross::translate::spirv_validator_available(), "a SPIR-V validator is needed (scripts/install-deps.sh)");
    let file = SourceFile::new(format!("{name}.ptx"), ptx);
    let options = LowerOptions { block: Some([THREADS, 1, 1]), ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let program = ptxcross::translate::build_program(&file, &options, &[Backend::Spirv, Backend::Wgsl], true)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let nesting = program.module().kernels[0].body.nesting();
    assert!(nesting.total <= FLAT_ENOUGH, "{name}: nests {nesting:?}");
    if !gpu_available() {
        return;
    }
    let mut failures = Vec::new();
    for backend in [Backend::Spirv, Backend::Wgsl] {
        let got = launch(&program, name, backend, input);
        let wrong: Vec<(usize, u32, u32)> = got
            .iter()
            .enumerate()
            .filter(|&(i, &g)| g != expect(input[i]))
            .map(|(i, &g)| (i, g, expect(input[i])))
            .take(5)
            .collect();
        if !wrong.is_empty() {
            failures.push(format!("{name} on {backend}: (thread, got, expected) {wrong:?}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

fn launch(program: &Program, kernel: &str, backend: Backend, input: &[u32]) -> Vec<u32> {
    let mut ctx = Context::with_heap(1 << 20).expect("context");
    let bytes = input.len() as u64 * 4;
    let (inp, out) = (ctx.alloc(bytes).expect("alloc"), ctx.alloc(bytes).expect("alloc"));
    let data: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    ctx.write(inp, &data).expect("write");
    ctx.write(out, &vec![0xEE; bytes as usize]).expect("write");
    ctx.launch(program, kernel, [1, 1, 1], &[&inp.0.to_le_bytes(), &out.0.to_le_bytes()], backend)
        .unwrap_or_else(|e| panic!("{kernel} on {backend}: {e}"));
    assert_eq!(ctx.fault_word().expect("fault word"), 0, "{kernel} on {backend} faulted");
    ctx.read(out, bytes).expect("read").chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Inputs: every thread a different value, some hitting each case / exit, some none.
fn inputs(span: u32) -> Vec<u32> {
    (0..THREADS).map(|t| (t * 7 + t / 3) % span).collect()
}

#[test]
fn chain_of_100_early_exits_to_one_label() {
    const N: u32 = 100;
    // repeat i: if (x == 2i) goto DONE; r3 += 1  — one shared predicate register.
    let body: String = (0..N)
        .map(|i| format!("\tsetp.eq.u32 %p1, %r2, {};\n\t@%p1 bra $DONE;\n\tadd.u32 %r3, %r3, 1;\n", 2 * i))
        .collect();
    let expect = |x: u32| if x % 2 == 0 && x / 2 < N { x / 2 } else { N };
    check("exit_chain", &kernel("exit_chain", &body), &inputs(2 * N + 40), expect);
}

#[test]
fn hundred_nested_ifs_with_code_after_each() {
    const N: u32 = 100;
    // if (x >= i) { r3 += i + 1; <level i+1> } r3 = r3 * 3 + i  (code after every closing brace)
    let mut body = String::new();
    for i in 0..N {
        body += &format!("\tsetp.lt.u32 %p{i}, %r2, {i};\n\t@%p{i} bra $E{i};\n\tadd.u32 %r3, %r3, {};\n", i + 1);
    }
    for i in (0..N).rev() {
        body += &format!("$E{i}:\n\tmad.lo.u32 %r3, %r3, 3, {i};\n");
    }
    let expect = |x: u32| {
        // Levels 0..=x are entered; the first failing test (level x + 1) jumps to its closing
        // code, which falls through the closing code of every enclosing level.
        let entered = (x + 1).min(N);
        let mut r = (0..entered).fold(0u32, |r, i| r.wrapping_add(i + 1));
        for j in (0..=(x + 1).min(N - 1)).rev() {
            r = r.wrapping_mul(3).wrapping_add(j);
        }
        r
    };
    check("nested_ifs", &kernel("nested_ifs", &body), &inputs(N + 20), expect);
}

/// `switch (x) { case k: r3 = x * (k+1) + k*k; … default: r3 = x + 1000000 }` as
/// compare-and-branch; `shared_pred`: one predicate register for every test instead of one
/// per test (what nvcc writes).
fn switch_ptx(name: &str, cases: u32, shared_pred: bool) -> String {
    let mut body = String::new();
    for k in 0..cases {
        let p = if shared_pred { 1 } else { k + 1 };
        body += &format!("\tsetp.eq.u32 %p{p}, %r2, {};\n\t@%p{p} bra $C{k};\n", 3 * k);
    }
    body += "\tadd.u32 %r3, %r2, 1000000;\n\tbra.uni $DONE;\n";
    for k in 0..cases {
        body += &format!("$C{k}:\n\tmad.lo.u32 %r3, %r2, {}, {};\n\tbra.uni $DONE;\n", k + 1, k * k);
    }
    kernel(name, &body)
}

fn switch_expect(cases: u32) -> impl Fn(u32) -> u32 {
    move |x| if x % 3 == 0 && x / 3 < cases { x.wrapping_mul(x / 3 + 1).wrapping_add((x / 3) * (x / 3)) } else { x + 1_000_000 }
}

#[test]
fn switch_of_100_cases_as_compare_and_branch() {
    check("switch_folded", &switch_ptx("switch_folded", 100, false), &inputs(330), switch_expect(100));
}

#[test]
fn else_if_ladder_of_100_cases() {
    check("switch_ladder", &switch_ptx("switch_ladder", 100, true), &inputs(330), switch_expect(100));
}

#[test]
fn branch_chains_of_any_length_stay_flat() {
    // Only translation here (the runs above cover execution): 600 exits and a 600-case
    // ladder translate to both targets within their nesting limits.
    for (name, ptx) in [
        ("long_exits", kernel("long_exits", &(0..600).map(|i| format!("\tsetp.eq.u32 %p1, %r2, {i};\n\t@%p1 bra $DONE;\n\tadd.u32 %r3, %r3, 1;\n")).collect::<String>())),
        ("long_ladder", switch_ptx("long_ladder", 600, true)),
    ] {
        let file = SourceFile::new(format!("{name}.ptx"), ptx);
        let program = ptxcross::translate::build_program(&file, &ptxcross_tests::launch::device_options(&Backend::ALL), &[Backend::Spirv, Backend::Wgsl], true)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let nesting = program.module().kernels[0].body.nesting();
        assert!(nesting.total <= FLAT_ENOUGH, "{name}: nests {nesting:?}");
    }
}

/// Which sizes of each shape (PX_SHAPE = chain | switch | ladder | nested; PX_SIZES = a list)
/// run right on this machine's driver, both backends, with their nesting. Run:
/// `PX_SHAPE=chain PX_SIZES=64,100,2000 cargo test -p ptxcross-tests --test control_flow_e2e -- --ignored --nocapture probe`
/// (With the block exit limit lifted, lavapipe 22.3 ran 81 exits from one loop right and
/// mis-executed 85: hence `structurize::MAX_BLOCK_EXITS`.)
#[test]
#[ignore]
fn probe_driver_limits() {
    if !gpu_available() {
        return;
    }
    let shape = std::env::var("PX_SHAPE").unwrap_or_default();
    for n in std::env::var("PX_SIZES").unwrap_or("60,70,75,78,79,80,81,85,100".into()).split(',').map(|s| s.parse::<u32>().unwrap()) {
        let (ptx, input, expect): (String, Vec<u32>, Box<dyn Fn(u32) -> u32>) = match shape.as_str() {
            "switch" => (switch_ptx("probe", n, false), inputs(3 * n + 30), Box::new(switch_expect(n))),
            "ladder" => (switch_ptx("probe", n, true), inputs(3 * n + 30), Box::new(switch_expect(n))),
            "nested" => {
                let mut body = String::new();
                for i in 0..n {
                    body += &format!("\tsetp.lt.u32 %p{i}, %r2, {i};\n\t@%p{i} bra $E{i};\n\tadd.u32 %r3, %r3, {};\n", i + 1);
                }
                for i in (0..n).rev() {
                    body += &format!("$E{i}:\n\tmad.lo.u32 %r3, %r3, 3, {i};\n");
                }
                let e = move |x: u32| {
                    let mut r = (0..(x + 1).min(n)).fold(0u32, |r, i| r.wrapping_add(i + 1));
                    for j in (0..=(x + 1).min(n - 1)).rev() {
                        r = r.wrapping_mul(3).wrapping_add(j);
                    }
                    r
                };
                (kernel("probe", &body), inputs(n + 20), Box::new(e))
            }
            _ => {
                let body: String = (0..n).map(|i| format!("\tsetp.eq.u32 %p1, %r2, {};\n\t@%p1 bra $DONE;\n\tadd.u32 %r3, %r3, 1;\n", 2 * i)).collect();
                (kernel("probe", &body), inputs(2 * n + 40), Box::new(move |x: u32| if x % 2 == 0 && x / 2 < n { x / 2 } else { n }))
            }
        };
        let file = SourceFile::new("probe.ptx", ptx);
        let options = LowerOptions { block: Some([THREADS, 1, 1]), ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
        let program = match ptxcross::translate::build_program(&file, &options, &[Backend::Spirv, Backend::Wgsl], false) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{shape} n={n}: {e}");
                continue;
            }
        };
        let nesting = program.module().kernels[0].body.nesting();
        let mut line = format!("{shape} n={n} nesting={nesting:?}");
        for backend in [Backend::Spirv, Backend::Wgsl] {
            let got = launch(&program, "probe", backend, &input);
            let wrong = got.iter().enumerate().filter(|&(i, &g)| g != expect(input[i])).count();
            line += &format!(" {backend}: {wrong} wrong");
        }
        eprintln!("{line}");
    }
}

/// `brx.idx` over a `.branchtargets` list of `len` entries naming `distinct` labels (shared
/// targets: entry i names label i % distinct). Out-of-range indices may take any target.
fn brx_ptx(name: &str, len: u32, distinct: u32) -> String {
    let list: Vec<String> = (0..len).map(|i| format!("$T{}", i % distinct)).collect();
    let mut body = format!("$TS: .branchtargets {};\n\tbrx.idx %r2, $TS;\n", list.join(", "));
    for k in 0..distinct {
        body += &format!("$T{k}:\n\tmad.lo.u32 %r3, %r2, {}, {};\n\tbra.uni $DONE;\n", k + 1, k * k);
    }
    kernel(name, &body)
}

#[test]
fn brx_idx_with_shared_targets_and_out_of_range_indices() {
    for (len, distinct) in [(5u32, 3u32), (100, 37)] {
        let name = format!("brx_{len}");
        let target_value = |x: u32, k: u32| x.wrapping_mul(k + 1).wrapping_add(k * k);
        let input = inputs(len + 30); // indices up to len + 29: some out of range
        let file = SourceFile::new(format!("{name}.ptx"), brx_ptx(&name, len, distinct));
        let options = LowerOptions { block: Some([THREADS, 1, 1]), ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
        let program = ptxcross::translate::build_program(&file, &options, &[Backend::Spirv, Backend::Wgsl], true)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(program.module().kernels[0].body.nesting().total <= FLAT_ENOUGH);
        if !gpu_available() {
            return;
        }
        for backend in [Backend::Spirv, Backend::Wgsl] {
            let got = launch(&program, &name, backend, &input);
            for (t, (&x, &g)) in input.iter().zip(&got).enumerate() {
                if x < len {
                    assert_eq!(g, target_value(x, x % distinct), "{name} on {backend}: thread {t}, index {x}");
                } else {
                    assert!((0..distinct).any(|k| g == target_value(x, k)), "{name} on {backend}: thread {t}, out-of-range index {x} gave {g}, no target's value");
                }
            }
        }
    }
}
