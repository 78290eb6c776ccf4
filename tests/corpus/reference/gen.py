#!/usr/bin/env python3
"""Independent CPU reference for the ptxcross conformance corpus.

Writes, from a fixed-seed PRNG and a CPU re-implementation of each kernel in ../src:
  ../data/<kernel>.<buffer>.bin           inputs (raw little-endian)
  ../data/<kernel>.<buffer>.expected.bin  expected final buffer contents
  ../specs/<kernel>.<variant>.json        one launch spec per PTX file in ../ptx

Pure Python 3.9+ (no numpy), so the reference depends on nothing but IEEE-754 doubles:
  * f32 add/sub/mul: computed in double, then rounded once to binary32. For +, -, * of two
    binary32 operands this double rounding is innocuous (53 >= 2*24 + 2; Figueroa 1995), so the
    result is the correctly rounded binary32 result.
  * f32 fma: the exact value a*b + c as a Fraction, rounded to nearest-even binary32 by hand
    (sign of zero, infinities and NaN handled per IEEE 754).
  * integers: Python ints masked to 64/32 bits; signed division truncates toward zero, the
    remainder takes the sign of the dividend (C99 / PTX div.s64, rem.s64).
The generator asserts that no f32 input, intermediate or result is subnormal (devices differ on
denormal flushing even without .ftz) and that no NaN appears where the kernel's result would
depend on which NaN a device produces, except where recorded in the spec ("any_nan").

`gen.py --selftest` checks the f32 helpers against the C library (fmaf, float casts).
"""
import json
import math
import os
import struct
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.dirname(HERE)
DATA = os.path.join(CORPUS, "data")
SPECS = os.path.join(CORPUS, "specs")
PTX = os.path.join(CORPUS, "ptx")

# PTX variants: file suffix -> what made it (documentation only; the README has the details).
VARIANTS = ["sm80", "sm52"]

SENTINEL32 = 0xDEADBEEF
SENTINEL64 = 0xDEADBEEFDEADBEEF
# NVIDIA GPUs return this canonical NaN from f32 arithmetic (the PTX ISA calls the f32 NaN
# "unspecified"); expected files use it, and specs mark such buffers with "any_nan": "f32".
CANONICAL_NAN32 = 0x7FFFFFFF
MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
FLT_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]
FLT_MIN_NORMAL = 2.0 ** -126


# ---------------------------------------------------------------- PRNG (splitmix64 stream)
class Rng:
    def __init__(self, seed):
        self.state = seed & MASK64

    def u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n):
        """Uniform integer in [0, n) (n small: the modulo bias is irrelevant here)."""
        return self.u64() % n

    def f32(self, emin, emax):
        """A random normal binary32 value +-1.m * 2^e, e in [emin, emax], as a float."""
        sign = -1.0 if self.u64() & 1 else 1.0
        mant = self.below(1 << 23)
        e = emin + self.below(emax - emin + 1)
        return sign * math.ldexp((1 << 23) + mant, e - 23)


# ---------------------------------------------------------------- binary32 helpers
def f32_from_bits(b):
    return struct.unpack("<f", struct.pack("<I", b & MASK32))[0]


def f32_bits(x):
    """Bits of a float that already is a binary32 value (NaN -> its quieted payload as given)."""
    if math.isnan(x):
        raise ValueError("f32_bits: NaN has no unique bits here; handle NaN explicitly")
    return struct.unpack("<I", struct.pack("<f", x))[0]


def round_f32(x):
    """Round a double to the nearest-even binary32 value (overflow to +-inf)."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:  # struct raises where the C cast gives inf from a finite value
        return math.copysign(math.inf, x)


def is_subnormal(x):
    return x != 0.0 and math.isfinite(x) and abs(x) < FLT_MIN_NORMAL


def _pow2(e):
    return Fraction(1 << e) if e >= 0 else Fraction(1, 1 << -e)


def round_fraction_f32(q):
    """Round an exact nonzero rational to the nearest-even binary32 value."""
    assert q != 0
    neg = q < 0
    q = -q if neg else q
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if q < _pow2(e):
        e -= 1
    assert _pow2(e) <= q < _pow2(e + 1)
    quantum = max(e, -126) - 23  # exponent of the last mantissa bit (subnormals: 2^-149)
    m = round(q / _pow2(quantum))  # round() on a Fraction rounds half to even
    val = math.ldexp(m, quantum) if quantum > -1000 else 0.0
    if val > FLT_MAX:
        val = math.inf
    return -val if neg else val


def _neg(x):
    return math.copysign(1.0, x) < 0


def fma_f32(a, b, c):
    """Correctly rounded binary32 fma(a, b, c) (round to nearest even)."""
    if math.isnan(a) or math.isnan(b) or math.isnan(c):
        return math.nan
    if math.isinf(a) or math.isinf(b):
        if a == 0.0 or b == 0.0:
            return math.nan
        pneg = _neg(a) != _neg(b)
        if math.isinf(c) and _neg(c) != pneg:
            return math.nan
        return -math.inf if pneg else math.inf
    if math.isinf(c):
        return c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        if (a == 0.0 or b == 0.0) and c == 0.0:
            # (+-0) + (+-0): -0 only if both the product and c are -0.
            return -0.0 if (_neg(a) != _neg(b)) and _neg(c) else 0.0
        return 0.0  # exact cancellation of nonzero values: +0 in round-to-nearest
    return round_fraction_f32(exact)


def add_f32(a, b):
    return round_f32(a + b)


def sub_f32(a, b):
    return round_f32(a - b)


def mul_f32(a, b):
    return round_f32(a * b)


def f32_value_bits(x):
    """Bits of a binary32 result as an NVIDIA GPU stores it (NaN -> canonical 0x7fffffff)."""
    return CANONICAL_NAN32 if math.isnan(x) else f32_bits(x)


# ---------------------------------------------------------------- writers
def pack_u32(vals):
    return struct.pack("<%dI" % len(vals), *[v & MASK32 for v in vals])


def pack_u64(vals):
    return struct.pack("<%dQ" % len(vals), *[v & MASK64 for v in vals])


def pack_f32_bits(bits):
    return pack_u32(bits)


written = []


def write_data(name, payload):
    path = os.path.join(DATA, name)
    with open(path, "wb") as f:
        f.write(payload)
    written.append(path)
    return "../data/" + name


def json_f32(x):
    """A JSON value for a binary32 scalar: shortest double repr, which is exact."""
    assert math.isfinite(x) and round_f32(x) == x
    return x


def write_specs(kernel, grid, block, dyn_shared, buffers, args, expect):
    for variant in VARIANTS:
        ptx = os.path.join(PTX, "%s.%s.ptx" % (kernel, variant))
        assert os.path.exists(ptx), ptx
        spec = {
            "ptx": "../ptx/%s.%s.ptx" % (kernel, variant),
            "kernel": kernel,
            "grid": list(grid),
            "block": list(block),
            "dynamic_shared_bytes": dyn_shared,
            "buffers": buffers,
            "args": args,
            "expect": expect,
        }
        path = os.path.join(SPECS, "%s.%s.json" % (kernel, variant))
        with open(path, "w") as f:
            f.write(format_spec(spec))
        written.append(path)


def format_spec(spec):
    """JSON with one line per top-level key and per buffer/expect entry (diff-friendly)."""
    lines = ["{"]
    keys = list(spec)
    for i, k in enumerate(keys):
        comma = "," if i + 1 < len(keys) else ""
        v = spec[k]
        if k in ("buffers", "expect"):
            lines.append("  %s: {" % json.dumps(k))
            sub = list(v)
            for j, bk in enumerate(sub):
                c2 = "," if j + 1 < len(sub) else ""
                lines.append("    %s: %s%s" % (json.dumps(bk), json.dumps(v[bk]), c2))
            lines.append("  }%s" % comma)
        elif k == "args":
            lines.append("  %s: [" % json.dumps(k))
            for j, a in enumerate(v):
                c2 = "," if j + 1 < len(v) else ""
                lines.append("    %s%s" % (json.dumps(a), c2))
            lines.append("  ]%s" % comma)
        else:
            lines.append("  %s: %s%s" % (json.dumps(k), json.dumps(v), comma))
    lines.append("}")
    return "\n".join(lines) + "\n"


def ceil_div(a, b):
    return (a + b - 1) // b


def check_no_subnormal(where, values):
    for i, v in enumerate(values):
        assert not is_subnormal(v), "%s[%d] = %r is subnormal" % (where, i, v)


# ---------------------------------------------------------------- kernels
def gen_saxpy():
    rng = Rng(0x5A5A0001)
    n, block, pad = 1000, 256, 24
    a = round_f32(1.3)  # 0x3fa66666: inexact, so a*x has rounding to do
    x = [rng.f32(-8, 8) for _ in range(n)]
    y = [rng.f32(-8, 8) for _ in range(n)]
    # y = -round(a*x): fma leaves the rounding error of a*x (mul-then-add would give 0).
    for i in range(0, n, 37):
        y[i] = -mul_f32(a, x[i])
    # signed zeros and infinities that give no NaN
    x[1], y[1] = -0.0, -0.0      # a*(-0) + (-0) = -0
    x[2], y[2] = 0.0, -0.0       # +0 + -0 = +0
    x[3], y[3] = math.inf, 5.0   # +inf
    x[4], y[4] = 2.0, -math.inf  # -inf
    x[5], y[5] = -math.inf, -math.inf
    x[6], y[6] = round_f32(FLT_MAX / 1.2), FLT_MAX  # overflow to +inf
    out = [fma_f32(a, x[i], y[i]) for i in range(n)]
    check_no_subnormal("saxpy.x", x)
    check_no_subnormal("saxpy.y", y)
    check_no_subnormal("saxpy.out", out)
    assert not any(math.isnan(v) for v in out)
    assert out[0] != 0.0 and out[1] == 0.0 and _neg(out[1]) and not _neg(out[2])

    y_init = [f32_bits(v) for v in y] + [SENTINEL32] * pad
    y_final = [f32_bits(v) for v in out] + [SENTINEL32] * pad
    buffers = {
        "x": {"file": write_data("saxpy.x.bin", pack_f32_bits([f32_bits(v) for v in x]))},
        "y": {"file": write_data("saxpy.y.bin", pack_u32(y_init))},
    }
    args = [{"type": "s32", "value": n}, {"type": "f32", "value": json_f32(a)},
            {"buffer": "x"}, {"buffer": "y"}]
    expect = {"y": {"file": write_data("saxpy.y.expected.bin", pack_u32(y_final))}}
    write_specs("saxpy", (ceil_div(n, block), 1, 1), (block, 1, 1), 0, buffers, args, expect)


def gen_vecadd():
    rng = Rng(0x5A5A0002)
    n, block, pad = 1000, 256, 24
    a = [rng.f32(-20, 20) for _ in range(n)]
    b = [rng.f32(-20, 20) for _ in range(n)]
    a_bits = [f32_bits(v) for v in a]
    b_bits = [f32_bits(v) for v in b]
    inf, ninf = 0x7F800000, 0xFF800000
    specials = [
        (0x7FC00000, f32_bits(1.0)),   # NaN + 1
        (f32_bits(2.0), 0xFFC00001),   # 2 + (-NaN with payload)
        (0x7FA12345, 0x7FC54321),      # sNaN + qNaN
        (inf, ninf),                   # inf + -inf = NaN
        (inf, f32_bits(-3.0)),         # inf
        (ninf, f32_bits(1e30)),        # -inf
        (inf, inf),                    # inf
        (0x80000000, 0x80000000),      # -0 + -0 = -0
        (0x80000000, 0x00000000),      # -0 + +0 = +0
        (f32_bits(1.5), f32_bits(-1.5)),  # exact cancellation = +0
        (0x7F7FFFFF, 0x7F7FFFFF),      # FLT_MAX + FLT_MAX = +inf
        (0xFF7FFFFF, 0xF3000000),      # -FLT_MAX - 2^103 (exact half ulp, tie) -> -inf
        (0x7F7FFFFF, 0x72FFFFFF),      # FLT_MAX + just under half ulp -> FLT_MAX
        (f32_bits(1.0), f32_bits(2.0 ** -24)),                # tie -> 1.0 (even)
        (f32_bits(1.0 + 2.0 ** -23), f32_bits(2.0 ** -24)),  # tie -> 1 + 2^-22 (even)
        (f32_bits(1.0), f32_bits(-(2.0 ** -25))),             # tie below 1 -> 1.0
        (f32_bits(2.0 ** -125), f32_bits(-(2.0 ** -126))),    # = 2^-126, smallest normal
        (f32_bits(16777216.0), f32_bits(1.0)),                # 2^24 + 1 tie -> 2^24
    ]
    for i, (x, y) in enumerate(specials):
        a_bits[i], b_bits[i] = x, y
    out_bits = []
    for i in range(n):
        x, y = f32_from_bits(a_bits[i]), f32_from_bits(b_bits[i])
        assert not is_subnormal(x) and not is_subnormal(y)
        r = add_f32(x, y)
        assert not is_subnormal(r)
        out_bits.append(f32_value_bits(r))
    c_init = [SENTINEL32] * (n + pad)
    c_final = out_bits + [SENTINEL32] * pad
    assert out_bits[11] == 0xFF800000 and out_bits[12] == 0x7F7FFFFF
    assert out_bits[13] == f32_bits(1.0) and out_bits[14] == f32_bits(1.0 + 2.0 ** -22)
    buffers = {
        "a": {"file": write_data("vecadd.a.bin", pack_u32(a_bits))},
        "b": {"file": write_data("vecadd.b.bin", pack_u32(b_bits))},
        "c": {"file": write_data("vecadd.c.bin", pack_u32(c_init))},
    }
    args = [{"buffer": "a"}, {"buffer": "b"}, {"buffer": "c"}, {"type": "s32", "value": n}]
    expect = {"c": {"file": write_data("vecadd.c.expected.bin", pack_u32(c_final)),
                    "any_nan": "f32"}}
    write_specs("vecadd", (ceil_div(n, block), 1, 1), (block, 1, 1), 0, buffers, args, expect)


def gen_transpose():
    rng = Rng(0x5A5A0003)
    width, height, tile, rows, pad = 100, 75, 32, 8, 32
    # in: height rows of width floats. Pure data movement, so any bit pattern must survive:
    # a quiet NaN with payload, -0.0 and infinities are included (no subnormals).
    src = [f32_bits(rng.f32(-30, 30)) for _ in range(width * height)]
    for i, b in enumerate([0x7FC12345, 0xFFC00000, 0x80000000, 0x7F800000, 0xFF800000]):
        src[(17 * i + 3) * width + 11 * i + 5] = b
    dst = [0] * (width * height)
    for r in range(height):
        for c in range(width):
            dst[c * height + r] = src[r * width + c]
    buffers = {
        "in": {"file": write_data("transpose.in.bin", pack_u32(src))},
        "out": {"file": write_data("transpose.out.bin",
                                   pack_u32([SENTINEL32] * (width * height + pad)))},
    }
    args = [{"buffer": "out"}, {"buffer": "in"},
            {"type": "s32", "value": width}, {"type": "s32", "value": height}]
    expect = {"out": {"file": write_data("transpose.out.expected.bin",
                                         pack_u32(dst + [SENTINEL32] * pad))}}
    write_specs("transpose", (ceil_div(width, tile), ceil_div(height, tile), 1),
                (tile, rows, 1), 0, buffers, args, expect)


def gen_reduce():
    rng = Rng(0x5A5A0004)
    n, block, pad = 5000, 256, 4
    grid = ceil_div(n, block)
    vals = [rng.f32(-12, 12) for _ in range(n)]
    for i in range(5, n, 101):   # some exact cancellations inside the tree
        vals[i] = -vals[i - 1]
    check_no_subnormal("reduce.in", vals)
    sums = []
    for blk in range(grid):
        sdata = [vals[blk * block + t] if blk * block + t < n else 0.0 for t in range(block)]
        s = block // 2
        while s > 0:
            for tid in range(s):  # within one step the pairs are disjoint: order is irrelevant
                sdata[tid] = add_f32(sdata[tid], sdata[tid + s])
                assert not is_subnormal(sdata[tid]) and math.isfinite(sdata[tid])
            s >>= 1
        sums.append(sdata[0])
    out_init = ["0x%08x" % SENTINEL32] * (grid + pad)
    out_final = ["0x%08x" % f32_bits(v) for v in sums] + ["0x%08x" % SENTINEL32] * pad
    buffers = {
        "in": {"file": write_data("reduce.in.bin", pack_u32([f32_bits(v) for v in vals]))},
        "out": {"type": "u32", "values": out_init},
    }
    args = [{"buffer": "in"}, {"buffer": "out"}, {"type": "u32", "value": n}]
    expect = {"out": {"type": "u32", "values": out_final}}
    write_specs("reduce", (grid, 1, 1), (block, 1, 1), block * 4, buffers, args, expect)


def gen_mandelbrot():
    width, height, bx, by, pad = 67, 45, 16, 16, 16
    max_iter = 256
    x0, y0 = -2.25, -1.25
    dx = round_f32(3.0 / width)
    dy = round_f32(2.5 / height)
    counts = []
    for py in range(height):
        for px in range(width):
            cr = add_f32(x0, mul_f32(float(px), dx))
            ci = add_f32(y0, mul_f32(float(py), dy))
            zr = zi = 0.0
            it = 0
            while it < max_iter:
                zr2 = mul_f32(zr, zr)
                zi2 = mul_f32(zi, zi)
                mag = add_f32(zr2, zi2)
                for v in (cr, ci, zr, zi, zr2, zi2, mag):
                    assert not is_subnormal(v) and math.isfinite(v), (px, py, it, v)
                if mag > 4.0:
                    break
                t = add_f32(sub_f32(zr2, zi2), cr)
                zi = add_f32(mul_f32(mul_f32(2.0, zr), zi), ci)
                zr = t
                it += 1
            counts.append(it)
    hist = {}
    for c in counts:
        hist[c] = hist.get(c, 0) + 1
    assert hist.get(max_iter, 0) > 100 and len(hist) > 20, hist  # interior and a spread
    buffers = {"out": {"file": write_data("mandelbrot.out.bin",
                                          pack_u32([SENTINEL32] * (width * height + pad)))}}
    args = [{"buffer": "out"}, {"type": "s32", "value": width}, {"type": "s32", "value": height},
            {"type": "f32", "value": json_f32(x0)}, {"type": "f32", "value": json_f32(y0)},
            {"type": "f32", "value": json_f32(dx)}, {"type": "f32", "value": json_f32(dy)},
            {"type": "s32", "value": max_iter}]
    expect = {"out": {"file": write_data("mandelbrot.out.expected.bin",
                                         pack_u32(counts + [SENTINEL32] * pad))}}
    write_specs("mandelbrot", (ceil_div(width, bx), ceil_div(height, by), 1), (bx, by, 1), 0,
                buffers, args, expect)


def to_signed64(v):
    v &= MASK64
    return v - (1 << 64) if v >> 63 else v


def div_trunc(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def gen_hash():
    n, block, pad = 1000, 128, 8
    seed = 0xD1B54A32D192ED03
    divisor = -1000003
    out64, out32, outdiv = [], [], []
    for i in range(n):
        z = (i * 0x9E3779B97F4A7C15 + seed) & MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        z = z ^ (z >> 31)
        out64.append(z)
        hi = (z * 0xFF51AFD7ED558CCD) >> 64
        out32.append(((z >> 32) ^ (z & MASK32) ^ (hi >> 32)) & MASK32)
        sz = to_signed64(z)
        q = div_trunc(sz, divisor)
        r = sz - q * divisor
        assert abs(r) < abs(divisor) and (r == 0 or (r < 0) == (sz < 0))
        outdiv += [q & MASK64, r & MASK64]
    assert any(to_signed64(v) < 0 for v in out64) and any(to_signed64(v) > 0 for v in out64)
    buffers = {
        "out64": {"file": write_data("hash.out64.bin", pack_u64([SENTINEL64] * (n + pad)))},
        "out32": {"file": write_data("hash.out32.bin", pack_u32([SENTINEL32] * (n + pad)))},
        "outdiv": {"file": write_data("hash.outdiv.bin",
                                      pack_u64([SENTINEL64] * (2 * n + pad)))},
    }
    args = [{"buffer": "out64"}, {"buffer": "out32"}, {"buffer": "outdiv"},
            {"type": "u64", "value": "0x%016x" % seed}, {"type": "s64", "value": divisor},
            {"type": "s32", "value": n}]
    expect = {
        "out64": {"file": write_data("hash.out64.expected.bin",
                                     pack_u64(out64 + [SENTINEL64] * pad))},
        "out32": {"file": write_data("hash.out32.expected.bin",
                                     pack_u32(out32 + [SENTINEL32] * pad))},
        "outdiv": {"file": write_data("hash.outdiv.expected.bin",
                                      pack_u64(outdiv + [SENTINEL64] * pad))},
    }
    write_specs("hash", (ceil_div(n, block), 1, 1), (block, 1, 1), 0, buffers, args, expect)


# ---------------------------------------------------------------- self test
def selftest():
    """Check round_fraction_f32/fma_f32/add/mul against the C library's fmaf and casts."""
    import ctypes
    import ctypes.util
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.fmaf.restype = ctypes.c_float
    libm.fmaf.argtypes = [ctypes.c_float] * 3
    rng = Rng(0x5E1F7E57)
    specials = [0.0, -0.0, math.inf, -math.inf, 1.0, -1.0, FLT_MAX, -FLT_MAX, FLT_MIN_NORMAL]
    count = 0
    for k in range(20000):
        vals = []
        for _ in range(3):
            r = rng.below(10)
            if r == 0:
                vals.append(specials[rng.below(len(specials))])
            elif r == 1:  # any bit pattern, subnormals included
                b = rng.u64() & MASK32
                v = f32_from_bits(b)
                vals.append(0.0 if math.isnan(v) else v)
            else:
                vals.append(round_f32(rng.f32(-40, 40) if r < 6 else rng.f32(-130, 127)))
        a, b, c = vals
        if k % 3 == 0:  # make c cancel a*b closely
            c = -mul_f32(a, b) if math.isfinite(mul_f32(a, b)) else c
        want = libm.fmaf(a, b, c)
        got = fma_f32(a, b, c)
        assert (math.isnan(want) and math.isnan(got)) or (
            struct.pack("<f", want) == struct.pack("<f", got)), (a, b, c, want, got)
        if math.isfinite(a) and math.isfinite(b):
            for op, exact in ((add_f32, Fraction(a) + Fraction(b)),
                              (mul_f32, Fraction(a) * Fraction(b))):
                if exact != 0:
                    want2 = round_fraction_f32(exact)
                    assert struct.pack("<f", want2) == struct.pack("<f", op(a, b)), (op, a, b)
        count += 1
    print("selftest: %d fma/add/mul cases agree with libm fmaf and exact rounding" % count)


def main():
    if "--selftest" in sys.argv:
        selftest()
        return
    os.makedirs(DATA, exist_ok=True)
    os.makedirs(SPECS, exist_ok=True)
    for d in (DATA, SPECS):
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
    gen_saxpy()
    gen_vecadd()
    gen_transpose()
    gen_reduce()
    gen_mandelbrot()
    gen_hash()
    total = sum(os.path.getsize(p) for p in written)
    print("reference: wrote %d files, %d bytes, under data/ and specs/" % (len(written), total))


if __name__ == "__main__":
    main()
