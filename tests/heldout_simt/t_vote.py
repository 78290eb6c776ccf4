# vote.sync (§9.7.14.9), activemask (§9.7.14.11), elect.sync (§9.7.14.14), bar.warp.sync
# (§9.7.14.2).
F = 'vote'


def vote_results(preds):
    """(all, any, uni, ballot) over {lane: pred} of the participating (non-exited) lanes"""
    vals = list(preds.values())
    ballot = sum(1 << l for l, v in preds.items() if v)
    return [int(all(vals)), int(any(vals)), int(all(vals) or not any(vals)), ballot]


VOTE_BODY = """    and.b32 %r20, %r0, 1;
    setp.ne.u32 %p1, %r20, 0;
    vote.sync.all.pred %p2, %p1, {mask};
    vote.sync.any.pred %p3, %p1, {mask};
    vote.sync.uni.pred %p4, %p1, {mask};
    vote.sync.ballot.b32 %r13, %p1, {mask};
    vote.sync.all.pred %p5, !%p1, {mask};
    vote.sync.any.pred %p6, !%p1, {mask};
    vote.sync.uni.pred %p7, !%p1, {mask};
    vote.sync.ballot.b32 %r17, !%p1, {mask};
    selp.u32 %r10, 1, 0, %p2;
    selp.u32 %r11, 1, 0, %p3;
    selp.u32 %r12, 1, 0, %p4;
    selp.u32 %r14, 1, 0, %p5;
    selp.u32 %r15, 1, 0, %p6;
    selp.u32 %r16, 1, 0, %p7;
""" + st(['%r10', '%r11', '%r12', '%r13', '%r14', '%r15', '%r16', '%r17'])


def _vote_modes():
    r = rng(23)
    n = 100
    # warp 0 all true, warp 1 all false, warp 2 random, warp 3 (lanes 96-99) random
    inputs = [1] * 32 + [2] * 32 + [r.getrandbits(8) for _ in range(36)]
    warps = warps_of_cta(n)

    def exp(g):
        w = warps[g // 32]
        pos = {t % 32: inputs[t] & 1 for t in w}
        neg = {l: 1 - v for l, v in pos.items()}
        return vote_results(pos) + vote_results(neg)
    test('vote_every_mode_and_negation_b100', F, kernel(VOTE_BODY.format(mask='0xffffffff'), 8),
         8, n, exp, inputs)


_vote_modes()


# Lanes whose input has bit 1 set exit first; the votes take the non-exited lanes only.
def _vote_exit():
    r = rng(29)
    n = 48
    inputs = [r.getrandbits(8) for _ in range(n)]
    inputs[5] |= 2
    inputs[40:48] = [3, 2, 3, 2, 3, 3, 3, 3]  # warp 1's lanes 8-15 exit
    body = """    and.b32 %r21, %r0, 2;
    setp.ne.u32 %p9, %r21, 0;
    @%p9 bra DONE;
""" + VOTE_BODY.format(mask='-1')
    live = {t for t in range(n) if not inputs[t] & 2}

    def exp(g):
        if g not in live:
            return None
        w = [t for t in warps_of_cta(n)[g // 32] if t in live]
        pos = {t % 32: inputs[t] & 1 for t in w}
        neg = {l: 1 - v for l, v in pos.items()}
        return vote_results(pos) + vote_results(neg)
    test('vote_after_lanes_exited_b48', F, kernel(body, 8), 8, n, exp, inputs)


_vote_exit()


# A vote in a loop: each lane wants n (its input & 7) iterations; the warp loops while any
# lane still wants one (the loop is uniform per warp, every lane runs every vote).
def _vote_loop():
    r = rng(31)
    n = 70
    inputs = [r.getrandbits(32) for _ in range(n)]
    inputs[64:70] = [0, 8, 16, 0, 8, 1]  # last warp: all want at most 1 iteration
    body = """    mov.u32 %r10, 0;
    mov.u32 %r11, 0;
    mov.u32 %r12, 0;
    and.b32 %r20, %r0, 7;
LOOP:
    add.u32 %r10, %r10, 1;
    setp.lt.u32 %p1, %r10, %r20;
    vote.sync.ballot.b32 %r13, %p1, -1;
    shl.b32 %r11, %r11, 3;
    xor.b32 %r11, %r11, %r13;
    popc.b32 %r14, %r13;
    add.u32 %r12, %r12, %r14;
    vote.sync.any.pred %p2, %p1, -1;
    @%p2 bra LOOP;
""" + st(['%r10', '%r11', '%r12'])

    def exp(g):
        w = warps_of_cta(n)[g // 32]
        want = {t % 32: inputs[t] & 7 for t in w}
        i = acc = cnt = 0
        while True:
            i += 1
            ballot = sum(1 << l for l, v in want.items() if i < v)
            acc = u32(acc << 3) ^ ballot
            cnt += popc(ballot)
            if not ballot:
                break
        return [i, acc, cnt]
    test('vote_any_ends_a_loop_each_lane_runs_in_full', F, kernel(body, 3), 3, n, exp, inputs)


_vote_loop()


# Membermask 0x0f0f0f0f: only those lanes run the votes (the others branch around).
def _vote_partial():
    r = rng(37)
    n = 64
    inputs = [r.getrandbits(8) for _ in range(n)]
    mask = 0x0f0f0f0f
    body = """    shr.u32 %r21, 0x0f0f0f0f, %r1;
    and.b32 %r21, %r21, 1;
    setp.eq.u32 %p9, %r21, 0;
    @%p9 bra DONE;
""" + VOTE_BODY.format(mask=hex(mask))

    def exp(g):
        if not (mask >> (g % 32)) & 1:
            return None
        w = [t for t in warps_of_cta(n)[g // 32] if (mask >> (t % 32)) & 1]
        pos = {t % 32: inputs[t] & 1 for t in w}
        neg = {l: 1 - v for l, v in pos.items()}
        return vote_results(pos) + vote_results(neg)
    test('vote_membermask_0x0f0f0f0f', F, kernel(body, 8), 8, n, exp, inputs)


_vote_partial()


# activemask in nested divergent branches after exits (block 48). §9.7.14.11 gives the threads
# active at that point, and the ISA does not promise that the lanes of a branch run together,
# so each lane checks what holds for any grouping: its own bit is set and no lane outside its
# branch (or an exited one) is.
def _activemask():
    n = 48
    body = """    rem.u32 %r20, %r1, 5;
    setp.eq.u32 %p9, %r20, 4;
    @%p9 bra DONE;                       // lanes 4, 9, 14, ... exit
    activemask.b32 %r10;
    rem.u32 %r21, %r1, 3;
    setp.eq.u32 %p1, %r21, 0;
    mov.u32 %r11, 0;
    mov.u32 %r16, 0;
    mov.u32 %r17, 0;
    shl.b32 %r15, 1, %r1;
    @!%p1 bra SKIP;
    activemask.b32 %r11;                 // lanes 0, 3, 6, ... (those left)
    and.b32 %r16, %r11, %r15;            // own bit
    and.b32 %r17, %r11, %r31;            // bits outside the branch's lanes
SKIP:
    bar.warp.sync -1;
    activemask.b32 %r12;
"""
    # %r31 = the complement of the lanes that may be active in the branch, %r32 of the live
    # lanes: computed from the lane numbers of this warp, not from any collective.
    pre = """    and.b32 %r33, %r2, -32;
    sub.u32 %r34, %r4, %r33;
    min.u32 %r34, %r34, 32;              // lanes in this warp
    mov.u32 %r31, 0;
    mov.u32 %r32, 0;
    mov.u32 %r35, 0;
MASKS:
    rem.u32 %r36, %r35, 5;
    setp.eq.u32 %p20, %r36, 4;
    shl.b32 %r37, 1, %r35;
    @!%p20 or.b32 %r32, %r32, %r37;
    rem.u32 %r36, %r35, 3;
    setp.eq.u32 %p21, %r36, 0;
    and.pred %p22, %p21, !%p20;
    @%p22 or.b32 %r31, %r31, %r37;
    add.u32 %r35, %r35, 1;
    setp.lt.u32 %p23, %r35, %r34;
    @%p23 bra MASKS;
    not.b32 %r31, %r31;
    not.b32 %r32, %r32;
"""
    post = """    and.b32 %r40, %r10, %r15;
    and.b32 %r41, %r10, %r32;
    and.b32 %r42, %r12, %r15;
    and.b32 %r43, %r12, %r32;
""" + st(['%r40', '%r41', '%r16', '%r17', '%r42', '%r43'])

    def exp(g):
        lane = g % 32
        if lane % 5 == 4:
            return None
        own = 1 << lane
        return [own, 0, own if lane % 3 == 0 else 0, 0, own, 0]
    test('activemask_after_exits_and_in_a_branch_b48', F, kernel(pre + body + post, 6), 6, n,
         exp, note='which lanes run a branch together is not promised: own bit set, none outside')


_activemask()


# elect.sync: which lane is elected is not said (only "deterministically"), so each lane
# stores properties that hold for any choice: exactly one lane gets p, every lane gets the
# same d, d is that lane's id and a member of the mask; for a full mask of a warp with
# exited lanes and for a partial membermask.
def _elect():
    n = 100
    body = """    and.b32 %r20, %r0, 1;
    setp.ne.u32 %p9, %r20, 0;
    @%p9 bra DONE;                       // lanes with an odd input exit
    elect.sync %r10|%p1, -1;
    vote.sync.ballot.b32 %r11, %p1, -1;  // exactly one bit: the leader
    setp.eq.u32 %p13, %r0, %r0;
    vote.sync.ballot.b32 %r12, %p13, -1; // the live lanes
    match.all.sync.b32 %r13|%p2, %r10, -1;
    selp.u32 %r30, 1, 0, %p2;            // the same d in every lane
    shl.b32 %r14, 1, %r10;
    setp.eq.u32 %p3, %r14, %r11;         // the ballot is exactly bit d
    selp.u32 %r15, 1, 0, %p3;
    and.b32 %r16, %r14, %r12;
    setp.ne.u32 %p4, %r16, 0;            // d is a live lane
    selp.u32 %r17, 1, 0, %p4;
    setp.eq.u32 %p5, %r10, %r1;
    xor.pred %p7, %p5, %p1;              // p exactly where d == laneid
    selp.u32 %r18, 0, 1, %p7;
    // partial membermask: the lanes 8-15 and 24-31 still alive
    mov.u32 %r19, 0;
    and.b32 %r21, %r1, 8;
    setp.eq.u32 %p8, %r21, 0;
    @%p8 bra OUT;
    and.b32 %r22, %r12, 0xff00ff00;
    elect.sync %r23|%p10, %r22;
    vote.sync.ballot.b32 %r24, %p10, %r22;
    shl.b32 %r25, 1, %r23;
    setp.eq.u32 %p11, %r25, %r24;
    and.b32 %r26, %r25, %r22;
    setp.ne.and.u32 %p12, %r26, 0, %p11;
    selp.u32 %r19, 1, 0, %p12;
OUT:
""" + st(['%r30', '%r15', '%r17', '%r18', '%r19'])
    r = rng(41)
    inputs = [r.getrandbits(8) for _ in range(n)]
    inputs[96:100] = [1, 1, 0, 1]

    def exp(g):
        if inputs[g] & 1:
            return None
        lane = g % 32
        w = [t for t in warps_of_cta(n)[g // 32] if not inputs[t] & 1]
        part = [t for t in w if (t % 32) & 8]
        return [1, 1, 1, 1, 1 if (lane & 8) and part else 0]
    test('elect_one_leader_any_choice_full_and_partial_masks', F,
         kernel(body, 5, target='sm_90'), 5, n, exp, inputs,
         note='which lane is elected is unspecified: properties of the choice are checked')


_elect()


# bar.warp.sync orders shared memory within the warp (§9.7.14.2: "guarantees memory ordering
# among threads participating in barrier"): each lane writes its word, syncs, and reads its
# neighbours' (block 100; the last warp's partners exist: the reads wrap within the warp's
# existing lanes).
def _warp_sync():
    n = 100
    r = rng(43)
    inputs = [r.getrandbits(32) for _ in range(n)]
    body = """    mov.u32 %r20, buf;
    shl.b32 %r21, %r2, 2;
    add.u32 %r22, %r20, %r21;
    st.shared.u32 [%r22], %r0;
    bar.warp.sync -1;
    and.b32 %r23, %r2, -32;              // warp base
    sub.u32 %r24, %r4, %r23;
    min.u32 %r24, %r24, 32;              // lanes in this warp
    add.u32 %r25, %r1, 1;
    rem.u32 %r25, %r25, %r24;
    add.u32 %r25, %r25, %r23;
    shl.b32 %r25, %r25, 2;
    add.u32 %r25, %r20, %r25;
    ld.shared.u32 %r10, [%r25];
    bar.warp.sync -1;
    st.shared.u32 [%r22], %r10;          // a second round: write what was read
    bar.warp.sync -1;
    ld.shared.u32 %r11, [%r25];
""" + st(['%r10', '%r11'])

    def exp(g):
        w = warps_of_cta(n)[g // 32]
        m = len(w)
        lane = g % 32
        nb = w[(lane + 1) % m]
        nb2 = w[(lane + 2) % m]
        return [inputs[nb], inputs[nb2]]
    test('bar_warp_sync_orders_shared_exchanges_b100', F,
         kernel(body, 2, decls='.shared .align 4 .b32 buf[128];\n'), 2, n, exp, inputs)


_warp_sync()


# CUB's look-back shape: the membermask of each round is the ballot of the lanes still in the
# loop (every lane of it runs the next ballot; lanes leave right after one), and a redux over
# exactly those lanes; per-lane trip counts, block 100.
def _ballot_mask_loop():
    n = 100
    r = rng(107)
    inputs = [r.getrandbits(32) for _ in range(n)]
    inputs[96:100] = [0, 0, 0, 0]      # the last warp: nobody loops
    body = """    mov.u32 %r30, -1;
    mov.u32 %r10, 0;
    mov.u32 %r11, 0;
    mov.u32 %r13, 0;
    and.b32 %r20, %r0, 7;
LOOP:
    setp.lt.u32 %p1, %r10, %r20;
    vote.sync.ballot.b32 %r30, %p1, %r30;
    @!%p1 bra END;
    mad.lo.u32 %r21, %r10, 100, %r1;
    redux.sync.add.u32 %r12, %r21, %r30;
    add.u32 %r11, %r11, %r12;
    xor.b32 %r13, %r13, %r30;
    add.u32 %r10, %r10, 1;
    bra.uni LOOP;
END:
""" + st(['%r10', '%r11', '%r13'])

    def exp(g):
        w = warps_of_cta(n)[g // 32]
        want = {t % 32: inputs[t] & 7 for t in w}
        me = inputs[g] & 7
        acc = x = 0
        for i in range(me):
            lanes = [l for l, v in want.items() if v > i]
            acc += sum(l + 100 * i for l in lanes)
            x ^= sum(1 << l for l in lanes)
        return [me, u32(acc), x]
    test('vote_ballot_as_the_next_membermask_lookback_loop_b100', F, kernel(body, 3), 3, n,
         exp, inputs)


_ballot_mask_loop()


# Lanes leave a per-lane loop at different iterations and then meet at one shfl after it;
# and warps whose (warp-uniform) trip counts differ run a redux in their loop.
def _after_loop():
    n = 96
    r = rng(109)
    inputs = [r.getrandbits(32) for _ in range(n)]
    body = """    and.b32 %r20, %r0, 15;
    mov.u32 %r10, 0;
    mov.u32 %r21, 0;
L1:
    setp.ge.u32 %p1, %r21, %r20;
    @%p1 bra L1_END;
    mad.lo.u32 %r10, %r10, 31, %r0;
    add.u32 %r21, %r21, 1;
    bra.uni L1;
L1_END:
    shfl.sync.bfly.b32 %r11, %r10, 1, 31, -1;
    shr.u32 %r22, %r2, 5;
    shl.b32 %r22, %r22, 1;
    add.u32 %r22, %r22, 3;               // warp w loops 3 + 2w times
    mov.u32 %r23, 0;
    mov.u32 %r12, 0;
L2:
    mul.lo.u32 %r24, %r1, %r23;
    redux.sync.add.u32 %r25, %r24, -1;
    add.u32 %r12, %r12, %r25;
    add.u32 %r23, %r23, 1;
    setp.lt.u32 %p2, %r23, %r22;
    @%p2 bra L2;
""" + st(['%r10', '%r11', '%r12'])

    def x_of(t):
        v = 0
        for _ in range(inputs[t] & 15):
            v = u32(v * 31 + inputs[t])
        return v

    def exp(g):
        w = g // 32
        loops = 3 + 2 * w
        s = sum(sum(l * i for l in range(32)) for i in range(loops))
        return [x_of(g), x_of(g ^ 1), u32(s)]
    test('shfl_after_a_per_lane_loop_and_redux_in_per_warp_loops', F, kernel(body, 3), 3, n,
         exp, inputs)


_after_loop()


# A membermask in a register: the ballot of the lanes left after exits; shfl.idx from the
# highest of them (bfind) and a vote.all over exactly them (block 48).
def _mask_register():
    n = 48
    r = rng(113)
    inputs = [r.getrandbits(32) for _ in range(n)]
    for t in [31, 30, 7, 47, 46, 33]:
        inputs[t] |= 0x80000000
    for t in range(n):
        if t not in (31, 30, 7, 47, 46, 33):
            inputs[t] &= 0x7fffffff
    body = """    setp.ge.u32 %p9, %r0, 0x80000000;
    @%p9 bra DONE;
    setp.eq.u32 %p1, %r0, %r0;
    vote.sync.ballot.b32 %r30, %p1, -1;  // the live lanes
    bfind.u32 %r31, %r30;                // the highest of them
    shfl.sync.idx.b32 %r10, %r0, %r31, 31, %r30;
    and.b32 %r21, %r0, 1;
    setp.eq.u32 %p2, %r21, 1;
    vote.sync.all.pred %p3, %p2, %r30;
    vote.sync.any.pred %p4, %p2, %r30;
    selp.u32 %r11, 1, 0, %p3;
    selp.u32 %r12, 1, 0, %p4;
""" + st(['%r30', '%r10', '%r11', '%r12'])

    def exp(g):
        if inputs[g] & 0x80000000:
            return None
        w = [t for t in warps_of_cta(n)[g // 32] if not inputs[t] & 0x80000000]
        live = sum(1 << (t % 32) for t in w)
        return [live, inputs[w[-1]], int(all(inputs[t] & 1 for t in w)),
                int(any(inputs[t] & 1 for t in w))]
    test('membermask_from_a_ballot_after_exits_b48', F, kernel(body, 4), 4, n, exp, inputs)


_mask_register()
