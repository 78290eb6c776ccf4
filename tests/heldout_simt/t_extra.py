# What an outside tester tries next: collectives inside a called .func, a block of 1024, several
# CTAs of a partial-warp block, dynamic shared memory beside the collectives, sink operands,
# atomics on a module .global variable, bar.red with a thread count.
F = 'extra'


# A shfl.bfly reduction inside a .func, called twice by every thread.
def _func():
    n = 64
    r = rng(127)
    inputs = [r.getrandbits(32) for _ in range(n)]
    decls = """
.func (.param .b32 ret) warp_sum(.param .b32 v)
{
    .reg .b32 %a<8>;
    ld.param.b32 %a0, [v];
    shfl.sync.bfly.b32 %a1, %a0, 16, 31, -1;
    add.u32 %a0, %a0, %a1;
    shfl.sync.bfly.b32 %a1, %a0, 8, 31, -1;
    add.u32 %a0, %a0, %a1;
    shfl.sync.bfly.b32 %a1, %a0, 4, 31, -1;
    add.u32 %a0, %a0, %a1;
    shfl.sync.bfly.b32 %a1, %a0, 2, 31, -1;
    add.u32 %a0, %a0, %a1;
    shfl.sync.bfly.b32 %a1, %a0, 1, 31, -1;
    add.u32 %a0, %a0, %a1;
    st.param.b32 [ret], %a0;
    ret;
}
"""
    body = """    {
    .param .b32 arg;
    .param .b32 res;
    st.param.b32 [arg], %r0;
    call (res), warp_sum, (arg);
    ld.param.b32 %r10, [res];
    }
    mul.lo.u32 %r20, %r0, 3;
    {
    .param .b32 arg;
    .param .b32 res;
    st.param.b32 [arg], %r20;
    call (res), warp_sum, (arg);
    ld.param.b32 %r11, [res];
    }
""" + st(['%r10', '%r11'])

    def exp(g):
        w = inputs[g - g % 32: g - g % 32 + 32]
        return [u32(sum(w)), u32(3 * sum(w))]
    test('collectives_inside_a_called_func', F, kernel(body, 2, decls=decls), 2, n, exp, inputs)


_func()


# A block of 1024 threads (32 warps): a shfl.down tree and a ballot per warp, and a bar.red.
def _b1024():
    n = 1024
    r = rng(131)
    inputs = [r.getrandbits(32) for _ in range(n)]
    body = '    mov.u32 %r10, %r0;\n'
    for off in [16, 8, 4, 2, 1]:
        body += f"""    shfl.sync.down.b32 %r12, %r10, {off}, 31, -1;
    add.u32 %r10, %r10, %r12;
"""
    body += """    shfl.sync.idx.b32 %r10, %r10, 0, 31, -1;
    and.b32 %r20, %r0, 1;
    setp.ne.u32 %p1, %r20, 0;
    vote.sync.ballot.b32 %r11, %p1, -1;
    bar.red.popc.u32 %r13, 0, %p1;
""" + st(['%r10', '%r11', '%r13'])
    odd = sum(v & 1 for v in inputs)

    def exp(g):
        w = inputs[g - g % 32: g - g % 32 + 32]
        return [u32(sum(w)), sum(1 << i for i, v in enumerate(w) if v & 1), odd]
    test('warp_collectives_in_a_block_of_1024', F, kernel(body, 3), 3, n, exp, inputs)


_b1024()


# Three CTAs of 48: lanes and warps restart in each CTA.
def _grid():
    grid, blk = 3, 48
    n = grid * blk
    r = rng(137)
    inputs = [r.getrandbits(32) for _ in range(n)]
    body = """    shfl.sync.idx.b32 %r10, %r0, 2, 31, -1;
    and.b32 %r20, %r0, 1;
    setp.ne.u32 %p1, %r20, 0;
    vote.sync.ballot.b32 %r11, %p1, -1;
    redux.sync.max.u32 %r12, %r0, -1;
""" + st(['%r1', '%r10', '%r11', '%r12'])

    def exp(g):
        c, t = divmod(g, blk)
        base = c * blk + (t - t % 32)
        w = [base + i for i in range(min(32, blk - (t - t % 32)))]
        return [t % 32, inputs[base + 2], sum(1 << (u - base) for u in w if inputs[u] & 1),
                max(inputs[u] for u in w)]
    test('collectives_in_three_ctas_of_48', F, kernel(body, 4), 4, blk, exp, inputs, grid=grid)


_grid()


# Dynamic shared memory used beside the collectives' own scratch: each thread writes its
# word, shuffles, and reads a neighbour's word after a barrier.
def _dyn():
    n = 100
    r = rng(139)
    inputs = [r.getrandbits(32) for _ in range(n)]
    decls = '.extern .shared .align 16 .b8 dsm[];\n'
    body = """    mov.u32 %r20, dsm;
    shl.b32 %r21, %r2, 2;
    add.u32 %r21, %r20, %r21;
    st.shared.u32 [%r21], %r0;
    shfl.sync.bfly.b32 %r10, %r0, 1, 31, -1;
    bar.sync 0;
    add.u32 %r22, %r2, 1;
    rem.u32 %r22, %r22, 100;
    shl.b32 %r22, %r22, 2;
    add.u32 %r22, %r20, %r22;
    ld.shared.u32 %r11, [%r22];
    atom.shared.add.u32 %r23, [dsm+400], 1;
    bar.sync 0;
    ld.shared.u32 %r12, [dsm+400];
""" + st(['%r10', '%r11', '%r12'])

    def exp(g):
        lane = g % 32
        base = g - lane
        partner = base + (lane ^ 1)
        # block 100: lane 3 of the last warp (99) reads lane 2; lanes 96-99 pair among themselves
        return [inputs[partner], inputs[(g + 1) % 100], 100]
    test('dynamic_shared_memory_beside_collectives_b100', F, kernel(body, 3, decls=decls), 3, n,
         exp, inputs)
    TESTS[-1][3]['dynamic_shared_bytes'] = 416


_dyn()


# Sink operands: elect.sync _|p, match.all.sync _|p; bar.red.popc with the CTA's thread count;
# vote.sync.uni; atomics on a module-scope .global variable by name.
def _sinks():
    n = 64
    r = rng(149)
    inputs = [r.getrandbits(4) for _ in range(n)]
    inputs[32:64] = [5] * 32
    decls = '.global .align 4 .u32 counter;\n.global .align 8 .u64 total;\n'
    body = """    elect.sync _|%p1, -1;
    selp.u32 %r10, 1, 0, %p1;
    vote.sync.ballot.b32 %r11, %p1, -1;
    popc.b32 %r11, %r11;                 // one leader per warp
    match.all.sync.b32 _|%p2, %r0, -1;
    selp.u32 %r12, 1, 0, %p2;
    and.b32 %r20, %r0, 1;
    setp.ne.u32 %p3, %r20, 0;
    bar.red.popc.u32 %r13, 1, 64, %p3;
    atom.global.add.u32 %r21, [counter], 1;
    cvt.u64.u32 %rd10, %r0;
    red.global.add.u64 [total], %rd10;
    bar.sync 0;
    ld.global.u32 %r14, [counter];
    ld.global.v2.u32 {%r15, %r16}, [total];
""" + st(['%r11', '%r12', '%r13', '%r14', '%r15', '%r16'])
    odd = sum(v & 1 for v in inputs)

    def exp(g):
        w = inputs[g - g % 32: g - g % 32 + 32]
        return [1, int(len(set(w)) == 1), odd, n, sum(inputs), 0]
    test('sink_operands_thread_count_bar_red_and_module_globals', F,
         kernel(body, 6, decls=decls), 6, n, exp, inputs)


_sinks()


# Guarded collectives: `@p shfl`/`@p vote`/`@p redux` whose guard is false exactly for the
# lanes outside the membermask (they do not execute it); and bar.warp.sync with each half's
# own mask in two branches.
def _guarded():
    n = 64
    r = rng(151)
    inputs = [r.getrandbits(32) for _ in range(n)]
    body = """    setp.lt.u32 %p1, %r1, 16;
    mov.u32 %r10, 7;
    mov.u32 %r11, 7;
    mov.u32 %r12, 7;
    @%p1 shfl.sync.idx.b32 %r10, %r0, 3, 31, 0x0000ffff;
    and.b32 %r20, %r0, 1;
    setp.ne.u32 %p2, %r20, 0;
    @!%p1 vote.sync.ballot.b32 %r11, %p2, 0xffff0000;
    @%p1 redux.sync.min.u32 %r12, %r0, 0x0000ffff;
    mov.u32 %r30, sh;
    shl.b32 %r21, %r2, 2;
    add.u32 %r21, %r30, %r21;
    st.shared.u32 [%r21], %r0;
    @!%p1 bra HIGH;
    bar.warp.sync 0x0000ffff;
    xor.b32 %r22, %r2, 15;
    bra.uni JOIN;
HIGH:
    bar.warp.sync 0xffff0000;
    xor.b32 %r22, %r2, 15;
JOIN:
    shl.b32 %r22, %r22, 2;
    add.u32 %r22, %r30, %r22;
    ld.shared.u32 %r13, [%r22];
""" + st(['%r10', '%r11', '%r12', '%r13'])

    def exp(g):
        lane = g % 32
        base = g - lane
        if lane < 16:
            lo = inputs[base:base + 16]
            return [inputs[base + 3], 7, min(lo), inputs[g ^ 15]]
        hi = inputs[base + 16:base + 32]
        return [7, sum(1 << (16 + i) for i, v in enumerate(hi) if v & 1), 7, inputs[g ^ 15]]
    test('guarded_collectives_and_bar_warp_sync_per_half', F,
         kernel(body, 4, decls='.shared .align 4 .b32 sh[64];\n'), 4, n, exp, inputs)


_guarded()


# Warp collectives in a kernel the CTA barrier scheduler runs (it has bar.arrive): warp 0
# produces into shared memory and arrives, warp 1 waits and consumes; then every warp runs
# shfl, vote, redux and match.b64 (block 96: warp 2 idles at the count-less barrier).
def _scheduled():
    n = 96
    r = rng(157)
    inputs = [r.getrandbits(3) for _ in range(n)]
    body = """    mov.u32 %r30, sh;
    shl.b32 %r21, %r1, 2;
    add.u32 %r21, %r30, %r21;
    shr.u32 %r22, %r2, 5;
    setp.eq.u32 %p1, %r22, 0;
    setp.eq.u32 %p2, %r22, 1;
    mov.u32 %r14, 0;
    @!%p1 bra CONSUMER;
    mul.lo.u32 %r23, %r0, 10;
    st.shared.u32 [%r21], %r23;
    bar.arrive 1, 64;
    bra.uni WARP;
CONSUMER:
    @!%p2 bra WARP;
    bar.sync 1, 64;
    xor.b32 %r24, %r21, 4;
    ld.shared.u32 %r14, [%r24];          // the producer's word of lane^1
WARP:
    bar.sync 0;
    shfl.sync.down.b32 %r10, %r0, 2, 31, -1;
    and.b32 %r25, %r0, 1;
    setp.ne.u32 %p3, %r25, 0;
    vote.sync.ballot.b32 %r11, %p3, -1;
    redux.sync.add.u32 %r12, %r0, -1;
    cvt.u64.u32 %rd10, %r0;
    shl.b64 %rd10, %rd10, 33;
    match.any.sync.b64 %r13, %rd10, -1;
""" + st(['%r10', '%r11', '%r12', '%r13', '%r14'])

    def exp(g):
        lane = g % 32
        base = g - lane
        w = inputs[base:base + 32]
        j, p = shfl_source('down', lane, 2, 31)
        prod = inputs[lane ^ 1] * 10 if g // 32 == 1 else 0
        return [w[j], sum(1 << i for i, v in enumerate(w) if v & 1), u32(sum(w)),
                sum(1 << i for i, v in enumerate(w) if v == inputs[g]), prod]
    test('collectives_and_match_b64_under_the_barrier_scheduler', F,
         kernel(body, 5, decls='.shared .align 4 .b32 sh[32];\n'), 5, n, exp, inputs)


_scheduled()


# Half-precision red and 64-bit cas/exch on shared memory.
def _red_half_shared64():
    n = 64
    body = """    setp.ne.u32 %p9, %r2, 0;
    @%p9 bra S_INIT;
    st.shared.u64 [sh], 0;
    st.shared.u64 [sh+8], 0;
S_INIT:
    bar.sync 0;
    mov.b16 %rs1, 0x3800;
    red.global.add.noftz.f16 [%rd2], %rs1;
    // A register: ptxas refuses a literal as a .bf16 operand.
    mov.b16 %rs35, 0x3f00;
    red.global.add.noftz.bf16 [%rd2+2], %rs35;
    mov.b32 %r90, 0x38003400;
    red.global.add.noftz.f16x2 [%rd2+4], %r90;
    mov.b32 %r91, 0x3f003e80;
    red.global.add.noftz.bf16x2 [%rd2+8], %r91;
    mov.b64 %rd11, 0;
CAS:
    add.u64 %rd12, %rd11, 0x100000003;
    atom.shared.cas.b64 %rd13, [sh], %rd11, %rd12;
    setp.ne.u64 %p1, %rd13, %rd11;
    mov.b64 %rd11, %rd13;
    @%p1 bra CAS;
    atom.shared.exch.b64 %rd14, [sh+8], 0x123456789;
    setp.eq.u64 %p2, %rd14, 0;
    setp.eq.or.u64 %p3, %rd14, 0x123456789, %p2;
    selp.u32 %r12, 1, 0, %p3;
    bar.sync 0;
    ld.shared.v2.u32 {%r10, %r11}, [sh];
    ld.shared.v2.u32 {%r13, %r14}, [sh+8];
""" + st(['%r10', '%r11', '%r12', '%r13', '%r14'])
    exp_aux = [(bf16b(32.0) << 16) | f16b(32.0), (f16b(32.0) << 16) | f16b(16.0),
               (bf16b(32.0) << 16) | bf16b(16.0), 0]
    test('red_half_types_and_shared_cas_exch_b64', F,
         kernel(body, 5, decls='.shared .align 8 .b8 sh[16];\n'), 5, n,
         lambda g: [3 * n, n, 1, 0x23456789, 1], aux=[0] * 4, aux_expect=exp_aux)


_red_half_shared64()
