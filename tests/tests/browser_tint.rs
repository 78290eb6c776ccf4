//! Real kernels in browsers: every PTX file of the end-to-end corpora (the conformance corpus,
//! the SIMT kernels with barriers under divergence and warp collectives, device functions,
//! separately compiled units once linked, the FP8 conversions of `tests/fp8`) translated with
//! the `webgpu` WGSL profile (64-bit integers split into halves, as WebGPU has none) and
//! compiled by headless Chromium's WebGPU,
//! whose WGSL compiler (Tint) enforces what naga does not: barriers only in uniform control
//! flow (the uniformity analysis), loops that exit, its own limits. Every compute pipeline must
//! be created (`backend-wgsl/tools/tint-check/check.mjs`).
//!
//! Needs chromium, node and playwright-core (scripts/install-deps.sh installs them; CI sets
//! PTXCROSS_REQUIRE_BROWSER=1 so the test cannot skip). Elsewhere it skips with a note.
//! The only refusals allowed are kernels that need 64-bit floats, 64-bit atomics whose old value
//! is used, or memory fences outside barriers (WebGPU has none of them).

use std::path::{Path, PathBuf};
use std::process::Command;

use ptxcross::translate::{self, Profile};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn required() -> bool {
    std::env::var("PTXCROSS_REQUIRE_BROWSER").as_deref() == Ok("1")
}

/// Chromium and playwright-core's folder, or why not.
fn browser() -> Result<(PathBuf, PathBuf), String> {
    let chromium = std::env::var_os("CHROMIUM").map(PathBuf::from).unwrap_or_else(|| "/usr/lib/chromium/chromium".into());
    if !chromium.exists() {
        return Err(format!("no chromium at {} (apt-get install chromium, or set CHROMIUM)", chromium.display()));
    }
    let modules = std::env::var_os("PTXCROSS_TINT_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/tint-check/node_modules"));
    if !modules.join("playwright-core").exists() {
        return Err(format!("no playwright-core in {} (scripts/install-deps.sh installs it)", modules.display()));
    }
    Ok((chromium, modules))
}

fn ptx_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["tests/corpus/ptx", "tests/simt/ptx", "tests/calls/ptx", "tests/localmem/ptx", "tests/fp8/ptx"] {
        for e in std::fs::read_dir(repo().join(dir)).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "ptx") {
                // The heaviest SIMT kernels (CUB, a dozen warp collectives under divergence)
                // take SwiftShader many minutes to compile (LLVM coroutines at every barrier,
                // as on lavapipe): included only with PTXCROSS_TINT_ALL=1 until measured.
                let name = e.file_name().to_string_lossy().into_owned();
                let heavy = ["cub.sm80.ptx", "match.sm80.ptx", "match.clang.ptx", "vote_groups.ptx", "warp_misc.ptx", "sort.sm80.ptx"];
                if heavy.contains(&name.as_str()) && std::env::var("PTXCROSS_TINT_ALL").as_deref() != Ok("1") {
                    continue;
                }
                files.push(e.path());
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_corpus_kernel_compiles_in_chromium_webgpu() {
    let (chromium, modules) = match browser() {
        Ok(b) => b,
        Err(why) if !required() => return eprintln!("skipped: {why}"),
        Err(why) => panic!("{why}"),
    };
    let dump = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-tint");
    let _ = std::fs::remove_dir_all(&dump);
    std::fs::create_dir_all(&dump).unwrap();
    // As `ptxcross translate --profile webgpu` translates (f32 exact where browsers flush).
    let options = LowerOptions { split_int64: true, flushed_f32: true, ..LowerOptions::default() };
    let mut sources: Vec<(String, SourceFile)> = ptx_files()
        .iter()
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), translate::load(p).unwrap()))
        .collect();
    for compiler in ["nvcc", "clang"] {
        let unit = |u: &str| translate::load(&repo().join(format!("tests/link/ptx/{u}.{compiler}.ptx"))).unwrap();
        let linked = ptxcross_frontend::link::link_sources(&[unit("kernel"), unit("helper")]).unwrap();
        sources.push((format!("linked.{compiler}"), SourceFile::new(format!("linked.{compiler}.ptx"), linked)));
    }
    let (mut written, mut refused) = (0, Vec::new());
    for (name, file) in &sources {
        let text = translate::frontend(file, &options).and_then(|m| {
            let text = translate::emit_wgsl(&m, Profile::WebGpu)?;
            translate::validate_wgsl(&text, Profile::WebGpu)?;
            Ok(text)
        });
        match text {
            Ok(text) => {
                std::fs::write(dump.join(format!("{name}.wgsl")), text).unwrap();
                written += 1;
            }
            Err(e) => {
                let e = e.render();
                // Besides 64-bit floats, WebGPU has no 64-bit atomics and no memory fence
                // outside a barrier (tests/simt/src/histogram64.cu, fence.cu).
                let allowed = ["64-bit floats", "a 64-bit atomic whose old value is used", "memory fence outside a barrier"];
                assert!(allowed.iter().any(|a| e.contains(a)), "{name}: refused for a reason not allowed here:\n{e}");
                refused.push(name.clone());
            }
        }
    }
    eprintln!("{written} modules to check; refused (64-bit floats, 64-bit atomics, fences): {refused:?}");
    assert!(written >= 30, "only {written} modules translated for the webgpu profile");
    let out = Command::new("node")
        .arg(repo().join("backend-wgsl/tools/tint-check/check.mjs"))
        .arg(&dump)
        .arg(&chromium)
        .env("NODE_PATH", &modules)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "Chromium's WebGPU refused some modules (above)");
    assert!(stdout.contains(&format!("{written} passed, 0 failed")), "{stdout}");
}
