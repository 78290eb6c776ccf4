//! Integer instructions (spec §9.7.1, §9.7.8). `bits` is the type's width; operands are the
//! low `bits` of the `u64`s, results are zero-extended.

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn bit(x: u64, i: u32) -> u64 {
    (x >> i) & 1
}

/// §9.7.1.19 `bfe`: the spec's bit loop, literally.
pub fn bfe(bits: u32, signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let msb = bits - 1;
    let pos = (b & 0xff) as u32;
    let len = (c & 0xff) as u32;
    let sbit = if !signed || len == 0 { 0 } else { bit(a, (pos + len - 1).min(msb)) };
    let mut d = 0u64;
    for i in 0..=msb {
        let v = if i < len && pos + i <= msb { bit(a, pos + i) } else { sbit };
        d |= v << i;
    }
    d
}

/// §9.7.1.20 `bfi`: the spec's bit loop, literally.
pub fn bfi(bits: u32, a: u64, b: u64, c: u64, d: u64) -> u64 {
    let msb = bits - 1;
    let pos = (c & 0xff) as u32;
    let len = (d & 0xff) as u32;
    let mut f = b & mask(bits);
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1u64 << (pos + i))) | (bit(a, i) << (pos + i));
        i += 1;
    }
    f
}
