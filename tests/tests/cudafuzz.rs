//! cudafuzz's regression set: random CUDA C kernels (`tests/cudafuzz/gen.py`) as real nvcc 13.5
//! and clang-16 compiled them (`cases/<seed>/prog.<variant>.ptx`), run on both backends and
//! compared bit-exactly with the same source compiled for the host by g++
//! (`cases/<seed>/out.expected.bin`, written by `tests/cudafuzz/regen.sh` through
//! `tests/cudafuzz/cf.h` + `host.cpp`, never by ptxcross). Every case that ever failed is here.

use std::path::{Path, PathBuf};

fn specs(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("cudafuzz").join(dir);
    let mut v = Vec::new();
    for case in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(case.path()).into_iter().flatten().flatten() {
            if f.path().extension().is_some_and(|x| x == "json") {
                v.push(f.path());
            }
        }
    }
    v.sort();
    v
}

fn gpu_or_skip() -> bool {
    if let Err(e) = ptxcross::Gpu::shared() {
        if std::env::var("PTXCROSS_REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("no GPU adapter: {e}");
        }
        eprintln!("skipped: no GPU adapter ({e})");
        return false;
    }
    true
}

fn run_all(dir: &str, min: usize) {
    if !gpu_or_skip() {
        return;
    }
    let specs = specs(dir);
    assert!(specs.len() >= min, "{dir}: only {} specs", specs.len());
    let mut failed = Vec::new();
    for spec in &specs {
        let args = vec!["run".to_string(), "--spec".to_string(), spec.display().to_string()];
        if ptxcross::cli::main(&args) != 0 {
            failed.push(spec.display().to_string());
        }
    }
    assert!(failed.is_empty(), "cudafuzz specs that failed (details above): {failed:#?}");
}

#[test]
fn generated_cuda_programs_match_the_host() {
    run_all("cases", 20);
}
