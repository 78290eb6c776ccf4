//! `ptxcross run --spec FILE.json …` and `ptxcross verify DIR_OR_SPEC…`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ptxcross_lower::{ir, LowerOptions};

use super::{parse_backend, Args, EXIT_ERROR, EXIT_MISMATCH, EXIT_OK};
use crate::runtime::{
    Backend, Context, ContextOptions, Deadline, DevicePtr, Error, Gpu, Program, ALLOC_ALIGN,
    HEAP_RESERVED_BYTES,
};
use crate::spec::{compare, ArgSpec, Spec};
use crate::translate::{self, TranslateError};

/// What happened to one (spec, backend).
#[derive(Debug)]
pub enum Outcome {
    Pass,
    /// Mismatch report lines.
    Mismatch(Vec<String>),
    /// The first line is the cause; more lines may follow (rendered diagnostics …).
    Error(Vec<String>),
    /// Translated and validated, but not run (no device).
    Translated,
    /// Not run because this device would compute it wrongly on this backend, which the
    /// runtime refuses (`Error::SubnormalsFlushed`: NVIDIA's WGSL path flushes f32
    /// subnormals): the device's limit, said plainly, not a failure of the kernel.
    Refused(Vec<String>),
}

impl Outcome {
    fn exit_code(&self) -> i32 {
        match self {
            Outcome::Pass | Outcome::Translated | Outcome::Refused(_) => EXIT_OK,
            Outcome::Mismatch(_) => EXIT_MISMATCH,
            Outcome::Error(_) => EXIT_ERROR,
        }
    }
    fn word(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Mismatch(_) => "FAIL",
            Outcome::Error(_) => "ERROR",
            Outcome::Translated => "not run",
            Outcome::Refused(_) => "refused",
        }
    }
    fn details(&self) -> &[String] {
        match self {
            Outcome::Mismatch(l) | Outcome::Error(l) | Outcome::Refused(l) => l,
            _ => &[],
        }
    }
}

fn translate_error(e: &TranslateError) -> Outcome {
    let mut lines = vec![e.to_string()];
    if let TranslateError::Diagnostics { rendered, .. } = e {
        lines.extend(rendered.lines().map(str::to_string));
    }
    Outcome::Error(lines)
}

fn device_error(e: &Error) -> Outcome {
    Outcome::Error(vec![e.to_string()])
}

/// Heap bytes a spec needs: reserved words, every buffer and the globals segment, each
/// rounded to the allocation alignment, plus slack for the runtime.
fn heap_bytes_for(spec: &Spec, module: &ir::Module, gpu: &Gpu) -> u64 {
    let fp = |n: u64| n.max(1).div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN;
    let buffers: u64 = spec.buffers.iter().map(|b| fp(b.bytes.len() as u64)).sum();
    let bytes = HEAP_RESERVED_BYTES + buffers + fp(module.globals.init.len() as u64) + (64 << 10);
    // Beyond one segment, each segment has its reserved words and may leave a tail unused.
    if bytes > gpu.max_segment_bytes() {
        bytes.saturating_mul(2).min(gpu.max_heap_bytes()).max(bytes)
    } else {
        bytes
    }
}

fn file_name_for(buffer: &str) -> String {
    buffer
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Runs one spec on one backend (the IR is shared by both backends of a spec).
fn run_backend(
    spec: &Spec,
    module: &ir::Module,
    backend: Backend,
    gpu: &std::sync::Arc<Gpu>,
    timeout: Option<Duration>,
    dump: &[PathBuf],
) -> Outcome {
    let program = match translate::build_program_from_ir(
        &spec.ptx.display().to_string(),
        module.clone(),
        &[backend],
        true,
    ) {
        Ok(p) => p,
        Err(e) => return translate_error(&e),
    };
    let outcome = run_program(spec, &program, backend, gpu, timeout, dump);
    for id in program.ids() {
        gpu.forget_program(id);
    }
    outcome
}

/// Runs a translated program as the spec says: buffers, arguments, launch, dumps, comparison.
fn run_program(
    spec: &Spec,
    program: &Program,
    backend: Backend,
    gpu: &std::sync::Arc<Gpu>,
    timeout: Option<Duration>,
    dump: &[PathBuf],
) -> Outcome {
    let module = program.module();
    let Some(kernel) = program.kernel(&spec.kernel) else {
        return Outcome::Error(vec![format!(
            "the PTX has no kernel `{}` (kernels: {})",
            spec.kernel,
            program.kernel_names().join(", ")
        )]);
    };
    // Not clamped: a spec too large for the heap gets `HeapTooLarge`, which says so.
    let heap_bytes = heap_bytes_for(spec, module, gpu);
    let mut ctx = match Context::new(ContextOptions {
        heap_bytes,
        // The `--timeout` watchdog (see `deadline`) ends the process first; the context's own
        // wait is only a backstop, so it never reports the timeout in its stead.
        timeout: timeout.map(|t| t.saturating_mul(2) + Duration::from_secs(1)),
        gpu: Some(gpu.clone()),
    }) {
        Ok(c) => c,
        Err(e) => return device_error(&e),
    };
    let mut ptrs: Vec<(String, DevicePtr, usize)> = Vec::new();
    for b in &spec.buffers {
        let r = ctx
            .alloc(b.bytes.len() as u64)
            .and_then(|p| ctx.write(p, &b.bytes).map(|_| p));
        match r {
            Ok(p) => ptrs.push((b.name.clone(), p, b.bytes.len())),
            Err(e) => return Outcome::Error(vec![format!("buffer `{}`: {e}", b.name)]),
        }
    }
    // Arguments, checked against the kernel's parameters.
    if spec.args.len() != kernel.params.len() {
        let params: Vec<String> = kernel
            .params
            .iter()
            .map(|p| format!("{} ({} bytes)", p.name, p.size))
            .collect();
        return Outcome::Error(vec![format!(
            "{}: {} argument(s) given, kernel `{}` has {} parameter(s){}{}",
            spec.path.display(),
            spec.args.len(),
            kernel.name,
            kernel.params.len(),
            if params.is_empty() { "" } else { ": " },
            params.join(", ")
        )]);
    }
    // Name → index (specs may have tens of thousands of buffers: no quadratic lookups).
    let ptr_of: std::collections::HashMap<&str, usize> =
        ptrs.iter().enumerate().map(|(i, (n, _, _))| (n.as_str(), i)).collect();
    let mut args: Vec<Vec<u8>> = Vec::new();
    for (i, (a, p)) in spec.args.iter().zip(&kernel.params).enumerate() {
        let bytes = match a {
            ArgSpec::Buffer { name, offset } => {
                let Some((_, ptr, _)) = ptr_of.get(name.as_str()).map(|&i| &ptrs[i]) else {
                    return Outcome::Error(vec![format!("args[{i}]: no buffer `{name}`")]);
                };
                let bytes = ptr.offset(*offset).to_le_bytes();
                // An `.address_size 32` kernel takes the low 32 bits (see `abi::HEAP_LIMIT_32`).
                let size = if kernel.features.pointers32 { 4 } else { 8 };
                bytes[..size].to_vec()
            }
            ArgSpec::Scalar { bytes, .. } => bytes.clone(),
        };
        if bytes.len() != p.size as usize {
            let what = match a {
                ArgSpec::Buffer { .. } => format!("a pointer ({} bytes)", bytes.len()),
                ArgSpec::Scalar { ty, .. } => format!("a {ty} ({} bytes)", ty.size()),
            };
            return Outcome::Error(vec![format!(
                "{}: args[{i}] is {what}, but parameter `{}` of kernel `{}` has {} bytes",
                spec.path.display(),
                p.name,
                kernel.name,
                p.size
            )]);
        }
        args.push(bytes);
    }
    let arg_refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
    if let Err(e @ Error::SubnormalsFlushed { .. }) = gpu.check_subnormals(kernel, backend) {
        return Outcome::Refused(vec![e.to_string()]);
    }
    let launched = ctx.launch(program, &spec.kernel, spec.grid, &arg_refs, backend);
    // Device-side printf: its text on stdout, as CUDA prints it at synchronization.
    let printed = ctx.take_printf();
    if !printed.text.is_empty() {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(printed.text.as_bytes()).and_then(|()| out.flush());
    }
    if printed.dropped > 0 {
        eprintln!("{} [{backend}]: {} printf record(s) dropped: the printf buffer was full", spec.kernel, printed.dropped);
    }

    // Read every buffer back (also after a fault: useful in dumps).
    let ranges: Vec<(DevicePtr, u64)> = ptrs.iter().map(|&(_, p, len)| (p, len as u64)).collect();
    let contents: Vec<(String, Result<Vec<u8>, Error>)> = match ctx.read_many(&ranges) {
        Ok(all) => ptrs.iter().zip(all).map(|((name, _, _), bytes)| (name.clone(), Ok(bytes))).collect(),
        Err(e) => ptrs.iter().map(|(name, _, _)| (name.clone(), Err(e.clone()))).collect(),
    };
    let mut dump_errors = Vec::new();
    for dir in dump {
        if let Err(e) = std::fs::create_dir_all(dir) {
            dump_errors.push(format!("--dump: cannot create {}: {e}", dir.display()));
            continue;
        }
        for (name, data) in &contents {
            if let Ok(bytes) = data {
                let path = dir.join(format!("{}.bin", file_name_for(name)));
                if let Err(e) = std::fs::write(&path, bytes) {
                    dump_errors.push(format!("--dump: cannot write {}: {e}", path.display()));
                }
            }
        }
    }
    if let Err(e) = launched {
        let mut lines = vec![e.to_string()];
        lines.extend(dump_errors);
        return Outcome::Error(lines);
    }
    if !dump_errors.is_empty() {
        return Outcome::Error(dump_errors);
    }
    let mut report = Vec::new();
    for ex in &spec.expect {
        let actual = match ptr_of.get(ex.buffer.as_str()).map(|&i| &contents[i]) {
            Some((_, Ok(bytes))) => bytes,
            Some((_, Err(e))) => {
                return Outcome::Error(vec![format!("reading buffer `{}`: {e}", ex.buffer)])
            }
            None => return Outcome::Error(vec![format!("no buffer `{}`", ex.buffer)]),
        };
        let (count, first) = compare(ex, actual, 10);
        if count > 0 {
            let unit = ex
                .ty
                .map(|t| format!("{t} elements"))
                .unwrap_or_else(|| "bytes".into());
            let total = ex.bytes.len() / ex.ty.map(|t| t.size()).unwrap_or(1);
            report.push(format!(
                "buffer `{}`: {count} of {total} {unit} differ",
                ex.buffer
            ));
            for m in first {
                report.push(format!(
                    "  [{}] expected {}, actual {}",
                    m.index, m.expected, m.actual
                ));
            }
        }
    }
    if report.is_empty() {
        Outcome::Pass
    } else {
        Outcome::Mismatch(report)
    }
}

/// What the device's probes tell lowering ([`Gpu::lower_options`]); without a device (translate
/// and validate only) the defaults, with the cut-loop check (harmless, and nothing runs).
/// `split_int64`: translate as for a device without 64-bit integers even if this one has them
/// (`--split-int64`: what a browser or such a device would run, checked here).
fn device_facts(gpu: Option<&std::sync::Arc<Gpu>>, backends: &[Backend], split_int64: bool) -> LowerOptions {
    let mut facts = gpu.map_or_else(|| LowerOptions { detect_cut_loops: true, ..LowerOptions::default() }, |g| g.lower_options(backends));
    facts.split_int64 |= split_int64;
    facts
}

/// Parse + lower a spec's PTX once (for every backend).
fn frontend(spec: &Spec, facts: &LowerOptions) -> Result<ir::Module, TranslateError> {
    let source = translate::load(&spec.ptx)?;
    let options = LowerOptions {
        kernel: Some(spec.kernel.clone()),
        block: spec.block,
        dynamic_shared_bytes: spec.dynamic_shared_bytes,
        // `PTXCROSS_LOCAL_SCRATCH_BYTES=N`: local memory of N bytes per thread or more goes to
        // the scratch buffer (default 512; 4294967295 keeps it private, e.g. to compare).
        local_scratch_bytes: std::env::var("PTXCROSS_LOCAL_SCRATCH_BYTES").ok().and_then(|v| v.trim().parse().ok()),
        ..facts.clone()
    };
    translate::frontend(&source, &options)
}

/// Translate + validate only (no device).
fn translate_only(module: &ir::Module, spec: &Spec, backend: Backend) -> Outcome {
    match translate::build_program_from_ir(
        &spec.ptx.display().to_string(),
        module.clone(),
        &[backend],
        true,
    ) {
        Ok(p) if p.kernel(&spec.kernel).is_some() => Outcome::Translated,
        Ok(p) => Outcome::Error(vec![format!(
            "the PTX has no kernel `{}` (kernels: {})",
            spec.kernel,
            p.kernel_names().join(", ")
        )]),
        Err(e) => translate_error(&e),
    }
}

fn guarded(f: impl FnOnce() -> Outcome) -> Outcome {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        Outcome::Error(vec![format!("internal error (please report this): {msg}")])
    })
}

/// Longest `--timeout` accepted (one week): anything longer is a typo, not a plan.
const MAX_TIMEOUT_SECS: f64 = 7.0 * 24.0 * 3600.0;

fn parse_timeout(a: &Args) -> Result<Option<Duration>, String> {
    match a.value("--timeout") {
        None => Ok(Some(Duration::from_secs(300))),
        Some("0") | Some("none") => Ok(None),
        Some(s) => match s.parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 && v <= MAX_TIMEOUT_SECS => {
                Ok(Some(Duration::from_secs_f64(v)))
            }
            Ok(v) if v.is_finite() && v > 0.0 => Err(format!(
                "--timeout: {s} seconds is out of range (at most {MAX_TIMEOUT_SECS} s; 0 or `none` for no limit)"
            )),
            _ => Err(format!("--timeout: `{s}` is not a positive number of seconds")),
        },
    }
}

/// Arms the `--timeout` watchdog around one piece of work: if it is still running when the
/// limit expires (the driver cannot be interrupted), the process reports it and exits with 2.
fn deadline(timeout: Option<Duration>, what: &str) -> Option<Deadline> {
    timeout.map(|t| {
        Deadline::arm(
            t,
            format!(
                "{what}: ERROR: timeout: did not finish within {} s (--timeout); exiting",
                t.as_secs_f64()
            ),
            EXIT_ERROR,
        )
    })
}

fn print_warnings(spec: &Spec) {
    for w in &spec.warnings {
        eprintln!("warning: {}: {w}", spec.path.display());
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

pub fn run_main(a: &Args) -> Result<i32, String> {
    let spec_path = match (a.value("--spec"), a.positional.as_slice()) {
        (Some(s), []) => s.to_string(),
        (None, [s]) => s.clone(),
        (Some(_), _) => return Err(format!("run: unexpected argument `{}`", a.positional[0])),
        (None, _) => return Err("run: --spec FILE.json is required".into()),
    };
    let backends = parse_backend(a.value("--backend"))?;
    let timeout = parse_timeout(a)?;
    let dump = a.value("--dump").map(PathBuf::from);

    let spec = match Spec::load(Path::new(&spec_path)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(EXIT_ERROR);
        }
    };
    print_warnings(&spec);
    let label = format!("{}: {}", spec.path.display(), spec.kernel);
    let facts = device_facts(Gpu::shared().ok().as_ref(), &backends, a.flag("--split-int64"));
    let guard = deadline(timeout, &label);
    let module = match guarded_frontend(&spec, &facts) {
        Ok(m) => m,
        Err(outcome) => {
            report_run(&label, None, &outcome, None);
            return Ok(outcome.exit_code());
        }
    };
    drop(guard);
    let gpu = match Gpu::shared() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(EXIT_ERROR);
        }
    };
    let mut worst = EXIT_OK;
    for (i, &b) in backends.iter().enumerate() {
        // One backend: DIR/<buffer>.bin. Both: DIR/<backend>/<buffer>.bin, and DIR/<buffer>.bin
        // from the first (SPIR-V).
        let dirs: Vec<PathBuf> = match &dump {
            None => vec![],
            Some(d) if backends.len() == 1 => vec![d.clone()],
            Some(d) if i == 0 => vec![d.clone(), d.join(b.name())],
            Some(d) => vec![d.join(b.name())],
        };
        let t = Instant::now();
        let guard = deadline(timeout, &format!("{label} [{b}]"));
        let outcome = guarded(|| run_backend(&spec, &module, b, &gpu, timeout, &dirs));
        drop(guard);
        report_run(&label, Some(b), &outcome, Some(t.elapsed()));
        worst = worst.max(outcome.exit_code());
    }
    Ok(worst)
}

fn guarded_frontend(spec: &Spec, facts: &LowerOptions) -> Result<ir::Module, Outcome> {
    let mut module = None;
    let outcome = guarded(|| match frontend(spec, facts) {
        Ok(m) => {
            module = Some(m);
            Outcome::Pass
        }
        Err(e) => translate_error(&e),
    });
    module.ok_or(outcome)
}

fn report_run(label: &str, backend: Option<Backend>, outcome: &Outcome, time: Option<Duration>) {
    let b = backend.map(|b| format!(" [{b}]")).unwrap_or_default();
    let t = time.map(|t| format!(" ({})", ms(t))).unwrap_or_default();
    match outcome {
        Outcome::Error(lines) => {
            eprintln!(
                "{label}{b}: ERROR: {}",
                lines.first().map(String::as_str).unwrap_or("")
            );
            for l in lines.iter().skip(1) {
                eprintln!("{l}");
            }
        }
        other => {
            println!("{label}{b}: {}{t}", other.word());
            for l in other.details() {
                println!("{l}");
            }
        }
    }
}

/// `*.json` in each folder (sorted, non-recursive) or the files themselves.
fn collect_specs(inputs: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for i in inputs {
        let p = PathBuf::from(i);
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(&p)
                .map_err(|e| format!("cannot list {}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "json"))
                .collect();
            found.sort();
            out.extend(found);
        } else if p.is_file() {
            out.push(p);
        } else {
            return Err(format!("{i}: no such file or folder"));
        }
    }
    Ok(out)
}

pub fn verify_main(a: &Args) -> Result<i32, String> {
    if a.positional.is_empty() {
        return Err("verify: give spec files or folders of specs".into());
    }
    let backends = parse_backend(a.value("--backend"))?;
    let timeout = parse_timeout(a)?;
    let paths = collect_specs(&a.positional)?;
    if paths.is_empty() {
        println!("no *.json specs found");
        println!("0 passed, 0 failed");
        return Ok(EXIT_OK);
    }
    let specs: Vec<(PathBuf, Result<Spec, String>)> = paths
        .iter()
        .map(|p| (p.clone(), Spec::load(p).map_err(|e| e.to_string())))
        .collect();

    let gpu = Gpu::shared();
    let facts = device_facts(gpu.as_ref().ok(), &backends, a.flag("--split-int64"));
    match &gpu {
        Ok(g) => println!(
            "device: {} (fma {}{}{})",
            g.describe(),
            if facts.native_fma {
                "fused: native"
            } else if facts.native_fma_guarded {
                "fused, flushes subnormals: native behind a guard"
            } else {
                "not fused: exact emulation"
            },
            if facts.detect_cut_loops { "; cuts long loops: checked" } else { "" },
            if facts.flushed_f32 { "; flushes f32 subnormals: exact f32 mode" } else { "" }
        ),
        Err(e) => {
            println!("could not run the kernels: {e}");
            println!("(translating and validating every spec instead)");
        }
    }
    let w_spec = paths
        .iter()
        .map(|p| p.display().to_string().chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let w_kernel = specs
        .iter()
        .map(|(_, s)| s.as_ref().map(|s| s.kernel.chars().count()).unwrap_or(1))
        .max()
        .unwrap_or(6)
        .max(6);
    println!(
        "{:<w_spec$}  {:<w_kernel$}  {:<7}  {:<7}  {:>10}",
        "spec", "kernel", "backend", "result", "time"
    );
    println!("{}", "-".repeat(w_spec + w_kernel + 7 + 7 + 10 + 8));

    let (mut passed, mut failed, mut not_run, mut refused) = (0usize, 0usize, 0usize, 0usize);
    let progress = Progress::new(specs.len());
    for (index, (path, spec)) in specs.iter().enumerate() {
        let name = path.display().to_string();
        let spec = match spec {
            Ok(s) => s,
            Err(e) => {
                for &b in &backends {
                    row(
                        &name,
                        "-",
                        b,
                        &Outcome::Error(vec![e.clone()]),
                        None,
                        w_spec,
                        w_kernel,
                    );
                    failed += 1;
                }
                continue;
            }
        };
        print_warnings(spec);
        let t0 = Instant::now();
        let guard = deadline(timeout, &format!("{}: {}", path.display(), spec.kernel));
        let module = guarded_frontend(spec, &facts);
        drop(guard);
        let front_time = t0.elapsed();
        for &b in &backends {
            progress.show(index, &format!("{} [{b}]", path.display()));
            let t = Instant::now();
            let _guard = deadline(timeout, &format!("{}: {} [{b}]", path.display(), spec.kernel));
            let outcome = match (&module, &gpu) {
                (Err(o), _) => Outcome::Error(o.details().to_vec()),
                (Ok(m), Ok(g)) => guarded(|| run_backend(spec, m, b, g, timeout, &[])),
                (Ok(m), Err(_)) => guarded(|| translate_only(m, spec, b)),
            };
            progress.clear();
            match outcome {
                Outcome::Pass => passed += 1,
                Outcome::Translated => not_run += 1,
                Outcome::Refused(_) => refused += 1,
                _ => failed += 1,
            }
            row(
                &name,
                &spec.kernel,
                b,
                &outcome,
                Some(t.elapsed() + front_time),
                w_spec,
                w_kernel,
            );
        }
    }
    let refused_note = if refused > 0 { format!(", {refused} refused by this device") } else { String::new() };
    if gpu.is_err() || not_run > 0 {
        println!("{passed} passed, {failed} failed, {not_run} not run{refused_note}");
    } else {
        println!("{passed} passed, {failed} failed{refused_note}");
    }
    Ok(if failed == 0 { EXIT_OK } else { EXIT_MISMATCH })
}

/// A transient `[i/n] spec [backend]` line while a spec runs, when stdout is a terminal (never in
/// pipes or files, whose output stays the plain table).
struct Progress {
    total: usize,
    on: bool,
}

impl Progress {
    fn new(total: usize) -> Progress {
        use std::io::IsTerminal;
        Progress { total, on: std::io::stdout().is_terminal() }
    }
    fn show(&self, index: usize, what: &str) {
        if self.on {
            use std::io::Write;
            print!("\r\x1b[K[{}/{}] {what}", index + 1, self.total);
            let _ = std::io::stdout().flush();
        }
    }
    fn clear(&self) {
        if self.on {
            print!("\r\x1b[K");
        }
    }
}

fn row(
    spec: &str,
    kernel: &str,
    b: Backend,
    outcome: &Outcome,
    time: Option<Duration>,
    w_spec: usize,
    w_kernel: usize,
) {
    let t = time.map(ms).unwrap_or_else(|| "-".into());
    println!(
        "{spec:<w_spec$}  {kernel:<w_kernel$}  {:<7}  {:<7}  {t:>10}",
        b.name(),
        outcome.word()
    );
    for l in outcome.details().iter().take(12) {
        println!("    {l}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxcross_lower::ir::{Block, Features, Kernel, Module, ParamSlot};

    /// The hand-written ABI kernel of the runtime tests: out[i] = value + i for i < n.
    fn fill_program() -> Program {
        let slot = |name: &str, offset, size| ParamSlot {
            name: name.into(),
            offset,
            size,
            align: size,
        };
        let kernel = Kernel {
            name: "fill".into(),
            entry_point: "fill".into(),
            workgroup_size: [64, 1, 1],
            vars: vec![],
            body: Block::new(),
            shared_words: 0,
            local_words: 0,
            local_placement: Default::default(),
            fault_site_var: None,
            fault_sites: Vec::new(),
            params: vec![slot("out", 0, 8), slot("n", 8, 4), slot("value", 12, 4)],
            param_bytes: 16,
            features: Features::default(),
            functions: Vec::new(),
            printf: Vec::new(),
        };
        let module = Module {
            kernels: vec![kernel],
            globals: Default::default(),
        };
        Program::new(
            "fill.wgsl",
            module,
            None,
            Some(include_str!("../../tests/data/fill.wgsl").into()),
        )
    }

    fn spec(expect: &str, args: &str) -> Spec {
        let text = format!(
            r#"{{"ptx": "none.ptx", "kernel": "fill", "grid": [2], "block": [64],
                "buffers": {{"pad": {{"zeros": 3}}, "out": {{"type": "u32", "values": [9, 9, 9, 9, 9, 9]}}}},
                "args": {args}, "expect": {expect} }}"#
        );
        Spec::parse(&text, Path::new("t.json"), Path::new(".")).unwrap()
    }

    #[test]
    fn spec_runs_compare_and_dump_through_the_runtime() {
        let gpu = match Gpu::shared() {
            Ok(g) => g,
            Err(e) => return eprintln!("skipping: {e}"),
        };
        let p = fill_program();
        let args = r#"[{"buffer": "out", "offset": 8}, {"type": "u32", "value": 3}, {"type": "u32", "value": 100}]"#;
        let good = spec(
            r#"{"out": {"type": "u32", "values": [9, 9, 100, 101, 102, 9]}}"#,
            args,
        );
        let dir = std::env::temp_dir().join(format!("ptxcross-run-test-{}", std::process::id()));
        let o = run_program(
            &good,
            &p,
            Backend::Wgsl,
            &gpu,
            None,
            std::slice::from_ref(&dir),
        );
        assert!(matches!(o, Outcome::Pass), "{o:?}");
        assert_eq!(std::fs::read(dir.join("pad.bin")).unwrap(), [0, 0, 0]);
        assert_eq!(std::fs::read(dir.join("out.bin")).unwrap().len(), 24);
        std::fs::remove_dir_all(&dir).ok();

        let bad = spec(
            r#"{"out": {"type": "u32", "values": [9, 9, 100, 7, 102, 8]}}"#,
            args,
        );
        match run_program(&bad, &p, Backend::Wgsl, &gpu, None, &[]) {
            Outcome::Mismatch(lines) => assert_eq!(
                lines,
                [
                    "buffer `out`: 2 of 6 u32 elements differ",
                    "  [3] expected 7, actual 101",
                    "  [5] expected 8, actual 9",
                ]
            ),
            o => panic!("{o:?}"),
        }

        let short = spec("{}", r#"[{"buffer": "out"}, {"type": "u32", "value": 3}]"#);
        match run_program(&short, &p, Backend::Wgsl, &gpu, None, &[]) {
            Outcome::Error(l) => assert!(l[0].contains("2 argument(s) given, kernel `fill` has 3 parameter(s): out (8 bytes), n (4 bytes), value (4 bytes)"), "{l:?}"),
            o => panic!("{o:?}"),
        }
        let wrong = spec(
            "{}",
            r#"[{"buffer": "out"}, {"type": "u64", "value": 3}, {"type": "u32", "value": 1}]"#,
        );
        match run_program(&wrong, &p, Backend::Wgsl, &gpu, None, &[]) {
            Outcome::Error(l) => assert!(
                l[0].contains(
                    "args[1] is a u64 (8 bytes), but parameter `n` of kernel `fill` has 4 bytes"
                ),
                "{l:?}"
            ),
            o => panic!("{o:?}"),
        }
        // 1000 threads from `out` run off the end of the spec-sized heap: a kernel fault.
        let fault = spec(
            "{}",
            r#"[{"buffer": "out"}, {"type": "u32", "value": 100000}, {"type": "u32", "value": 1}]"#,
        );
        let mut big = fault.clone();
        big.grid = [2000, 1, 1];
        match run_program(&big, &p, Backend::Wgsl, &gpu, None, &[]) {
            Outcome::Error(l) => assert!(
                l[0].contains("faulted") && l[0].contains("global memory access out of range"),
                "{l:?}"
            ),
            o => panic!("{o:?}"),
        }
    }
}
