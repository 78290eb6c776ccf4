# Frontend spellings: cuobjdump headers, version/target variations, .u8x4, labels, comments.
F = 'frontend'
SIMPLE = """
.visible .entry k(.param .u64 k_param_0)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [k_param_0];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, 0x1234;
    st.global.u32 [%rd1], %r1;
    ret;
}
"""
test('cuobjdump_header', F, ptx="""
Fatbin elf code:
================
arch = sm_90
code version = [1,7]
host = linux
compile_size = 64bit

Fatbin ptx code:
================
arch = sm_90
code version = [8,5]
host = linux
compile_size = 64bit
compressed
ptxasOptions = 

//
//
//
//

.version 8.5
.target sm_90
.address_size 64
""" + SIMPLE, expect=[0x1234], note='what cuobjdump -ptx prints')
for i, (ver, tgt) in enumerate([('6.0', 'sm_50'), ('7.0', 'sm_70'), ('7.8', 'sm_80, debug'), ('8.0', 'sm_90a'),
                                 ('6.4', 'sm_61, texmode_independent'), ('8.3', 'sm_89'), ('5.0', 'sm_52'),
                                 ('8.5', 'sm_86, texmode_unified'), ('8.7', 'sm_100a'), ('9.0', 'sm_120')]):
    test(f'version_target_{i}', F, ptx=f".version {ver}\n.target {tgt}\n.address_size 64\n" + SIMPLE, expect=[0x1234],
         note=f'.version {ver} / .target {tgt}')
test('no_address_size_directive', F, ptx=""".version 8.5
.target sm_90
.visible .entry k(.param .u32 k_param_0)
{
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [k_param_0];
    cvta.to.global.u32 %r1, %r1;
    mov.u32 %r2, 0x1234;
    st.global.u32 [%r1], %r2;
    ret;
}
""", expect=[0x1234], note='.address_size omitted: 32-bit addresses (§11.1.3)')
test('labels_comments_pragmas', F, ptx="""// comment
/* block
   comment */
.version 8.5
.target sm_90
.address_size 64
.file 1 "k.cu"

.visible .entry k(.param .u64 k_param_0)
.maxntid 64, 1, 1
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .loc 1 3 0
    ld.param.u64 %rd1, [k_param_0];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, 0;
    mov.u32 %r2, 0;
$L__BB0_1:
    .pragma "nounroll";
    add.s32 %r1, %r1, %r2;
    add.s32 %r2, %r2, 1;
    setp.ne.s32 %p1, %r2, 10;
    @%p1 bra.uni $L__BB0_1;
    bra $done;
$dead: mov.u32 %r1, 77;
$done:
    st.global.u32 [%rd1], %r1;
    ret;
}
""", expect=[45])
test('packed_u8x4', F, ptx=HEADER.format(version='8.5', target='sm_90') + """
.visible .entry k(.param .u64 k_param_0)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [k_param_0];
    cvta.to.global.u64 %rd1, %rd1;
    mov.b32 %r1, 0x01020304;
    mov.b32 %r2, 0x10ff2080;
    add.u8x4 %r3, %r1, %r2;
    st.global.u32 [%rd1], %r3;
    ret;
}
""", expect=[0x11012384], note='.u8x4 is PTX 9.x (not in the 8.5 spec): a named refusal is acceptable')

# Spellings a test author is likely to write: modifier orders the grammar's braces allow in
# practice, float immediates, register declarations.
S = 'spelling'
def one(name, lines, regs_out, expect, note='', **kw):
    test('sp_' + name, S, lines + '\n' + st32(regs_out), expect, note=note, **kw)
one('float_immediates', """
    add.f32 %f1, 0f3F800000, 0f40000000;
    mov.f32 %f2, 1.5;
    add.f32 %f3, %f2, 0.25;
    mul.f32 %f4, %f2, -2.0;
    add.f64 %fd1, 0d3FF0000000000000, 0.5;
    cvt.rn.f32.f64 %f5, %fd1;
    mov.f32 %f6, 0F3F800000;
    mov.b32 %r1, %f1;
    mov.b32 %r2, %f3;
    mov.b32 %r3, %f4;
    mov.b32 %r4, %f5;
    mov.b32 %r5, %f6;
    mov.f32 %f7, 1e-3;
    mov.b32 %r6, %f7;""", ['%r1', '%r2', '%r3', '%r4', '%r5', '%r6'],
    [f32(3.0), f32(1.75), f32(-3.0), f32(1.5), f32(1.0), from_val(Fr(1, 1000), 'f32')],
    note='decimal float literals are f64 values rounded to the instruction type (§4.5.2)')
one('modifier_order_ftz_before_rnd', """
    add.ftz.rn.f32 %f1, 0f3F800000, 0f00000001;
    mov.b32 %r1, %f1;""", ['%r1'], [f32(1.0)], note='grammar writes .rnd before .ftz; ptxas takes either order')
one('modifier_order_sat_before_ftz', """
    mul.rn.sat.ftz.f32 %f1, 0f40000000, 0f40000000;
    mov.b32 %r1, %f1;""", ['%r1'], [f32(1.0)])
one('min_nan_ftz_order', """
    min.NaN.ftz.f32 %f1, 0f3F800000, 0f7FC00000;
    mov.b32 %r1, %f1;""", ['%r1'], [0x7fffffff])
one('setp_ftz_position', """
    setp.lt.ftz.f32 %p1, 0f00000001, 0f00000002;
    selp.u32 %r1, 1, 0, %p1;
    setp.lt.f32 %p2, 0f00000001, 0f00000002;
    selp.u32 %r2, 1, 0, %p2;""", ['%r1', '%r2'], [0, 1], note='.ftz flushes both subnormal operands to 0: 0 < 0 is false')
one('reg_decl_forms', """
    .reg .u32 %a, %b, %c;
    .reg .b32 r<3>;
    .reg .pred p;
    mov.u32 %a, 3;
    mov.u32 %b, 4;
    mad.lo.u32 %c, %a, %b, %a;
    mov.u32 r0, %c;
    add.u32 r2, r0, 1;
    setp.eq.u32 p, r2, 16;
    selp.u32 %r1, 1, 0, p;
    mov.u32 %r2, r2;""", ['%r2', '%r1'], [16, 1], note='register names without %, comma lists, <N> ranges')
one('cvt_int_rounding_after_types', """
    cvt.s32.f32.rni %r1, 0f40200000;
    cvt.f32.s32.rz %f1, 16777217;
    mov.b32 %r2, %f1;""", ['%r1', '%r2'], [2, f32(16777216.0)],
    note='the spec examples put rounding after the types (cvt.f64.bf16.rp, cvt.s8.bf16.rpi)')
# An 8-bit destination (ptxas refuses a wider one from .bf16), sign-extended after.
one('cvt_bf16_spec_examples', """
    mov.b16 %rs1, 0x3fc0;
    cvt.s8.bf16.rpi %rb2, %rs1;
    cvt.s16.s8 %rs2, %rb2;
    cvt.bf16.bf16.rpi %rs3, %rs1;
    mov.b16 %rs4, 0x3e00;
    cvt.bf16.f16.rz %rs5, %rs4;
    cvt.bf16.u64.rz %rs6, 1000;
    cvt.u32.u16 %r1, %rs2;
    cvt.u32.u16 %r2, %rs3;
    cvt.u32.u16 %r3, %rs5;
    cvt.u32.u16 %r4, %rs6;""", ['%r1', '%r2', '%r3', '%r4'],
    [2, 0x4000, 0x3fc0, from_val(Fr(1000), 'bf16', 'rz')], note='§9.7.10.20 examples verbatim (types, then rounding)', regs=REGS + '    .reg .b8 %rb<4>;\n')
one('exit_and_ret_uni', """
    mov.u32 %r1, 5;
    st.global.u32 [%rd0], %r1;
    setp.eq.u32 %p1, %r1, 5;
    @%p1 exit;
    mov.u32 %r1, 6;
    st.global.u32 [%rd0], %r1;
    ret.uni;""", [], [5])
one('mul_wide_immediates_negative', """
    mul.wide.s32 %rd1, -3, 0x7fffffff;
    mov.b64 {%r1, %r2}, %rd1;""", ['%r1', '%r2'], [M32(-3 * 0x7fffffff), M32((-3 * 0x7fffffff) >> 32)])
one('st_immediate_source', """
    st.global.u32 [%rd0+4], 0x77;
    st.global.u32 [%rd0], 0x66;""", [], [0x66, 0x77], note='an immediate as the st source')
one('sm_1x_style_f32_without_rounding', """
    cvt.rzi.s32.f32 %r1, 0f3FC00000;
    mad.f32 %f1, 0f3F800000, 0f40000000, 0f3F800000;
    mov.b32 %r2, %f1;""", ['%r1', '%r2'], [1, f32(3.0)], version='8.5', target='sm_90',
    note='mad.f32 without rounding: refused by the project (sm_1x truncation) -- recorded only')
LEG = """
.visible .entry k(.param .{pt} k_param_0)
{{
    .reg .f32 %f<8>;
    .reg .b32 %r<8>;
    .reg .{pt} %rd<4>;
    ld.param.{pt} %rd1, [k_param_0];
    mov.b32 %f1, 0x3f800001;
    mov.b32 %f2, 0xbf800002;
    mad.f32 %f3, %f1, %f1, %f2;
    mov.b32 %f4, 0x00000001;
    mov.f32 %f5, 0f3F800000;
    mad.f32 %f6, %f4, %f5, %f4;
    st.global.f32 [%rd1], %f3;
    st.global.f32 [%rd1+4], %f6;
    ret;
}}
"""
test('legacy_mad_f32_ptx30_sm20', F, ptx=".version 3.0\n.target sm_20\n.address_size 64\n" + LEG.format(pt='u64'),
     expect=[0x28800000, 2], note='PTX <= 3.1 on sm_20+: mad.f32 without rounding is mad.rn.f32 (§9.7.3.7 errata)')
test('legacy_mad_f32_sm13', F, ptx=".version 1.4\n.target sm_13\n" + LEG.format(pt='u32'),
     expect=[0x28800000, 0], note='sm_1x target JIT-compiled for sm_20+: fma.rn.ftz.f32 (§9.7.3.7); no .address_size: 32-bit')
one('nested_scopes_and_sink', """
    mov.b32 %r1, 0x3c004000;
    {
    .reg .b16 lo, hi;
    mov.b32 {lo, hi}, %r1;
    mov.b32 %r2, {hi, lo};
    }
    {
    .reg .b16 %tmp;
    mov.b32 {%tmp, _}, %r1;
    cvt.u32.u16 %r3, %tmp;
    }
    {
    .reg .f16 %hx;
    .reg .f16x2 %hh;
    .reg .bf16 %bx;
    mov.b32 %hh, %r1;
    mov.b32 {%hx, _}, %hh;
    mov.b16 %bx, 0x3f80;
    mov.b16 %rs1, %hx;
    cvt.u32.u16 %r4, %rs1;
    mov.b16 %rs2, %bx;
    cvt.u32.u16 %r5, %rs2;
    }""", ['%r2', '%r3', '%r4', '%r5'], [0x40003c00, 0x4000, 0x4000, 0x3f80],
    note='nvcc inline-asm style blocks with local registers, the sink `_`, .f16/.f16x2/.bf16 registers')
one('vector_immediates_and_guard_spacing', """
    st.global.v2.u32 [%rd0], {1, 2};
    setp.eq.u32 %p1, 1, 1;
    @ %p1 st.global.u32 [%rd0+8], 3;
    @!%p1 st.global.u32 [%rd0+8], 4;
    mov.f32 %f1, -0.0;
    mov.b32 %r1, %f1;
    st.global.u32 [%rd0+12], %r1;""", [], [1, 2, 3, 0x80000000])
test('dynamic_shared_and_dwarf', 'frontend', ptx=""".version 8.5
.target sm_90
.address_size 64

.extern .shared .align 16 .b8 smem[];

.visible .entry k(.param .u64 k_param_0)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [k_param_0];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, smem;
    mov.u32 %r2, 77;
    st.shared.u32 [%r1+12], %r2;
    ld.shared.u32 %r3, [smem+12];
    mov.u32 %r4, %dynamic_smem_size;
    st.global.u32 [%rd1], %r3;
    st.global.u32 [%rd1+4], %r4;
    ret;
}
.section .debug_abbrev
{
.b8 1
.b8 17
.b8 0
}
""", expect=[77, 128], dyn=128, note='extern shared, a 32-bit shared address in a 64-bit module, a DWARF section')

# PTX 1.0-1.3 defaults of float instructions without a modifier (§9.7.3 PTX ISA notes):
# f32 -> .approx.ftz, div/rcp/sqrt.f64 -> .rn, rsqrt.f64 -> .approx. Subnormal f32 inputs show the
# .ftz exactly (the special-value tables), f64 results are correctly rounded.
P13 = """.version 1.3
.target sm_13
.entry k(.param .u32 out, .param .u32 in)
{
    .reg .b32 %r<8>;
    .reg .f32 %f<8>;
    .reg .f64 %fd<8>;
    ld.param.u32 %r1, [out];
    ld.param.u32 %r2, [in];
    ld.global.f32 %f1, [%r2];
    ld.global.f64 %fd1, [%r2+8];
    ld.global.f64 %fd2, [%r2+16];
    div.f32 %f2, %f1, %f1;
    sin.f32 %f3, %f1;
    cos.f32 %f4, %f1;
    ex2.f32 %f5, %f1;
    lg2.f32 %f6, %f1;
    rsqrt.f32 %f7, %f1;
    st.global.f32 [%r1], %f3;
    st.global.f32 [%r1+4], %f4;
    st.global.f32 [%r1+8], %f5;
    st.global.f32 [%r1+12], %f6;
    st.global.f32 [%r1+16], %f7;
    rcp.f32 %f3, %f1;
    sqrt.f32 %f4, %f1;
    st.global.f32 [%r1+20], %f3;
    st.global.f32 [%r1+24], %f4;
    div.f64 %fd3, %fd1, %fd2;
    rcp.f64 %fd4, %fd2;
    sqrt.f64 %fd5, %fd2;
    st.global.f64 [%r1+32], %fd3;
    st.global.f64 [%r1+40], %fd4;
    st.global.f64 [%r1+48], %fd5;
    mov.f64 %fd7, 0d0000000000000000;
    rsqrt.f64 %fd6, %fd7;
    st.global.f64 [%r1+56], %fd6;
    exit;
}
"""
_a, _b = f64(1.0), f64(3.0)
_exp = [PZ, ONE, ONE, NI, PI, PI, PZ, 0]
_w64 = [arith('div', 'f64', [_a, _b]), arith('div', 'f64', [f64(1.0), _b]), sqrt_bits(_b, 'f64'), 0x7ff0000000000000]
for w in _w64:
    _exp += [w & 0xffffffff, w >> 32]
test('legacy_ptx13_float_defaults', 'frontend', ptx=P13, expect=_exp,
     buffers={'in': {'type': 'u32', 'values': ['0x00000010', '0', hex(_a & 0xffffffff), hex(_a >> 32), hex(_b & 0xffffffff), hex(_b >> 32)]}},
     args=[{'buffer': 'out'}, {'buffer': 'in'}],
     note='an f32 subnormal input: sin -> +0, cos/ex2 -> 1, lg2 -> -inf, rsqrt/rcp -> +inf, sqrt -> 0 (.ftz); f64 .rn; rsqrt.approx.f64(+0) = +inf')
