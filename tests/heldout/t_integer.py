# Integer family (§9.7.1, §9.7.2). Expected values computed by hand / Python ints here.
F = 'integer'
test('int_add_sub_wrap', F, """
    mov.u32 %r1, 0xFFFFFFFF;
    add.u32 %r2, %r1, 2;
    mov.b32 %r3, 0x7fffffff;
    add.s32 %r4, %r3, 1;
    sub.u32 %r5, 0, 1;
    add.s32 %r6, %r3, -5;
    sub.s32 %r7, -3, %r3;
    mov.u32 %r8, 017;
    add.u32 %r9, %r8, 0b101;
    add.u32 %r10, %r8, 10U;
""" + st32(['%r2', '%r4', '%r5', '%r6', '%r7', '%r9', '%r10']),
     [1, 0x80000000, 0xffffffff, 0x7ffffffa, M32(-3 - 0x7fffffff), 15 + 5, 25])

test('int_add_16_64', F, """
    mov.u16 %rs1, 0xFFFF;
    add.u16 %rs2, %rs1, 3;
    mov.b16 %rs3, -2;
    sub.s16 %rs4, %rs3, 32767;
    cvt.u32.u16 %r1, %rs2;
    cvt.u32.u16 %r2, %rs4;
    mov.u64 %rd1, 0xFFFFFFFFFFFFFFFF;
    add.u64 %rd2, %rd1, 2;
    mov.b64 %rd3, 0x00000000FFFFFFFF;
    add.s64 %rd4, %rd3, 1;
    sub.s64 %rd5, 0, %rd4;
    cvt.u32.u64 %r3, %rd4;
    shr.u64 %rd6, %rd4, 32;
    cvt.u32.u64 %r4, %rd6;
    cvt.u32.u64 %r5, %rd5;
    shr.b64 %rd7, %rd5, 32;
    cvt.u32.u64 %r6, %rd7;
    cvt.u32.u64 %r7, %rd2;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7']),
     [2, M16(-2 - 32767), 0, 1, 0, 0xffffffff, 1])

test('int_add_sat', F, """
    mov.s32 %r1, 0x7fffffff;
    add.sat.s32 %r2, %r1, 1;
    mov.s32 %r3, 0x80000000;
    sub.sat.s32 %r4, %r3, 1;
    add.sat.s32 %r5, -5, 3;
    sub.sat.s32 %r6, %r1, -1;
    add.sat.s32 %r7, %r3, %r3;
""" + st32(['%r2', '%r4', '%r5', '%r6', '%r7']),
     [0x7fffffff, 0x80000000, M32(-2), 0x7fffffff, 0x80000000])

# 96-bit add: 0x00000001_FFFFFFFF_FFFFFFFF + 0x00000002_00000000_00000001
test('carry_add_chain_96', F, """
    mov.u32 %r1, 0xffffffff;
    mov.u32 %r2, 0xffffffff;
    mov.u32 %r3, 1;
    add.cc.u32 %r10, %r1, 1;
    addc.cc.u32 %r11, %r2, 0;
    addc.u32 %r12, %r3, 2;
""" + st32(['%r10', '%r11', '%r12']), [0, 0, 4])

test('carry_sub_chain', F, """
    mov.b32 %r1, 0;
    mov.b32 %r2, 5;
    sub.cc.u32 %r10, %r1, 1;
    subc.cc.u32 %r11, %r2, 2;
    subc.u32 %r12, 7, 7;
    sub.cc.u32 %r13, 9, 4;
    subc.u32 %r14, 9, 4;
""" + st32(['%r10', '%r11', '%r12', '%r13', '%r14']), [0xffffffff, 2, 0, 5, 5])

test('carry_add_s32_alias_and_no_carry', F, """
    add.cc.s32 %r1, 1, 2;
    addc.s32 %r2, 10, 20;
    add.cc.u32 %r3, 0x80000000, 0x80000000;
    addc.u32 %r4, 0, 0;
""" + st32(['%r1', '%r2', '%r3', '%r4']), [3, 30, 0, 1])

test('carry_64', F, """
    mov.u64 %rd1, 0xffffffffffffffff;
    add.cc.u64 %rd2, %rd1, 1;
    addc.u64 %rd3, 5, 0;
    sub.cc.u64 %rd4, 0, 1;
    subc.u64 %rd5, 5, 0;
""" + st64(['%rd2', '%rd3', '%rd4', '%rd5']), [0, 6, M64(-1), 4], etype='u64')

# mad.cc: 0xffffffff*0xffffffff = 0xfffffffe_00000001; lo + 0xffffffff -> 0x1_00000000 carry 1
test('carry_mad_chain', F, """
    mov.u32 %r1, 0xffffffff;
    mad.lo.cc.u32 %r2, %r1, %r1, %r1;
    madc.hi.u32 %r3, %r1, %r1, 0;
    mad.hi.cc.u32 %r4, %r1, %r1, 2;
    madc.lo.cc.u32 %r5, 3, 4, 5;
    addc.u32 %r6, 0, 0;
""" + st32(['%r2', '%r3', '%r4', '%r5', '%r6']),
     [0, 0xfffffffe + 1, 0, 3 * 4 + 5 + 1, 0])

test('carry_across_branch', F, """
    mov.u32 %r1, 0xffffffff;
    add.cc.u32 %r2, %r1, %r1;
    bra.uni $L__next;
$L__next:
    addc.u32 %r3, 0, 0;
""" + st32(['%r2', '%r3']), [0xfffffffe, 1])

test('mul_lo_hi_wide', F, """
    mov.u32 %r1, 0xffffffff;
    mul.lo.u32 %r2, %r1, %r1;
    mul.hi.u32 %r3, %r1, %r1;
    mul.hi.s32 %r4, %r1, 1;
    mul.lo.s32 %r5, -7, 6;
    mul.wide.u32 %rd1, %r1, %r1;
    mul.wide.s32 %rd2, -2, 3;
    mov.u16 %rs1, 0xffff;
    mul.wide.u16 %r6, %rs1, %rs1;
    mul.wide.s16 %r7, %rs1, %rs1;
    mul.hi.u16 %rs2, %rs1, %rs1;
    cvt.u32.u16 %r8, %rs2;
""" + st32(['%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8']) + "\n" + st64(['%rd1', '%rd2'], base=4),
     [1, 0xfffffffe, 0xffffffff, M32(-42), 0xfffe0001, 1, 0xfffe, 0,
      1, 0xfffffffe, M32(-6), 0xffffffff])

A64 = 0x0123456789abcdef
B64 = 0xfedcba9876543210
test('mul_64', F, f"""
    mov.u64 %rd1, {hex(A64)};
    mov.u64 %rd2, {hex(B64)};
    mul.lo.u64 %rd3, %rd1, %rd2;
    mul.hi.u64 %rd4, %rd1, %rd2;
    mul.hi.s64 %rd5, %rd1, %rd2;
    mul.lo.s64 %rd6, %rd2, -1;
""" + st64(['%rd3', '%rd4', '%rd5', '%rd6']),
     [M64(A64 * B64), (A64 * B64) >> 64, M64((A64 * sx(B64, 64)) >> 64), M64(-sx(B64, 64))], etype='u64')

test('mad_lo_hi_wide_sat', F, """
    mad.lo.s32 %r1, 7, -3, 100;
    mov.u32 %r9, 0x80000000;
    mad.hi.u32 %r2, %r9, 4, 5;
    mad.wide.u32 %rd1, %r9, 4, 0x100000000;
    mov.s32 %r10, 0x7fffffff;
    mad.hi.sat.s32 %r3, %r10, %r10, %r10;
    mad.hi.sat.s32 %r4, %r9, %r10, %r9;
    mad.hi.s32 %r5, %r10, %r10, %r10;
    mad.wide.s32 %rd2, -1, 5, 2;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5']) + "\n" + st64(['%rd1', '%rd2'], base=3),
     [79, 2 + 5, 0x7fffffff, 0x80000000, M32(0x3fffffff + 0x7fffffff), 0,
      M32(0x200000000 + 0x100000000), (0x300000000 >> 32), M32(-3), 0xffffffff])

# mul24: operands are the low 24 bits (sign-extended for .s32)
test('mul24_mad24', F, """
    mov.u32 %r1, 0x01000003;
    mul24.lo.u32 %r2, %r1, 2;
    mov.u32 %r3, 0x00ffffff;
    mul24.hi.u32 %r4, %r3, %r3;
    mul24.lo.s32 %r5, %r3, 5;
    mul24.hi.s32 %r6, %r3, %r3;
    mad24.lo.u32 %r7, 3, 4, 5;
    mad24.lo.s32 %r8, %r3, 2, 10;
    mad24.hi.u32 %r9, %r3, %r3, 1;
""" + st32(['%r2', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9']),
     [6, (0xffffff * 0xffffff) >> 16, M32(-5), M32(1 >> 16), 17, 8, ((0xffffff * 0xffffff) >> 16) + 1])

test('sad_div_rem', F, """
    sad.u32 %r1, 3, 10, 100;
    sad.s32 %r2, -3, 4, 1;
    sad.u32 %r3, 0xffffffff, 0, 1;
    div.u32 %r4, 7, 2;
    div.s32 %r5, -7, 2;
    rem.s32 %r6, -7, 2;
    rem.u32 %r7, 0xffffffff, 10;
    div.s32 %r8, 7, -2;
    rem.s32 %r9, 7, -2;
    mov.u64 %rd1, 0xffffffffffffffff;
    div.u64 %rd2, %rd1, 3;
    div.s64 %rd3, %rd1, 3;
    rem.s64 %rd4, -10, 3;
    cvt.u32.u64 %r10, %rd2;
    cvt.u32.u64 %r11, %rd3;
    cvt.u32.u64 %r12, %rd4;
    mov.u16 %rs1, 100;
    div.s16 %rs2, %rs1, -7;
    rem.u16 %rs3, %rs1, 7;
    cvt.s32.s16 %r13, %rs2;
    cvt.u32.u16 %r14, %rs3;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9', '%r10', '%r11', '%r12', '%r13', '%r14']),
     [107, 8, 0, 3, M32(-3), M32(-1), 0xffffffff % 10, M32(-3), 1, M32(0xffffffffffffffff // 3), 0,
      M32(-1), M32(-14), 2])

test('abs_neg_min_max', F, """
    abs.s32 %r1, -5;
    mov.b32 %r9, 0x80000000;
    abs.s32 %r2, %r9;
    neg.s32 %r3, %r9;
    neg.s32 %r4, 7;
    mov.s16 %rs1, -300;
    abs.s16 %rs2, %rs1;
    cvt.u32.u16 %r5, %rs2;
    mov.s64 %rd1, -9;
    neg.s64 %rd2, %rd1;
    abs.s64 %rd3, %rd1;
    cvt.u32.u64 %r6, %rd2;
    cvt.u32.u64 %r7, %rd3;
    min.u32 %r8, 0xffffffff, 3;
    min.s32 %r10, 0xffffffff, 3;
    max.s32 %r11, -8, -9;
    max.u32 %r12, -8, -9;
    min.s16 %rs3, %rs1, 5;
    cvt.s32.s16 %r13, %rs3;
    max.u64 %rd4, %rd1, 1;
    cvt.u32.u64 %r14, %rd4;
    min.s64 %rd5, %rd1, 1;
    cvt.u32.u64 %r15, %rd5;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r10', '%r11', '%r12', '%r13', '%r14', '%r15']),
     [5, 0x80000000, 0x80000000, M32(-7), 300, 9, 9, 3, 0xffffffff, M32(-8), M32(-8), M32(-300), M32(-9), M32(-9)])

test('max_min_relu', F, """
    max.relu.s32 %r1, -5, -7;
    max.relu.s32 %r2, -5, 7;
    min.relu.s32 %r3, -5, 7;
    min.relu.s32 %r4, 5, 7;
""" + st32(['%r1', '%r2', '%r3', '%r4']), [0, 7, 0, 5])

def popc(x): return bin(x).count('1')
test('popc_clz_brev', F, """
    popc.b32 %r1, 0xf0f00001;
    mov.b64 %rd1, 0xffffffffffffffff;
    popc.b64 %r2, %rd1;
    clz.b32 %r3, 0;
    clz.b32 %r4, 0x00010000;
    clz.b64 %r5, 1;
    brev.b32 %r6, 0x00000001;
    brev.b32 %r7, 0x12345678;
    mov.b64 %rd2, 0x3;
    brev.b64 %rd3, %rd2;
    cvt.u32.u64 %r8, %rd3;
    shr.u64 %rd4, %rd3, 32;
    cvt.u32.u64 %r9, %rd4;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9']),
     [popc(0xf0f00001), 64, 32, 15, 63, 0x80000000, int('{:032b}'.format(0x12345678)[::-1], 2), 0, 0xc0000000])

test('bfind_shiftamt', F, """
    bfind.u32 %r1, 0;
    bfind.u32 %r2, 0x00012345;
    bfind.s32 %r3, -1;
    bfind.s32 %r4, 0xffff0000;
    bfind.shiftamt.u32 %r5, 0x00012345;
    bfind.shiftamt.u32 %r6, 0;
    mov.b64 %rd1, 0x0000010000000000;
    bfind.u64 %r7, %rd1;
    bfind.shiftamt.s64 %r8, %rd1;
    mov.s64 %rd2, -2;
    bfind.s64 %r9, %rd2;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9']),
     [0xffffffff, 16, 0xffffffff, 15, 15, 0xffffffff, 40, 23, 0])

test('fns_spec_examples', F, """
    fns.b32 %r1, 0xaaaaaaaa, 3, 1;
    fns.b32 %r2, 0xaaaaaaaa, 3, -1;
    fns.b32 %r3, 0xaaaaaaaa, 2, 1;
    fns.b32 %r4, 0xaaaaaaaa, 2, -1;
    fns.b32 %r5, 0xaaaaaaaa, 2, 0;
    fns.b32 %r6, 0xaaaaaaaa, 1, 3;
    fns.b32 %r7, 0x80000001, 1, 2;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7']),
     [3, 3, 3, 1, 0xffffffff, 5, 0xffffffff])

def bfe(a, pos, ln, msb, signed):
    pos &= 0xff; ln &= 0xff
    sbit = 0 if (not signed or ln == 0) else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(msb + 1):
        bit = ((a >> (pos + i)) & 1) if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return d
test('bfe_32_64', F, """
    bfe.u32 %r1, 0x12345678, 8, 8;
    bfe.s32 %r2, 0x0000f000, 12, 4;
    bfe.s32 %r3, 0x0000f000, 12, 0;
    bfe.u32 %r4, 0x87654321, 28, 10;
    bfe.s32 %r5, 0x87654321, 28, 10;
    bfe.s32 %r6, 0x87654321, 40, 3;
    mov.b64 %rd1, 0x8000000000000000;
    bfe.s64 %rd2, %rd1, 60, 8;
    bfe.u64 %rd3, %rd1, 63, 1;
    cvt.u32.u64 %r7, %rd2;
    cvt.u32.u64 %r8, %rd3;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8']),
     [bfe(0x12345678, 8, 8, 31, 0), bfe(0xf000, 12, 4, 31, 1), 0, bfe(0x87654321, 28, 10, 31, 0),
      bfe(0x87654321, 28, 10, 31, 1), bfe(0x87654321, 40, 3, 31, 1),
      M32(bfe(1 << 63, 60, 8, 63, 1)), 1])

test('bfe_b32_as_in_spec_example', F, """
    bfe.b32 %r1, 0x12345678, 4, 8;
""" + st32(['%r1']), [0x67], note='§9.7.1.19 example writes bfe.b32 (the syntax lists .u32/.s32)')

def bfi(a, b, pos, ln, msb):
    pos &= 0xff; ln &= 0xff
    f = b
    i = 0
    while i < ln and pos + i <= msb:
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        i += 1
    return f
test('bfi_32_64', F, """
    bfi.b32 %r1, 0xab, 0x12345678, 8, 8;
    bfi.b32 %r2, 0xff, 0, 28, 8;
    bfi.b32 %r3, 0xff, 7, 0, 0;
    bfi.b32 %r4, 0xff, 7, 40, 4;
    mov.b64 %rd1, 0xffff;
    bfi.b64 %rd2, %rd1, 0, 56, 16;
    shr.u64 %rd3, %rd2, 32;
    cvt.u32.u64 %r5, %rd3;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5']),
     [bfi(0xab, 0x12345678, 8, 8, 31), bfi(0xff, 0, 28, 8, 31), 7, 7, bfi(0xffff, 0, 56, 16, 63) >> 32])

def szext(a, b, clamp, signed):
    b1 = b & 31
    too_large = b >= 32 and clamp
    mask = 0 if too_large else M32(~0 << b1)
    sign_bit = 0 if (b1 == 0 or too_large or not signed) else (a >> ((b1 - 1) & 31)) & 1
    return M32((a & ~mask) | (mask if sign_bit else 0))
def bmsk(a, b, clamp):
    a1 = a & 31; mask0 = M32(~0 << a1); b1 = b & 31; s = a1 + b1
    mask1 = M32(~0 << s) if s < 32 else 0
    ov = s >= 32; bpo = False; bwo = False
    if clamp:
        if a >= 32:
            bpo = True; mask0 = 0
        if b >= 32:
            bwo = True
    if ov or bpo or bwo:
        mask1 = 0
    elif b1 == 0:
        mask1 = 0xffffffff
    return M32(mask0 & ~mask1)
test('szext_bmsk', F, """
    szext.clamp.s32 %r1, 0xff, 8;
    szext.wrap.u32 %r2, 0x1ff, 8;
    szext.wrap.u32 %r3, 0xffffffff, 0;
    szext.clamp.s32 %r4, 0x80, 40;
    szext.wrap.s32 %r5, 0x80, 40;
    bmsk.clamp.b32 %r6, 4, 8;
    bmsk.wrap.b32 %r7, 1, 2;
    bmsk.clamp.b32 %r8, 0, 32;
    bmsk.wrap.b32 %r9, 0, 33;
    bmsk.clamp.b32 %r10, 33, 2;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9', '%r10']),
     [szext(0xff, 8, 1, 1), szext(0x1ff, 8, 0, 0), 0, szext(0x80, 40, 1, 1), szext(0x80, 40, 0, 1),
      bmsk(4, 8, 1), 6, bmsk(0, 32, 1), bmsk(0, 33, 0), bmsk(33, 2, 1)])

def bytes_(x, signed):
    return [sx(x >> (8 * i), 8) if signed else (x >> (8 * i)) & 0xff for i in range(4)]
def halves(x, signed):
    return [sx(x >> (16 * i), 16) if signed else (x >> (16 * i)) & 0xffff for i in range(2)]
def dp4a(a, b, c, sa, sb):
    return M32(c + sum(x * y for x, y in zip(bytes_(a, sa), bytes_(b, sb))))
def dp2a(a, b, c, sa, sb, hi):
    vb = bytes_(b, sb)[2 if hi else 0:][:2]
    return M32(c + sum(x * y for x, y in zip(halves(a, sa), vb)))
DA, DB = 0x80ff7f01, 0x02fe81ff
test('dp4a_dp2a', F, f"""
    mov.b32 %r1, {hex(DA)};
    mov.b32 %r2, {hex(DB)};
    dp4a.u32.u32 %r3, %r1, %r2, 5;
    dp4a.s32.s32 %r4, %r1, %r2, -5;
    dp4a.u32.s32 %r5, %r1, %r2, 0;
    dp4a.s32.u32 %r6, %r1, %r2, 0;
    dp2a.lo.u32.u32 %r7, %r1, %r2, 1;
    dp2a.hi.s32.s32 %r8, %r1, %r2, 1;
    dp2a.lo.s32.u32 %r9, %r1, %r2, 0;
    dp2a.hi.u32.s32 %r10, %r1, %r2, 0;
""" + st32(['%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9', '%r10']),
     [dp4a(DA, DB, 5, 0, 0), dp4a(DA, DB, -5, 1, 1), dp4a(DA, DB, 0, 0, 1), dp4a(DA, DB, 0, 1, 0),
      dp2a(DA, DB, 1, 0, 0, 0), dp2a(DA, DB, 1, 1, 1, 1), dp2a(DA, DB, 0, 1, 0, 0), dp2a(DA, DB, 0, 0, 1, 1)])

test('int_16bit_ops', F, """
    mov.u16 %rs1, 0x8001;
    mul.lo.u16 %rs2, %rs1, 3;
    shl.b16 %rs3, %rs1, 1;
    shr.s16 %rs4, %rs1, 4;
    shr.u16 %rs5, %rs1, 4;
    and.b16 %rs6, %rs1, 0xff;
    not.b16 %rs7, %rs1;
""" + st16(['%rs2', '%rs3', '%rs4', '%rs5', '%rs6', '%rs7']),
     [M16(0x8001 * 3), 2, M16(sx(0x8001, 16) >> 4), 0x800, 1, 0x7ffe], etype='u16')
