//! Structured control flow: loops with break/continue, nested ifs, returns at every depth,
//! dead code after terminators, and a random program generator whose every output must pass
//! spirv-val.

mod common;

use common::*;
use ptxcross_lower::ir::*;

fn counter_kernel(name: &str, f: impl FnOnce(VarId, VarId, VarId) -> Vec<Stmt>) -> Kernel {
    let mut k = KernelBuilder::new(name);
    let i = k.var(Ty::U32);
    let p = k.var(Ty::Bool);
    let acc = k.var(Ty::U32);
    let body = f(i, p, acc);
    k.finish(body)
}

fn inc(i: VarId) -> Stmt {
    assign(i, bin(BinaryOp::Add, Ty::U32, v(i), c32(1)))
}
fn lt(p: VarId, i: VarId, n: u32) -> Stmt {
    assign(p, cmp(CmpOp::LtU, Ty::U32, v(i), c32(n)))
}

#[test]
fn loop_with_break_and_continue() {
    let k = counter_kernel("loop_break_continue", |i, p, acc| {
        vec![
            copy(i, c32(0)),
            loop_(vec![
                inc(i),
                lt(p, i, 10),
                if_(v(p), vec![Stmt::Continue], vec![]),
                assign(p, cmp(CmpOp::GtU, Ty::U32, v(i), c32(20))),
                if_(v(p), vec![Stmt::Break], vec![]),
                assign(acc, bin(BinaryOp::Add, Ty::U32, v(acc), v(i))),
            ]),
            store(Memory::Heap, c32(64), v(acc)),
        ]
    });
    let words = check(&module(vec![k]));
    naga_report("loop_with_break_and_continue", &words);
}

#[test]
fn nested_ifs_with_else() {
    let k = counter_kernel("nested_ifs", |i, p, acc| {
        vec![
            assign(i, Expr::Builtin(Builtin::ThreadId(0))),
            lt(p, i, 32),
            if_(
                v(p),
                vec![
                    lt(p, i, 16),
                    if_(
                        v(p),
                        vec![lt(p, i, 8), if_(v(p), vec![copy(acc, c32(1))], vec![copy(acc, c32(2))])],
                        vec![copy(acc, c32(3))],
                    ),
                ],
                vec![
                    // empty then, non-empty else
                    if_(v(p), vec![], vec![copy(acc, c32(4))]),
                    // both empty
                    if_(v(p), vec![], vec![]),
                ],
            ),
            store(Memory::Heap, v(i), v(acc)),
        ]
    });
    let words = check(&module(vec![k]));
    naga_report("nested_ifs_with_else", &words);
}

#[test]
fn return_inside_if_inside_loop() {
    let k = counter_kernel("return_in_loop", |i, p, acc| {
        vec![loop_(vec![
            inc(i),
            lt(p, i, 100),
            if_(v(p), vec![store(Memory::Heap, c32(64), v(i)), Stmt::Return], vec![inc(acc)]),
            lt(p, acc, 5),
            if_(v(p), vec![Stmt::Break], vec![]),
        ])]
    });
    check(&module(vec![k]));
}

#[test]
fn dead_code_after_terminators_is_dropped() {
    let k = counter_kernel("dead_code", |i, p, acc| {
        vec![
            loop_(vec![
                inc(i),
                lt(p, i, 3),
                if_(v(p), vec![Stmt::Continue, inc(acc), Stmt::Break], vec![Stmt::Break, inc(acc)]),
                // unreachable: both branches leave
                inc(acc),
                loop_(vec![Stmt::Break]),
            ]),
            lt(p, i, 7),
            if_(v(p), vec![Stmt::Return, Stmt::Return], vec![Stmt::Return, Stmt::Barrier]),
            // dead after an if whose branches both return
            store(Memory::Heap, c32(64), v(acc)),
            loop_(vec![Stmt::Continue]),
        ]
    });
    let words = check(&module(vec![k]));
    let text = ptxcross_spirv::disassemble(&words);
    assert!(!text.contains("OpControlBarrier"), "barrier after Return must not be emitted:\n{text}");
}

#[test]
fn loop_left_only_by_return() {
    // No Break: the loop's merge is unreachable and so is everything after the loop.
    let k = counter_kernel("loop_return_only", |i, p, acc| {
        vec![
            loop_(vec![inc(i), lt(p, i, 10), if_(v(p), vec![Stmt::Continue], vec![Stmt::Return])]),
            inc(acc),
        ]
    });
    check(&module(vec![k]));
}

#[test]
fn infinite_and_empty_loops() {
    let k = counter_kernel("loop_empty", |_, _, _| vec![loop_(vec![])]);
    check(&module(vec![k]));
    let k = counter_kernel("loop_only_continue", |_, _, _| vec![loop_(vec![Stmt::Continue])]);
    check(&module(vec![k]));
    let k = counter_kernel("loop_only_break", |_, _, _| vec![loop_(vec![Stmt::Break]), loop_(vec![Stmt::Break])]);
    check(&module(vec![k]));
}

#[test]
fn nested_loops_break_continue_each_level() {
    let k = counter_kernel("nested_loops", |i, p, acc| {
        vec![loop_(vec![
            inc(i),
            copy(acc, c32(0)),
            loop_(vec![
                inc(acc),
                lt(p, acc, 4),
                if_(v(p), vec![if_(v(p), vec![Stmt::Continue], vec![Stmt::Break])], vec![]),
                Stmt::Break,
            ]),
            lt(p, i, 8),
            if_(v(p), vec![Stmt::Continue], vec![]),
            Stmt::Barrier,
            loop_(vec![lt(p, acc, 2), if_(v(p), vec![Stmt::Return], vec![Stmt::Break])]),
            Stmt::Break,
        ])]
    });
    check(&module(vec![k]));
}

#[test]
fn empty_kernel_and_return_only() {
    let k = KernelBuilder::new("empty").finish(vec![]);
    let k2 = KernelBuilder::new("ret").finish(vec![Stmt::Return]);
    let words = check(&module(vec![k, k2]));
    naga_report("empty", &words);
}

#[test]
fn break_and_continue_outside_loops_are_refused() {
    let k = KernelBuilder::new("bad").finish(vec![Stmt::Break]);
    expect_invalid(&module(vec![k]), "Break");
    let k = KernelBuilder::new("bad").finish(vec![if_(cb(true), vec![Stmt::Continue], vec![])]);
    expect_invalid(&module(vec![k]), "Continue");
}

// ------------------------------------------------------------------ random programs

/// xorshift64*: deterministic, dependency-free.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Gen<'a> {
    rng: &'a mut Rng,
    u: [VarId; 3],
    d: VarId,
    f: VarId,
    p: [VarId; 2],
}

impl Gen<'_> {
    fn block(&mut self, depth: u32, in_loop: bool) -> Vec<Stmt> {
        let n = self.rng.below(5);
        (0..n).map(|_| self.stmt(depth, in_loop)).collect()
    }
    fn u(&mut self) -> VarId {
        self.u[self.rng.below(3) as usize]
    }
    fn p(&mut self) -> VarId {
        self.p[self.rng.below(2) as usize]
    }
    fn stmt(&mut self, depth: u32, in_loop: bool) -> Stmt {
        let choice = self.rng.below(if depth >= 4 { 8 } else { 12 });
        match choice {
            0 => {
                let (a, b) = (self.u(), self.u());
                assign(a, bin(BinaryOp::Add, Ty::U32, v(a), v(b)))
            }
            1 => {
                let (p, a) = (self.p(), self.u());
                assign(p, cmp(CmpOp::LtS, Ty::U32, v(a), c32(self.rng.below(50) as u32)))
            }
            2 => {
                let a = self.u();
                assign(a, load(Memory::Heap, v(a)))
            }
            3 => {
                let (a, b) = (self.u(), self.u());
                store(Memory::Heap, v(a), v(b))
            }
            4 => {
                let (d, a) = (self.d, self.u());
                assign(d, Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: v(a) })
            }
            5 => assign(self.f, bin(BinaryOp::FMul, Ty::F32, v(self.f), cf32(1.5))),
            6 if in_loop => {
                if self.rng.below(2) == 0 {
                    Stmt::Break
                } else {
                    Stmt::Continue
                }
            }
            7 => {
                if self.rng.below(4) == 0 {
                    Stmt::Return
                } else {
                    Stmt::Barrier
                }
            }
            8 | 9 => {
                let p = self.p();
                let t = self.block(depth + 1, in_loop);
                let e = self.block(depth + 1, in_loop);
                if_(v(p), t, e)
            }
            10 | 11 => {
                // Give loops a way out most of the time.
                let mut body = self.block(depth + 1, true);
                if self.rng.below(4) != 0 {
                    let p = self.p();
                    let at = self.rng.below(body.len() as u64 + 1) as usize;
                    body.insert(at, if_(v(p), vec![Stmt::Break], vec![]));
                }
                loop_(body)
            }
            _ => Stmt::Fault { code: 1 << self.rng.below(6) },
        }
    }
}

#[test]
fn random_structured_programs_validate() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut loops, mut total_words) = (0, 0);
    for module_no in 0..40 {
        let mut kernels = Vec::new();
        for kno in 0..6 {
            let mut k = KernelBuilder::new(&format!("rand_{module_no}_{kno}"));
            let u = [k.var(Ty::U32), k.var(Ty::U32), k.var(Ty::U32)];
            let d = k.var(Ty::U64);
            let f = k.var(Ty::F32);
            let p = [k.var(Ty::Bool), k.var(Ty::Bool)];
            let mut g = Gen { rng: &mut rng, u, d, f, p };
            let mut body = g.block(0, false);
            body.extend(g.block(0, false));
            kernels.push(k.finish(body));
        }
        let m = module(kernels);
        let words = match ptxcross_spirv::emit(&m) {
            Ok(w) => w,
            Err(e) => panic!("module {module_no}: {e}\n{m:#?}"),
        };
        if let Err(msg) = ptxcross_spirv::validate(&words) {
            panic!("module {module_no}: spirv-val: {msg}\n{m:#?}\n{}", ptxcross_spirv::disassemble(&words));
        }
        loops += ptxcross_spirv::disassemble(&words).matches("OpLoopMerge").count();
        total_words += words.len();
    }
    // The generator must actually produce sizeable, loop-heavy programs.
    eprintln!("random programs: {loops} loops, {total_words} words");
    assert!(loops > 200 && total_words > 50_000, "{loops} loops, {total_words} words");
}

/// Function-scope `OpVariable`s of a module.
fn function_variables(words: &[u32]) -> usize {
    let (mut i, mut n) = (5, 0);
    while i < words.len() {
        let (count, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        // OpVariable (59) whose storage class (word 3) is Function (7).
        if op == 59 && words.get(i + 3) == Some(&7) {
            n += 1;
        }
        i += count.max(1);
    }
    n
}

#[test]
fn values_get_no_variable_and_the_rest_keep_theirs() {
    // `x` is assigned once and read only after that, in the same block and nested in a
    // loop and an `if` (a value: no variable); `i` is assigned twice, `y` inside an `if` and
    // read after it, `z` read in the loop before its only assignment: variables.
    let mut k = KernelBuilder::new("values");
    let x = k.var(Ty::U32);
    let i = k.var(Ty::U32);
    let p = k.var(Ty::Bool);
    let y = k.var(Ty::U32);
    let z = k.var(Ty::U32);
    let t = k.var(Ty::U32);
    let body = vec![
        assign(x, Expr::Builtin(Builtin::ThreadId(0))),
        copy(i, c32(0)),
        loop_(vec![
            store(Memory::Heap, c32(64), v(z)),
            assign(z, bin(BinaryOp::Add, Ty::U32, v(x), v(i))),
            inc(i),
            lt(p, i, 4),
            if_(v(p), vec![assign(t, bin(BinaryOp::Mul, Ty::U32, v(x), v(i))), store(Memory::Heap, v(t), v(x))], vec![Stmt::Break]),
        ]),
        if_(v(p), vec![copy(y, v(x))], vec![]),
        store(Memory::Heap, c32(65), v(y)),
    ];
    let kernel = k.finish(body);
    assert_eq!(kernel.value_vars(), vec![true, false, false, false, false, true]);
    let words = check(&module(vec![kernel]));
    naga_report("values_get_no_variable", &words);
    // i, p, y, z (and no fault-site variable in hand-written IR).
    assert_eq!(function_variables(&words), 4);
}
