# Float f32/f64 family (§9.7.3) and conversions (§9.7.10.21 cvt). Expected values: fp.py (exact
# rationals, IEEE rounding written from the spec), NaN results accepted as any NaN for f32 (§9.7.3:
# single-precision NaN results are unspecified).
import random, math
F = 'float'
REG = {'f32': '%f', 'f64': '%fd', 'u32': '%r', 's32': '%r', 'b32': '%r', 'u64': '%rd', 's64': '%rd',
       'b64': '%rd', 'u16': '%rs', 's16': '%rs', 'b16': '%rs', 'f16': '%rs', 'bf16': '%rs',
       'u8': '%rs', 's8': '%rs', 'f16x2': '%r', 'bf16x2': '%r', 'pred': '%p'}
SIZE = {'f32': 4, 'f64': 8, 'u32': 4, 's32': 4, 'b32': 4, 'u64': 8, 's64': 8, 'b64': 8, 'u16': 2,
        's16': 2, 'b16': 2, 'f16': 2, 'bf16': 2, 'u8': 1, 's8': 1, 'f16x2': 4, 'bf16x2': 4}
LDT = {'f32': 'f32', 'f64': 'f64', 'f16': 'b16', 'bf16': 'b16', 'f16x2': 'b32', 'bf16x2': 'b32'}
BUF = {'f32': 'u32', 'f64': 'u64', 'f16': 'u16', 'bf16': 'u16', 'f16x2': 'u32', 'bf16x2': 'u32',
       'b32': 'u32', 'b64': 'u64', 'b16': 'u16'}

def optest(name, family, instr, in_types, out_type, cases, expected, any_nan=None, note='', target='sm_90',
           version='8.5', extra_operands='', dest=None, post='', decl_regs=REGS):
    """cases: list of tuples of input bit patterns (one per operand type in in_types)."""
    # one loop over the cases (a kernel as a user writes it; an unrolled one makes lavapipe's
    # pipeline compilation slow): case i's operands are 8-byte slots at in + 8*nin*i
    nin = len(in_types)
    vals = []
    for ci, case in enumerate(cases):
        for k, v in enumerate(case):
            vals.append(v & ((1 << (8 * SIZE[in_types[k]])) - 1))
    regs = [f'{REG[t]}{1 + k}' for k, t in enumerate(in_types)]
    d = f'{REG[out_type]}10'
    loads = '\n'.join(f'    ld.global.{LDT.get(t, t)} {r}, [%rd21+{8 * k}];' for k, (t, r) in enumerate(zip(in_types, regs)))
    body = f"""    ld.param.u64 %rd24, [k_param_1];
    cvta.to.global.u64 %rd24, %rd24;
    mov.u32 %r20, 0;
$L__loop:
    mul.wide.u32 %rd20, %r20, {8 * nin};
    add.s64 %rd21, %rd24, %rd20;
{loads}
    {instr} {dest or d}, {", ".join(regs)}{extra_operands};{post}
    mul.wide.u32 %rd22, %r20, {SIZE[out_type]};
    add.s64 %rd23, %rd0, %rd22;
    st.global.{LDT.get(out_type, out_type)} [%rd23], {d};
    add.u32 %r20, %r20, 1;
    setp.lt.u32 %p15, %r20, {len(cases)};
    @%p15 bra $L__loop;"""
    words = [hex(v) for v in vals]
    ptx = HEADER.format(version=version, target=target) + f"""
.visible .entry k(
    .param .u64 k_param_0,
    .param .u64 k_param_1
)
{{
{decl_regs}
    ld.param.u64 %rd0, [k_param_0];
    cvta.to.global.u64 %rd0, %rd0;
{body}
    ret;
}}
"""
    et = {'f32': 'f32', 'f64': 'f64', 'f16': 'u16', 'bf16': 'u16', 'f16x2': 'u32', 'bf16x2': 'u32'}.get(out_type, out_type)
    if et in ('b32', 'b64', 'b16'):
        et = BUF[et]
    if any_nan in ('f16', 'bf16'):
        et = any_nan
    test(name, family, ptx=ptx, expect=expected, etype=et, any_nan=any_nan, note=note,
         buffers={'in': {'type': 'u64', 'values': words}},
         args=[{'buffer': 'out'}, {'buffer': 'in'}])

F32E = [0, 0x80000000, f32(1.0), f32(-1.0), 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff,
        0x7f800000, 0xff800000, 0x7fc00000, f32(1.5), f32(-3.0), 0x3f800001, 0x33800000,
        f32(0.1), 0xbec4978c, 0x805f3ec4, f32(0.75), f32(1e30)]
rng = random.Random(9)
def pairs(edges, n):
    ps = [(a, b) for a in edges for b in edges]
    rng.shuffle(ps)
    return ps[:n]
def triples(edges, n):
    return [(rng.choice(edges), rng.choice(edges), rng.choice(edges)) for _ in range(n)]

def a2(opn, fmt, mode='rn', ftz=False, sat=False):
    return lambda c: arith(opn, fmt, list(c), mode, ftz, sat)

F32P = pairs(F32E, 80)
for instr, opn, mode, ftz, sat in [
        ('add.f32', 'add', 'rn', 0, 0), ('add.rz.f32', 'add', 'rz', 0, 0), ('add.rm.f32', 'add', 'rm', 0, 0),
        ('add.rp.ftz.f32', 'add', 'rp', 1, 0), ('add.rn.ftz.sat.f32', 'add', 'rn', 1, 1),
        ('sub.rn.f32', 'sub', 'rn', 0, 0), ('sub.rm.ftz.f32', 'sub', 'rm', 1, 0), ('sub.sat.f32', 'sub', 'rn', 0, 1),
        ('mul.f32', 'mul', 'rn', 0, 0), ('mul.rz.f32', 'mul', 'rz', 0, 0), ('mul.rp.f32', 'mul', 'rp', 0, 0),
        ('mul.rm.ftz.f32', 'mul', 'rm', 1, 0), ('mul.rn.sat.f32', 'mul', 'rn', 0, 1),
        ('div.rn.f32', 'div', 'rn', 0, 0), ('div.rz.f32', 'div', 'rz', 0, 0), ('div.rm.ftz.f32', 'div', 'rm', 1, 0),
        ('div.rp.f32', 'div', 'rp', 0, 0)]:
    optest('f32_' + instr.replace('.', '_'), F, instr, ['f32', 'f32'], 'f32', F32P,
           [a2(opn, 'f32', mode, ftz, sat)(c) for c in F32P], any_nan='f32')

F32T = triples(F32E + [f32(-1.0000001), f32(2.0), 0x34000000], 70)
for instr, mode, ftz, sat in [('fma.rn.f32', 'rn', 0, 0), ('fma.rz.f32', 'rz', 0, 0), ('fma.rm.f32', 'rm', 0, 0),
                              ('fma.rp.ftz.sat.f32', 'rp', 1, 1), ('mad.rn.f32', 'rn', 0, 0),
                              ('mad.rz.ftz.f32', 'rz', 1, 0)]:
    optest('f32_' + instr.replace('.', '_'), F, instr, ['f32'] * 3, 'f32', F32T,
           [arith('fma', 'f32', list(c), mode, ftz, sat) for c in F32T], any_nan='f32')

# fma where the exact product matters: (1+2^-23)^2 - (1+2^-22) = 2^-46
FMAX = [(f32(1.0000001), f32(1.0000001), f32(-1.0000002)), (0x3f800001, 0xbf7ffffe, f32(1.0)),
        (0x5f800000, 0x5f800000, 0xff800000), (0x00000003, 0x3f000000, 0)]
optest('f32_fma_rn_exact_product', F, 'fma.rn.f32', ['f32'] * 3, 'f32', FMAX,
       [arith('fma', 'f32', list(c)) for c in FMAX], any_nan='f32')

U32 = [f32(x) for x in [0.0, 1.0, 2.0, 4.0, 0.25, 3.0, 1e-40, 5e-39, 1e38, 7.0]] + [0x80000000, 0x7f800000, 0xbf800000, 0x7fc00000, 0x00000001]
for instr, mode, ftz in [('sqrt.rn.f32', 'rn', 0), ('sqrt.rz.f32', 'rz', 0), ('sqrt.rp.ftz.f32', 'rp', 1),
                         ('sqrt.rm.f32', 'rm', 0)]:
    optest('f32_' + instr.replace('.', '_'), F, instr, ['f32'], 'f32', [(x,) for x in U32],
           [sqrt_bits(x, 'f32', mode, ftz) for x in U32], any_nan='f32')
for instr, mode, ftz in [('rcp.rn.f32', 'rn', 0), ('rcp.rz.ftz.f32', 'rz', 1), ('rcp.rm.f32', 'rm', 0)]:
    optest('f32_' + instr.replace('.', '_'), F, instr, ['f32'], 'f32', [(x,) for x in U32],
           [arith('div', 'f32', [f32(1.0), x], mode, ftz) for x in U32], any_nan='f32')

F64E = [0, 1 << 63, f64(1.0), f64(-1.0), 1, 0x000fffffffffffff, 0x0010000000000000, 0x7fefffffffffffff,
        0x7ff0000000000000, 0xfff0000000000000, f64(1 / 3), f64(-3.0), f64(1.0) + 1, f64(0.1), f64(1e300)]
F64P = pairs(F64E, 80)
for instr, opn, mode in [('add.f64', 'add', 'rn'), ('add.rz.f64', 'add', 'rz'), ('add.rm.f64', 'add', 'rm'),
                         ('sub.rp.f64', 'sub', 'rp'), ('mul.rn.f64', 'mul', 'rn'), ('mul.rz.f64', 'mul', 'rz'),
                         ('mul.rp.f64', 'mul', 'rp'), ('div.rn.f64', 'div', 'rn'), ('div.rz.f64', 'div', 'rz'),
                         ('div.rm.f64', 'div', 'rm')]:
    optest('f64_' + instr.replace('.', '_'), F, instr, ['f64', 'f64'], 'f64', F64P,
           [arith(opn, 'f64', list(c), mode) for c in F64P], any_nan='f64')
F64T = [(rng.choice(F64E), rng.choice(F64E), rng.choice(F64E)) for _ in range(60)] + \
       [(f64(1.0) + 1, f64(1.0) + 1, f64(-1.0) - 2), (0x7fe0000000000000, f64(2.0), 0xffefffffffffffff)]
for instr, mode in [('fma.rn.f64', 'rn'), ('fma.rz.f64', 'rz'), ('fma.rp.f64', 'rp'), ('mad.rn.f64', 'rn')]:
    optest('f64_' + instr.replace('.', '_'), F, instr, ['f64'] * 3, 'f64', F64T,
           [arith('fma', 'f64', list(c), mode) for c in F64T], any_nan='f64')
U64 = [f64(x) for x in [0.0, 2.0, 3.0, 1e-310, 1e300, 0.5, 10.0]] + [1 << 63, 0x7ff0000000000000, 0xbff0000000000000, 1]
for instr, mode in [('sqrt.rn.f64', 'rn'), ('sqrt.rz.f64', 'rz'), ('sqrt.rp.f64', 'rp')]:
    optest('f64_' + instr.replace('.', '_'), F, instr, ['f64'], 'f64', [(x,) for x in U64],
           [sqrt_bits(x, 'f64', mode) for x in U64], any_nan='f64')
for instr, mode in [('rcp.rn.f64', 'rn'), ('rcp.rm.f64', 'rm')]:
    optest('f64_' + instr.replace('.', '_'), F, instr, ['f64'], 'f64', [(x,) for x in U64],
           [arith('div', 'f64', [f64(1.0), x], mode) for x in U64], any_nan='f64')

# min/max (§9.7.3.11/12): NaN rules, -0 < +0, .NaN canonical, .xorsign.abs
def minmax(a, b, is_max, nan=False, xs=False, ftz=False):
    if ftz:
        a = a & 0x80000000 if is_sub(a, 'f32') else a
        b = b & 0x80000000 if is_sub(b, 'f32') else b
    sgn = ((a ^ b) >> 31) & 1
    if xs:
        a &= 0x7fffffff; b &= 0x7fffffff
    an, bn = decode(a, 'f32')[1] == NAN, decode(b, 'f32')[1] == NAN
    if an and bn:
        return 0x7fffffff
    if nan and (an or bn):
        return 0x7fffffff
    if an:
        d = b
    elif bn:
        d = a
    else:
        def key(x):
            s, m = decode(x, 'f32')
            m = Fr(10) ** 100 if m == 'inf' else m
            return (-m if s else m, s == 0)
        d = (a if key(a) > key(b) else b) if is_max else (a if key(a) < key(b) else b)
    if xs:
        d = (d & 0x7fffffff) | (sgn << 31)
    return d
MMP = pairs([0, 0x80000000, f32(1.0), f32(-2.0), 0x7fc00000, 0xff800000, 0x00000005, 0x80000007, f32(-0.5)], 60)
for instr, mx, nan, xs, ftz in [('min.f32', 0, 0, 0, 0), ('max.f32', 1, 0, 0, 0), ('min.NaN.f32', 0, 1, 0, 0),
                                ('max.ftz.NaN.f32', 1, 1, 0, 1), ('min.xorsign.abs.f32', 0, 0, 1, 0),
                                ('max.ftz.xorsign.abs.f32', 1, 0, 1, 1)]:
    optest('f32_' + instr.replace('.', '_'), F, instr, ['f32', 'f32'], 'u32', MMP,
           [minmax(a, b, mx, nan, xs, ftz) for a, b in MMP],
           note='min/max NaN results: the spec says canonical NaN only for .NaN; both-NaN gives "NaN" (checked as 0x7fffffff)')
MM64 = pairs([0, 1 << 63, f64(1.0), f64(-2.0), 0x7ff8000000000000, 0xfff0000000000000, 3], 30)
def minmax64(a, b, mx):
    an, bn = decode(a, 'f64')[1] == NAN, decode(b, 'f64')[1] == NAN
    if an and bn: return 0x7fffffffffffffff
    if an: return b
    if bn: return a
    def key(x):
        s, m = decode(x, 'f64'); m = Fr(10) ** 400 if m == 'inf' else m
        return (-m if s else m, s == 0)
    return (a if key(a) > key(b) else b) if mx else (a if key(a) < key(b) else b)
optest('f64_min', F, 'min.f64', ['f64', 'f64'], 'b64', MM64, [minmax64(a, b, 0) for a, b in MM64])
optest('f64_max', F, 'max.f64', ['f64', 'f64'], 'b64', MM64, [minmax64(a, b, 1) for a, b in MM64])

AN = [0, 0x80000000, f32(-1.5), 0x80000001, 0xff800000, 0x7f800000, f32(2.0)]
optest('f32_abs_neg', F, 'abs.f32', ['f32'], 'u32', [(x,) for x in AN], [x & 0x7fffffff for x in AN])
optest('f32_neg', F, 'neg.f32', ['f32'], 'u32', [(x,) for x in AN], [x ^ 0x80000000 for x in AN])
optest('f32_abs_ftz', F, 'abs.ftz.f32', ['f32'], 'u32', [(x,) for x in AN],
       [0 if is_sub(x, 'f32') else x & 0x7fffffff for x in AN])
optest('f32_neg_ftz', F, 'neg.ftz.f32', ['f32'], 'u32', [(x,) for x in AN],
       [(0x80000000 ^ (x & 0x80000000)) if is_sub(x, 'f32') else x ^ 0x80000000 for x in AN])
AN64 = [0, 1 << 63, f64(-1.5), 1, 0xfff0000000000000]
optest('f64_abs', F, 'abs.f64', ['f64'], 'b64', [(x,) for x in AN64], [x & ((1 << 63) - 1) for x in AN64])
optest('f64_neg', F, 'neg.f64', ['f64'], 'b64', [(x,) for x in AN64], [x ^ (1 << 63) for x in AN64])
CS = pairs([0, 0x80000000, f32(-1.5), f32(3.0), 0x7f800000, 0x80000001], 20)
# copysign d, a, b: d = b with the sign of a (§9.7.3.5)
optest('f32_copysign', F, 'copysign.f32', ['f32', 'f32'], 'u32', CS, [(b & 0x7fffffff) | (a & 0x80000000) for a, b in CS])
CS64 = pairs([0, 1 << 63, f64(-1.5), f64(3.0)], 10)
optest('f64_copysign', F, 'copysign.f64', ['f64', 'f64'], 'b64', CS64,
       [(b & ((1 << 63) - 1)) | (a & (1 << 63)) for a, b in CS64])

# testp (§9.7.3.6) into a predicate then selp
TP = [0, 0x80000000, f32(1.0), 0x00000001, 0x807fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffffffff, 0x7f7fffff]
def tp(x, op):
    s, m = decode(x, 'f32')
    nan = m == NAN; inf = m == 'inf'
    sub = is_sub(x, 'f32')
    return int({'finite': not nan and not inf, 'infinite': inf, 'number': not nan, 'notanumber': nan,
                'normal': not nan and not inf and not sub, 'subnormal': sub}[op])  # ±0 are normal (§9.7.3.1)
tl = ['    ld.param.u64 %rd1, [k_param_1];', '    cvta.to.global.u64 %rd1, %rd1;']
texp = []
for i, x in enumerate(TP):
    tl.append(f'    ld.global.f32 %f1, [%rd1+{4 * i}];')
    for j, op in enumerate(['finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal']):
        tl.append(f'    testp.{op}.f32 %p1, %f1;')
        tl.append(f'    selp.u32 %r1, 1, 0, %p1;')
        tl.append(f'    st.global.u32 [%rd0+{4 * (6 * i + j)}], %r1;')
        texp.append(tp(x, op))
tl.append('    mov.f64 %fd1, 0d0000000000000001;')
tl.append('    testp.subnormal.f64 %p2, %fd1;')
tl.append('    testp.normal.f64 %p3, %fd1;')
tl.append('    selp.u32 %r2, 1, 0, %p2;\n    selp.u32 %r3, 1, 0, %p3;')
tl.append(st32(['%r2', '%r3'], base=len(texp)))
texp += [1, 0]
test('f32_f64_testp', F, ptx=HEADER.format(version='8.5', target='sm_90') + """
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)
{
""" + REGS + """
    ld.param.u64 %rd0, [k_param_0];
    cvta.to.global.u64 %rd0, %rd0;
""" + '\n'.join(tl) + "\n    ret;\n}\n", expect=texp,
     buffers={'in': {'type': 'u32', 'values': [hex(x) for x in TP]}}, args=[{'buffer': 'out'}, {'buffer': 'in'}])

# .approx instructions: in-kernel bound checks (1 = within the spec's bound), bounds from §9.7.3
def approx(name, instr, xs, ref, tol_fn, note, nin=1):
    """in: per case (x bits [, y bits], reference f64, tolerance f64), 8-byte slots; a loop."""
    words = []
    for x in xs:
        xv = [bf32(v) for v in (x if nin == 2 else (x,))]
        y = ref(*xv)
        words += [hex(v) for v in (x if nin == 2 else (x,))] + [hex(f64(y)), hex(f64(tol_fn(xv[0], y)))]
    st = 8 * (nin + 2)
    ops = '%f1' if nin == 1 else '%f1, %f3'
    ld2 = '' if nin == 1 else '    ld.global.f32 %f3, [%rd21+8];\n'
    body = f"""    ld.param.u64 %rd24, [k_param_1];
    cvta.to.global.u64 %rd24, %rd24;
    mov.u32 %r20, 0;
$L__loop:
    mul.wide.u32 %rd20, %r20, {st};
    add.s64 %rd21, %rd24, %rd20;
    ld.global.f32 %f1, [%rd21];
{ld2}    ld.global.f64 %fd3, [%rd21+{8 * nin}];
    ld.global.f64 %fd4, [%rd21+{8 * nin + 8}];
    {instr} %f2, {ops};
    cvt.f64.f32 %fd1, %f2;
    sub.f64 %fd2, %fd1, %fd3;
    abs.f64 %fd2, %fd2;
    setp.le.f64 %p1, %fd2, %fd4;
    selp.u32 %r1, 1, 0, %p1;
    mul.wide.u32 %rd22, %r20, 4;
    add.s64 %rd23, %rd0, %rd22;
    st.global.u32 [%rd23], %r1;
    add.u32 %r20, %r20, 1;
    setp.lt.u32 %p15, %r20, {len(xs)};
    @%p15 bra $L__loop;"""
    test(name, F, ptx=HEADER.format(version='8.5', target='sm_90') + """
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)
{
""" + REGS + """
    ld.param.u64 %rd0, [k_param_0];
    cvta.to.global.u64 %rd0, %rd0;
""" + body + "\n    ret;\n}\n", expect=[1] * len(xs),
         buffers={'in': {'type': 'u64', 'values': words}},
         args=[{'buffer': 'out'}, {'buffer': 'in'}], note=note)
lin = lambda lo, hi, n: [f32(lo + (hi - lo) * i / n) for i in range(n)]
approx('approx_sin', 'sin.approx.f32', lin(0, math.pi / 2, 24), math.sin, lambda x, y: 2 ** -20.9, 'abs err 2^-20.9 in quadrant 00 (§9.7.3.18)')
approx('approx_cos_ftz', 'cos.approx.ftz.f32', lin(0, math.pi / 2, 24), math.cos, lambda x, y: 2 ** -20.9, 'abs err 2^-20.9 (§9.7.3.19)')
approx('approx_lg2', 'lg2.approx.f32', lin(1, 2, 24), math.log2, lambda x, y: 2 ** -22.6, 'abs err 2^-22.6 for mantissa (§9.7.3.20)')
approx('approx_ex2', 'ex2.approx.ftz.f32', lin(0, 1, 24), lambda x: 2 ** x, lambda x, y: 2 ** -22.5, 'abs err 2^-22.5 in the primary range (§9.7.3.21)')
approx('approx_rsqrt', 'rsqrt.approx.f32', lin(1, 4, 24), lambda x: x ** -0.5, lambda x, y: 2 ** -22.4, 'abs err 2^-22.4 over 1..4 (§9.7.3.16)')
approx('approx_rcp', 'rcp.approx.f32', lin(1, 2, 24), lambda x: 1 / x, lambda x, y: 2 ** -23.0, 'abs err 2^-23 over 1..2 (§9.7.3.13)')
approx('approx_rcp_ftz', 'rcp.approx.ftz.f32', lin(1, 2, 24), lambda x: 1 / x, lambda x, y: 2 ** -23.0, 'abs err 2^-23 over 1..2 (§9.7.3.13)')
approx('approx_sqrt', 'sqrt.approx.f32', lin(1, 4, 24), math.sqrt, lambda x, y: abs(y) * 2 ** -22, 'rel err 2^-23 (§9.7.3.15); checked at 2^-22')
approx('approx_tanh', 'tanh.approx.f32', lin(-3, 3, 24), math.tanh, lambda x, y: abs(y) * 2 ** -10.9 + 1e-30, 'rel err ~2^-11 (§9.7.3.22)')

# div.approx / div.full: 2 ulp; huge divisor -> 0 (§9.7.3.8)
def ulp(y):
    e = math.frexp(y)[1]
    return 2.0 ** (e - 24)
DV = [(f32(a), f32(b)) for a, b in [(1.0, 3.0), (2.5, 7.0), (-100.0, 0.3), (1e20, 3e-10), (7.0, 2.0), (-1e-30, 3e5)]]
for instr in ['div.approx.f32', 'div.full.f32', 'div.approx.ftz.f32', 'div.full.ftz.f32']:
    approx('bound_' + instr.replace('.', '_'), instr, DV, lambda a, b: a / b, lambda a, y: 2 * ulp(y), '2 ulp (§9.7.3.8)', nin=2)
# 2^126 < |b| < 2^128: the result is 0 (§9.7.3.8), either sign
approx('div_approx_huge_divisor', 'div.approx.f32', [(0x57520A57, 0xFF3A7781), (f32(1.0), 0x7f000001), (f32(-3.0), 0x7f7fffff)],
       lambda a, b: 0.0, lambda a, y: 0.0, 'div.approx by 2^126 < |b| < 2^128 returns 0 (§9.7.3.8)', nin=2)
