# Comparison and selection (§9.7.7, §9.7.8): setp/set with every CmpOp, BoolOp, p|q, selp, slct.
F = 'compare'
SEL = '\n    selp.u32 %r10, 1, 0, %p1;'
FC = [0, 0x80000000, f32(1.0), f32(-2.0), 0x7fc00000, 0x7f800000, 0xff800000, 0x00000001]
FCP = pairs(FC, 40)
def fcmp(a, b, op):
    sa, ma = decode(a, 'f32'); sb, mb = decode(b, 'f32')
    un = ma == NAN or mb == NAN
    def v(s, m):
        m = Fr(10) ** 100 if m == 'inf' else m
        return -m if s else m
    if op == 'num': return int(not un)
    if op == 'nan': return int(un)
    base = op[:2]
    if un:
        return int(op.endswith('u') and len(op) == 3)
    x, y = v(sa, ma), v(sb, mb)
    return int({'eq': x == y, 'ne': x != y, 'lt': x < y, 'le': x <= y, 'gt': x > y, 'ge': x >= y}[base])
for op in ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'equ', 'neu', 'ltu', 'leu', 'gtu', 'geu', 'num', 'nan']:
    optest(f'setp_{op}_f32', F, f'setp.{op}.f32', ['f32', 'f32'], 'u32', FCP, dest='%p1', post=SEL, expected= [fcmp(a, b, op) for a, b in FCP])
ICV = [0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 5]
ICP = pairs(ICV, 36)
def icmp(a, b, op, signed):
    x, y = (sx(a, 32), sx(b, 32)) if signed else (a, b)
    return int({'eq': x == y, 'ne': x != y, 'lt': x < y, 'le': x <= y, 'gt': x > y, 'ge': x >= y,
                'lo': x < y, 'ls': x <= y, 'hi': x > y, 'hs': x >= y}[op])
for op, t in [('eq', 'b32'), ('ne', 's32'), ('lt', 's32'), ('le', 'u32'), ('gt', 's32'), ('ge', 'u32'),
              ('lo', 'u32'), ('ls', 'u32'), ('hi', 'u32'), ('hs', 'u32')]:
    optest(f'setp_{op}_{t}', F, f'setp.{op}.{t}', [t, t], 'u32', ICP, dest='%p1', post=SEL, expected= [icmp(a, b, op, t == 's32') for a, b in ICP])

test('setp_boolop_and_pq', F, """
    mov.f32 %f1, 0f3F800000;
    mov.f32 %f2, 0f40000000;
    mov.f32 %f3, 0f7FC00000;
    setp.lt.f32 %p1, %f1, %f2;
    setp.gt.and.f32 %p2|%p3, %f1, %f2, %p1;
    setp.gt.or.f32 %p4|%p5, %f1, %f2, %p1;
    setp.lt.xor.f32 %p6, %f1, %f2, %p1;
    setp.eq.and.f32 %p7|%p8, %f3, %f3, !%p2;
    setp.ltu.or.f32 %p9, %f3, %f1, !%p1;
    setp.ne.and.s32 %p10|%p11, 3, 4, %p1;
    selp.u32 %r1, 1, 0, %p2;
    selp.u32 %r2, 1, 0, %p3;
    selp.u32 %r3, 1, 0, %p4;
    selp.u32 %r4, 1, 0, %p5;
    selp.u32 %r5, 1, 0, %p6;
    selp.u32 %r6, 1, 0, %p7;
    selp.u32 %r7, 1, 0, %p8;
    selp.u32 %r8, 1, 0, %p9;
    selp.u32 %r9, 1, 0, %p10;
    selp.u32 %r11, 1, 0, %p11;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9', '%r11']),
     # p = (cmp) BOOLOP c; q = (!cmp) BOOLOP c  (§9.7.7.2)
     [0, 1, 1, 1, 0, 0, 1, 1, 1, 0])

test('set_forms', F, """
    setp.eq.u32 %p15, 1, 0;
    set.lt.u32.f32 %r1, 0f3F800000, 0f40000000;
    set.gt.u32.s32 %r2, -1, 1;
    set.lo.u32.u32 %r3, 1, 0xffffffff;
    set.lt.f32.s32 %f1, -1, 1;
    set.ge.f32.f32 %f2, 0f3F800000, 0f40000000;
    set.nan.u32.f32 %r4, 0f7FC00000, 0f3F800000;
    set.eq.and.u32.s32 %r5, 4, 4, %p15;
    setp.eq.u32 %p14, 1, 1;
    set.ne.or.s32.s32 %r6, 4, 4, %p14;
    set.gtu.u32.f64 %r7, 0d7FF8000000000000, 0d0000000000000000;
    mov.b32 %r8, %f1;
    mov.b32 %r9, %f2;
""" + st32(['%r1', '%r2', '%r3', '%r8', '%r9', '%r4', '%r5', '%r6', '%r7']),
     [0xffffffff, 0, 0xffffffff, f32(1.0), 0, 0xffffffff, 0, 0xffffffff, 0xffffffff],
     note='set: 0xffffffff / 1.0f for true (§9.7.7.1)')

test('selp_slct', F, """
    setp.ne.u32 %p1, 0, 1;
    selp.b32 %r1, 7, 9, %p1;
    selp.s32 %r2, -7, 9, !%p1;
    selp.f32 %f1, 0f3F800000, 0fBF800000, %p1;
    selp.b64 %rd1, 0x123456789, 5, %p1;
    selp.u16 %rs1, 0xabcd, 1, %p1;
    slct.u32.s32 %r3, 10, 20, -1;
    slct.u32.s32 %r4, 10, 20, 0;
    slct.s32.f32 %r5, 10, 20, 0f80000000;
    slct.s32.f32 %r6, 10, 20, 0fBF800000;
    slct.f32.s32 %f2, 0f3F800000, 0f40000000, -5;
    slct.ftz.u32.f32 %r7, 10, 20, 0f80000001;
    slct.u32.f32 %r8, 10, 20, 0f80000001;
    mov.b32 %r9, %f1;
    mov.b32 %r10, %f2;
    cvt.u32.u64 %r11, %rd1;
    cvt.u32.u16 %r12, %rs1;
""" + st32(['%r1', '%r2', '%r9', '%r11', '%r12', '%r3', '%r4', '%r5', '%r6', '%r10', '%r7', '%r8']),
     [7, 9, f32(1.0), 0x23456789, 0xabcd, 20, 10, 10, 20, f32(2.0), 10, 20],
     note='slct: d = c >= 0 ? a : b; -0.0 >= 0; .ftz flushes c (§9.7.7.4)')

# half setp/set (§9.7.8)
def hcmp(a, b, op, fmt='f16'):
    sa, ma = decode(a, fmt); sb, mb = decode(b, fmt)
    if ma == NAN or mb == NAN:
        return int(op in ('equ', 'neu', 'ltu', 'leu', 'gtu', 'geu', 'nan'))
    if op == 'nan': return 0
    if op == 'num': return 1
    def v(s, m):
        m = Fr(10) ** 100 if m == 'inf' else m
        return -m if s else m
    x, y = v(sa, ma), v(sb, mb)
    return int({'eq': x == y, 'ne': x != y, 'lt': x < y, 'le': x <= y, 'gt': x > y, 'ge': x >= y}[op[:2]])
HCP = pairs([0, 0x8000, 0x3c00, 0xc000, 0x7e00, 0x7c00, 0x0001], 30)
for op in ['lt', 'equ', 'ge', 'nan']:
    optest(f'setp_{op}_f16', F, f'setp.{op}.f16', ['f16', 'f16'], 'u32', HCP, dest='%p1', post=SEL,
           expected=[hcmp(a, b, op) for a, b in HCP])
BCP = pairs([0, 0x8000, 0x3f80, 0xc000, 0x7fc0, 0xff80], 20)
optest('setp_gtu_bf16', F, 'setp.gtu.bf16', ['bf16', 'bf16'], 'u32', BCP, dest='%p1', post=SEL,
       expected=[hcmp(a, b, 'gtu', 'bf16') for a, b in BCP])
H2C = [((a << 16) | b, (b << 16) | a) for a, b in HCP[:20]]
optest('setp_lt_f16x2_pq', F, 'setp.lt.f16x2', ['f16x2', 'f16x2'], 'u32', H2C, dest='%p1|%p2',
       post='\n    selp.u32 %r10, 1, 0, %p1;\n    selp.u32 %r11, 2, 0, %p2;\n    or.b32 %r10, %r10, %r11;',
       expected=[hcmp(a & 0xffff, b & 0xffff, 'lt') | (hcmp(a >> 16, b >> 16, 'lt') << 1) for a, b in H2C],
       note='p from the lower halves, q from the upper (§9.7.8.2 semantics)')
optest('set_lt_u32_f16x2', F, 'set.lt.u32.f16x2', ['f16x2', 'f16x2'], 'u32', H2C,
       expected=[(0xffff0000 if hcmp(a >> 16, b >> 16, 'lt') else 0) | (0xffff if hcmp(a & 0xffff, b & 0xffff, 'lt') else 0) for a, b in H2C])
optest('set_ge_f16x2_f16x2', F, 'set.ge.f16x2.f16x2', ['f16x2', 'f16x2'], 'u32', H2C,
       expected=[(0x3c000000 if hcmp(a >> 16, b >> 16, 'ge') else 0) | (0x3c00 if hcmp(a & 0xffff, b & 0xffff, 'ge') else 0) for a, b in H2C])
optest('set_eq_f16_f16', F, 'set.eq.f16.f16', ['f16', 'f16'], 'b16', HCP,
       expected=[0x3c00 if hcmp(a, b, 'eq') else 0 for a, b in HCP])
