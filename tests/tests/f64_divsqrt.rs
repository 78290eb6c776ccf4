//! A real nvcc kernel with double division, reciprocal and square root (tests/f64math: CUDA
//! source, nvcc -O3 and -G PTX, regen.sh): `a / b`, `1.0 / b` and `sqrt(a)` become
//! `div.rn.f64`, `rcp.rn.f64` and `sqrt.rn.f64` (a device-function call to `sqrt` under -G),
//! and `a * b + a / b` becomes `fma.rn.f64` at -O3 (`mul.f64` and `add.f64` under -G).
//! Both backends, against Rust's f64 `/`, `sqrt`, `mul_add` and `*`/`+` (IEEE 754, correctly
//! rounded to nearest), bit for bit; NaN results may be any NaN (the spec's "unspecified NaN").

use ptxcross::Backend;
use ptxcross_tests::launch::{self, gpu_or_skip, Launch};
use ptxcross_tests::sweep::{Rng, F64_EDGES};

const BLOCK: u32 = 128;
const GRID: u32 = 16;

fn inputs() -> (Vec<f64>, Vec<f64>) {
    let n = (BLOCK * GRID) as usize;
    let mut rng = Rng(0xd1_5eed);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    // Every pair of edges (zeros, subnormals, extremes, infinities, NaNs), then random bits,
    // random magnitudes near 1, subnormal quotients and overflowing ones.
    for &x in F64_EDGES {
        for &y in F64_EDGES {
            a.push(f64::from_bits(x));
            b.push(f64::from_bits(y));
        }
    }
    while a.len() < n {
        let k = a.len() % 4;
        let r = rng.next_u64();
        let s = rng.next_u64();
        let (x, y) = match k {
            0 => (f64::from_bits(r), f64::from_bits(s)),
            1 => (f64::from_bits(r >> 2 | 0x3fe0_0000_0000_0000), f64::from_bits(s >> 12 | 0x3ff0_0000_0000_0000)),
            2 => (f64::from_bits(r >> 12), f64::from_bits(s >> 2 | 1 << 62)),
            _ => (f64::from_bits(r >> 1 | 1 << 62), f64::from_bits(s >> 12)),
        };
        a.push(x);
        b.push(y);
    }
    (a, b)
}

fn bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect()
}

fn same(got: u64, want: f64) -> bool {
    if want.is_nan() {
        f64::from_bits(got).is_nan()
    } else {
        got == want.to_bits()
    }
}

#[test]
fn nvcc_double_division_reciprocal_and_root_are_correctly_rounded() {
    let Some(gpu) = gpu_or_skip() else { return };
    let (a, b) = inputs();
    let n = a.len();
    for (file, fused) in [("f64math.nvcc.ptx", true), ("f64math.nvcc-G.ptx", false)] {
        let path = format!("{}/f64math/ptx/{file}", env!("CARGO_MANIFEST_DIR"));
        let ptx = std::fs::read_to_string(&path).expect("the committed PTX");
        assert_eq!(ptx.contains("fma.rn.f64"), fused, "{file}: the multiply-add is expected {}", if fused { "fused" } else { "unfused" });
        for backend in Backend::ALL {
            let launch = Launch {
                ptx: &ptx,
                kernel: "f64math",
                block: [BLOCK, 1, 1],
                grid: [GRID, 1, 1],
                buffers: vec![bytes(&a), bytes(&b), vec![0; n * 8], vec![0; n * 8], vec![0; n * 8], vec![0; n * 8]],
            };
            let out = launch::run(&gpu, &launch, backend).unwrap_or_else(|e| panic!("{file} on {backend}: {e}"));
            let words = |k: usize| -> Vec<u64> { out[k].chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect() };
            let (q, r, s, f) = (words(2), words(3), words(4), words(5));
            let mut bad = Vec::new();
            for i in 0..n {
                let quot = a[i] / b[i];
                let madd = if fused { a[i].mul_add(b[i], quot) } else { a[i] * b[i] + quot };
                let checks = [("a/b", q[i], quot), ("1/b", r[i], 1.0 / b[i]), ("sqrt(a)", s[i], a[i].sqrt()), ("a*b + a/b", f[i], madd)];
                for (what, got, want) in checks {
                    if !same(got, want) && bad.len() < 10 {
                        bad.push(format!(
                            "{what} with a = {:#x}, b = {:#x}: got {got:#x}, expected {:#x}",
                            a[i].to_bits(),
                            b[i].to_bits(),
                            want.to_bits()
                        ));
                    }
                }
            }
            assert!(bad.is_empty(), "{file} on {backend}:\n{}", bad.join("\n"));
        }
    }
}
