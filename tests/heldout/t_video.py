# Video instructions (§9.7.18): a few scalar and SIMD forms, semantics from the spec text.
F = 'video'
def vsel(x, sel, signed):
    # byte/half selector: b0..b3 / h0,h1; default whole word
    if sel is None:
        return sx(x, 32) if signed else x & 0xffffffff
    if sel[0] == 'b':
        v = (x >> (8 * int(sel[1]))) & 0xff
        return sx(v, 8) if signed else v
    v = (x >> (16 * int(sel[1]))) & 0xffff
    return sx(v, 16) if signed else v
def sat(v, signed):
    lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, (1 << 32) - 1)
    return min(max(v, lo), hi)
VA, VB, VC = 0x80ff7f05, 0x01fe8003, 100
test('video_scalar', F, f"""
    mov.b32 %r1, {hex(VA)};
    mov.b32 %r2, {hex(VB)};
    vadd.u32.u32.u32 %r3, %r1, %r2;
    vsub.s32.s32.s32 %r4, %r1.b1, %r2.b3;
    vabsdiff.u32.u32.u32 %r5, %r1.b0, %r2.b0;
    vmin.s32.s32.s32 %r6, %r1.h1, %r2.h1;
    vmax.u32.u32.u32 %r7, %r1.b2, %r2.b2;
    vadd.s32.s32.s32.sat %r8, %r1, %r1;
    vadd.u32.u32.u32.add %r9, %r1.b0, %r2.b0, {VC};
    vsub.s32.u32.u32.min %r10, %r1.b0, %r2.b0, -5;
    vshl.u32.u32.u32.clamp %r11, %r1, 40;
    vshr.u32.u32.u32.wrap %r12, %r1, 36;
    vset.u32.u32.lt %r13, %r1.b0, %r2.b0;
    vset.s32.s32.ne.add %r14, %r1, %r2, 7;
""" + st32(['%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9', '%r10', '%r11', '%r12', '%r13', '%r14']),
     [M32(VA + VB), M32(vsel(VA, 'b1', 1) - vsel(VB, 'b3', 1)), abs(5 - 3), M32(min(vsel(VA, 'h1', 1), vsel(VB, 'h1', 1))),
      max(0xff, 0xfe), M32(sat(2 * sx(VA, 32), 1)), 5 + 3 + VC, M32(min(5 - 3, -5)), 0, M32(VA >> 4), 0, 1 + 7],
     note='§9.7.18.1: operands sign/zero-extended by type and selector, 33-bit intermediate; clamp: shift >= 32 gives 0 for vshl; wrap: shift mod 32')
def simd2(a, b, fn, signed):
    r = 0
    for i in range(2):
        x, y = vsel(a, f'h{i}', signed), vsel(b, f'h{i}', signed)
        r |= (fn(x, y) & 0xffff) << (16 * i)
    return r
def simd4(a, b, fn, signed):
    r = 0
    for i in range(4):
        x, y = vsel(a, f'b{i}', signed), vsel(b, f'b{i}', signed)
        r |= (fn(x, y) & 0xff) << (8 * i)
    return r
test('video_simd', F, f"""
    mov.b32 %r1, {hex(VA)};
    mov.b32 %r2, {hex(VB)};
    vadd2.u32.u32.u32 %r3, %r1, %r2, 0;
    vsub4.s32.s32.s32 %r4, %r1, %r2, 0;
    vabsdiff4.u32.u32.u32 %r5, %r1, %r2, 0;
    vmin2.s32.s32.s32 %r6, %r1, %r2, 0;
    vmax4.u32.u32.u32 %r7, %r1, %r2, 0;
    vavrg2.u32.u32.u32 %r8, %r1, %r2, 0;
    vadd4.u32.u32.u32.add %r9, %r1, %r2, 10;
""" + st32(['%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9']),
     [simd2(VA, VB, lambda x, y: x + y, 0), simd4(VA, VB, lambda x, y: x - y, 1), simd4(VA, VB, lambda x, y: abs(x - y), 0),
      simd2(VA, VB, min, 1), simd4(VA, VB, max, 0), simd2(VA, VB, lambda x, y: (x + y + 1) >> 1, 0),
      M32(10 + sum(vsel(VA, f'b{i}', 0) + vsel(VB, f'b{i}', 0) for i in range(4)))],
     note='§9.7.18.2: with c = 0 and no mask the result lanes are the per-lane op; .add sums the lanes into c')
