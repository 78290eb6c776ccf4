"""Exact IEEE-style rounding from rationals, written from IEEE 754 / PTX §9.7.3 rules.
Independent of ptxcross (no tests/src/ptx_ref, no lower)."""
from fractions import Fraction as Fr
import struct, math

FMTS = {'f64': (11, 52), 'f32': (8, 23), 'f16': (5, 10), 'bf16': (8, 7),
        'e4m3': (4, 3), 'e5m2': (5, 2), 'tf32': (8, 10)}

NAN = 'nan'

def width(fmt):
    e, m = FMTS[fmt]
    return 1 + e + m

def decode(bits, fmt):
    """bits -> (sign, Fraction) or (sign, 'inf') or (sign, 'nan')."""
    e, m = FMTS[fmt]
    s = (bits >> (e + m)) & 1
    ef = (bits >> m) & ((1 << e) - 1)
    mf = bits & ((1 << m) - 1)
    bias = (1 << (e - 1)) - 1
    if fmt == 'e4m3':
        if ef == 15 and mf == 7:
            return (s, NAN)
    elif ef == (1 << e) - 1:
        return (s, 'inf' if mf == 0 else NAN)
    if ef == 0:
        return (s, Fr(mf, 1 << m) * Fr(2) ** (1 - bias))
    return (s, (1 + Fr(mf, 1 << m)) * Fr(2) ** (ef - bias))

def is_sub(bits, fmt):
    e, m = FMTS[fmt]
    ef = (bits >> m) & ((1 << e) - 1)
    return ef == 0 and (bits & ((1 << m) - 1)) != 0

def encode(sign, mag, fmt, mode='rn', ftz=False, satfinite=False):
    """Round sign*mag (Fraction >= 0, or 'inf'/'nan') to fmt with rounding mode rn/rz/rm/rp."""
    e, m = FMTS[fmt]
    bias = (1 << (e - 1)) - 1
    emin = 1 - bias
    emax = bias
    if fmt == 'e4m3':
        emax = 8
    if mag == NAN:
        return canon_nan(fmt)
    def maxfinite():
        if fmt == 'e4m3':
            return (sign << 7) | 0x7e
        return (sign << (e + m)) | (((1 << e) - 2) << m) | ((1 << m) - 1)
    def inf():
        if fmt == 'e4m3':
            return (sign << 7) | 0x7f  # NaN; callers use satfinite
        return (sign << (e + m)) | (((1 << e) - 1) << m)
    if mag == 'inf':
        return maxfinite() if satfinite else inf()
    if mag == 0:
        return sign << (e + m)
    E = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fr(2) ** E > mag:
        E -= 1
    assert Fr(2) ** E <= mag < Fr(2) ** (E + 1)
    if E < emin:
        E = emin
    q = Fr(2) ** (E - m)
    n = mag / q
    fl = n.numerator // n.denominator
    rem = n - fl
    if rem != 0:
        if mode == 'rn':
            if rem > Fr(1, 2) or (rem == Fr(1, 2) and fl % 2 == 1):
                fl += 1
        elif mode == 'rz':
            pass
        elif mode == 'rm':
            if sign:
                fl += 1
        elif mode == 'rp':
            if not sign:
                fl += 1
        elif mode == 'rna':
            if rem >= Fr(1, 2):
                fl += 1
        else:
            raise ValueError(mode)
    if fl == (1 << (m + 1)):
        fl = 1 << m
        E += 1
    overflow = E > emax or (fmt == 'e4m3' and E == 8 and fl == 0xf)
    if overflow:
        if satfinite:
            return maxfinite()
        if mode == 'rn' or mode == 'rna':
            return inf()
        if mode == 'rz':
            return maxfinite()
        if mode == 'rm':
            return inf() if sign else maxfinite()
        if mode == 'rp':
            return maxfinite() if sign else inf()
    if fl < (1 << m):
        bits = (sign << (e + m)) | fl
        if ftz and fl != 0:
            return sign << (e + m)
        return bits
    return (sign << (e + m)) | ((E + bias) << m) | (fl - (1 << m))

def canon_nan(fmt):
    return {'f32': 0x7fffffff, 'f64': 0x7fffffffffffffff, 'f16': 0x7fff, 'bf16': 0x7fff,
            'e4m3': 0x7f, 'e5m2': 0x7f}[fmt]

def f32(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]
def f64(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]
def bf32(b):
    return struct.unpack('<f', struct.pack('<I', b))[0]
def bf64(b):
    return struct.unpack('<d', struct.pack('<Q', b))[0]

def val(bits, fmt):
    """value as signed Fraction (finite only)."""
    s, mag = decode(bits, fmt)
    assert mag not in ('inf', NAN), hex(bits)
    return -mag if s else mag

def from_val(v, fmt, mode='rn', ftz=False, sign_of_zero=0, **kw):
    if v == 0:
        return encode(sign_of_zero, Fr(0), fmt)
    return encode(1 if v < 0 else 0, abs(v), fmt, mode, ftz, **kw)

def op(fn, a_bits, b_bits, fmt, mode='rn', ftz=False, c_bits=None):
    """finite-only exact op then round. fn on Fractions."""
    a = val(a_bits, fmt); b = val(b_bits, fmt)
    if ftz:
        a = 0 if is_sub(a_bits, fmt) else a
        b = 0 if is_sub(b_bits, fmt) else b
    if c_bits is None:
        r = fn(a, b)
    else:
        c = val(c_bits, fmt)
        if ftz and is_sub(c_bits, fmt):
            c = 0
        r = fn(a, b, c)
    if r == 0:
        raise ValueError('zero result: give sign by hand')
    return from_val(r, fmt, mode, ftz)

def _neg0(fmt):
    e, m = FMTS[fmt]
    return 1 << (e + m)

def arith(opn, fmt, bits, mode='rn', ftz=False, sat=False, relu=False):
    """IEEE add/sub/mul/fma/div/sqrt on bit patterns, with PTX .ftz/.sat/.relu.
    NaN result -> canon_nan(fmt) (callers accept any NaN where PTX leaves it unspecified)."""
    e, m = FMTS[fmt]
    sh = e + m
    vals = []
    for b in bits:
        if ftz and is_sub(b, fmt):
            b = b & (1 << sh)
        vals.append(decode(b, fmt))
    r = _arith(opn, fmt, vals, mode)
    if isinstance(r, tuple):
        s, mag = r
        if mag == NAN:
            out = canon_nan(fmt)
        elif mag == 'inf':
            out = encode(s, 'inf', fmt, mode)
        else:
            out = encode(s, mag, fmt, mode, ftz)
    else:
        out = r
    if sat:
        s, mag = decode(out, fmt)
        if mag == NAN or s == 1:
            out = 0
        elif mag == 'inf' or mag > 1:
            out = encode(0, Fr(1), fmt)
    if relu:
        s, mag = decode(out, fmt)
        if mag == NAN:
            out = canon_nan(fmt)
        elif s == 1:
            out = 0
    return out

def _zero_sum_sign(sa, sb, mode):
    if sa == sb:
        return sa
    return 1 if mode == 'rm' else 0

def _arith(opn, fmt, v, mode):
    if any(x[1] == NAN for x in v):
        return (0, NAN)
    if opn == 'sub':
        (sa, a), (sb, b) = v
        return _arith('add', fmt, [(sa, a), (1 - sb, b)], mode)
    if opn == 'add':
        (sa, a), (sb, b) = v
        if a == 'inf' or b == 'inf':
            if a == 'inf' and b == 'inf' and sa != sb:
                return (0, NAN)
            return (sa, 'inf') if a == 'inf' else (sb, 'inf')
        r = (-a if sa else a) + (-b if sb else b)
        if r == 0:
            if a == 0 and b == 0:
                return (_zero_sum_sign(sa, sb, mode), Fr(0))
            return (1 if mode == 'rm' else 0, Fr(0))
        return (1 if r < 0 else 0, abs(r))
    if opn == 'mul':
        (sa, a), (sb, b) = v
        s = sa ^ sb
        if a == 'inf' or b == 'inf':
            if a == 0 or b == 0:
                return (0, NAN)
            return (s, 'inf')
        return (s, a * b)
    if opn == 'fma':
        p = _arith('mul', fmt, v[:2], mode)
        if p[1] == NAN:
            return p
        (sp, pm), (sc, c) = p, v[2]
        if pm == 'inf' or c == 'inf':
            return _arith('add', fmt, [p, v[2]], mode)
        return _arith('add', fmt, [(sp, pm), (sc, c)], mode)
    if opn == 'div':
        (sa, a), (sb, b) = v
        s = sa ^ sb
        if a == 'inf':
            return (0, NAN) if b == 'inf' else (s, 'inf')
        if b == 'inf':
            return (s, Fr(0))
        if b == 0:
            return (0, NAN) if a == 0 else (s, 'inf')
        return (s, a / b)
    raise ValueError(opn)

def sqrt_bits(bits, fmt, mode='rn', ftz=False):
    """correctly rounded sqrt of a bit pattern."""
    e, m = FMTS[fmt]
    if ftz and is_sub(bits, fmt):
        bits &= 1 << (e + m)
    s, mag = decode(bits, fmt)
    if mag == NAN or (s and mag != 0):
        return canon_nan(fmt)
    if mag == 'inf' or mag == 0:
        return bits
    # find r = round(sqrt(mag)) by bisection on the representable grid: compute
    # floor(sqrt(mag * 2^(2k))) for a large k, then exactness from the remainder
    import math
    k = 1200
    N = mag * Fr(2) ** (2 * k)
    q = N.numerator // N.denominator
    r = math.isqrt(q)
    exact = (r * r == q and q == N)
    # value = (r + eps) / 2^k with 0 <= eps < 1; enough precision: add a sticky half bit
    val_ = Fr(r, 1 << k) + (0 if exact else Fr(1, 1 << (k + 1)))
    return encode(0, val_, fmt, mode, ftz)
