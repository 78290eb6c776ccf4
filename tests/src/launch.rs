//! Running one PTX kernel on the device through a chosen backend, for end-to-end tests that
//! compare against their own CPU reference. Every parameter of the kernel is a `.u64` pointer
//! to one buffer; the buffers' contents after the launch come back.
//!
//! Translation goes through `ptxcross::translate` with validation on (spirv-val and naga), so
//! every module these tests run is also checked.

use ptxcross::{translate, Backend, Context, ContextOptions, Gpu};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use std::sync::Arc;

/// The process-wide device, or `None` (with a note) when there is none and
/// `PTXCROSS_REQUIRE_GPU=1` is not set.
pub fn gpu_or_skip() -> Option<Arc<Gpu>> {
    match Gpu::shared() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("PTXCROSS_REQUIRE_GPU").as_deref() != Ok("1") => {
            eprintln!("skipped: no GPU adapter ({e})");
            None
        }
        Err(e) => panic!("no GPU adapter: {e}"),
    }
}

/// The options the runtime translates with for the shared device and `backends`
/// ([`Gpu::lower_options`]: exact f32 where it flushes subnormals, native `fma` where fused,
/// its shared-memory limit, …); the defaults without a device (translation-only tests).
pub fn device_options(backends: &[Backend]) -> LowerOptions {
    Gpu::shared().map(|g| g.lower_options(backends)).unwrap_or_default()
}

/// One launch: the kernel's parameters are pointers to `buffers` (in order).
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    pub ptx: &'a str,
    pub kernel: &'a str,
    pub block: [u32; 3],
    pub grid: [u32; 3],
    pub buffers: Vec<Vec<u8>>,
}

/// Translates (validating both emitted modules) and runs `launch` through `backend`; returns
/// every buffer after the launch. Errors (translation, validation, launch, kernel faults) are
/// strings naming the stage.
pub fn run(gpu: &Arc<Gpu>, launch: &Launch, backend: Backend) -> Result<Vec<Vec<u8>>, String> {
    run_unless_refused(gpu, launch, backend, false).map(|out| out.expect("never refused"))
}

/// [`run`], or `Ok(None)` when the device rightly refuses the kernel on `backend` because it
/// flushes subnormals there ([`refused_for_subnormals`]), for tests that run every backend.
pub fn run_or_skip(gpu: &Arc<Gpu>, launch: &Launch, backend: Backend) -> Result<Option<Vec<Vec<u8>>>, String> {
    run_unless_refused(gpu, launch, backend, true)
}

fn run_unless_refused(gpu: &Arc<Gpu>, launch: &Launch, backend: Backend, skip_refused: bool) -> Result<Option<Vec<Vec<u8>>>, String> {
    let file = SourceFile::new(format!("{}.ptx", launch.kernel), launch.ptx);
    // As the host translates (`Gpu::lower_options`: the exact f32 mode where the device
    // flushes subnormals, the driver workarounds it needs, which the launch insists on).
    let options = LowerOptions { block: Some(launch.block), kernel: Some(launch.kernel.to_string()), ..gpu.lower_options(&[backend]) };
    let program = translate::build_program(&file, &options, &[backend], true).map_err(|e| e.render())?;
    if skip_refused && refused_for_subnormals(gpu, &program, backend) {
        return Ok(None);
    }
    let bytes: u64 = launch.buffers.iter().map(|b| (b.len() as u64).max(1).next_multiple_of(256)).sum();
    let mut ctx = Context::new(ContextOptions { heap_bytes: bytes + (1 << 16), timeout: None, gpu: Some(gpu.clone()) })
        .map_err(|e| format!("context: {e}"))?;
    let mut ptrs = Vec::new();
    for b in &launch.buffers {
        let p = ctx.alloc(b.len() as u64).map_err(|e| format!("alloc: {e}"))?;
        ctx.write(p, b).map_err(|e| format!("write: {e}"))?;
        ptrs.push(p);
    }
    let args: Vec<[u8; 8]> = ptrs.iter().map(|p| p.to_le_bytes()).collect();
    let arg_refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
    ctx.launch(&program, launch.kernel, launch.grid, &arg_refs, backend).map_err(|e| format!("{backend} launch: {e}"))?;
    launch
        .buffers
        .iter()
        .zip(&ptrs)
        .map(|(b, &p)| ctx.read(p, b.len() as u64).map_err(|e| format!("read: {e}")))
        .collect::<Result<_, _>>()
        .map(Some)
}

/// Little-endian words of a byte buffer.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Hand-edited code of kernel `name` for a measurement: the files `<name>.<label>.wgsl` and
/// `<name>.<label>.spvasm` in the folder that the environment variable `env` names (none when
/// it is unset), each as a program on `module_of(backend)`, with its backend and label.
pub fn hand_edited_variants(env: &str, name: &str, module_of: impl Fn(Backend) -> ptxcross_lower::ir::Module) -> Vec<(String, Backend, ptxcross::Program)> {
    let Ok(dir) = std::env::var(env) else { return Vec::new() };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.starts_with(&format!("{name}.")))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for n in names {
        let path = std::path::Path::new(&dir).join(&n);
        let label = n[name.len() + 1..].to_string();
        let (backend, spirv, wgsl) = if n.ends_with(".wgsl") {
            (Backend::Wgsl, None, Some(std::fs::read_to_string(&path).expect("variant")))
        } else if n.ends_with(".spvasm") {
            (Backend::Spirv, Some(assemble_spvasm(&path)), None)
        } else {
            continue;
        };
        out.push((label, backend, ptxcross::Program::new(n.clone(), module_of(backend), spirv, wgsl)));
    }
    out
}

/// The words of a SPIR-V assembly file (a hand edit of `ptxcross translate --to spvasm`),
/// assembled with `spirv-as` for Vulkan 1.1.
pub fn assemble_spvasm(path: &std::path::Path) -> Vec<u32> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let bin = std::env::temp_dir().join(format!("ptxcross-spvasm-{}-{name}.spv", std::process::id()));
    let st = std::process::Command::new("spirv-as")
        .args(["--target-env", "vulkan1.1", "-o"])
        .arg(&bin)
        .arg(path)
        .status()
        .expect("spirv-as");
    assert!(st.success(), "spirv-as {}", path.display());
    let out = words(&std::fs::read(&bin).expect("spv"));
    let _ = std::fs::remove_file(&bin);
    out
}

/// Bytes of little-endian words.
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The module header of [`check_per_thread`]'s kernels.
pub const PER_THREAD_HEADER: &str = ".version 8.5\n.target sm_80\n.address_size 64\n";

/// Runs `body` as kernel `k(out, in)` on one `u32` input per thread (`%r6`, address `%rd7` of
/// the thread's output word is ready) and checks every output word against `model(input)`.
pub fn check_per_thread(name: &str, regs: &str, body: &str, grid: u32, block: u32, model: impl Fn(u32) -> u32) {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = format!(
        "{PER_THREAD_HEADER}.visible .entry k(.param .u64 out, .param .u64 inp)\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<12>;\n{regs}\n\
         ld.param.u64 %rd1, [out];\n ld.param.u64 %rd2, [inp];\n\
         mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, %ntid.x;\n mad.lo.s32 %r4, %r2, %r3, %r1;\n\
         mul.wide.u32 %rd5, %r4, 4;\n add.s64 %rd6, %rd2, %rd5;\n add.s64 %rd7, %rd1, %rd5;\n\
         ld.global.u32 %r6, [%rd6];\n{body}\n ret;\n}}\n"
    );
    let n = (grid * block) as usize;
    let mut x = 0x9e37_79b9u32;
    let input: Vec<u32> = (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x.wrapping_add(i as u32)
        })
        .collect();
    let expected: Vec<u32> = input.iter().map(|&v| model(v)).collect();
    for backend in Backend::ALL {
        let launch = Launch {
            ptx: &ptx,
            kernel: "k",
            block: [block, 1, 1],
            grid: [grid, 1, 1],
            buffers: vec![vec![0; n * 4], bytes(&input)],
        };
        let out = run(&gpu, &launch, backend).unwrap_or_else(|e| panic!("{name} on {backend}: {e}"));
        let got = words(&out[0]);
        let bad: Vec<usize> = (0..n).filter(|&i| got[i] != expected[i]).collect();
        assert!(
            bad.is_empty(),
            "{name} on {backend}: {} of {n} words wrong, first at {}: input {:#x}, expected {}, got {}",
            bad.len(),
            bad[0],
            input[bad[0]],
            expected[bad[0]],
            got[bad[0]]
        );
    }
}


/// Whether `gpu` refuses some kernel of `program` on `backend` because its results depend on
/// subnormals that the device flushes there (`Error::SubnormalsFlushed`): the right answer on
/// such a device (NVIDIA's WGSL path flushes f32), so a test that runs every backend skips
/// that one, saying so. `PTXCROSS_ASSUME_FLUSHED=wgsl` exercises this on any device.
pub fn refused_for_subnormals(gpu: &Arc<Gpu>, program: &ptxcross::Program, backend: Backend) -> bool {
    for name in program.kernel_names() {
        if let Some(Err(e)) = program.kernel(&name).map(|k| gpu.check_subnormals(k, backend)) {
            eprintln!("skipped on {backend}: {e}");
            return true;
        }
    }
    false
}

/// Runs each of `specs` (launch spec files) through `ptxcross run --spec` on the backends
/// `backends(i)` names (i its index in `specs`): the number of runs and the failed ones
/// ("stem [backend]"; `ptxcross run` printed the details), or `None` (with a note) when there
/// is no GPU and `PTXCROSS_REQUIRE_GPU=1` is not set.
pub fn run_specs(specs: &[std::path::PathBuf], backends: impl Fn(usize) -> &'static [&'static str]) -> Option<(usize, Vec<String>)> {
    gpu_or_skip()?;
    let mut failed = Vec::new();
    let mut runs = 0;
    for (i, spec) in specs.iter().enumerate() {
        let name = spec.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        for backend in backends(i) {
            runs += 1;
            let args: Vec<String> = ["run", "--backend", backend, "--spec", &spec.to_string_lossy()].iter().map(|s| s.to_string()).collect();
            if ptxcross::cli::main(&args) != 0 {
                failed.push(format!("{name} [{backend}]"));
            }
        }
    }
    Some((runs, failed))
}
