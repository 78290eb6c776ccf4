//! Issue 10: Tint's uniformity analysis over every SIMT kernel the test suite translates,
//! the PTX written inside Rust tests included (`simt_kernels`, `simt_atomics`,
//! `warp_meeting`, `named_barriers`, the differential tester's SIMT families, sweeps, ...),
//! not only the PTX files `browser_tint.rs` reads.
//!
//! `scripts/test.sh` runs the workspace tests with `PTXCROSS_PTX_DUMP=target/ptx-dump`
//! (`ptxcross::ptx_dump`: every distinct source `translate` lowered, with the launch options
//! that shape its code), then this test with `PTXCROSS_TINT_COLLECTED` naming that folder.
//! Each source is lowered again with the `webgpu` profile's options; those with a kernel of
//! SIMT content ([`tint::simt_content`], decided on the lowered IR) are emitted and compiled
//! as shader modules in one page of headless Chromium (Tint's uniformity analysis and WGSL
//! validation run at module creation; pipelines are left out: SwiftShader builds the big
//! ones for minutes). Refusals are allowed only as in `browser_tint.rs`.

use std::collections::HashSet;
use std::path::PathBuf;

use ptxcross::{ptx_dump, translate};
use ptxcross::translate::Profile;
use ptxcross_tests::tint;

/// The folder of collected sources.
const ENV: &str = "PTXCROSS_TINT_COLLECTED";

/// Larger modules are left out, by name: Chromium's GPU process drops the WebGPU instance
/// ("Instance dropped error in getCompilationInfo", after 2-3 minutes, also with
/// `--disable-gpu-watchdog`) on the one module of the suite above it, 8.7 MB of WGSL from
/// `warp_meeting`'s `Meeting::MeetAlways` measurement (the CTA scheduler whatever its size,
/// which the default `Meet` refuses for such a kernel). The next largest, 2.7 MB, takes 6 s.
const MAX_WGSL_BYTES: usize = 4 << 20;

/// Besides `tint::ALLOWED_REFUSALS`: the webgpu profile's nesting limit for browsers' WGSL
/// compilers, which the host's tests of deep control flow pass on purpose.
const ALLOWED_HERE: [&str; 1] = ["the webgpu profile's WGSL compilers accept at most"];

/// Fewer SIMT modules than this means the collection broke (an empty or partial dump): 794
/// came from 39 of the test files and the host's and driver's tests on 2026-11-28.
const FLOOR: usize = 500;

#[test]
#[ignore = "checks the PTX the suite collected: scripts/test.sh runs it after the workspace tests"]
fn every_collected_simt_kernel_passes_tints_uniformity_analysis() {
    let dir = std::env::var_os(ENV).filter(|d| !d.is_empty()).map(PathBuf::from).unwrap_or_else(|| {
        panic!("{ENV} must name the folder of a run with {}=DIR (scripts/test.sh sets both)", ptx_dump::ENV)
    });
    let Some(check) = tint::Check::new(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-tint-collected")) else { return };
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    sources.sort();
    let started = std::time::Instant::now();
    let (mut plain, mut refused, mut unexpected, mut too_large) = (0, 0, Vec::new(), Vec::new());
    let mut seen = HashSet::new();
    for path in &sources {
        let (file, options) = ptx_dump::read(path, &tint::webgpu_options()).unwrap();
        let module = match translate::frontend(&file, &options) {
            Ok(m) => m,
            Err(e) => {
                record_refusal(path, &e.render(), &mut refused, &mut unexpected);
                continue;
            }
        };
        if !module.kernels.iter().any(tint::simt_content) {
            plain += 1;
            continue;
        }
        let text = translate::emit_wgsl(&module, Profile::WebGpu).and_then(|text| {
            translate::validate_wgsl(&text, Profile::WebGpu)?;
            Ok(text)
        });
        match text {
            Ok(text) if text.len() > MAX_WGSL_BYTES => too_large.push(format!("{} ({} bytes)", path.display(), text.len())),
            // Sources that differ only in what the webgpu translation ignores give one module.
            Ok(text) if seen.insert(text.clone()) => {
                let stem = path.file_stem().unwrap().to_string_lossy();
                std::fs::write(check.dir.join(format!("{stem}.module-only.wgsl")), text).unwrap();
            }
            Ok(_) => {}
            Err(e) => record_refusal(path, &e.render(), &mut refused, &mut unexpected),
        }
    }
    let written = seen.len();
    eprintln!(
        "{} sources collected: {written} distinct SIMT modules to check, {plain} without SIMT content, \
         {refused} refused as allowed (64-bit floats, 64-bit atomics, fences, nesting); translated in {:.1} s",
        sources.len(),
        started.elapsed().as_secs_f64()
    );
    if !too_large.is_empty() {
        eprintln!("left out, over {MAX_WGSL_BYTES} bytes of WGSL: {}", too_large.join(", "));
    }
    assert!(too_large.len() <= 2, "more modules too large for the check than expected: {too_large:?}");
    assert!(unexpected.is_empty(), "refused for reasons not allowed here:\n{}", unexpected.join("\n"));
    assert!(written >= FLOOR, "only {written} SIMT modules among the {} collected sources in {}", sources.len(), dir.display());
    let started = std::time::Instant::now();
    tint::check_folder(&check, written);
    eprintln!("checked in Chromium in {:.1} s", started.elapsed().as_secs_f64());
}

fn record_refusal(path: &std::path::Path, why: &str, refused: &mut usize, unexpected: &mut Vec<String>) {
    if tint::ALLOWED_REFUSALS.iter().chain(&ALLOWED_HERE).any(|a| why.contains(a)) {
        *refused += 1;
    } else {
        unexpected.push(format!("{}: {}", path.display(), why.lines().next().unwrap_or("")));
    }
}
