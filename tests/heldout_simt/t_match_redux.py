# match.sync (§9.7.14.10) and redux.sync (§9.7.14.12).
F = 'match_redux'


def match_any(vals):
    """{lane: value} → {lane: mask of the lanes with the same value}"""
    return {l: sum(1 << m for m, w in vals.items() if w == v) for l, v in vals.items()}


def match_all(vals):
    same = len(set(vals.values())) <= 1
    mask = sum(1 << l for l in vals) if same else 0
    return mask, int(same)


# match.any/all on b32 and b64 (values that differ only in the high word must not match),
# block 100; the last warp holds 4 lanes.
def _match_b100():
    r = rng(47)
    n = 100
    inputs = [r.randrange(4) for _ in range(n)]
    inputs[32:64] = [9] * 32          # warp 1: all equal
    body = """    and.b32 %r20, %r1, 1;
    cvt.u64.u32 %rd10, %r0;
    cvt.u64.u32 %rd11, %r20;
    shl.b64 %rd11, %rd11, 32;
    or.b64 %rd10, %rd10, %rd11;          // b64 value: input | (lane&1)<<32
    match.any.sync.b32 %r10, %r0, -1;
    match.all.sync.b32 %r11|%p1, %r0, -1;
    selp.u32 %r12, 1, 0, %p1;
    match.any.sync.b64 %r13, %rd10, -1;
    match.all.sync.b64 %r14|%p2, %rd10, -1;
    selp.u32 %r15, 1, 0, %p2;
""" + st(['%r10', '%r11', '%r12', '%r13', '%r14', '%r15'])

    def exp(g):
        w = warps_of_cta(n)[g // 32]
        v32 = {t % 32: inputs[t] for t in w}
        v64 = {t % 32: inputs[t] | ((t % 2) << 32) for t in w}
        lane = g % 32
        m, p = match_all(v32)
        m6, p6 = match_all(v64)
        return [match_any(v32)[lane], m, p, match_any(v64)[lane], m6, p6]
    test('match_any_all_b32_b64_b100', F, kernel(body, 6), 6, n, exp, inputs)


_match_b100()


# match.all's predicate after exits: the lanes that differ exit first, so the rest match
# ("all non-exited threads in membermask have same value").
def _match_exit():
    n = 64
    inputs = [7] * 64
    for t in [3, 17, 31, 40, 63]:
        inputs[t] = 100 + t            # these differ, then exit
    inputs[33] = 8                     # warp 1 also has one that differs and stays
    body = """    setp.ge.u32 %p9, %r0, 100;
    @%p9 bra DONE;
    match.all.sync.b32 %r10|%p1, %r0, -1;
    selp.u32 %r11, 1, 0, %p1;
    match.any.sync.b32 %r12, %r0, -1;
    setp.lt.u32 %p3, %r1, 16;
    mov.u32 %r13, 2;
    mov.u32 %r14, 2;
    @%p3 bra LOWHALF;
    bra.uni JOIN;
LOWHALF:
    match.all.sync.b32 %r13|%p4, %r0, 0x0000ffff;
    selp.u32 %r14, 1, 0, %p4;
JOIN:
""" + st(['%r10', '%r11', '%r12', '%r13', '%r14'])

    def exp(g):
        if inputs[g] >= 100:
            return None
        w = [t for t in warps_of_cta(n)[g // 32] if inputs[t] < 100]
        v = {t % 32: inputs[t] for t in w}
        lane = g % 32
        m, p = match_all(v)
        if lane < 16:
            m2, p2 = match_all({l: x for l, x in v.items() if l < 16})
        else:
            m2, p2 = 2, 2
        return [m, p, match_any(v)[lane], m2, p2]
    test('match_all_predicate_ignores_exited_lanes', F, kernel(body, 5), 5, n, exp, inputs)


_match_exit()


def redux(op, vals, signed):
    vs = [s32(v) if signed else u32(v) for v in vals]
    if op == 'add':
        return u32(sum(vs))
    if op == 'min':
        return u32(min(vs))
    if op == 'max':
        return u32(max(vs))
    return dict(zip(['and', 'or', 'xor'], bit_folds(vals)))[op]


REDUX_OPS = [('add', 'u32'), ('add', 's32'), ('min', 'u32'), ('min', 's32'), ('max', 'u32'),
             ('max', 's32'), ('and', 'b32'), ('or', 'b32'), ('xor', 'b32')]


def redux_case(name, inputs, n, mask=0xffffffff, exited=lambda t: False, note=''):
    body = ''
    if mask != 0xffffffff:
        body += f"""    shr.u32 %r21, {hex(mask)}, %r1;
    and.b32 %r21, %r21, 1;
    setp.eq.u32 %p9, %r21, 0;
    @%p9 bra DONE;
"""
    ex = [t for t in range(n) if exited(t)]
    if ex:
        body += """    setp.eq.u32 %p8, %r0, 0x5eed;
    @%p8 bra DONE;
"""
        for t in ex:
            assert inputs[t] == 0x5eed
    regs = []
    for i, (op, ty) in enumerate(REDUX_OPS):
        body += f'    redux.sync.{op}.{ty} %r{40 + i}, %r0, {hex(mask)};\n'
        regs.append(f'%r{40 + i}')
    body += st(regs)

    def exp(g):
        if not (mask >> (g % 32)) & 1 or g in ex:
            return None
        w = [t for t in warps_of_cta(n)[g // 32] if (mask >> (t % 32)) & 1 and t not in ex]
        vals = [inputs[t] for t in w]
        return [redux(op, vals, ty == 's32') for op, ty in REDUX_OPS]
    test(name, F, kernel(body, len(REDUX_OPS)), len(REDUX_OPS), n, exp, inputs, note=note)


# INT_MIN, INT_MAX, -1 and 0 in every warp: .s32 and .u32 min/max order them differently.
def _redux():
    r = rng(53)
    n = 100
    inputs = [r.getrandbits(32) for _ in range(n)]
    for base in [0, 32, 64, 96]:
        inputs[base] = 0x80000000
        inputs[base + 1] = 0x7fffffff
        inputs[base + 2] = 0xffffffff
        inputs[base + 3] = 0
    inputs[40:64] = [0xfffffff0 + (t & 7) for t in range(40, 64)]   # negatives
    redux_case('redux_int_min_max_negatives_every_op_b100', inputs, n)
    # Only negatives in a warp: s32 max is the one closest to zero.
    inputs2 = [u32(-(t * 977 + 5)) for t in range(64)]
    inputs2[7] = 0x80000000
    redux_case('redux_all_negative_warps', inputs2, 64)
    # Partial membermask and exited lanes: only the non-exited lanes of the mask count.
    inputs3 = [r.getrandbits(32) for _ in range(96)]
    for t in [0, 5, 35, 36, 70, 95]:
        inputs3[t] = 0x5eed
    redux_case('redux_partial_membermask_after_exits', inputs3, 96, mask=0xf0f0ff0f,
               exited=lambda t: t in (0, 5, 35, 36, 70, 95))
    # A warp of one lane (block 33) and a sum that wraps.
    inputs4 = [0xfffffff0 + t for t in range(33)]
    redux_case('redux_wrapping_sum_and_single_lane_warp_b33', inputs4, 33)


_redux()
