//! Real driver-API clients run against the library built from this crate (libcuda.so.1):
//! a C program linked with -lcuda against NVIDIA's cuda.h, cuda-python + NVRTC, and numba-cuda.
//! The Python packages and cuda.h come from PyPI into the venv scripts/install-deps.sh creates
//! (target/pyenv, or $PTXCROSS_PYENV). Without it these tests say so and pass, unless
//! PTXCROSS_REQUIRE_CLIENTS=1 (scripts/test.sh sets it), where a missing client fails.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

mod common;

/// One client at a time: each opens the device, and the machine may have few cores.
static SERIAL: Mutex<()> = Mutex::new(());

use common::client::{cuda_include, pyenv_dir, repo, skip};

fn pyenv() -> Option<PathBuf> {
    let p = pyenv_dir();
    p.join("bin/python").exists().then_some(p)
}

fn library_dir() -> PathBuf {
    common::client::library_dir("libcuda")
}

/// Runs a client with the library first on the search path and a fresh translation cache;
/// returns its stdout, panicking with its output when it fails.
fn run(mut cmd: Command, what: &str) -> String {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cache-{}", what.replace(' ', "-")));
    let _ = std::fs::remove_dir_all(&cache);
    let out = cmd
        .env("LD_LIBRARY_PATH", library_dir())
        .env("PTXCROSS_CACHE_DIR", &cache)
        .env("PTXCROSS_DRIVER_LOG", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let trace: String = stderr.lines().filter(|l| !l.contains("cuGetProcAddress")).map(|l| format!("{l}\n")).collect();
    eprintln!("--- {what}: stdout\n{stdout}--- stderr (entry-point lookups omitted)\n{trace}");
    assert!(out.status.success(), "{what} failed ({})", out.status);
    assert!(!stderr.contains("XDG_RUNTIME_DIR"), "spurious display-server noise on stderr");
    // The translations went to the disk cache.
    assert!(std::fs::read_dir(&cache).map(|d| d.count()).unwrap_or(0) > 0, "{what}: nothing in the translation cache");
    stdout
}

/// Compiles `driver/tests/clients/NAME.c` with `flags`, linked with -lcuda against this crate's
/// library; returns the executable.
fn compile_client(name: &str, flags: &[&std::ffi::OsStr]) -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let status = Command::new("cc")
        .args(["-O1", "-Wall"])
        .args(flags)
        .arg(repo().join(format!("driver/tests/clients/{name}.c")))
        .arg("-L")
        .arg(library_dir())
        .args(["-lcuda", "-o"])
        .arg(&exe)
        .status()
        .expect("a C compiler (cc)");
    assert!(status.success(), "compiling {name}.c failed");
    exe
}

#[test]
fn c_program_linked_with_lcuda() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(env) = pyenv() else { return skip("no Python venv with the CUDA headers") };
    let Some(include) = cuda_include(&env) else { return skip("no cuda.h in the venv") };
    let exe = compile_client("driver_api", &["-Wno-deprecated-declarations".as_ref(), "-I".as_ref(), include.as_os_str()]);
    let mut cmd = Command::new(&exe);
    cmd.arg(repo().join("tests/corpus/ptx/vecadd.sm52.ptx"));
    let out = run(cmd, "C program");
    assert!(out.contains("all driver API checks passed"), "{out}");
}

#[test]
fn cuda_python_with_nvrtc() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(env) = pyenv() else { return skip("no Python venv with cuda-python") };
    let mut cmd = Command::new(env.join("bin/python"));
    cmd.arg(repo().join("driver/tests/clients/cuda_python_nvrtc.py"));
    let out = run(cmd, "cuda-python");
    assert!(out.contains("saxpy_clamp: ok"), "{out}");
}

#[test]
fn numba_cuda_kernels() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(env) = pyenv() else { return skip("no Python venv with numba-cuda") };
    let mut cmd = Command::new(env.join("bin/python"));
    cmd.arg(repo().join("driver/tests/clients/numba_kernels.py"));
    let out = run(cmd, "numba-cuda");
    assert!(out.contains("all numba kernels passed"), "{out}");
}

/// Device-side printf through libcuda.so.1: a C client (no cuda.h needed) sees the kernel's
/// lines on its stdout at cuCtxSynchronize, after what it printed before synchronizing and
/// before what it prints after, once.
#[test]
fn c_program_sees_device_printf_at_synchronization() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let exe = compile_client("printf_client", &[]);
    let mut cmd = Command::new(&exe);
    cmd.arg(repo().join("tests/printf/ptx/printf.nvcc.ptx"));
    let out = run(cmd, "printf client");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.first(), Some(&"launched"), "{out}");
    assert_eq!(lines.last(), Some(&"synchronized"), "{out}");
    // Thread t of the 2 x 4 threads prints t (order between threads unspecified).
    let mut printed: Vec<u32> = lines[1..lines.len() - 1].iter().map(|l| l.parse().unwrap_or_else(|_| panic!("{out}"))).collect();
    printed.sort();
    assert_eq!(printed, (0..8).collect::<Vec<_>>(), "{out}");
}

/// nvcc 13.5's bin/ from the client venv, else from the compilers' venv of tests/cuda-env.sh
/// ($PTXCROSS_CUDA_VENV, default ~/.cache/ptxcross/cuda-venv).
fn nvcc_bin() -> Option<PathBuf> {
    let cuda_venv = std::env::var_os("PTXCROSS_CUDA_VENV").map(PathBuf::from).or_else(|| {
        let cache = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
        Some(cache.join("ptxcross/cuda-venv"))
    });
    let venvs = pyenv().into_iter().chain(cuda_venv);
    venvs
        .filter_map(|v| std::fs::read_dir(v.join("lib")).ok())
        .flat_map(|d| d.flatten().map(|e| e.path().join("site-packages/nvidia/cu13/bin")))
        .find(|b| b.join("nvcc").exists() && b.parent().is_some_and(|cu13| cu13.join("lib/libcudart_static.a").exists()))
}

/// `driver/tests/clients/runtime_api.cu` built by plain nvcc (the CUDA runtime, static by
/// default, and shared) runs on this library: the runtime's private tables, its integrity
/// check, fatbin registration, <<<>>> launches, and a kernel fault reported as
/// cudaErrorIllegalAddress. The program checks its results against CPU loops.
#[test]
fn cuda_runtime_program_built_by_nvcc() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(bin) = nvcc_bin() else { return skip("no nvcc (nvidia-cuda-nvcc) in the venv") };
    if Command::new("g++").arg("--version").output().is_err() {
        return skip("no g++ (nvcc's host compiler)");
    }
    let cudart_lib = bin.parent().unwrap().join("lib");
    // `-cudart shared` links -lcudart: the wheel has only libcudart.so.13.
    let link_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cudart-link");
    std::fs::create_dir_all(&link_dir).unwrap();
    let _ = std::fs::remove_file(link_dir.join("libcudart.so"));
    std::os::unix::fs::symlink(cudart_lib.join("libcudart.so.13"), link_dir.join("libcudart.so")).unwrap();
    let source = repo().join("driver/tests/clients/runtime_api.cu");
    let rpath = format!("-Xlinker=-rpath={}", cudart_lib.display());
    let builds: [(&str, Vec<&str>); 3] = [
        // PTX only, cudart static (nvcc's default).
        ("runtime-ptx-static", vec!["-gencode", "arch=compute_80,code=compute_80"]),
        // SASS and PTX (the usual -arch): ptxcross takes the PTX.
        ("runtime-sm80-static", vec!["-arch=sm_80"]),
        ("runtime-ptx-shared", vec!["-gencode", "arch=compute_80,code=compute_80", "-cudart", "shared", &rpath]),
    ];
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    for (name, flags) in builds {
        let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
        let status = Command::new(bin.join("nvcc"))
            .env("PATH", &path)
            .args(&flags)
            .arg("-L")
            .arg(&link_dir)
            .arg(&source)
            .arg("-o")
            .arg(&exe)
            .status()
            .expect("nvcc runs");
        assert!(status.success(), "nvcc {flags:?} failed");
        let out = run(Command::new(&exe), name);
        assert!(out.contains("runtime API: all checks passed"), "{name}: {out}");
        assert!(out.contains("synchronize cudaErrorIllegalAddress, last error cudaErrorIllegalAddress"), "{name}: {out}");
    }
}

/// Builds `driver/tests/clients/{name}.cu` with nvcc (PTX for compute_80, static cudart) and
/// runs it with `args` on the driver: its stdout and whether it exited with 0.
fn build_and_run_client(bin: &Path, name: &str, args: &[&str]) -> (String, bool) {
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let status = Command::new(bin.join("nvcc"))
        .env("PATH", &path)
        .args(["-gencode", "arch=compute_80,code=compute_80"])
        .arg(repo().join(format!("driver/tests/clients/{name}.cu")))
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("nvcc runs");
    assert!(status.success(), "nvcc {name}.cu failed");
    let out = Command::new(&exe)
        .args(args)
        .env("LD_LIBRARY_PATH", library_dir())
        .env("PTXCROSS_CACHE_DIR", PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cache-{name}")))
        .env("PTXCROSS_DRIVER_LOG", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {name}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let trace: String = String::from_utf8_lossy(&out.stderr).lines().filter(|l| !l.contains("cuGetProcAddress")).map(|l| format!("{l}\n")).collect();
    eprintln!("--- {name}: stdout\n{stdout}--- stderr (entry-point lookups omitted)\n{trace}");
    // A crash (signal) is never an answer.
    assert!(out.status.code().is_some(), "{name} crashed ({})", out.status);
    (stdout, out.status.success())
}

/// Programs as people write them against the CUDA runtime, each built by plain nvcc (PTX for
/// compute_80, static cudart) and checking itself against CPU loops, one PASS/FAIL line per
/// check (`driver/tests/clients/{runtime_features,managed_memory,cub_algorithms,thrust_algorithms,big_shared}.cu`):
/// streams, events, async copies, memset, dynamic shared memory, symbols, function and device
/// attributes, device printf, a refused 2048-thread block; managed memory (NVIDIA's
/// cudaMallocManaged tutorial, copies, memset, prefetch, `__managed__`, many small
/// allocations); CUB reduce, scan and merge sort; Thrust transform, reduce, inclusive_scan and
/// comparator sort; 64 KiB of dynamic shared memory (`big_shared.cu`, beyond lavapipe's
/// 32 KiB). Radix sort (CUB's and Thrust's):
/// [`radix_sort_with_shared_memory_beyond_the_device`]. Each program compiles in ≈1–15 s on 2
/// cores.
#[test]
fn cuda_runtime_programs_people_write() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(bin) = nvcc_bin() else { return skip("no nvcc (nvidia-cuda-nvcc) in the venv") };
    if Command::new("g++").arg("--version").output().is_err() {
        return skip("no g++ (nvcc's host compiler)");
    }
    let build_and_run = |name: &str| build_and_run_client(&bin, name, &[]);
    let has = |out: &str, line: &str| out.lines().any(|l| l == line);

    let (out, ok) = build_and_run("runtime_features");
    assert!(ok && out.contains("runtime features: 22 checks, all passed"), "{out}");
    // Device printf reaches stdout before the synchronization's PASS line.
    let lines: Vec<&str> = out.lines().collect();
    let synced = lines.iter().position(|l| *l == "PASS: kernel with printf synchronizes").expect("the printf check");
    let mut printed: Vec<&str> = lines[..synced].iter().copied().filter(|l| l.starts_with("device printf: ")).collect();
    printed.sort();
    let want = ["block 0 thread 0", "block 0 thread 1", "block 1 thread 0", "block 1 thread 1"].map(|b| format!("device printf: {b} k=42"));
    assert_eq!(printed, want, "{out}");

    // Managed memory (cudaMallocManaged, __managed__): NVIDIA's tutorial and the rest.
    let (out, ok) = build_and_run("managed_memory");
    assert!(ok && out.contains("managed memory: 22 checks, all passed"), "{out}");

    let (out, _) = build_and_run("cub_algorithms");
    for check in [
        "PASS: cub::DeviceReduce::Sum of 5000 ints",
        "PASS: cub::DeviceScan::InclusiveSum of 5000 ints",
        "PASS: cub::DeviceMergeSort::SortKeys (descending) of 5000 unsigned keys",
    ] {
        assert!(has(&out, check), "{check}\n{out}");
    }

    // Shared memory beyond the device's workgroup memory (64 KiB of dynamic shared memory
    // after opting in): kept in global memory, checked against a CPU loop.
    let (out, ok) = build_and_run("big_shared");
    assert!(ok && out.contains("big_shared: all checks passed"), "{out}");

    let (out, _) = build_and_run("thrust_algorithms");
    for check in ["PASS: thrust::transform", "PASS: thrust::reduce", "PASS: thrust::inclusive_scan", "PASS: thrust::sort with a comparator"] {
        assert!(has(&out, check), "{check}\n{out}");
    }
}

/// CUB's `DeviceRadixSort::SortKeys` and `SortPairs` and Thrust's `sort` of ints (radix sort)
/// through the driver: their onesweep and single-tile kernels declare more shared memory than
/// lavapipe's 32 KiB (33 280 and 35 912 bytes), which ptxcross keeps in global memory; checked
/// against `std::sort`/`std::stable_sort`. Ignored in the suite: lavapipe's LLVM takes
/// minutes to build the onesweep pipeline (driver README, "hang"). Measured (bigsmem session,
/// 2 cores at load ≈13, `MESA_SHADER_CACHE_DISABLE=true`): the init, histogram and
/// exclusive-sum kernels ran (0.3–3.7 s each, pipeline builds included), the first onesweep
/// launch (grid 1, block 384, translation 13 ms) had not finished (pipeline build and run
/// together, not told apart) when the 600 s launch watchdog ended the process. Run again
/// directly with `PTXCROSS_LAUNCH_TIMEOUT=2400` (Mesa's cache on, load 10–13): that launch had
/// not finished after 35 min of wall time (14 min of CPU) and was stopped; whether it
/// completes, and sorts right, is not known yet. Give it time on a quiet machine:
///   PTXCROSS_LAUNCH_TIMEOUT=3600 cargo test -p ptxcross-driver --test clients radix_sort -- --ignored --nocapture
#[test]
#[ignore = "lavapipe builds the onesweep pipelines for minutes; see the doc comment"]
fn radix_sort_with_shared_memory_beyond_the_device() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(bin) = nvcc_bin() else { return skip("no nvcc (nvidia-cuda-nvcc) in the venv") };
    let (out, ok) = build_and_run_client(&bin, "cub_radix_sort", &[]);
    assert!(ok && out.contains("cub radix sort: all checks passed"), "{out}");
    let (out, ok) = build_and_run_client(&bin, "thrust_algorithms", &["radix"]);
    assert!(ok && out.lines().any(|l| l == "PASS: thrust::sort"), "{out}");
}
