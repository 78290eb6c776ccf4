# Special registers (§10: %laneid, %warpid, %nwarpid, %lanemask_*, WARP_SZ) in 2-D and 3-D
# blocks, and CTA barriers (§9.7.14.1: bar/barrier forms, bar.red).
F = 'sreg_bar'

# 2-D/3-D prelude: %r3 = linear thread id (x + y*nx + z*nx*ny), grid of one CTA.
PRELUDE_XYZ = """    ld.param.u64 %rd30, [p_out];
    cvta.to.global.u64 %rd30, %rd30;
    mov.u32 %r2, %tid.x;
    mov.u32 %r6, %tid.y;
    mov.u32 %r7, %tid.z;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r8, %ntid.y;
    mad.lo.u32 %r9, %r7, %r8, %r6;
    mad.lo.u32 %r3, %r9, %r4, %r2;
    mul.wide.u32 %rd31, %r3, {stride};
    add.u64 %rd0, %rd30, %rd31;
"""


def _sreg(block, name):
    n = block[0] * block[1] * block[2]
    body = PRELUDE_XYZ.format(stride=4 * 10) + """    mov.u32 %r10, %laneid;
    mov.u32 %r11, %lanemask_eq;
    mov.u32 %r12, %lanemask_lt;
    mov.u32 %r13, %lanemask_le;
    mov.u32 %r14, %lanemask_gt;
    mov.u32 %r15, %lanemask_ge;
    mov.u32 %r16, WARP_SZ;
    mov.u32 %r20, %warpid;
    mov.u32 %r21, %nwarpid;
    setp.lt.u32 %p1, %r20, %r21;         // %warpid's value may change; it stays below %nwarpid
    selp.u32 %r17, 1, 0, %p1;
    setp.eq.u32 %p2, %r3, %r3;
    vote.sync.ballot.b32 %r18, %p2, -1;  // the lanes of this thread's warp
    shfl.sync.idx.b32 %r19, %r3, 0, 31, -1;  // lane 0's linear id
""" + st(['%r10', '%r11', '%r12', '%r13', '%r14', '%r15', '%r16', '%r17', '%r18', '%r19'])

    def exp(g):
        lane = g % 32
        base = g - lane
        lanes = min(32, n - base)
        return [lane, 1 << lane, (1 << lane) - 1, (1 << (lane + 1)) - 1,
                u32(~((1 << (lane + 1)) - 1)), u32(~((1 << lane) - 1)), 32, 1,
                (1 << lanes) - 1 if lanes < 32 else M32, base]
    test(name, F, kernel(body, 10, prelude=False), 10, block, exp)


_sreg((8, 12, 1), 'sreg_lane_registers_in_a_2d_block_8x12')
_sreg((5, 4, 3), 'sreg_lane_registers_in_a_3d_block_5x4x3')
_sreg((33, 1, 1), 'sreg_lane_registers_b33')
_sreg((7, 3, 5), 'sreg_lane_registers_in_a_3d_block_7x3x5')


# bar.red / barrier.red popc, and, or (c and !c) over a block of 100, twice with different
# predicates on the same and on different barrier ids.
def _bar_red():
    r = rng(59)
    n = 100
    inputs = [r.getrandbits(8) for _ in range(n)]
    body = """    and.b32 %r20, %r0, 1;
    setp.ne.u32 %p1, %r20, 0;
    and.b32 %r21, %r0, 0x30;
    setp.ne.u32 %p2, %r21, 0;            // true in most threads
    bar.red.popc.u32 %r10, 0, %p1;
    bar.red.popc.u32 %r11, 1, !%p1;
    bar.red.and.pred %p3, 2, %p2;
    bar.red.or.pred %p4, 3, !%p2;
    barrier.red.popc.u32 %r12, 4, %p2;
    barrier.cta.red.and.pred %p5, 0, %p1;
    barrier.red.or.aligned.pred %p6, 5, %p1;
    setp.eq.u32 %p7, %r0, %r0;
    bar.red.and.pred %p8, 6, %p7;
    selp.u32 %r13, 1, 0, %p3;
    selp.u32 %r14, 1, 0, %p4;
    selp.u32 %r15, 1, 0, %p5;
    selp.u32 %r16, 1, 0, %p6;
    selp.u32 %r17, 1, 0, %p8;
""" + st(['%r10', '%r11', '%r12', '%r13', '%r14', '%r15', '%r16', '%r17'])
    ones = sum(v & 1 for v in inputs)
    p2 = [bool(v & 0x30) for v in inputs]

    def exp(g):
        return [ones, n - ones, sum(p2), int(all(p2)), int(not all(p2)), int(ones == n),
                int(ones > 0), 1]
    test('bar_red_popc_and_or_forms_b100', F, kernel(body, 8), 8, n, exp, inputs)


_bar_red()


# Data exchanged through shared memory across each barrier form (block 96): bar.sync,
# bar.cta.sync, barrier.sync, barrier.sync.aligned, barrier.cta.sync with the CTA's count,
# bar.sync with a register id, each followed by a read of another thread's word.
def _bar_forms():
    n = 96
    inputs = [(t * 0x9e3779b9) & M32 for t in range(n)]
    forms = ['bar.sync 0;', 'bar.cta.sync 1;', 'barrier.sync 2;', 'barrier.sync.aligned 3;',
             'barrier.cta.sync 4, 96;', 'bar.sync %r30;', 'bar.sync 15, %r31;']
    body = """    mov.u32 %r20, buf;
    mov.u32 %r30, 7;
    mov.u32 %r31, 96;
    mov.u32 %r10, %r0;
"""
    regs = []
    for i, f in enumerate(forms):
        # every step: write my value at slot tid, barrier, read slot (tid*5+i+1) % 96, barrier
        body += f"""    shl.b32 %r21, %r2, 2;
    add.u32 %r21, %r20, %r21;
    st.shared.u32 [%r21], %r10;
    {f}
    mad.lo.u32 %r22, %r2, 5, {i + 1};
    rem.u32 %r22, %r22, 96;
    shl.b32 %r22, %r22, 2;
    add.u32 %r22, %r20, %r22;
    ld.shared.u32 %r10, [%r22];
    add.u32 %r10, %r10, {i};
    bar.sync 0;
    mov.u32 %r{50 + i}, %r10;
"""
        regs.append(f'%r{50 + i}')
    body += st(regs)
    vals = list(inputs)
    hist = []
    for i in range(len(forms)):
        vals = [u32(vals[(t * 5 + i + 1) % 96] + i) for t in range(n)]
        hist.append(vals)
    test('barrier_forms_exchange_through_shared_b96', F,
         kernel(body, len(forms), decls='.shared .align 4 .b32 buf[96];\n'), len(forms), n,
         lambda g: [h[g] for h in hist], inputs)


_bar_forms()


# A block tree reduction whose threads past the data exit before the first barrier (the
# barrier waits for the non-exited threads only, §9.7.14.1), barriers in a loop; block 100,
# 77 live threads.
def _bar_exit_tree():
    n = 100
    live = 77
    r = rng(61)
    inputs = [r.getrandbits(16) for _ in range(n)]
    body = f"""    mov.u32 %r20, buf;
    shl.b32 %r21, %r2, 2;
    add.u32 %r21, %r20, %r21;
    st.shared.u32 [%r21], 0;
    add.u32 %r23, %r2, 64;
    shl.b32 %r23, %r23, 2;
    add.u32 %r23, %r20, %r23;
    st.shared.u32 [%r23], 0;             // slots 64..163 hold 0 too
    bar.sync 0;
    setp.ge.u32 %p9, %r2, {live};
    @%p9 bra DONE;
    st.shared.u32 [%r21], %r0;
    mov.u32 %r24, 64;
LOOP:
    bar.sync 0;
    setp.lt.u32 %p1, %r2, %r24;
    shl.b32 %r25, %r24, 2;
    add.u32 %r25, %r21, %r25;
    @%p1 ld.shared.u32 %r26, [%r25];
    @%p1 ld.shared.u32 %r27, [%r21];
    bar.sync 0;
    @%p1 add.u32 %r27, %r27, %r26;
    @%p1 st.shared.u32 [%r21], %r27;
    shr.u32 %r24, %r24, 1;
    setp.ne.u32 %p2, %r24, 0;
    @%p2 bra LOOP;
    bar.sync 0;
    ld.shared.u32 %r10, [buf];
""" + st(['%r10'])
    total = sum(inputs[:live])
    test('barriers_in_a_loop_after_threads_exited_b100', F,
         kernel(body, 1, decls='.shared .align 4 .b32 buf[168];\n'), 1, n,
         lambda g: [total] if g < live else None, inputs)


_bar_exit_tree()


# Non-aligned barrier.sync met at two different instructions (§9.7.14.1: barrier without
# .aligned need not be executed by every thread at the same instruction, sm_70+): the threads
# below 40 (warp 1 split) take one branch, the others another, each with its own barrier.sync 0.
def _bar_unaligned():
    n = 64
    inputs = [(t * 31 + 7) & M32 for t in range(n)]
    body = """    mov.u32 %r20, buf;
    shl.b32 %r21, %r2, 2;
    add.u32 %r21, %r20, %r21;
    setp.lt.u32 %p1, %r2, 40;
    @!%p1 bra OTHER;
    st.shared.u32 [%r21], %r0;
    barrier.sync 0;
    sub.u32 %r22, 63, %r2;
    bra.uni JOIN;
OTHER:
    add.u32 %r23, %r0, 1000;
    st.shared.u32 [%r21], %r23;
    barrier.sync 0;
    sub.u32 %r22, 63, %r2;
JOIN:
    shl.b32 %r22, %r22, 2;
    add.u32 %r22, %r20, %r22;
    ld.shared.u32 %r10, [%r22];
""" + st(['%r10'])

    def exp(g):
        s = 63 - g
        return [inputs[s] + (1000 if s >= 40 else 0)]
    test('barrier_sync_unaligned_in_two_branches', F,
         kernel(body, 1, decls='.shared .align 4 .b32 buf[64];\n'), 1, n, exp, inputs)


_bar_unaligned()
