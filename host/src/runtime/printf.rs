//! Device-side `printf` on the host: the records a launch appended to its module's printf
//! buffer (layout: `ptxcross_lower::printf`) become text after the launch is synchronized.
//! Each conversion is formatted by the C library's own `snprintf` with the conversion as
//! written (flags, width, precision, length) and the value the kernel passed, so the text is
//! what C's `printf` prints for those values.

use ptxcross_lower::printf::{Conversion, Count, Format, Length, Piece};
use std::collections::HashMap;
use std::sync::Arc;

/// What device-side `printf` printed since it was last taken ([`crate::Context::take_printf`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintfOutput {
    /// The text, records in the order the launches appended them (between threads of one
    /// launch, unspecified, as in CUDA).
    pub text: String,
    /// Records dropped because the launch's printf buffer was full (CUDA drops them too).
    pub dropped: u64,
}

/// Longest string a `%s` prints (a bad pointer must not make the host read without end).
pub const MAX_STRING_BYTES: u64 = 4096;
/// Most text one buffer's records make (widths up to 2^20 in 131,071 records could make
/// 128 GiB): the rest is cut with a note. Also the most a context keeps untaken.
pub const MAX_TEXT_BYTES: usize = 64 << 20;

/// The formats of a module's kernels, by record key.
#[derive(Debug, Default)]
pub struct Formats {
    by_key: HashMap<u32, Format>,
}

impl Formats {
    /// The formats of every kernel of the module (one buffer per module: a record of any of
    /// its kernels may be in it); `None` without `printf`.
    pub fn of(module: &ptxcross_lower::ir::Module) -> Option<Arc<Formats>> {
        let by_key: HashMap<u32, Format> = module.kernels.iter().flat_map(|k| k.printf.iter()).map(|f| (f.key, f.clone())).collect();
        (!by_key.is_empty()).then(|| Arc::new(Formats { by_key }))
    }
}

/// Appends the text of `records` (the claimed bytes of a buffer, every record complete) to
/// `out`; `string` reads a `%s` argument's bytes (up to a NUL or `MAX_STRING_BYTES`), `None`
/// for an address outside the context's memory.
pub fn decode(records: &[u8], formats: &Formats, string: &mut dyn FnMut(u64) -> Option<Vec<u8>>, out: &mut Vec<u8>) {
    let mut at = 0;
    let start = out.len();
    while at + 4 <= records.len() {
        if out.len() - start > MAX_TEXT_BYTES {
            out.extend_from_slice(format!("<ptxcross: printf output cut after {MAX_TEXT_BYTES} bytes>\n").as_bytes());
            return;
        }
        let key = u32::from_le_bytes(records[at..at + 4].try_into().expect("4 bytes"));
        let Some(f) = formats.by_key.get(&key) else {
            out.extend_from_slice(format!("<ptxcross: unknown printf record {key} at byte {at}>\n").as_bytes());
            return;
        };
        let end = at + f.record_bytes() as usize;
        let Some(args) = records.get(at + 4..end) else { return };
        for p in &f.pieces {
            match p {
                Piece::Text(t) => out.extend_from_slice(t),
                Piece::Conv(c) => conversion(c, args, string, out),
            }
        }
        at = end;
    }
}

fn word(args: &[u8], at: u32) -> u32 {
    u32::from_le_bytes(args[at as usize..at as usize + 4].try_into().expect("4 bytes"))
}

fn dword(args: &[u8], at: u32) -> u64 {
    u64::from_le_bytes(args[at as usize..at as usize + 8].try_into().expect("8 bytes"))
}

fn conversion(c: &Conversion, args: &[u8], string: &mut dyn FnMut(u64) -> Option<Vec<u8>>, out: &mut Vec<u8>) {
    // `*` arguments are ints; a negative width is the `-` flag with its magnitude (C11
    // 7.21.6.1p5), which snprintf applies itself when given the value.
    let count = |n: Option<Count>| match n {
        None => String::new(),
        Some(Count::Fixed(v)) => v.to_string(),
        Some(Count::Arg(at)) => (word(args, at) as i32).to_string(),
    };
    let width = count(c.width);
    let precision = match c.precision {
        None => String::new(),
        // A negative precision counts as omitted.
        Some(Count::Arg(at)) if (word(args, at) as i32) < 0 => String::new(),
        p => format!(".{}", count(p)),
    };
    // Width and precision bounded: the host must not allocate without limit.
    let bounded = |s: &str| s.trim_start_matches('-').parse::<u64>().map_or(true, |v| v <= 1 << 20);
    if !bounded(&width) || !bounded(precision.trim_start_matches('.')) {
        out.extend_from_slice(b"<ptxcross: printf width or precision above 2^20>");
        return;
    }
    let spec = |length: &str| format!("%{}{}{}{}{}\0", c.flags, width, precision, length, c.conv as char);
    let v = if c.size == 8 { dword(args, c.offset) } else { word(args, c.offset) as u64 };
    match c.conv {
        b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' => {
            if c.size == 8 {
                // `l`, `ll`, `z`, `t`, `j` are all 64-bit on the device (LP64): `ll` here.
                let _ = c.length;
                snprintf(out, &spec("ll"), Arg::I64(v as i64));
            } else {
                snprintf(out, &spec(c.length.text()), Arg::I32(v as u32 as i32));
            }
        }
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => snprintf(out, &spec(""), Arg::F64(f64::from_bits(v))),
        b'p' => snprintf(out, &spec(""), Arg::Ptr(v as usize)),
        b's' => {
            // C prints "(null)" for a null string (glibc, and CUDA's printf).
            let text = if v == 0 { Some(b"(null)".to_vec()) } else { string(v) };
            let text = text.unwrap_or_else(|| b"<bad pointer>".to_vec());
            let mut cstr = text;
            cstr.push(0);
            snprintf(out, &spec(""), Arg::Str(cstr.as_ptr()));
        }
        _ => out.extend_from_slice(b"<ptxcross: unknown conversion>"),
    }
    debug_assert!(c.length != Length::Hh || c.size == 4);
}

enum Arg {
    I32(i32),
    I64(i64),
    F64(f64),
    Ptr(usize),
    Str(*const u8),
}

/// One conversion through the C library's `snprintf` (measured first, then written).
fn snprintf(out: &mut Vec<u8>, spec: &str, arg: Arg) {
    let fmt = spec.as_ptr() as *const libc::c_char;
    let call = |buf: *mut libc::c_char, n: usize| -> i32 {
        // SAFETY: `fmt` is NUL-terminated and takes exactly one argument of the type passed
        // (built from a parsed conversion); `buf` holds `n` bytes (or is null with n = 0);
        // a `%s` argument is NUL-terminated.
        unsafe {
            match arg {
                Arg::I32(v) => libc::snprintf(buf, n, fmt, v as libc::c_int),
                Arg::I64(v) => libc::snprintf(buf, n, fmt, v as libc::c_longlong),
                Arg::F64(v) => libc::snprintf(buf, n, fmt, v as libc::c_double),
                Arg::Ptr(v) => libc::snprintf(buf, n, fmt, v as *const libc::c_void),
                Arg::Str(p) => libc::snprintf(buf, n, fmt, p as *const libc::c_char),
            }
        }
    };
    let len = call(std::ptr::null_mut(), 0);
    if len <= 0 {
        return;
    }
    let mut buf = vec![0u8; len as usize + 1];
    call(buf.as_mut_ptr() as *mut libc::c_char, buf.len());
    out.extend_from_slice(&buf[..len as usize]);
}
