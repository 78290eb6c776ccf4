//! Translation time of the CUB/Thrust file (`tests/parse-corpus/large/cub_zoo.sm_80.ptx`, 247
//! kernels) to both targets, against `ptxas -arch=sm_80 -O0` on the same file in the same run
//! (issue 11: goal ≤ 10%).
//!
//!     cargo bench -p ptxcross-tests --bench translate_time
//!
//! In-process, one stage at a time (wall and CPU time of this process, summed over kernels):
//! parse the file once, then per entry kernel (as the runtime and the driver translate: one
//! module holding all 247 kernels needs 9.8 M SPIR-V ids, more than Vulkan's 4 M) lower it
//! (default options; `ptxcross_lower::lower_each`, one analysis of the file's functions and
//! globals for all kernels), prepare it for both emitters (`ptxcross::translate::prepare_emission`:
//! heap outlining and the kernels' analyses, once), emit SPIR-V, validate it (Khronos' validator, in-process), emit WGSL. "Translation" is what the runtime does before it hands code to wgpu: all of these
//! (SPIR-V goes to the driver unchecked, so it is validated here; WGSL is validated by wgpu's
//! naga when the shader module is created, so the runtime skips a second pass). naga's own WGSL
//! validation of the file is timed separately (`PTXCROSS_WGSL_VALIDATE=0` skips it;
//! `PTXCROSS_SPIRV_VALIDATE=0` skips the SPIR-V validation, see the README for why one may).
//! SPIR-V is validated as the runtime does (`ptxcross::validated`: each accepted module is
//! recorded); the last row is the same check in a later process (the record found, no
//! validator run).
//! `PTXCROSS_TRANSLATE_FILE=path.ptx` measures another file, `PTXCROSS_TRANSLATE_KERNELS=n` its
//! first n kernels only; `$PTXAS` picks ptxas (else the
//! venvs of `tests/parse-corpus/README.md`).
//! `PTXCROSS_TRANSLATE_DIGEST=out.txt` writes one line per kernel (name, a hash of its SPIR-V
//! words and one of its WGSL text) to compare the emitted code of two builds: a change that
//! only makes translation faster must leave the file byte-identical.

mod common;

use std::time::{Duration, Instant};

use ptxcross::translate;
use ptxcross_lower::LowerOptions;

/// CPU time of this process (user + system).
fn cpu_time() -> Duration {
    let mut t = libc_timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec.
    unsafe { clock_gettime(2 /* CLOCK_PROCESS_CPUTIME_ID */, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[repr(C)]
struct libc_timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, t: *mut libc_timespec) -> i32;
    fn getrusage(who: i32, usage: *mut [i64; 18]) -> i32;
}

/// CPU time (user + system) of this process's waited-for children (Linux x86-64/aarch64
/// `struct rusage`: two `timeval`s first, then 14 longs).
fn children_cpu_time() -> Duration {
    let mut u = [0i64; 18];
    // SAFETY: getrusage writes one struct rusage (144 bytes on 64-bit Linux).
    if unsafe { getrusage(-1 /* RUSAGE_CHILDREN */, &mut u) } != 0 {
        return Duration::ZERO;
    }
    Duration::from_micros((u[0] * 1_000_000 + u[1] + u[2] * 1_000_000 + u[3]).max(0) as u64)
}

/// Runs `f`, adding its wall and CPU time to `row`.
fn timed<T>(row: &mut (String, Duration, Duration), f: impl FnOnce() -> T) -> T {
    let (w, c) = (Instant::now(), cpu_time());
    let out = f();
    row.1 += w.elapsed();
    row.2 += cpu_time() - c;
    out
}

fn main() {
    let path = match std::env::var_os("PTXCROSS_TRANSLATE_FILE") {
        Some(p) => std::path::PathBuf::from(p),
        None => match common::ensure_large_file() {
            Ok(p) => p,
            Err(e) => return eprintln!("skipped: {e}"),
        },
    };
    // ptxas first (its wall and CPU time, in a child process).
    let ptxas = common::find_cuda_tool("ptxas").map(|ptxas| {
        let out = std::env::temp_dir().join(format!("ptxcross-translate-time-{}.cubin", std::process::id()));
        let (t, c) = (Instant::now(), children_cpu_time());
        let status = std::process::Command::new(&ptxas)
            .args(["-arch=sm_80", "-O0"])
            .arg(&path)
            .arg("-o")
            .arg(&out)
            .status();
        let (wall, cpu) = (t.elapsed(), children_cpu_time() - c);
        let _ = std::fs::remove_file(&out);
        match status {
            Ok(s) if s.success() => Some((wall, cpu)),
            other => {
                eprintln!("ptxas failed: {other:?}");
                None
            }
        }
    });
    let ptxas = ptxas.flatten();

    let mut rows: Vec<(String, Duration, Duration)> = ["read", "parse", "lower", "prepare emission (once for both)", "emit SPIR-V", "validate SPIR-V", "emit WGSL", "(validate WGSL, naga)", "(validate SPIR-V, recorded by an earlier process)"]
        .iter()
        .map(|n| (n.to_string(), Duration::ZERO, Duration::ZERO))
        .collect();
    let file = timed(&mut rows[0], || translate::load(&path).expect("reads"));
    let ast = timed(&mut rows[1], || translate::parse(&file).unwrap_or_else(|e| panic!("{}", e.render())));
    let kernels: Vec<String> = ast
        .items
        .iter()
        .filter_map(|i| match i {
            ptxcross_frontend::ast::Item::Function(f) if f.kind == ptxcross_frontend::ast::FunctionKind::Entry && f.body.is_some() => {
                Some(f.name.name.to_string())
            }
            _ => None,
        })
        .collect();
    // `PTXCROSS_TRANSLATE_KERNELS=<n>`: only the first n kernels.
    let kernels: Vec<String> = match std::env::var("PTXCROSS_TRANSLATE_KERNELS").ok().and_then(|v| v.parse().ok()) {
        Some(n) => kernels.into_iter().take(n).collect(),
        None => kernels,
    };
    let validate_wgsl = std::env::var("PTXCROSS_WGSL_VALIDATE").map_or(true, |v| v != "0");
    let validate_spirv = std::env::var("PTXCROSS_SPIRV_VALIDATE").map_or(true, |v| v != "0");
    let (mut spirv_words, mut wgsl_bytes) = (0usize, 0usize);
    // SPIR-V validation as the runtime does it (`ptxcross::validated`): recorded in a fresh
    // directory; a second record on that directory is what a later process sees.
    let record_dir = std::env::temp_dir().join(format!("ptxcross-translate-time-valid-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&record_dir);
    let record = ptxcross::validated::Record::new(Some(record_dir.clone()));
    let later = ptxcross::validated::Record::new(Some(record_dir.clone()));
    let mut slowest: Vec<(Duration, String)> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    let digest_path = std::env::var_os("PTXCROSS_TRANSLATE_DIGEST");
    let mut digest = String::new();
    // Lowered one module per kernel, sharing the analysis of the file's functions and globals.
    let modules = timed(&mut rows[2], || ptxcross_lower::lower_each(&ast, &file, &LowerOptions::default(), &kernels));
    for (name, module) in kernels.iter().zip(modules) {
        let t = Instant::now();
        // A kernel `lower` refuses ("not supported yet", named) is counted, not translated;
        // any other failure below is a defect and panics.
        let module = match module {
            Ok(m) => m,
            Err(e) => {
                refused.push(format!("{name}: {}", e.first().map_or(String::new(), |d| d.message.clone())));
                continue;
            }
        };
        // Heap outlining and the kernels' analyses, once for both emitters (as the runtime's
        // `build_program_from_ir` and `ptxcross check` do).
        let prepared = timed(&mut rows[3], || translate::prepare_emission(&module).unwrap_or_else(|e| panic!("{name}: {}", e.render())));
        let words = timed(&mut rows[4], || translate::emit_spirv_prepared(&prepared).unwrap_or_else(|e| panic!("{name}: {}", e.render())));
        if validate_spirv {
            timed(&mut rows[5], || record.check(&words, translate::validate_spirv).unwrap_or_else(|e| panic!("{name}: {}", e.render())));
            timed(&mut rows[8], || later.check(&words, |_| -> Result<(), ()> { panic!("{name}: validated again") }).expect("recorded"));
        }
        // A kernel the WGSL backend refuses by name (a fence or a strong 16-byte access, which
        // need fences WGSL lacks: "use the spirv backend") is counted, without WGSL.
        let wgsl = match timed(&mut rows[6], || translate::emit_wgsl_prepared(&prepared, translate::Profile::Wgpu)) {
            Ok(w) => w,
            Err(e) if e.render().contains("use the spirv backend") => {
                refused.push(format!("{name} (WGSL only): {}", e.render()));
                String::new()
            }
            Err(e) => panic!("{name}: {}", e.render()),
        };
        timed(&mut rows[3], || drop(prepared));
        slowest.push((t.elapsed(), name.clone()));
        if validate_wgsl && !wgsl.is_empty() {
            timed(&mut rows[7], || translate::validate_wgsl(&wgsl, translate::Profile::Wgpu).unwrap_or_else(|e| panic!("{name}: {}", e.render())));
        }
        spirv_words += words.len();
        wgsl_bytes += wgsl.len();
        if digest_path.is_some() {
            use std::hash::{Hash, Hasher};
            let hash = |h: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
                let mut s = std::collections::hash_map::DefaultHasher::new();
                h(&mut s);
                s.finish()
            };
            let (sh, wh) = (hash(&|s| words.hash(s)), hash(&|s| wgsl.hash(s)));
            digest.push_str(&format!("{name} {} {sh:016x} {} {wh:016x}\n", words.len(), wgsl.len()));
        }
    }
    if let Some(p) = &digest_path {
        std::fs::write(p, &digest).expect("writes the digest file");
    }
    let _ = std::fs::remove_dir_all(&record_dir);
    if !validate_spirv {
        rows.pop();
    }
    if !validate_wgsl {
        rows.remove(7);
    }
    let translation: (Duration, Duration) = rows[..7].iter().fold((Duration::ZERO, Duration::ZERO), |a, r| (a.0 + r.1, a.1 + r.2));
    slowest.sort();
    eprintln!("slowest kernels (emit + validate SPIR-V + emit WGSL):");
    for (t, n) in slowest.iter().rev().take(5) {
        eprintln!("  {:.3} s  {n}", t.as_secs_f64());
    }

    println!(
        "{}: {} bytes, {} kernels, each translated on its own (as the runtime does); SPIR-V {spirv_words} words, WGSL {wgsl_bytes} bytes in all",
        path.display(),
        file.text.len(),
        kernels.len(),
    );
    if !refused.is_empty() {
        println!("{} kernels refused by name (by `lower`: not translated, not timed beyond lowering; \"WGSL only\": SPIR-V translated):", refused.len());
        for r in &refused {
            println!("  {}", r.chars().take(160).collect::<String>());
        }
    }
    println!("| stage | wall | CPU |");
    println!("|---|---|---|");
    for (name, w, c) in &rows {
        println!("| {name} | {:.3} s | {:.3} s |", w.as_secs_f64(), c.as_secs_f64());
    }
    println!("| translation to both targets (read … emit WGSL) | {:.3} s | {:.3} s |", translation.0.as_secs_f64(), translation.1.as_secs_f64());
    // CPU against CPU is the fair comparison on a shared machine (wall time swings with the
    // neighbours' load); ptxas runs on one thread, `lower` on several.
    match ptxas {
        Some((w, c)) => println!(
            "| ptxas -arch=sm_80 -O0 | {:.3} s | {:.3} s |\ntranslation / ptxas -O0: {:.1}% (wall), {:.1}% (CPU)",
            w.as_secs_f64(),
            c.as_secs_f64(),
            100.0 * translation.0.as_secs_f64() / w.as_secs_f64(),
            100.0 * translation.1.as_secs_f64() / c.as_secs_f64().max(1e-9)
        ),
        None => println!("ptxas not found ($PTXAS, tests/parse-corpus/README.md): no comparison"),
    }
}
