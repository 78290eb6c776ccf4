//! Cross-checking the instruction references against NVIDIA hardware.
//!
//! The sweeps' references are written from the spec text; a reference can be wrong in the same
//! way as the code it checks (issue 9 found exactly that). So the same sweep cases can be run on
//! an NVIDIA GPU through the CUDA driver and judged by the same reference:
//!
//! 1. `PTXCROSS_SWEEP_DUMP=DIR cargo test -p ptxcross-tests --test inst_sweep --test half_sweep`
//!    writes every case a sweep checks as `DIR/<key>.ptx`, `<key>.in` (little-endian u64 rows)
//!    and `<key>.shape` (`sources destinations threads`).
//! 2. On a machine with an NVIDIA GPU and CuPy, `python3 tests/nvidia/run_sweeps.py DIR` runs
//!    each case through the CUDA driver (its PTX JIT) and writes `<key>.out`.
//! 3. `PTXCROSS_SWEEP_NVIDIA=DIR cargo test -p ptxcross-tests --test inst_sweep --test
//!    half_sweep` then checks NVIDIA's outputs instead of running the translated kernels: a
//!    failure means the reference (or the spec reading behind it) disagrees with the hardware.
//!    With `PTXCROSS_SWEEP_MISMATCHES=FILE` every disagreement is also appended to FILE, one
//!    tab-separated line each (see `sweep::check`), to study the hardware's rule.
//!
//! The key is a hash of the PTX and the inputs, so the three steps need the same test binary
//! inputs (the sweeps' generators are seeded).

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

fn key(ptx: &str, inputs: &[u64]) -> String {
    // FNV-1a over the bytes: stable across Rust versions, unlike `DefaultHasher`'s contract.
    struct Fnv(u64);
    impl Hasher for Fnv {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for &b in bytes {
                self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
            }
        }
    }
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    ptx.hash(&mut h);
    inputs.hash(&mut h);
    format!("{:016x}", h.finish())
}

fn dir(var: &str) -> Option<PathBuf> {
    std::env::var_os(var).map(PathBuf::from)
}

/// With `PTXCROSS_SWEEP_DUMP` set, writes the case (once; several backends check the same one).
pub fn dump_case(ptx: &str, inputs: &[u64], sources: usize, destinations: usize) {
    let Some(dir) = dir("PTXCROSS_SWEEP_DUMP") else { return };
    std::fs::create_dir_all(&dir).expect("PTXCROSS_SWEEP_DUMP: create dir");
    let k = key(ptx, inputs);
    let threads = inputs.len() / sources.max(1);
    let bytes: Vec<u8> = inputs.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(dir.join(format!("{k}.ptx")), ptx).expect("write ptx");
    std::fs::write(dir.join(format!("{k}.in")), bytes).expect("write inputs");
    std::fs::write(dir.join(format!("{k}.shape")), format!("{} {destinations} {threads}\n", sources.max(1)))
        .expect("write shape");
}

/// With `PTXCROSS_SWEEP_NVIDIA` set, NVIDIA's outputs for the case (`None`: not set), or why
/// there are none (`<key>.err`: the driver refused the PTX). A case missing from the directory
/// is a test failure: the dump and the run must cover every case.
pub fn nvidia_outputs(ptx: &str, inputs: &[u64]) -> Option<Result<Vec<u64>, String>> {
    let dir = dir("PTXCROSS_SWEEP_NVIDIA")?;
    let k = key(ptx, inputs);
    if let Ok(why) = std::fs::read_to_string(dir.join(format!("{k}.err"))) {
        return Some(Err(why.trim().to_string()));
    }
    let path = dir.join(format!("{k}.out"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (dump and run this case first)", path.display()));
    Some(Ok(bytes.chunks(8).map(|w| u64::from_le_bytes(w.try_into().unwrap())).collect()))
}
