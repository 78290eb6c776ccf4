# shfl.sync (§9.7.10.6): every mode against a table of b/c operands (out-of-range b, c clamps
# and segment masks, bits of c above 12), lanes in registers, partial warps, exited sources.
F = 'shfl'

# (b, c) pairs: b beyond 31 keeps only b[4:0]; c[4:0] clamps, c[12:8] is the segment mask and
# the bits above are ignored.
SHFL_COMBOS = [(0, 0x1f), (1, 0x1f), (31, 0x1f), (32, 0x1f), (33, 0x1f), (0xffffffff, 0x1f),
               (1, 0), (3, 0), (5, 0x181f), (2, 0x1c00), (17, 0x1f1f), (4, 0x1003), (9, 0xe01f),
               (6, 0x000f), (12, 0x1807), (0, 0xffffffff), (20, 0x101f)]


def shfl_table(mode):
    r = rng(sum(map(ord, mode)))
    inputs = [r.getrandbits(32) for _ in range(64)]
    lines = []
    for i, (b, c) in enumerate(SHFL_COMBOS):
        lines.append(f'    shfl.sync.{mode}.b32 %r10|%p1, %r0, {b}, {c}, 0xffffffff;')
        lines.append('    selp.u32 %r11, 1, 0, %p1;')
        lines.append(st(['%r10', '%r11'], 2 * i))

    def exp(g):
        lane = g % 32
        base = g - lane
        out = []
        for b, c in SHFL_COMBOS:
            j, p = shfl_source(mode, lane, b, c)
            out += [inputs[base + j], int(p)]
        return out
    test(f'shfl_{mode}_operand_table', F, kernel('\n'.join(lines), 2 * len(SHFL_COMBOS)),
         2 * len(SHFL_COMBOS), 64, exp, inputs)


for m in ['up', 'down', 'bfly', 'idx']:
    shfl_table(m)


# Lane-dependent b and c held in registers: every lane gathers from its own source.
def _per_lane():
    r = rng(7)
    inputs = [r.getrandbits(32) for _ in range(96)]
    body = """    mad.lo.u32 %r20, %r1, 7, 3;          // b = 7*lane + 3 (only b[4:0] counts)
    and.b32 %r21, %r1, 3;
    shl.b32 %r21, %r21, 3;               // segment mask (lane&3)<<3 in c[12:8] ...
    shl.b32 %r21, %r21, 8;
    or.b32 %r21, %r21, 0x1e;             // ... clamp 30
    shfl.sync.idx.b32 %r10|%p1, %r0, %r20, %r21, 0xffffffff;
    selp.u32 %r11, 1, 0, %p1;
    shfl.sync.down.b32 %r12|%p2, %r0, %r20, %r21, 0xffffffff;
    selp.u32 %r13, 1, 0, %p2;
""" + st(['%r10', '%r11', '%r12', '%r13'])

    def exp(g):
        lane = g % 32
        base = g - lane
        b = 7 * lane + 3
        c = (((lane & 3) << 3) << 8) | 0x1e
        j1, p1 = shfl_source('idx', lane, b, c)
        j2, p2 = shfl_source('down', lane, b, c)
        return [inputs[base + j1], int(p1), inputs[base + j2], int(p2)]
    test('shfl_lane_dependent_b_and_c_in_registers', F, kernel(body, 4), 4, 96, exp, inputs)


_per_lane()


# Block 100: a shfl.down reduction tree whose clamp is each warp's last existing lane (the
# last warp holds 4 lanes), so no lane reads a lane outside the block; the sum wraps.
def _down_tree():
    r = rng(11)
    inputs = [r.getrandbits(31) | (r.getrandbits(1) << 31) for _ in range(100)]
    body = """    and.b32 %r20, %r2, -32;
    sub.u32 %r21, %r4, %r20;
    sub.u32 %r21, %r21, 1;
    min.u32 %r21, %r21, 31;              // c = lanes in this warp - 1
    mov.u32 %r10, %r0;
"""
    for i, off in enumerate([16, 8, 4, 2, 1]):
        body += f"""    shfl.sync.down.b32 %r12|%p1, %r10, {off}, %r21, 0xffffffff;
    @%p1 add.u32 %r10, %r10, %r12;
    selp.u32 %r13, 1, 0, %p1;
""" + st(['%r10', '%r13'], 2 * i) + '\n'
    warps = warps_of_cta(100)

    def exp(g):
        w = warps[g // 32]
        n = len(w)
        vals = [inputs[t] for t in w]
        out_per_lane = [[] for _ in range(n)]
        for off in [16, 8, 4, 2, 1]:
            new = []
            for lane in range(n):
                j, p = shfl_source('down', lane, off, n - 1)
                new.append(u32(vals[lane] + vals[j]) if p else vals[lane])
                out_per_lane[lane] += [new[-1], int(p)]
            vals = new
        return out_per_lane[g % 32]
    test('shfl_down_tree_clamped_to_partial_warp_b100', F, kernel(body, 10), 10, 100, exp, inputs)


_down_tree()


# Block 33: an inclusive scan with shfl.up and c = 0; warp 1 is the single lane 32.
def _up_scan():
    inputs = [(t * 2654435761) & 0xffff for t in range(33)]
    body = '    mov.u32 %r10, %r0;\n'
    for i, off in enumerate([1, 2, 4, 8, 16]):
        body += f"""    shfl.sync.up.b32 %r12|%p1, %r10, {off}, 0, 0xffffffff;
    @%p1 add.u32 %r10, %r10, %r12;
    selp.u32 %r13, 1, 0, %p1;
    shl.b32 %r13, %r13, {i};
    or.b32 %r14, %r14, %r13;
"""
    body = '    mov.u32 %r14, 0;\n' + body + st(['%r10', '%r14'])

    def exp(g):
        lane = g % 32
        base = g - lane
        s = sum(inputs[base:g + 1])
        preds = sum(1 << i for i, off in enumerate([1, 2, 4, 8, 16]) if lane >= off)
        return [u32(s), preds]
    test('shfl_up_inclusive_scan_b33', F, kernel(body, 2), 2, 33, exp, inputs)


_up_scan()


# Three warps: a butterfly all-reduce (max of signed values, then sum) gives every lane the
# warp's result.
def _bfly_all():
    r = rng(13)
    inputs = [r.getrandbits(32) for _ in range(96)]
    body = '    mov.u32 %r10, %r0;\n    mov.u32 %r15, %r0;\n'
    for off in [16, 8, 4, 2, 1]:
        body += f"""    shfl.sync.bfly.b32 %r12, %r10, {off}, 31, -1;
    max.s32 %r10, %r10, %r12;
    shfl.sync.bfly.b32 %r16, %r15, {off}, 31, -1;
    add.u32 %r15, %r15, %r16;
"""
    body += st(['%r10', '%r15'])

    def exp(g):
        w = inputs[g - g % 32: g - g % 32 + 32]
        return [max(s32(v) for v in w), u32(sum(w))]
    test('shfl_bfly_all_reduce_three_warps', F, kernel(body, 2), 2, 96, exp, inputs)


_bfly_all()


# Odd lanes exit; the even lanes shuffle with membermask 0x55555555. A source that exited is
# undefined in d (§9.7.10.6: "results are undefined if a thread sources a register from an
# inactive thread"), but the predicate depends on lane, b and c only, so it is stored; d is
# stored where the source is an even lane or the lane itself (p false).
def _inactive_src():
    r = rng(17)
    inputs = [r.getrandbits(32) for _ in range(64)]
    body = """    and.b32 %r20, %r1, 1;
    setp.ne.u32 %p9, %r20, 0;
    @%p9 bra DONE;
    shfl.sync.bfly.b32 %r10|%p1, %r0, 2, 31, 0x55555555;
    selp.u32 %r11, 1, 0, %p1;
    shfl.sync.bfly.b32 %r12|%p2, %r0, 1, 31, 0x55555555;
    selp.u32 %r13, 1, 0, %p2;
    shfl.sync.idx.b32 %r14|%p3, %r0, 3, 31, 0x55555555;
    selp.u32 %r15, 1, 0, %p3;
    shfl.sync.up.b32 %r16|%p4, %r0, 2, 0, 0x55555555;
    selp.u32 %r17, 1, 0, %p4;
    shfl.sync.down.b32 %r18|%p5, %r0, 3, 30, 0x55555555;
    selp.u32 %r19, 1, 0, %p5;
    xor.b32 %r18, %r18, %r0;             // a down by 3 from an even lane reads an odd one:
    selp.u32 %r18, 0, %r18, %p5;         // keep only lanes that fall back to their own value
""" + st(['%r10', '%r11', '%r13', '%r15', '%r16', '%r17', '%r18', '%r19'])

    def exp(g):
        lane = g % 32
        if lane & 1:
            return None
        base = g - lane
        j, p = shfl_source('up', lane, 2, 0)
        _, pd = shfl_source('down', lane, 3, 30)
        return [inputs[base + (lane ^ 2)], 1, 1, 1, inputs[base + j], int(p),
                0, int(pd)]
    test('shfl_exited_source_lanes_give_defined_predicates', F, kernel(body, 8), 8, 64, exp,
         inputs, note='d from an exited lane is undefined: only p is checked there')


_inactive_src()


# Membermask not full: lanes 0-15 shuffle among themselves (mask 0xffff), lanes 16-31 in
# another branch with mask 0xffff0000; each group names only its own lanes.
def _halves():
    r = rng(19)
    inputs = [r.getrandbits(32) for _ in range(64)]
    body = """    setp.ge.u32 %p9, %r1, 16;
    @%p9 bra HIGH;
    shfl.sync.bfly.b32 %r10|%p1, %r0, 4, 0x0f, 0x0000ffff;
    selp.u32 %r11, 1, 0, %p1;
    bra.uni JOIN;
HIGH:
    shfl.sync.idx.b32 %r10|%p1, %r0, 21, 0x1f, 0xffff0000;
    selp.u32 %r11, 2, 3, %p1;
JOIN:
""" + st(['%r10', '%r11'])

    def exp(g):
        lane = g % 32
        base = g - lane
        if lane < 16:
            j, p = shfl_source('bfly', lane, 4, 0x0f)
            return [inputs[base + j], int(p)]
        return [inputs[base + 21], 2]
    test('shfl_membermask_halves_in_two_branches', F, kernel(body, 2), 2, 64, exp, inputs)


_halves()
