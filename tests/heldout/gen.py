#!/usr/bin/env python3
"""Generates tests/heldout/cases/*: single-thread PTX tests written from the PTX ISA text
(/work/shared/ptx-isa, chapter 9.7 and the later chapters) with expected values computed here,
by hand or with fp.py (exact rational arithmetic), independently of ptxcross.

Run: python3 tests/heldout/gen.py   (rewrites cases/ and cases/outcomes.json)
"""
import json, os, shutil, struct, sys
from fractions import Fraction as Fr
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fp import *

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'cases')
TESTS = []

HEADER = """.version {version}
.target {target}
.address_size 64
"""

REGS = """    .reg .pred %p<16>;
    .reg .b16 %rs<32>;
    .reg .b32 %r<64>;
    .reg .f32 %f<32>;
    .reg .b64 %rd<32>;
    .reg .f64 %fd<32>;
"""

def M32(x):
    return x & 0xffffffff
def M64(x):
    return x & 0xffffffffffffffff
def M16(x):
    return x & 0xffff

def test(name, family, body=None, expect=None, etype='u32', version='8.5', target='sm_90',
         ptx=None, args=None, buffers=None, extra_expect=None, block=1, dyn=0, any_nan=None,
         decls='', regs=REGS, note=''):
    """body: PTX lines after %rd0 = global address of buffer `out`. expect: values (ints as bit
    patterns) of type etype stored at out[0..]."""
    if ptx is None:
        ptx = HEADER.format(version=version, target=target) + decls + f"""
.visible .entry k(
    .param .u64 k_param_0
)
{{
{regs}
    ld.param.u64 %rd0, [k_param_0];
    cvta.to.global.u64 %rd0, %rd0;
{body}
    ret;
}}
"""
    size = {'u8': 1, 's8': 1, 'u16': 2, 'u32': 4, 'u64': 8, 's32': 4, 's64': 8, 'f32': 4, 'f64': 8,
            'f16': 2, 'bf16': 2, 's16': 2}[etype]
    def fmt(v):
        if isinstance(v, int):
            return hex(v & ((1 << (8 * size)) - 1))
        return v
    ex = {'out': {'type': etype, 'values': [fmt(v) for v in expect]}}
    if any_nan:
        ex['out']['any_nan'] = any_nan
    if extra_expect:
        ex.update(extra_expect)
    bufs = {'out': {'zeros': max(16, ((len(expect) * size + 15) // 16) * 16)}}
    if buffers:
        bufs.update(buffers)
    spec = {'ptx': name + '.ptx', 'kernel': 'k', 'grid': [1, 1, 1], 'block': [block, 1, 1],
            'dynamic_shared_bytes': dyn, 'buffers': bufs,
            'args': args if args is not None else [{'buffer': 'out'}], 'expect': ex}
    TESTS.append((name, family, ptx, spec, note))

def st32(vals, base=0, space='global'):
    """store each register as a u32 at out[base+i]"""
    return '\n'.join(f'    st.{space}.u32 [%rd0+{4 * (base + i)}], {v};' for i, v in enumerate(vals))
def st64(vals, base=0):
    return '\n'.join(f'    st.global.u64 [%rd0+{8 * (base + i)}], {v};' for i, v in enumerate(vals))
def st16(vals, base=0):
    return '\n'.join(f'    st.global.u16 [%rd0+{2 * (base + i)}], {v};' for i, v in enumerate(vals))

def sx(x, bits):
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x

for mod in ['integer', 'floats', 'cvt', 'half', 'compare', 'logic', 'data', 'video', 'sreg', 'module', 'special', 'frontend', 'extra', 'hard', 'intmem']:
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
