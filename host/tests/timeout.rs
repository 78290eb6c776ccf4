//! `--timeout` bounds `run` and `verify` whatever the driver does (issue 7 §2): a kernel that
//! would spin for hours, and a kernel whose pipeline takes lavapipe a minute to build, both end
//! the process with a timeout report shortly after the limit. Out-of-range limits are usage
//! errors.

mod common;
use common::no_adapter;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn ptxcross(args: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    // Local memory stays a private array (lavapipe builds BIG_LOCAL's pipeline for a minute
    // that way; in the scratch buffer, the default, it takes 0.2 s).
    let o = Command::new(env!("CARGO_BIN_EXE_ptxcross"))
        .args(args)
        .env("PTXCROSS_LOCAL_SCRATCH_BYTES", "4294967295")
        .output()
        .expect("run ptxcross");
    (o, t.elapsed())
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}


/// `n` iterations per thread, `out[0] = ` a hash of the trip. (One loop of fewer than 65,535
/// iterations: lavapipe cuts longer ones, see issue 7 §3; the time comes from the grid.)
const SPIN: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry spin(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u32 %r1, [n];
	mov.u32 %r3, 0;
	mov.u32 %r5, 0;
LOOP:
	add.u32 %r5, %r5, %r3;
	mul.lo.u32 %r5, %r5, 1664525;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, %r1;
	@%p1 bra LOOP;
	st.global.u32 [%rd1], %r5;
	ret;
}
"#;

/// 4 KiB of dynamically indexed local memory per thread: lavapipe takes about a minute to
/// create this pipeline (issue 7 §5), so the limit must cover pipeline creation.
const BIG_LOCAL: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry big_local(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.local .align 4 .b32 loc[1024];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u32 %r1, [n];
	mov.u64 %rd2, loc;
	mov.u32 %r2, 0;
FILL:
	mul.lo.u32 %r3, %r2, %r1;
	and.b32 %r3, %r3, 1023;
	mul.wide.u32 %rd3, %r3, 4;
	add.u64 %rd4, %rd2, %rd3;
	st.local.u32 [%rd4], %r2;
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, 1024;
	@%p1 bra FILL;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd2, %rd3;
	ld.local.u32 %r4, [%rd4];
	st.global.u32 [%rd1], %r4;
	ret;
}
"#;

fn spec_dir(tag: &str, ptx: &str, kernel: &str, grid: u32, block: u32, n: u32) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxcross-timeout-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.ptx"), ptx).unwrap();
    let spec = format!(
        r#"{{"ptx": "k.ptx", "kernel": "{kernel}", "grid": [{grid}], "block": [{block}],
            "buffers": {{"out": {{"zeros": 4}}}},
            "args": [{{"buffer": "out"}}, {{"type": "u32", "value": {n}}}]}}"#
    );
    std::fs::write(dir.join("k.json"), spec).unwrap();
    dir
}

/// `args` with the spec path appended must end with a timeout report within `limit` + slack.
fn assert_times_out(args: &[&str], spec: &str, limit: f64) {
    let mut all: Vec<&str> = args.to_vec();
    all.push(spec);
    let (o, wall) = ptxcross(&all);
    if no_adapter(&o) {
        return;
    }
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains("timeout: did not finish within"), "{args:?}: {err}");
    // Slack: opening the device and the probes before the first deadline (under a second on
    // lavapipe), and a loaded CI machine.
    assert!(wall.as_secs_f64() < limit + 6.0, "{args:?}: took {wall:?} with --timeout {limit}");
}

#[test]
fn timeout_ends_a_kernel_that_would_spin_for_hours() {
    // 60,000 iterations for each of 16.7 million threads: hours on lavapipe.
    let dir = spec_dir("spin", SPIN, "spin", 65_535, 256, 60_000);
    let spec = dir.join("k.json");
    let spec = spec.to_str().unwrap();
    for backend in ["spirv", "wgsl"] {
        assert_times_out(&["run", "--timeout", "1.5", "--backend", backend, "--spec"], spec, 1.5);
    }
    assert_times_out(&["verify", "--timeout", "1.5"], spec, 1.5);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn timeout_covers_pipeline_creation() {
    let dir = spec_dir("pipeline", BIG_LOCAL, "big_local", 1, 64, 7);
    let spec = dir.join("k.json");
    assert_times_out(&["run", "--timeout", "2", "--backend", "spirv", "--spec"], spec.to_str().unwrap(), 2.0);
    std::fs::remove_dir_all(&dir).ok();
}

/// `d` nested loops (each runs once): translating is quick, but Khronos' validator needs many
/// seconds for a SPIR-V nest this deep (its time grows with the cube of the depth: 250 levels
/// about 5 s, 500 about 45 s on this project's CI machines).
fn nested_loops(d: usize) -> String {
    let mut body = String::new();
    for i in 0..d {
        body += &format!("H{i}:\n\tadd.u32 %r2, %r2, 1;\n");
    }
    for i in (0..d).rev() {
        body += &format!("\tsetp.gt.u32 %p1, %r1, {};\n\t@%p1 bra H{i};\n", i + 1_000_000);
    }
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry nest(.param .u64 out, .param .u32 n)\n{{\n\
         \t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [out];\n\
         \tcvta.to.global.u64 %rd1, %rd1;\n\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, 0;\n{body}\
         \tst.global.u32 [%rd1], %r2;\n\tret;\n}}\n"
    )
}

#[test]
fn timeout_covers_spirv_validation() {
    // Issue 13 §3: validation runs inside the backend's deadline, like pipeline creation.
    let dir = spec_dir("validation", &nested_loops(400), "nest", 1, 1, 0);
    let spec = dir.join("k.json");
    let spec = spec.to_str().unwrap();
    let (o, wall) = ptxcross(&["run", "--timeout", "2", "--backend", "spirv", "--spec", spec]);
    if !no_adapter(&o) {
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        // The SPIR-V backend's deadline (translation, validation, pipeline) fired, not the
        // frontend's, which is quick here; and on time, so validation did not run past it.
        assert!(err.contains("nest [SPIR-V]: ERROR: timeout: did not finish within"), "{err}");
        assert!(wall.as_secs_f64() < 2.0 + 6.0, "took {wall:?} with --timeout 2");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn out_of_range_timeouts_are_usage_errors() {
    for bad in ["1e300", "inf", "nan", "-1", "1e-400x", "604801"] {
        let flag = format!("--timeout={bad}");
        let (o, _) = ptxcross(&["run", &flag, "--spec", "none.json"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--timeout"), "{bad}: {err}");
        assert!(!err.contains("internal error") && !err.contains("panicked"), "{bad}: {err}");
        let (o, _) = ptxcross(&["verify", &flag, "none.json"]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("--timeout"), "{bad}: {}", stderr(&o));
    }
}
