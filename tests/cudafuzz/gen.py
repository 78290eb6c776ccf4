#!/usr/bin/env python3
"""Random well-defined CUDA C kernels for the cudafuzz differential test (see README.md here).

One program per seed: `extern "C" __global__ void k(...)` with a fixed signature (six read-only
input tables, one u64 output array, two scalars), so one host driver (host.cpp) runs them all.
Every thread computes from its global id, the tables and the scalars, with integer and float
expressions, if/else, bounded loops, switch, a local array with masked indices, casts between
all widths, and CUDA integer and IEEE float intrinsics (cf.h); then stores NOUT results.

No undefined behaviour by construction: signed +,-,*,<<,negation go through unsigned; shift
amounts are masked; division goes through cf_*div/cf_*rem (or by a non-zero, non -1
constant); array indices are masked; every variable is initialised; float-to-64-bit-integer
conversions of NaN are guarded where NVIDIA's hardware and the PTX ISA disagree (f64 sources,
64-bit destinations).
Floats use only correctly rounded intrinsics (no contraction possible), min/max results get +0
added so that the sign of a zero from min(-0, +0) never shows, and NaNs are stored as one
canonical NaN (cf_bits).

usage: gen.py SEED            (prints the program)
"""
import random
import sys

TABLE = 64  # entries per input table (a power of two: indices are masked)
NOUT = 6    # u64 results per thread

INT = ["u32", "s32", "u64", "s64"]
FLT = ["f32", "f64"]
CT = {"u32": "unsigned", "s32": "int", "u64": "unsigned long long", "s64": "long long",
      "f32": "float", "f64": "double"}
BITS = {"u32": 32, "s32": 32, "u64": 64, "s64": 64}
UNS = {"u32": "u32", "s32": "u32", "u64": "u64", "s64": "u64"}
SUF = {"u32": "u", "s32": "", "u64": "ull", "s64": "ll"}
RND = ["rn", "rz", "rd", "ru"]
SIGNATURE = ("const unsigned *%(r)s in_u32, const int *%(r)s in_s32, "
             "const unsigned long long *%(r)s in_u64, const long long *%(r)s in_s64, "
             "const float *%(r)s in_f32, const double *%(r)s in_f64, "
             "unsigned long long *%(r)s out, unsigned n, unsigned long long p64")


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.ind = 1
        self.scopes = [[]]  # lists of (name, type)
        self.arrays = []    # (name, type, size) visible everywhere after declaration
        self.count = 0
        self.loop_depth = 0
        self.budget = self.r.randint(12, 40)  # statements

    # ---------------------------------------------------------------- helpers
    def emit(self, s):
        self.lines.append("    " * self.ind + s)

    def fresh(self, prefix):
        self.count += 1
        return "%s%d" % (prefix, self.count)

    def vars_of(self, t):
        return [n for sc in self.scopes for (n, ty) in sc if ty == t]

    def chance(self, p):
        return self.r.random() < p

    def int_const(self, t):
        r = self.r
        b = BITS[t]
        special = [0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 255, 256, 0xFFFF, 0x8000,
                   (1 << (b - 1)) - 1, 1 << (b - 1), (1 << b) - 1, 0x9E3779B9, 0x55555555,
                   0x0F0F0F0F]
        v = r.choice(special) if r.random() < 0.6 else r.getrandbits(r.choice([4, 8, 16, b]))
        v &= (1 << b) - 1
        if t.startswith("s") and v >= 1 << (b - 1):
            v -= 1 << b
            if v == -(1 << (b - 1)):  # the literal's minus applies to a positive value
                return "(%s)0x%x%s" % (CT[t], 1 << (b - 1), "u" if b == 32 else "ull")
            return "(%s)(%d%s)" % (CT[t], v, SUF[t])
        return "%d%s" % (v, SUF[t] or "")

    def float_const(self, t):
        r = self.r
        vals = ["0.0", "-0.0", "1.0", "-1.0", "0.5", "1.5", "3.0", "-2.75", "0.1", "1e10",
                "-1e-3", "65504.0", "16777216.0", "16777217.0", "2147483648.0", "-2147483904.0",
                "4294967296.0", "9.2233720368547758e18", "1.8446744073709552e19", "0.49999997"]
        if t == "f32":
            vals += ["1e-40", "-3e-39", "3.4028235e38"]
            bits = ["0x7f800000u", "0xff800000u", "0x7fc00000u", "0x00000001u", "0x80000001u",
                    "0x3f7fffffu", "0x4b7fffffu", "0x4effffffu", "0xcf000000u", "0x5f7fffffu"]
            if r.random() < 0.3:
                return "__uint_as_float(%s)" % r.choice(bits)
            return r.choice(vals) + "f"
        vals += ["1e-310", "-4.9e-324", "1.7976931348623157e308", "0.30000000000000004"]
        bits = ["0x7ff0000000000000ull", "0xfff0000000000000ull", "0x7ff8000000000000ull",
                "0x0000000000000001ull", "0x3fefffffffffffffull", "0x433fffffffffffffull",
                "0x41dfffffffc00000ull", "0xc3e0000000000000ull", "0x43efffffffffffffull"]
        if r.random() < 0.3:
            return "__longlong_as_double((long long)%s)" % r.choice(bits)
        return r.choice(vals)

    def index(self, mask):
        """An index expression in [0, mask]."""
        return "(%s & %du)" % (self.expr("u32", 2), mask)

    # ---------------------------------------------------------------- expressions
    def expr(self, t, depth):
        if t in FLT:
            return self.fexpr(t, depth)
        return self.iexpr(t, depth)

    def leaf(self, t):
        r = self.r
        vs = self.vars_of(t)
        k = r.random()
        if vs and k < 0.45:
            return r.choice(vs)
        if t in INT and k < 0.52:  # sub-word loads: ld.global.{u8,s8,u16,s16}
            sub, count = r.choice([("unsigned char", 4), ("signed char", 4), ("unsigned short", 2),
                                   ("short", 2)])
            src = r.choice(["u32", "s32", "u64", "s64"])
            count *= 2 if src.endswith("64") else 1
            return "(%s)((const %s *)in_%s)[(gid * %du + %du) & %du]" % (
                CT[t], sub, src, r.choice([1, 3, 5]), r.randrange(64), TABLE * count - 1)
        if k < 0.65:
            return "in_%s[%s]" % (t, "(gid + %du) & %du" % (r.randrange(TABLE), TABLE - 1)
                                  if r.random() < 0.6 else "%d" % r.randrange(TABLE))
        if t in FLT:
            return self.float_const(t)
        if k < 0.75:
            return {"u32": "gid", "s32": "(int)gid", "u64": "p64", "s64": "(long long)p64"}[t] \
                if r.random() < 0.5 else {"u32": "n", "s32": "(int)threadIdx.x",
                                          "u64": "(unsigned long long)gid * p64",
                                          "s64": "(long long)blockIdx.x - 1"}[t]
        return self.int_const(t)

    def cond(self, depth):
        r = self.r
        k = r.random()
        if depth <= 0 or k < 0.55:
            t = r.choice(INT + FLT)
            op = r.choice(["<", "<=", ">", ">=", "==", "!="])
            return "(%s %s %s)" % (self.expr(t, depth - 1), op, self.expr(t, depth - 1))
        if k < 0.65:
            return "isnan(%s)" % self.fexpr(r.choice(FLT), depth - 1)
        if k < 0.75:
            return "!%s" % self.cond(depth - 1)
        if k < 0.85:
            t = r.choice(INT)
            return "((%s & %s) != 0)" % (self.expr(t, depth - 1), self.int_const(t))
        return "(%s %s %s)" % (self.cond(depth - 1), r.choice(["&&", "||"]), self.cond(depth - 1))

    def cast_from(self, t, depth):
        """An expression of type t converted from another type."""
        r = self.r
        src = r.choice(INT + FLT)
        if src in INT:
            e = self.iexpr(src, depth - 1)
            if t in INT:
                mid = r.choice(["", "", "unsigned char", "signed char", "unsigned short", "short"])
                return "(%s)(%s)" % (CT[t], "(%s)%s" % (mid, e) if mid else e)
            # integer to float: C's conversion (round to nearest) or an intrinsic
            if r.random() < 0.5:
                return "(%s)(%s)" % (CT[t], e)
            if t == "f32":
                f = {"u32": "__uint2float", "s32": "__int2float", "u64": "__ull2float",
                     "s64": "__ll2float"}[src]
                return "%s_%s(%s)" % (f, r.choice(RND), e)
            if src in ("u64", "s64"):
                return "%s_%s(%s)" % ({"u64": "__ull2double", "s64": "__ll2double"}[src],
                                      r.choice(RND), e)
            return "(double)(%s)" % e
        e = self.fexpr(src, depth - 1)
        if t in FLT:
            if t == src:
                return e
            if t == "f64":
                return "(double)(%s)" % e
            return "__double2float_%s(%s)" % (r.choice(RND), e) if r.random() < 0.7 \
                else "(float)(%s)" % e
        f = {"u32": "uint", "s32": "int", "u64": "ull", "s64": "ll"}[t]
        call = "__%s2%s_%s" % ("float" if src == "f32" else "double", f, r.choice(RND))
        # NaN: PTX §9.7.9.21 says 0; NVIDIA's hardware gives the destination's top bit from
        # f64 and for 64-bit destinations (measured; lower/src/inst/convert.rs nan_to_int_bits,
        # which ptxcross follows), so only f32 -> 32-bit sees a NaN.
        if t in ("u64", "s64") or src == "f64":
            v = self.fresh("c")
            self.emit("%s %s = %s;" % (CT[src], v, e))
            return "(isnan(%s) ? (%s)0 : %s(%s))" % (v, CT[t], call, v)
        return "%s(%s)" % (call, e)

    def iexpr(self, t, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.2:
            return self.leaf(t)
        d = depth - 1
        u = UNS[t]
        ut = CT[u]
        b = BITS[t]
        k = r.randrange(20)
        if k < 5:  # wrapping arithmetic / logic, signed through unsigned
            op = r.choice(["+", "-", "*", "&", "|", "^", "+", "*"])
            a, c = self.iexpr(t, d), self.iexpr(t, d)
            if t == u or op in "&|^":
                return "(%s %s %s)" % (a, op, c)
            return "(%s)((%s)%s %s (%s)%s)" % (CT[t], ut, a, op, ut, c)
        if k == 5:  # shifts
            a = self.iexpr(t, d)
            s = self.iexpr(r.choice(["u32", "s32"]), d) if r.random() < 0.6 else str(r.randrange(b))
            s = "(%s & %d)" % (s, b - 1)
            if r.random() < 0.5:
                return "(%s >> %s)" % (a, s)  # arithmetic for signed types (C++20)
            return "(%s)((%s)%s << %s)" % (CT[t], ut, a, s)
        if k == 6:  # division and remainder
            a = self.iexpr(t, d)
            if r.random() < 0.5:
                c = r.choice([3, 5, 7, 10, 13, 100, 641, 1000, 65537, 0x7FFFFFFF])
                if t.startswith("s") and r.random() < 0.4:
                    c = -c
                return "(%s %s (%s)(%d%s))" % (a, r.choice(["/", "%"]), CT[t], c,
                                               "ll" if b == 64 else "")
            f = {"u32": "cf_u", "s32": "cf_s", "u64": "cf_u", "s64": "cf_s"}[t]
            return "%s%s%s(%s, %s)" % (f, r.choice(["div", "rem"]), "64" if b == 64 else "", a,
                                       self.iexpr(t, d))
        if k == 7:
            return "(%s ? %s : %s)" % (self.cond(d), self.iexpr(t, d), self.iexpr(t, d))
        if k == 8:
            return self.cast_from(t, depth)
        if k == 9:
            f = r.choice(["min", "max"])
            return "%s(%s, %s)" % (f, self.iexpr(t, d), self.iexpr(t, d))
        if k == 10:  # unary
            a = self.iexpr(t, d)
            op = r.choice(["~", "-", "abs"])
            if op == "~":
                return "(%s)~%s" % (CT[t], a)
            if op == "-":
                return "(%s)(0%s - (%s)%s)" % (CT[t], "ull" if b == 64 else "u", ut, a)
            if t == "s32":
                v = self.fresh("a")
                self.emit("int %s = %s;" % (v, a))
                return "abs(%s == (int)0x80000000u ? 0 : %s)" % (v, v)
            if t == "s64":
                v = self.fresh("a")
                self.emit("long long %s = %s;" % (v, a))
                return "llabs(%s == (long long)0x8000000000000000ull ? 0 : %s)" % (v, v)
            return "(%s)~%s" % (CT[t], a)
        if k == 11 and r.random() < 0.6:  # bit-field extract / insert with constant fields
            pos, w = r.randrange(b), r.randint(1, b - 1)
            m = (1 << min(w, b - pos)) - 1
            a = self.iexpr(u, d)
            if r.random() < 0.5:
                return "(%s)((%s >> %d) & 0x%x%s)" % (CT[t], a, pos, m, SUF[u])
            c = self.iexpr(u, d)
            return "(%s)((%s & ~(0x%x%s << %d)) | ((%s & 0x%x%s) << %d))" % (
                CT[t], a, m, SUF[u], pos, c, m, SUF[u], pos)
        # integer intrinsics; each result is cast to t
        x = lambda ty: self.iexpr(ty, d)
        if b == 32:
            choices = [
                lambda: "__popc(%s)" % x("u32"), lambda: "__clz(%s)" % x("s32"),
                lambda: "__brev(%s)" % x("u32"), lambda: "__ffs(%s)" % x("s32"),
                lambda: "__byte_perm(%s, %s, %s)" % (x("u32"), x("u32"),
                                                     x("u32") if r.random() < 0.3 else
                                                     "0x%04xu" % r.getrandbits(16)),
                lambda: "%s(%s, %s, %s)" % (r.choice(["__funnelshift_l", "__funnelshift_r",
                                                      "__funnelshift_lc", "__funnelshift_rc"]),
                                            x("u32"), x("u32"), x("u32")),
                lambda: "__umulhi(%s, %s)" % (x("u32"), x("u32")),
                lambda: "__mulhi(%s, %s)" % (x("s32"), x("s32")),
                lambda: "__sad(%s, %s, %s)" % (x("s32"), x("s32"), x("u32")),
                lambda: "__usad(%s, %s, %s)" % (x("u32"), x("u32"), x("u32")),
                lambda: "%s(%s, %s)" % (r.choice(["__hadd", "__rhadd"]), x("s32"), x("s32")),
                lambda: "%s(%s, %s)" % (r.choice(["__uhadd", "__urhadd"]), x("u32"), x("u32")),
                lambda: "(unsigned)cf_bits(%s)" % self.fexpr("f32", d),  # NaN payloads never show
                lambda: "(unsigned)(((unsigned long long)%s * %s) >> 32)" % (x("u32"), x("u32")),
            ]
        else:
            choices = [
                lambda: "__popcll(%s)" % x("u64"), lambda: "__clzll(%s)" % x("s64"),
                lambda: "__brevll(%s)" % x("u64"), lambda: "__ffsll(%s)" % x("s64"),
                lambda: "__umul64hi(%s, %s)" % (x("u64"), x("u64")),
                lambda: "__mul64hi(%s, %s)" % (x("s64"), x("s64")),
                lambda: "((unsigned long long)%s * %s)" % (x("u32"), x("u32")),
                lambda: "((long long)%s * %s)" % (x("s32"), x("s32")),
                lambda: "(((unsigned long long)%s << 32) | %s)" % (x("u32"), x("u32")),
            ]
        return "(%s)%s" % (CT[t], r.choice(choices)())

    def fexpr(self, t, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.2:
            return self.leaf(t)
        d = depth - 1
        x = lambda: self.fexpr(t, d)
        rm = r.choice(RND) if r.random() < 0.5 else "rn"
        k = r.randrange(12)
        if t == "f32":
            ops2 = ["__fadd", "__fsub", "__fmul", "__fdiv"]
            fma, sqrt, rcp, mn, mx, ab, zero = "__fmaf", "__fsqrt", "__frcp", "fminf", "fmaxf", \
                "fabsf", "0.0f"
        else:
            ops2 = ["__dadd", "__dsub", "__dmul", "__ddiv"]
            fma, sqrt, rcp, mn, mx, ab, zero = "__fma", "__dsqrt", "__drcp", "fmin", "fmax", \
                "fabs", "0.0"
        if k < 4:
            return "%s_%s(%s, %s)" % (r.choice(ops2), rm, x(), x())
        if k == 4:
            return "%s_%s(%s, %s, %s)" % (fma, rm, x(), x(), x())
        if k == 5:
            return "%s_%s(%s)" % (r.choice([sqrt, rcp]), rm, x())
        if k == 6:  # + 0 under rn: min(-0, +0) may be either zero on real hardware
            add = "__fadd_rn" if t == "f32" else "__dadd_rn"
            return "%s(%s(%s, %s), %s)" % (add, r.choice([mn, mx]), x(), x(), zero)
        if k == 7:
            if t == "f32" and r.random() < 0.3:  # clamp to [0, 1], NaN to 0 (cvt.sat / .sat)
                return "__fadd_rn(__saturatef(%s), 0.0f)" % x()
            return r.choice(["%s(%s)" % (ab, x()), "(-(%s))" % x()])
        if k == 8:
            return "(%s ? %s : %s)" % (self.cond(d), x(), x())
        if k in (9, 10):
            return self.cast_from(t, depth)
        if t == "f32":
            return "__uint_as_float(%s)" % self.iexpr("u32", d)
        return "__longlong_as_double(%s)" % self.iexpr("s64", d)

    # ---------------------------------------------------------------- statements
    def assignable(self):
        cands = [(n, ty) for sc in self.scopes for (n, ty) in sc if not n.startswith("i")]
        return cands

    def stmt(self, depth):
        r = self.r
        self.budget -= 1
        k = r.random()
        cands = self.assignable()
        if k < 0.25 or not cands:
            t = r.choice(INT + INT + FLT)
            v = self.fresh("v")
            e = self.expr(t, r.randint(1, 4))
            self.emit("%s %s = %s;" % (CT[t], v, e))
            self.scopes[-1].append((v, t))
        elif k < 0.5:
            n, t = r.choice(cands)
            e = self.expr(t, r.randint(1, 4))
            if t in INT and r.random() < 0.4 and t == UNS[t]:
                self.emit("%s %s= %s;" % (n, r.choice(["+", "^", "|", "&", "-", "*"]), e))
            else:
                self.emit("%s = %s;" % (n, e))
        elif k < 0.58 and self.arrays:
            name, t, size = r.choice(self.arrays)
            if r.random() < 0.5:
                self.emit("%s[%s] = %s;" % (name, self.index(size - 1), self.expr(t, 2)))
            else:
                v = self.fresh("v")
                self.emit("%s %s = %s[%s];" % (CT[t], v, name, self.index(size - 1)))
                self.scopes[-1].append((v, t))
        elif depth <= 0:
            n, t = r.choice(cands)
            self.emit("%s = %s;" % (n, self.expr(t, 2)))
        elif k < 0.72:
            self.emit("if (%s) {" % self.cond(2))
            self.block(depth - 1, r.randint(1, 3))
            if r.random() < 0.6:
                self.emit("} else {")
                self.block(depth - 1, r.randint(1, 3))
            self.emit("}")
        elif k < 0.86 and self.loop_depth < 2:
            self.loop(depth)
        elif k < 0.93:
            self.emit("switch (%s & 7u) {" % self.expr("u32", 2))
            for c in sorted(r.sample(range(8), r.randint(1, 4))):
                self.emit("case %d:" % c)
                self.block(depth - 1, r.randint(1, 2), braces=True)
                if r.random() < 0.8:
                    self.emit("    break;")
            if r.random() < 0.7:
                self.emit("default:")
                self.block(depth - 1, 1, braces=True)
            self.emit("}")
        elif k < 0.95:  # some threads leave early: their outputs keep the sentinel
            self.emit("if (%s) return;" % self.cond(2))
        else:
            n, t = r.choice(cands)
            self.emit("%s = %s;" % (n, self.expr(t, 3)))

    def loop(self, depth):
        r = self.r
        self.loop_depth += 1
        i = self.fresh("i")
        kind = r.randrange(3)
        if kind == 0:
            self.emit("for (unsigned %s = 0; %s < (%s & %du); ++%s) {" %
                      (i, i, self.expr("u32", 2), r.choice([3, 7, 15]), i))
            self.scopes.append([(i, "u32")])
        elif kind == 1:
            self.emit("unsigned %s = %s & 15u;" % (i, self.expr("u32", 2)))
            self.emit("while (%s != 0) {" % i)
            self.scopes.append([])
        else:
            self.emit("unsigned %s = %s & 7u;" % (i, self.expr("u32", 2)))
            self.emit("do {")
            self.scopes.append([])
        self.ind += 1
        for _ in range(r.randint(1, 3)):
            self.stmt(depth - 1)
        if r.random() < 0.3:
            self.emit("if (%s) %s;" % (self.cond(1), r.choice(["break", "continue"]) if kind == 0
                                       else "break"))
        for _ in range(r.randint(0, 2)):
            self.stmt(depth - 1)
        if kind == 1:
            self.emit("%s = %s;" % (i, r.choice(["%s - 1u" % i, "%s >> 1" % i,
                                                 "%s & (%s - 1u)" % (i, i)])))
        self.ind -= 1
        self.scopes.pop()
        if kind == 2:
            self.emit("} while (%s-- > 1u);" % i)
        else:
            self.emit("}")
        self.loop_depth -= 1

    def block(self, depth, count, braces=False):
        if braces:
            self.emit("{")
        self.ind += 1
        self.scopes.append([])
        for _ in range(count):
            self.stmt(depth)
        self.scopes.pop()
        self.ind -= 1
        if braces:
            self.emit("}")

    def program(self, name):
        r = self.r
        restrict = "__restrict__" if r.random() < 0.5 else ""
        body_start = len(self.lines)
        self.emit("unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;")
        self.emit("if (gid >= n) return;")
        # a few variables of every type, then (maybe) local arrays, then statements
        for t in INT + FLT:
            v = self.fresh("v")
            self.emit("%s %s = %s;" % (CT[t], v, self.expr(t, 2)))
            self.scopes[0].append((v, t))
        for _ in range(r.choice([0, 1, 1, 2])):
            t = r.choice(["u32", "u64", "s32", "f32", "f64", "u8", "s16"])
            size = r.choice([4, 8, 16])
            a = self.fresh("arr")
            if t in ("u8", "s16"):  # sub-word local arrays (st/ld.local.u8/.s16), read as u32/s32
                ctype, src, t = ("unsigned char", "u32", "u32") if t == "u8" else ("short", "s32", "s32")
            else:
                ctype, src = CT[t], t
            self.emit("%s %s[%d];" % (ctype, a, size))
            self.emit("for (int j = 0; j < %d; ++j) %s[j] = (%s)in_%s[(gid * %du + (unsigned)j) & %du];"
                      % (size, a, ctype, src, r.choice([1, 3, 5, 7]), TABLE - 1))
            self.arrays.append((a, t, size))
        while self.budget > 0:
            self.stmt(r.randint(1, 3))
        outs = [n for (n, t) in self.scopes[0]]
        r.shuffle(outs)
        outs = outs[:NOUT]
        for j, v in enumerate(outs):
            self.emit("out[gid * %du + %du] = cf_bits(%s);" % (NOUT, j, v))
        body = self.lines[body_start:]
        head = ['#include "cf.h"', "",
                'extern "C" __global__ void %s(%s)' % (name, SIGNATURE % {"r": restrict}), "{"]
        return "\n".join(head + body + ["}", ""])


def generate(seed):
    return Gen(seed).program("k")


if __name__ == "__main__":
    print(generate(int(sys.argv[1], 0)), end="")
