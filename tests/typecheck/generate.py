#!/usr/bin/env python3
"""Regenerates verdicts.tsv: ptxas's verdict on every instruction x operand-register-type
combination that `lower/tests/operand_types.rs` checks ptxcross against.

Each template is one instruction whose operand slots are written `{T}` with T the slot's
natural register type; one slot at a time is given each register type of TYPES (and, for
source slots, an integer and a float immediate), the others keep their natural type.

Usage: python3 tests/typecheck/generate.py [PTXAS]   (default: the CUDA venv's ptxas)
"""
import os, re, subprocess, sys, tempfile

PTXAS = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser(
    "~/.cache/ptxcross/cuda-venv/lib/python3.11/site-packages/nvidia/cu13/bin/ptxas")
HERE = os.path.dirname(os.path.abspath(__file__))

TYPES = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
         "f16", "f16x2", "f32", "f64", "pred"]
IMMEDIATES = {"imm_int": "1", "imm_float": "0f3F800000"}

# The kernel preamble the test uses too: four registers of every type, named `%<type>_<i>`.
def preamble():
    lines = [".version 8.5", ".target sm_90", ".address_size 64", ".visible .entry k()", "{"]
    for t in TYPES:
        lines.append(f"\t.reg .{t} %{t}_<4>;")
    return lines

# {u32} is a slot whose natural register type is u32; `<...>` is a vector operand `{...}`;
# `[...]` addresses are fixed (%u64_3).
TEMPLATES = """
add.u32 {u32}, {u32}, {u32};
add.s64 {s64}, {s64}, {s64};
add.u16 {u16}, {u16}, {u16};
add.f32 {f32}, {f32}, {f32};
add.rn.f64 {f64}, {f64}, {f64};
add.f16 {f16}, {f16}, {f16};
add.f16x2 {f16x2}, {f16x2}, {f16x2};
add.rn.bf16 {b16}, {b16}, {b16};
sub.s32 {s32}, {s32}, {s32};
mul.lo.u32 {u32}, {u32}, {u32};
mul.hi.s64 {s64}, {s64}, {s64};
mul.wide.u32 {u64}, {u32}, {u32};
mul.wide.s16 {s32}, {s16}, {s16};
mad.lo.s32 {s32}, {s32}, {s32}, {s32};
mad.wide.u32 {u64}, {u32}, {u32}, {u64};
fma.rn.f32 {f32}, {f32}, {f32}, {f32};
fma.rn.f16x2 {f16x2}, {f16x2}, {f16x2}, {f16x2};
div.u32 {u32}, {u32}, {u32};
div.rn.f32 {f32}, {f32}, {f32};
rem.s64 {s64}, {s64}, {s64};
min.u32 {u32}, {u32}, {u32};
max.f32 {f32}, {f32}, {f32};
abs.s32 {s32}, {s32};
neg.f32 {f32}, {f32};
and.b32 {b32}, {b32}, {b32};
or.b64 {b64}, {b64}, {b64};
xor.pred {pred}, {pred}, {pred};
not.b32 {b32}, {b32};
cnot.b16 {b16}, {b16};
shl.b32 {b32}, {b32}, {u32};
shl.b64 {b64}, {b64}, {u32};
shr.s32 {s32}, {s32}, {u32};
shr.u16 {u16}, {u16}, {u32};
popc.b64 {u32}, {b64};
clz.b32 {u32}, {b32};
brev.b32 {b32}, {b32};
bfind.u32 {u32}, {u32};
bfe.u32 {u32}, {u32}, {u32}, {u32};
bfe.s64 {s64}, {s64}, {u32}, {u32};
bfi.b32 {b32}, {b32}, {b32}, {u32}, {u32};
shf.l.wrap.b32 {b32}, {b32}, {b32}, {u32};
prmt.b32 {b32}, {b32}, {b32}, {b32};
lop3.b32 {b32}, {b32}, {b32}, {b32}, 0x96;
setp.lt.s32 {pred}, {s32}, {s32};
setp.gt.f32 {pred}, {f32}, {f32};
setp.eq.u64 {pred}|{pred}, {u64}, {u64};
setp.ne.and.u32 {pred}, {u32}, {u32}, {pred};
set.lt.u32.f32 {u32}, {f32}, {f32};
selp.b32 {b32}, {b32}, {b32}, {pred};
selp.f64 {f64}, {f64}, {f64}, {pred};
slct.s32.s32 {s32}, {s32}, {s32}, {s32};
mov.u32 {u32}, {u32};
mov.f32 {f32}, {f32};
mov.b64 {b64}, {b64};
mov.pred {pred}, {pred};
mov.b64 {b64}, <{b32}, {b32}>;
mov.b64 <{b32}, {b32}>, {b64};
mov.b32 {b32}, <{b16}, {b16}>;
cvt.u32.u16 {u32}, {u16};
cvt.u16.u32 {u16}, {u32};
cvt.s64.s32 {s64}, {s32};
cvt.s32.s8 {s32}, {s8};
cvt.u8.u32 {u8}, {u32};
cvt.s16.s64 {s16}, {s64};
cvt.rn.f32.u32 {f32}, {u32};
cvt.rn.f32.s64 {f32}, {s64};
cvt.rzi.s32.f32 {s32}, {f32};
cvt.rni.u16.f64 {u16}, {f64};
cvt.f64.f32 {f64}, {f32};
cvt.rn.f32.f64 {f32}, {f64};
cvt.rn.f16.f32 {f16}, {f32};
cvt.f32.f16 {f32}, {f16};
cvt.rn.bf16.f32 {b16}, {f32};
cvt.rn.f16x2.f32 {f16x2}, {f32}, {f32};
cvt.rni.f32.f32 {f32}, {f32};
cvt.pack.sat.u16.s32 {u32}, {s32}, {s32};
cvt.pack.sat.u8.s32.b32 {b32}, {s32}, {s32}, {b32};
ld.global.u8 {u8}, [%u64_3];
ld.global.s8 {s8}, [%u64_3];
ld.global.u16 {u16}, [%u64_3];
ld.global.s16 {s16}, [%u64_3];
ld.global.u32 {u32}, [%u64_3];
ld.global.s32 {s32}, [%u64_3];
ld.global.b64 {b64}, [%u64_3];
ld.global.f32 {f32}, [%u64_3];
ld.global.f64 {f64}, [%u64_3];
ld.global.b16 {b16}, [%u64_3];
ld.global.u32 %u32_0, [{u64}];
ld.global.v2.u32 <{u32}, {u32}>, [%u64_3];
ld.global.v2.s16 <{s16}, {s16}>, [%u64_3];
st.global.u8 [%u64_3], {u8};
st.global.s16 [%u64_3], {s16};
st.global.u32 [%u64_3], {u32};
st.global.b64 [%u64_3], {b64};
st.global.f32 [%u64_3], {f32};
st.global.f64 [%u64_3], {f64};
st.global.v2.f32 [%u64_3], <{f32}, {f32}>;
ld.global.v4.u8 <{u8*}, {u8*}, {u8*}, {u8*}>, [%u64_3];
ld.global.v2.s16 <{s16*}, {s16*}>, [%u64_3];
ld.global.v2.u32 <{u32*}, {u32*}>, [%u64_3];
ld.global.v2.f32 <{f32*}, {f32*}>, [%u64_3];
st.global.v4.b8 [%u64_3], <{b8*}, {b8*}, {b8*}, {b8*}>;
st.global.v2.s32 [%u64_3], <{s32*}, {s32*}>;
st.global.v2.f64 [%u64_3], <{f64*}, {f64*}>;
ld.param.v4.u8 <{u8*}, {u8*}, {u8*}, {u8*}>, [%u64_3];
cvt.rzi.u8.bf16 {u8}, {b16};
cvt.f32.bf16 {f32}, {b16};
cvt.rzi.s32.f16 {s32}, {f16};
atom.global.add.noftz.f16x2 {b32}, [%u64_3], {b32};
red.global.add.noftz.bf16 [%u64_3], {b16};
atom.global.cas.b16 {b16}, [%u64_3], {b16}, {b16};
atom.global.add.u32 {u32}, [%u64_3], {u32};
atom.global.add.f32 {f32}, [%u64_3], {f32};
atom.global.cas.b64 {b64}, [%u64_3], {b64}, {b64};
atom.global.exch.b32 {b32}, [%u64_3], {b32};
red.global.add.u64 [%u64_3], {u64};
sqrt.rn.f32 {f32}, {f32};
rcp.rn.f64 {f64}, {f64};
ex2.approx.f32 {f32}, {f32};
testp.finite.f32 {pred}, {f32};
copysign.f32 {f32}, {f32}, {f32};
mul24.lo.u32 {u32}, {u32}, {u32};
addc.u32 {u32}, {u32}, {u32};
sad.u32 {u32}, {u32}, {u32}, {u32};
bmsk.clamp.b32 {b32}, {u32}, {u32};
szext.clamp.s32 {s32}, {s32}, {u32};
dp4a.u32.u32 {u32}, {u32}, {u32}, {u32};
fns.b32 {b32}, {b32}, {u32}, {s32};
isspacep.global {pred}, {u64};
cvta.to.global.u64 {u64}, {u64};
shfl.sync.idx.b32 {b32}|{pred}, {b32}, {u32}, {u32}, {u32};
vote.sync.ballot.b32 {b32}, {pred}, {u32};
vote.sync.any.pred {pred}, {pred}, {u32};
activemask.b32 {b32};
redux.sync.add.u32 {u32}, {u32}, {u32};
match.any.sync.b32 {b32}, {b32}, {u32};
"""

# Special registers (§10), read as the source of `mov.T` and `cvt.u32.T` for every T of TYPES,
# and as an operand of instructions that are not `mov`/`cvt` (ptxas refuses those). Not
# `WARP_SZ`: "a run-time immediate constant" (§2.2.1), an operand wherever an immediate is.
SPECIAL_REGISTERS = ["%tid.x", "%ntid.y", "%ctaid.z", "%nctaid.x", "%tid.w", "%laneid", "%warpid",
                     "%nwarpid", "%smid", "%nsmid", "%gridid", "%lanemask_eq", "%lanemask_lt",
                     "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%clock", "%clock_hi",
                     "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
                     "%dynamic_smem_size", "%total_smem_size", "%envreg3", "%cluster_ctarank",
                     "%cluster_nctarank", "%cluster_ctaid.x", "%cluster_nctaid.y", "%clusterid.z",
                     "%nclusterid.x", "%is_explicit_cluster"]
SPECIAL_USES = """
add.u32 %u32_0, {S}, %u32_1;
add.u64 %u64_0, {S}, %u64_1;
mul.lo.u32 %u32_0, %u32_1, {S};
and.b32 %b32_0, {S}, %b32_1;
shl.b32 %b32_0, %b32_1, {S};
setp.eq.u32 %pred_0, {S}, 0;
selp.u32 %u32_0, {S}, 1, %pred_0;
st.global.u32 [%u64_3], {S};
"""

def special_register_rows():
    rows = []
    for sreg in SPECIAL_REGISTERS:
        for t in TYPES:
            rows.append((None, 1, sreg, f"mov.{t} %{t}_0, {sreg};"))
            rows.append((None, 1, sreg, f"cvt.u32.{t} %u32_0, {sreg};"))
        for use in SPECIAL_USES.strip().splitlines():
            rows.append((None, 1, sreg, use.strip().replace("{S}", sreg)))
    return rows

# The instruction types themselves, with registers of that type (`mov` has no 8-bit types,
# §9.7.10.3; `cvt` no bit-size ones, §9.7.10.20), and `WARP_SZ` (an immediate) as `mov`'s
# source for every type.
def instruction_type_rows():
    rows = []
    for t in TYPES:
        rows.append((None, 1, t, f"mov.{t} %{t}_0, %{t}_1;"))
        rows.append((None, 1, "WARP_SZ", f"mov.{t} %{t}_0, WARP_SZ;"))
        rows.append((None, 1, t, f"cvt.u32.{t} %u32_0, %{t}_1;"))
        rows.append((None, 0, t, f"cvt.{t}.u32 %{t}_0, %u32_1;"))
    return rows

SLOT = re.compile(r"\{([a-z0-9]+\*?)\}")

def templates():
    for line in TEMPLATES.strip().splitlines():
        yield line.strip()

def render(tpl, choice):
    """`choice` maps slot index -> register type or immediate kind."""
    out, counts, i = [], {}, 0
    pos = 0
    for m in SLOT.finditer(tpl):
        out.append(tpl[pos:m.start()])
        natural = m.group(1).rstrip("*")
        # Starred slots (`{u8*}`) form one group: the first one's choice applies to all.
        key = first_star(tpl) if m.group(1).endswith("*") else i
        t = choice.get(key, natural)
        if t in IMMEDIATES:
            out.append(IMMEDIATES[t])
        else:
            n = counts.get(t, 0)
            counts[t] = n + 1
            out.append(f"%{t}_{n % 4}")
        pos = m.end()
        i += 1
    out.append(tpl[pos:])
    return "".join(out).replace("<", "{").replace(">", "}")

def first_star(tpl):
    return next(i for i, m in enumerate(SLOT.finditer(tpl)) if m.group(1).endswith("*"))

def combinations():
    rows = []
    for tpl in templates():
        slots = SLOT.findall(tpl)
        dests = destination_slots(tpl, len(slots))
        rows.append((tpl, -1, slots[0].rstrip("*") if slots else "", render(tpl, {})))
        for i, natural in enumerate(slots):
            if natural.endswith("*") and i != first_star(tpl):
                continue
            natural = natural.rstrip("*")
            kinds = TYPES + ([] if i in dests else list(IMMEDIATES))
            for t in kinds:
                if t == natural:
                    continue
                rows.append((tpl, i, t, render(tpl, {i: t})))
    return rows + special_register_rows() + instruction_type_rows()

def destination_slots(tpl, n):
    """Slots written by the instruction: those before the first `,` outside braces, except for
    `st`/`red` (no destination). Vector destinations count every element."""
    head = tpl.split()[0]
    if head.startswith(("st.", "red.")):
        return set()
    depth, first = 0, None
    for k, ch in enumerate(tpl):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            first = k
            break
    before = tpl[:first] if first is not None else tpl
    return set(range(len(SLOT.findall(before))))

def ptxas_run(lines):
    """(line numbers, 0-based in `lines`, that ptxas reports an error for; its exit status)."""
    src = preamble()
    base = len(src)
    src += ["\t" + l for l in lines] + ["\tret;", "}"]
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write("\n".join(src) + "\n")
        path = f.name
    try:
        r = subprocess.run([PTXAS, "-arch", "sm_90", path, "-o", os.devnull],
                           capture_output=True, text=True)
    finally:
        os.unlink(path)
    bad = {int(m.group(1)) - base - 1 for m in re.finditer(r"line (\d+); error", r.stderr)}
    # A crash (a signal, or an "internal compiler error" naming no line).
    return bad, r.returncode != 0 and not bad

def crashing(rows, idx):
    """The rows of `idx` on which ptxas crashes when given alone, by bisection."""
    if not ptxas_run([rows[i][3] for i in idx])[1]:
        return []
    if len(idx) == 1:
        return idx
    mid = len(idx) // 2
    return crashing(rows, idx[:mid]) + crashing(rows, idx[mid:])

def verdicts(rows):
    """ptxas's verdict per row: all rows in one file, then the accepted ones again until
    ptxas accepts them all (an error can hide others). A row ptxas crashes on (13.5 does on
    `st.global.v2.f64 [a], {1, 1}`: a signal, or an internal error naming no line) is "crash": ptxcross must refuse it."""
    verdict = ["ok"] * len(rows)
    pending = list(range(len(rows)))
    while True:
        bad, crashed = ptxas_run([rows[i][3] for i in pending])
        if crashed:
            found = crashing(rows, pending)
            if not found:
                raise SystemExit("ptxas crashes on the accepted rows together, on none alone")
            for i in found:
                verdict[i] = "crash"
            pending = [i for i in pending if verdict[i] == "ok"]
            continue
        if not bad:
            return verdict
        for k in bad:
            verdict[pending[k]] = "error"
        pending = [i for k, i in enumerate(pending) if k not in bad]

def main():
    rows = combinations()
    verdict = verdicts(rows)
    out = os.path.join(HERE, "verdicts.tsv")
    version = subprocess.run([PTXAS, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    with open(out, "w") as f:
        f.write(f"# ptxas verdicts ({version}, -arch sm_90) on one instruction per row; regenerate with\n")
        f.write("# python3 tests/typecheck/generate.py. Columns: verdict (ok, error, crash), slot (-1: all natural), slot's\n")
        f.write("# register type or immediate, instruction. Registers are `%<type>_<i>`, declared for every\n")
        f.write("# type in " + " ".join(TYPES) + ". Special-register rows: the type column names the register\n")
        f.write("# (or WARP_SZ); instruction-type rows (last): the instruction's type.\n")
        for (tpl, slot, t, line), v in zip(rows, verdict):
            f.write(f"{v}\t{slot}\t{t}\t{line}\n")
    n_ok = verdict.count("ok")
    print(f"{len(rows)} rows, {n_ok} accepted, {len(rows) - n_ok} refused -> {out}")

if __name__ == "__main__":
    main()
