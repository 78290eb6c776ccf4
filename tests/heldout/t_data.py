# Data movement (§9.7.10): mov packing, prmt, vector registers, ld/st vectors, sub-words, state
# spaces, generic addressing, cache qualifiers, cvta, isspacep.
F = 'data'
def prmt(a, b, c, mode=None):
    bs = [(a >> (8 * i)) & 0xff for i in range(4)] + [(b >> (8 * i)) & 0xff for i in range(4)]
    if mode is None:
        r = 0
        for i in range(4):
            sel = (c >> (4 * i)) & 0xf
            byte = bs[sel & 7]
            if sel & 8:
                byte = 0xff if byte & 0x80 else 0
            r |= byte << (8 * i)
        return r
    n = c & 3
    idx = {'f4e': [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
           'b4e': [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
           'rc8': [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
           'ecl': [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
           'ecr': [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
           'rc16': [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]]}[mode][n]
    return sum(bs[j] << (8 * i) for i, j in enumerate(idx))
PA, PB = 0x87654321, 0xfedcba98
pl, pe = [], []
for c in [0x3210, 0x7654, 0x0123, 0x8888, 0x4f1c, 0xba98]:
    pl.append(f'    prmt.b32 %r{10 + len(pl)}, %r1, %r2, {hex(c)};'); pe.append(prmt(PA, PB, c))
for mode in ['f4e', 'b4e', 'rc8', 'ecl', 'ecr', 'rc16']:
    for c in [0, 1, 2, 3]:
        pl.append(f'    prmt.b32.{mode} %r{10 + len(pl)}, %r1, %r2, {c};'); pe.append(prmt(PA, PB, c, mode))
test('prmt_all_modes', F, f"    mov.b32 %r1, {hex(PA)};\n    mov.b32 %r2, {hex(PB)};\n" + '\n'.join(pl) + '\n' +
     st32([f'%r{10 + i}' for i in range(len(pl))]), pe, note='§9.7.10.6 tables')

test('mov_pack_unpack', F, """
    mov.b32 %r1, 0x11223344;
    mov.b32 %r2, 0xaabbccdd;
    mov.b64 %rd1, {%r1, %r2};
    mov.b64 {%r3, %r4}, %rd1;
    mov.b32 {%rs1, %rs2}, %r1;
    mov.b32 %r5, {%rs2, %rs1};
    mov.b64 {%rs5, %rs6, %rs7, %rs8}, %rd1;
    mov.b32 %r6, {%rs8, %rs7};
    mov.b64 %rd2, 0d3FF0000000000000;
    mov.b64 {%r9, %r10}, %rd2;
    mov.f32 %f1, 0f3F800000;
    mov.b32 %r11, %f1;
    mov.u32 %r12, WARP_SZ;
""" + st64(['%rd1']) + "\n" + st32(['%r3', '%r4', '%r5', '%r6', '%r9', '%r10', '%r11', '%r12'], base=2),
     [0x11223344, 0xaabbccdd, 0x11223344, 0xaabbccdd, 0x33441122, 0xccddaabb, 0, 0x3ff00000, 0x3f800000, 32])

test('vector_registers', F, """
    .reg .v2 .f32 %v2f;
    .reg .v4 .b32 %v4;
    .reg .v2 .u64 %v2l;
    mov.b32 %r1, 7;
    mov.v4.b32 %v4, {1, 2, 3, %r1};
    mov.f32 %v2f.x, 0f3F800000;
    mov.f32 %v2f.y, 0f40000000;
    add.f32 %f1, %v2f.x, %v2f.y;
    st.global.v4.b32 [%rd0], %v4;
    mov.b32 %r2, %f1;
    st.global.u32 [%rd0+16], %r2;
    mov.u32 %r3, %v4.w;
    st.global.u32 [%rd0+20], %r3;
    mov.u64 %v2l.x, 5;
    mov.u64 %v2l.y, 6;
    st.global.v2.u64 [%rd0+32], %v2l;
    ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd0];
    add.u32 %r8, %r4, %r7;
    st.global.u32 [%rd0+48], %r8;
    mov.b32 %r9, %v4.r;
    mov.b32 %r10, %v4.a;
    st.global.v2.u32 [%rd0+56], {%r9, %r10};
""", [1, 2, 3, 7, f32(3.0), 7, 0, 0, 5, 0, 6, 0, 8, 0, 1, 7], note='.x/.y/.z/.w and .r/.g/.b/.a components (§5.4.3)')

test('ld_st_vectors_subword_spaces', F, """
    .local .align 16 .b8 loc[32];
    .shared .align 16 .b8 sh[32];
    mov.b32 %r1, 0x04030201;
    mov.u64 %rd1, loc;
    st.local.v2.u32 [loc], {%r1, %r1};
    mov.u16 %rs9, 0xee;
    st.local.u8 [loc+3], %rs9;
    ld.local.v2.u32 {%r2, %r3}, [loc];
    st.shared.v4.u16 [sh], {%rs1, %rs2, %rs3, %rs4};
    mov.u16 %rs5, 0xabcd;
    st.shared.u16 [sh+6], %rs5;
    mov.u32 %r16, 0;
    st.shared.u32 [sh+8], %r16;
    mov.u16 %rs9, 0x77;
    st.shared.u8 [sh+9], %rs9;
    ld.shared.u32 %r4, [sh+4];
    ld.shared.u32 %r5, [sh+8];
    ld.shared.s8 %r6, [sh+7];
    ld.shared.u8 %r7, [sh+7];
    ld.shared.s16 %rs6, [sh+6];
    cvt.s32.s16 %r8, %rs6;
    cvta.local.u64 %rd2, %rd1;
    ld.u32 %r9, [%rd2];
    mov.u64 %rd3, sh;
    cvta.shared.u64 %rd4, %rd3;
    st.u32 [%rd4+12], %r1;
    ld.shared.u32 %r10, [sh+12];
    cvta.to.shared.u64 %rd5, %rd4;
    ld.shared.u32 %r11, [%rd5+12];
    isspacep.shared %p1, %rd4;
    isspacep.local %p2, %rd4;
    isspacep.global %p3, %rd0;
    isspacep.local %p4, %rd2;
    selp.u32 %r12, 1, 0, %p1;
    selp.u32 %r13, 1, 0, %p2;
    selp.u32 %r14, 1, 0, %p3;
    selp.u32 %r15, 1, 0, %p4;
""".replace('st.shared.v4.u16 [sh], {%rs1, %rs2, %rs3, %rs4};', 'mov.u16 %rs1, 1;\n    mov.u16 %rs2, 2;\n    mov.u16 %rs3, 3;\n    mov.u16 %rs4, 4;\n    st.shared.v4.u16 [sh], {%rs1, %rs2, %rs3, %rs4};') +
     st32(['%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9', '%r10', '%r11', '%r12', '%r13', '%r14', '%r15']),
     [0xee030201, 0x04030201, 0xabcd0003, 0x7700, M32(sx(0xab, 8)), 0xab, M32(sx(0xabcd, 16)), 0xee030201, 0x04030201, 0x04030201, 1, 0, 1, 1],
)

test('cache_qualifiers_nc_ldu', F, """
    mov.b32 %r1, 0x5a5a5a5a;
    st.global.wb.u32 [%rd0], %r1;
    st.global.cg.u32 [%rd0+4], %r1;
    st.global.cs.u32 [%rd0+8], %r1;
    st.global.wt.u32 [%rd0+12], %r1;
    ld.global.ca.u32 %r2, [%rd0];
    ld.global.cg.u32 %r3, [%rd0+4];
    ld.global.cs.u32 %r4, [%rd0+8];
    ld.global.lu.u32 %r5, [%rd0+12];
    ld.global.cv.u32 %r6, [%rd0];
    ld.global.nc.u32 %r7, [%rd0+4];
    ldu.global.u32 %r8, [%rd0+8];
    ld.global.L1::evict_last.u32 %r9, [%rd0+12];
    ld.global.L2::128B.u32 %r10, [%rd0];
    ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%r11, %r12}, [%rd0];
    ld.volatile.global.u32 %r13, [%rd0];
    ld.relaxed.gpu.global.u32 %r14, [%rd0];
    st.global.L1::no_allocate.u32 [%rd0+16], %r1;
""" + st32(['%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9', '%r10', '%r11', '%r12', '%r13', '%r14'], base=5),
     [0x5a5a5a5a] * 18)

test('ld_st_v8', F, """
    mov.b32 %r1, 1;
    mov.b32 %r2, 2;
    mov.b32 %r3, 3;
    mov.b32 %r4, 4;
    st.global.v8.b32 [%rd0], {%r1, %r2, %r3, %r4, %r4, %r3, %r2, %r1};
    ld.global.v8.u32 {%r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12}, [%rd0];
    add.u32 %r13, %r5, %r12;
    st.global.u32 [%rd0+32], %r13;
""", [1, 2, 3, 4, 4, 3, 2, 1, 2], target='sm_100', version='8.8', note='.v8 (PTX 8.8, sm_100: the later-chapter documents)')

test('param_space_and_address', F, ptx=HEADER.format(version='8.5', target='sm_90') + """
.visible .entry k(
    .param .u64 k_param_0,
    .param .align 8 .b8 k_param_1[8],
    .param .u32 k_param_2
)
{
""" + REGS + """
    ld.param.u64 %rd0, [k_param_0];
    cvta.to.global.u64 %rd0, %rd0;
    ld.param.u32 %r1, [k_param_1+4];
    ld.param.v2.u32 {%r2, %r3}, [k_param_1];
    mov.u64 %rd1, k_param_2;
    ld.param.u32 %r4, [%rd1];
    mov.u64 %rd2, k_param_1;
    cvta.param.u64 %rd3, %rd2;
    ld.u32 %r5, [%rd3+4];
    isspacep.param %p1, %rd3;
    selp.u32 %r6, 1, 0, %p1;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6']) + """
    ret;
}
""", expect=[0x33333333, 0x22222222, 0x33333333, 0xabcdef, 0x33333333, 1],
     args=[{'buffer': 'out'}, {'type': 'u64', 'value': '0x3333333322222222'}, {'type': 'u32', 'value': '0xabcdef'}],
     note='a .b8[8] parameter passed as one u64 arg; its address through mov/cvta.param')

test('subword_vectors_every_space', F, """
    .local .align 8 .b8 lb[16];
    .shared .align 8 .b8 sb[16];
    mov.u16 %rs1, 0x11;
    mov.u16 %rs2, 0x22;
    mov.u16 %rs3, 0x33;
    mov.u16 %rs4, 0x44;
    st.global.v4.u8 [%rd0], {%rs1, %rs2, %rs3, %rs4};
    st.global.v2.u16 [%rd0+8], {%rs4, %rs3};
    st.local.v4.u8 [lb+4], {%rs4, %rs3, %rs2, %rs1};
    ld.local.u32 %r1, [lb+4];
    st.shared.v2.u8 [sb+2], {%rs1, %rs2};
    mov.u32 %r9, 0;
    st.shared.u16 [sb], %r9;
    ld.shared.u32 %r2, [sb];
    ld.global.v2.u8 {%rs5, %rs6}, [%rd0+2];
    cvt.u32.u16 %r3, %rs5;
    cvt.u32.u16 %r4, %rs6;
    mov.u64 %rd1, sb;
    cvta.shared.u64 %rd2, %rd1;
    st.u8 [%rd2+1], %rs3;
    ld.shared.u32 %r5, [sb];
    ld.global.s8 %r6, [%rd0+4];
    mov.u16 %rs7, 0x80;
    st.global.u8 [%rd0+5], %rs7;
    ld.global.s8 %r7, [%rd0+5];
    st.global.u32 [%rd0+12], %r1;
    st.global.u32 [%rd0+16], %r2;
    st.global.u32 [%rd0+20], %r3;
    st.global.u32 [%rd0+24], %r4;
    st.global.u32 [%rd0+28], %r5;
    st.global.u32 [%rd0+32], %r6;
    st.global.u32 [%rd0+36], %r7;
""", [0x44332211, 0x00008000, 0x00330044, 0x11223344, 0x22110000, 0x33, 0x44, 0x22113300, 0, 0xffffff80],
     note='byte vectors (aligned as a whole, §5.4.5), v2.u16, generic sub-word stores into shared; st.shared.u16 from a .b32 register stores its low half')
