# Conversions (§9.7.10.20 cvt, §9.7.10.21 cvt.pack). Expected values from fp.py / Python ints.
F = 'convert'
import math as _m
def rint_mode(v, mode):
    fl = _m.floor(v)
    if mode in ('rmi',):
        return fl
    if mode == 'rpi':
        return _m.ceil(v)
    if mode == 'rzi':
        return int(v)  # Fraction -> trunc
    r = v - fl
    if r > Fr(1, 2) or (r == Fr(1, 2) and fl % 2 == 1):
        return fl + 1
    return fl
def f2i(bits, fmt, mode, nbits, signed, ftz=False):
    if ftz and is_sub(bits, fmt):
        return 0
    s, mag = decode(bits, fmt)
    lo, hi = (-(1 << (nbits - 1)), (1 << (nbits - 1)) - 1) if signed else (0, (1 << nbits) - 1)
    if mag == NAN:
        # the spec says 0; NVIDIA's sm_90 gives the destination's top bit from .f64, and 1<<63
        # from .f32/.f16 into 64 bits (measured on an H100, README "On a real NVIDIA GPU")
        top = 1 << (nbits - 1)
        if fmt == 'f64' or nbits == 64:
            return -top if signed else top
        return 0
    if mag == 'inf':
        return lo if s else hi
    v = rint_mode(-mag if s else mag, mode)
    return min(max(v, lo), hi)
FI = [f32(x) for x in [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 3e9, -3e9, 1e20, -1.0,
                       2147483520.0, 4294967040.0, -2147483648.0, 255.5, 256.0, -129.0, 70000.0]] + \
     [0x7fc00000, 0x7f800000, 0xff800000, 0x00000001, 0x80000001]
for instr, mode, nb, sg, ot in [('cvt.rni.s32.f32', 'rni', 32, 1, 's32'), ('cvt.rzi.s32.f32', 'rzi', 32, 1, 's32'),
                                ('cvt.rmi.u32.f32', 'rmi', 32, 0, 'u32'), ('cvt.rpi.s32.f32', 'rpi', 32, 1, 's32'),
                                ('cvt.rni.u32.f32', 'rni', 32, 0, 'u32'), ('cvt.rzi.s64.f32', 'rzi', 64, 1, 's64'),
                                ('cvt.rpi.u64.f32', 'rpi', 64, 0, 'u64'), ('cvt.rni.s16.f32', 'rni', 16, 1, 's16'),
                                ('cvt.rzi.u8.f32', 'rzi', 8, 0, 'u8'), ('cvt.rmi.s8.f32', 'rmi', 8, 1, 's8'),
                                ('cvt.rzi.ftz.s32.f32', 'rzi', 32, 1, 's32'), ('cvt.rpi.ftz.sat.s32.f32', 'rpi', 32, 1, 's32')]:
    ftz = '.ftz' in instr
    optest('cvt_' + instr[4:].replace('.', '_'), F, instr, ['f32'], ot, [(x,) for x in FI],
           [f2i(x, 'f32', mode, nb, sg, ftz) for x in FI])
FD = [f64(x) for x in [0.5, 2.5, -2.5, 1e19, -1e19, 9007199254740993.0, -0.0, 1.5e10]] + [0x7ff8000000000000, 0xfff0000000000000, 1]
for instr, mode, nb, sg, ot in [('cvt.rni.s64.f64', 'rni', 64, 1, 's64'), ('cvt.rzi.u64.f64', 'rzi', 64, 0, 'u64'),
                                ('cvt.rmi.s32.f64', 'rmi', 32, 1, 's32'), ('cvt.rpi.u16.f64', 'rpi', 16, 0, 'u16')]:
    optest('cvt_' + instr[4:].replace('.', '_'), F, instr, ['f64'], ot, [(x,) for x in FD],
           [f2i(x, 'f64', mode, nb, sg) for x in FD])

def i2f(v, fmt, mode):
    return 0 if v == 0 else from_val(Fr(v), fmt, mode)
IS = [0, 1, -1, 16777217, 16777219, -16777217, 0x7fffffff, -0x80000000, 123456789, 33554435]
IU = [0, 1, 16777217, 0xffffffff, 0x80000001, 0xfffffe80, 3]
IL = [0, -1, (1 << 63) - 1, -(1 << 63), 9007199254740993, (1 << 53) + 3, 0x7ffffe8000000001]
for instr, t, vals, fmt, mode in [('cvt.rn.f32.s32', 's32', IS, 'f32', 'rn'), ('cvt.rz.f32.s32', 's32', IS, 'f32', 'rz'),
                                  ('cvt.rm.f32.s32', 's32', IS, 'f32', 'rm'), ('cvt.rp.f32.u32', 'u32', IU, 'f32', 'rp'),
                                  ('cvt.rn.f32.u32', 'u32', IU, 'f32', 'rn'), ('cvt.rn.f64.s64', 's64', IL, 'f64', 'rn'),
                                  ('cvt.rz.f64.s64', 's64', IL, 'f64', 'rz'), ('cvt.rn.f32.s64', 's64', IL, 'f32', 'rn'),
                                  ('cvt.rp.f32.s64', 's64', IL, 'f32', 'rp'), ('cvt.rn.f64.u32', 'u32', IU, 'f64', 'rn'),
                                  ('cvt.rn.f16.s32', 's32', IS[:4] + [2049, 65520, -70000], 'f16', 'rn')]:
    vs = vals if instr != 'cvt.rn.f16.s32' else vals
    optest('cvt_' + instr[4:].replace('.', '_'), F, instr, [t], {'f32': 'b32', 'f64': 'b64', 'f16': 'b16'}[fmt],
           [(v,) for v in vs], [i2f(v, fmt, mode) for v in vs])

def f2f(bits, src, dst, mode='rn', ftz=False, sat=False, relu=False, satfinite=False):
    e, m = FMTS[src]
    if ftz and src == 'f32' and is_sub(bits, src):
        bits &= 1 << (e + m)
    s, mag = decode(bits, src)
    if mag == NAN:
        r = canon_nan(dst)
    elif mag == 'inf':
        r = encode(s, 'inf', dst, mode, satfinite=satfinite)
    else:
        r = encode(s, mag, dst, mode, ftz and dst == 'f32', satfinite=satfinite)
    if sat:
        s2, m2 = decode(r, dst)
        if m2 == NAN or s2:
            r = 0
        elif m2 == 'inf' or m2 > 1:
            r = encode(0, Fr(1), dst)
    if relu:
        s2, m2 = decode(r, dst)
        if m2 == NAN:
            r = canon_nan(dst)
        elif s2:
            r = 0
    return r
D2F = [f64(x) for x in [1 / 3, -1 / 3, 1e-39, -1e-39, 1e-46, 3.5e38, -3.5e38, 1e300, 0.1, 1e-50]] + \
      [f64(1.0) + 1, 0x3690000000000000, 0x36a8000000000000, 1 << 63, 0xfff0000000000000]
for instr, mode, ftz, sat in [('cvt.rn.f32.f64', 'rn', 0, 0), ('cvt.rz.f32.f64', 'rz', 0, 0), ('cvt.rm.f32.f64', 'rm', 0, 0),
                              ('cvt.rp.f32.f64', 'rp', 0, 0), ('cvt.rn.ftz.f32.f64', 'rn', 1, 0),
                              ('cvt.rn.sat.f32.f64', 'rn', 0, 1), ('cvt.rz.ftz.sat.f32.f64', 'rz', 1, 1)]:
    optest('cvt_' + instr[4:].replace('.', '_'), F, instr, ['f64'], 'b32', [(x,) for x in D2F],
           [f2f(x, 'f64', 'f32', mode, ftz, sat) for x in D2F])
F2D = [f32(x) for x in [1 / 3, -0.0, 1e-40, 3e38]] + [0x00000001, 0x807fffff, 0xff800000, 0x7f800000]
optest('cvt_f64_f32', F, 'cvt.f64.f32', ['f32'], 'b64', [(x,) for x in F2D], [f2f(x, 'f32', 'f64') for x in F2D])
optest('cvt_ftz_f64_f32', F, 'cvt.ftz.f64.f32', ['f32'], 'b64', [(x,) for x in F2D], [f2f(x, 'f32', 'f64', ftz=1) for x in F2D])
optest('cvt_ftz_sat_f64_f32', F, 'cvt.ftz.sat.f64.f32', ['f32'], 'b64', [(x,) for x in F2D + [0x805f3ec4, f32(0.25)]],
       [f2f(x, 'f32', 'f64', ftz=1, sat=1) for x in F2D + [0x805f3ec4, f32(0.25)]],
       note='.sat on f64 destination ([0,1]); -0 and flushed negative subnormals become +0')

# same-size float with integer rounding; .sat; .ftz
FF = [f32(x) for x in [0.5, 1.5, 2.5, -0.5, -2.5, -0.2, 0.7, 1e30, -1e30, 3.0, 8388609.0]] + \
     [0xbec4978c, 0x805f3ec4, 0x00000001, 0xff800000, 0x7f800000, 0x80000000]
def rint_f(bits, mode, ftz=False, sat=False):
    if ftz and is_sub(bits, 'f32'):
        bits &= 0x80000000
    s, mag = decode(bits, 'f32')
    if mag in ('inf', NAN):
        r = bits
    else:
        v = rint_mode(-mag if s else mag, mode)
        r = s << 31 if v == 0 else from_val(Fr(v), 'f32')
    if sat:
        s2, m2 = decode(r, 'f32')
        if m2 == NAN or s2:
            r = 0
        elif m2 == 'inf' or m2 > 1:
            r = f32(1.0)
    return r
for instr, mode, ftz, sat in [('cvt.rni.f32.f32', 'rni', 0, 0), ('cvt.rzi.f32.f32', 'rzi', 0, 0), ('cvt.rmi.f32.f32', 'rmi', 0, 0),
                              ('cvt.rpi.ftz.f32.f32', 'rpi', 1, 0), ('cvt.rni.sat.f32.f32', 'rni', 0, 1),
                              ('cvt.rzi.ftz.sat.f32.f32', 'rzi', 1, 1)]:
    optest('cvt_' + instr[4:].replace('.', '_'), F, instr, ['f32'], 'b32', [(x,) for x in FF],
           [rint_f(x, mode, ftz, sat) for x in FF])
optest('cvt_sat_f32_f32', F, 'cvt.sat.f32.f32', ['f32'], 'b32', [(x,) for x in FF],
       [f2f(x, 'f32', 'f32', sat=1) for x in FF])
optest('cvt_ftz_f32_f32', F, 'cvt.ftz.f32.f32', ['f32'], 'b32', [(x,) for x in FF],
       [f2f(x, 'f32', 'f32', ftz=1) for x in FF])
FD2 = [f64(x) for x in [0.5, 2.5, -2.5, -0.3, 1e300]]
optest('cvt_rni_f64_f64', F, 'cvt.rni.f64.f64', ['f64'], 'b64', [(x,) for x in FD2],
       [(x & (1 << 63)) if rint_mode(val(x, 'f64'), 'rni') == 0 else from_val(Fr(rint_mode(val(x, 'f64'), 'rni')), 'f64') for x in FD2])

# half conversions
H = [f32(x) for x in [1 / 3, -1 / 3, 65504.0, 65520.0, 1e5, -1e5, 6e-8, 2.9e-8, 1e-10, 0.1, -0.0]] + [0x7f800000]
for instr, mode, relu, sf in [('cvt.rn.f16.f32', 'rn', 0, 0), ('cvt.rz.f16.f32', 'rz', 0, 0),
                              ('cvt.rn.relu.f16.f32', 'rn', 1, 0), ('cvt.rn.satfinite.f16.f32', 'rn', 0, 1),
                              ('cvt.rz.relu.satfinite.f16.f32', 'rz', 1, 1), ('cvt.rn.bf16.f32', 'rn', 0, 0),
                              ('cvt.rz.bf16.f32', 'rz', 0, 0), ('cvt.rn.relu.satfinite.bf16.f32', 'rn', 1, 1)]:
    dst = 'bf16' if 'bf16' in instr else 'f16'
    optest('cvt_' + instr[4:].replace('.', '_'), 'half', instr, ['f32'], 'b16', [(x,) for x in H],
           [f2f(x, 'f32', dst, mode, relu=relu, satfinite=sf) for x in H], target='sm_90', version='8.5')
for instr, mode, relu, sf in [('cvt.rn.f16x2.f32', 'rn', 0, 0), ('cvt.rz.relu.f16x2.f32', 'rz', 1, 0),
                              ('cvt.rn.bf16x2.f32', 'rn', 0, 0), ('cvt.rz.satfinite.bf16x2.f32', 'rz', 0, 1)]:
    dst = 'bf16' if 'bf16' in instr else 'f16'
    P = [(H[i], H[(i + 3) % len(H)]) for i in range(len(H))]
    optest('cvt_' + instr[4:].replace('.', '_'), 'half', instr, ['f32', 'f32'], 'b32', P,
           [(f2f(a, 'f32', dst, mode, relu=relu, satfinite=sf) << 16) | f2f(b, 'f32', dst, mode, relu=relu, satfinite=sf) for a, b in P],
           note='a goes to the upper half (§9.7.10.20)')
HB = [0x3c00, 0xbc00, 0x0001, 0x8001, 0x03ff, 0x7bff, 0x7c00, 0xfc00, 0x3555, 0x0000, 0x8000]
optest('cvt_f32_f16', 'half', 'cvt.f32.f16', ['f16'], 'b32', [(x,) for x in HB], [f2f(x, 'f16', 'f32') for x in HB])
optest('cvt_ftz_f32_f16', 'half', 'cvt.ftz.f32.f16', ['f16'], 'b32', [(x,) for x in HB], [f2f(x, 'f16', 'f32') for x in HB],
       note='.ftz flushes f32 results; f16 subnormals are normal in f32, so nothing flushes')
optest('cvt_f64_f16', 'half', 'cvt.f64.f16', ['f16'], 'b64', [(x,) for x in HB], [f2f(x, 'f16', 'f64') for x in HB])
BB = [0x3f80, 0xbf80, 0x0001, 0x7f7f, 0x7f80, 0x3eab, 0x8000]
optest('cvt_f32_bf16', 'half', 'cvt.f32.bf16', ['bf16'], 'b32', [(x,) for x in BB], [x << 16 for x in BB])
optest('cvt_f64_bf16_rp_spec_example', 'half', 'cvt.f64.bf16.rp', ['bf16'], 'b64', [(x,) for x in BB],
       [f2f(x, 'bf16', 'f64') for x in BB], note='§9.7.10.20 example spelling: rounding after the types')
optest('cvt_rn_f16_f64', 'half', 'cvt.rn.f16.f64', ['f64'], 'b16', [(x,) for x in D2F[:10]], [f2f(x, 'f64', 'f16') for x in D2F[:10]])
optest('cvt_rn_bf16_f16', 'half', 'cvt.rn.bf16.f16', ['f16'], 'b16', [(x,) for x in HB], [f2f(x, 'f16', 'bf16') for x in HB])
optest('cvt_rn_f16_bf16', 'half', 'cvt.rn.f16.bf16', ['bf16'], 'b16', [(x,) for x in BB], [f2f(x, 'bf16', 'f16') for x in BB])
optest('cvt_rni_s32_f16', 'half', 'cvt.rni.s32.f16', ['f16'], 's32', [(x,) for x in HB + [0x3e00, 0x4100]],
       [f2i(x, 'f16', 'rni', 32, 1) for x in HB + [0x3e00, 0x4100]])
# An 8-bit destination register: ptxas refuses a wider one for a conversion from .bf16.
optest('cvt_rzi_u8_bf16', 'half', 'cvt.rzi.u8.bf16', ['bf16'], 'u8', [(x,) for x in BB], [f2i(x, 'bf16', 'rzi', 8, 0) for x in BB],
       dest='%rb1', post='\n    cvt.u16.u8 %rs10, %rb1;', decl_regs=REGS + '    .reg .b8 %rb<2>;\n')

# tf32 (cvt.rna: ties away; result a b32 whose low 13 bits are 0)
def tf32(bits, mode, relu=False, satfinite=False):
    s, mag = decode(bits, 'f32')
    if mag == NAN:
        return 0x7fffffff
    r = encode(s, mag, 'tf32', mode, satfinite=satfinite) if mag != 'inf' else (bits >> 13)
    if relu and (r >> 18) & 1:
        r = 0
    return r << 13
TF = [f32(x) for x in [1 / 3, -1 / 3, 1.0, 0.1]] + [0x3f801000, 0x3f803000, 0x3f800fff, 0x7f7fffff, 0x00001000, 0xbf801000]
optest('cvt_rna_tf32_f32', 'half', 'cvt.rna.tf32.f32', ['f32'], 'b32', [(x,) for x in TF], [tf32(x, 'rna') for x in TF])
optest('cvt_rna_satfinite_tf32_f32', 'half', 'cvt.rna.satfinite.tf32.f32', ['f32'], 'b32', [(x,) for x in TF],
       [tf32(x, 'rna', satfinite=1) for x in TF])
optest('cvt_rn_tf32_f32', 'half', 'cvt.rn.tf32.f32', ['f32'], 'b32', [(x,) for x in TF], [tf32(x, 'rn') for x in TF])
optest('cvt_rz_relu_tf32_f32', 'half', 'cvt.rz.relu.tf32.f32', ['f32'], 'b32', [(x,) for x in TF], [tf32(x, 'rz', relu=1) for x in TF])

# fp8
E8 = [f32(x) for x in [1.0, -1.0, 448.0, 500.0, -1e6, 0.001, 1 / 3, 2 ** -9, 2 ** -10, 57344.0, 60000.0, 0.0]]
def f8(bits, fmt, relu=False):
    return f2f(bits, 'f32', fmt, 'rn', relu=relu, satfinite=True)
P8 = [(E8[i], E8[(i + 5) % len(E8)]) for i in range(len(E8))]
for instr, fmt, relu in [('cvt.rn.satfinite.e4m3x2.f32', 'e4m3', 0), ('cvt.rn.satfinite.e5m2x2.f32', 'e5m2', 0),
                         ('cvt.rn.satfinite.relu.e4m3x2.f32', 'e4m3', 1)]:
    optest('cvt_' + instr[4:].replace('.', '_'), 'half', instr, ['f32', 'f32'], 'b16', P8,
           [(f8(a, fmt, relu) << 8) | f8(b, fmt, relu) for a, b in P8])
B8 = [0x3800, 0x38b8, 0x7e01, 0x0180, 0x8081, 0x7f7f, 0x0000, 0xfe7e]
for instr, fmt in [('cvt.rn.f16x2.e4m3x2', 'e4m3'), ('cvt.rn.f16x2.e5m2x2', 'e5m2')]:
    def up(b, fmt=fmt):
        s, mag = decode(b, fmt)
        return canon_nan('f16') if mag == NAN else (0x7c00 | (s << 15) if mag == 'inf' else from_val(-mag if s else mag, 'f16', sign_of_zero=s))
    optest('cvt_' + instr[4:].replace('.', '_'), 'half', instr, ['b16'], 'b32', [(x,) for x in B8],
           [(up(x >> 8) << 16) | up(x & 0xff) for x in B8])
HX = [0x3c00bc00, 0x5fff0001, 0x7bff3555, 0xfc007c00]
def h2f8(h, fmt):
    s, mag = decode(h, 'f16')
    return f8(f2f(h, 'f16', 'f32'), fmt)
optest('cvt_rn_satfinite_e4m3x2_f16x2', 'half', 'cvt.rn.satfinite.e4m3x2.f16x2', ['b32'], 'b16', [(x,) for x in HX],
       [(h2f8(x >> 16, 'e4m3') << 8) | h2f8(x & 0xffff, 'e4m3') for x in HX])

# integer <-> integer
def chop(v, nb, signed):
    v &= (1 << nb) - 1
    return sx(v, nb) if signed else v
def satc(v, nb, signed):
    lo, hi = (-(1 << (nb - 1)), (1 << (nb - 1)) - 1) if signed else (0, (1 << nb) - 1)
    return min(max(v, lo), hi)
I32 = [0, 1, -1, 127, 128, 255, 256, -128, -129, 65535, 65536, -32769, 0x7fffffff, -0x80000000]
for instr, it, ot, fn in [('cvt.u8.u32', 'u32', 'u16', lambda v: chop(v, 8, 0)), ('cvt.s8.s32', 's32', 'u16', lambda v: M16(chop(v, 8, 1))),
                          ('cvt.sat.s8.s32', 's32', 'u16', lambda v: M16(satc(v, 8, 1))), ('cvt.sat.u8.s32', 's32', 'u16', lambda v: satc(v, 8, 0)),
                          ('cvt.sat.u16.s32', 's32', 'u16', lambda v: satc(v, 16, 0)), ('cvt.sat.s16.s32', 's32', 'u16', lambda v: M16(satc(v, 16, 1))),
                          ('cvt.sat.u32.s32', 's32', 'u32', lambda v: satc(v, 32, 0)), ('cvt.s64.s32', 's32', 'u64', lambda v: M64(v)),
                          ('cvt.u64.u32', 'u32', 'u64', lambda v: M32(v)), ('cvt.s16.s32', 's32', 'u16', lambda v: M16(v))]:
    optest('cvt_' + instr[4:].replace('.', '_'), F, instr, [it], ot, [(M32(v),) for v in I32], [fn(v if it == 's32' else M32(v)) for v in I32],
           note='narrowing into a 16-bit register keeps the sign extension of the 8-bit result (§9.7.10.20 notes)')
U32S = [0, 1, 0x7fffffff, 0x80000000, 0xffffffff]
optest('cvt_sat_s32_u32', F, 'cvt.sat.s32.u32', ['u32'], 'u32', [(v,) for v in U32S], [satc(v, 32, 1) & 0xffffffff for v in U32S])
I64 = [0, -1, 0x7fffffff, 0x80000000, -0x80000001, (1 << 63) - 1, -(1 << 63), 0x123456789]
optest('cvt_sat_s32_s64', F, 'cvt.sat.s32.s64', ['s64'], 'u32', [(M64(v),) for v in I64], [M32(satc(v, 32, 1)) for v in I64])
optest('cvt_u32_u64', F, 'cvt.u32.u64', ['u64'], 'u32', [(M64(v),) for v in I64], [M32(v) for v in I64])
optest('cvt_sat_u16_s64', F, 'cvt.sat.u16.s64', ['s64'], 'u16', [(M64(v),) for v in I64], [satc(v, 16, 0) for v in I64])
optest('cvt_s32_s8', F, 'cvt.s32.s8', ['s8'], 'u32', [(v,) for v in [0, 1, 0x7f, 0x80, 0xff]], [M32(sx(v, 8)) for v in [0, 1, 0x7f, 0x80, 0xff]])
optest('cvt_u32_u16', F, 'cvt.u32.u16', ['u16'], 'u32', [(v,) for v in [0, 0x8000, 0xffff]], [0, 0x8000, 0xffff])
optest('cvt_s64_s16', F, 'cvt.s64.s16', ['s16'], 'u64', [(v,) for v in [0, 0x8000, 0xffff, 0x7fff]], [0, M64(-0x8000), M64(-1), 0x7fff])

# cvt.pack (§9.7.10.21)
PK = [(5, -3), (70000, -70000), (300, 255), (-1, 128), (0x7fffffff, -0x80000000)]
def pack16(a, b, signed):
    return (M16(satc(a, 16, signed)) << 16) | M16(satc(b, 16, signed))
optest('cvt_pack_sat_s16_s32', F, 'cvt.pack.sat.s16.s32', ['s32', 's32'], 'u32', [(M32(a), M32(b)) for a, b in PK],
       [pack16(a, b, 1) for a, b in PK])
optest('cvt_pack_sat_u16_s32', F, 'cvt.pack.sat.u16.s32', ['s32', 's32'], 'u32', [(M32(a), M32(b)) for a, b in PK],
       [pack16(a, b, 0) for a, b in PK])
PK3 = [(5, -3, 0x12345678), (300, -1, 0xffffffff), (-200, 100, 0)]
optest('cvt_pack_sat_u8_s32_b32', F, 'cvt.pack.sat.u8.s32.b32', ['s32', 's32', 'b32'], 'u32', [(M32(a), M32(b), c) for a, b, c in PK3],
       [M32((c << 16) | (satc(a, 8, 0) << 8) | satc(b, 8, 0)) for a, b, c in PK3])
optest('cvt_pack_sat_s8_s32_b32', F, 'cvt.pack.sat.s8.s32.b32', ['s32', 's32', 'b32'], 'u32', [(M32(a), M32(b), c) for a, b, c in PK3],
       [M32((c << 16) | ((satc(a, 8, 1) & 0xff) << 8) | (satc(b, 8, 1) & 0xff)) for a, b, c in PK3])
