# Hard cases for the exact f32/f64 fma emulation lavapipe needs (its fma is not fused) and for
# directed-rounding conversions: double-rounding traps (an f64 intermediate that lands on an f32
# tie), 2Prod residuals (c = -round(a*b)), subnormal results. Expected: exact rationals (fp.py).
H = 'float'
hr = random.Random(2026)
def rnd_bits(fmt, lo_exp, hi_exp):
    e, m = FMTS[fmt]
    bias = (1 << (e - 1)) - 1
    ex = hr.randint(lo_exp, hi_exp) + bias
    return (hr.randint(0, 1) << (e + m)) | (ex << m) | hr.getrandbits(m)
def neg(b, fmt):
    e, m = FMTS[fmt]
    return b ^ (1 << (e + m))
def fma_cases(fmt):
    cs = []
    one = from_val(Fr(1), fmt)
    e, m = FMTS[fmt]
    # tie traps: a = b = 1 + 2^-k so a*b = 1 + 2^(1-k) + 2^-2k sits on a tie of the format
    k = (m + 1) // 2
    a = from_val(1 + Fr(1, 2 ** k), fmt)
    tiny = from_val(Fr(1, 2 ** (3 * m)), fmt)
    for c in [tiny, neg(tiny, fmt), 0, 1 << (e + m)]:
        cs.append((a, a, c))
    for _ in range(24):  # 2Prod residuals
        x = rnd_bits(fmt, -3, 3); y = rnd_bits(fmt, -3, 3)
        p = arith('mul', fmt, [x, y])
        cs.append((x, y, neg(p, fmt)))
    for _ in range(8):   # near-cancellation with a nudge
        x = rnd_bits(fmt, -3, 3); y = rnd_bits(fmt, -3, 3)
        p = arith('mul', fmt, [x, y]) ^ 1
        cs.append((x, y, neg(p, fmt)))
    bias = (1 << (e - 1)) - 1
    for _ in range(8):   # subnormal results
        x = rnd_bits(fmt, -bias // 2 - 4, -bias // 2); y = rnd_bits(fmt, -bias // 2 - m, -bias // 2 - 2)
        cs.append((x, y, rnd_bits(fmt, -bias - 2, -bias)))
    for _ in range(4):   # overflow edge
        x = rnd_bits(fmt, bias // 2, bias // 2 + 1); y = rnd_bits(fmt, bias // 2, bias // 2)
        cs.append((x, y, neg(from_val(Fr(2) ** bias, fmt), fmt)))
    return cs
for fmt in ['f32', 'f64']:
    cs = fma_cases(fmt)
    for mode in ['rn', 'rz', 'rm', 'rp']:
        ins = f'fma.{mode}.{fmt}'
        optest(f'hard_{ins.replace(".", "_")}', H, ins, [fmt] * 3, fmt, cs,
               [arith('fma', fmt, list(c), mode) for c in cs], any_nan=fmt,
               note='double-rounding traps, 2Prod residuals, subnormal and overflow results')
    cs2 = [(a, b) for a, b, _ in cs]
    for mode in ['rn', 'rz', 'rm', 'rp']:
        ins = f'div.{mode}.{fmt}'
        optest(f'hard_{ins.replace(".", "_")}', H, ins, [fmt] * 2, fmt, cs2,
               [arith('div', fmt, list(c), mode) for c in cs2], any_nan=fmt)
    for mode in ['rn', 'rz', 'rm', 'rp']:
        ins = f'sqrt.{mode}.{fmt}'
        xs = [(a & ~(1 << (FMTS[fmt][0] + FMTS[fmt][1])),) for a, _, _ in cs]
        optest(f'hard_{ins.replace(".", "_")}', H, ins, [fmt], fmt, xs, [sqrt_bits(x[0], fmt, mode) for x in xs], any_nan=fmt)
    # ftz variants of f32
    if fmt == 'f32':
        for mode in ['rn', 'rz']:
            ins = f'fma.{mode}.ftz.f32'
            optest(f'hard_{ins.replace(".", "_")}', H, ins, ['f32'] * 3, 'f32', cs,
                   [arith('fma', 'f32', list(c), mode, True) for c in cs], any_nan='f32',
                   note='.ftz: subnormal results flushed (ties at the normal boundary avoided by the value choice)')

# directed-rounding conversions into half formats (the general cvt form allows .rm/.rp)
HV = [f32(x) for x in [1 / 3, -1 / 3, 65519.0, -65519.0, 65536.0, 1e-7, -1e-7, 3e-8, 0.1, -0.0]] + [rnd_bits('f32', -20, 15) for _ in range(10)]
for ins, dst in [('cvt.rm.f16.f32', 'f16'), ('cvt.rp.f16.f32', 'f16'), ('cvt.rz.f16.f32', 'f16'),
                 ('cvt.rm.bf16.f32', 'bf16'), ('cvt.rp.bf16.f32', 'bf16')]:
    mode = ins.split('.')[1]
    optest('hard_' + ins.replace('.', '_'), 'half', ins, ['f32'], 'b16', [(x,) for x in HV],
           [f2f(x, 'f32', dst, mode) for x in HV])
DV2 = [rnd_bits('f64', -30, 20) for _ in range(12)] + [f64(65519.99), f64(1e-8)]
for ins, dst in [('cvt.rn.f16.f64', 'f16'), ('cvt.rp.f16.f64', 'f16'), ('cvt.rm.bf16.f64', 'bf16'), ('cvt.rn.bf16.f64', 'bf16')]:
    mode = ins.split('.')[1]
    optest('hard_' + ins.replace('.', '_'), 'half', ins, ['f64'], 'b16', [(x,) for x in DV2],
           [f2f(x, 'f64', dst, mode) for x in DV2], note='one rounding from f64 (no double rounding through f32)')
IV = [0, 1, -1, 2049, 2051, 65519, 65521, -70000, 123457, (1 << 31) - 1]
for ins, t, dst in [('cvt.rz.f16.s32', 's32', 'f16'), ('cvt.rp.f16.s32', 's32', 'f16'), ('cvt.rm.bf16.s32', 's32', 'bf16'),
                    ('cvt.rn.bf16.s64', 's64', 'bf16')]:
    mode = ins.split('.')[1]
    optest('hard_' + ins.replace('.', '_'), 'half', ins, [t], 'b16', [(M64(v),) for v in IV], [i2f(v, dst, mode) for v in IV])
HI = [0x3c00, 0xbc00, 0x3e00, 0x4100, 0xc100, 0x7bff, 0xfbff, 0x7c00, 0x0001, 0x3800]
for ins, ot, nb, sg in [('cvt.rzi.s64.f16', 'u64', 64, 1), ('cvt.rmi.u16.f16', 'u16', 16, 0), ('cvt.rpi.s8.f16', 'u16', 8, 1)]:
    mode = ins.split('.')[1]
    optest('hard_' + ins.replace('.', '_'), 'half', ins, ['f16'], ot, [(x,) for x in HI],
           [M64(f2i(x, 'f16', mode, nb, sg)) & ((1 << (64 if ot == 'u64' else 16)) - 1) for x in HI])
def rint_h(b, mode, fmt='f16'):
    s, mag = decode(b, fmt)
    if mag in ('inf', NAN):
        return b
    v = rint_mode(-mag if s else mag, mode)
    return (s << 15) if v == 0 else from_val(Fr(v), fmt)
optest('hard_cvt_rni_f16_f16', 'half', 'cvt.rni.f16.f16', ['f16'], 'b16', [(x,) for x in HI], [rint_h(x, 'rni') for x in HI])
optest('hard_cvt_rn_sat_f16_f32', 'half', 'cvt.rn.sat.f16.f32', ['f32'], 'b16', [(x,) for x in HV],
       [f2f(x, 'f32', 'f16', 'rn', sat=True) for x in HV])
