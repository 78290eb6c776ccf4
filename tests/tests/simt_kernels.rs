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

fn ints(n: usize, seed: u32) -> Vec<i32> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x % 2001) as i32 - 1000
        })
        .collect()
}

fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn block_reduction_with_an_early_exit_guard_and_barriers_in_a_loop() {
    let Some(gpu) = gpu() else { return };
    for file in ["reduce_guard.sm80.ptx", "reduce_guard.clang.ptx"] {
        for (block, n) in [(256usize, 1000usize), (100, 1000), (48, 47), (64, 64 * 3 + 1)] {
            let program = program(file, &ptx(file), [block as u32, 1, 1]);
            let data = ints(n, 0xbeef + n as u32);
            let grid = n.div_ceil(block);
            let want: Vec<i32> = data.chunks(block).map(|c| c.iter().sum()).collect();
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let d = run.buffer(&i32s(&data));
                let out = run.zeros(grid * 4);
                run.launch(&program, "reduce_guard", [grid as u32, 1, 1], &[&d.to_le_bytes(), &out.to_le_bytes(), &(n as u32).to_le_bytes()], backend);
                let got: Vec<i32> = run.read_u32(out, grid).iter().map(|&x| x as i32).collect();
                assert_eq!(got, want, "{file} block {block} n {n} {backend}");
            }
        }
    }
}

#[test]
fn barriers_in_a_loop_whose_trip_count_is_loaded_from_memory() {
    let Some(gpu) = gpu() else { return };
    for file in ["tiled_sum.sm80.ptx", "tiled_sum.clang.ptx"] {
        for (block, grid, ntiles) in [(64usize, 3usize, 5u32), (100, 2, 3), (32, 1, 0)] {
            let program = program(file, &ptx(file), [block as u32, 1, 1]);
            let data = ints(grid * ntiles as usize * block, 7 + block as u32);
            let limits: Vec<u32> = (0..grid * block).map(|i| (i as u32 * 7) % (ntiles + 2)).collect();
            let mut want = vec![0i32; grid * block];
            for c in 0..grid {
                for tid in 0..block {
                    for t in 0..ntiles as usize {
                        if (t as u32) < limits[c * block + tid] {
                            want[c * block + tid] += data[(c * ntiles as usize + t) * block + (tid + 1) % block] * (t as i32 + 1);
                        }
                    }
                }
            }
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let d = run.buffer(&i32s(&data));
                let nt = run.buffer(&ntiles.to_le_bytes());
                let lim = run.buffer(&u32s(&limits));
                let out = run.zeros(grid * block * 4);
                let args = [d.to_le_bytes(), nt.to_le_bytes(), lim.to_le_bytes(), out.to_le_bytes()];
                let args: Vec<&[u8]> = args.iter().map(|a| &a[..]).collect();
                run.launch(&program, "tiled_sum", [grid as u32, 1, 1], &args, backend);
                let got: Vec<i32> = run.read_u32(out, grid * block).iter().map(|&x| x as i32).collect();
                assert_eq!(got, want, "{file} block {block} grid {grid} tiles {ntiles} {backend}");
            }
        }
    }
}
