# Collectives met at different instructions (sm_70+, §9.7.10.6 / §9.7.14.9: a collective waits
# for "all non-exited threads corresponding to membermask" to execute one with the same
# qualifiers and membermask, not the same instruction). ptxcross faulted these with
# FAULT_WARP_DIVERGED until meet4 (2026-11-28) ran such kernels in the CTA barrier scheduler;
# the test (`tests/tests/heldout_simt.rs`, MEETING) checks the spec's values.
F = 'meet'


def _meet_shfl():
    n = 64
    r = rng(83)
    inputs = [r.getrandbits(16) for _ in range(n)]
    body = """    and.b32 %r20, %r1, 1;
    setp.ne.u32 %p1, %r20, 0;
    @%p1 bra ODD;
    shl.b32 %r21, %r0, 1;
    shfl.sync.bfly.b32 %r10, %r21, 1, 31, -1;
    bra.uni JOIN;
ODD:
    add.u32 %r21, %r0, 1;
    shfl.sync.bfly.b32 %r10, %r21, 1, 31, -1;
JOIN:
""" + st(['%r10'])

    def a(t):
        return inputs[t] * 2 if t % 2 == 0 else inputs[t] + 1
    test('meet_shfl_bfly_in_both_branches', F, kernel(body, 1), 1, n, lambda g: [a(g ^ 1)],
         inputs, note='meets (faulted with FAULT_WARP_DIVERGED before meet4)')


_meet_shfl()


def _meet_vote():
    n = 48
    r = rng(89)
    inputs = [r.getrandbits(8) for _ in range(n)]
    body = """    and.b32 %r20, %r0, 1;
    setp.ne.u32 %p2, %r20, 0;
    setp.lt.u32 %p1, %r1, 10;
    @%p1 bra LOW;
    vote.sync.ballot.b32 %r10, %p2, -1;
    bra.uni JOIN;
LOW:
    vote.sync.ballot.b32 %r10, %p2, -1;
JOIN:
""" + st(['%r10'])

    def exp(g):
        w = warps_of_cta(n)[g // 32]
        return [sum(1 << (t % 32) for t in w if inputs[t] & 1)]
    test('meet_vote_ballot_in_both_branches_b48', F, kernel(body, 1), 1, n, exp, inputs,
         note='meets (faulted with FAULT_WARP_DIVERGED before meet4)')


_meet_vote()


# One .func holding a shfl.bfly, called from both arms of a branch on the lane: every lane
# runs the same shfl instruction (of the function), reached through two call sites, so on
# sm_70+ the lanes meet there (§9.7.10.6: "all non-exited threads corresponding to
# membermask"), each with the value of its own arm.
def _meet_func():
    n = 64
    r = rng(163)
    inputs = [r.getrandbits(16) for _ in range(n)]
    decls = """
.func (.param .b32 ret) partner(.param .b32 v)
{
    .reg .b32 %a<4>;
    ld.param.b32 %a0, [v];
    shfl.sync.bfly.b32 %a1, %a0, 16, 31, -1;
    st.param.b32 [ret], %a1;
    ret;
}
"""
    body = """    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra LOW;
    add.u32 %r20, %r0, 1000000;
    {
    .param .b32 arg;
    .param .b32 res;
    st.param.b32 [arg], %r20;
    call (res), partner, (arg);
    ld.param.b32 %r10, [res];
    }
    bra.uni JOIN;
LOW:
    {
    .param .b32 arg;
    .param .b32 res;
    st.param.b32 [arg], %r0;
    call (res), partner, (arg);
    ld.param.b32 %r10, [res];
    }
JOIN:
""" + st(['%r10'])

    def a(t):
        return inputs[t] if t % 32 < 16 else inputs[t] + 1000000
    test('meet_one_func_shfl_called_from_both_arms', F, kernel(body, 1, decls=decls), 1, n,
         lambda g: [a(g ^ 16)], inputs,
         note='meets (faulted with FAULT_WARP_DIVERGED before meet4)')


_meet_func()
