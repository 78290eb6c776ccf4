//! Real CUDA kernels (tests/simt/src, compiled by nvcc 13.5 and clang-16 with tests/simt/regen.sh)
//! run on both backends, checked against the algorithm's definition computed on the CPU.

mod simt_util;
use ptxcross::Backend;
use simt_util::*;

fn ptx(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("simt/ptx").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Deterministic pseudo-random bytes.
fn bytes(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // Skewed: many hits on a few bins, so atomics contend.
            (if x % 3 == 0 { x % 7 } else { x >> 24 }) as u8
        })
        .collect()
}

#[test]
fn histogram_with_shared_then_global_atomics_and_a_64_bit_total() {
    let Some(gpu) = gpu() else { return };
    for file in ["histogram.sm80.ptx", "histogram.clang.ptx"] {
        // Block 100 (partial warps), 7 CTAs: the grid-stride loop's last round is partial.
        let block = 100usize;
        let program = program(file, &ptx(file), [block as u32, 1, 1]);
        let n = 10_007usize;
        let data = bytes(n, 0x1234_5678);
        let mut bins = [0u32; 256];
        let mut total = 0u64;
        for &b in &data {
            bins[b as usize] += 1;
            total = total.wrapping_add(b as u64 * 0x1_0000_0001);
        }
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let d = run.buffer(&data);
            let out_bins = run.zeros(256 * 4);
            let out_total = run.zeros(8);
            run.launch(
                &program,
                "histogram",
                [7, 1, 1],
                &[&d.to_le_bytes(), &(n as u32).to_le_bytes(), &out_bins.to_le_bytes(), &out_total.to_le_bytes()],
                backend,
            );
            assert_eq!(run.read_u32(out_bins, 256), bins.to_vec(), "{file} {backend}: bins");
            assert_eq!(run.read_u64(out_total, 1)[0], total, "{file} {backend}: 64-bit total");
        }
    }
}
