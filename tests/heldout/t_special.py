# The special-value tables of the .approx instructions (§9.7.3.13-22), exactly.
SP = 'float'
NI, MZ, MS, PZ, PS, PI, NN, MN = 0xff800000, 0x80000000, 0x80000010, 0, 0x00000010, 0x7f800000, 0x7fc00000, f32(-2.0)
ONE = f32(1.0)
NANV = 0x7fffffff
tables = {
    'rcp.approx.ftz.f32': [(NI, MZ), (MZ, NI), (MS, NI), (PZ, PI), (PS, PI), (PI, PZ), (NN, NANV)],
    'rcp.approx.f32': [(NI, MZ), (MZ, NI), (PZ, PI), (PI, PZ), (NN, NANV)],
    'rsqrt.approx.ftz.f32': [(NI, NANV), (MN, NANV), (MS, NI), (MZ, NI), (PZ, PI), (PS, PI), (PI, PZ), (NN, NANV)],
    'rsqrt.approx.f32': [(NI, NANV), (MN, NANV), (MZ, NI), (PZ, PI), (PI, PZ), (NN, NANV)],
    'sin.approx.ftz.f32': [(NI, NANV), (MS, MZ), (MZ, MZ), (PZ, PZ), (PS, PZ), (PI, NANV), (NN, NANV)],
    'sin.approx.f32': [(NI, NANV), (MZ, MZ), (PZ, PZ), (PI, NANV), (NN, NANV)],
    'cos.approx.ftz.f32': [(NI, NANV), (MS, ONE), (MZ, ONE), (PZ, ONE), (PS, ONE), (PI, NANV), (NN, NANV)],
    'cos.approx.f32': [(NI, NANV), (MZ, ONE), (PZ, ONE), (PI, NANV), (NN, NANV)],
    'lg2.approx.ftz.f32': [(NI, NANV), (MN, NANV), (MS, NI), (MZ, NI), (PZ, NI), (PS, NI), (PI, PI), (NN, NANV)],
    'lg2.approx.f32': [(NI, NANV), (MN, NANV), (MZ, NI), (PZ, NI), (PI, PI), (NN, NANV)],
    'ex2.approx.ftz.f32': [(NI, PZ), (MS, ONE), (MZ, ONE), (PZ, ONE), (PS, ONE), (PI, PI), (NN, NANV)],
    'ex2.approx.f32': [(NI, PZ), (MZ, ONE), (PZ, ONE), (PI, PI), (NN, NANV)],
    'tanh.approx.f32': [(NI, f32(-1.0)), (MS, MS), (MZ, MZ), (PZ, PZ), (PS, PS), (PI, ONE), (NN, NANV)],
    'sqrt.approx.ftz.f32': [(NI, NANV), (MN, NANV), (MS, MZ), (MZ, MZ), (PZ, PZ), (PS, PZ), (PI, PI), (NN, NANV)],
}
for ins, rows in tables.items():
    optest('special_' + ins.replace('.', '_'), SP, ins, ['f32'], 'f32', [(a,) for a, _ in rows], [r for _, r in rows],
           any_nan='f32', note='special-value table of the spec (the .ftz rows for subnormals)')
D_NI, D_MZ, D_MS, D_PZ, D_PS, D_PI = 0xfff0000000000000, 1 << 63, (1 << 63) | 5, 0, 5, 0x7ff0000000000000
D_NAN = 0x7ff8000000000123
t64 = {
    'rcp.approx.ftz.f64': [(D_NI, D_MZ), (D_MZ, D_NI), (D_MS, D_NI), (D_PZ, D_PI), (D_PS, D_PI), (D_PI, D_PZ), (D_NAN, 0x7fffffff00000000)],
    'rsqrt.approx.ftz.f64': [(D_NI, 0x7fffffff00000000), (D_MS, D_NI), (D_MZ, D_NI), (D_PZ, D_PI), (D_PS, D_PI), (D_PI, D_PZ), (D_NAN, 0x7fffffff00000000)],
}
for ins, rows in t64.items():
    optest('special_' + ins.replace('.', '_'), SP, ins, ['f64'], 'b64', [(a,) for a, _ in rows], [r for _, r in rows],
           note='rcp/rsqrt.approx.ftz.f64 tables on the high word; input NaNs map to 0x7fffffff00000000 (§9.7.3.14/17)')
