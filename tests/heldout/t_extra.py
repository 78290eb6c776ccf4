# A second pass over the Scope list: packed 16-bit integers, half .approx bounds, f64 .approx,
# 64-bit extended precision, video SIMD masks and vmad, 32-bit module initializers.
def approx_h(name, instr, fmt, xs, ref, tol_fn, note):
    words = []
    for x in xs:
        xv = float(val(x, fmt))
        y = ref(xv)
        words += [hex(x), hex(f64(y)), hex(f64(tol_fn(xv, y)))]
    body = f"""    ld.param.u64 %rd24, [k_param_1];
    cvta.to.global.u64 %rd24, %rd24;
    mov.u32 %r20, 0;
$L__loop:
    mul.wide.u32 %rd20, %r20, 24;
    add.s64 %rd21, %rd24, %rd20;
    ld.global.b16 %rs1, [%rd21];
    ld.global.f64 %fd3, [%rd21+8];
    ld.global.f64 %fd4, [%rd21+16];
    {instr} %rs2, %rs1;
    cvt.f32.{fmt} %f2, %rs2;
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
    test(name, 'half', ptx=HEADER.format(version='8.5', target='sm_90') + """
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)
{
""" + REGS + """
    ld.param.u64 %rd0, [k_param_0];
    cvta.to.global.u64 %rd0, %rd0;
""" + body + "\n    ret;\n}\n", expect=[1] * len(xs), buffers={'in': {'type': 'u64', 'values': words}},
         args=[{'buffer': 'out'}, {'buffer': 'in'}], note=note)
hx = [from_val(Fr(i - 12, 4), 'f16') if i != 12 else 0 for i in range(25)]
bx = [from_val(Fr(i - 12, 4), 'bf16') if i != 12 else 0 for i in range(25)]
approx_h('approx_tanh_f16', 'tanh.approx.f16', 'f16', hx, math.tanh, lambda x, y: 2 ** -10.987, 'abs err 2^-10.987 (§9.7.4.9)')
approx_h('approx_tanh_bf16', 'tanh.approx.bf16', 'bf16', bx, math.tanh, lambda x, y: 2 ** -8, 'abs err 2^-8 (§9.7.4.9)')
approx_h('approx_ex2_f16', 'ex2.approx.f16', 'f16', hx, lambda x: 2 ** x, lambda x, y: abs(y) * 2 ** -9.9, 'rel err 2^-9.9 (§9.7.4.10)')
approx_h('approx_ex2_ftz_bf16', 'ex2.approx.ftz.bf16', 'bf16', bx, lambda x: 2 ** x, lambda x, y: abs(y) * 2 ** -7, 'rel err 2^-7 (§9.7.4.10)')

def u16x2(a, b, fn, signed):
    r = 0
    for i in range(2):
        x = (a >> (16 * i)) & 0xffff; y = (b >> (16 * i)) & 0xffff
        if signed:
            x, y = sx(x, 16), sx(y, 16)
        r |= (fn(x, y) & 0xffff) << (16 * i)
    return r
PA2, PB2 = 0x8001fffe, 0x7fff0005
test('packed_u16x2_s16x2', 'integer', f"""
    mov.b32 %r1, {hex(PA2)};
    mov.b32 %r2, {hex(PB2)};
    add.u16x2 %r3, %r1, %r2;
    min.u16x2 %r5, %r1, %r2;
    max.s16x2 %r6, %r1, %r2;
    min.relu.s16x2 %r7, %r1, %r2;
    max.relu.s16x2 %r8, %r1, %r2;
""" + st32(['%r3', '%r5', '%r6', '%r7', '%r8']),
     [u16x2(PA2, PB2, lambda x, y: x + y, 0), u16x2(PA2, PB2, min, 0),
      u16x2(PA2, PB2, max, 1), u16x2(PA2, PB2, lambda x, y: max(min(x, y), 0), 1), u16x2(PA2, PB2, lambda x, y: max(max(x, y), 0), 1)],
     note='.u16x2/.s16x2 (§9.7.1.1, §9.7.1.10/11)')

M1, M2 = 0xffffffffffffffff, 0xfedcba9876543210
test('carry_mad_64', 'integer', f"""
    mov.u64 %rd1, {hex(M1)};
    mov.u64 %rd2, {hex(M2)};
    mad.lo.cc.u64 %rd3, %rd1, %rd2, %rd1;
    madc.hi.u64 %rd4, %rd1, %rd2, 0;
    add.cc.u64 %rd5, %rd1, %rd1;
    addc.cc.u64 %rd6, %rd1, 0;
    addc.u64 %rd7, 0, 0;
""" + st64(['%rd3', '%rd4', '%rd5', '%rd6', '%rd7']),
     [M64(M1 * M2 + M1), ((M1 * M2) >> 64) + ((M64(M1 * M2) + M1) >> 64), M64(2 * M1), M64(M1 + 1), 1], etype='u64')

test('mul_mad_hi_16_sad_64', 'integer', """
    mov.u16 %rs1, 0x8000;
    mov.u16 %rs2, 3;
    mul.hi.s16 %rs3, %rs1, %rs2;
    mad.hi.u16 %rs4, %rs1, %rs2, 1;
    mad.lo.s16 %rs5, %rs1, %rs2, -1;
    mov.u64 %rd1, 5;
    mov.u64 %rd2, 0xfffffffffffffff0;
    sad.u64 %rd3, %rd1, %rd2, 1;
    sad.s64 %rd4, %rd1, %rd2, 1;
    rem.s64 %rd5, %rd2, 7;
    div.s64 %rd6, %rd2, -3;
    cvt.u32.u16 %r1, %rs3;
    cvt.u32.u16 %r2, %rs4;
    cvt.u32.u16 %r3, %rs5;
    cvt.u32.u64 %r4, %rd3;
    cvt.u32.u64 %r5, %rd4;
    cvt.u32.u64 %r6, %rd5;
    cvt.u32.u64 %r7, %rd6;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7']),
     [M16((-0x8000 * 3) >> 16), M16(((0x8000 * 3) >> 16) + 1), M16(-0x8000 * 3 - 1), M32(0xfffffffffffffff0 - 5 + 1),
      M32(21 + 1), M32(-2), M32(5)], note='sad.u64 |a-b|+c; rem/div truncate toward zero')

def bfe64(a, p, l, s):
    return bfe(a, p, l, 63, s)
A64B = 0x8123456789abcdef
test('bfe_bfi_64_positions', 'integer', f"""
    mov.b64 %rd1, {hex(A64B)};
    bfe.u64 %rd2, %rd1, 60, 8;
    bfe.s64 %rd3, %rd1, 60, 8;
    bfe.s64 %rd4, %rd1, 100, 3;
    bfe.u64 %rd5, %rd1, 4, 255;
    bfi.b64 %rd6, %rd1, 0, 60, 10;
    bfi.b64 %rd7, %rd1, 0, 200, 10;
    bfe.s64 %rd8, %rd1, 0, 64;
""" + st64(['%rd2', '%rd3', '%rd4', '%rd5', '%rd6', '%rd7', '%rd8']),
     [bfe64(A64B, 60, 8, 0), M64(bfe64(A64B, 60, 8, 1)), M64(bfe64(A64B, 100, 3, 1)), bfe64(A64B, 4, 255, 0),
      bfi(A64B, 0, 60, 10, 63), 0, A64B], etype='u64', note='positions/lengths up to 255 (§9.7.1.19/20)')

def vsimd2(a, b, c, fn, signed, mask=3):
    r = c
    for i in range(2):
        if mask >> i & 1:
            x, y = vsel(a, f'h{i}', signed), vsel(b, f'h{i}', signed)
            r = (r & ~(0xffff << (16 * i))) | ((fn(x, y) & 0xffff) << (16 * i))
    return r & 0xffffffff
test('video_simd_mask_merge', 'video', f"""
    mov.b32 %r1, {hex(VA)};
    mov.b32 %r2, {hex(VB)};
    mov.b32 %r9, 0xdeadbeef;
    vadd2.u32.u32.u32 %r3.h0, %r1, %r2, %r9;
    vsub2.s32.s32.s32 %r4.h1, %r1, %r2, %r9;
    vmin4.u32.u32.u32 %r5.b1, %r1, %r2, %r9;
""" + st32(['%r3', '%r4', '%r5']),
     [vsimd2(VA, VB, 0xdeadbeef, lambda x, y: x + y, 0, 1), vsimd2(VA, VB, 0xdeadbeef, lambda x, y: x - y, 1, 2),
      (0xdeadbeef & ~0xff00) | (min(0x7f, 0x80) << 8)],
     note='d.mask: lanes outside the mask take c (§9.7.18.2)')
test('video_vmad', 'video', """
    vmad.u32.u32.u32 %r1, 3, 5, 7;
    vmad.s32.s32.s32 %r2, -3, 5, 7;
    vmad.u32.u32.u32.shr7 %r3, 1000, 1000, 0;
    vmad.s32.u32.u32 %r4, 3, 5, -20;
    vmad.u32.u32.u32.sat %r5, 0x10000, 0x10000, 0;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5']), [22, M32(-8), 1000000 >> 7, M32(-5), 0xffffffff],
     note='vmad d = a*b + c, .shr7 shifts the result, .sat clamps (§9.7.18.1); operands kept below 2^31 (NVIDIA reads .u32 words as signed, README)')

test('address_size_32_module_vars', 'module', ptx=""".version 8.5
.target sm_90
.address_size 32

.global .align 4 .u32 g[3] = {10, 20, 30};
.global .align 4 .u32 pg = generic(g);
.global .align 4 .u32 po = g + 8;
.const .align 4 .u32 cv = 99;

.visible .entry k(.param .u32 k_param_0, .param .u32 k_param_1)
{
    .reg .pred %p<4>;
    .reg .b32 %r<32>;
    ld.param.u32 %r1, [k_param_0];
    cvta.to.global.u32 %r1, %r1;
    ld.global.u32 %r2, [pg];
    ld.u32 %r3, [%r2+4];
    ld.global.u32 %r4, [po];
    ld.global.u32 %r5, [%r4];
    ld.const.u32 %r6, [cv];
    mov.u32 %r7, k_param_1;
    ld.param.u32 %r8, [%r7];
    isspacep.global %p1, %r2;
    selp.u32 %r9, 1, 0, %p1;
    st.global.u32 [%r1], %r3;
    st.global.u32 [%r1+4], %r5;
    st.global.u32 [%r1+8], %r6;
    st.global.u32 [%r1+12], %r8;
    st.global.u32 [%r1+16], %r9;
    ret;
}
""", expect=[20, 30, 99, 1234, 1], args=[{'buffer': 'out'}, {'type': 'u32', 'value': 1234}])

test('f64_approx_forms', 'float', """
    mov.f64 %fd1, 0d4010000000000000;
    rsqrt.approx.f64 %fd2, %fd1;
    rcp.approx.ftz.f64 %fd3, %fd1;
    sqrt.approx.ftz.f32 %f1, 0f41800000;
    rsqrt.approx.ftz.f64 %fd4, 0d3FF0000000000000;
    sub.f64 %fd5, %fd2, 0d3FE0000000000000;
    abs.f64 %fd5, %fd5;
    setp.le.f64 %p1, %fd5, 0d3E80000000000000;
    selp.u32 %r1, 1, 0, %p1;
    sub.f64 %fd6, %fd3, 0d3FD0000000000000;
    abs.f64 %fd6, %fd6;
    setp.le.f64 %p2, %fd6, 0d3EB0000000000000;
    selp.u32 %r2, 1, 0, %p2;
    sub.f32 %f2, %f1, 0f40800000;
    abs.f32 %f2, %f2;
    setp.le.f32 %p3, %f2, 0f35000000;
    selp.u32 %r3, 1, 0, %p3;
    sub.f64 %fd7, %fd4, 0d3FF0000000000000;
    abs.f64 %fd7, %fd7;
    setp.le.f64 %p4, %fd7, 0d3E80000000000000;
    selp.u32 %r4, 1, 0, %p4;
""" + st32(['%r1', '%r2', '%r3', '%r4']), [1, 1, 1, 1],
     note='rsqrt.approx.f64(4) ~ 0.5, rcp.approx.ftz.f64(4) ~ 0.25 (20-bit mantissa: 2^-20 rel), sqrt.approx(16) ~ 4')
