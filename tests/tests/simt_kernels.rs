//! Real CUDA kernels (tests/simt/src, compiled by nvcc 13.5 and clang-16, two also by NVRTC 12.9,
//! with tests/simt/regen.sh)
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
    // Skewed: many hits on a few bins, so atomics contend.
    words(seed).take(n).map(|x| (if x % 3 == 0 { x % 7 } else { x >> 24 }) as u8).collect()
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

/// 64-bit atomics whose old values are used, from nvcc, clang and NVRTC: tickets from 64-bit
/// counters must be exactly 0..count-1 per bin (a lost or duplicated update shows), the old
/// values of a counter stepping by 2^32 - 1 exactly {k (2^32 - 1)}, plus a 64-bit max, a
/// double sum (atomicAdd(double)) and a double max through an atomicCAS loop.
#[test]
fn histogram_with_64_bit_atomics_whose_results_are_used() {
    let Some(gpu) = gpu() else { return };
    for file in ["histogram64.sm80.ptx", "histogram64.clang.ptx", "histogram64.nvrtc.ptx"] {
        let block = 96usize;
        let program = program(file, &ptx(file), [block as u32, 1, 1]);
        let n = 20_011usize;
        let data = bytes(n, 0x9e37_79b9);
        // The CPU reference, from the kernel's definition.
        let mut count = [0u64; 16];
        let mut fsum = 0f64;
        let mut fmax = 0f64;
        let mut max64 = 0u64;
        for (i, &d) in data.iter().enumerate() {
            count[(d & 15) as usize] += 1;
            fsum += d as f64;
            fmax = fmax.max((d as u32 * 1024 + (i as u32 & 1023)) as f64);
            max64 = max64.max((d as u64) << 40 | i as u64);
        }
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let d = run.buffer(&data);
            let counters = run.zeros(33 * 8);
            let tickets = run.zeros(n * 8);
            let steps = run.zeros(n * 8);
            let sum = run.zeros(8);
            let max = run.zeros(8);
            let args = [d.to_le_bytes(), counters.to_le_bytes(), tickets.to_le_bytes(), steps.to_le_bytes()];
            let (s, m) = (sum.to_le_bytes(), max.to_le_bytes());
            run.launch(
                &program,
                "histogram64",
                [13, 1, 1],
                &[&args[0], &(n as u32).to_le_bytes(), &args[1], &args[2], &args[3], &s, &m],
                backend,
            );
            let c = run.read_u64(counters, 33);
            let ctx = format!("{file} {backend}");
            for b in 0..16 {
                assert_eq!(c[b], count[b], "{ctx}: counter {b}");
                assert_eq!(c[16 + b], count[b] * 0xffff_ffff, "{ctx}: stepping counter {b}");
            }
            assert_eq!(c[32], max64, "{ctx}: 64-bit max");
            let (t, st) = (run.read_u64(tickets, n), run.read_u64(steps, n));
            // Per bin, the tickets and (separately: the two counters interleave differently)
            // the stepping counter's old values.
            let mut per_bin: Vec<(Vec<u64>, Vec<u64>)> = vec![(Vec::new(), Vec::new()); 16];
            for (i, &d) in data.iter().enumerate() {
                per_bin[(d & 15) as usize].0.push(t[i]);
                per_bin[(d & 15) as usize].1.push(st[i]);
            }
            for (b, (tk, stp)) in per_bin.iter_mut().enumerate() {
                tk.sort_unstable();
                stp.sort_unstable();
                let want: Vec<u64> = (0..count[b]).collect();
                assert!(*tk == want, "{ctx}: bin {b}: tickets are not 0..{}", count[b]);
                let want: Vec<u64> = (0..count[b]).map(|k| k * 0xffff_ffff).collect();
                assert!(*stp == want, "{ctx}: bin {b}: old values of the stepping counter");
            }
            assert_eq!(f64::from_bits(run.read_u64(sum, 1)[0]), fsum, "{ctx}: double sum");
            assert_eq!(f64::from_bits(run.read_u64(max, 1)[0]), fmax, "{ctx}: double max (atomicCAS loop)");
        }
    }
}

/// 64-bit atomics on `__shared__` memory whose results are used (tests/simt/src/shared64.cu,
/// nvcc and clang-16): per block, tickets from 64-bit shared counters starting at 2^32 - 256
/// must be exactly START..START+count per bin, the old values of a counter stepping by
/// 2^32 - 1 exactly {k (2^32 - 1)}, a double sum (atomicAdd(double)), a 64-bit maximum through
/// an atomicCAS loop (each thread's last CAS result is at most the final maximum, and the
/// final is the block's maximum), and 32-bit counters beside them; the last block is partial.
#[test]
fn shared_memory_64_bit_atomics_whose_results_are_used() {
    let Some(gpu) = gpu() else { return };
    const START: u64 = 0xffff_ff00;
    for file in ["shared64.sm80.ptx", "shared64.clang.ptx"] {
        let block = 96usize;
        let program = program(file, &ptx(file), [block as u32, 1, 1]);
        let n = 1_000usize;
        let grid = n.div_ceil(block);
        let data = bytes(n, 0x2545_f491);
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let d = run.buffer(&data);
            let tickets = run.zeros(n * 24);
            let blocks = run.zeros(grid * 18 * 8);
            let sums = run.zeros(grid * 8);
            let counts32 = run.zeros(grid * 16 * 4);
            run.launch(
                &program,
                "shared64",
                [grid as u32, 1, 1],
                &[&d.to_le_bytes(), &(n as u32).to_le_bytes(), &tickets.to_le_bytes(), &blocks.to_le_bytes(), &sums.to_le_bytes(), &counts32.to_le_bytes()],
                backend,
            );
            let t = run.read_u64(tickets, n * 3);
            let bl = run.read_u64(blocks, grid * 18);
            let sm = run.read_u64(sums, grid);
            let c32 = run.read_u32(counts32, grid * 16);
            for k in 0..grid {
                let ctx = format!("{file} {backend} block {k}");
                let range = k * block..n.min((k + 1) * block);
                // The CPU reference of this block, from the kernel's definition.
                let mut count = [0u64; 16];
                let mut sum = 0f64;
                let mut max = 0u64;
                let mut per_bin: Vec<Vec<u64>> = vec![Vec::new(); 16];
                let mut steps = Vec::new();
                for i in range.clone() {
                    let d = data[i] as u64;
                    count[(d & 15) as usize] += 1;
                    sum += d as f64;
                    max = max.max(d << 40 | i as u64);
                    per_bin[(d & 15) as usize].push(t[3 * i]);
                    steps.push(t[3 * i + 1]);
                    assert!(t[3 * i + 2] <= bl[18 * k + 17], "{ctx}: thread {i}'s CAS saw {:#x} above the maximum", t[3 * i + 2]);
                }
                for b in 0..16 {
                    assert_eq!(bl[18 * k + b], START + count[b], "{ctx}: bin {b}");
                    assert_eq!(c32[16 * k + b] as u64, count[b], "{ctx}: 32-bit bin {b}");
                    per_bin[b].sort_unstable();
                    let want: Vec<u64> = (0..count[b]).map(|j| START + j).collect();
                    assert!(per_bin[b] == want, "{ctx}: bin {b}: tickets {:x?}", per_bin[b]);
                }
                steps.sort_unstable();
                let want: Vec<u64> = (0..range.len() as u64).map(|j| j * 0xffff_ffff).collect();
                assert!(steps == want, "{ctx}: old values of the stepping counter");
                assert_eq!(bl[18 * k + 16], range.len() as u64 * 0xffff_ffff, "{ctx}: stepping counter");
                assert_eq!(bl[18 * k + 17], max, "{ctx}: 64-bit maximum (atomicCAS loop)");
                assert_eq!(f64::from_bits(sm[k]), sum, "{ctx}: double sum");
            }
        }
    }
}

/// Memory ordering (tests/simt/src/fence.cu, nvcc and clang): the threadFenceReduction
/// hand-off through `__threadfence()` (membar.gl), and the same hand-off through release/acquire
/// operations at .gpu scope plus a .cta-scope message through shared memory read by spinning
/// acquire loads. Device-scope fences exist in SPIR-V only: the WGSL backend must refuse them
/// clearly. (On lavapipe, a CPU with coherent caches, these results hold even without fences:
/// the tests check the translation's results and the refusal, not that the fences are needed.)
#[test]
fn fences_and_release_acquire_hand_off_results_across_ctas() {
    let Some(gpu) = gpu() else { return };
    for file in ["fence.sm80.ptx", "fence.clang.ptx"] {
        const BLOCK: usize = 128;
        let (program, wgsl_error) = spirv_program(file, &ptx(file), [BLOCK as u32, 1, 1]);
        assert!(
            wgsl_error.contains("memory fence outside a barrier") && wgsl_error.contains("WGSL cannot express"),
            "{file}: {wgsl_error}"
        );
        let backend = Backend::Spirv;
        // fence_sum over a partial last round: 9 CTAs, n not a multiple of the grid.
        let n = 9 * BLOCK * 3 + 17;
        let input = ints(n, 0x5eed);
        let want: i32 = input.iter().sum();
        let mut run = Run::new(&gpu);
        let inp = run.buffer(&i32s(&input));
        let partial = run.zeros(9 * 4);
        let count = run.zeros(4);
        let result = run.zeros(4);
        let a = [inp.to_le_bytes(), partial.to_le_bytes(), count.to_le_bytes(), result.to_le_bytes()];
        run.launch(&program, "fence_sum", [9, 1, 1], &[&a[0], &(n as u32).to_le_bytes(), &a[1], &a[2], &a[3]], backend);
        assert_eq!(run.read_u32(result, 1)[0] as i32, want, "{file}: fence_sum");
        // inc(r, 9) from 0, nine times: 9 (it would wrap on the tenth).
        assert_eq!(run.read_u32(count, 1)[0], 9, "{file}: ticket counter");

        let ctas = 11usize;
        let input = ints(ctas * BLOCK, 0xacce55);
        let want: i32 = input.iter().map(|v| v * 3).sum();
        let inp = run.buffer(&i32s(&input));
        let data = run.zeros(ctas * BLOCK * 4);
        let flags = run.zeros(ctas * 4);
        let count = run.zeros(4);
        let result = run.zeros(4);
        let seen = run.zeros(ctas * 4);
        let a = [inp, data, flags, count, result, seen].map(|p| p.to_le_bytes());
        let args: Vec<&[u8]> = a.iter().map(|x| &x[..]).collect();
        run.launch(&program, "release_acquire", [ctas as u32, 1, 1], &args, backend);
        assert_eq!(run.read_u32(result, 1)[0] as i32, want, "{file}: release/acquire hand-off across CTAs");
        assert_eq!(run.read_u32(count, 1)[0] as usize, ctas, "{file}: acq_rel tickets");
        assert_eq!(run.read_u32(flags, ctas), vec![1; ctas], "{file}: release flags");
        assert_eq!(run.read_u32(seen, ctas), vec![0; ctas], "{file}: threads that read the CTA message before it was published");
    }
}

fn ints(n: usize, seed: u32) -> Vec<i32> {
    words(seed).take(n).map(|x| (x % 2001) as i32 - 1000).collect()
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

/// Runs `kernel` of the three warp.*.ptx files (nvcc, clang, NVRTC) on both backends with `(grid, block)`, buffers
/// `bufs` (initial bytes), extra scalar args appended after the buffers per `arg_order`, and
/// returns the final contents of every buffer per (file, backend).
fn run_warp(kernel: &str, block: usize, grid: usize, bufs: &[Vec<u8>], args: &dyn Fn(&[ptxcross::DevicePtr]) -> Vec<Vec<u8>>, check: &dyn Fn(&str, &[Vec<u8>])) {
    let Some(gpu) = gpu() else { return };
    for file in ["warp.sm80.ptx", "warp.clang.ptx", "warp.nvrtc.ptx"] {
        let program = program(file, &ptx(file), [block as u32, 1, 1]);
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let ptrs: Vec<_> = bufs.iter().map(|b| run.buffer(b)).collect();
            let a = args(&ptrs);
            let a: Vec<&[u8]> = a.iter().map(|x| &x[..]).collect();
            run.launch(&program, kernel, [grid as u32, 1, 1], &a, backend);
            let out: Vec<Vec<u8>> = ptrs.iter().zip(bufs).map(|(p, b)| run.read(*p, b.len())).collect();
            check(&format!("{file} {kernel} block {block} {backend}"), &out);
        }
    }
}

fn as_i32(b: &[u8]) -> Vec<i32> {
    b.chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn warp_shuffle_reduction_on_full_and_partial_warps() {
    for (block, grid) in [(64usize, 2usize), (48, 3), (100, 2)] {
        let data = ints(block * grid, 99 + block as u32);
        let warps = block.div_ceil(32);
        let mut want = Vec::new();
        for c in 0..grid {
            for w in 0..warps {
                let lo = c * block + w * 32;
                let hi = (lo + 32).min(c * block + block);
                want.push(data[lo..hi].iter().sum::<i32>());
            }
        }
        run_warp(
            "warp_reduce",
            block,
            grid,
            &[i32s(&data), vec![0; want.len() * 4]],
            &|p| vec![p[0].to_le_bytes().to_vec(), p[1].to_le_bytes().to_vec()],
            &|what, out| assert_eq!(as_i32(&out[1]), want, "{what}"),
        );
    }
}

/// Blocks 48 and 100 end in a partial warp (16 and 4 lanes): `__shfl_up_sync(0xffffffff)`
/// there waits only for the lanes that exist (§9.7.10.6: "non-exited threads corresponding to
/// membermask"), and `block_scan` reads the totals of the whole warps only.
#[test]
fn warp_and_block_inclusive_scans() {
    for (block, grid) in [(64usize, 2usize), (256, 1), (48, 3), (100, 2)] {
        let data = ints(block * grid, 5 + block as u32);
        let mut warp_want = Vec::new();
        let mut block_want = Vec::new();
        for c in data.chunks(block) {
            let mut acc = 0;
            for (i, &x) in c.iter().enumerate() {
                acc += x;
                block_want.push(acc);
                let w = i / 32 * 32;
                warp_want.push(c[w..=i].iter().sum::<i32>());
            }
        }
        let args = |p: &[ptxcross::DevicePtr]| vec![p[0].to_le_bytes().to_vec(), p[1].to_le_bytes().to_vec()];
        run_warp("warp_scan", block, grid, &[i32s(&data), vec![0; data.len() * 4]], &args, &|what, out| {
            assert_eq!(as_i32(&out[1]), warp_want, "{what}")
        });
        run_warp("block_scan", block, grid, &[i32s(&data), vec![0; data.len() * 4]], &args, &|what, out| {
            assert_eq!(as_i32(&out[1]), block_want, "{what}")
        });
    }
}

#[test]
fn stream_compaction_with_ballot_and_popc_after_an_early_exit() {
    for (block, grid, n) in [(64usize, 2usize, 100usize), (96, 2, 150)] {
        let data = ints(block * grid, 3 + n as u32);
        let warps = block * grid / 32;
        let mut want_out = vec![0i32; warps * 32];
        let mut want_counts = vec![0u32; warps];
        for w in 0..warps {
            let mut k = 0;
            for i in w * 32..(w * 32 + 32).min(n) {
                if data[i] > 0 {
                    want_out[w * 32 + k] = data[i];
                    k += 1;
                }
            }
            want_counts[w] = if w * 32 < n { k as u32 } else { 0 };
        }
        run_warp(
            "compact",
            block,
            grid,
            &[i32s(&data), vec![0; warps * 32 * 4], vec![0; warps * 4]],
            &|p| vec![p[0].to_le_bytes().to_vec(), (n as u32).to_le_bytes().to_vec(), p[1].to_le_bytes().to_vec(), p[2].to_le_bytes().to_vec()],
            &|what, out| {
                assert_eq!(as_i32(&out[1]), want_out, "{what}: compacted values");
                assert_eq!(out[2].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>(), want_counts, "{what}: counts");
            },
        );
    }
}

/// How many kernels of the CUB file (tests/parse-corpus/large, regenerated by its regen.sh
/// --large) lower and emit on both backends; prints the first error of each refused kernel by
/// kind. `cargo test -p ptxcross-tests --test simt_kernels cub -- --ignored --nocapture`
#[test]
#[ignore]
fn cub_file_kernels_translate() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("parse-corpus/large/cub_zoo.sm_80.ptx");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} missing (tests/parse-corpus/regen.sh --large)", path.display());
        return;
    };
    let start = std::time::Instant::now();
    let file = ptxcross_frontend::SourceFile::new("cub_zoo.sm_80.ptx", text);
    let ast = ptxcross_frontend::parse(&file).expect("parses");
    let names: Vec<String> = ast
        .items
        .iter()
        .filter_map(|i| match i {
            ptxcross_frontend::ast::Item::Function(f)
                if f.kind == ptxcross_frontend::ast::FunctionKind::Entry && f.body.is_some() =>
            {
                Some(f.name.name.to_string())
            }
            _ => None,
        })
        .collect();
    let mut ok = 0;
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    for name in &names {
        let options = ptxcross_lower::LowerOptions { kernel: Some(name.clone()), ..Default::default() };
        match ptxcross_lower::lower(&ast, &file, &options) {
            Ok(module) => match (ptxcross::translate::emit_spirv(&module), ptxcross::translate::emit_wgsl(&module, ptxcross::translate::Profile::Wgpu)) {
                (Ok(_), Ok(_)) => ok += 1,
                (a, b) => *kinds.entry(format!("backend: {:?} {:?}", a.err().map(|e| e.to_string()), b.err().map(|e| e.to_string()))).or_default() += 1,
            },
            Err(e) => {
                let msg = e[0].message.clone();
                let key = msg.split(" at ").next().unwrap_or(&msg).chars().take(90).collect::<String>();
                *kinds.entry(key).or_default() += 1;
            }
        }
    }
    eprintln!("{ok} of {} kernels translate ({:.1} s)", names.len(), start.elapsed().as_secs_f64());
    for (k, n) in &kinds {
        eprintln!("{n:4}  {k}");
    }
}

#[test]
fn barrier_reductions_count_only_non_exited_threads() {
    let Some(gpu) = gpu() else { return };
    for file in ["bar_red.sm80.ptx", "bar_red.clang.ptx"] {
        for (block, grid, n) in [(64usize, 3usize, 150usize), (100, 2, 200), (48, 2, 60)] {
            let program = program(file, &ptx(file), [block as u32, 1, 1]);
            let mut data = ints(block * grid, 11 + n as u32);
            data[0] = 995; // some CTA has an `or` that is true
            let mut want = vec![0i32; 3 * block * grid];
            for c in 0..grid {
                let live = &data[c * block..(c * block + block).min(n).max(c * block)];
                let count = live.iter().filter(|&&v| v > 0).count() as i32;
                let all = live.iter().all(|&v| v > -900) as i32;
                let any = live.iter().any(|&v| v > 990) as i32;
                for i in 0..live.len() {
                    let g = c * block + i;
                    want[3 * g..3 * g + 3].copy_from_slice(&[count, all, any]);
                }
            }
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let d = run.buffer(&i32s(&data));
                let out = run.zeros(want.len() * 4);
                run.launch(&program, "bar_red", [grid as u32, 1, 1], &[&d.to_le_bytes(), &(n as u32).to_le_bytes(), &out.to_le_bytes()], backend);
                let got: Vec<i32> = run.read_u32(out, want.len()).iter().map(|&x| x as i32).collect();
                assert_eq!(got, want, "{file} block {block} n {n} {backend}");
            }
        }
    }
}

#[test]
fn a_cta_fence_in_a_divergent_branch() {
    let Some(gpu) = gpu() else { return };
    for file in ["bar_red.sm80.ptx", "bar_red.clang.ptx"] {
        let (block, grid) = (64usize, 2usize);
        let program = program(file, &ptx(file), [block as u32, 1, 1]);
        let data = ints(block * grid, 77);
        let mut want = vec![0i32; block * grid];
        for c in 0..grid {
            let s: Vec<i32> = (0..block).map(|t| if t % 2 == 0 { data[c * block + t] * 3 } else { 7 }).collect();
            for t in 0..block {
                want[c * block + t] = s[t] + s[(t + 2) % block];
            }
        }
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let d = run.buffer(&i32s(&data));
            let out = run.zeros(block * grid * 4);
            run.launch(&program, "fence_block", [grid as u32, 1, 1], &[&d.to_le_bytes(), &out.to_le_bytes()], backend);
            let got: Vec<i32> = run.read_u32(out, block * grid).iter().map(|&x| x as i32).collect();
            assert_eq!(got, want, "{file} {backend}");
        }
    }
}

fn as_u32(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Runs `kernel` of each of `files` on both backends for `block`/`grid`: `bufs` are the
/// buffers' initial bytes, `args` builds the parameter list from their pointers, `check` gets
/// the final contents of every buffer.
fn run_file(
    files: &[&'static str],
    kernel: &str,
    block: usize,
    grid: usize,
    bufs: &[Vec<u8>],
    args: &dyn Fn(&[ptxcross::DevicePtr]) -> Vec<Vec<u8>>,
    check: &dyn Fn(&str, &[Vec<u8>]),
) {
    let Some(gpu) = gpu() else { return };
    for file in files {
        let program = program_of(file, &ptx(file), [block as u32, 1, 1], kernel);
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let ptrs: Vec<_> = bufs.iter().map(|b| run.buffer(b)).collect();
            let a = args(&ptrs);
            let a: Vec<&[u8]> = a.iter().map(|x| &x[..]).collect();
            run.launch(&program, kernel, [grid as u32, 1, 1], &a, backend);
            let out: Vec<Vec<u8>> = ptrs.iter().zip(bufs).map(|(p, b)| run.read(*p, b.len())).collect();
            check(&format!("{file} {kernel} block {block} grid {grid} {backend}"), &out);
        }
    }
}

fn ptrs_then(p: &[ptxcross::DevicePtr], scalars: &[(usize, u32)]) -> Vec<Vec<u8>> {
    // Pointers in order, with each (position, value) scalar inserted at its position.
    let mut a: Vec<Vec<u8>> = p.iter().map(|x| x.to_le_bytes().to_vec()).collect();
    for &(at, v) in scalars {
        a.insert(at, v.to_le_bytes().to_vec());
    }
    a
}

const SORT: [&str; 2] = ["sort.sm80.ptx", "sort.clang.ptx"];
const MATCH: [&str; 2] = ["match.sm80.ptx", "match.clang.ptx"];
const CUB: [&str; 1] = ["cub.sm80.ptx"];

/// tests/simt/src/sort.cu `bitonic_sort`: each CTA sorts a 256-int segment in shared memory
/// (threads loop over several indices between barriers; the last segment is partial).
fn bitonic_sort_in_shared_memory(full: bool) {
    for &(block, n) in slice(full, &[(100usize, 256 * 2 + 77), (128, 256 * 3), (48, 200)]) {
        let data = ints(n, 17 + n as u32);
        let grid = n.div_ceil(256);
        let want: Vec<i32> = data
            .chunks(256)
            .flat_map(|c| {
                let mut c = c.to_vec();
                c.sort();
                c
            })
            .collect();
        run_file(slice(full, &SORT), "bitonic_sort", block, grid, &[i32s(&data), vec![0; n * 4]], &|p| ptrs_then(p, &[(2, n as u32)]), &|what, out| {
            assert_eq!(as_i32(&out[1]), want, "{what}")
        });
    }
}

/// `warp_bitonic`: a 32-key bitonic network in registers with `shfl.sync.bfly`.
fn warp_bitonic_sort_with_xor_shuffles(full: bool) {
    let (block, grid) = (64usize, 2usize);
    let data = ints(block * grid, 4242);
    let want: Vec<i32> = data
        .chunks(32)
        .flat_map(|c| {
            let mut c = c.to_vec();
            c.sort();
            c
        })
        .collect();
    run_file(slice(full, &SORT), "warp_bitonic", block, grid, &[i32s(&data), vec![0; data.len() * 4]], &|p| ptrs_then(p, &[]), &|what, out| {
        assert_eq!(as_i32(&out[1]), want, "{what}")
    });
}

/// tests/simt/src/match.cu `match_groups`: `__match_any_sync` peers masks, ranks among peers,
/// and the leader's aggregated atomics, on partial blocks (48, 100) and warps cut short by
/// threads past n that returned before the collective.
fn match_any_grouping_with_leader_aggregation(full: bool) {
    for &(block, grid, n) in slice(full, &[(100usize, 2usize, 171usize), (64, 2, 128), (48, 3, 130)]) {
        let total = block * grid;
        let keys: Vec<u32> = words(0x51 + n as u32).take(total).map(|x| x % 6).collect();
        let vals = ints(total, 0x77 + n as u32);
        let (mut peers, mut rank) = (vec![0u32; total], vec![0u32; total]);
        let (mut counts, mut sums) = (vec![0u32; 6], vec![0i32; 6]);
        for gid in 0..n {
            // The warp: 32 consecutive threads of the CTA, cut at the CTA's end and at n.
            let (c, t) = (gid / block, gid % block);
            let lo = c * block + t / 32 * 32;
            let hi = (lo + 32).min(c * block + block).min(n);
            let mut m = 0u32;
            for g in lo..hi {
                if keys[g] == keys[gid] {
                    m |= 1 << (g - lo);
                }
            }
            peers[gid] = m;
            rank[gid] = (m & ((1u32 << (gid - lo)) - 1)).count_ones();
            counts[keys[gid] as usize] += 1;
            sums[keys[gid] as usize] += vals[gid];
        }
        let bufs = [u32s(&keys), i32s(&vals), vec![0; total * 4], vec![0; total * 4], vec![0; 6 * 4], vec![0; 6 * 4]];
        run_file(slice(full, &MATCH), "match_groups", block, grid, &bufs, &|p| ptrs_then(p, &[(2, n as u32)]), &|what, out| {
            assert_eq!(as_u32(&out[2]), peers, "{what}: peers masks");
            assert_eq!(as_u32(&out[3]), rank, "{what}: ranks");
            assert_eq!(as_u32(&out[4]), counts, "{what}: leader-aggregated counts");
            assert_eq!(as_i32(&out[5]), sums, "{what}: leader-aggregated sums (shfl over the peers)");
        });
    }
}

/// `match_all_odd`: `match.all` and `vote.{all,any,uni}` among a divergent subset of lanes
/// (a membermask that is not full; the other lanes are in the other branch).
fn match_all_and_votes_among_a_divergent_subset(full: bool) {
    let (block, grid) = (64usize, 2usize);
    let total = block * grid;
    let mut keys: Vec<u32> = words(0x0dd).take(total).map(|x| x % 64).collect();
    // Warp 0: every odd key has the same high part (match.all succeeds); warp 2: no odd key.
    for k in &mut keys[0..32] {
        *k = 0x30 | (*k & 15);
    }
    for k in &mut keys[64..96] {
        *k &= !1;
    }
    let mut out = vec![0xffff_ffffu32; total];
    let mut votes = vec![0u32; total / 32];
    for w in 0..total / 32 {
        let ks = &keys[w * 32..w * 32 + 32];
        let m: u32 = (0..32).filter(|&l| ks[l] & 1 == 1).map(|l| 1u32 << l).sum();
        if m == 0 {
            continue;
        }
        let lanes: Vec<usize> = (0..32).filter(|&l| m >> l & 1 == 1).collect();
        let same = lanes.iter().all(|&l| ks[l] >> 4 == ks[lanes[0]] >> 4);
        for &l in &lanes {
            out[w * 32 + l] = if same { m } else { 0 } | (same as u32) << 31;
        }
        let p: Vec<bool> = lanes.iter().map(|&l| ks[l] > 8).collect();
        let (a, y) = (p.iter().all(|&x| x), p.iter().any(|&x| x));
        votes[w] = a as u32 | (y as u32) << 1 | ((a || !y) as u32) << 2 | 8;
    }
    let bufs = [u32s(&keys), vec![0; total * 4], vec![0; total / 32 * 4]];
    run_file(slice(full, &MATCH), "match_all_odd", block, grid, &bufs, &|p| ptrs_then(p, &[]), &|what, o| {
        assert_eq!(as_u32(&o[1]), out, "{what}: match.all results");
        assert_eq!(as_u32(&o[2]), votes, "{what}: votes");
    });
}

/// `sub_warp`: shuffles with CUDA's width argument (the `c` operand's segment mask and clamp,
/// §9.7.8.6 shfl.sync): a width-8 down-reduction, a width-16 idx shuffle whose source lane
/// (21) is outside the segment, an up shuffle falling below its segment; and `redux.sync.add`.
fn sub_warp_shuffles_with_a_segment_width_and_redux(full: bool) {
    let (block, grid) = (64usize, 2usize);
    let total = block * grid;
    let v = ints(total, 0x5b);
    let mut want = vec![0i32; 4 * total];
    for w in 0..total / 32 {
        let x = &v[w * 32..w * 32 + 32];
        // shfl.down with width 8: lane l reads l + d when it stays in l's 8-lane segment, else
        // its own value.
        let mut s = x.to_vec();
        for d in [4usize, 2, 1] {
            s = (0..32).map(|l| s[l].wrapping_add(if l % 8 + d < 8 { s[l + d] } else { s[l] })).collect();
        }
        for l in 0..32 {
            let g = w * 32 + l;
            want[4 * g] = s[l];
            want[4 * g + 1] = x[l / 16 * 16 + 21 % 16];
            want[4 * g + 2] = if l % 8 >= 3 { x[l - 3] } else { x[l] };
            want[4 * g + 3] = x.iter().fold(0i32, |a, b| a.wrapping_add(*b));
        }
    }
    run_file(slice(full, &MATCH), "sub_warp", block, grid, &[i32s(&v), vec![0; 16 * total]], &|p| ptrs_then(p, &[]), &|what, out| {
        assert_eq!(as_i32(&out[1]), want, "{what}")
    });
}

/// tests/simt/src/cub.cu: `cub::WarpReduce` on 32- and 16-lane logical warps, and with
/// valid_items on warps cut by n.
fn cub_warp_reduce(full: bool) {
    let (block, grid) = (128usize, 2usize);
    let total = block * grid;
    let v = ints(total, 0xc0b);
    let s32: Vec<i32> = v.chunks(32).map(|c| c.iter().sum()).collect();
    let s16: Vec<i32> = v.chunks(16).map(|c| c.iter().sum()).collect();
    let bufs = [i32s(&v), vec![0; total / 32 * 4], vec![0; total / 16 * 4]];
    run_file(slice(full, &CUB), "cub_warp_reduce", block, grid, &bufs, &|p| ptrs_then(p, &[]), &|what, out| {
        assert_eq!(as_i32(&out[1]), s32, "{what}: 32-lane sums");
        assert_eq!(as_i32(&out[2]), s16, "{what}: 16-lane sums");
    });
    let n = 200usize;
    let mut want = vec![0i32; total / 32];
    for (w, c) in v[..n].chunks(32).enumerate() {
        want[w] = *c.iter().max().unwrap();
    }
    run_file(slice(full, &CUB), "cub_warp_max_partial", block, grid, &[i32s(&v), vec![0; total / 32 * 4]], &|p| ptrs_then(p, &[(1, n as u32)]), &|what, out| {
        assert_eq!(as_i32(&out[1]), want, "{what}")
    });
}

/// `cub::BlockReduce` (sum with num_valid) for 128, 100 and 48 threads, last block partial.
fn cub_block_reduce(full: bool) {
    for &(block, n) in slice(full, &[(100usize, 250usize), (128, 300), (48, 100)]) {
        let grid = n.div_ceil(block);
        let v = ints(n, 0xb10c + block as u32);
        let want: Vec<i32> = v.chunks(block).map(|c| c.iter().sum()).collect();
        let kernel = format!("cub_block_reduce_{block}");
        run_file(slice(full, &CUB), &kernel, block, grid, &[i32s(&v), vec![0; grid * 4]], &|p| ptrs_then(p, &[(1, n as u32)]), &|what, out| {
            assert_eq!(as_i32(&out[1]), want, "{what}")
        });
    }
}

/// `cub::BlockScan`: inclusive sum with the block aggregate, and an exclusive max scan from
/// INT_MIN, two items per thread, for 128, 100 and 48 threads.
fn cub_block_scan(full: bool) {
    for &block in slice(full, &[100usize, 128, 48]) {
        let grid = 2usize;
        let v = ints(2 * block * grid, 0x5ca + block as u32);
        let (mut incl, mut excl, mut aggr) = (Vec::new(), Vec::new(), Vec::new());
        for c in v.chunks(2 * block) {
            let (mut s, mut m) = (0i32, i32::MIN);
            for &x in c {
                excl.push(m);
                s += x;
                m = m.max(x);
                incl.push(s);
            }
            aggr.push(s);
        }
        let kernel = format!("cub_block_scan_{block}");
        let bufs = [i32s(&v), vec![0; v.len() * 4], vec![0; v.len() * 4], vec![0; grid * 4]];
        run_file(slice(full, &CUB), &kernel, block, grid, &bufs, &|p| ptrs_then(p, &[]), &|what, out| {
            assert_eq!(as_i32(&out[1]), incl, "{what}: inclusive sum");
            assert_eq!(as_i32(&out[2]), excl, "{what}: exclusive max");
            assert_eq!(as_i32(&out[3]), aggr, "{what}: aggregate");
        });
    }
}

/// `cub::BlockRadixSort` of key-value pairs, 4 items per thread, 48, 128 and 100 threads: keys
/// sorted, values permuted stably (radix sort is stable; values are the original positions).
fn cub_block_radix_sort(full: bool) {
    for &block in slice(full, &[48usize, 128, 100]) {
        let grid = 2usize;
        let per = 4 * block;
        // Half full-range keys, half from a small set (duplicates check stability).
        let keys: Vec<u32> = words(0x4ad1 + block as u32).take(per * grid).map(|x| if x & 1 == 0 { x } else { x % 37 }).collect();
        let vals: Vec<i32> = (0..(per * grid) as i32).collect();
        let (mut ks, mut vs) = (Vec::new(), Vec::new());
        for c in 0..grid {
            let mut pairs: Vec<(u32, i32)> = (c * per..c * per + per).map(|i| (keys[i], vals[i])).collect();
            pairs.sort_by_key(|p| p.0); // stable
            ks.extend(pairs.iter().map(|p| p.0));
            vs.extend(pairs.iter().map(|p| p.1));
        }
        let kernel = format!("cub_radix_sort_{block}");
        let bufs = [u32s(&keys), i32s(&vals), vec![0; keys.len() * 4], vec![0; keys.len() * 4]];
        run_file(slice(full, &CUB), &kernel, block, grid, &bufs, &|p| ptrs_then(p, &[]), &|what, out| {
            assert_eq!(as_u32(&out[2]), ks, "{what}: keys");
            assert_eq!(as_i32(&out[3]), vs, "{what}: values");
        });
    }
}

/// `shfl.sync` per the spec's Semantics (§9.7.10.6 "shfl.sync"): lane `lane` of a warp whose
/// sources are `a`, with its own `b` and `c`. Returns (d, p).
fn shfl_ref(mode: &str, a: &[u32], lane: usize, b: u32, c: u32) -> (u32, bool) {
    let (lane, bval, cval, seg) = (lane as i32, (b & 31) as i32, (c & 31) as i32, ((c >> 8) & 31) as i32);
    let max_lane = (lane & seg) | (cval & !seg);
    let min_lane = lane & seg;
    let (j, p) = match mode {
        "up" => (lane - bval, lane - bval >= max_lane),
        "down" => (lane + bval, lane + bval <= max_lane),
        "bfly" => (lane ^ bval, (lane ^ bval) <= max_lane),
        _ => {
            let j = min_lane | (bval & !seg);
            (j, j <= max_lane)
        }
    };
    (a[if p { j } else { lane } as usize], p)
}


/// Every `shfl.sync` mode with per-lane `b` (out of range values included: only b[4:0]
/// counts) and `c` (random clamp, segment mask and ignored high bits), against the spec.
fn shfl_modes_with_out_of_range_lanes_clamps_and_segment_masks(_full: bool) {
    shfl_sweep(Warps::Device)
}

/// The `shfl.sync` sweep; `native`: translated with native warp collectives too (the launch
/// must run the translation [`expected_warp_path`] names).
fn shfl_sweep(mode: Warps) {
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (64usize, 2usize);
    let total = block * grid;
    let mut w = words(0x5f1);
    let mut input = Vec::new();
    for i in 0..total {
        let (b, c) = (w.next().unwrap(), w.next().unwrap());
        // A third of the threads get small b and c with a whole-warp or 8-lane segment.
        let (b, c) = if i % 3 == 0 { (b % 40, if b & 1 == 0 { 0x1f } else { 0x1807 }) } else { (b, c) };
        input.extend([i as u32 * 3 + 1, b, c]);
    }
    let mut want = Vec::new();
    for g in 0..total {
        let (wb, lane) = (g / 32 * 32, g % 32);
        let a: Vec<u32> = (0..32).map(|l| input[3 * (wb + l)]).collect();
        let (b, c) = (input[3 * g + 1], input[3 * g + 2]);
        let mut bits = 0;
        for (k, (mode, b, c)) in [("up", b, c), ("down", b, c), ("bfly", b, c), ("idx", b, c), ("idx", 45, 0x181c), ("up", 33, 0x1004)].into_iter().enumerate() {
            let (d, p) = shfl_ref(mode, &a, lane, b, c);
            want.push(d);
            bits |= (p as u32) << k;
        }
        want.push(bits);
    }
    let build = mode.builder();
    let program = build("shfl_sweep.ptx", &ptx("shfl_sweep.ptx"), [block as u32, 1, 1]);
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let inp = run.buffer(&u32s(&input));
        let out = run.zeros(total * 28);
        run.launch(&program, "shfl_sweep", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
        check_warp_path(&gpu, &run, mode, "shfl_sweep", backend);
        let got = run.read_u32(out, total * 7);
        for g in 0..total {
            assert_eq!(got[7 * g..7 * g + 7], want[7 * g..7 * g + 7], "{backend}: thread {g} (b {:#x}, c {:#x})", input[3 * g + 1], input[3 * g + 2]);
        }
        if mode == Warps::Native {
            // Later launches (asynchronous ones too, in a new context) take the translation the
            // first one settled on for this pipeline, and are exact.
            let mut run = Run::new(&gpu);
            let inp = run.buffer(&u32s(&input));
            let out = run.zeros(total * 28);
            for _ in 0..2 {
                run.ctx
                    .launch_async(&program, "shfl_sweep", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend)
                    .expect("launch");
                check_warp_path(&gpu, &run, mode, "shfl_sweep (again, asynchronously)", backend);
            }
            run.ctx.synchronize().expect("no fault");
            assert_eq!(run.read_u32(out, total * 7), want, "{backend}: asynchronous launches");
        }
    }
}


/// `shfl.sync` in divergent warps (§9.7.10.6 "shfl.sync"): a sixth of the threads exit first,
/// the others shuffle with their own `b` and `c` and membermask = `activemask`, in a CTA of
/// 100 (its last warp partial). The predicate follows the Semantics for every lane whatever
/// its source; `d` is the source's `a` where the source lane is in range and did not exit,
/// the thread's own `a` where out of range; "results are undefined if a thread sources a
/// register from an inactive thread", so those are not checked. Exited threads write nothing.
/// Both backends, on the device's translation and the native lowering simulated.
#[test]
fn shfl_with_exited_lanes_and_a_partial_membermask() {
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (100usize, 2usize);
    let total = block * grid;
    let mut w = words(0x7a3);
    let mut input = Vec::new();
    for i in 0..total {
        let (b, c, e) = (w.next().unwrap(), w.next().unwrap(), w.next().unwrap());
        // Half the threads get small b and c with a whole-warp or 8-lane segment.
        let (b, c) = if i % 2 == 0 { (b % 40, if b & 1 == 0 { 0x1f } else { 0x1807 }) } else { (b, c) };
        input.extend([i as u32 * 3 + 1, b, c, (e % 6 == 0) as u32]);
    }
    let exited = |g: usize| input[4 * g + 3] != 0;
    for mode in [Warps::Device, Warps::Simulated] {
        let program = mode.builder()("shfl_divergent.ptx", &ptx("shfl_divergent.ptx"), [block as u32, 1, 1]);
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let inp = run.buffer(&u32s(&input));
            let out = run.zeros(total * 20);
            run.launch(&program, "shfl_divergent", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
            let got = run.read_u32(out, total * 5);
            for g in 0..total {
                let r = &got[5 * g..5 * g + 5];
                if exited(g) {
                    assert_eq!(r, [0; 5], "{mode:?} {backend}: exited thread {g} wrote");
                    continue;
                }
                let (cta_base, t) = (g / block * block, g % block);
                let (wb, lane) = (cta_base + t / 32 * 32, (t % 32) as i32);
                let (b, c) = (input[4 * g + 1], input[4 * g + 2]);
                let (bval, cval, seg) = ((b & 31) as i32, (c & 31) as i32, ((c >> 8) & 31) as i32);
                let max_lane = (lane & seg) | (cval & !seg);
                let min_lane = lane & seg;
                let mut bits = 0;
                for (k, (j, p)) in [
                    (lane - bval, lane - bval >= max_lane),
                    (lane + bval, lane + bval <= max_lane),
                    (lane ^ bval, (lane ^ bval) <= max_lane),
                    (min_lane | (bval & !seg), (min_lane | (bval & !seg)) <= max_lane),
                ]
                .into_iter()
                .enumerate()
                {
                    bits |= (p as u32) << k;
                    let what = format!("{mode:?} {backend}: thread {g} mode {k} (b {b:#x}, c {c:#x}, source lane {j})");
                    if !p {
                        assert_eq!(r[k], input[4 * g], "{what}: out of range, its own a");
                    } else {
                        let src = wb + j as usize;
                        // In range: a lane of the warp (0..=31); active if it exists and did not exit.
                        if src < cta_base + block && !exited(src) {
                            assert_eq!(r[k], input[4 * src], "{what}: the source's a");
                        }
                    }
                }
                assert_eq!(r[4], bits, "{mode:?} {backend}: thread {g}: predicates");
            }
        }
    }
}

/// Divergent warps: lanes that exited first, and the rest split into two groups running
/// vote/redux/match in different branches, each group's membermask being exactly its lanes
/// (§9.7.13.x vote.sync: a thread not in membermask contributes 0 to the ballot).
fn votes_redux_and_match_in_two_divergent_groups_after_exits(_full: bool) {
    vote_groups(Warps::Device)
}

/// The two groups of vote_groups running the same collective instructions at once, each
/// thread with its own group as membermask (lanes of the other group are active there and
/// must not count; the emulation ANDs membermask once per collective). Emulated on lavapipe.
#[test]
fn votes_redux_and_match_of_two_membermask_groups_at_one_instruction() {
    vote_groups_in(Warps::Device, "vote_one_site")
}

fn vote_groups(mode: Warps) {
    vote_groups_in(mode, "vote_groups")
}

/// `entry` (in `<entry>.ptx`): vote_groups.ptx's interface and expected values.
fn vote_groups_in(mode: Warps, entry: &str) {
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (100usize, 2usize);
    let total = block * grid;
    let mut w = words(0x90e);
    let x: Vec<u32> = (0..total).map(|_| w.next().unwrap() % 23).collect();
    let exit: Vec<u32> = (0..total).map(|i| (w.next().unwrap().is_multiple_of(5) || i % 37 == 5) as u32).collect();
    // Groups by x & 2 among the non-exited lanes of each warp (warps are cut by the CTA).
    let mut mask = vec![0u32; total];
    let mut want = vec![0u32; 5 * total];
    for c in 0..grid {
        for wb in (0..block).step_by(32) {
            let lanes: Vec<usize> = (wb..(wb + 32).min(block)).map(|t| c * block + t).collect();
            for g in [0u32, 2] {
                let members: Vec<usize> = lanes.iter().copied().filter(|&i| exit[i] == 0 && x[i] & 2 == g).collect();
                let m: u32 = members.iter().map(|&i| 1u32 << ((i - c * block) % 32)).sum();
                let ballot: u32 = members.iter().filter(|&&i| x[i] & 1 == 1).map(|&i| 1u32 << ((i - c * block) % 32)).sum();
                let sum: u32 = members.iter().map(|&i| x[i]).sum();
                let (all, any) = (ballot == m, ballot != 0);
                for &i in &members {
                    mask[i] = m;
                    let same: u32 = members.iter().filter(|&&k| x[k] >> 2 == x[i] >> 2).map(|&k| 1u32 << ((k - c * block) % 32)).sum();
                    want[5 * i..5 * i + 5].copy_from_slice(&[ballot, all as u32 | (any as u32) << 1 | ((all || !any) as u32) << 2, sum, same, 1]);
                }
            }
        }
    }
    let input: Vec<u32> = (0..total).flat_map(|i| [x[i], mask[i], exit[i]]).collect();
    let build = mode.builder();
    let file = format!("{entry}.ptx");
    let program = build(&file, &ptx(&file), [block as u32, 1, 1]);
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let inp = run.buffer(&u32s(&input));
        let out = run.zeros(total * 20);
        run.launch(&program, entry, [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
        check_warp_path(&gpu, &run, mode, entry, backend);
        let got = run.read_u32(out, total * 5);
        for i in 0..total {
            assert_eq!(got[5 * i..5 * i + 5], want[5 * i..5 * i + 5], "{backend}: thread {i} (x {}, mask {:#x}, exit {})", x[i], mask[i], exit[i]);
        }
    }
}

/// How a test translates warp collectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Warps {
    /// As the device asks (`Gpu::native_warps`: native where its subgroups can hold whole
    /// warps, or as `PTXCROSS_WARPS` says; emulated on lavapipe).
    Device,
    /// Native, with the emulated twin the runtime falls back to.
    Native,
    /// Native lowering, its subgroup operations simulated through shared memory (any device).
    Simulated,
}

impl Warps {
    fn builder(self) -> fn(&str, &str, [u32; 3]) -> ptxcross::Program {
        match self {
            Warps::Device => program,
            Warps::Native => native_program,
            Warps::Simulated => simulated_native_program,
        }
    }
}

/// After a launch of a native-warps program (`native`): the translation that ran is the one
/// the device must run ([`expected_warp_path`]); printed for the record.
fn check_warp_path(gpu: &ptxcross::Gpu, run: &Run, mode: Warps, what: &str, backend: Backend) {
    match mode {
        Warps::Device => return,
        Warps::Simulated => {
            assert_eq!(run.ctx.last_warp_path(), None, "{what} on {backend}: the simulation has no native translation");
            return;
        }
        Warps::Native => {}
    }
    let info = gpu.adapter_info();
    let path = run.ctx.last_warp_path();
    eprintln!(
        "{what} on {backend}: {path:?} warp collectives ({}, subgroup sizes {}..={})",
        info.name, info.subgroup_min_size, info.subgroup_max_size
    );
    assert_eq!(path, Some(expected_warp_path(gpu)), "{what} on {backend}: which translation ran");
}

/// `activemask`, `elect.sync` and every integer `redux.sync` in two divergent branches after
/// exits, block 100 (a partial warp), against the spec (§9.7.13.x): activemask = the lanes
/// of the warp in the branch; elect: one leader among them, the same for all (its lane in
/// `d`, `p` true only for it); redux over exactly those lanes.
fn warp_misc(mode: Warps) {
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (100usize, 3usize);
    let total = block * grid;
    let x: Vec<u32> = words(0x3c1d).take(total).collect();
    let build = mode.builder();
    let program = build("warp_misc.ptx", &ptx("warp_misc.ptx"), [block as u32, 1, 1]);
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let inp = run.buffer(&u32s(&x));
        let out = run.zeros(total * 32);
        run.launch(&program, "warp_misc", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
        check_warp_path(&gpu, &run, mode, "warp_misc", backend);
        let got = run.read_u32(out, total * 8);
        for c in 0..grid {
            for wb in (0..block).step_by(32) {
                let lanes: Vec<usize> = (wb..(wb + 32).min(block)).map(|t| c * block + t).collect();
                for parity in [0u32, 1] {
                    let members: Vec<usize> = lanes.iter().copied().filter(|&i| !x[i].is_multiple_of(5) && x[i] & 1 == parity).collect();
                    let Some(&first) = members.first() else { continue };
                    let lane = |i: usize| ((i - c * block) % 32) as u32;
                    let mask: u32 = members.iter().map(|&i| 1u32 << lane(i)).sum();
                    let vals = || members.iter().map(|&i| x[i]);
                    let want = [
                        vals().min().unwrap(),
                        vals().map(|v| v as i32).max().unwrap() as u32,
                        vals().fold(!0, |a, v| a & v),
                        vals().fold(0, |a, v| a | v),
                        vals().fold(0, |a, v| a ^ v),
                    ];
                    let leader = got[8 * first + 1];
                    assert!(mask >> (leader & 31) & 1 == 1 && leader < 32, "{backend}: thread {first}: leader {leader} outside {mask:#x}");
                    for &i in &members {
                        let g = &got[8 * i..8 * i + 8];
                        assert_eq!(g[0], mask, "{backend}: thread {i}: activemask");
                        assert_eq!(g[1], leader, "{backend}: thread {i}: the group's leader");
                        assert_eq!(g[2], (lane(i) == leader) as u32, "{backend}: thread {i}: is-leader");
                        assert_eq!(g[3..8], want, "{backend}: thread {i} (mask {mask:#x}): redux min, max, and, or, xor");
                    }
                }
                // Exited threads wrote nothing.
                for &i in lanes.iter().filter(|&&i| x[i].is_multiple_of(5)) {
                    assert_eq!(got[8 * i..8 * i + 8], [0; 8], "{backend}: exited thread {i}");
                }
            }
        }
    }
}

/// Issue 10's native warp collectives (`LowerOptions::native_warps`): kernels translated with
/// both translations, launched; the runtime's layout check picks the native one where the
/// device's subgroups hold whole warps (NVIDIA: asserted to have run, and exact) and falls back
/// to the emulation elsewhere (lavapipe's subgroups of 8: asserted to have fallen back, and
/// exact). Each launch prints which translation ran. The heavier vote_groups kernel runs where
/// the native path is expected (cheap there) or with `PTXCROSS_NATIVE_WARPS_ALL=1`; otherwise
/// both of its translations are only built and validated.
#[test]
fn native_warp_collectives_run_where_subgroups_hold_whole_warps_and_fall_back_elsewhere() {
    let Some(gpu) = gpu() else { return };
    if !gpu.features().contains(wgpu::Features::SUBGROUP) {
        eprintln!("skipped: the device has no subgroup operations (only the emulation can run)");
        return;
    }
    shfl_sweep(Warps::Native);
    warp_misc(Warps::Native);
    redux_f32(Warps::Native);
    if expected_warp_path(&gpu) == ptxcross::runtime::WarpPath::Native || std::env::var("PTXCROSS_NATIVE_WARPS_ALL").as_deref() == Ok("1") {
        vote_groups(Warps::Native);
    } else {
        native_program("vote_groups.ptx", &ptx("vote_groups.ptx"), [100, 1, 1]);
    }
}

/// The native lowering of warp collectives with its subgroup operations simulated through
/// shared memory (`LowerOptions::simulate_native_warps`), so that its rules and the SIMT
/// pass's masks run exactly on lavapipe: the shfl sweep, and activemask/elect/redux in
/// divergent branches after exits, vote/redux/match in two membermask groups after exits.
#[test]
fn native_warp_lowering_with_simulated_subgroups() {
    shfl_sweep(Warps::Simulated);
    warp_misc(Warps::Simulated);
    vote_groups(Warps::Simulated);
    redux_f32(Warps::Simulated);
}

/// The runtime's first launch of a native-warps pipeline is a check-only launch
/// (`abi::PARAM_WARP_CHECK_ONLY_WORD`): no workgroup's effects happen before the whole grid's
/// layout verdict is known. With the verdict simulated per CTA (`simulated_layout_program`):
/// every CTA passes (the native translation runs), none does (the emulated one), and CTAs 0
/// and 1 of 4 pass while 2 and 3 fail (no known device does this; the emulated translation
/// runs). In every case each thread's atomics happen exactly once per launch (a run of the
/// passing CTAs before the fallback would count them twice) and the check-only launch takes
/// no `%gridid` (§10.10: the launch's number in its context, from 1 here). Expected values from
/// the PTX's definition: out[gid] = its warp's ballot of ((7 gid) % 3 == 0).
#[test]
fn native_warp_launches_run_each_workgroup_once() {
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (64usize, 4usize);
    let total = block * grid;
    let ballot = |w: usize| (0..32).filter(|l| (7 * (w + l)).is_multiple_of(3)).map(|l| 1u32 << l).sum::<u32>();
    let want: Vec<u32> = (0..total).map(|i| ballot(i / 32 * 32)).collect();
    let subgroups = gpu.features().contains(wgpu::Features::SUBGROUP);
    for (pass_below, native) in [(u32::MAX, subgroups), (0, false), (2, false)] {
        let program = simulated_layout_program("warp_check_once.ptx", &ptx("warp_check_once.ptx"), [block as u32, 1, 1], pass_below);
        for backend in Backend::ALL {
            let what = format!("CTAs below {pass_below} pass the check, {backend}");
            let mut run = Run::new(&gpu);
            let (out, count, gid) = (run.zeros(total * 4), run.zeros(4), run.zeros(8));
            let args = [out.to_le_bytes(), count.to_le_bytes(), gid.to_le_bytes()];
            let args: Vec<&[u8]> = args.iter().map(|a| &a[..]).collect();
            let path = if native { ptxcross::runtime::WarpPath::Native } else { ptxcross::runtime::WarpPath::Emulated };
            for launch in 1..=2u32 {
                run.launch(&program, "warp_check_once", [grid as u32, 1, 1], &args, backend);
                assert_eq!(run.ctx.last_warp_path(), Some(path), "{what}: launch {launch}: which translation ran");
                assert_eq!(run.read_u32(count, 1), [launch * total as u32], "{what}: launch {launch}: threads that ran");
                let each: Vec<u32> = want.iter().map(|w| w.wrapping_mul(launch)).collect();
                assert_eq!(run.read_u32(out, total), each, "{what}: launch {launch}: ballots added");
                assert_eq!(run.read_u64(gid, 1), [launch as u64], "{what}: launch {launch}: %gridid");
            }
        }
    }
}

/// Barriers the spec leaves undefined (§9.7.13.1 `bar.sync`: every non-exited thread must
/// arrive): one reached only by odd threads, one in a loop that threads leave after different
/// trip counts (barrier_undefined.ptx). Any result is acceptable there, but the launch must
/// end (Vulkan and WGSL hang or are undefined when some invocations skip a barrier: the SIMT
/// pass makes every barrier workgroup-uniform) and what follows, which does not depend on the
/// undefined parts, must be right: out[gid] = 3 gid + 1. Blocks 64, 100 (a partial warp), 48.
#[test]
fn barriers_some_threads_never_reach_do_not_hang() {
    let Some(gpu) = gpu() else { return };
    for (block, grid) in [(64usize, 2usize), (100, 2), (48, 3)] {
        let total = block * grid;
        let program = program("barrier_undefined.ptx", &ptx("barrier_undefined.ptx"), [block as u32, 1, 1]);
        let want: Vec<u32> = (0..total as u32).map(|g| 3 * g + 1).collect();
        for backend in Backend::ALL {
            let mut run = Run::new(&gpu);
            let (out, scratch) = (run.zeros(total * 4), run.zeros(total * 4));
            run.launch(&program, "barrier_undefined", [grid as u32, 1, 1], &[&out.to_le_bytes(), &scratch.to_le_bytes()], backend);
            assert_eq!(run.read_u32(out, total), want, "block {block} {backend}");
        }
    }
}

/// What the native path costs where it falls back (lavapipe): translation (the kernel is
/// lowered twice, both translations emitted and validated), the first launch (the native
/// pipeline is created, launched alone as a check-only launch, faults in its layout check; then the emulated
/// pipeline is created and launched) and later launches (the emulated one directly), against
/// the emulated-only translation, on warp_misc.ptx. Round 0 uses a block shape this run has not
/// compiled (cold pipelines: lavapipe's compile time, tens of seconds and noisy, dominates);
/// rounds 1-4 the same shape again, so lavapipe's on-disk shader cache makes pipeline creation
/// cheap and the first launch shows the probe itself. Interleaved; medians printed:
///   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test simt_kernels fallback_cost -- --ignored --nocapture
#[test]
#[ignore]
fn native_warps_fallback_cost() {
    let Some(gpu) = gpu() else { return };
    let grid = 3usize;
    // A shape of its own per run (the shader cache outlives the process).
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let block = 101 + (seed % 150) as usize;
    let total = block * grid;
    let x: Vec<u32> = words(0x3c1d).take(total).collect();
    let text = ptx("warp_misc.ptx");
    let mut rows: Vec<(bool, bool, [f64; 3])> = Vec::new();
    for round in 0..5 {
        for native in [false, true] {
            for backend in Backend::ALL {
                let label = if native { "native + fallback" } else { "emulated only" };
                let shape = [block as u32, 1, 1];
                let t0 = std::time::Instant::now();
                let program = if native { native_program("warp_misc.ptx", &text, shape) } else { emulated_program("warp_misc.ptx", &text, shape) };
                let translate = t0.elapsed().as_secs_f64();
                let mut run = Run::new(&gpu);
                let inp = run.buffer(&u32s(&x));
                let out = run.zeros(total * 32);
                let args = [&inp.to_le_bytes()[..], &out.to_le_bytes()[..]];
                let t1 = std::time::Instant::now();
                run.launch(&program, "warp_misc", [grid as u32, 1, 1], &args, backend);
                let first = t1.elapsed().as_secs_f64();
                let t2 = std::time::Instant::now();
                for _ in 0..5 {
                    run.launch(&program, "warp_misc", [grid as u32, 1, 1], &args, backend);
                }
                let later = t2.elapsed().as_secs_f64() / 5.0;
                eprintln!(
                    "round {round} {label} {backend} (block {block}): translate {translate:.3} s, first launch {first:.3} s, later launches {:.2} ms ({:?})",
                    later * 1e3,
                    run.ctx.last_warp_path()
                );
                rows.push((native, round > 0, [translate, first, later]));
            }
        }
    }
    for warm in [false, true] {
        for native in [false, true] {
            let mut med = [0f64; 3];
            for (i, m) in med.iter_mut().enumerate() {
                let mut v: Vec<f64> = rows.iter().filter(|r| r.0 == native && r.1 == warm).map(|r| r.2[i]).collect();
                v.sort_by(|a, b| a.partial_cmp(b).unwrap());
                *m = v[v.len() / 2];
            }
            eprintln!(
                "median, {} pipelines, {}: translate {:.3} s, first launch {:.3} s, later launches {:.2} ms",
                if warm { "cached" } else { "cold" },
                if native { "native + fallback" } else { "emulated only" },
                med[0],
                med[1],
                med[2] * 1e3
            );
        }
    }
}

/// GPU time of warp-collective kernels, native translation against emulated, on the same
/// device in one process, interleaved (median of 7 timed launches each, after a warm-up):
/// nvcc's `warp_reduce` (5 `shfl.down` per warp) and the hand-written vote_groups (votes,
/// redux, match in divergent groups) over 2^20 threads, results checked. Where the native
/// layout check fails (lavapipe) both columns run the emulation:
///   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test simt_kernels native_warps_speed -- --ignored --nocapture
#[test]
#[ignore]
fn native_warps_speed() {
    let Some(gpu) = gpu() else { return };
    if !gpu.features().contains(wgpu::Features::SUBGROUP) {
        eprintln!("skipped: no subgroup operations");
        return;
    }
    let (block, grid) = (256usize, 4096usize);
    let total = block * grid;
    // warp_reduce.
    let data = ints(total, 4242);
    let want: Vec<i32> = data.chunks(32).map(|w| w.iter().fold(0i32, |a, &v| a.wrapping_add(v))).collect();
    let file = "warp.sm80.ptx";
    let text = ptx(file);
    let programs = [("emulated", emulated_program(file, &text, [block as u32, 1, 1])), ("native", native_program(file, &text, [block as u32, 1, 1]))];
    // vote_groups (inputs as in its test).
    let mut w = words(0x90e);
    let x: Vec<u32> = (0..total).map(|_| w.next().unwrap() % 23).collect();
    let vote_in: Vec<u32> = (0..total)
        .flat_map(|i| {
            let (lane0, t) = (i / 32 * 32, i);
            let group = x[t] & 2;
            let m: u32 = (lane0..lane0 + 32).filter(|&k| x[k] & 2 == group).map(|k| 1u32 << (k % 32)).sum();
            [x[t], m, 0]
        })
        .collect();
    let vfile = "vote_groups.ptx";
    let vtext = ptx(vfile);
    let vprograms = [("emulated", emulated_program(vfile, &vtext, [block as u32, 1, 1])), ("native", native_program(vfile, &vtext, [block as u32, 1, 1]))];
    for backend in Backend::ALL {
        let mut times: Vec<(String, Vec<f64>)> = Vec::new();
        let ctx = ptxcross::Context::new(ptxcross::ContextOptions { heap_bytes: 96 << 20, timeout: None, gpu: Some(gpu.clone()) })
            .expect("context");
        let mut run = Run { ctx };
        run.ctx.time_launches(true);
        let inp = run.buffer(&i32s(&data));
        let out = run.zeros(want.len() * 4);
        let vin = run.buffer(&u32s(&vote_in));
        let vout = run.zeros(total * 20);
        let mut vote_ref: Option<Vec<u32>> = None;
        for round in 0..8 {
            for (k, (label, program)) in programs.iter().enumerate() {
                run.launch(program, "warp_reduce", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
                let t = run.ctx.last_kernel_time().map(|d| d.as_secs_f64() * 1e3).unwrap_or(f64::NAN);
                let path = run.ctx.last_warp_path();
                assert_eq!(as_i32(&run.read(out, want.len() * 4)), want, "warp_reduce {label} {backend}");
                if times.len() <= k {
                    times.push((format!("warp_reduce {label} ({path:?})"), Vec::new()));
                }
                if round > 0 {
                    times[k].1.push(t);
                }
            }
            for (k, (label, program)) in vprograms.iter().enumerate() {
                run.launch(program, "vote_groups", [grid as u32, 1, 1], &[&vin.to_le_bytes(), &vout.to_le_bytes()], backend);
                let t = run.ctx.last_kernel_time().map(|d| d.as_secs_f64() * 1e3).unwrap_or(f64::NAN);
                let path = run.ctx.last_warp_path();
                let got = run.read_u32(vout, total * 5);
                // The emulated translation's results are checked by vote_groups' own test; the
                // native one must give the same bits.
                match &vote_ref {
                    None => vote_ref = Some(got),
                    Some(r) => assert!(*r == got, "vote_groups {label} {backend}: differs from the emulated translation"),
                }
                if times.len() <= 2 + k {
                    times.push((format!("vote_groups {label} ({path:?})"), Vec::new()));
                }
                if round > 0 {
                    times[2 + k].1.push(t);
                }
            }
        }
        for (what, mut t) in times {
            t.sort_by(|a, b| a.partial_cmp(b).unwrap());
            eprintln!("{backend} {what}: median GPU time {:.3} ms ({})", t[t.len() / 2], gpu.describe());
        }
    }
}

/// The shape of a native-warps translation (no device needed): a kernel with collectives is
/// its native translation (subgroup operations, the layout check's fault code) followed by its
/// emulated twin under the same PTX name; a kernel without any stays single; the listing
/// names each kernel once; the webgpu profile refuses the native translation with a message.
/// (vote_groups' collectives may meet as far as `lower/src/meeting.rs` can tell: by default it
/// runs in the CTA barrier scheduler, without a native translation; here it keeps the checked
/// lowering, the scheduler's fallback.)
#[test]
fn native_warps_modules_hold_each_collective_kernel_twice() {
    let text = format!("{}\n.visible .entry plain(.param .u64 p) {{\n    ret;\n}}\n", ptx("vote_groups.ptx"));
    let file = ptxcross_frontend::SourceFile::new("vote_groups_plus.ptx", text);
    let options =
        ptxcross_lower::LowerOptions { block: Some([64, 1, 1]), native_warps: true, meeting: ptxcross_lower::Meeting::Check, ..Default::default() };
    let module = ptxcross::translate::frontend(&file, &options).unwrap_or_else(|e| panic!("{}", e.render()));
    let shape: Vec<(&str, &str, bool, bool)> =
        module.kernels.iter().map(|k| (k.name.as_str(), k.entry_point.as_str(), k.features.native_warps, k.features.warp_fallback)).collect();
    assert_eq!(
        shape,
        [
            ("vote_groups", "k_vote_groups", true, false),
            ("vote_groups", "k_vote_groups_emulated_warps", false, true),
            ("plain", "k_plain", false, false)
        ]
    );
    let wgsl = ptxcross::translate::emit_wgsl(&module, ptxcross_wgsl::Profile::Wgpu).expect("wgpu profile");
    assert!(wgsl.contains("subgroupBallot(") && wgsl.contains("subgroupShuffle(") && wgsl.contains("@builtin(subgroup_invocation_id)"));
    assert!(wgsl.contains(&format!("px_fault({}u)", ptxcross_lower::abi::FAULT_WARP_LAYOUT)), "the layout check's fault");
    let spirv = ptxcross::translate::emit_spirv(&module).expect("spirv");
    ptxcross::translate::validate_spirv(&spirv).expect("spirv-val");
    let program = ptxcross::translate::build_program_from_ir("v", module.clone(), &Backend::ALL, true).expect("validated");
    assert_eq!(program.kernel_names(), ["vote_groups", "plain"]);
    assert!(program.kernel("vote_groups").is_some_and(|k| k.features.native_warps), "the name finds the native translation");
    let err = ptxcross::translate::emit_wgsl(&module, ptxcross_wgsl::Profile::WebGpu).expect_err("webgpu refuses it");
    assert!(err.to_string().contains("native warp collectives"), "{err}");
}

/// `redux.sync.{min,max}{.abs}{.NaN}.f32` (ISA 8.6+): block 100 (a partial warp), lanes that
/// exited first, and the rest of each warp in two groups, each running the eight forms with
/// its own membermask. Each warp draws one of four cases: a mix of ±0, ±inf, subnormals,
/// normals and NaNs of both signs with payloads; one group all NaN; only ±0 (NaNs in one
/// group); no NaN. Expected: `ptx_ref::float::redux_sync_f32` over the group, bit-exact.
fn redux_f32(mode: Warps) {
    use ptxcross_tests::ptx_ref::float::redux_sync_f32;
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (100usize, 3usize);
    let total = block * grid;
    let mut w = words(0xf32d);
    const NANS: [u32; 4] = [0x7fc0_0000, 0xffc0_0001, 0x7f80_0001, 0xff81_2345];
    const VALUES: [u32; 12] = [
        0, 0x8000_0000, 0x3fc0_0000, 0xbfc0_0000, 0x7f80_0000, 0xff80_0000, 1, 0x8000_0001, 0x007f_ffff, 0x807f_ffff, 0x7f7f_ffff, 0xff7f_ffff,
    ];
    let mut x = vec![0u32; total];
    let mut mask = vec![0u32; total];
    let exit: Vec<u32> = (0..total).map(|i| (w.next().unwrap() % 7 == 0 || i % 41 == 3) as u32).collect();
    let group: Vec<usize> = (0..total).map(|_| (w.next().unwrap() >> 7) as usize & 1).collect();
    let mut want = vec![0u32; 8 * total];
    let forms = [(false, false, false), (true, false, false), (false, true, false), (true, true, false), (false, false, true), (true, false, true), (false, true, true), (true, true, true)];
    let mut warp = 0;
    for c in 0..grid {
        for wb in (0..block).step_by(32) {
            let lanes: Vec<usize> = (wb..(wb + 32).min(block)).map(|t| c * block + t).collect();
            let case = warp % 4;
            warp += 1;
            for &i in &lanes {
                let r = w.next().unwrap();
                let pick = |pool: &[u32]| pool[(r >> 8) as usize % pool.len()];
                x[i] = match (case, group[i]) {
                    (1, 0) => pick(&NANS),
                    (2, 0) => pick(&VALUES[..2]),
                    (2, _) => if r % 3 == 0 { pick(&NANS) } else { pick(&VALUES[..2]) },
                    (3, _) => if r % 2 == 0 { pick(&VALUES) } else { r & !0x4000_0000 },
                    _ => match r % 6 {
                        0 => pick(&NANS),
                        1 | 2 => pick(&VALUES),
                        _ => r,
                    },
                };
            }
            for g in [0usize, 1] {
                let members: Vec<usize> = lanes.iter().copied().filter(|&i| exit[i] == 0 && group[i] == g).collect();
                let m: u32 = members.iter().map(|&i| 1u32 << ((i - c * block) % 32)).sum();
                let vals: Vec<u32> = members.iter().map(|&i| x[i]).collect();
                let r: Vec<u32> = forms.iter().map(|&(max, abs, nan)| redux_sync_f32(max, abs, nan, &vals)).collect();
                for &i in &members {
                    mask[i] = m;
                    want[8 * i..8 * i + 8].copy_from_slice(&r);
                }
            }
        }
    }
    let input: Vec<u32> = (0..total).flat_map(|i| [x[i], mask[i], exit[i]]).collect();
    let build = mode.builder();
    let program = build("redux_f32.ptx", &ptx("redux_f32.ptx"), [block as u32, 1, 1]);
    for backend in Backend::ALL {
        let mut run = Run::new(&gpu);
        let inp = run.buffer(&u32s(&input));
        let out = run.zeros(total * 32);
        run.launch(&program, "redux_f32", [grid as u32, 1, 1], &[&inp.to_le_bytes(), &out.to_le_bytes()], backend);
        check_warp_path(&gpu, &run, mode, "redux_f32", backend);
        let got = run.read_u32(out, total * 8);
        for i in 0..total {
            let g = &got[8 * i..8 * i + 8];
            if exit[i] != 0 {
                assert_eq!(g, [0; 8], "{backend}: exited thread {i} wrote");
                continue;
            }
            for (k, &(max, abs, nan)) in forms.iter().enumerate() {
                assert_eq!(
                    g[k], want[8 * i + k],
                    "{mode:?} {backend}: thread {i} (x {:#010x}, mask {:#010x}): redux.sync.{}{}{}.f32: got {:#010x}, want {:#010x}",
                    x[i], mask[i], if max { "max" } else { "min" }, if abs { ".abs" } else { "" }, if nan { ".NaN" } else { "" }, g[k], want[8 * i + k]
                );
            }
        }
    }
}

/// The f32 forms of `redux.sync` translated as the device asks (emulated on lavapipe).
#[test]
fn redux_f32_min_max_abs_nan_in_partial_membermasks() {
    redux_f32(Warps::Device)
}

/// Barriers with a thread count (§9.7.13.1: "the value must be a multiple of the warp size";
/// the participants are whole warps): `bar.sync 1`, `barrier.sync 15`, `bar.cta.sync 7` and
/// `bar.red.popc` on barrier 3 with a count naming every warp of the CTA (the thread count
/// rounded up to a multiple of 32), as an immediate and in a register, blocks 64, 100 and 48,
/// two CTAs; expected values from the kernel's definition (see bar_count.ptx).
#[test]
fn barriers_with_a_thread_count_naming_the_whole_cta() {
    let Some(gpu) = gpu() else { return };
    let grid = 2usize;
    for block in [64usize, 100, 48] {
        let count = block.div_ceil(32) * 32;
        let want = bar_count_results(block, grid);
        for (how, text) in [("immediate", ptx("bar_count.ptx").replace(", %r9", &format!(", {count}"))), ("register", ptx("bar_count.ptx"))] {
            let program = program("bar_count.ptx", &text, [block as u32, 1, 1]);
            for backend in Backend::ALL {
                let mut run = Run::new(&gpu);
                let out = run.zeros(12 * block * grid);
                run.launch(&program, "bar_count", [grid as u32, 1, 1], &[&out.to_le_bytes(), &(count as u32).to_le_bytes()], backend);
                assert_eq!(run.read_u32(out, 3 * block * grid), want, "block {block}, count {count} ({how}) on {backend}");
            }
        }
    }
}

/// bar_count.ptx's results by its definition (the comment at its top): per thread v, w and
/// the CTA's count of odd w.
fn bar_count_results(block: usize, grid: usize) -> Vec<u32> {
    let mut want = vec![0u32; 3 * block * grid];
    for c in 0..grid {
        let v = |t: usize| 3 * (c * block + (t + 1) % block) as u32 + 1;
        let w = |t: usize| v(block - 1 - t) + (block - 1 - t) as u32;
        let popc = (0..block).filter(|&t| w(t) & 1 == 1).count() as u32;
        for t in 0..block {
            want[3 * (c * block + t)..][..3].copy_from_slice(&[v(t), w(t), popc]);
        }
    }
    want
}

/// Barrier ids held in registers (§9.7.13.1: "an immediate constant or register with value 0
/// through 15"): bar_count.ptx with every id read from a parameter gives the kernel's results
/// for ids 0–15; an id of 16 or more faults with `abi::FAULT_BARRIER_ID` at the first barrier.
#[test]
fn barrier_ids_held_in_registers() {
    let Some(gpu) = gpu() else { return };
    let (block, grid) = (64usize, 2usize);
    let text = ptx("bar_count.ptx")
        .replace("(.param .u64 pout, .param .u32 pcount)", "(.param .u64 pout, .param .u32 pcount, .param .u32 pid)")
        .replace("    ld.param.u32 %r9, [pcount];\n", "    ld.param.u32 %r9, [pcount];\n    ld.param.u32 %r20, [pid];\n    and.b32 %r21, %r20, 3;\n")
        .replace("bar.sync 1, %r9", "bar.sync %r20, %r9")
        .replace("barrier.sync 15, %r9", "barrier.sync %r21, %r9")
        .replace("bar.cta.sync 7, %r9", "bar.cta.sync %r20")
        .replace("bar.red.popc.u32 %r16, 3, %r9", "bar.red.popc.u32 %r16, %r21, %r9");
    assert_eq!(text.matches("%r20, %r9").count() + text.matches("%r21, %r9").count(), 3, "{text}");
    let line = text.lines().position(|l| l.trim_start().starts_with("bar.sync %r20, %r9")).unwrap() + 1;
    let want = bar_count_results(block, grid);
    let program = program("bar_count.ptx", &text, [block as u32, 1, 1]);
    let count = (block as u32).to_le_bytes();
    for backend in Backend::ALL {
        for id in [0u32, 5, 15] {
            let mut run = Run::new(&gpu);
            let out = run.zeros(12 * block * grid);
            run.launch(&program, "bar_count", [grid as u32, 1, 1], &[&out.to_le_bytes(), &count, &id.to_le_bytes()], backend);
            assert_eq!(run.read_u32(out, 3 * block * grid), want, "id {id} on {backend}");
        }
        for id in [16u32, 0xffff_ffff] {
            let mut run = Run::new(&gpu);
            let out = run.zeros(12 * block * grid);
            let e = run.ctx.launch(&program, "bar_count", [grid as u32, 1, 1], &[&out.to_le_bytes(), &count, &id.to_le_bytes()], backend).expect_err("the launch must fault");
            let ptxcross::Error::KernelFault { bits, site, .. } = &e else { panic!("{backend}: not a kernel fault: {e}") };
            assert_eq!(*bits, ptxcross_lower::abi::FAULT_BARRIER_ID, "{backend}, id {id}: {e}");
            assert_eq!(site.as_deref(), Some(format!("bar_count.ptx:{line}:5 (`bar.sync`)").as_str()), "{backend}, id {id}: {e}");
        }
    }
}

/// A thread count held in a register (bar_count.ptx through the CTA barrier scheduler,
/// lower/src/scheduler.rs): an invalid one (0, more than the CTA's warps, no multiple of 32)
/// faults with `abi::FAULT_BARRIER_COUNT` at the barrier's line, on both backends; 32 (each
/// warp its own barrier: the kernel's cross-warp reads are then undefined) runs without a
/// fault; the full count gives the kernel's results.
#[test]
fn a_barrier_count_below_the_cta_faults_at_its_line() {
    let Some(gpu) = gpu() else { return };
    let text = ptx("bar_count.ptx");
    let line = text.lines().position(|l| l.trim_start().starts_with("bar.sync 1, %r9")).unwrap() + 1;
    let program = program("bar_count.ptx", &text, [64, 1, 1]);
    for backend in Backend::ALL {
        for count in [0u32, 96, 48] {
            let mut run = Run::new(&gpu);
            let out = run.zeros(12 * 64);
            let e = run.ctx.launch(&program, "bar_count", [1, 1, 1], &[&out.to_le_bytes(), &count.to_le_bytes()], backend).expect_err("the launch must fault");
            let ptxcross::Error::KernelFault { bits, site, .. } = &e else { panic!("{backend}: not a kernel fault: {e}") };
            assert!(bits & ptxcross_lower::abi::FAULT_BARRIER_COUNT != 0, "{backend}, count {count}: {e}");
            assert_eq!(site.as_deref(), Some(format!("bar_count.ptx:{line}:5 (`bar.sync`)").as_str()), "{backend}, count {count}: {e}");
            assert!(e.to_string().contains("or was invalid"), "{backend}: {e}");
        }
        let mut run = Run::new(&gpu);
        let out = run.zeros(12 * 64);
        run.launch(&program, "bar_count", [1, 1, 1], &[&out.to_le_bytes(), &32u32.to_le_bytes()], backend);
        run.launch(&program, "bar_count", [1, 1, 1], &[&out.to_le_bytes(), &64u32.to_le_bytes()], backend);
        assert_eq!(run.read_u32(out, 3 * 64), bar_count_results(64, 1), "{backend}: the full count");
    }
}

/// warp_misc translated as the device asks (emulated on lavapipe: the reference the other
/// translations are held to).
#[test]
fn activemask_elect_and_every_redux_in_divergent_branches() {
    warp_misc(Warps::Device)
}

/// The first of `all` (the CI slice), or all of them (`full`).
fn slice<T>(full: bool, all: &[T]) -> &[T] {
    if full {
        all
    } else {
        &all[..1]
    }
}

// The real kernels above take minutes of pipeline compilation on lavapipe when cold (its LLVM
// splits a shader with barriers into coroutines, and that time grows steeply with the number
// of barriers and values live across them: a kernel with a dozen warp collectives in divergent
// branches took ~10 min for two pipelines on this 2-core machine under load). CI runs one
// compiler (nvcc) and one block shape (a partial-warp one) of each; the full matrix, clang-16
// and the two costliest kernels run in `real_kernels_full_matrix`:
//   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test simt_kernels full_matrix -- --ignored

#[test]
fn bitonic_sort_in_shared_memory_ci() {
    bitonic_sort_in_shared_memory(false)
}

#[test]
fn warp_bitonic_sort_with_xor_shuffles_ci() {
    warp_bitonic_sort_with_xor_shuffles(false)
}

#[test]
fn match_any_grouping_with_leader_aggregation_ci() {
    match_any_grouping_with_leader_aggregation(false)
}

#[test]
fn sub_warp_shuffles_with_a_segment_width_and_redux_ci() {
    sub_warp_shuffles_with_a_segment_width_and_redux(false)
}

#[test]
fn cub_warp_reduce_ci() {
    cub_warp_reduce(false)
}

#[test]
fn cub_block_reduce_ci() {
    cub_block_reduce(false)
}

#[test]
fn cub_block_scan_ci() {
    cub_block_scan(false)
}

#[test]
fn cub_block_radix_sort_ci() {
    cub_block_radix_sort(false)
}

#[test]
fn shfl_modes_with_out_of_range_lanes_clamps_and_segment_masks_ci() {
    shfl_modes_with_out_of_range_lanes_clamps_and_segment_masks(false)
}

#[test]
#[ignore]
fn real_kernels_full_matrix() {
    bitonic_sort_in_shared_memory(true);
    warp_bitonic_sort_with_xor_shuffles(true);
    match_any_grouping_with_leader_aggregation(true);
    match_all_and_votes_among_a_divergent_subset(true);
    sub_warp_shuffles_with_a_segment_width_and_redux(true);
    cub_warp_reduce(true);
    cub_block_reduce(true);
    cub_block_scan(true);
    cub_block_radix_sort(true);
    shfl_modes_with_out_of_range_lanes_clamps_and_segment_masks(true);
    votes_redux_and_match_in_two_divergent_groups_after_exits(true);
}
