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
