//! lavapipe ends every loop of a thread after 65,535 back-edges in total (issue 7 §3). A kernel
//! that needs more must never be reported as a pass: on a driver that cuts loops the launch
//! fails with a clear error, on any other it gives the right count; an endless loop faults or
//! times out, never passes. Loops below the limit still pass (no false alarm).

mod common;
use common::no_adapter;

use std::path::PathBuf;
use std::process::{Command, Output};

fn ptxcross(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxcross")).args(args).output().expect("run ptxcross")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}


/// `out[tid] = outer * inner` counted one by one in a loop nest (trip counts from parameters).
const COUNT: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry count(.param .u64 out, .param .u32 outer, .param .u32 inner)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u32 %r1, [outer];
	ld.param.u32 %r6, [inner];
	mov.u32 %r2, 0;
	mov.u32 %r5, 0;
OUTER:
	mov.u32 %r3, 0;
INNER:
	add.u32 %r5, %r5, 1;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, %r6;
	@%p1 bra INNER;
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p2, %r2, %r1;
	@%p2 bra OUTER;
	mov.u32 %r7, %tid.x;
	mul.wide.u32 %rd2, %r7, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r5;
	ret;
}

.visible .entry forever(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, 0;
SPIN:
	add.u32 %r1, %r1, 1;
	st.global.u32 [%rd1], %r1;
	bra.uni SPIN;
}
"#;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxcross-loopcut-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("k.ptx"), COUNT).unwrap();
    d
}

/// A spec for `count` with 32 threads; expects `outer * inner` everywhere.
fn count_spec(d: &std::path::Path, outer: u32, inner: u32) -> PathBuf {
    let n = outer as u64 * inner as u64;
    let values = vec![n.to_string(); 32].join(",");
    let text = format!(
        r#"{{"ptx": "k.ptx", "kernel": "count", "grid": [1], "block": [32],
            "buffers": {{"out": {{"zeros": 128}}}},
            "args": [{{"buffer": "out"}}, {{"type": "u32", "value": {outer}}}, {{"type": "u32", "value": {inner}}}],
            "expect": {{"out": {{"type": "u32", "values": [{values}]}}}}}}"#
    );
    let p = d.join(format!("count_{outer}_{inner}.json"));
    std::fs::write(&p, text).unwrap();
    p
}

/// Both backends either give the right count or fail with the driver's-limit fault.
fn assert_right_or_refused(spec: &std::path::Path) {
    let o = ptxcross(&["run", "--spec", spec.to_str().unwrap()]);
    if no_adapter(&o) {
        return;
    }
    let (out, err) = (stdout(&o), stderr(&o));
    for backend in ["[SPIR-V]", "[WGSL]"] {
        let pass = out.lines().any(|l| l.contains(backend) && l.contains(": pass"));
        let refused = err
            .lines()
            .any(|l| l.contains(backend) && l.contains("faulted") && l.contains("cut short by the driver's iteration limit"));
        assert!(pass || refused, "{backend} neither right nor refused:\n{out}{err}");
    }
    assert_ne!(o.status.code(), Some(1), "a cut loop was reported as a wrong result, not refused:\n{out}{err}");
}

#[test]
fn a_loop_of_70000_iterations_is_right_or_refused() {
    let d = dir("70k");
    assert_right_or_refused(&count_spec(&d, 1, 70_000));
    assert_right_or_refused(&count_spec(&d, 1000, 70));
    assert_right_or_refused(&count_spec(&d, 70_000, 1));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn loops_below_the_limit_pass_on_both_backends() {
    let d = dir("below");
    for (outer, inner) in [(1, 60_000), (200, 300), (1, 1)] {
        let spec = count_spec(&d, outer, inner);
        let o = ptxcross(&["run", "--spec", spec.to_str().unwrap()]);
        if no_adapter(&o) {
            return;
        }
        assert_eq!(o.status.code(), Some(0), "{outer}x{inner}: {}{}", stdout(&o), stderr(&o));
        assert_eq!(stdout(&o).matches(": pass").count(), 2, "{}", stdout(&o));
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn an_endless_loop_faults_or_times_out_and_never_passes() {
    let d = dir("forever");
    let text = r#"{"ptx": "k.ptx", "kernel": "forever", "grid": [1], "block": [1],
        "buffers": {"out": {"zeros": 4}}, "args": [{"buffer": "out"}]}"#;
    let spec = d.join("forever.json");
    std::fs::write(&spec, text).unwrap();
    for backend in ["spirv", "wgsl"] {
        let o = ptxcross(&["run", "--timeout", "3", "--backend", backend, "--spec", spec.to_str().unwrap()]);
        if no_adapter(&o) {
            return;
        }
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{backend}: {}{err}", stdout(&o));
        assert!(err.contains("cut short by the driver's iteration limit") || err.contains("timeout"), "{backend}: {err}");
    }
    std::fs::remove_dir_all(&d).ok();
}
