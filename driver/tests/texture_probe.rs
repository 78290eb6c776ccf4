//! The texture probe (`tests/nvidia/texture_probe/texture_probe.c`) through this crate's
//! libcuda.so.1, record by record against the bits NVIDIA's texture units gave for the same
//! program (`tests/nvidia/texture_measured.bin`, measured on an H200 with driver 580; see
//! tests/nvidia/README.md). Every record must be bit-equal (the coordinates, the call status
//! and the four result words) except in the configs `check_of` names as known differences
//! (linear filtering's arithmetic, non-power-of-two normalized scaling, the surface write after
//! NVIDIA's misaligned fault destroyed its context;
//! docs/nvidia.md); of the dense linear sweeps channel 0, which is α, is compared. The probe needs cuda.h from the client venv
//! (scripts/install-deps.sh); without it the test says so and passes, unless
//! PTXCROSS_REQUIRE_CLIENTS=1.

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::client::{cuda_include, pyenv_dir, repo, skip};

fn library_dir() -> PathBuf {
    common::client::library_dir("libcuda-texture-probe")
}

/// One result of the probe (its documented 48-byte record).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Record {
    config: u32,
    kernel: u32,
    index: u32,
    status: u32,
    input: [u32; 4],
    out: [u32; 4],
}

/// A probe output file: the config names and the records.
struct Probe {
    configs: Vec<String>,
    records: Vec<Record>,
}

fn parse(bytes: &[u8], what: &str) -> Probe {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert!(bytes.len() >= 20 && &bytes[..8] == b"TXPROBE1", "{what}: not a texture probe file");
    assert_eq!(word(8), 1, "{what}: format version");
    let (n_records, n_configs) = (word(12) as usize, word(16) as usize);
    assert_eq!(bytes.len(), 20 + 64 * n_configs + 48 * n_records, "{what}: size");
    let configs = (0..n_configs)
        .map(|i| {
            let at = 20 + 64 * i;
            assert_eq!(word(at) as usize, i, "{what}: config table");
            let name = &bytes[at + 4..at + 64];
            String::from_utf8_lossy(&name[..name.iter().position(|&b| b == 0).unwrap_or(60)]).into_owned()
        })
        .collect();
    let base = 20 + 64 * n_configs;
    let records = (0..n_records)
        .map(|i| {
            let w = |k: usize| word(base + 48 * i + 4 * k);
            Record {
                config: w(0),
                kernel: w(1),
                index: w(2),
                status: w(3),
                input: [w(4), w(5), w(6), w(7)],
                out: [w(8), w(9), w(10), w(11)],
            }
        })
        .collect();
    Probe { configs, records }
}

fn show(r: &Record) -> String {
    let f = |w: &[u32]| w.iter().map(|&b| format!("{:08x}({})", b, f32::from_bits(b))).collect::<Vec<_>>().join(" ");
    format!("status {} in [{}] out [{}]", r.status, f(&r.input[..3]), f(&r.out))
}

/// How much of a config's records must equal NVIDIA's.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Check {
    /// Every record bit for bit.
    All,
    /// Only channel 0 (and the inputs and status): the dense 1/1024 sweeps over f32 texels
    /// 0, 1, 0, 1 … whose channel 0 is α itself.
    Alpha,
    /// Not compared: a known difference, listed in docs/nvidia.md (texture findings).
    Known(&'static str),
}

fn check_of(name: &str) -> Check {
    let filtered = name.contains(" linear") && !name.starts_with("linear fetch") && !name.contains("s32 coords");
    if filtered && name.starts_with("1d dense f32x4") {
        Check::Alpha
    } else if filtered {
        Check::Known("linear filtering: NVIDIA rounds the weighted sum once (ties away) and filters 8/16-bit and f16 texels at lower precision; ptxcross rounds each term")
    } else if name.starts_with("pitch2d") {
        Check::Known("normalized coordinates on a 5×3 texture: NVIDIA's scaling by a non-power-of-two extent differs")
    } else if name.contains("misaligned write") {
        // The misaligned read before it faulted (CUDA_ERROR_MISALIGNED_ADDRESS, as here), which
        // on NVIDIA destroys the process's later contexts: the write measured only that.
        Check::Known("misaligned surface write: NVIDIA's context was already destroyed (CUDA_ERROR_CONTEXT_IS_DESTROYED); ptxcross faults it as misaligned")
    } else {
        Check::All
    }
}

/// Where `ours` differs from `nvidia` in what `check_of` compares: one line per record.
fn differences(nvidia: &Probe, ours: &Probe) -> Vec<String> {
    let mut diffs = Vec::new();
    if nvidia.configs != ours.configs {
        diffs.push(format!("config tables differ: {} vs {} configs", nvidia.configs.len(), ours.configs.len()));
        return diffs;
    }
    for (id, name) in nvidia.configs.iter().enumerate() {
        let of = |p: &Probe| p.records.iter().filter(|r| r.config as usize == id).copied().collect::<Vec<_>>();
        let (n, o) = (of(nvidia), of(ours));
        let check = check_of(name);
        if matches!(check, Check::Known(_)) {
            continue;
        }
        if n.len() != o.len() {
            diffs.push(format!("config {id} ({name}): {} records measured, {} here", n.len(), o.len()));
            continue;
        }
        for (a, b) in n.iter().zip(&o) {
            let same = match check {
                Check::Alpha => (a.config, a.kernel, a.index, a.status, a.input, a.out[0]) == (b.config, b.kernel, b.index, b.status, b.input, b.out[0]),
                _ => a == b,
            };
            if !same {
                diffs.push(format!("config {id} ({name}) #{}:\n    nvidia {}\n    here   {}", a.index, show(a), show(b)));
            }
        }
    }
    diffs
}

#[test]
fn texture_probe_matches_nvidia_bit_for_bit() {
    let Some(include) = cuda_include(&pyenv_dir()) else { return skip("no cuda.h in the client venv") };
    if cuda::api::cuInit(0) != cuda::types::CUDA_SUCCESS {
        assert_ne!(std::env::var("PTXCROSS_REQUIRE_GPU").as_deref(), Ok("1"), "no device");
        return eprintln!("skipped: no device");
    }
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let exe = tmp.join("texture_probe");
    let status = Command::new("cc")
        .args(["-O1", "-std=gnu11", "-Wall"])
        .arg("-I")
        .arg(&include)
        .arg(repo().join("tests/nvidia/texture_probe/texture_probe.c"))
        .args(["-ldl", "-o"])
        .arg(&exe)
        .status()
        .expect("a C compiler (cc)");
    assert!(status.success(), "compiling texture_probe.c failed");
    let out_file = tmp.join("texture_ptxcross.bin");
    let out = Command::new(&exe)
        .arg(repo().join("tests/texture/ptx/texture.nvcc.ptx"))
        .arg(&out_file)
        .env("LD_LIBRARY_PATH", library_dir())
        .env("PTXCROSS_CACHE_DIR", tmp.join("cache-texture-probe"))
        .output()
        .expect("running the texture probe");
    eprintln!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "texture probe failed ({})", out.status);
    let ours = parse(&std::fs::read(&out_file).unwrap(), "ptxcross's output");
    let nvidia = parse(&std::fs::read(repo().join("tests/nvidia/texture_measured.bin")).unwrap(), "texture_measured.bin");
    let known: Vec<&String> = nvidia.configs.iter().filter(|n| matches!(check_of(n), Check::Known(_))).collect();
    eprintln!("{} of {} configs not compared (known differences, docs/nvidia.md)", known.len(), nvidia.configs.len());
    let diffs = differences(&nvidia, &ours);
    for d in diffs.iter().take(40) {
        eprintln!("{d}");
    }
    assert!(diffs.is_empty(), "{} records differ from NVIDIA's (first ones above)", diffs.len());
}
