//! Launch specs: one kernel launch described in JSON (what `ptxcross run` / `verify` execute).
//!
//! ```json
//! { "ptx": "vecadd.ptx", "kernel": "vecadd", "grid": [4,1,1], "block": [256,1,1],
//!   "dynamic_shared_bytes": 0,
//!   "buffers": { "a": {"type": "f32", "values": [0.0, 0.5, "nan", "-inf", "0x7fc00000"]},
//!                "b": {"file": "in_b.bin"}, "c": {"zeros": 4000} },
//!   "args": [{"buffer": "a"}, {"buffer": "b", "offset": 16}, {"type": "s32", "value": 1000}],
//!   "expect": {"c": {"file": "expected_c.bin"}} }
//! ```
//! Paths are relative to the spec file. Element types: `u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16
//! f32 f64` (`b8..b64` are `u8..u64`). A value is a JSON number, `"nan"`/`"inf"`/`"-inf"`, a
//! `"0x…"` bit pattern, or a number in a string. Numbers are converted from their *decimal text*
//! with round-to-nearest-even (exactly, no double rounding through f64 — see
//! [`decimal_to_float_bits`]); integers must fit their type.

use std::cmp::Ordering;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// Element type of a buffer, a scalar argument or an expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    U64,
    S64,
    F16,
    BF16,
    F32,
    F64,
}

impl ElemType {
    pub fn parse(name: &str) -> Option<ElemType> {
        Some(match name {
            "u8" | "b8" => ElemType::U8,
            "s8" => ElemType::S8,
            "u16" | "b16" => ElemType::U16,
            "s16" => ElemType::S16,
            "u32" | "b32" => ElemType::U32,
            "s32" => ElemType::S32,
            "u64" | "b64" => ElemType::U64,
            "s64" => ElemType::S64,
            "f16" => ElemType::F16,
            "bf16" => ElemType::BF16,
            "f32" => ElemType::F32,
            "f64" => ElemType::F64,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ElemType::U8 => "u8",
            ElemType::S8 => "s8",
            ElemType::U16 => "u16",
            ElemType::S16 => "s16",
            ElemType::U32 => "u32",
            ElemType::S32 => "s32",
            ElemType::U64 => "u64",
            ElemType::S64 => "s64",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
        }
    }

    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            ElemType::U8 | ElemType::S8 => 1,
            ElemType::U16 | ElemType::S16 | ElemType::F16 | ElemType::BF16 => 2,
            ElemType::U32 | ElemType::S32 | ElemType::F32 => 4,
            ElemType::U64 | ElemType::S64 | ElemType::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElemType::F16 | ElemType::BF16 | ElemType::F32 | ElemType::F64
        )
    }

    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            ElemType::S8 | ElemType::S16 | ElemType::S32 | ElemType::S64
        )
    }

    fn bits(self) -> u32 {
        self.size() as u32 * 8
    }

    /// Encodes one value given as JSON text (a number literal, or a decoded string) as
    /// little-endian bytes.
    pub fn encode(self, text: &str) -> Result<Vec<u8>, String> {
        let bits = self.value_bits(text.trim())?;
        Ok(bits.to_le_bytes()[..self.size()].to_vec())
    }

    fn value_bits(self, t: &str) -> Result<u64, String> {
        let bad = |why: &str| format!("`{t}` is not a valid {} value{why}", self.name());
        if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            let v = u64::from_str_radix(&hex.replace('_', ""), 16).map_err(|_| bad(""))?;
            if self.bits() < 64 && v >> self.bits() != 0 {
                return Err(bad(&format!(
                    " (bit pattern wider than {} bits)",
                    self.bits()
                )));
            }
            return Ok(v);
        }
        if self.is_float() {
            return float_bits(self, t).ok_or_else(|| bad(""));
        }
        // Integers: exact decimal; also `1e3` / `5.0` when integral.
        let v: i128 = match t.parse::<i128>() {
            Ok(v) => v,
            Err(_) => {
                let f: f64 = t.parse().map_err(|_| bad(""))?;
                if !f.is_finite() || f.fract() != 0.0 || f.abs() >= 1.8e19 {
                    return Err(bad(" (not an integer)"));
                }
                f as i128
            }
        };
        let n = self.bits();
        let (lo, hi): (i128, i128) = if self.is_signed_int() {
            (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1)
        } else {
            (0, (1i128 << n) - 1)
        };
        if v < lo || v > hi {
            return Err(format!(
                "{v} is out of range for {} ({lo}..={hi}; use a \"0x…\" string for a bit pattern)",
                self.name()
            ));
        }
        Ok((v as u128 & ((1u128 << n) - 1)) as u64)
    }

    /// Human form of one element (`bytes.len() == self.size()`): integers in decimal, floats
    /// as value plus bit pattern.
    pub fn format(self, bytes: &[u8]) -> String {
        let mut b = [0u8; 8];
        let n = bytes.len().min(8);
        b[..n].copy_from_slice(&bytes[..n]);
        let raw = u64::from_le_bytes(b);
        let sext = |bits: u32| ((raw << (64 - bits)) as i64) >> (64 - bits);
        match self {
            ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64 => raw.to_string(),
            ElemType::S8 | ElemType::S16 | ElemType::S32 | ElemType::S64 => {
                sext(self.bits()).to_string()
            }
            ElemType::F16 => format!("{:?} (0x{raw:04x})", decode_small_float(raw, 5, 10)),
            ElemType::BF16 => format!("{:?} (0x{raw:04x})", f32::from_bits((raw as u32) << 16)),
            ElemType::F32 => format!("{:?} (0x{raw:08x})", f32::from_bits(raw as u32)),
            ElemType::F64 => format!("{:?} (0x{raw:016x})", f64::from_bits(raw)),
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

// ---------------------------------------------------------------------------------------------
// Float conversion

/// Bits of a float value written as text: `nan`, `inf`, a decimal number.
fn float_bits(ty: ElemType, t: &str) -> Option<u64> {
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (e, m) = match ty {
        ElemType::F16 => (5, 10),
        ElemType::BF16 => (8, 7),
        ElemType::F32 => (8, 23),
        _ => (11, 52),
    };
    let sign = (neg as u64) << (e + m);
    let lower = body.to_ascii_lowercase();
    match lower.as_str() {
        "nan" => return Some(sign | (((1u64 << e) - 1) << m) | (1u64 << (m - 1))),
        "inf" | "infinity" => return Some(sign | (((1u64 << e) - 1) << m)),
        _ => {}
    }
    // Rust's float parsing accepts "inf"/"nan" spellings we have handled; refuse the rest.
    if !body
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == b'.')
    {
        return None;
    }
    match ty {
        ElemType::F64 => t.parse::<f64>().ok().map(f64::to_bits),
        ElemType::F32 => t.parse::<f32>().ok().map(|v| v.to_bits() as u64),
        _ => decimal_to_float_bits(t, e, m),
    }
}

/// Correctly rounded (nearest, ties to even) conversion of a decimal string to a binary float
/// format with `exp_bits` exponent and `man_bits` fraction bits (at most binary32's).
///
/// The decimal is first rounded to f64 (Rust's parser is exact). Rounding f64 to the narrow
/// format then equals rounding the decimal directly, except when the f64 lands *exactly* on a
/// midpoint between two narrow values: every such midpoint is an f64, and rounding is monotonic,
/// so a decimal that is not itself the midpoint gives an f64 on its side or the midpoint itself.
/// In that case the decimal is compared exactly (big integers) with the midpoint to decide.
pub fn decimal_to_float_bits(text: &str, exp_bits: u32, man_bits: u32) -> Option<u64> {
    let x: f64 = text.trim().parse().ok()?;
    let tie = |x: f64| cmp_decimal_abs(text, x.abs());
    Some(round_f64_to_format(x, exp_bits, man_bits, tie))
}

/// Rounds `x` to the format (nearest, ties to even). On an exact tie, `tie(x)` may say how
/// the true value compares with `|x|` (`Less`: round down, `Greater`: up, `Equal`/`None`: even).
pub fn round_f64_to_format(
    x: f64,
    exp_bits: u32,
    man_bits: u32,
    tie: impl Fn(f64) -> Option<Ordering>,
) -> u64 {
    let bits = x.to_bits();
    let sign = (bits >> 63) << (exp_bits + man_bits);
    let exp_all_ones = (1u64 << exp_bits) - 1;
    if x.is_nan() {
        return sign | (exp_all_ones << man_bits) | (1u64 << (man_bits - 1));
    }
    if x.is_infinite() {
        return sign | (exp_all_ones << man_bits);
    }
    if x == 0.0 {
        return sign;
    }
    let fexp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    // |x| = mant · 2^e2
    let (mant, e2) = if fexp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), fexp - 1075)
    };
    let log2 = 63 - mant.leading_zeros() as i32 + e2;
    let bias = (1i32 << (exp_bits - 1)) - 1;
    let emin = 1 - bias;
    let mut te = log2.max(emin);
    let shift = te - man_bits as i32 - e2; // quantum 2^(te - man_bits), in units of 2^e2
    let mut n = if shift <= 0 {
        mant << (-shift) // exact: < 2^(man_bits + 1)
    } else if shift >= 64 {
        0 // below half the smallest subnormal (mant < 2^53 ≤ 2^(shift-1))
    } else {
        let q = mant >> shift;
        let rem = mant & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        let up = match rem.cmp(&half) {
            Ordering::Less => false,
            Ordering::Greater => true,
            Ordering::Equal => match tie(x) {
                Some(Ordering::Less) => false,
                Some(Ordering::Greater) => true,
                _ => q & 1 == 1,
            },
        };
        q + up as u64
    };
    if n == 1u64 << (man_bits + 1) {
        n >>= 1;
        te += 1;
    }
    if n >= 1u64 << man_bits {
        let biased = (te + bias) as u64;
        if biased >= exp_all_ones {
            return sign | (exp_all_ones << man_bits); // overflow → ∞
        }
        sign | (biased << man_bits) | (n - (1u64 << man_bits))
    } else {
        sign | n // subnormal or zero
    }
}

/// Value of a binary float with the given format, as f64 (exact for f16/bf16/f32).
pub fn decode_small_float(bits: u64, exp_bits: u32, man_bits: u32) -> f64 {
    let sign = if (bits >> (exp_bits + man_bits)) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let e = ((bits >> man_bits) & ((1u64 << exp_bits) - 1)) as i32;
    let f = bits & ((1u64 << man_bits) - 1);
    let bias = (1i32 << (exp_bits - 1)) - 1;
    if e == (1i32 << exp_bits) - 1 {
        return if f == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    let (m, ex) = if e == 0 {
        (f as f64, 1 - bias)
    } else {
        ((f | (1u64 << man_bits)) as f64, e - bias)
    };
    sign * m * 2f64.powi(ex - man_bits as i32)
}

/// Exact comparison of |decimal text| with `y` (≥ 0, finite). `None` if the text is not a plain
/// decimal or too long to compare cheaply.
fn cmp_decimal_abs(text: &str, y: f64) -> Option<Ordering> {
    let t = text.trim().trim_start_matches(['-', '+']);
    let (mantissa, exp10) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
        None => (t, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !(int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())) {
        return None;
    }
    let digits: String = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    let e10 = exp10.checked_sub(frac.len() as i64)?;
    if digits.len() > 4000 || e10.abs() > 4000 {
        return None;
    }
    let mut lhs = Big::from_decimal(digits);
    let bits = y.to_bits();
    let fexp = ((bits >> 52) & 0x7ff) as i64;
    let frac_bits = bits & ((1u64 << 52) - 1);
    let (m, e2) = if fexp == 0 {
        (frac_bits, -1074)
    } else {
        (frac_bits | (1u64 << 52), fexp - 1075)
    };
    let mut rhs = Big::from_u64(m);
    // digits · 10^e10  vs  m · 2^e2   ⇔   digits · 5^e10 · 2^(e10 - e2)  vs  m
    if e10 >= 0 {
        lhs.mul_pow5(e10 as u32);
    } else {
        rhs.mul_pow5((-e10) as u32);
    }
    let s = e10 - e2;
    if s >= 0 {
        lhs.shl(s as u32);
    } else {
        rhs.shl((-s) as u32);
    }
    Some(lhs.cmp(&rhs))
}

/// Minimal unsigned big integer (little-endian u32 limbs) for [`cmp_decimal_abs`].
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }
    fn from_decimal(digits: &str) -> Big {
        let mut b = Big(Vec::new());
        for c in digits.bytes() {
            b.mul_add(10, (c - b'0') as u32);
        }
        b
    }
    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = a as u64;
        for limb in &mut self.0 {
            let v = *limb as u64 * m as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }
    fn mul_pow5(&mut self, mut e: u32) {
        while e >= 13 {
            self.mul_add(1_220_703_125, 0); // 5^13
            e -= 13;
        }
        self.mul_add(5u32.pow(e), 0);
    }
    fn shl(&mut self, s: u32) {
        if self.0.is_empty() {
            return;
        }
        let (words, bits) = ((s / 32) as usize, s % 32);
        if bits != 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = ((*limb as u64) << bits) | carry as u64;
                *limb = v as u32;
                carry = (v >> 32) as u32;
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, words));
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Big) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Big {
    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

// ---------------------------------------------------------------------------------------------
// The spec

/// One launch: what to translate, the buffers, the arguments, the expected results.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The spec file (for messages).
    pub path: PathBuf,
    /// The PTX file (resolved against the spec's folder).
    pub ptx: PathBuf,
    pub kernel: String,
    pub grid: [u32; 3],
    /// `None`: the kernel's `.reqntid`, else the translator's default.
    pub block: Option<[u32; 3]>,
    pub dynamic_shared_bytes: u32,
    /// In the order of the spec.
    pub buffers: Vec<BufferSpec>,
    pub args: Vec<ArgSpec>,
    pub expect: Vec<ExpectSpec>,
    /// Unknown keys and similar (the spec still runs).
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    pub name: String,
    /// Initial contents.
    pub bytes: Vec<u8>,
    /// Element type, when given by `{"type", "values"}`.
    pub ty: Option<ElemType>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    /// The device address of byte `offset` of a buffer (a 64-bit argument).
    Buffer { name: String, offset: u64 },
    /// A scalar (little-endian bytes of its type).
    Scalar { ty: ElemType, bytes: Vec<u8> },
}

impl ArgSpec {
    pub fn size(&self) -> usize {
        match self {
            ArgSpec::Buffer { .. } => 8,
            ArgSpec::Scalar { bytes, .. } => bytes.len(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExpectSpec {
    pub buffer: String,
    /// Expected leading bytes of the buffer after the launch (compared bit-exactly).
    pub bytes: Vec<u8>,
    /// For messages: the expectation's type, else `any_nan`'s, else the buffer's.
    pub ty: Option<ElemType>,
    /// `"any_nan": "f32"`: an element that is a NaN of this type in both the expectation and
    /// the result matches whatever its payload and sign (PTX leaves the NaN unspecified).
    pub any_nan: Option<ElemType>,
}

/// A spec that cannot be used; the message names the file and the JSON path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SpecError {}

/// A JSON object with its keys in order (duplicates kept, reported by the caller).
struct Object(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Object, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Object;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Object, A::Error> {
                let mut v = Vec::new();
                while let Some((k, val)) = map.next_entry::<String, Box<RawValue>>()? {
                    v.push((k, val));
                }
                Ok(Object(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// Parsing state: the spec's folder and where we are (for messages).
struct Ctx<'a> {
    base: &'a Path,
    warnings: Vec<String>,
    /// Bytes the spec's data (buffers and expectations) may still take.
    data_left: u64,
}

/// Largest spec file.
pub const MAX_SPEC_TEXT_BYTES: u64 = 1 << 30;
/// All buffers and expectations of a spec together, checked before anything is allocated or
/// read: every buffer lives in one storage binding of the device, which no device makes larger
/// than 4 GiB, so more could never run.
pub const MAX_SPEC_DATA_BYTES: u64 = 4 << 30;

type R<T> = Result<T, String>;

fn object(raw: &RawValue, at: &str) -> R<Object> {
    serde_json::from_str::<Object>(raw.get())
        .map_err(|_| format!("{at}: expected a JSON object, found `{}`", short(raw)))
}

fn short(raw: &RawValue) -> String {
    let s = raw.get();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

fn string(raw: &RawValue, at: &str) -> R<String> {
    serde_json::from_str::<String>(raw.get())
        .map_err(|_| format!("{at}: expected a string, found `{}`", short(raw)))
}

fn array(raw: &RawValue, at: &str) -> R<Vec<Box<RawValue>>> {
    serde_json::from_str::<Vec<Box<RawValue>>>(raw.get())
        .map_err(|_| format!("{at}: expected an array, found `{}`", short(raw)))
}

fn uint(raw: &RawValue, at: &str, max: u64) -> R<u64> {
    let t = raw.get().trim();
    let text = if t.starts_with('"') {
        string(raw, at)?
    } else {
        t.to_string()
    };
    let v = ElemType::U64.value_bits(text.trim()).map_err(|_| {
        format!(
            "{at}: expected a non-negative integer, found `{}`",
            short(raw)
        )
    })?;
    if v > max {
        return Err(format!("{at}: {v} is too large (at most {max})"));
    }
    Ok(v)
}

/// The text of one value: a number literal as written, or a string's contents.
fn value_text(raw: &RawValue, at: &str) -> R<String> {
    let t = raw.get().trim();
    match t.as_bytes().first() {
        Some(b'"') => string(raw, at),
        Some(c) if c.is_ascii_digit() || *c == b'-' => Ok(t.to_string()),
        _ => Err(format!(
            "{at}: expected a number or a string, found `{}`",
            short(raw)
        )),
    }
}

fn elem_type(raw: &RawValue, at: &str) -> R<ElemType> {
    let name = string(raw, at)?;
    ElemType::parse(&name).ok_or_else(|| {
        format!("{at}: unknown type `{name}` (use u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64, or b8..b64)")
    })
}

fn dim3(raw: &RawValue, at: &str) -> R<[u32; 3]> {
    let t = raw.get().trim();
    let items = if t.starts_with('[') {
        array(raw, at)?
    } else {
        vec![raw.to_owned()]
    };
    if items.is_empty() || items.len() > 3 {
        return Err(format!(
            "{at}: expected 1 to 3 dimensions, found {}",
            items.len()
        ));
    }
    let mut out = [1u32; 3];
    for (i, item) in items.iter().enumerate() {
        out[i] = uint(item, &format!("{at}[{i}]"), u32::MAX as u64)? as u32;
    }
    Ok(out)
}

impl Ctx<'_> {
    fn file(&mut self, raw: &RawValue, at: &str) -> R<Vec<u8>> {
        let rel = string(raw, at)?;
        let path = self.base.join(&rel);
        let bytes = crate::files::read_regular(&path, self.data_left)
            .map_err(|e| format!("{at}: cannot read {}: {e}", path.display()))?;
        self.data_left -= bytes.len() as u64;
        Ok(bytes)
    }

    /// Takes `n` bytes of the spec's data budget (before they are allocated).
    fn take_budget(&mut self, n: u64, at: &str) -> R<()> {
        if n > self.data_left {
            return Err(format!("{at}: {n} bytes is more than the spec's data may still total{}", self.budget_note()));
        }
        self.data_left -= n;
        Ok(())
    }

    fn budget_note(&self) -> String {
        format!(" (all buffers and expectations of a spec together: at most {MAX_SPEC_DATA_BYTES} bytes)")
    }

    /// `{"type","values"}` | `{"file"}` | `{"zeros": N}` → bytes and type.
    fn data(
        &mut self,
        raw: &RawValue,
        at: &str,
        extra_keys: &[&str],
    ) -> R<(Vec<u8>, Option<ElemType>)> {
        let obj = object(raw, at)?;
        let get = |k: &str| {
            obj.0
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_ref())
        };
        for (k, _) in &obj.0 {
            if !["type", "values", "file", "zeros"].contains(&k.as_str())
                && !extra_keys.contains(&k.as_str())
            {
                self.warnings
                    .push(format!("{at}: unknown key `{k}` ignored"));
            }
        }
        let ty = get("type")
            .map(|t| elem_type(t, &format!("{at}.type")))
            .transpose()?;
        match (get("values"), get("file"), get("zeros")) {
            (Some(values), None, None) => {
                let ty = ty.ok_or_else(|| format!("{at}: `values` needs a `type`"))?;
                let mut bytes = Vec::new();
                let values = array(values, &format!("{at}.values"))?;
                self.take_budget(values.len() as u64 * ty.size() as u64, &format!("{at}.values"))?;
                for (i, v) in values.iter().enumerate() {
                    let here = format!("{at}.values[{i}]");
                    let text = value_text(v, &here)?;
                    bytes.extend(ty.encode(&text).map_err(|e| format!("{here}: {e}"))?);
                }
                Ok((bytes, Some(ty)))
            }
            (None, Some(file), None) => {
                let bytes = self.file(file, &format!("{at}.file"))?;
                if let Some(t) = ty {
                    if bytes.len() % t.size() != 0 {
                        return Err(format!(
                            "{at}.file: {} bytes is not a whole number of {t} elements",
                            bytes.len()
                        ));
                    }
                }
                Ok((bytes, ty))
            }
            (None, None, Some(n)) => {
                let here = format!("{at}.zeros");
                let n = uint(n, &here, MAX_SPEC_DATA_BYTES)?;
                self.take_budget(n, &here)?;
                Ok((vec![0u8; n as usize], ty))
            }
            (None, None, None) => Err(format!(
                "{at}: expected one of `values` (with `type`), `file`, `zeros`"
            )),
            _ => Err(format!("{at}: give only one of `values`, `file`, `zeros`")),
        }
    }
}

impl Spec {
    /// Reads and parses a spec file; relative paths resolve against its folder.
    pub fn load(path: &Path) -> Result<Spec, SpecError> {
        let bytes = crate::files::read_regular(path, MAX_SPEC_TEXT_BYTES)
            .map_err(|e| SpecError(format!("{}: cannot read: {e}", path.display())))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| SpecError(format!("{}: not UTF-8 text (byte {})", path.display(), e.utf8_error().valid_up_to())))?;
        let base = path.parent().unwrap_or(Path::new("."));
        Spec::parse(&text, path, base)
    }

    /// Parses spec text. `path` is used in messages; files are read relative to `base`.
    pub fn parse(text: &str, path: &Path, base: &Path) -> Result<Spec, SpecError> {
        Spec::parse_inner(text, path, base)
            .map_err(|e| SpecError(format!("{}: {e}", path.display())))
    }

    fn parse_inner(text: &str, path: &Path, base: &Path) -> R<Spec> {
        let top: Object =
            serde_json::from_str(text).map_err(|e| format!("not a JSON object: {e}"))?;
        let mut cx = Ctx {
            base,
            warnings: Vec::new(),
            data_left: MAX_SPEC_DATA_BYTES,
        };
        let mut seen = std::collections::HashSet::new();
        for (k, _) in &top.0 {
            if !seen.insert(k.as_str()) {
                return Err(format!("key `{k}` appears twice"));
            }
        }
        let get = |k: &str| {
            top.0
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_ref())
        };
        let known = [
            "ptx",
            "kernel",
            "grid",
            "block",
            "dynamic_shared_bytes",
            "buffers",
            "args",
            "expect",
        ];
        for (k, _) in &top.0 {
            if !known.contains(&k.as_str()) {
                cx.warnings.push(format!("unknown key `{k}` ignored"));
            }
        }
        let need = |k: &str| get(k).ok_or_else(|| format!("missing `{k}`"));
        let ptx = base.join(string(need("ptx")?, "ptx")?);
        let kernel = string(need("kernel")?, "kernel")?;
        let grid = dim3(need("grid")?, "grid")?;
        let block = get("block").map(|b| dim3(b, "block")).transpose()?;
        let dynamic_shared_bytes = get("dynamic_shared_bytes")
            .map(|v| uint(v, "dynamic_shared_bytes", u32::MAX as u64))
            .transpose()?
            .unwrap_or(0) as u32;

        let mut buffers: Vec<BufferSpec> = Vec::new();
        // Name → index: specs with tens of thousands of buffers stay linear.
        let mut by_name: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        if let Some(b) = get("buffers") {
            for (name, raw) in object(b, "buffers")?.0 {
                if by_name.contains_key(&name) {
                    return Err(format!("buffers: `{name}` defined twice"));
                }
                let (bytes, ty) = cx.data(&raw, &format!("buffers.{name}"), &[])?;
                by_name.insert(name.clone(), buffers.len());
                buffers.push(BufferSpec { name, bytes, ty });
            }
        }
        let find = |name: &str, at: &str| {
            by_name.get(name).map(|&i| &buffers[i]).ok_or_else(|| {
                let mut names: Vec<&str> = buffers.iter().take(20).map(|b| b.name.as_str()).collect();
                if buffers.len() > 20 {
                    names.push("…");
                }
                format!(
                    "{at}: no buffer `{name}` (buffers: {})",
                    if names.is_empty() {
                        "none".into()
                    } else {
                        names.join(", ")
                    }
                )
            })
        };

        let mut args = Vec::new();
        if let Some(a) = get("args") {
            for (i, raw) in array(a, "args")?.iter().enumerate() {
                let at = format!("args[{i}]");
                let obj = object(raw, &at)?;
                let get = |k: &str| {
                    obj.0
                        .iter()
                        .find(|(key, _)| key == k)
                        .map(|(_, v)| v.as_ref())
                };
                if let Some(name) = get("buffer") {
                    let name = string(name, &format!("{at}.buffer"))?;
                    let buf = find(&name, &at)?;
                    let offset = get("offset")
                        .map(|o| uint(o, &format!("{at}.offset"), u64::MAX))
                        .transpose()?
                        .unwrap_or(0);
                    if offset > buf.bytes.len() as u64 {
                        return Err(format!(
                            "{at}: offset {offset} is past the end of buffer `{name}` ({} bytes)",
                            buf.bytes.len()
                        ));
                    }
                    for (k, _) in &obj.0 {
                        if !["buffer", "offset", "type"].contains(&k.as_str()) {
                            cx.warnings.push(format!("{at}: unknown key `{k}` ignored"));
                        }
                    }
                    args.push(ArgSpec::Buffer { name, offset });
                } else {
                    let ty = elem_type(
                        get("type").ok_or_else(|| {
                            format!("{at}: expected `buffer` or `type` + `value`")
                        })?,
                        &format!("{at}.type"),
                    )?;
                    let v = get("value").ok_or_else(|| format!("{at}: missing `value`"))?;
                    let text = value_text(v, &format!("{at}.value"))?;
                    let bytes = ty.encode(&text).map_err(|e| format!("{at}.value: {e}"))?;
                    for (k, _) in &obj.0 {
                        if !["type", "value"].contains(&k.as_str()) {
                            cx.warnings.push(format!("{at}: unknown key `{k}` ignored"));
                        }
                    }
                    args.push(ArgSpec::Scalar { ty, bytes });
                }
            }
        }

        let mut expect = Vec::new();
        if let Some(e) = get("expect") {
            for (name, raw) in object(e, "expect")?.0 {
                let at = format!("expect.{name}");
                let buf = find(&name, &at)?;
                let (bytes, ty) = cx.data(&raw, &at, &["any_nan"])?;
                if bytes.len() > buf.bytes.len() {
                    return Err(format!(
                        "{at}: {} expected bytes but buffer `{name}` has only {}",
                        bytes.len(),
                        buf.bytes.len()
                    ));
                }
                let obj = object(&raw, &at)?;
                let any_nan = match obj.0.iter().find(|(k, _)| k == "any_nan") {
                    None => None,
                    Some((_, v)) => {
                        let t = elem_type(v, &format!("{at}.any_nan"))?;
                        if !t.is_float() {
                            return Err(format!("{at}.any_nan: `{t}` is not a float type"));
                        }
                        Some(t)
                    }
                };
                let ty = ty.or(any_nan).or(buf.ty);
                if let (Some(t), Some(n)) = (ty, any_nan) {
                    if t.size() != n.size() {
                        return Err(format!(
                            "{at}: `any_nan` ({n}) and the element type ({t}) differ in size"
                        ));
                    }
                }
                if let Some(t) = ty {
                    if bytes.len() % t.size() != 0 {
                        return Err(format!(
                            "{at}: {} bytes is not a whole number of {t} elements",
                            bytes.len()
                        ));
                    }
                }
                expect.push(ExpectSpec {
                    buffer: name,
                    bytes,
                    ty,
                    any_nan,
                });
            }
        }
        Ok(Spec {
            path: path.to_path_buf(),
            ptx,
            kernel,
            grid,
            block,
            dynamic_shared_bytes,
            buffers,
            args,
            expect,
            warnings: cx.warnings,
        })
    }

    pub fn buffer(&self, name: &str) -> Option<&BufferSpec> {
        self.buffers.iter().find(|b| b.name == name)
    }
}

/// One element that differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub index: usize,
    pub expected: String,
    pub actual: String,
}

/// Compares `actual` with an expectation bit-exactly; returns the total count of differing
/// elements and the first `limit` of them (elements of the expectation's type, else bytes).
pub fn compare(expect: &ExpectSpec, actual: &[u8], limit: usize) -> (usize, Vec<Mismatch>) {
    let size = expect.ty.map(|t| t.size()).unwrap_or(1);
    let mut count = 0;
    let mut first = Vec::new();
    let n = expect.bytes.len();
    let mut i = 0;
    while i < n {
        let end = (i + size).min(n);
        let e = &expect.bytes[i..end];
        let a = actual.get(i..end.min(actual.len())).unwrap_or(&[]);
        let both_nan = expect.any_nan.is_some_and(|t| {
            e.len() == t.size() && is_nan(t, e) && a.len() == e.len() && is_nan(t, a)
        });
        if e != a && !both_nan {
            count += 1;
            if first.len() < limit {
                let fmt = |b: &[u8]| match expect.ty {
                    Some(t) if b.len() == t.size() => t.format(b),
                    _ if b.is_empty() => "(missing)".to_string(),
                    _ => b
                        .iter()
                        .map(|x| format!("{x:02x}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                };
                first.push(Mismatch {
                    index: i / size,
                    expected: fmt(e),
                    actual: fmt(a),
                });
            }
        }
        i = end;
    }
    (count, first)
}

/// Whether `bytes` (little-endian, `t.size()` long) is a NaN of float type `t`.
pub fn is_nan(t: ElemType, bytes: &[u8]) -> bool {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    let v = u64::from_le_bytes(b);
    let (e, m) = match t {
        ElemType::F16 => (5, 10),
        ElemType::BF16 => (8, 7),
        ElemType::F32 => (8, 23),
        ElemType::F64 => (11, 52),
        _ => return false,
    };
    let exp = (v >> m) & ((1u64 << e) - 1);
    exp == (1u64 << e) - 1 && v & ((1u64 << m) - 1) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f16(t: &str) -> u64 {
        float_bits(ElemType::F16, t).unwrap_or_else(|| panic!("{t}"))
    }
    fn bf16(t: &str) -> u64 {
        float_bits(ElemType::BF16, t).unwrap_or_else(|| panic!("{t}"))
    }

    #[test]
    fn f16_rounding_nearest_even() {
        assert_eq!(f16("1"), 0x3c00);
        assert_eq!(f16("1.0"), 0x3c00);
        assert_eq!(f16("-2"), 0xc000);
        assert_eq!(f16("0.5"), 0x3800);
        assert_eq!(f16("-0.0"), 0x8000);
        assert_eq!(f16("0"), 0x0000);
        assert_eq!(f16("65504"), 0x7bff); // max
        assert_eq!(f16("65519.99"), 0x7bff);
        assert_eq!(f16("65520"), 0x7c00); // max + half ulp: tie, even is ∞
        assert_eq!(f16("1e10"), 0x7c00);
        assert_eq!(f16("-1e10"), 0xfc00);
        assert_eq!(f16("0.333333333"), 0x3555);
        assert_eq!(f16("1.0009765625"), 0x3c01); // 1 + 2^-10
        assert_eq!(f16("1.00048828125"), 0x3c00); // 1 + 2^-11: tie → even (down)
        assert_eq!(f16("1.00146484375"), 0x3c02); // 1 + 3·2^-11: tie → even (up)
        assert_eq!(f16("6.103515625e-05"), 0x0400); // smallest normal 2^-14
        assert_eq!(f16("5.960464477539063e-08"), 0x0001); // smallest subnormal 2^-24
        assert_eq!(f16("2.98023223876953125e-08"), 0x0000); // 2^-25: tie → even (0)
        assert_eq!(f16("2.9802322387695313e-08"), 0x0001); // just above the tie
        assert_eq!(f16("8.940696716308594e-08"), 0x0002); // 1.5 · 2^-24: tie → even (2)
        assert_eq!(f16("6.10053539276123046875e-05"), 0x0400); // subnormal max + half: tie → even (normal)
        assert_eq!(f16("6.10053539276123046e-05"), 0x03ff);
        assert_eq!(f16("1e-10"), 0x0000);
        assert_eq!(f16("-1e-10"), 0x8000);
    }

    #[test]
    fn f16_no_double_rounding() {
        // These decimals round to f64 exactly at an f16 midpoint, but are not the midpoint:
        // converting through f64 with ties-to-even would give the wrong neighbour.
        assert_eq!(f16("1.000488281250000000000001"), 0x3c01);
        assert_eq!(f16("1.000488281249999999999999"), 0x3c00);
        assert_eq!(f16("1.001464843749999999999999"), 0x3c01);
        assert_eq!(f16("-1.000488281250000000000001"), 0xbc01);
        assert_eq!(f16("2.98023223876953125000000001e-8"), 0x0001);
        assert_eq!(f16("65520.0000000000000000001"), 0x7c00);
        assert_eq!(f16("65519.9999999999999999999"), 0x7bff);
        assert_eq!(f16("100048828125e-11"), 0x3c00);
    }

    #[test]
    fn bf16_rounding() {
        assert_eq!(bf16("1"), 0x3f80);
        assert_eq!(bf16("1.00390625"), 0x3f80); // 1 + 2^-8: tie → even
        assert_eq!(bf16("1.01171875"), 0x3f82); // 1 + 3·2^-8: tie → even (up)
        assert_eq!(bf16("1.00390625000000000000001"), 0x3f81);
        assert_eq!(bf16("3.14159"), 0x4049);
        assert_eq!(bf16("-inf"), 0xff80);
        assert_eq!(bf16("nan"), 0x7fc0);
        assert_eq!(bf16("3.4e38"), 0x7f80); // above max (0x7f7f ≈ 3.3895e38) + half ulp
        assert_eq!(bf16("3.3895313892515355e38"), 0x7f7f);
        assert_eq!(bf16("9.183549615799121e-41"), 0x0001); // smallest subnormal 2^-133
    }

    #[test]
    fn generic_rounding_matches_f32_cast() {
        // `as f32` rounds to nearest even: the generic path must agree on f32's format.
        let mut s = 0x1234_5678_9abc_def0u64;
        for _ in 0..200_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // Spread over f32's whole range and beyond (exponent field biased around 1023).
            let exp = 1023 - 160 + (s >> 52) % 300;
            let x = f64::from_bits((s & 0x800f_ffff_ffff_ffff) | (exp << 52));
            let want = (x as f32).to_bits() as u64;
            let got = round_f64_to_format(x, 8, 23, |_| None);
            assert_eq!(got, want, "{x:e}");
        }
        // Exact ties appear with short mantissas.
        for m in 0..5000u64 {
            let x = f64::from_bits((1023u64 << 52) | (m << 28) | (1 << 28));
            assert_eq!(
                round_f64_to_format(x, 8, 23, |_| None),
                (x as f32).to_bits() as u64
            );
        }
    }

    #[test]
    fn f16_matches_exhaustive_midpoint_table() {
        // Every f16 value and every midpoint between neighbours, through decimal text.
        for bits in 0u64..0x7bff {
            let v = decode_small_float(bits, 5, 10);
            assert_eq!(f16(&format!("{v:e}")), bits);
            let next = decode_small_float(bits + 1, 5, 10);
            let mid = (v + next) / 2.0; // exact in f64
            let even = if bits & 1 == 0 { bits } else { bits + 1 };
            // `{:.60e}` prints the exact decimal expansion of the midpoint (≤ 25 digits).
            assert_eq!(
                f16(&format!("{mid:.60e}")),
                even,
                "midpoint after {bits:#x}"
            );
            // A hair above / below the exact midpoint.
            assert_eq!(
                f16(&format!("{mid:.60e}").replace("e", "1e")),
                bits + 1,
                "above {bits:#x}"
            );
            if bits > 0 {
                let below = format!("{:.60e}", mid);
                let (m, e) = below.split_once('e').unwrap();
                let lowered = format!("{}e{}", dec_minus_tiny(m), e);
                assert_eq!(f16(&lowered), bits, "below midpoint after {bits:#x}");
            }
        }
    }

    /// `m` (a decimal with 60 fraction digits, ending in zeros) minus one unit in its last place.
    fn dec_minus_tiny(m: &str) -> String {
        let mut d: Vec<u8> = m.bytes().collect();
        let mut i = d.len() - 1;
        loop {
            if d[i] == b'.' {
                i -= 1;
                continue;
            }
            if d[i] == b'0' {
                d[i] = b'9';
                i -= 1;
            } else {
                d[i] -= 1;
                break;
            }
        }
        String::from_utf8(d).unwrap()
    }

    #[test]
    fn values_and_types() {
        assert_eq!(
            ElemType::F32.encode("nan").unwrap(),
            0x7fc0_0000u32.to_le_bytes()
        );
        assert_eq!(
            ElemType::F32.encode("-inf").unwrap(),
            0xff80_0000u32.to_le_bytes()
        );
        assert_eq!(
            ElemType::F32.encode("Infinity").unwrap(),
            0x7f80_0000u32.to_le_bytes()
        );
        assert_eq!(
            ElemType::F32.encode("0x7fc00001").unwrap(),
            0x7fc0_0001u32.to_le_bytes()
        );
        assert_eq!(ElemType::F32.encode("0.1").unwrap(), 0.1f32.to_le_bytes());
        assert_eq!(ElemType::F32.encode("-0").unwrap(), (-0.0f32).to_le_bytes());
        assert_eq!(
            ElemType::F64.encode("-nan").unwrap(),
            0xfff8_0000_0000_0000u64.to_le_bytes()
        );
        assert_eq!(
            ElemType::F64.encode("1e-320").unwrap(),
            1e-320f64.to_le_bytes()
        );
        assert_eq!(ElemType::F16.encode("0x3c00").unwrap(), vec![0x00, 0x3c]);
        assert!(ElemType::F16.encode("0x13c00").is_err());
        assert!(ElemType::F32.encode("banana").is_err());
        assert!(ElemType::F32.encode("in").is_err());
        assert_eq!(ElemType::S32.encode("-1").unwrap(), vec![0xff; 4]);
        assert_eq!(ElemType::U8.encode("255").unwrap(), vec![255]);
        assert!(ElemType::U8.encode("256").is_err());
        assert!(ElemType::U32.encode("-1").is_err());
        assert!(ElemType::S8.encode("128").is_err());
        assert_eq!(ElemType::S8.encode("-128").unwrap(), vec![0x80]);
        assert_eq!(
            ElemType::U64.encode("18446744073709551615").unwrap(),
            vec![0xff; 8]
        );
        assert_eq!(
            ElemType::S64.encode("-9223372036854775808").unwrap(),
            i64::MIN.to_le_bytes()
        );
        assert_eq!(ElemType::U32.encode("1e3").unwrap(), 1000u32.to_le_bytes());
        assert!(ElemType::U32.encode("1.5").is_err());
        assert!(ElemType::U32.encode("nan").is_err());
        assert_eq!(ElemType::U16.encode("0xffff").unwrap(), vec![0xff, 0xff]);
        assert_eq!(ElemType::parse("b32"), Some(ElemType::U32));
        assert_eq!(ElemType::parse("f8"), None);
        assert_eq!(ElemType::S16.format(&[0xfe, 0xff]), "-2");
        assert_eq!(
            ElemType::F32.format(&1.5f32.to_le_bytes()),
            "1.5 (0x3fc00000)"
        );
        assert_eq!(ElemType::F16.format(&[0x00, 0x3c]), "1.0 (0x3c00)");
    }

    fn parse(text: &str) -> Result<Spec, SpecError> {
        Spec::parse(text, Path::new("t.json"), Path::new("/nonexistent"))
    }

    #[test]
    fn full_spec() {
        let dir = std::env::temp_dir().join(format!("ptxcross-spec-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.bin"), [1u8, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let text = r#"{ "ptx": "k.ptx", "kernel": "vecadd", "grid": [4,1,1], "block": [256],
            "buffers": { "a": {"type": "f32", "values": [0.0, 0.5, "nan", "-inf", "0x7fc00000", 16777217]},
                         "b": {"file": "b.bin"}, "c": {"zeros": 12},
                         "h": {"type": "f16", "values": [1.000488281250000000000001, "65520"]} },
            "args": [{"buffer": "a"}, {"buffer": "b", "offset": 4}, {"buffer": "c"},
                     {"type": "s32", "value": 1000}, {"type": "u64", "value": "0xffffffffffffffff"},
                     {"type": "f32", "value": "nan"}],
            "expect": {"c": {"type": "u32", "values": [1, 2, 3]}, "b": {"file": "b.bin"}},
            "comment": "hello" }"#;
        let s = Spec::parse(text, &dir.join("t.json"), &dir).unwrap();
        assert_eq!(s.ptx, dir.join("k.ptx"));
        assert_eq!(s.grid, [4, 1, 1]);
        assert_eq!(s.block, Some([256, 1, 1]));
        assert_eq!(
            s.buffers
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>(),
            ["a", "b", "c", "h"]
        );
        let a = &s.buffer("a").unwrap().bytes;
        assert_eq!(a.len(), 24);
        assert_eq!(&a[8..12], &0x7fc0_0000u32.to_le_bytes());
        assert_eq!(&a[20..24], &16777216f32.to_le_bytes()); // 2^24 + 1 → even
        assert_eq!(s.buffer("b").unwrap().bytes, [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(s.buffer("c").unwrap().bytes, [0; 12]);
        assert_eq!(s.buffer("h").unwrap().bytes, [0x01, 0x3c, 0x00, 0x7c]);
        assert_eq!(
            s.args[1],
            ArgSpec::Buffer {
                name: "b".into(),
                offset: 4
            }
        );
        assert_eq!(
            s.args[3],
            ArgSpec::Scalar {
                ty: ElemType::S32,
                bytes: 1000i32.to_le_bytes().to_vec()
            }
        );
        assert_eq!(s.args[4].size(), 8);
        assert_eq!(s.expect.len(), 2);
        assert_eq!(s.expect[0].ty, Some(ElemType::U32));
        assert_eq!(s.warnings, ["unknown key `comment` ignored"]);

        let (n, first) = compare(&s.expect[0], &[1, 0, 0, 0, 9, 0, 0, 0, 3, 0, 0, 0], 10);
        assert_eq!(n, 1);
        assert_eq!(
            first,
            [Mismatch {
                index: 1,
                expected: "2".into(),
                actual: "9".into()
            }]
        );
        let (n, _) = compare(&s.expect[1], &[1, 2, 3, 4, 5, 6, 7, 8, 99], 10);
        assert_eq!(n, 0);

        // any_nan: NaN matches NaN of any payload; nothing else changes.
        let text = r#"{ "ptx": "k.ptx", "kernel": "k", "grid": 1, "buffers": {"c": {"zeros": 12}},
            "expect": {"c": {"type": "f32", "values": ["nan", 1.0, "nan"], "any_nan": "f32"}} }"#;
        let s2 = Spec::parse(text, &dir.join("t.json"), &dir).unwrap();
        assert!(s2.warnings.is_empty(), "{:?}", s2.warnings);
        let mut actual = Vec::new();
        actual.extend(0xffff_ffffu32.to_le_bytes());
        actual.extend(1.0f32.to_le_bytes());
        actual.extend(1.5f32.to_le_bytes());
        let (n, first) = compare(&s2.expect[0], &actual, 10);
        assert_eq!(n, 1);
        assert_eq!(first[0].index, 2);
        assert_eq!(first[0].expected, "NaN (0x7fc00000)");
        let mut strict = s2.expect[0].clone();
        strict.any_nan = None;
        assert_eq!(compare(&strict, &actual, 10).0, 2);
        assert!(is_nan(ElemType::F16, &[0x01, 0x7c]) && !is_nan(ElemType::F16, &[0x00, 0x7c]));
        assert!(
            is_nan(ElemType::BF16, &[0xc0, 0xff]) && is_nan(ElemType::F64, &u64::MAX.to_le_bytes())
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn spec_errors_name_the_place() {
        let base = r#""ptx": "k.ptx", "kernel": "k", "grid": [1]"#;
        let err = |body: &str| parse(&format!("{{ {base}, {body} }}")).unwrap_err().0;
        assert!(
            err(r#""buffers": {"a": {"type": "f32", "values": [1, "x"]}}"#)
                .contains("buffers.a.values[1]")
        );
        assert!(err(r#""buffers": {"a": {"type": "f33", "values": [1]}}"#)
            .contains("unknown type `f33`"));
        assert!(err(r#""buffers": {"a": {"values": [1]}}"#).contains("needs a `type`"));
        assert!(err(r#""buffers": {"a": {"zeros": 4, "file": "x"}}"#).contains("only one of"));
        assert!(err(r#""buffers": {"a": {"file": "missing.bin"}}"#).contains("cannot read"));
        assert!(err(r#""args": [{"buffer": "nope"}]"#).contains("no buffer `nope`"));
        assert!(
            err(r#""buffers": {"a": {"zeros": 8}}, "args": [{"buffer": "a", "offset": 9}]"#)
                .contains("past the end")
        );
        assert!(err(r#""args": [{"type": "u8", "value": 300}]"#).contains("out of range"));
        assert!(err(r#""args": [{"type": "u8"}]"#).contains("missing `value`"));
        assert!(err(
            r#""buffers": {"a": {"zeros": 4}}, "expect": {"a": {"type": "u32", "values": [1, 2]}}"#
        )
        .contains("has only 4"));
        assert!(err(r#""expect": {"q": {"zeros": 1}}"#).contains("no buffer `q`"));
        assert!(parse(r#"{"kernel": "k", "grid": [1]}"#)
            .unwrap_err()
            .0
            .contains("missing `ptx`"));
        assert!(parse(r#"{"ptx": "a", "kernel": "k", "grid": [1,2,3,4]}"#)
            .unwrap_err()
            .0
            .contains("1 to 3"));
        assert!(parse(r#"{"ptx": "a", "kernel": "k", "grid": [-1]}"#)
            .unwrap_err()
            .0
            .contains("grid[0]"));
        assert!(
            parse(r#"{"ptx": "a", "ptx": "b", "kernel": "k", "grid": 1}"#)
                .unwrap_err()
                .0
                .contains("twice")
        );
        assert!(parse("[1]")
            .unwrap_err()
            .0
            .starts_with("t.json: not a JSON object"));
        let ok = parse(&format!("{{ {base}, \"grid\": 7 }}"));
        assert!(ok.unwrap_err().0.contains("twice"));
        let s =
            parse(r#"{"ptx": "a", "kernel": "k", "grid": 7, "dynamic_shared_bytes": 64}"#).unwrap();
        assert_eq!(
            (s.grid, s.block, s.dynamic_shared_bytes),
            ([7, 1, 1], None, 64)
        );
    }
}
