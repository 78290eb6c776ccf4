#!/usr/bin/env python3
"""Generates tests/heldout_simt/cases/*: a held-out set of warp-level PTX tests (issue #10),
written from the PTX ISA 8.5 text (/work/shared/ptx-isa: §9.7.10.6 shfl.sync, §9.7.14.x vote.sync,
match.sync, activemask, redux.sync, elect.sync, bar.warp.sync, bar/barrier, bar.red, atom/red,
§10 special registers) with expected values from the small warp model in this file
(`Warp`, `shfl_source`, ...), written from the same text. It uses nothing of ptxcross: not
`tests/src/ptx_ref`, not `lower`'s interpreter, not ptxcross output.

Every kernel is `k(out, in, aux)`: three `.u64` pointers; thread g (global linear id) reads
`in[g]` and writes its K result words at out[g*K ..]. A thread that exits before storing leaves
zeros. Only values the ISA defines are stored: where the spec says "undefined"/"unpredictable"
(a shuffle from an inactive lane, %warpid's value, which thread elect picks), the kernel stores
only what is defined (the predicate, properties that hold for any choice).

Run: python3 tests/heldout_simt/gen.py   (rewrites cases/ and index.json)
"""
import json, os, random, shutil, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'cases')
TESTS = []

M32 = 0xffffffff


def u32(x):
    return x & M32


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def popc(x):
    return bin(x & M32).count('1')


HEADER = """.version {version}
.target {target}
.address_size 64
"""

REGS = """    .reg .pred %p<40>;
    .reg .b16 %rs<40>;
    .reg .b32 %r<100>;
    .reg .f32 %f<20>;
    .reg .b64 %rd<40>;
    .reg .f64 %fd<10>;
"""

# After the prelude: %rd0 = &out[g*K] (global), %rd1 = in (global base), %rd2 = aux (global
# base), %r0 = in[g], %r1 = %laneid, %r2 = %tid.x, %r3 = g, %r4 = %ntid.x.
PRELUDE = """    ld.param.u64 %rd30, [p_out];
    cvta.to.global.u64 %rd30, %rd30;
    ld.param.u64 %rd1, [p_in];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [p_aux];
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r2, %tid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %ctaid.x;
    mad.lo.u32 %r3, %r5, %r4, %r2;
    mul.wide.u32 %rd31, %r3, {stride};
    add.u64 %rd0, %rd30, %rd31;
    mul.wide.u32 %rd32, %r3, 4;
    add.u64 %rd32, %rd1, %rd32;
    ld.global.u32 %r0, [%rd32];
    mov.u32 %r1, %laneid;
"""


def kernel(body, k, decls='', version='8.5', target='sm_90', prelude=True):
    pre = PRELUDE.format(stride=4 * k) if prelude else ''
    return HEADER.format(version=version, target=target) + decls + f"""
.visible .entry k(
    .param .u64 p_out,
    .param .u64 p_in,
    .param .u64 p_aux
)
{{
{REGS}
{pre}{body}
DONE:
    ret;
}}
"""


def st(regs, base=0):
    """store registers as u32 words at this thread's out[base+i]"""
    return '\n'.join(f'    st.global.u32 [%rd0+{4 * (base + i)}], {r};' for i, r in enumerate(regs))


def test(name, family, ptx, k, block, expect_fn, inputs=None, grid=1, aux=None, aux_expect=None,
         note='', ptx_file=None, entry='k'):
    """expect_fn(g) -> list of K words (or None: the thread stores nothing → zeros) for every
    global thread g; block is (x, y, z). ptx_file: a committed PTX file (relative to cases/)
    instead of `ptx`, with kernel `entry`."""
    if isinstance(block, int):
        block = (block, 1, 1)
    n = block[0] * block[1] * block[2] * grid
    if inputs is None:
        inputs = [0] * n
    assert len(inputs) == n
    exp = []
    for g in range(n):
        vals = expect_fn(g)
        if vals is None:
            vals = [0] * k
        assert len(vals) == k, (name, g, vals)
        exp += [hex(u32(v)) for v in vals]
    spec = {'ptx': ptx_file or name + '.ptx', 'kernel': entry, 'grid': [grid, 1, 1], 'block': list(block),
            'dynamic_shared_bytes': 0,
            'buffers': {'out': {'zeros': 4 * len(exp)},
                        'in': {'type': 'u32', 'values': [hex(u32(v)) for v in inputs]},
                        'aux': ({'type': 'u32', 'values': [hex(u32(v)) for v in aux]} if aux
                                else {'zeros': 64})},
            'args': [{'buffer': 'out'}, {'buffer': 'in'}, {'buffer': 'aux'}],
            'expect': {'out': {'type': 'u32', 'values': exp}}}
    if aux_expect is not None:
        spec['expect']['aux'] = {'type': 'u32', 'values': [hex(u32(v)) for v in aux_expect]}
    TESTS.append((name, family, ptx, spec, note))


# ---------------------------------------------------------------------------------------------
# The warp model (ISA 8.5 §9.7.10.6, §9.7.14.9-14)

def warp_lanes(g_list, live):
    """lanes (laneid) of the warp holding CTA-linear threads, restricted to `live` threads"""
    return {t % 32 for t in g_list if t in live}


def shfl_source(mode, lane, b, c):
    """(source lane j, pval) by the pseudo-code of §9.7.10.6"""
    bval = b & 31
    cval = c & 31
    seg = (c >> 8) & 31
    max_lane = (lane & seg) | (cval & ~seg & 31)
    min_lane = lane & seg
    if mode == 'up':
        j = lane - bval
        p = j >= max_lane
    elif mode == 'down':
        j = lane + bval
        p = j <= max_lane
    elif mode == 'bfly':
        j = lane ^ bval
        p = j <= max_lane
    else:
        j = min_lane | (bval & ~seg & 31)
        p = j <= max_lane
    return (j if p else lane), p


def bit_folds(vals):
    """(and, or, xor) of 32-bit values"""
    a, o, x = M32, 0, 0
    for v in vals:
        a &= v
        o |= v
        x ^= v
    return a, o, x


# atom.inc/dec (§9.7.14.5 semantics): inc(r, s) = r >= s ? 0 : r+1; dec(r, s) = (r == 0 ||
# r > s) ? s : r-1. Every step is the same function, so n contended steps end at the same
# value and return the same multiset whatever their order.
def atom_inc(r, s):
    return 0 if r >= s else r + 1


def atom_dec(r, s):
    return s if (r == 0 or r > s) else r - 1


def applied(f, v, n):
    for _ in range(n):
        v = f(v)
    return v


def warps_of_cta(nthreads):
    return [list(range(w, min(w + 32, nthreads))) for w in range(0, nthreads, 32)]


def rng(seed):
    return random.Random(seed)


for mod in ['shfl', 'vote', 'match_redux', 'sreg_bar', 'atom', 'extra', 'meet', 'cuda']:
    exec(open(os.path.join(HERE, f't_{mod}.py')).read())


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    names = set()
    index = []
    for name, family, ptx, spec, note in TESTS:
        assert name not in names, name
        names.add(name)
        if ptx is not None:
            with open(os.path.join(OUT, name + '.ptx'), 'w') as f:
                f.write(ptx)
        with open(os.path.join(OUT, name + '.json'), 'w') as f:
            json.dump(spec, f)
            f.write('\n')
        index.append({'name': name, 'family': family, 'note': note})
    with open(os.path.join(HERE, 'index.json'), 'w') as f:
        json.dump(index, f, indent=0)
        f.write('\n')
    print(len(TESTS), 'tests')


if __name__ == '__main__':
    main()
