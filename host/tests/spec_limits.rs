//! Launch specs and the files they name cannot block or exhaust `ptxcross` (issue 7 §7): only
//! regular files are read, sizes are checked before anything is allocated, and a spec with
//! tens of thousands of buffers is handled in linear time.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn ptxcross(args: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_ptxcross")).args(args).output().expect("run ptxcross");
    (o, t.elapsed())
}
fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxcross-speclimits-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vecadd.ptx"), d.join("vecadd.ptx")).unwrap();
    d
}

fn spec(d: &Path, name: &str, ptx: &str, buffers: &str, expect: &str) -> PathBuf {
    let p = d.join(name);
    std::fs::write(
        &p,
        format!(r#"{{"ptx": "{ptx}", "kernel": "vecadd", "grid": [1], "buffers": {{{buffers}}}, "args": [], "expect": {{{expect}}}}}"#),
    )
    .unwrap();
    p
}

/// `run` on `spec` ends by itself within 20 s with status 2 and `message`.
fn refused(spec: &Path, message: &str) {
    let (o, wall) = ptxcross(&["run", "--spec", spec.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains(message), "expected `{message}` in {}", text(&o));
    assert!(wall < Duration::from_secs(20), "{wall:?}");
}

#[test]
fn devices_fifos_and_folders_are_not_read() {
    let d = dir("files");
    let fifo = d.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().map(|s| s.success()).unwrap_or(false);
    let mut names = vec!["/dev/zero".to_string(), d.display().to_string()];
    if made {
        names.push(fifo.display().to_string());
    }
    for name in &names {
        let not_regular = if name == &d.display().to_string() { "a folder" } else { "not a regular file" };
        refused(&spec(&d, "buf.json", "vecadd.ptx", &format!(r#""a": {{"file": "{name}"}}"#), ""), not_regular);
        refused(
            &spec(&d, "exp.json", "vecadd.ptx", r#""a": {"zeros": 4}"#, &format!(r#""a": {{"file": "{name}"}}"#)),
            not_regular,
        );
        refused(&spec(&d, "ptx.json", name, "", ""), not_regular);
        let (o, wall) = ptxcross(&["run", "--spec", name]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains(not_regular), "{}", text(&o));
        assert!(wall < Duration::from_secs(20));
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn huge_buffers_are_refused_before_allocation() {
    let d = dir("zeros");
    refused(&spec(&d, "z.json", "vecadd.ptx", r#""a": {"zeros": 1099511627776}"#, ""), "is too large (at most 4294967296)");
    // Each within the limit, together beyond it.
    let two = r#""a": {"zeros": 3000000000}, "b": {"zeros": 3000000000}"#;
    refused(&spec(&d, "z2.json", "vecadd.ptx", two, ""), "more than the spec's data may still total");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_spec_with_64000_buffers_is_handled_in_linear_time() {
    let d = dir("many");
    let n = 64_000;
    let buffers: Vec<String> = (0..n).map(|i| format!(r#""b{i}": {{"type": "u32", "values": [{i}]}}"#)).collect();
    let expect: Vec<String> = (0..n).map(|i| format!(r#""b{i}": {{"type": "u32", "values": [{i}]}}"#)).collect();
    let p = d.join("many.json");
    std::fs::write(
        &p,
        format!(
            r#"{{"ptx": "vecadd.ptx", "kernel": "vecadd", "grid": [1], "block": [64], "buffers": {{{}, "c": {{"zeros": 4}}}},
               "args": [{{"buffer": "b1"}}, {{"buffer": "b2"}}, {{"buffer": "c"}}, {{"type": "s32", "value": 0}}],
               "expect": {{{}}}}}"#,
            buffers.join(","),
            expect.join(",")
        ),
    )
    .unwrap();
    let (o, wall) = ptxcross(&["run", "--backend", "wgsl", "--spec", p.to_str().unwrap()]);
    if text(&o).contains("no GPU adapter found") {
        return;
    }
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Quadratic handling took 64 s; linear takes a few seconds even in a debug build.
    assert!(wall < Duration::from_secs(25), "{wall:?}");
    std::fs::remove_dir_all(&d).ok();
}
