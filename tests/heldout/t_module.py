# Module scope: initializers, .address_size 32, kernel parameter addresses.
F = 'module'
KB = """
.visible .entry k(.param .u64 k_param_0)
{
""" + REGS + """
    ld.param.u64 %rd0, [k_param_0];
    cvta.to.global.u64 %rd0, %rd0;
"""
test('module_initializers', F, ptx=HEADER.format(version='8.5', target='sm_90') + """
.global .align 4 .u32 arr[4] = {1, 2, 0x30, -4};
.global .align 8 .u64 parr = arr;
.global .align 8 .u64 pgen = generic(arr);
.global .align 8 .u64 poff = arr + 8;
.const .align 4 .f32 cf[2] = {1.5, 0f40400000};
.const .align 4 .b8 bytes[5] = {1, 2, 3, 4, 5};
.global .align 4 .u32 mixed = (3 << 4) + 1;
.global .align 8 .u64 masked = mask(0xff, arr);
""".replace(".global .align 8 .u64 masked = mask(0xff, arr);\n", "") + KB + """
    ld.global.u32 %r1, [arr+12];
    ld.global.u64 %rd1, [parr];
    ld.global.u32 %r2, [%rd1+8];
    ld.global.u64 %rd2, [pgen];
    ld.u32 %r3, [%rd2+4];
    ld.global.u64 %rd3, [poff];
    ld.global.u32 %r4, [%rd3];
    ld.const.f32 %f1, [cf];
    ld.const.f32 %f2, [cf+4];
    add.f32 %f3, %f1, %f2;
    mov.b32 %r5, %f3;
    ld.const.u8 %r6, [bytes+4];
    ld.global.u32 %r7, [mixed];
    mov.u64 %rd4, arr;
    cvta.global.u64 %rd5, %rd4;
    setp.eq.u64 %p1, %rd5, %rd2;
    selp.u32 %r8, 1, 0, %p1;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8']) + "\n    ret;\n}\n",
     expect=[M32(-4), 0x30, 2, 0x30, f32(4.5), 5, 49, 1],
     note='parr holds arr\'s global-space address; generic(arr) and cvta.global of it are the same generic address')
test('module_mask_initializer', F, ptx=HEADER.format(version='8.5', target='sm_90') + """
.global .align 4 .u32 arr[2] = {7, 8};
.global .u8 lo[2] = {0xff(generic(arr)), 0xff00(generic(arr))};
.global .u8 cx[2] = {0xFF(1000 + 546), 0xFF00(0x1234)};
.global .align 8 .u64 pfull = generic(arr);
""" + KB + """
    ld.global.u64 %rd2, [pfull];
    ld.global.u8 %rd1, [lo];
    and.b64 %rd3, %rd2, 0xff;
    setp.eq.u64 %p1, %rd1, %rd3;
    selp.u32 %r1, 1, 0, %p1;
    ld.global.u8 %rd4, [lo+1];
    shr.u64 %rd5, %rd2, 8;
    and.b64 %rd5, %rd5, 0xff;
    setp.eq.u64 %p2, %rd4, %rd5;
    selp.u32 %r2, 1, 0, %p2;
    ld.global.u8 %r3, [cx];
    ld.global.u8 %r4, [cx+1];
""" + st32(['%r1', '%r2', '%r3', '%r4']) + "\n    ret;\n}\n", expect=[1, 1, 1546 & 0xff, 0x12],
     note='mask operator spelled as the spec writes it: 0xff(expr) (§5.4.4)')
test('address_size_32', F, ptx="""//
// a 32-bit module
//
.version 7.0
.target sm_75
.address_size 32

.global .align 4 .u32 g[2] = {5, 6};
.global .align 4 .u32 pg = g;

.visible .entry k(
    .param .u32 k_param_0
)
{
    .reg .pred %p<4>;
    .reg .b32 %r<32>;
    ld.param.u32 %r1, [k_param_0];
    cvta.to.global.u32 %r2, %r1;
    ld.global.u32 %r3, [pg];
    ld.global.u32 %r4, [%r3+4];
    mov.u32 %r5, g;
    cvta.global.u32 %r6, %r5;
    ld.u32 %r7, [%r6];
    st.global.u32 [%r2], %r4;
    st.global.u32 [%r2+4], %r7;
    mov.u32 %r8, k_param_0;
    ld.param.u32 %r9, [%r8];
    setp.eq.u32 %p1, %r9, %r1;
    selp.u32 %r10, 1, 0, %p1;
    st.u32 [%r1+8], %r10;
    ret;
}
""", expect=[6, 5, 1])
test('global_in_function_and_const_space', F, ptx=HEADER.format(version='8.5', target='sm_90') + KB + """
    .global .align 4 .u32 inner = 41;
    .const .align 4 .u32 cinner = 1;
    ld.global.u32 %r1, [inner];
    ld.const.u32 %r2, [cinner];
    add.u32 %r3, %r1, %r2;
    isspacep.const %p1, %rd0;
    selp.u32 %r4, 1, 0, %p1;
""" + st32(['%r3', '%r4']) + "\n    ret;\n}\n", expect=[42, 0])
test('const_generic_window', F, ptx=HEADER.format(version='8.5', target='sm_90') + """
.const .align 8 .u32 ctab[4] = {11, 22, 33, 44};
.global .align 8 .u64 gp = generic(ctab);
""" + KB + """
    mov.u64 %rd1, ctab;
    cvta.const.u64 %rd2, %rd1;
    ld.u32 %r1, [%rd2+8];
    isspacep.const %p1, %rd2;
    selp.u32 %r2, 1, 0, %p1;
    cvta.to.const.u64 %rd3, %rd2;
    ld.const.u32 %r4, [%rd3+12];
    ld.global.u64 %rd4, [gp];
    setp.eq.u64 %p3, %rd4, %rd2;
    selp.u32 %r5, 1, 0, %p3;
    ld.const.v2.u32 {%r6, %r7}, [ctab];
""" + st32(['%r1', '%r2', '%r4', '%r5', '%r6', '%r7']) + "\n    ret;\n}\n", expect=[33, 1, 44, 1, 11, 22],
     note='a .const variable through its generic address (cvta.const, generic() in an initializer); isspacep.global of it is not defined by the spec (not tested)')
