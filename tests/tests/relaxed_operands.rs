//! Registers wider than the instruction type in `ld`, `st` and `cvt` (PTX ISA §9.4.1, Tables 26
//! and 27), end to end on both backends: a source is truncated to the type's low bits; a
//! destination gets the value sign-extended when the instruction type is signed, zero-extended
//! otherwise (whatever the register's own type). The kernel is `tests/relaxed/
//! relaxed_operands.ptx` (ptxas accepts it); the expected bytes below are written from the
//! tables, never from ptxcross.

use ptxcross::Backend;
use ptxcross_tests::launch::{gpu_or_skip, run, Launch};

const PTX: &str = include_str!("../relaxed/relaxed_operands.ptx");
const SLOTS: usize = 32;
const FILL: u8 = 0xAA;

fn sext(v: u64, bits: u32) -> u64 {
    (((v << (64 - bits)) as i64) >> (64 - bits)) as u64
}

/// A u32 result in a slot: the low word; the high word keeps the fill.
fn word(v: u32) -> [u8; 8] {
    let mut s = [FILL; 8];
    s[..4].copy_from_slice(&v.to_le_bytes());
    s
}

/// `bytes` stored at `at` in a slot of fill bytes.
fn stored(at: usize, bytes: &[u8]) -> [u8; 8] {
    let mut s = [FILL; 8];
    s[at..at + bytes.len()].copy_from_slice(bytes);
    s
}

/// The binary16 bits of an integer below 2^11 (exact).
fn f16_of_small_int(n: u32) -> u64 {
    if n == 0 {
        return 0;
    }
    let e = 31 - n.leading_zeros();
    (((e + 15) << 10) | ((n << (10 - e)) & 0x3ff)) as u64
}

/// The f32 bits of a finite, non-negative binary16 value (exact).
fn f32_of_f16(h: u32) -> u32 {
    let (e, m) = (h >> 10, h & 0x3ff);
    if e == 0 {
        (m as f32 * 2f32.powi(-24)).to_bits()
    } else {
        ((e + 112) << 23) | (m << 13)
    }
}

/// The 32 slots of out[i] for in[i] = `v`, from Tables 26/27 (cases as numbered in the PTX).
fn expected(v: u64) -> Vec<u8> {
    let x = v as u32;
    let b = v.to_le_bytes();
    let clamp_u16 = |a: i32| a.clamp(0, 0xffff) as u32;
    let slots: Vec<[u8; 8]> = vec![
        stored(1, &b[..1]),                                          // 0: st.u8 %u64
        stored(2, &b[..2]),                                          // 1: st.s16 %u64
        stored(4, &b[..4]),                                          // 2: st.u32 %u64
        stored(0, &b[..2]),                                          // 3: st.b16 %f32
        stored(4, &[b[0]; 4]),                                       // 4: st.v4.b8 %f64
        sext(v & 0xff, 8).to_le_bytes(),                             // 5: ld.s8 -> .b64
        word(b[1] as u32),                                           // 6: ld.u8 -> .b32
        word(sext((v >> 16) & 0xffff, 16) as u32),                   // 7: ld.s16 -> .b32
        sext((v >> 16) & 0xffff, 16).to_le_bytes(),                  // 8: ld.s16 -> .s64
        ((v >> 48) & 0xffff).to_le_bytes(),                          // 9: ld.u16 -> .s64
        (v >> 32).to_le_bytes(),                                     // 10: ld.f32 -> .b64
        word(x & 0xffff),                                            // 11: cvt.u16.u32 -> .b32
        word(sext(x as u64 & 0xffff, 16) as u32),                    // 12: cvt.s16.u32 -> .b32
        word(sext(v & 0xff, 8) as u32),                              // 13: cvt.s32.s8 %u64
        sext(x as u64 & 0xffff, 16).to_le_bytes(),                   // 14: cvt.u64.s16 %u32
        sext(x as u64 & 0xff, 8).to_le_bytes(),                      // 15: cvt.s8.s32 -> .b64
        (x as u64 & 0xff).to_le_bytes(),                             // 16: cvt.u8.s32 -> .s64
        word(((v & 0xffff) as f32).to_bits()),                       // 17: cvt.rn.f32.u16 %u64
        word(f32_of_f16(x & 0x7bff)),                                // 18: cvt.f32.f16 %b32
        f16_of_small_int(x & 2047).to_le_bytes(),                    // 19: cvt.rn.f16.f32 -> .b64
        word(((x as i32) >> 12).clamp(-32768, 32767) as u32),        // 20: cvt.rzi.s16.f32 -> .b32
        stored(2, &[b[0], b[0]]),                                    // 21: st.v2.u8 %b32
        {
            let mut s = [0u8; 8];
            s[..4].copy_from_slice(&(sext(b[0] as u64, 8) as u32).to_le_bytes());
            s[4..].copy_from_slice(&(sext(b[1] as u64, 8) as u32).to_le_bytes());
            s
        }, // 22: ld.v2.s8 -> .b32
        (b[4] as u64 + b[5] as u64 + ((b[6] as u64) << 16) + ((b[7] as u64) << 40)).to_le_bytes(), // 23
        (((clamp_u16((x as i32) >> 8) << 16) | clamp_u16(x as i32)) as u64).to_le_bytes(), // 24
        ((v >> 16) & 0xffff).to_le_bytes(),                          // 25: ld.b16 -> .b64
        stored(5, &[(((x as i32) >> 12) as u32 & 0xff) as u8]),     // 26: st.b8 %b32
        word(f32::from_bits(f32_of_f16(x & 0x7bff)).trunc() as i32 as u32), // 27: cvt.rzi.s32.f16 %b32
        (f32::from_bits(f32_of_f16(x & 0x7bff)) as f64).to_bits().to_le_bytes(), // 28: cvt.f64.f16 %b32
    ];
    let mut out: Vec<u8> = slots.concat();
    out.resize(SLOTS * 8, FILL);
    out
}

#[test]
fn wider_registers_in_ld_st_cvt_get_the_tables_bits() {
    let Some(gpu) = gpu_or_skip() else { return };
    let (block, grid) = (64u32, 4u32);
    let n = (block * grid) as usize;
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut input: Vec<u64> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        })
        .collect();
    // Sign bits set and clear in every byte, and the saturation edges of case 24.
    let edges = [0, u64::MAX, 0x8080_8080_8080_8080, 0x7f7f_7f7f_7f7f_7f7f, 0x0000_0000_0001_0000, 0xffff_ffff_8000_0000];
    input[..edges.len()].copy_from_slice(&edges);
    let want: Vec<u8> = input.iter().flat_map(|&v| expected(v)).collect();
    let in_bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    for backend in Backend::ALL {
        let launch = Launch {
            ptx: PTX,
            kernel: "relaxed",
            block: [block, 1, 1],
            grid: [grid, 1, 1],
            buffers: vec![vec![FILL; n * SLOTS * 8], in_bytes.clone()],
        };
        let out = run(&gpu, &launch, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let mut bad = Vec::new();
        for (i, v) in input.iter().enumerate() {
            for k in 0..SLOTS {
                let at = (i * SLOTS + k) * 8;
                if out[0][at..at + 8] != want[at..at + 8] {
                    bad.push(format!("thread {i} (in {v:#018x}) case {k}: got {:02x?}, want {:02x?}", &out[0][at..at + 8], &want[at..at + 8]));
                }
            }
        }
        assert!(bad.is_empty(), "{backend}: {} wrong slots:\n{}", bad.len(), bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n"));
    }
}
