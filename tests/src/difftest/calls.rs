//! Device functions and calls in generated programs ([`super::gen::call_program`]).
//!
//! A program has up to three `.func`s `f0, f1, …`; function k calls only functions above k,
//! and itself when it is recursive, so every call graph is a DAG plus self loops and every
//! program terminates. A function's formals are:
//! - `dep`: the recursion budget. The kernel passes `%rK & 3`; a function passes its own to
//!   the functions above it, and `dep - 1` to itself, only while `dep != 0`;
//! - pointers to the memories its body reaches ([`Sig::ptrs`]: the thread's scratch words and
//!   the input table as global pointers, its local words as a generic pointer to the kernel's
//!   `loc`, its shared slots as a `.shared` address), so every access of a function lands in
//!   the caller's memory;
//! - value arguments and returns of every width ([`PTy`]), as `.param`s (stored and loaded with
//!   `st.param`/`ld.param` of their own type, from and into 32- or 64-bit registers, §9.4.1:
//!   truncated on the store, zero- or sign-extended on the load), or as `.reg` formals (the
//!   old ABI: registers of the callee).
//!
//! Each function also has `.local` words of its own (`Mem::Frame`, set from `%r0, %r1` by the
//! prologue): every activation of a recursive one needs its own copy.
//!
//! A function's body is a random block of the generator (branches, loops, breaks, irreducible
//! loops, early `ret` from inside loops, memory, guarded and nested calls) over its own
//! registers `%r*`, `%rd*`, `%p*`, which its prologue sets: value arguments into some, random
//! constants into the rest, `%pI` from bit I of `%rI`. Every exit stores the returns, first a
//! checksum of all its registers (the XOR of `%r*` and the halves of `%rd*`), which the caller XORs
//! into one of its registers: a register the call machinery clobbers shows in the outputs.
//!
//! Calls are direct or indirect (`call (…), %fp, (…), proto;` through a pointer chosen per
//! thread by `selp` between two functions of the same signature), and may be guarded (`@p
//! call`; the return loads carry the same guard). The model (`model.rs`) executes them from
//! §9.7.13.5 `call`, §9.7.13.6 `ret` and §5.1.6.4 (a callee's registers are its own; `.param`
//! arguments are copied in at the call, returns copied out at `ret`).

use super::gen::Rng;
use super::program::*;
use std::fmt::Write;

/// The type of a formal or a return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PTy {
    U8,
    S8,
    B8,
    U16,
    S16,
    B16,
    U32,
    S32,
    B32,
    F32,
    U64,
    S64,
    B64,
}

impl PTy {
    const ALL: [PTy; 13] =
        [PTy::U8, PTy::S8, PTy::B8, PTy::U16, PTy::S16, PTy::B16, PTy::U32, PTy::S32, PTy::B32, PTy::F32, PTy::U64, PTy::S64, PTy::B64];
    /// The types of `.reg` formals (registers of exactly the formal's size).
    const REG: [PTy; 5] = [PTy::U32, PTy::S32, PTy::B32, PTy::U64, PTy::B64];

    pub fn bits(self) -> u32 {
        match self {
            PTy::U8 | PTy::S8 | PTy::B8 => 8,
            PTy::U16 | PTy::S16 | PTy::B16 => 16,
            PTy::U32 | PTy::S32 | PTy::B32 | PTy::F32 => 32,
            _ => 64,
        }
    }
    pub fn signed(self) -> bool {
        matches!(self, PTy::S8 | PTy::S16 | PTy::S32 | PTy::S64)
    }
    pub fn name(self) -> &'static str {
        match self {
            PTy::U8 => "u8",
            PTy::S8 => "s8",
            PTy::B8 => "b8",
            PTy::U16 => "u16",
            PTy::S16 => "s16",
            PTy::B16 => "b16",
            PTy::U32 => "u32",
            PTy::S32 => "s32",
            PTy::B32 => "b32",
            PTy::F32 => "f32",
            PTy::U64 => "u64",
            PTy::S64 => "s64",
            PTy::B64 => "b64",
        }
    }
    /// What a register of `dst_bits` holds after `st.param.T` of a register holding `v` and
    /// `ld.param.T` of the same bytes (§9.4.1: the store keeps the low T bits; the load
    /// sign-extends signed types and zero-extends the others to the register's width).
    pub fn pass(self, v: u64, dst_bits: u32) -> u64 {
        let n = self.bits();
        let low = if n == 64 { v } else { v & ((1u64 << n) - 1) };
        let ext = if self.signed() && n < 64 && low >> (n - 1) & 1 == 1 { low | !((1u64 << n) - 1) } else { low };
        if dst_bits == 64 {
            ext
        } else {
            ext & 0xffff_ffff
        }
    }
    /// Registers of this type: 64-bit ones for the 64-bit types, 32-bit ones for f32 and for
    /// `.reg` formals of 32 bits; either for the other (integer) `.param`s.
    fn reg(self, rng: &mut Rng, reg_abi: bool) -> Reg {
        if self.bits() == 64 || (!reg_abi && self != PTy::F32 && rng.chance(20)) {
            Reg::D(rng.below(ND as u64) as u8)
        } else {
            Reg::R(rng.below(NR as u64) as u8)
        }
    }
}

/// A function's signature (besides `dep`, which every function takes first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sig {
    /// `.reg` formals (the old ABI) instead of `.param` ones.
    pub reg_abi: bool,
    /// Memories reached through pointer formals, in [`PTRS`] order.
    pub ptrs: Vec<Mem>,
    pub params: Vec<PTy>,
    pub rets: Vec<PTy>,
}

/// The memories a function may reach, in the order of their pointer formals.
pub const PTRS: [Mem; 4] = [Mem::Scratch, Mem::Table, Mem::Local, Mem::SharedRw];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Func {
    pub sig: Sig,
    /// The register each value argument is loaded into (in order: a later one wins).
    pub binds: Vec<Reg>,
    /// The register each return value is stored from.
    pub ret_src: Vec<Reg>,
    /// The values of the registers before the arguments are loaded.
    pub init_r: [u32; NR],
    pub init_d: [u64; ND],
    /// Calls itself (with `dep - 1`, while `dep != 0`).
    pub recursive: bool,
    pub body: Vec<Stmt>,
}

/// A call site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub f: u8,
    /// An indirect call: the pointer is `selp.b64 %fp, f, alt, %pP` (`alt` has `f`'s signature).
    pub alt: Option<(u8, u8)>,
    /// The caller's registers passed as the value arguments.
    pub args: Vec<Reg>,
    /// The caller's registers that receive the returns.
    pub rets: Vec<Reg>,
    /// In the kernel, `dep` is `%rK & 3` of this K.
    pub depth_reg: u8,
}

impl Call {
    /// The function a thread calls: `f`, or for an indirect call `alt` when `%pP` is false.
    pub fn target(&self, p: &[bool]) -> usize {
        match self.alt {
            Some((alt, q)) if !p[q as usize] => alt as usize,
            _ => self.f as usize,
        }
    }
}

/// The `dep` a call passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// From the kernel: `%rK & 3`.
    Masked(u8),
    /// To a function above: the caller's own `dep`.
    Same,
    /// To itself: `dep - 1`, and the call happens only while `dep != 0`.
    Minus1,
}

impl Depth {
    pub fn of(func: Option<usize>, call: &Call) -> Depth {
        match func {
            None => Depth::Masked(call.depth_reg),
            Some(k) if call.f as usize == k && call.alt.is_none() => Depth::Minus1,
            Some(_) => Depth::Same,
        }
    }
}

/// Registers of every body that makes calls: the recursion budget and its decrement, the
/// recursion guard, function pointers, the generic pointer to the kernel's local words.
pub const CALLER_REGS: &str = "    .reg .b32 %dep, %dm;\n    .reg .pred %pd;\n    .reg .b64 %fp, %fq, %blg;";

// ---- Generation ------------------------------------------------------------------------------

/// Signatures of `n` functions, from the last one down: each reaches the memories of the one
/// above it and maybe one more (a caller can pass every pointer its callees take); 40 % share
/// the signature of the one above (candidates of indirect calls).
pub fn signatures(rng: &mut Rng, n: usize) -> Vec<Sig> {
    let mut sigs: Vec<Sig> = Vec::new();
    for k in (0..n).rev() {
        let above = sigs.first().cloned();
        let sig = match above {
            Some(s) if rng.chance(40) => s,
            _ => {
                let reg_abi = rng.chance(20);
                let mut ptrs = above.map(|s| s.ptrs).unwrap_or_default();
                if rng.chance(70) {
                    let m = rng.pick(&PTRS);
                    if !ptrs.contains(&m) {
                        ptrs.push(m);
                    }
                }
                ptrs.sort_by_key(|m| PTRS.iter().position(|x| x == m));
                let tys: &[PTy] = if reg_abi { &PTy::REG } else { &PTy::ALL };
                let params = (0..1 + rng.below(4)).map(|_| rng.pick(tys)).collect();
                let rets = (0..rng.below(3)).map(|_| rng.pick(tys)).collect();
                Sig { reg_abi, ptrs, params, rets }
            }
        };
        let _ = k;
        sigs.insert(0, sig);
    }
    sigs
}

/// A function of signature `sig` with an empty body (the generator fills it).
pub fn func(rng: &mut Rng, sig: Sig) -> Func {
    let binds = sig.params.iter().map(|t| t.reg(rng, sig.reg_abi)).collect();
    let ret_src = sig.rets.iter().map(|t| t.reg(rng, sig.reg_abi)).collect();
    Func {
        binds,
        ret_src,
        init_r: std::array::from_fn(|_| rng.value() as u32),
        init_d: std::array::from_fn(|_| rng.value()),
        recursive: rng.chance(35),
        body: Vec::new(),
        sig,
    }
}

/// A call of `f` (`alt`: an indirect call choosing between `f` and it by `%pP`).
pub fn call(rng: &mut Rng, sigs: &[Sig], f: usize, alt: Option<(usize, u8)>) -> Call {
    let sig = &sigs[f];
    Call {
        f: f as u8,
        alt: alt.map(|(a, p)| (a as u8, p)),
        args: sig.params.iter().map(|t| t.reg(rng, sig.reg_abi)).collect(),
        rets: sig.rets.iter().map(|t| t.reg(rng, sig.reg_abi)).collect(),
        depth_reg: rng.below(NR as u64) as u8,
    }
}

// ---- Printing --------------------------------------------------------------------------------

fn base_of(m: Mem, in_func: bool) -> String {
    match m {
        Mem::Local if !in_func => "%blg".into(),
        m => base(m),
    }
}

fn ptr_ty(m: Mem) -> &'static str {
    if m == Mem::SharedRw {
        "u32"
    } else {
        "u64"
    }
}

/// Prints device function `k` of `program`.
pub fn print_func(w: &mut String, program: &Program, k: usize) {
    let f = &program.funcs[k];
    let sig = &f.sig;
    let (space, pre) = if sig.reg_abi { (".reg", "%") } else { (".param", "") };
    // The first return is a checksum of all the function's registers at its exit
    // (`print_return`): a register clobbered by a callee shows in the caller.
    let rets: Vec<String> = std::iter::once(format!("{space} .b32 {pre}fsum"))
        .chain(sig.rets.iter().enumerate().map(|(i, t)| format!("{space} .{} {pre}fr{i}", t.name())))
        .collect();
    let mut params = vec![format!("{space} .u32 {pre}fdep")];
    params.extend(sig.ptrs.iter().enumerate().map(|(i, &m)| format!("{space} .{} {pre}fptr{i}", ptr_ty(m))));
    params.extend(sig.params.iter().enumerate().map(|(i, t)| format!("{space} .{} {pre}fa{i}", t.name())));
    let rets = if rets.is_empty() { String::new() } else { format!("({}) ", rets.join(", ")) };
    let _ = writeln!(w, ".func {rets}f{k}({})\n{{", params.join(", "));
    let _ = writeln!(w, "    .reg .b32 %r<{NR}>;\n    .reg .b64 %rd<{ND}>;\n    .reg .pred %p<{NP}>;\n    .reg .pred %q;");
    let _ = writeln!(w, "    .reg .b32 %c<{MAX_DEPTH}>;\n    .reg .b32 %t<4>;\n    .reg .b64 %ta<2>;");
    let _ = writeln!(w, "    .reg .b32 %bs;\n    .reg .b64 %bg, %bi, %bl, %bf;\n{CALLER_REGS}");
    let _ = writeln!(w, "    .local .align 8 .b8 floc[{}];", NF * 4);
    // Prologue (modelled by `model::Cta::call`).
    let load = |w: &mut String, ty: &str, dst: &str, formal: String| {
        let _ = if sig.reg_abi {
            writeln!(w, "    mov.{ty} {dst}, %{formal};")
        } else {
            writeln!(w, "    ld.param.{ty} {dst}, [{formal}];")
        };
    };
    load(w, "u32", "%dep", "fdep".into());
    for (i, &m) in sig.ptrs.iter().enumerate() {
        load(w, ptr_ty(m), &base(m), format!("fptr{i}"));
    }
    for (i, v) in f.init_r.iter().enumerate() {
        let _ = writeln!(w, "    mov.u32 %r{i}, {v};");
    }
    for (i, v) in f.init_d.iter().enumerate() {
        let _ = writeln!(w, "    mov.u64 %rd{i}, {v:#x};");
    }
    for (i, (t, &r)) in sig.params.iter().zip(&f.binds).enumerate() {
        load(w, t.name(), &reg(r), format!("fa{i}"));
    }
    for i in 0..NP {
        let _ = writeln!(w, "    and.b32 %t1, %r{i}, {};\n    setp.ne.u32 %p{i}, %t1, 0;", 1u32 << i);
    }
    for i in 0..MAX_DEPTH {
        let _ = writeln!(w, "    mov.u32 %c{i}, 0;");
    }
    let _ = writeln!(w, "    setp.ne.u32 %q, %dep, %dep;");
    let _ = writeln!(w, "    mov.u64 %bf, floc;\n    st.local.v2.u32 [%bf], {{%r0, %r1}};");
    let ctx = Ctx { block: program.block, program, func: Some(k) };
    for fl in &flatten_body(&f.body, Some(k)) {
        print_flat(w, fl, &ctx);
    }
    let _ = writeln!(w, "}}\n");
}

/// A function's exit: the returns stored, `ret`.
pub(super) fn print_return(w: &mut String, ctx: &Ctx) {
    let f = &ctx.program.funcs[ctx.func.expect("in a function")];
    // The checksum (`model::checksum`): the XOR of %r*, and of %rd*'s halves.
    let _ = writeln!(w, "    mov.u32 %t2, 0;");
    for i in 0..NR {
        let _ = writeln!(w, "    xor.b32 %t2, %t2, %r{i};");
    }
    for i in 0..ND {
        let _ = writeln!(w, "    mov.b64 {{%t0, %t1}}, %rd{i};\n    xor.b32 %t2, %t2, %t0;\n    xor.b32 %t2, %t2, %t1;");
    }
    let _ = if f.sig.reg_abi { writeln!(w, "    mov.b32 %fsum, %t2;") } else { writeln!(w, "    st.param.b32 [fsum], %t2;") };
    for (i, (t, &r)) in f.sig.rets.iter().zip(&f.ret_src).enumerate() {
        let _ = if f.sig.reg_abi {
            writeln!(w, "    mov.{} %fr{i}, {};", t.name(), reg(r))
        } else {
            writeln!(w, "    st.param.{} [fr{i}], {};", t.name(), reg(r))
        };
    }
    let _ = writeln!(w, "    ret;");
}

/// A call site: through `.param` variables declared in a block of their own, as nvcc writes
/// them, or with registers as the arguments of `.reg` formals.
pub(super) fn print_call(w: &mut String, g: Option<Guard>, call: &Call, depth: Depth, ctx: &Ctx) {
    let in_func = ctx.func.is_some();
    let sig = &ctx.program.funcs[call.f as usize].sig;
    let neg = |g: Guard| if g.neg { "!" } else { "" };
    let (dep, guard) = match depth {
        Depth::Masked(r) => {
            let _ = writeln!(w, "    and.b32 %dm, %r{r}, 3;");
            ("%dm", g.map_or(String::new(), |g| format!("@{}{} ", neg(g), pred(g.p))))
        }
        Depth::Same => ("%dep", g.map_or(String::new(), |g| format!("@{}{} ", neg(g), pred(g.p)))),
        Depth::Minus1 => {
            let _ = match g {
                None => writeln!(w, "    setp.ne.u32 %pd, %dep, 0;"),
                Some(g) => writeln!(w, "    setp.ne.and.u32 %pd, %dep, 0, {}{};", neg(g), pred(g.p)),
            };
            let _ = writeln!(w, "    sub.u32 %dm, %dep, 1;");
            ("%dm", "@%pd ".to_string())
        }
    };
    let target = match call.alt {
        None => format!("f{}", call.f),
        Some((alt, p)) => {
            let _ = writeln!(w, "    mov.u64 %fp, f{};\n    mov.u64 %fq, f{alt};\n    selp.b64 %fp, %fp, %fq, %p{p};", call.f);
            "%fp".into()
        }
    };
    let ptrs: Vec<String> = sig.ptrs.iter().map(|&m| base_of(m, in_func)).collect();
    if sig.reg_abi {
        let mut args = vec![dep.to_string()];
        args.extend(ptrs);
        args.extend(call.args.iter().map(|&r| reg(r)));
        let rets: Vec<String> = std::iter::once("%t2".to_string()).chain(call.rets.iter().map(|&r| reg(r))).collect();
        let _ = writeln!(w, "    {guard}call ({}), {target}, ({});", rets.join(", "), args.join(", "));
        let _ = writeln!(w, "    {guard}xor.b32 %r{k}, %r{k}, %t2;", k = call.depth_reg);
        return;
    }
    let _ = writeln!(w, "    {{");
    let mut formals = vec![(".u32", "_d".to_string())];
    formals.extend(sig.ptrs.iter().enumerate().map(|(i, &m)| (if m == Mem::SharedRw { ".u32" } else { ".u64" }, format!("_p{i}"))));
    let names: Vec<&'static str> = sig.params.iter().map(|t| t.name()).collect();
    let mut decl = |ty: &str, name: &str| {
        let _ = writeln!(w, "    .param .{} {name};", ty.trim_start_matches('.'));
    };
    for (ty, name) in &formals {
        decl(ty, name);
    }
    for (i, t) in names.iter().enumerate() {
        decl(t, &format!("_a{i}"));
    }
    decl("b32", "_rs");
    for (i, t) in sig.rets.iter().enumerate() {
        decl(t.name(), &format!("_r{i}"));
    }
    let proto = call.alt.map(|_| {
        // Label names are per function: the output's length makes this one unique.
        let name = format!("proto{}", w.len());
        let ps: Vec<String> = formals
            .iter()
            .map(|(ty, _)| format!(".param {ty} _"))
            .chain(names.iter().map(|t| format!(".param .{t} _")))
            .collect();
        let rs: Vec<String> = std::iter::once(".param .b32 _".to_string()).chain(sig.rets.iter().map(|t| format!(".param .{} _", t.name()))).collect();
        let rs = format!("({}) ", rs.join(", "));
        let _ = writeln!(w, "    {name}: .callprototype {rs}_ ({});", ps.join(", "));
        name
    });
    let _ = writeln!(w, "    st.param.u32 [_d], {dep};");
    for (i, (&m, p)) in sig.ptrs.iter().zip(&ptrs).enumerate() {
        let _ = writeln!(w, "    st.param.{} [_p{i}], {p};", ptr_ty(m));
    }
    for (i, (t, &r)) in sig.params.iter().zip(&call.args).enumerate() {
        let _ = writeln!(w, "    st.param.{} [_a{i}], {};", t.name(), reg(r));
    }
    let mut args = vec!["_d".to_string()];
    args.extend((0..sig.ptrs.len()).map(|i| format!("_p{i}")));
    args.extend((0..sig.params.len()).map(|i| format!("_a{i}")));
    let rets: Vec<String> = std::iter::once("_rs".to_string()).chain((0..sig.rets.len()).map(|i| format!("_r{i}"))).collect();
    let rets = format!("({}), ", rets.join(", "));
    let proto = proto.map_or(String::new(), |p| format!(", {p}"));
    let _ = writeln!(w, "    {guard}call {rets}{target}, ({}){proto};", args.join(", "));
    // §9.7.10.8 (and §7.1): an `ld.param` of a returned value cannot be predicated (ptxas refuses it): a
    // guarded call's results are loaded always, into temporaries, and moved under the guard.
    for (i, (t, &r)) in sig.rets.iter().zip(&call.rets).enumerate() {
        if guard.is_empty() {
            let _ = writeln!(w, "    ld.param.{} {}, [_r{i}];", t.name(), reg(r));
        } else {
            let width = if matches!(r, Reg::D(_)) { 64 } else { 32 };
            let _ = writeln!(w, "    .reg .b{width} %rv{i};\n    ld.param.{} %rv{i}, [_r{i}];\n    {guard}mov.b{width} {}, %rv{i};", t.name(), reg(r));
        }
    }
    let _ = writeln!(w, "    ld.param.b32 %t2, [_rs];\n    {guard}xor.b32 %r{k}, %r{k}, %t2;", k = call.depth_reg);
    let _ = writeln!(w, "    }}");
}
