# Integer instructions again, with operands loaded from memory (the tests above write
# immediates, which lower partly folds): edge values and random words, one loop per variant.
IM = 'integer'
ir = random.Random(77)
E32 = [0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 31, 32, 33, 63, 64, 255, 256, 0x12345678, 0x80000001]
def r32(n):
    return [ir.choice(E32) if ir.random() < 0.4 else ir.getrandbits(32) for _ in range(n)]
E64 = [0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 0xffffffff, 1 << 32, 63, 64, 65]
def r64(n):
    return [ir.choice(E64) if ir.random() < 0.4 else ir.getrandbits(64) for _ in range(n)]
def cases(gens, n=48):
    cols = [g(n) for g in gens]
    return list(zip(*cols))
small = lambda n: [ir.choice([0, 1, 7, 8, 31, 32, 33, 40, 63, 64, 100, 255]) for _ in range(n)]
S32 = lambda v: sx(v, 32)
def satr(v, bits=32):
    return M32(min(max(v, -(1 << (bits - 1))), (1 << (bits - 1)) - 1))
def sat_add(a, b): return satr(S32(a) + S32(b))
def sat_sub(a, b): return satr(S32(a) - S32(b))
C2 = cases([r32, r32])
for ins, fn in [('add.sat.s32', sat_add), ('sub.sat.s32', sat_sub),
                ('mul.hi.u32', lambda a, b: (a * b) >> 32), ('mul.hi.s32', lambda a, b: M32((S32(a) * S32(b)) >> 32)),
                ('mul.lo.s32', lambda a, b: M32(a * b)), ('mul24.hi.u32', lambda a, b: M32(((a & 0xffffff) * (b & 0xffffff)) >> 16)),
                ('mul24.lo.s32', lambda a, b: M32(sx(a, 24) * sx(b, 24))), ('mul24.hi.s32', lambda a, b: M32((sx(a, 24) * sx(b, 24)) >> 16)),
                ('min.s32', lambda a, b: M32(min(S32(a), S32(b)))), ('max.u32', max),
                ('max.relu.s32', lambda a, b: M32(max(S32(a), S32(b), 0))), ('min.relu.s32', lambda a, b: M32(max(min(S32(a), S32(b)), 0))),
                ('szext.wrap.s32', lambda a, b: szext(a, b, 0, 1)), ('szext.clamp.u32', lambda a, b: szext(a, b, 1, 0)),
                ('bmsk.wrap.b32', lambda a, b: bmsk(a, b, 0)), ('bmsk.clamp.b32', lambda a, b: bmsk(a, b, 1)),
                ('shl.b32', lambda a, b: M32(a << min(b, 32))), ('shr.s32', lambda a, b: M32(S32(a) >> min(b, 32))),
                ('shr.u32', lambda a, b: a >> min(b, 32))]:
    optest('mem_' + ins.replace('.', '_'), IM, ins, ['u32', 'u32'], 'u32', C2, [fn(a, b) for a, b in C2],
           note='shift amounts are unsigned 32-bit and clamp at the width (§9.7.9.7/8)')
C2nz = [(a, b if b else 3) for a, b in C2]
for ins, fn in [('div.u32', lambda a, b: a // b), ('rem.u32', lambda a, b: a % b),
                ('div.s32', lambda a, b: M32(int(S32(a) / S32(b)) if abs(S32(a)) < 2 ** 52 else 0)),
                ('rem.s32', lambda a, b: M32(S32(a) - S32(b) * int(Fr(S32(a), S32(b)))))]:
    if ins == 'div.s32':
        fn = lambda a, b: M32(int(Fr(S32(a), S32(b))))
    optest('mem_' + ins.replace('.', '_'), IM, ins, ['u32', 'u32'], 'u32', C2nz, [fn(a, b) for a, b in C2nz],
           note='nonzero divisors (x/0 is unspecified); 0x80000000 / -1 wraps')
C3 = cases([r32, r32, r32])
for ins, fn in [('mad.hi.sat.s32', lambda a, b, c: satr(((S32(a) * S32(b)) >> 32) + S32(c))),
                ('mad.lo.u32', lambda a, b, c: M32(a * b + c)), ('mad.hi.s32', lambda a, b, c: M32(((S32(a) * S32(b)) >> 32) + S32(c))),
                ('mad24.lo.u32', lambda a, b, c: M32((a & 0xffffff) * (b & 0xffffff) + c)),
                ('mad24.hi.s32', lambda a, b, c: M32(((sx(a, 24) * sx(b, 24)) >> 16) + c)),
                ('sad.s32', lambda a, b, c: M32(abs(S32(a) - S32(b)) + c)), ('sad.u32', lambda a, b, c: M32(abs(a - b) + c)),
                ('dp4a.s32.u32', lambda a, b, c: dp4a(a, b, S32(c), 1, 0)), ('dp4a.u32.u32', lambda a, b, c: dp4a(a, b, c, 0, 0)),
                ('dp2a.hi.s32.s32', lambda a, b, c: dp2a(a, b, S32(c), 1, 1, 1)), ('dp2a.lo.u32.s32', lambda a, b, c: dp2a(a, b, S32(c), 0, 1, 0)),
                ('prmt.b32', lambda a, b, c: prmt(a, b, c & 0xffff)),
                ('shf.l.wrap.b32', lambda a, b, c: shf(a, b, c, 1, 0)), ('shf.r.clamp.b32', lambda a, b, c: shf(a, b, c, 0, 1)),
                ('shf.r.wrap.b32', lambda a, b, c: shf(a, b, c, 0, 0)), ('shf.l.clamp.b32', lambda a, b, c: shf(a, b, c, 1, 1)),
                ('bfe.u32', lambda a, b, c: bfe(a, b, c, 31, 0)), ('bfe.s32', lambda a, b, c: bfe(a, b, c, 31, 1))]:
    cs = C3
    if ins.startswith('bfe') or ins.startswith('shf'):
        cs = [(a, b % 300, c % 300) if ins.startswith('bfe') else (a, b, c % 70) for a, b, c in C3]
    optest('mem_' + ins.replace('.', '_'), IM, ins, ['u32'] * 3, 'u32', cs, [fn(*c) for c in cs])
C4 = [(a, b, c % 300, d % 300) for a, b, c, d in cases([r32, r32, r32, r32])]
optest('mem_bfi_b32', IM, 'bfi.b32', ['u32'] * 4, 'u32', C4, [bfi(a, b, c, d, 31) for a, b, c, d in C4])
CL = cases([r32, r32, r32])
for lut in [0x96, 0xe8, 0x1a, 0x6c]:
    optest(f'mem_lop3_{lut:02x}', 'logic', 'lop3.b32', ['u32'] * 3, 'u32', CL, [lop3(a, b, c, lut) for a, b, c in CL],
           extra_operands=f', {hex(lut)}')
C1 = [(a,) for a in r32(48)]
for ins, fn in [('popc.b32', popc), ('clz.b32', lambda a: 32 - a.bit_length()), ('brev.b32', lambda a: int(f'{a:032b}'[::-1], 2)),
                ('bfind.s32', lambda a: (lambda x: x.bit_length() - 1 if x else 0xffffffff)(M32(~a) if a >> 31 else a)),
                ('bfind.shiftamt.u32', lambda a: 31 - (a.bit_length() - 1) if a else 0xffffffff),
                ('not.b32', lambda a: M32(~a)), ('cnot.b32', lambda a: int(a == 0)), ('abs.s32', lambda a: M32(abs(S32(a)))),
                ('neg.s32', lambda a: M32(-a))]:
    optest('mem_' + ins.replace('.', '_'), IM, ins, ['u32'], 'u32', C1, [fn(a) for (a,) in C1])
D1 = [(a,) for a in r64(40)]
for ins, fn, ot in [('popc.b64', popc, 'u32'), ('clz.b64', lambda a: 64 - a.bit_length(), 'u32'),
                    ('brev.b64', lambda a: int(f'{a:064b}'[::-1], 2), 'u64'),
                    ('bfind.s64', lambda a: (lambda x: x.bit_length() - 1 if x else 0xffffffff)(M64(~a) if a >> 63 else a), 'u32'),
                    ('bfind.shiftamt.u64', lambda a: 63 - (a.bit_length() - 1) if a else 0xffffffff, 'u32')]:
    optest('mem_' + ins.replace('.', '_'), IM, ins, ['u64'], ot, D1, [fn(a) for (a,) in D1])
D2 = cases([r64, r64], 40)
D2s = [(a, b % 130) for a, b in D2]
for ins, fn, ts in [('mul.hi.u64', lambda a, b: (a * b) >> 64, ['u64', 'u64']), ('mul.hi.s64', lambda a, b: M64((sx(a, 64) * sx(b, 64)) >> 64), ['u64', 'u64']),
                    ('add.s64', lambda a, b: M64(a + b), ['u64', 'u64']), ('min.s64', lambda a, b: M64(min(sx(a, 64), sx(b, 64))), ['u64', 'u64'])]:
    optest('mem_' + ins.replace('.', '_'), IM, ins, ts, 'u64', D2, [fn(a, b) for a, b in D2])
for ins, fn in [('shl.b64', lambda a, b: M64(a << min(b, 64))), ('shr.s64', lambda a, b: M64(sx(a, 64) >> min(b, 64))),
                ('shr.u64', lambda a, b: a >> min(b, 64))]:
    optest('mem_' + ins.replace('.', '_'), IM, ins, ['u64', 'u32'], 'u64', D2s, [fn(a, b) for a, b in D2s])
D2nz = [(a, b if b else 7) for a, b in D2]
optest('mem_div_s64', IM, 'div.s64', ['u64', 'u64'], 'u64', D2nz, [M64(int(Fr(sx(a, 64), sx(b, 64)))) for a, b in D2nz])
optest('mem_rem_u64', IM, 'rem.u64', ['u64', 'u64'], 'u64', D2nz, [a % b for a, b in D2nz])
D3 = [(a, b % 256, c % 256) for a, b, c in zip(r64(40), r64(40), r64(40))]  # the 64-bit forms read the whole position above 255 on NVIDIA (README)
optest('mem_bfe_s64', IM, 'bfe.s64', ['u64', 'u32', 'u32'], 'u64', D3, [M64(bfe(a, b, c, 63, 1)) for a, b, c in D3])
optest('mem_bfe_u64', IM, 'bfe.u64', ['u64', 'u32', 'u32'], 'u64', D3, [bfe(a, b, c, 63, 0) for a, b, c in D3])
D4 = [(a, b, c % 256, d % 256) for a, b, c, d in zip(r64(40), r64(40), r64(40), r64(40))]
optest('mem_bfi_b64', IM, 'bfi.b64', ['u64', 'u64', 'u32', 'u32'], 'u64', D4, [bfi(a, b, c, d, 63) for a, b, c, d in D4],
       note='positions and lengths below 256 (the spec and the measured hardware agree there)')
FN = [(a, b % 32, sx(c, 32) % 70 - 35) for a, b, c in cases([r32, r32, r32])]
def fns(mask, base, off):
    if off == 0:
        return base if (mask >> base) & 1 else 0xffffffff
    pos, count, inc = base, abs(off) - 1, 1 if off > 0 else -1
    while 0 <= pos < 32:
        if (mask >> pos) & 1:
            if count == 0:
                return pos
            count -= 1
        pos += inc
    return 0xffffffff
optest('mem_fns_b32', IM, 'fns.b32', ['u32', 'u32', 's32'], 'u32', [(a, b, M32(c)) for a, b, c in FN], [fns(a, b, c) for a, b, c in FN])
