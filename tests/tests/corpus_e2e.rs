//! The conformance corpus end to end: every kernel of `tests/corpus` (real nvcc 13.5 and NVRTC
//! 12.9 output) translates to SPIR-V and WGSL that pass `spirv-val --target-env vulkan1.1` and
//! naga, and runs on the GPU through both backends with results bit-identical to the
//! independent CPU reference (`tests/corpus/reference/gen.py`).

use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn files(dir: &Path, ext: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("corpus folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| p.display().to_string())
        .collect();
    v.sort();
    v
}

fn cli(args: &[&str]) -> i32 {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    ptxcross::cli::main(&args)
}

#[test]
fn every_corpus_module_validates() {
    let ptx = files(&corpus().join("ptx"), "ptx");
    assert!(ptx.len() >= 12, "corpus has {} PTX files", ptx.len());
    assert!(ptxcross::translate::spirv_validator_available(), "a SPIR-V validator is needed (scripts/install-deps.sh)");
    let mut args = vec!["check"];
    args.extend(ptx.iter().map(String::as_str));
    assert_eq!(cli(&args), 0, "ptxcross check failed on the corpus (output above)");
}

#[test]
fn every_corpus_kernel_runs_bit_exact_on_both_backends() {
    if let Err(e) = ptxcross::Gpu::shared() {
        if std::env::var("PTXCROSS_REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("no GPU adapter: {e}");
        }
        eprintln!("skipped: no GPU adapter ({e})");
        return;
    }
    let specs = files(&corpus().join("specs"), "json");
    assert!(specs.len() >= 12);
    let mut failed = Vec::new();
    for spec in &specs {
        if cli(&["run", "--spec", spec]) != 0 {
            failed.push(spec.clone());
        }
    }
    assert!(failed.is_empty(), "specs that failed (details above): {failed:#?}");
}

/// PTX using something not implemented yet is refused with the feature and its place, and
/// `check` exits 2 — never a panic or a guessed translation.
#[test]
fn unsupported_features_are_clear_errors() {
    let dir = std::env::temp_dir().join(format!("ptxcross-unsupported-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Instructions no open issue implements, so the test keeps meaning what it says as
    // coverage grows (a case that becomes supported must be replaced, not deleted).
    let cases = [
        ("multimem.ptx", "    multimem.ld_reduce.relaxed.sys.global.add.u32 %r2, [%r1];", "not supported yet: instruction `multimem.ld_reduce.relaxed.sys.global.add.u32`", 10),
        ("movmatrix.ptx", "    movmatrix.sync.aligned.m8n8.trans.b16 %r2, %r1;", "not supported yet: instruction `movmatrix.sync.aligned.m8n8.trans.b16`", 10),
        ("tensormap.ptx", "    tensormap.replace.tile.global_address.global.b1024.b64 [%r1], %r2;", "not supported yet: instruction `tensormap.replace.tile.global_address.global.b1024.b64`", 10),
    ];
    for (name, line, want, line_no) in cases {
        let ptx = format!(
            ".version 8.5\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{{\n    .reg .b32 %r<4>;\n    .reg .f32 %f<2>;\n    mov.u32 %r1, %tid.x;\n    mov.f32 %f1, 0f3F800000;\n{line}\n    ret;\n}}\n"
        );
        let path = dir.join(name);
        std::fs::write(&path, &ptx).unwrap();
        let file = ptxcross_frontend::SourceFile::new(path.display().to_string(), ptx.clone());
        let err = ptxcross::translate::frontend(&file, &ptxcross_lower::LowerOptions::default())
            .expect_err("must be refused");
        let text = err.render();
        assert!(text.contains(want), "{name}: {text}");
        assert!(text.contains(&format!("{}:{line_no}:", path.display())), "{name}: {text}");
        assert_eq!(cli(&["check", path.to_str().unwrap()]), 2, "{name}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The corpus again, translated as for a device without 64-bit integers (`--split-int64`, what
/// browsers get): every kernel computes 64-bit addresses, so this runs the int64 split on real
/// nvcc and NVRTC code, bit-exact against the same references (saxpy's `fma.rn.f32` then runs
/// through the integer-only exact emulation where the device's fma is not fused).
#[test]
fn every_corpus_kernel_runs_bit_exact_without_64_bit_integers() {
    if ptxcross::Gpu::shared().is_err() && std::env::var("PTXCROSS_REQUIRE_GPU").as_deref() != Ok("1") {
        eprintln!("skipped: no GPU adapter");
        return;
    }
    let mut failed = Vec::new();
    let mut passed = 0;
    for spec in files(&corpus().join("specs"), "json") {
        match cli(&["run", "--split-int64", "--spec", &spec]) {
            0 => passed += 1,
            code => failed.push(format!("{spec}: exit {code}")),
        }
    }
    assert!(failed.is_empty(), "specs that failed with --split-int64 (details above): {failed:#?}");
    assert!(passed >= 12, "only {passed} specs ran");
}
