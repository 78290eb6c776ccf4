# Half precision (§9.7.4, §9.7.8): f16/bf16 scalar and x2. fp.py rounding; lanes of x2 forms
# computed independently per half.
F = 'half'
HE = [0, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x83ff, 0x0400, 0x7bff, 0x7c00, 0xfc00, 0x3e00, 0xc200, 0x3c01, 0x1400, 0x3555, 0x7e00]
BE = [0, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x807f, 0x0080, 0x7f7f, 0x7f80, 0xff80, 0x3fc0, 0xc040, 0x3f81, 0x3aab, 0x7fc0]
HP = pairs(HE, 60)
BP = pairs(BE, 60)
for instr, opn, ftz, sat in [('add.f16', 'add', 0, 0), ('add.rn.ftz.f16', 'add', 1, 0), ('sub.rn.sat.f16', 'sub', 0, 1),
                             ('mul.f16', 'mul', 0, 0), ('mul.ftz.sat.f16', 'mul', 1, 1)]:
    optest('h_' + instr.replace('.', '_'), F, instr, ['f16', 'f16'], 'f16', HP,
           [arith(opn, 'f16', list(c), 'rn', ftz, sat) for c in HP], any_nan='f16')
for instr, opn in [('add.rn.bf16', 'add'), ('sub.bf16', 'sub'), ('mul.rn.bf16', 'mul')]:
    optest('h_' + instr.replace('.', '_'), F, instr, ['bf16', 'bf16'], 'bf16', BP,
           [arith(opn, 'bf16', list(c)) for c in BP], any_nan='bf16')
HT = triples(HE[:15], 60)
BT = triples(BE[:14], 60)
for instr, ftz, sat, relu in [('fma.rn.f16', 0, 0, 0), ('fma.rn.ftz.sat.f16', 1, 1, 0), ('fma.rn.relu.f16', 0, 0, 1),
                              ('fma.rn.ftz.relu.f16', 1, 0, 1)]:
    optest('h_' + instr.replace('.', '_'), F, instr, ['f16'] * 3, 'f16', HT,
           [arith('fma', 'f16', list(c), 'rn', ftz, sat, relu) for c in HT], any_nan=None if relu else 'f16')
for instr, relu in [('fma.rn.bf16', 0), ('fma.rn.relu.bf16', 1)]:
    optest('h_' + instr.replace('.', '_'), F, instr, ['bf16'] * 3, 'bf16', BT,
           [arith('fma', 'bf16', list(c), 'rn', False, False, relu) for c in BT], any_nan=None if relu else 'bf16')
# x2 forms, no NaN inputs (packed NaN results are unspecified per lane)
HN = [x for x in HE if x != 0x7e00]
BN = [x for x in BE if x != 0x7fc0]
def x2pairs(E, n, k=2):
    return [tuple((rng.choice(E) << 16) | rng.choice(E) for _ in range(k)) for _ in range(n)]
def lanes(fn, c):
    hi = fn([x >> 16 for x in c]); lo = fn([x & 0xffff for x in c])
    return (hi << 16) | lo
def no_nan2(fmt, fn):
    def g(c):
        r = fn(c)
        return r
    return g
H2 = [c for c in x2pairs(HN, 200) if all(decode(lanes(lambda v: arith('add', 'f16', v), c) >> s & 0xffff, 'f16')[1] != NAN for s in (0, 16))
      and all(decode(lanes(lambda v: arith('mul', 'f16', v), c) >> s & 0xffff, 'f16')[1] != NAN for s in (0, 16))][:40]
for instr, opn, ftz, sat in [('add.f16x2', 'add', 0, 0), ('sub.rn.ftz.f16x2', 'sub', 1, 0), ('mul.rn.sat.f16x2', 'mul', 0, 1)]:
    optest('h_' + instr.replace('.', '_'), F, instr, ['f16x2', 'f16x2'], 'b32', H2,
           [lanes(lambda v: arith(opn, 'f16', v, 'rn', ftz, sat), c) for c in H2])
B2 = [c for c in x2pairs(BN, 200) if all(decode(lanes(lambda v: arith('add', 'bf16', v), c) >> s & 0xffff, 'bf16')[1] != NAN for s in (0, 16))
      and all(decode(lanes(lambda v: arith('mul', 'bf16', v), c) >> s & 0xffff, 'bf16')[1] != NAN for s in (0, 16))][:40]
for instr, opn in [('add.rn.bf16x2', 'add'), ('mul.bf16x2', 'mul')]:
    optest('h_' + instr.replace('.', '_'), F, instr, ['bf16x2', 'bf16x2'], 'b32', B2,
           [lanes(lambda v: arith(opn, 'bf16', v), c) for c in B2])
H3 = [c for c in x2pairs(HN, 300, 3) if all(decode(lanes(lambda v: arith('fma', 'f16', v), c) >> s & 0xffff, 'f16')[1] != NAN for s in (0, 16))][:40]
optest('h_fma_rn_f16x2', F, 'fma.rn.f16x2', ['f16x2'] * 3, 'b32', H3, [lanes(lambda v: arith('fma', 'f16', v), c) for c in H3])
B3 = x2pairs(BE, 40, 3)
optest('h_fma_rn_relu_bf16x2', F, 'fma.rn.relu.bf16x2', ['bf16x2'] * 3, 'b32', B3,
       [lanes(lambda v: arith('fma', 'bf16', v, relu=True), c) for c in B3], note='.relu: NaN results are canonical (§9.7.4.4)')

def hminmax(a, b, fmt, is_max, nan=False, xs=False, ftz=False):
    sh = 15
    if ftz:
        a = a & 0x8000 if is_sub(a, fmt) else a
        b = b & 0x8000 if is_sub(b, fmt) else b
    sgn = ((a ^ b) >> sh) & 1
    if xs:
        a &= 0x7fff; b &= 0x7fff
    an, bn = decode(a, fmt)[1] == NAN, decode(b, fmt)[1] == NAN
    if (an and bn) or (nan and (an or bn)):
        return canon_nan(fmt)
    if an: d = b
    elif bn: d = a
    else:
        def key(x):
            s, m = decode(x, fmt); m = Fr(10) ** 100 if m == 'inf' else m
            return (-m if s else m, s == 0)
        d = (a if key(a) > key(b) else b) if is_max else (a if key(a) < key(b) else b)
    if xs:
        d = (d & 0x7fff) | (sgn << 15)
    return d
HMP = pairs([0, 0x8000, 0x3c00, 0xc000, 0x7e00, 0xfc00, 0x0003, 0x8005], 40)
BMP = pairs([0, 0x8000, 0x3f80, 0xc000, 0x7fc0, 0xff80, 0x0003], 36)
for instr, fmt, mx, nan, xs, ftz in [('min.f16', 'f16', 0, 0, 0, 0), ('max.ftz.NaN.f16', 'f16', 1, 1, 0, 1),
                                     ('min.xorsign.abs.f16', 'f16', 0, 0, 1, 0), ('max.bf16', 'bf16', 1, 0, 0, 0),
                                     ('min.NaN.bf16', 'bf16', 0, 1, 0, 0), ('max.xorsign.abs.bf16', 'bf16', 1, 0, 1, 0)]:
    P = HMP if fmt == 'f16' else BMP
    optest('h_' + instr.replace('.', '_'), F, instr, [fmt, fmt], 'b16', P, [hminmax(a, b, fmt, mx, nan, xs, ftz) for a, b in P])
P2 = [((a << 16) | b, (b << 16) | a) for a, b in HMP[:20]]
optest('h_max_f16x2', F, 'max.f16x2', ['f16x2', 'f16x2'], 'b32', P2,
       [lanes(lambda v: hminmax(v[0], v[1], 'f16', 1), c) for c in P2])
HA = [0, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x83ff, 0xfc00]
optest('h_neg_f16', F, 'neg.f16', ['f16'], 'b16', [(x,) for x in HA], [x ^ 0x8000 for x in HA])
optest('h_abs_f16', F, 'abs.f16', ['f16'], 'b16', [(x,) for x in HA], [x & 0x7fff for x in HA])
optest('h_neg_ftz_f16x2', F, 'neg.ftz.f16x2', ['f16x2'], 'b32', [((a << 16) | b,) for a, b in zip(HA, HA[1:])],
       [(((a & 0x8000) if is_sub(a, 'f16') else a) ^ 0x8000) << 16 | (((b & 0x8000) if is_sub(b, 'f16') else b) ^ 0x8000)
        for a, b in zip(HA, HA[1:])])
BA = [0, 0x8000, 0x3f80, 0xbf80, 0x0001, 0xff80]
optest('h_neg_bf16', F, 'neg.bf16', ['bf16'], 'b16', [(x,) for x in BA], [x ^ 0x8000 for x in BA])
optest('h_abs_bf16x2', F, 'abs.bf16x2', ['bf16x2'], 'b32', [((a << 16) | b,) for a, b in zip(BA, BA[1:])],
       [((a & 0x7fff) << 16) | (b & 0x7fff) for a, b in zip(BA, BA[1:])])
