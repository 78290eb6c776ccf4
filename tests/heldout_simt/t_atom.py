# atom / red (§9.7.14.5-6): every op × type, .global/.shared/generic, contended by every thread
# on one address; the checks do not depend on the order the atomics happen in: final values
# (folds), and the multiset of returned values (a histogram the kernel builds with red.add).
F = 'atom'


def f32b(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def f64w(x):
    v = struct.unpack('<Q', struct.pack('<d', x))[0]
    return [v & M32, v >> 32]


def w64(v):
    v &= (1 << 64) - 1
    return [v & M32, v >> 32]


def f16b(x):
    return struct.unpack('<H', struct.pack('<e', x))[0]


def bf16b(x):
    b = f32b(x)
    assert b & 0xffff == 0, x   # exactly representable
    return b >> 16


# Every thread (3 CTAs of 48) adds 1: the returned values are 0..143 once each; inc with
# bound 7 returns each of 0..7 18 times and ends at 0; dec with bound 9 from 3 walks
# 3,2,1,0,9,8,... whatever the order (each step is the same function).
def _counters():
    grid, blk = 3, 48
    n = grid * blk
    aux = [0] * 200
    aux[1] = 0          # inc counter
    aux[2] = 3          # dec counter
    body = """    atom.global.add.u32 %r10, [%rd2], 1;
    setp.lt.u32 %p1, %r10, 144;
    selp.u32 %r11, 1, 0, %p1;
    mul.wide.u32 %rd10, %r10, 4;
    add.u64 %rd10, %rd2, %rd10;
    @%p1 red.global.add.u32 [%rd10+16], 1;          // seen[old] at aux[4..148)
    atom.relaxed.gpu.global.inc.u32 %r12, [%rd2+4], 7;
    mul.wide.u32 %rd11, %r12, 4;
    add.u64 %rd11, %rd2, %rd11;
    setp.le.u32 %p2, %r12, 7;
    @%p2 red.global.add.u32 [%rd11+640], 1;         // inc histogram at aux[160..168)
    atom.global.dec.u32 %r13, [%rd2+8], 9;
    mul.wide.u32 %rd12, %r13, 4;
    add.u64 %rd12, %rd2, %rd12;
    setp.le.u32 %p3, %r13, 9;
    @%p3 red.global.add.u32 [%rd12+680], 1;         // dec histogram at aux[170..180)
    selp.u32 %r14, 1, 0, %p2;
    selp.u32 %r15, 1, 0, %p3;
""" + st(['%r11', '%r14', '%r15'])
    exp_aux = list(aux)
    exp_aux[0] = n
    for i in range(n):
        exp_aux[4 + i] = 1
    v = 0
    for _ in range(n):
        exp_aux[160 + v] += 1
        v = atom_inc(v, 7)
    exp_aux[1] = v
    v = 3
    for _ in range(n):
        exp_aux[170 + v] += 1
        v = atom_dec(v, 9)
    exp_aux[2] = v
    test('atom_global_add_inc_dec_contended_by_three_ctas', F, kernel(body, 3), 3, blk,
         lambda g: [1, 1, 1], grid=grid, aux=aux, aux_expect=exp_aux)


_counters()


# inc/dec at their edges, one thread: inc of a value above the bound gives 0, dec of 0 or of
# a value above the bound gives the bound, inc with bound 0 gives 0, bound 0xffffffff wraps
# like add.
def _inc_dec_edges():
    aux = [100, 50, 0, 5, 0xffffffff, 0xfffffffe, 0, 0]
    body = """    setp.ne.u32 %p9, %r3, 0;
    @%p9 bra DONE;
    atom.global.inc.u32 %r10, [%rd2], 7;
    atom.global.dec.u32 %r11, [%rd2+4], 9;
    atom.global.dec.u32 %r12, [%rd2+8], 9;
    atom.global.inc.u32 %r13, [%rd2+12], 0;
    atom.global.inc.u32 %r14, [%rd2+16], 0xffffffff;
    atom.global.dec.u32 %r15, [%rd2+20], 0xffffffff;
    red.global.inc.u32 [%rd2+24], 3;
    red.global.dec.u32 [%rd2+28], 3;
""" + st(['%r10', '%r11', '%r12', '%r13', '%r14', '%r15'])
    exp_aux = [0, 9, 9, 0, 0, 0xfffffffd, 1, 3]
    test('atom_inc_dec_edge_values', F, kernel(body, 6), 6, 32,
         lambda g: aux[:6] if g == 0 else None, aux=aux, aux_expect=exp_aux)


_inc_dec_edges()


# A CAS loop that increments a counter (block 100): each success returns a distinct value.
def _cas_loop():
    n = 100
    aux = [0] * 128
    body = """    mov.u32 %r10, 0;
    mov.u32 %r12, 0;
RETRY:
    add.u32 %r11, %r10, 1;
    atom.global.cas.b32 %r13, [%rd2], %r10, %r11;
    add.u32 %r12, %r12, 1;
    setp.ne.u32 %p1, %r13, %r10;
    mov.u32 %r10, %r13;
    @%p1 bra RETRY;
    mul.wide.u32 %rd10, %r10, 4;
    add.u64 %rd10, %rd2, %rd10;
    red.global.add.u32 [%rd10+4], 1;                 // seen[value this thread swapped in - 1]
    setp.le.u32 %p2, %r12, 100;
    selp.u32 %r14, 1, 0, %p2;
""" + st(['%r14'])
    exp_aux = [n] + [1] * n + [0] * (128 - n - 1)
    test('atom_cas_loop_increments_once_per_thread_b100', F, kernel(body, 1), 1, n,
         lambda g: [1], aux=aux, aux_expect=exp_aux)


_cas_loop()


# min/max on every integer type, contended by 96 threads; each thread checks its returned
# value against the final one after a barrier (min: old >= final; max: old <= final).
def _minmax():
    n = 96
    r = rng(67)
    inputs = [r.getrandbits(32) for _ in range(n)]
    inputs[5] = 0x80000000
    inputs[6] = 0x7fffffff
    inputs[7] = 0xffffffff
    init32 = [0x10, 0x10, 0x10, 0x10]                 # min.s32, max.s32, min.u32, max.u32
    init64 = [0x10, 0x10, 0x10, 0x10]                 # same for s64/u64 (sign-extended input)
    aux = init32 + [0] * 4 + sum((w64(v) for v in init64), [])
    ops32 = [('min', 's32'), ('max', 's32'), ('min', 'u32'), ('max', 'u32')]
    body = '    cvt.s64.s32 %rd10, %r0;\n'
    for i, (op, ty) in enumerate(ops32):
        body += f'    atom.global.{op}.{ty} %r{10 + i}, [%rd2+{4 * i}], %r0;\n'
    for i, (op, ty) in enumerate(ops32):
        t64 = ty[0] + '64'
        body += f'    atom.global.{op}.{t64} %rd{11 + i}, [%rd2+{32 + 8 * i}], %rd10;\n'
    body += '    bar.sync 0;\n'
    outs = []
    for i, (op, ty) in enumerate(ops32):
        cmp = 'ge' if op == 'min' else 'le'
        t = 's32' if ty == 's32' else 'u32'
        body += f"""    ld.global.u32 %r{20 + i}, [%rd2+{4 * i}];
    setp.{cmp}.{t} %p{1 + i}, %r{10 + i}, %r{20 + i};
    selp.u32 %r{30 + i}, 1, 0, %p{1 + i};
"""
        t64 = ty[0] + '64'
        body += f"""    ld.global.u64 %rd{20 + i}, [%rd2+{32 + 8 * i}];
    setp.{cmp}.{t64} %p{5 + i}, %rd{11 + i}, %rd{20 + i};
    selp.u32 %r{34 + i}, 1, 0, %p{5 + i};
"""
        outs += [f'%r{30 + i}', f'%r{34 + i}']
    body += st(outs)
    vs = [s32(v) for v in inputs]
    exp_aux = [u32(min(vs + [0x10])), u32(max(vs + [0x10])),
               min(inputs + [0x10]), max(inputs + [0x10]), 0, 0, 0, 0]
    v64 = [v & ((1 << 64) - 1) for v in vs]
    exp_aux += w64(min(vs + [0x10])) + w64(max(vs + [0x10])) + w64(min(v64 + [0x10])) + \
        w64(max(v64 + [0x10]))
    test('atom_min_max_s32_u32_s64_u64_contended', F, kernel(body, 8), 8, n,
         lambda g: [1] * 8, inputs, aux=aux, aux_expect=exp_aux)


_minmax()


# and/or/xor on b32 and b64, add on u64 (carries across the words) and s32, exch: finals,
# and for exch the returned values with the final one form the set {0..n} exactly.
def _bitwise_exch():
    n = 64
    r = rng(71)
    inputs = [r.getrandbits(32) | (1 << (t % 32)) for t in range(n)]
    aux = [M32, 0, 0] + [0] * 5 + w64(-1) + w64(0) + w64(0) + w64(0) + [0] * 8 + [0] * 80
    body = """    not.b32 %r20, %r0;
    and.b32 %r20, %r20, 0xfffff00f;
    not.b32 %r20, %r20;                  // clears a few bits of bits 4-11 only
    atom.global.and.b32 %r10, [%rd2], %r20;
    atom.global.or.b32 %r11, [%rd2+4], %r0;
    atom.global.xor.b32 %r12, [%rd2+8], %r0;
    cvt.u64.u32 %rd10, %r0;
    shl.b64 %rd11, %rd10, 29;
    or.b64 %rd11, %rd11, %rd10;
    not.b64 %rd12, %rd11;
    atom.global.and.b64 %rd13, [%rd2+32], %rd12;
    atom.global.or.b64 %rd14, [%rd2+40], %rd11;
    atom.global.xor.b64 %rd15, [%rd2+48], %rd11;
    atom.global.add.u64 %rd16, [%rd2+56], 0xffffffff;
    add.u32 %r21, %r3, 1;
    atom.global.exch.b32 %r13, [%rd2+96], %r21;
    mul.wide.u32 %rd17, %r13, 4;
    add.u64 %rd17, %rd2, %rd17;
    red.global.add.u32 [%rd17+100], 1;              // seen[old] at aux[25..90)
    bar.sync 0;
    setp.ne.u32 %p1, %r3, 0;
    @%p1 bra CHECK;
    ld.global.u32 %r22, [%rd2+96];
    mul.wide.u32 %rd18, %r22, 4;
    add.u64 %rd18, %rd2, %rd18;
    red.global.add.u32 [%rd18+100], 1;              // and the final value,
    st.global.u32 [%rd2+96], 0;                      // which is then cleared
CHECK:
    ld.global.u32 %r23, [%rd2];
    not.b32 %r24, %r10;
    and.b32 %r24, %r24, %r23;            // and: the final bits are a subset of every old
    ld.global.u32 %r25, [%rd2+4];
    not.b32 %r26, %r25;
    and.b32 %r26, %r26, %r11;            // or: every old is a subset of the final
""" + st(['%r24', '%r26'])
    a = M32
    o = x = 0
    a64 = (1 << 64) - 1
    o64 = x64 = 0
    for v in inputs:
        a &= ~(~v & 0xfffff00f) & M32
        o |= v
        x ^= v
        v64 = (v << 29) | v
        a64 &= ~v64
        o64 |= v64
        x64 ^= v64
    exp_aux = [a, o, x] + [0] * 5 + w64(a64) + w64(o64) + w64(x64) + w64(n * 0xffffffff) + \
        [0] * 8
    exp_aux += [0] + [1] * (n + 1)
    exp_aux += [0] * (len(aux) - len(exp_aux))
    test('atom_and_or_xor_b32_b64_add_u64_exch_contended', F, kernel(body, 2), 2, n,
         lambda g: [0, 0], inputs, aux=aux, aux_expect=exp_aux)


_bitwise_exch()


# The same ops on .shared (block 100, 32- and 64-bit, with .sem/.scope forms), then the
# finals copied out after a barrier by thread 0; each thread also takes a ticket from
# atom.shared.add and marks it in a shared seen[] array.
def _shared():
    n = 100
    r = rng(73)
    inputs = [r.getrandbits(32) for _ in range(n)]
    inputs[9] = 0x80000000
    body = """    mov.u32 %r40, sh;
    setp.ne.u32 %p9, %r2, 0;
    @%p9 bra INIT_DONE;
    st.shared.u32 [sh], 0;
    st.shared.u32 [sh+4], 0;
    st.shared.u32 [sh+8], 5;
    st.shared.u32 [sh+12], 0x7fffffff;
    st.shared.u32 [sh+16], 0x80000000;
    st.shared.u32 [sh+20], 0xffffffff;
    st.shared.u32 [sh+24], 0;
    st.shared.u32 [sh+28], 0;
    st.shared.u64 [sh+32], 0;
    st.shared.u64 [sh+40], -1;
    st.shared.u64 [sh+48], 0;
    st.shared.u64 [sh+56], 0;
INIT_DONE:
    shl.b32 %r41, %r2, 2;
    add.u32 %r41, %r40, %r41;
    st.shared.u32 [%r41+64], 0;          // seen[tid]
    bar.sync 0;
    atom.shared.add.u32 %r10, [sh], 1;
    shl.b32 %r42, %r10, 2;
    add.u32 %r42, %r40, %r42;
    atom.relaxed.cta.shared.add.u32 %r43, [%r42+64], 1;
    atom.shared.inc.u32 %r11, [sh+4], 9;
    atom.shared.dec.u32 %r12, [sh+8], 6;
    atom.shared.min.s32 %r13, [sh+12], %r0;
    atom.shared.max.s32 %r14, [sh+16], %r0;
    atom.relaxed.cta.shared.and.b32 %r15, [sh+20], %r0;
    atom.shared.or.b32 %r16, [sh+24], %r0;
    atom.shared.xor.b32 %r17, [sh+28], %r0;
    cvt.u64.u32 %rd10, %r0;
    atom.shared.add.u64 %rd11, [sh+32], %rd10;
    atom.shared.min.u64 %rd12, [sh+40], %rd10;
    cvt.s64.s32 %rd13, %r0;
    atom.shared.max.s64 %rd14, [sh+48], %rd13;
    atom.shared.xor.b64 %rd15, [sh+56], %rd13;
    bar.sync 0;
    ld.shared.u32 %r20, [%r41+64];       // seen[tid]: exactly one ticket
    ld.shared.u32 %r21, [sh];
    ld.shared.u32 %r22, [sh+4];
    ld.shared.u32 %r23, [sh+8];
    ld.shared.u32 %r24, [sh+12];
    ld.shared.u32 %r25, [sh+16];
    ld.shared.u32 %r26, [sh+20];
    ld.shared.u32 %r27, [sh+24];
    ld.shared.u32 %r28, [sh+28];
    ld.shared.v2.u32 {%r29, %r30}, [sh+32];
    ld.shared.v2.u32 {%r31, %r32}, [sh+40];
    ld.shared.v2.u32 {%r33, %r34}, [sh+48];
    ld.shared.v2.u32 {%r35, %r36}, [sh+56];
""" + st(['%r20', '%r21', '%r22', '%r23', '%r24', '%r25', '%r26', '%r27', '%r28', '%r29',
          '%r30', '%r31', '%r32', '%r33', '%r34', '%r35', '%r36'])
    inc = applied(lambda v: atom_inc(v, 9), 0, n)
    dec = applied(lambda v: atom_dec(v, 6), 5, n)
    vs = [s32(v) for v in inputs]
    a, o, x = bit_folds(inputs)
    x64 = 0
    for v in vs:
        x64 ^= v & ((1 << 64) - 1)
    fin = [1, n, inc, dec, u32(min(vs + [0x7fffffff])), u32(max(vs + [-2 ** 31])), a, o, x] + \
        w64(sum(inputs)) + w64(min(inputs)) + w64(max(vs + [0])) + w64(x64)
    test('atom_shared_every_op_32_64_contended_b100', F,
         kernel(body, len(fin), decls='.shared .align 8 .b8 sh[512];\n'), len(fin), n,
         lambda g: fin, inputs)


_shared()


# Generic addressing: the same atomics through generic pointers to shared (cvta.shared) and to
# global (the parameter is a generic address), with and without the .global/.shared space.
def _generic():
    n = 64
    aux = [0, 0x7fffffff, 0, 0]
    body = """    ld.param.u64 %rd10, [p_aux];         // generic address of aux
    mov.u64 %rd11, sh;
    cvta.shared.u64 %rd11, %rd11;        // generic address of sh
    setp.ne.u32 %p9, %r2, 0;
    @%p9 bra G_INIT;
    st.shared.u32 [sh], 0;
    st.shared.u32 [sh+4], 0x7fffffff;
    st.shared.u64 [sh+8], 0;
G_INIT:
    bar.sync 0;
    atom.add.u32 %r10, [%rd10], 1;
    atom.min.s32 %r11, [%rd10+4], %r3;
    atom.add.u32 %r12, [%rd11], 1;
    atom.min.s32 %r13, [%rd11+4], %r3;
    cvt.u64.u32 %rd12, %r3;
    atom.add.u64 %rd13, [%rd11+8], %rd12;
    add.u32 %r14, %r3, 1;
    atom.cas.b32 %r15, [%rd10+8], 0, 1;  // exactly one thread finds 0
    setp.eq.u32 %p1, %r15, 0;
    @%p1 red.add.u32 [%rd10+12], 1;      // the winners, counted
    bar.sync 0;
    ld.shared.u32 %r20, [sh];
    ld.shared.u32 %r21, [sh+4];
    ld.shared.v2.u32 {%r22, %r23}, [sh+8];
""" + st(['%r20', '%r21', '%r22', '%r23'])
    test('atom_generic_addresses_to_shared_and_global', F,
         kernel(body, 4, decls='.shared .align 8 .b8 sh[16];\n'), 4, n,
         lambda g: [n, 0, n * (n - 1) // 2, 0], aux=aux, aux_expect=[n, 0, 1, 1])


_generic()


# Float adds contended by 96 threads with addends whose every partial sum is exact (multiples
# of 1/4 below 2^8 in f32; of 2^-30 in f64), so the final value is the same in any order; and
# the signs of zero in one thread (round to nearest: -0 + -0 = -0, -0 + +0 = +0).
def _float_add():
    n = 96
    aux = [0] * 16
    aux[2] = f32b(-0.0)
    aux[3] = f32b(-0.0)
    aux[4:6] = f64w(-0.0)
    body = """    and.b32 %r20, %r3, 7;
    add.u32 %r20, %r20, 1;
    cvt.rn.f32.u32 %f1, %r20;
    mul.f32 %f1, %f1, 0f3E800000;        // (t%8+1)/4
    atom.global.add.f32 %f2, [%rd2], %f1;
    red.global.add.f32 [%rd2+4], %f1;
    cvt.rn.f64.u32 %fd1, %r20;
    mul.f64 %fd1, %fd1, 0d3E10000000000000;   // (t%8+1) * 2^-30
    atom.global.add.f64 %fd2, [%rd2+24], %fd1;
    setp.ne.u32 %p9, %r3, 0;
    @%p9 bra DONE;
    atom.global.add.f32 %f3, [%rd2+8], 0f80000000;
    atom.global.add.f32 %f4, [%rd2+12], 0f00000000;
    atom.global.add.f64 %fd3, [%rd2+16], 0d8000000000000000;
"""
    s = sum((t % 8 + 1) for t in range(n))
    exp_aux = [f32b(s / 4), f32b(s / 4), f32b(-0.0), f32b(0.0), *f64w(-0.0),
               *f64w(s * 2.0 ** -30)] + [0] * 8
    test('atom_red_add_f32_f64_exact_sums_and_signed_zeros', F, kernel(body, 1), 1, n,
         lambda g: None, aux=aux, aux_expect=exp_aux)


_float_add()


# Half-precision adds (.noftz, §9.7.14.5): f16 and bf16 in the two halves of one word (the
# halves race on the same word), f16x2 and bf16x2, contended by 2 CTAs of 48 adding 0.5
# (every partial sum exact), with a histogram of the returned f16 and bf16 values; shared
# memory the same per CTA; subnormals kept and overflow to infinity in one thread.
def _half_add():
    grid, blk = 2, 48
    n = grid * blk
    aux = [0] * 224
    aux[3] = 0x00010001
    aux[4] = 0x00007bff
    body = """    mov.u32 %r40, sh;
    setp.ne.u32 %p9, %r2, 0;
    @%p9 bra H_INIT;
    st.shared.u32 [sh], 0;
    st.shared.u32 [sh+4], 0;
H_INIT:
    bar.sync 0;
    mov.b16 %rs1, 0x3800;                // f16 0.5
    atom.global.add.noftz.f16 %rs2, [%rd2], %rs1;
    mov.b16 %rs3, 0x3f00;                // bf16 0.5
    atom.global.add.noftz.bf16 %rs4, [%rd2+2], %rs3;
    // A register: ptxas refuses a literal as a .f16x2 operand.
    mov.b32 %r90, 0x34003800;
    atom.global.add.noftz.f16x2 %r10, [%rd2+4], %r90;
    mov.b32 %r91, 0x3e803f00;
    atom.global.add.noftz.bf16x2 %r11, [%rd2+8], %r91;
    atom.shared.add.noftz.f16 %rs5, [sh], %rs1;
    atom.shared.add.noftz.bf16 %rs6, [sh+2], %rs3;
    mov.b32 %r92, 0x34003800;
    atom.shared.add.noftz.f16x2 %r12, [sh+4], %r92;
    cvt.f32.f16 %f1, %rs2;
    mul.f32 %f1, %f1, 0f40000000;
    cvt.rni.u32.f32 %r13, %f1;           // the returned f16 value * 2
    min.u32 %r13, %r13, 100;
    mul.wide.u32 %rd10, %r13, 4;
    add.u64 %rd10, %rd2, %rd10;
    red.global.add.u32 [%rd10+64], 1;
    cvt.f32.bf16 %f2, %rs4;
    mul.f32 %f2, %f2, 0f40000000;
    cvt.rni.u32.f32 %r14, %f2;
    min.u32 %r14, %r14, 100;
    mul.wide.u32 %rd11, %r14, 4;
    add.u64 %rd11, %rd2, %rd11;
    red.global.add.u32 [%rd11+480], 1;
    bar.sync 0;
    ld.shared.u16 %r20, [sh];
    ld.shared.u16 %r21, [sh+2];
    ld.shared.u32 %r22, [sh+4];
    setp.ne.u32 %p8, %r3, 0;
    @%p8 bra H_OUT;
    mov.b16 %rs7, 0x0001;
    atom.global.add.noftz.f16 %rs8, [%rd2+12], %rs7;     // subnormal + subnormal
    atom.global.add.noftz.bf16 %rs9, [%rd2+14], %rs7;
    mov.b16 %rs10, 0x7bff;
    atom.global.add.noftz.f16 %rs11, [%rd2+16], %rs10;   // 65504 + 65504 = +inf
H_OUT:
""" + st(['%r20', '%r21', '%r22'])
    exp_aux = [0] * 224
    exp_aux[0] = (bf16b(48.0) << 16) | f16b(48.0)
    exp_aux[1] = (f16b(24.0) << 16) | f16b(48.0)
    exp_aux[2] = (bf16b(24.0) << 16) | bf16b(48.0)
    exp_aux[3] = 0x00020002
    exp_aux[4] = 0x7c00
    for i in range(n):
        exp_aux[16 + i] = 1
        exp_aux[120 + i] = 1
    shf = [f16b(24.0), bf16b(24.0), (f16b(12.0) << 16) | f16b(24.0)]
    test('atom_add_noftz_f16_bf16_packed_contended_global_and_shared', F,
         kernel(body, 3, decls='.shared .align 4 .b8 sh[8];\n'), 3, blk, lambda g: shf,
         grid=grid, aux=aux, aux_expect=exp_aux)


_half_add()


# atom.cas.b16 (sm_70+): a CAS-loop counter in each half of one word, the even threads on the
# low half and the odd ones on the high half; and 64-bit cas/exch.
def _cas16():
    n = 96
    aux = [0] * 8
    aux[2:4] = w64(0)
    body = """    and.b32 %r20, %r3, 1;
    shl.b32 %r21, %r20, 1;
    cvt.u64.u32 %rd10, %r21;
    add.u64 %rd10, %rd2, %rd10;          // low half for even threads, high half for odd
    mov.b16 %rs1, 0;
C16:
    add.u16 %rs2, %rs1, 1;
    atom.global.cas.b16 %rs3, [%rd10], %rs1, %rs2;
    setp.ne.u16 %p1, %rs3, %rs1;
    mov.b16 %rs1, %rs3;
    @%p1 bra C16;
    mov.b64 %rd11, 0;
C64:
    add.u64 %rd12, %rd11, 0x100000001;
    atom.global.cas.b64 %rd13, [%rd2+8], %rd11, %rd12;
    setp.ne.u64 %p2, %rd13, %rd11;
    mov.b64 %rd11, %rd13;
    @%p2 bra C64;
    atom.global.exch.b64 %rd15, [%rd2+16], 0x5555aaaa00000000;
    setp.eq.u64 %p3, %rd15, 0;
    setp.eq.or.u64 %p4, %rd15, 0x5555aaaa00000000, %p3;   // the initial value or the one written
    selp.u32 %r22, 1, 0, %p4;
""" + st(['%r22'])
    exp_aux = [(48 << 16) | 48, 0] + w64(n * 0x100000001) + [0, 0x5555aaaa, 0, 0]
    test('atom_cas_b16_halves_and_cas_exch_b64', F, kernel(body, 1), 1, n,
         lambda g: [1], aux=aux, aux_expect=exp_aux)


_cas16()


# red (§9.7.14.6): every op on .global and .shared with .sem/.scope forms; 2 CTAs of 100.
def _red():
    grid, blk = 2, 100
    n = grid * blk
    r = rng(79)
    inputs = [r.getrandbits(32) for _ in range(n)]
    aux = [0, 0, 0, 0, 0x7fffffff, 0, M32, 0, 0, 3, 0, 0, 0, 0, 0, 0]
    body = """    setp.ne.u32 %p9, %r2, 0;
    @%p9 bra R_INIT;
    st.shared.u32 [sh], 0;
    st.shared.u64 [sh+8], 0;
R_INIT:
    bar.sync 0;
    red.global.add.u32 [%rd2], %r0;
    red.relaxed.gpu.global.add.s32 [%rd2+4], %r0;
    cvt.u64.u32 %rd10, %r0;
    red.global.add.u64 [%rd2+8], %rd10;
    red.global.min.s32 [%rd2+16], %r0;
    red.relaxed.gpu.global.max.u32 [%rd2+20], %r0;
    red.global.and.b32 [%rd2+24], %r0;
    red.global.or.b32 [%rd2+28], %r0;
    red.global.inc.u32 [%rd2+32], 12;
    red.global.dec.u32 [%rd2+36], 4;
    red.global.xor.b32 [%rd2+40], %r0;
    red.shared.add.u32 [sh], 1;
    red.relaxed.cta.shared.add.u64 [sh+8], %rd10;
    bar.sync 0;
    ld.shared.u32 %r10, [sh];
    ld.shared.v2.u32 {%r11, %r12}, [sh+8];
""" + st(['%r10', '%r11', '%r12'])
    vs = [s32(v) for v in inputs]
    a, o, x = bit_folds(inputs)
    inc = applied(lambda v: atom_inc(v, 12), 0, n)
    dec = applied(lambda v: atom_dec(v, 4), 3, n)
    exp_aux = [u32(sum(inputs)), u32(sum(inputs)), *w64(sum(inputs)),
               u32(min(vs + [0x7fffffff])), max(inputs), a, o, inc, dec, x] + [0] * 5

    def exp(g):
        c = g // blk
        part = inputs[c * blk:(c + 1) * blk]
        return [blk] + w64(sum(part))
    test('red_every_op_global_and_shared_two_ctas_b100', F,
         kernel(body, 3, decls='.shared .align 8 .b8 sh[16];\n'), 3, blk, exp, inputs,
         grid=grid, aux=aux, aux_expect=exp_aux)


_red()


# .acquire/.release/.acq_rel atomics (§9.7.14.5): counters whose finals do not depend on the
# order (no thread waits for another: a spin-wait would need forward progress between
# workgroup invocations, which Vulkan does not promise). The WGSL backend refuses such
# kernels (WGSL has no fence outside a barrier): SPIR-V only (heldout_simt.rs, SPIRV_ONLY).
def _acq_rel():
    n = 96
    body = """    setp.ne.u32 %p9, %r2, 0;
    @%p9 bra A_INIT;
    st.shared.u32 [sh], 0;
A_INIT:
    bar.sync 0;
    atom.release.gpu.global.add.u32 %r10, [%rd2], 1;
    atom.acquire.gpu.global.add.u32 %r11, [%rd2+4], %r2;
    atom.acq_rel.gpu.global.max.u32 %r12, [%rd2+8], %r2;
    red.release.gpu.global.add.u32 [%rd2+12], 2;
    atom.acq_rel.cta.shared.add.u32 %r13, [sh], 1;
    atom.acquire.sys.global.or.b32 %r14, [%rd2+16], 1;
    bar.sync 0;
    ld.shared.u32 %r15, [sh];
    setp.lt.u32 %p1, %r10, 96;
    selp.u32 %r16, 1, 0, %p1;
""" + st(['%r15', '%r16'])
    exp_aux = [n, n * (n - 1) // 2, n - 1, 2 * n, 1, 0, 0, 0]
    test('atom_red_acquire_release_acq_rel_forms', F,
         kernel(body, 2, decls='.shared .align 4 .b32 sh[1];\n'), 2, n, lambda g: [n, 1],
         aux=[0] * 8, aux_expect=exp_aux, note='SPIR-V only: WGSL has no fence outside a barrier')


_acq_rel()


# Shared-memory float atomics keep subnormals (§9.7.14.5: "atom.add.f32 on shared memory
# supports subnormal inputs and results and doesn't flush them to zero"): 64 threads add
# 2^-140 (f32) and 2^-1070 (f64) to a shared word; cas.b16 counters in the halves of a
# shared word; bf16x2 adds on shared memory.
def _shared_sub():
    n = 64
    body = """    setp.ne.u32 %p9, %r2, 0;
    @%p9 bra SS_INIT;
    st.shared.u32 [sh], 0;
    st.shared.u32 [sh+4], 0;
    st.shared.u64 [sh+8], 0;
    st.shared.u32 [sh+16], 0;
SS_INIT:
    bar.sync 0;
    atom.shared.add.f32 %f1, [sh], 0f00000040;          // subnormal 2^-143
    red.shared.add.f32 [sh+4], 0f00000001;
    atom.shared.add.f64 %fd1, [sh+8], 0d0000000000000003;
    and.b32 %r20, %r2, 1;
    shl.b32 %r20, %r20, 1;
    mov.u32 %r21, sh;
    add.u32 %r21, %r21, 16;
    add.u32 %r21, %r21, %r20;
    mov.b16 %rs1, 0;
CS:
    add.u16 %rs2, %rs1, 5;
    atom.shared.cas.b16 %rs3, [%r21], %rs1, %rs2;
    setp.ne.u16 %p1, %rs3, %rs1;
    mov.b16 %rs1, %rs3;
    @%p1 bra CS;
    // A register: ptxas refuses a literal as a .bf16x2 operand.
    mov.b32 %r90, 0x3e803f00;
    atom.shared.add.noftz.bf16x2 %r22, [sh+20], %r90;
    bar.sync 0;
    ld.shared.u32 %r10, [sh];
    ld.shared.u32 %r11, [sh+4];
    ld.shared.v2.u32 {%r12, %r13}, [sh+8];
    ld.shared.u32 %r14, [sh+16];
    ld.shared.u32 %r15, [sh+20];
""" + st(['%r10', '%r11', '%r12', '%r13', '%r14', '%r15'])
    fin = [0x40 * n, n, 3 * n, 0, ((5 * 32) << 16) | (5 * 32),
           (bf16b(16.0) << 16) | bf16b(32.0)]
    test('atom_shared_float_adds_keep_subnormals_and_cas_b16', F,
         kernel(body, 6, decls='.shared .align 8 .b8 sh[24];\n'), 6, n, lambda g: fin)


_shared_sub()
