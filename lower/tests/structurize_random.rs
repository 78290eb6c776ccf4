//! Property test of the structurizer: random CFGs (irreducible ones included) run through the
//! reference interpreter before and after structurization must leave the same trace.

use ptxcross_lower::abi;
use ptxcross_lower::cfg::{BasicBlock, Cfg, Terminator};
use ptxcross_lower::interp::{Flow, Machine};
use ptxcross_lower::ir::*;
use ptxcross_lower::structurize::structurize;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const LIMIT: u32 = 300;
const COUNTER: VarId = VarId(0);
const LCG: VarId = VarId(1);

fn c32(v: u32) -> Operand {
    Operand::Const(Const::U32(v))
}

/// Each block: stop after LIMIT steps; append its id to the trace; step an LCG.
fn block_prelude(id: u32, vars: &mut Vec<VarInfo>) -> Vec<Stmt> {
    let mut new = |ty| {
        vars.push(VarInfo { ty, name: "t".into() });
        VarId(vars.len() as u32 - 1)
    };
    let (done, idx, mul) = (new(Ty::Bool), new(Ty::U32), new(Ty::U32));
    vec![
        Stmt::Assign { dst: done, expr: Expr::Compare { op: CmpOp::GeU, ty: Ty::U32, lhs: Operand::Var(COUNTER), rhs: c32(LIMIT) } },
        Stmt::If { cond: Operand::Var(done), then_body: Block { stmts: vec![Stmt::Return] }, else_body: Block::new() },
        Stmt::Assign { dst: COUNTER, expr: Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: Operand::Var(COUNTER), rhs: c32(1) } },
        Stmt::Assign { dst: idx, expr: Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: Operand::Var(COUNTER), rhs: c32(abi::HEAP_RESERVED_WORDS) } },
        Stmt::StoreWord { memory: Memory::Heap, index: Operand::Var(idx), value: c32(id + 1) },
        Stmt::Assign { dst: mul, expr: Expr::Binary { op: BinaryOp::Mul, ty: Ty::U32, lhs: Operand::Var(LCG), rhs: c32(1103515245) } },
        Stmt::Assign { dst: LCG, expr: Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: Operand::Var(mul), rhs: c32(12345) } },
    ]
}

fn random_cfg(rng: &mut Rng, vars: &mut Vec<VarInfo>) -> Cfg {
    let n = 2 + rng.below(18) as usize;
    let mut blocks = Vec::new();
    for id in 0..n {
        let mut stmts = block_prelude(id as u32, vars);
        let mut new = |ty| {
            vars.push(VarInfo { ty, name: "t".into() });
            VarId(vars.len() as u32 - 1)
        };
        let target = |rng: &mut Rng| rng.below(n as u64) as usize;
        let term = match rng.below(10) {
            0 => Terminator::Return,
            1 | 2 => Terminator::Jump(target(rng)),
            3 => {
                let (s, sel) = (new(Ty::U32), new(Ty::U32));
                stmts.push(Stmt::Assign { dst: s, expr: Expr::Binary { op: BinaryOp::ShrU, ty: Ty::U32, lhs: Operand::Var(LCG), rhs: c32(16) } });
                stmts.push(Stmt::Assign { dst: sel, expr: Expr::Binary { op: BinaryOp::RemU, ty: Ty::U32, lhs: Operand::Var(s), rhs: c32(4) } });
                let k = 2 + rng.below(3) as usize;
                Terminator::indexed(Operand::Var(sel), &(0..k).map(|_| target(rng)).collect::<Vec<_>>())
            }
            _ => {
                let (s, bit, c) = (new(Ty::U32), new(Ty::U32), new(Ty::Bool));
                stmts.push(Stmt::Assign { dst: s, expr: Expr::Binary { op: BinaryOp::ShrU, ty: Ty::U32, lhs: Operand::Var(LCG), rhs: c32(16) } });
                stmts.push(Stmt::Assign { dst: bit, expr: Expr::Binary { op: BinaryOp::And, ty: Ty::U32, lhs: Operand::Var(s), rhs: c32(1) } });
                stmts.push(Stmt::Assign { dst: c, expr: Expr::Compare { op: CmpOp::Ne, ty: Ty::U32, lhs: Operand::Var(bit), rhs: c32(0) } });
                Terminator::Branch { cond: Operand::Var(c), then_target: target(rng), else_target: target(rng) }
            }
        };
        blocks.push(BasicBlock { stmts, term });
    }
    Cfg { blocks, entry: 0 }
}

fn count(b: &Block) -> usize {
    b.stmts
        .iter()
        .map(|s| match s {
            Stmt::If { then_body, else_body, .. } => 1 + count(then_body) + count(else_body),
            Stmt::Loop { body } => 1 + count(body),
            Stmt::Switch { cases, default, .. } => {
                1 + cases.iter().map(|c| count(&c.body)).sum::<usize>() + count(default)
            }
            _ => 1,
        })
        .sum()
}

/// Break/Continue appear only inside loops, never directly inside a switch case.
fn well_formed(b: &Block, in_loop: bool) -> bool {
    b.stmts.iter().all(|s| match s {
        Stmt::Break | Stmt::Continue => in_loop,
        Stmt::Switch { cases, default, .. } => {
            cases.iter().all(|c| well_formed(&c.body, false)) && well_formed(default, false)
        }
        Stmt::If { then_body, else_body, .. } => well_formed(then_body, in_loop) && well_formed(else_body, in_loop),
        Stmt::Loop { body } => well_formed(body, true),
        _ => true,
    })
}

fn run(seed: u64, lcg_seed: u32) {
    let mut rng = Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1);
    let mut vars = vec![VarInfo { ty: Ty::U32, name: "counter".into() }, VarInfo { ty: Ty::U32, name: "lcg".into() }];
    let cfg = random_cfg(&mut rng, &mut vars);
    let input_size: usize = cfg.blocks.iter().map(|b| b.stmts.len() + 1).sum();

    let mut before = Machine::new(vars.len());
    before.heap.resize((abi::HEAP_RESERVED_WORDS + LIMIT + 2) as usize, 0);
    before.vars[LCG.index()] = lcg_seed as u64;
    let flow_before = before.run_cfg(&cfg);

    let mut vars_after = vars.clone();
    let body = structurize(cfg.clone(), &mut vars_after).expect("structurizes");
    assert!(well_formed(&body, false), "seed {seed}: break/continue outside a loop");
    let mut after = Machine::new(vars_after.len());
    after.heap.resize(before.heap.len(), 0);
    after.vars[LCG.index()] = lcg_seed as u64;
    let flow_after = after.run_block(&body);

    assert_ne!(flow_before, Flow::OutOfFuel, "seed {seed}");
    assert_ne!(flow_after, Flow::OutOfFuel, "seed {seed}");
    assert_eq!(before.heap, after.heap, "seed {seed}: traces differ\ncfg: {cfg:#?}\nstructured: {body:#?}");
    // The same program with its switches as `if` ladders (for the SIMT passes).
    let mut laddered = body.clone();
    ptxcross_lower::structurize::switches_to_ifs(&mut laddered, &mut vars_after);
    let mut ladder_run = Machine::new(vars_after.len());
    ladder_run.heap.resize(before.heap.len(), 0);
    ladder_run.vars[LCG.index()] = lcg_seed as u64;
    ladder_run.run_block(&laddered);
    assert_eq!(before.heap, ladder_run.heap, "seed {seed}: switches_to_ifs changed the trace");
    assert_eq!(before.faults, after.faults);
    // Code growth stays linear.
    assert!(count(&body) <= 8 * input_size + 64, "seed {seed}: {} stmts from {input_size}", count(&body));
}

#[test]
fn random_cfgs_keep_their_traces() {
    for seed in 1..3000u64 {
        for lcg in [1u32, 0xdead_beef, 7] {
            run(seed, lcg);
        }
    }
}

#[test]
fn irreducible_two_entry_loop() {
    // 0 → {1, 2}; 1 ↔ 2; both may exit to 3.
    let mut vars = vec![VarInfo { ty: Ty::U32, name: "counter".into() }, VarInfo { ty: Ty::U32, name: "lcg".into() }];
    let mut rng = Rng(42);
    let mut cfg = random_cfg(&mut rng, &mut vars);
    cfg.blocks.truncate(4);
    while cfg.blocks.len() < 4 {
        let id = cfg.blocks.len() as u32;
        cfg.blocks.push(BasicBlock { stmts: block_prelude(id, &mut vars), term: Terminator::Return });
    }
    let cond = |vars: &mut Vec<VarInfo>, blocks: &mut Vec<BasicBlock>, b: usize| {
        vars.push(VarInfo { ty: Ty::Bool, name: "c".into() });
        let c = VarId(vars.len() as u32 - 1);
        let sh = VarId(vars.len() as u32);
        vars.push(VarInfo { ty: Ty::U32, name: "s".into() });
        blocks[b].stmts.push(Stmt::Assign { dst: sh, expr: Expr::Binary { op: BinaryOp::ShrU, ty: Ty::U32, lhs: Operand::Var(LCG), rhs: c32(29) } });
        blocks[b].stmts.push(Stmt::Assign { dst: c, expr: Expr::Compare { op: CmpOp::LtU, ty: Ty::U32, lhs: Operand::Var(sh), rhs: c32(6) } });
        Operand::Var(c)
    };
    let c0 = cond(&mut vars, &mut cfg.blocks, 0);
    cfg.blocks[0].term = Terminator::Branch { cond: c0, then_target: 1, else_target: 2 };
    let c1 = cond(&mut vars, &mut cfg.blocks, 1);
    cfg.blocks[1].term = Terminator::Branch { cond: c1, then_target: 2, else_target: 3 };
    let c2 = cond(&mut vars, &mut cfg.blocks, 2);
    cfg.blocks[2].term = Terminator::Branch { cond: c2, then_target: 1, else_target: 3 };
    cfg.blocks[3].term = Terminator::Return;
    for lcg in 0..50u32 {
        let mut before = Machine::new(vars.len());
        before.heap.resize((abi::HEAP_RESERVED_WORDS + LIMIT + 2) as usize, 0);
        before.vars[LCG.index()] = lcg.wrapping_mul(2654435761) as u64;
        before.run_cfg(&cfg);
        let mut va = vars.clone();
        let body = structurize(cfg.clone(), &mut va).expect("structurizes");
        let mut after = Machine::new(va.len());
        after.heap.resize(before.heap.len(), 0);
        after.vars[LCG.index()] = lcg.wrapping_mul(2654435761) as u64;
        after.run_block(&body);
        assert_eq!(before.heap, after.heap);
    }
}

/// A loop whose body is two tangles of crossing branches (each node of a rank branches to both
/// nodes of the next: tail duplication would double per rank, past the duplication budget, so
/// they need the state machine) around a join holding a barrier, as the CTA barrier
/// scheduler's round loop is (the kernel's code, then the round's barrier, then its
/// bookkeeping). The region is cut at the post-dominators of the loop's entry: the barrier
/// stays in the loop body's top level, under no per-thread state test (before, the whole body
/// was one state machine and its barrier sat under `if state == k`; the scheduler's kernel was
/// then refused: `warp_meeting loops_of_reductions_in_a_row_meet_in_one_warp_ctas`), and the
/// trace is the CFG's.
#[test]
fn a_join_every_path_passes_stays_out_of_the_state_machine() {
    let mut vars = vec![VarInfo { ty: Ty::U32, name: "counter".into() }, VarInfo { ty: Ty::U32, name: "lcg".into() }];
    let mut blocks: Vec<BasicBlock> = Vec::new();
    let node = |vars: &mut Vec<VarInfo>, blocks: &mut Vec<BasicBlock>| {
        let id = blocks.len();
        blocks.push(BasicBlock { stmts: block_prelude(id as u32, vars), term: Terminator::Return });
        id
    };
    let cond = |vars: &mut Vec<VarInfo>, blocks: &mut Vec<BasicBlock>, b: usize, shift: u32| {
        let mut new = |ty| {
            vars.push(VarInfo { ty, name: "t".into() });
            VarId(vars.len() as u32 - 1)
        };
        let (s, bit, c) = (new(Ty::U32), new(Ty::U32), new(Ty::Bool));
        let stmts = &mut blocks[b].stmts;
        stmts.push(Stmt::Assign { dst: s, expr: Expr::Binary { op: BinaryOp::ShrU, ty: Ty::U32, lhs: Operand::Var(LCG), rhs: c32(shift) } });
        stmts.push(Stmt::Assign { dst: bit, expr: Expr::Binary { op: BinaryOp::And, ty: Ty::U32, lhs: Operand::Var(s), rhs: c32(1) } });
        stmts.push(Stmt::Assign { dst: c, expr: Expr::Compare { op: CmpOp::Ne, ty: Ty::U32, lhs: Operand::Var(bit), rhs: c32(0) } });
        Operand::Var(c)
    };
    const RANKS: usize = 8;
    let entry = node(&mut vars, &mut blocks);
    let head = node(&mut vars, &mut blocks);
    blocks[entry].term = Terminator::Jump(head);
    // head → tangle → join (barrier) → tangle → latch (back to head, or out).
    let tangle = |vars: &mut Vec<VarInfo>, blocks: &mut Vec<BasicBlock>, from: usize| {
        let mut rank = [from, from];
        for r in 0..RANKS {
            let next = [node(vars, blocks), node(vars, blocks)];
            for (k, &b) in rank.iter().enumerate() {
                if r == 0 && k == 1 {
                    break;
                }
                let c = cond(vars, blocks, b, 16 + (r as u32 + k as u32) % 8);
                blocks[b].term = Terminator::Branch { cond: c, then_target: next[0], else_target: next[1] };
            }
            rank = next;
        }
        let join = node(vars, blocks);
        for b in rank {
            blocks[b].term = Terminator::Jump(join);
        }
        join
    };
    let join = tangle(&mut vars, &mut blocks, head);
    blocks[join].stmts.push(Stmt::Barrier);
    let latch = tangle(&mut vars, &mut blocks, join);
    let exit = node(&mut vars, &mut blocks);
    let c = cond(&mut vars, &mut blocks, latch, 24);
    blocks[latch].term = Terminator::Branch { cond: c, then_target: head, else_target: exit };
    let cfg = Cfg { blocks, entry };

    let mut va = vars.clone();
    let body = structurize(cfg.clone(), &mut va).expect("structurizes");
    let barrier_at_top = body.stmts.iter().any(|s| matches!(s, Stmt::Loop { body } if body.stmts.iter().any(|s| matches!(s, Stmt::Barrier))));
    assert!(barrier_at_top, "the barrier is in the loop body's top level: {body:#?}");
    let machines = |b: &Block| {
        let mut n = 0;
        let mut stack = vec![b];
        while let Some(b) = stack.pop() {
            for s in &b.stmts {
                match s {
                    Stmt::If { then_body, else_body, .. } => stack.extend([then_body, else_body]),
                    Stmt::Loop { body } => stack.push(body),
                    Stmt::Switch { cases, default, .. } => stack.extend(cases.iter().map(|c| &c.body).chain([default])),
                    Stmt::Assign { dst, .. } => n += (va[dst.index()].name == "structurizer state") as usize,
                    _ => {}
                }
            }
        }
        n
    };
    assert!(machines(&body) > 0, "the tangles need the state machine (else this test shows nothing)");
    for lcg in 0..50u32 {
        let mut before = Machine::new(vars.len());
        before.heap.resize((abi::HEAP_RESERVED_WORDS + LIMIT + 2) as usize, 0);
        before.vars[LCG.index()] = lcg.wrapping_mul(2654435761) as u64;
        before.run_cfg(&cfg);
        let mut after = Machine::new(va.len());
        after.heap.resize(before.heap.len(), 0);
        after.vars[LCG.index()] = lcg.wrapping_mul(2654435761) as u64;
        after.run_block(&body);
        assert_eq!(before.heap, after.heap, "lcg {lcg}");
    }
}
