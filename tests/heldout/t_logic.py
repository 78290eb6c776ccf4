# Logic and shift (§9.7.9).
F = 'logic'
def lop3(a, b, c, lut):
    r = 0
    for i in range(32):
        idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1)
        # ta = 0xF0, tb = 0xCC, tc = 0xAA (§9.7.9.6): bit index = a*4 + b*2 + c
        r |= ((lut >> idx) & 1) << i
    return r
LA, LB, LC = 0xf0f0ff00, 0xcccc0f0f, 0xaaaa3c3c
test('and_or_xor_not_cnot', F, f"""
    mov.b32 %r1, {hex(LA)};
    mov.b32 %r2, {hex(LB)};
    and.b32 %r3, %r1, %r2;
    or.b32 %r4, %r1, %r2;
    xor.b32 %r5, %r1, %r2;
    not.b32 %r6, %r1;
    cnot.b32 %r7, %r1;
    cnot.b32 %r8, 0;
    mov.b64 %rd1, 0xffffffff00000000;
    not.b64 %rd2, %rd1;
    and.b64 %rd3, %rd1, 0x1234567887654321;
    cvt.u32.u64 %r9, %rd2;
    shr.u64 %rd4, %rd3, 32;
    cvt.u32.u64 %r10, %rd4;
    mov.b16 %rs1, 0x00ff;
    xor.b16 %rs2, %rs1, 0x0ff0;
    cnot.b16 %rs3, %rs1;
    cvt.u32.u16 %r11, %rs2;
    cvt.u32.u16 %r12, %rs3;
    and.b32 %r13, %r1, -256;
    or.b32 %r14, %r1, 0x0000000F;
""" + st32(['%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9', '%r10', '%r11', '%r12', '%r13', '%r14']),
     [LA & LB, LA | LB, LA ^ LB, M32(~LA), 0, 1, 0xffffffff, 0x12345678, 0x0f0f, 0, LA & M32(-256), LA | 0xf])
test('lop3_tables', F, f"""
    mov.b32 %r1, {hex(LA)};
    mov.b32 %r2, {hex(LB)};
    mov.b32 %r3, {hex(LC)};
    lop3.b32 %r4, %r1, %r2, %r3, 0x96;
    lop3.b32 %r5, %r1, %r2, %r3, 0xE8;
    lop3.b32 %r6, %r1, %r2, %r3, 0x80;
    lop3.b32 %r7, %r1, %r2, %r3, 0x1;
    lop3.b32 %r8, %r1, %r2, %r3, 0xF0 & 0xCC | 0xAA;
    lop3.b32 %r9, %r1, %r2, %r3, 0x0;
    lop3.b32 %r10, %r1, %r2, %r3, 0xff;
""" + st32(['%r4', '%r5', '%r6', '%r7', '%r8', '%r9', '%r10']),
     [lop3(LA, LB, LC, l) for l in [0x96, 0xe8, 0x80, 0x1, (0xf0 & 0xcc) | 0xaa, 0, 0xff]],
     note='immLut given as an expression of ta/tb/tc constants (§9.7.9.6 example style)')
def shf(a, b, n, left, clamp):
    n = min(n, 32) if clamp else n & 31
    v = (b << 32) | a
    return ((v << n) >> 32) & 0xffffffff if left else (v >> n) & 0xffffffff
SA, SB = 0x89abcdef, 0x01234567
test('shf_modes', F, f"""
    mov.b32 %r1, {hex(SA)};
    mov.b32 %r2, {hex(SB)};
    shf.l.wrap.b32 %r3, %r1, %r2, 4;
    shf.l.wrap.b32 %r4, %r1, %r2, 36;
    shf.l.clamp.b32 %r5, %r1, %r2, 36;
    shf.r.wrap.b32 %r6, %r1, %r2, 8;
    shf.r.clamp.b32 %r7, %r1, %r2, 40;
    shf.r.wrap.b32 %r8, %r1, %r2, 40;
    shf.l.clamp.b32 %r9, %r1, %r2, 0;
""" + st32(['%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9']),
     [shf(SA, SB, 4, 1, 0), shf(SA, SB, 36, 1, 0), shf(SA, SB, 36, 1, 1), shf(SA, SB, 8, 0, 0),
      shf(SA, SB, 40, 0, 1), shf(SA, SB, 40, 0, 0), shf(SA, SB, 0, 1, 1)])
test('shl_shr_out_of_range', F, """
    mov.b32 %r1, 0x80000001;
    mov.u32 %r20, 32;
    mov.u32 %r21, 100;
    shl.b32 %r2, %r1, %r20;
    shr.u32 %r3, %r1, %r21;
    shr.s32 %r4, %r1, %r20;
    shr.s32 %r5, %r1, 31;
    shl.b32 %r6, %r1, 1;
    shr.b32 %r7, %r1, 1;
    mov.b64 %rd1, 0x8000000000000001;
    mov.u32 %r22, 64;
    shl.b64 %rd2, %rd1, %r22;
    shr.s64 %rd3, %rd1, %r22;
    shr.u64 %rd4, %rd1, 63;
    shl.b64 %rd5, %rd1, 4;
    cvt.u32.u64 %r8, %rd2;
    cvt.u32.u64 %r9, %rd3;
    cvt.u32.u64 %r10, %rd4;
    cvt.u32.u64 %r11, %rd5;
    mov.b16 %rs1, 0x8001;
    mov.u32 %r23, 16;
    shl.b16 %rs2, %rs1, %r23;
    shr.s16 %rs3, %rs1, %r23;
    cvt.u32.u16 %r12, %rs2;
    cvt.u32.u16 %r13, %rs3;
    mov.u32 %r24, 0xffffffff;
    shr.u32 %r14, %r1, %r24;
""" + st32(['%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9', '%r10', '%r11', '%r12', '%r13', '%r14']),
     [0, 0, 0xffffffff, 0xffffffff, 2, 0x40000000, 0, 0xffffffff, 1, 0x10, 0, 0xffff, 0],
     note='shift amounts > width clamp (§9.7.9.7/8: "Shift amounts greater than the register width N are clamped to N")')
test('predicate_logic', F, """
    setp.eq.u32 %p1, 1, 1;
    setp.eq.u32 %p2, 1, 0;
    and.pred %p3, %p1, %p2;
    or.pred %p4, %p1, %p2;
    xor.pred %p5, %p1, %p1;
    not.pred %p6, %p2;
    mov.pred %p7, %p1;
    not.pred %p9, %p2;
    and.pred %p8, %p1, %p9;
    mov.u32 %r1, 0;
    mov.u32 %r2, 0;
@%p1 mov.u32 %r1, 11;
@!%p1 mov.u32 %r2, 22;
    selp.u32 %r3, 1, 0, %p3;
    selp.u32 %r4, 1, 0, %p4;
    selp.u32 %r5, 1, 0, %p5;
    selp.u32 %r6, 1, 0, %p6;
    selp.u32 %r7, 1, 0, %p7;
    selp.u32 %r8, 1, 0, %p8;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8']),
     [11, 0, 0, 1, 0, 1, 1, 1],)
