//! CFG → structured control flow ([`ir::Block`]), for any CFG, irreducible ones included.
//!
//! The method follows Bahmann et al., "Perfect Reconstructability of Control Flow from Demand
//! Dependence Graphs" (TACO 2015), in a simple recursive form:
//!
//! 1. **Loops.** In a region, every non-trivial strongly connected component becomes one
//!    `Loop`. A component with several entry blocks gets a single entry *selector*: every edge
//!    into it (from outside or a back edge) records its target in a variable and goes to a
//!    dispatch block. Back edges to the header become `Continue`; edges leaving the component
//!    record which exit they took (only when there are several) and `Break`; after the loop a
//!    dispatch block branches to the chosen exit. The body, with the header's in-edges removed,
//!    is structured recursively (nested components are the nested loops).
//! 2. **Acyclic regions.** With loops collapsed, the region is a DAG. It is emitted by
//!    following immediate post-dominators: a branch becomes `If` whose arms run up to the
//!    branch's post-dominator, where the code continues. An arm that always leaves
//!    (`Return`/`Break`/`Continue`) does not nest the rest, keeping early exits flat.
//!    Blocks reached from both arms before the join are emitted in each (tail duplication);
//!    when that would grow the region beyond [`DUPLICATION_BUDGET`], the region is instead
//!    emitted as a *state machine in topological order* (`if state == k { … }` per block),
//!    which is linear in size and correct for any DAG.
//!
//! Variables are introduced only for multi-entry loops, multi-exit loops, switches and the
//! fallback; branch conditions are used in place otherwise.

use crate::cfg::{BasicBlock, Cfg, NodeId, Terminator};
use crate::ir::{Block, CmpOp, Const, Expr, Operand, Stmt, Ty, VarId, VarInfo};
use std::collections::{HashMap, HashSet};

/// A region may emit at most `2 × its size + DUPLICATION_BUDGET` statements through duplication.
pub const DUPLICATION_BUDGET: usize = 16;

/// Structures `cfg` into a block. New variables are appended to `vars`.
pub fn structurize(cfg: Cfg, vars: &mut Vec<VarInfo>) -> Block {
    let entry = cfg.entry;
    let mut s = Structurizer { nodes: cfg.blocks, vars };
    let region: HashSet<NodeId> = s.reachable(entry, None);
    Block { stmts: s.structure_region(region, entry) }
}

struct Structurizer<'a> {
    nodes: Vec<BasicBlock>,
    vars: &'a mut Vec<VarInfo>,
}

enum Emit {
    /// Every path ended in `Return`/`Break`/`Continue`.
    Diverged,
    /// Control reaches the stop node.
    Reached,
}

struct TooBig;

impl<'a> Structurizer<'a> {
    fn new_var(&mut self, ty: Ty, name: &str) -> VarId {
        self.vars.push(VarInfo { ty, name: name.to_string() });
        VarId(self.vars.len() as u32 - 1)
    }

    fn add_node(&mut self, stmts: Vec<Stmt>, term: Terminator) -> NodeId {
        self.nodes.push(BasicBlock { stmts, term });
        self.nodes.len() - 1
    }

    /// Nodes reachable from `entry`, staying inside `within` when given.
    fn reachable(&self, entry: NodeId, within: Option<&HashSet<NodeId>>) -> HashSet<NodeId> {
        let mut seen = HashSet::new();
        let mut stack = vec![entry];
        seen.insert(entry);
        while let Some(n) = stack.pop() {
            for s in self.nodes[n].term.successors() {
                if within.is_none_or(|w| w.contains(&s)) && seen.insert(s) {
                    stack.push(s);
                }
            }
        }
        seen
    }

    fn structure_region(&mut self, mut region: HashSet<NodeId>, mut entry: NodeId) -> Vec<Stmt> {
        for scc in self.loops_in(&region, entry) {
            let (collapsed, new_entry) = self.collapse_loop(&mut region, &scc, entry);
            region.insert(collapsed);
            entry = new_entry;
        }
        self.emit_acyclic(&region, entry)
    }

    /// Non-trivial strongly connected components of the region (iterative Tarjan).
    fn loops_in(&self, region: &HashSet<NodeId>, entry: NodeId) -> Vec<Vec<NodeId>> {
        let mut index: HashMap<NodeId, usize> = HashMap::new();
        let mut low: HashMap<NodeId, usize> = HashMap::new();
        let mut on_stack: HashSet<NodeId> = HashSet::new();
        let mut stack: Vec<NodeId> = Vec::new();
        let mut sccs = Vec::new();
        let mut counter = 0usize;
        let succs = |n: NodeId| -> Vec<NodeId> {
            self.nodes[n].term.successors().into_iter().filter(|s| region.contains(s)).collect()
        };
        // Deterministic order: start from the entry, then the rest sorted.
        let mut roots: Vec<NodeId> = region.iter().copied().collect();
        roots.sort_unstable();
        roots.insert(0, entry);
        for root in roots {
            if index.contains_key(&root) {
                continue;
            }
            let mut call: Vec<(NodeId, Vec<NodeId>, usize)> = vec![(root, succs(root), 0)];
            index.insert(root, counter);
            low.insert(root, counter);
            counter += 1;
            stack.push(root);
            on_stack.insert(root);
            while let Some((v, vs, i)) = call.last_mut() {
                let v = *v;
                if *i < vs.len() {
                    let w = vs[*i];
                    *i += 1;
                    if !index.contains_key(&w) {
                        index.insert(w, counter);
                        low.insert(w, counter);
                        counter += 1;
                        stack.push(w);
                        on_stack.insert(w);
                        let ws = succs(w);
                        call.push((w, ws, 0));
                    } else if on_stack.contains(&w) {
                        let m = low[&v].min(index[&w]);
                        low.insert(v, m);
                    }
                } else {
                    call.pop();
                    if let Some((parent, _, _)) = call.last() {
                        let m = low[parent].min(low[&v]);
                        low.insert(*parent, m);
                    }
                    if low[&v] == index[&v] {
                        let mut scc = Vec::new();
                        loop {
                            let w = stack.pop().expect("tarjan stack");
                            on_stack.remove(&w);
                            scc.push(w);
                            if w == v {
                                break;
                            }
                        }
                        let self_loop = scc.len() == 1 && succs(scc[0]).contains(&scc[0]);
                        if scc.len() > 1 || self_loop {
                            scc.sort_unstable();
                            sccs.push(scc);
                        }
                    }
                }
            }
        }
        sccs
    }

    /// Replaces the loop `scc` of `region` by one node holding a `Loop` statement.
    /// Returns the new node and the region's (possibly new) entry.
    fn collapse_loop(&mut self, region: &mut HashSet<NodeId>, scc: &[NodeId], entry: NodeId) -> (NodeId, NodeId) {
        let mut members: HashSet<NodeId> = scc.iter().copied().collect();
        let outside: Vec<NodeId> = {
            let mut v: Vec<NodeId> = region.iter().copied().filter(|n| !members.contains(n)).collect();
            v.sort_unstable();
            v
        };
        // Entry blocks: targets of edges from outside the component, and the region entry.
        let mut entries: Vec<NodeId> = Vec::new();
        if members.contains(&entry) {
            entries.push(entry);
        }
        for &u in &outside {
            for s in self.nodes[u].term.successors() {
                if members.contains(&s) && !entries.contains(&s) {
                    entries.push(s);
                }
            }
        }
        let mut region_entry = entry;
        let header = if entries.len() == 1 {
            entries[0]
        } else {
            // One entry selector: every edge into an entry block goes through the dispatcher.
            let sel = self.new_var(Ty::U32, "loop entry selector");
            let dispatch = self.add_node(
                vec![],
                Terminator::Switch { selector: Operand::Var(sel), targets: entries.clone() },
            );
            let sources: Vec<NodeId> = region.iter().copied().collect();
            for u in sources {
                for (k, &e) in entries.iter().enumerate() {
                    if self.nodes[u].term.successors().contains(&e) {
                        let setter = self.add_node(
                            vec![Stmt::Assign { dst: sel, expr: Expr::Use(Operand::Const(Const::U32(k as u32))) }],
                            Terminator::Jump(dispatch),
                        );
                        self.nodes[u].term.redirect(e, setter);
                        if members.contains(&u) {
                            members.insert(setter);
                        } else {
                            region.insert(setter);
                        }
                    }
                }
            }
            if members.contains(&entry) {
                let k = entries.iter().position(|&e| e == entry).unwrap_or(0);
                let setter = self.add_node(
                    vec![Stmt::Assign { dst: sel, expr: Expr::Use(Operand::Const(Const::U32(k as u32))) }],
                    Terminator::Jump(dispatch),
                );
                region.insert(setter);
                region_entry = setter;
            }
            members.insert(dispatch);
            dispatch
        };

        // Exits, in a deterministic order.
        let mut member_list: Vec<NodeId> = members.iter().copied().collect();
        member_list.sort_unstable();
        let mut exits: Vec<NodeId> = Vec::new();
        for &u in &member_list {
            for s in self.nodes[u].term.successors() {
                if !members.contains(&s) && !exits.contains(&s) {
                    exits.push(s);
                }
            }
        }
        let exit_var = if exits.len() > 1 { Some(self.new_var(Ty::U32, "loop exit selector")) } else { None };

        // The body: back edges → Continue, exits → (record) Break.
        let cont = self.add_node(vec![], Terminator::Continue);
        let breaks: Vec<NodeId> = (0..exits.len())
            .map(|k| {
                let stmts = match exit_var {
                    Some(v) => vec![Stmt::Assign { dst: v, expr: Expr::Use(Operand::Const(Const::U32(k as u32))) }],
                    None => vec![],
                };
                self.add_node(stmts, Terminator::Break)
            })
            .collect();
        for &u in &member_list {
            self.nodes[u].term.redirect(header, cont);
            for (k, &x) in exits.iter().enumerate() {
                self.nodes[u].term.redirect(x, breaks[k]);
            }
        }
        let mut body_region = members.clone();
        body_region.insert(cont);
        body_region.extend(breaks.iter().copied());
        let body = self.structure_region(body_region, header);

        let term = match (exits.len(), exit_var) {
            (0, _) => Terminator::Return,
            (1, _) => Terminator::Jump(exits[0]),
            (_, Some(v)) => Terminator::Switch { selector: Operand::Var(v), targets: exits.clone() },
            (_, None) => unreachable!("several exits always get a selector"),
        };
        let collapsed = self.add_node(vec![Stmt::Loop { body: Block { stmts: body } }], term);
        // Edges from outside into the header now enter the collapsed loop.
        let sources: Vec<NodeId> = region.iter().copied().filter(|n| !members.contains(n)).collect();
        for u in sources {
            self.nodes[u].term.redirect(header, collapsed);
        }
        for m in &members {
            region.remove(m);
        }
        if region_entry == header || members.contains(&region_entry) {
            region_entry = collapsed;
        }
        (collapsed, region_entry)
    }

    /// Emits an acyclic region (see the module comment).
    fn emit_acyclic(&mut self, region: &HashSet<NodeId>, entry: NodeId) -> Vec<Stmt> {
        let order = self.topological_order(region, entry);
        let ipdom = self.post_dominators(region, &order);
        let mut out = Vec::new();
        let size: usize = order.iter().map(|&n| self.cost(n)).sum();
        let mut budget = 2 * size + DUPLICATION_BUDGET;
        match self.emit_path(entry, None, &ipdom, region, &mut budget, &mut out) {
            Ok(_) => out,
            Err(TooBig) => self.emit_state_machine(&order),
        }
    }

    /// Size of a node's code (statements, nested ones included), for the duplication budget.
    fn cost(&self, n: NodeId) -> usize {
        fn count(stmts: &[Stmt]) -> usize {
            stmts
                .iter()
                .map(|s| match s {
                    Stmt::If { then_body, else_body, .. } => 1 + count(&then_body.stmts) + count(&else_body.stmts),
                    Stmt::Loop { body } => 1 + count(&body.stmts),
                    _ => 1,
                })
                .sum()
        }
        1 + count(&self.nodes[n].stmts)
    }

    /// Topological order (reverse postorder) of the region's nodes reachable from `entry`.
    fn topological_order(&self, region: &HashSet<NodeId>, entry: NodeId) -> Vec<NodeId> {
        let mut seen = HashSet::new();
        let mut post = Vec::new();
        let mut stack: Vec<(NodeId, usize)> = vec![(entry, 0)];
        seen.insert(entry);
        while let Some(&mut (n, ref mut i)) = stack.last_mut() {
            let succs: Vec<NodeId> =
                self.nodes[n].term.successors().into_iter().filter(|s| region.contains(s)).collect();
            if *i < succs.len() {
                let s = succs[*i];
                *i += 1;
                if seen.insert(s) {
                    stack.push((s, 0));
                }
            } else {
                post.push(n);
                stack.pop();
            }
        }
        post.reverse();
        post
    }

    /// Immediate post-dominators in a DAG region (`None` = the virtual exit).
    fn post_dominators(&self, region: &HashSet<NodeId>, order: &[NodeId]) -> HashMap<NodeId, Option<NodeId>> {
        let mut ipdom: HashMap<NodeId, Option<NodeId>> = HashMap::new();
        let mut depth: HashMap<NodeId, usize> = HashMap::new();
        let d = |n: Option<NodeId>, depth: &HashMap<NodeId, usize>| n.map_or(0, |n| depth[&n]);
        for &n in order.iter().rev() {
            let succs: Vec<NodeId> =
                self.nodes[n].term.successors().into_iter().filter(|s| region.contains(s)).collect();
            let mut acc: Option<Option<NodeId>> = None;
            for s in succs {
                let s = Some(s);
                acc = Some(match acc {
                    None => s,
                    Some(a) => {
                        let (mut x, mut y) = (a, s);
                        while x != y {
                            if d(x, &depth) >= d(y, &depth) {
                                x = x.and_then(|x| ipdom[&x]);
                            } else {
                                y = y.and_then(|y| ipdom[&y]);
                            }
                        }
                        x
                    }
                });
            }
            let p = acc.unwrap_or(None);
            depth.insert(n, d(p, &depth) + 1);
            ipdom.insert(n, p);
        }
        ipdom
    }

    /// Emits from `n` until `stop` (exclusive) or until every path leaves.
    fn emit_path(
        &mut self,
        mut n: NodeId,
        stop: Option<NodeId>,
        ipdom: &HashMap<NodeId, Option<NodeId>>,
        region: &HashSet<NodeId>,
        budget: &mut usize,
        out: &mut Vec<Stmt>,
    ) -> Result<Emit, TooBig> {
        loop {
            if Some(n) == stop {
                return Ok(Emit::Reached);
            }
            let cost = self.cost(n);
            if *budget < cost {
                return Err(TooBig);
            }
            *budget -= cost;
            out.extend(self.nodes[n].stmts.iter().cloned());
            match self.nodes[n].term.clone() {
                Terminator::Return => {
                    out.push(Stmt::Return);
                    return Ok(Emit::Diverged);
                }
                Terminator::Break => {
                    out.push(Stmt::Break);
                    return Ok(Emit::Diverged);
                }
                Terminator::Continue => {
                    out.push(Stmt::Continue);
                    return Ok(Emit::Diverged);
                }
                Terminator::Jump(t) => n = t,
                Terminator::Branch { then_target, else_target, .. } if then_target == else_target => n = then_target,
                Terminator::Branch { cond, then_target, else_target } => {
                    let join = ipdom[&n];
                    let mut a = Vec::new();
                    let mut b = Vec::new();
                    let ea = self.emit_path(then_target, join, ipdom, region, budget, &mut a)?;
                    let eb = self.emit_path(else_target, join, ipdom, region, budget, &mut b)?;
                    match (ea, eb) {
                        (Emit::Diverged, Emit::Reached) => {
                            out.push(Stmt::If { cond, then_body: Block { stmts: a }, else_body: Block::new() });
                            out.extend(b);
                        }
                        (Emit::Reached, Emit::Diverged) => {
                            out.push(Stmt::If { cond, then_body: Block::new(), else_body: Block { stmts: b } });
                            out.extend(a);
                        }
                        _ => out.push(Stmt::If { cond, then_body: Block { stmts: a }, else_body: Block { stmts: b } }),
                    }
                    match join {
                        Some(j) => n = j,
                        None => return Ok(Emit::Diverged),
                    }
                }
                Terminator::Switch { selector, targets } => {
                    let join = ipdom[&n];
                    let stmts = self.emit_switch(selector, &targets, join, ipdom, region, budget)?;
                    out.extend(stmts);
                    match join {
                        Some(j) => n = j,
                        None => return Ok(Emit::Diverged),
                    }
                }
            }
        }
    }

    /// `if sel == 0 { T0 } else if sel == 1 { T1 } … else { T_last }`.
    fn emit_switch(
        &mut self,
        selector: Operand,
        targets: &[NodeId],
        join: Option<NodeId>,
        ipdom: &HashMap<NodeId, Option<NodeId>>,
        region: &HashSet<NodeId>,
        budget: &mut usize,
    ) -> Result<Vec<Stmt>, TooBig> {
        let last = *targets.last().expect("switch has targets");
        let mut tail = Vec::new();
        self.emit_path(last, join, ipdom, region, budget, &mut tail)?;
        let mut out = Vec::new();
        for (k, &t) in targets.iter().enumerate().rev().skip(1) {
            if t == last {
                continue;
            }
            let mut arm = Vec::new();
            self.emit_path(t, join, ipdom, region, budget, &mut arm)?;
            let c = self.new_var(Ty::Bool, "switch case");
            let mut stmts = vec![Stmt::Assign {
                dst: c,
                expr: Expr::Compare { op: CmpOp::Eq, ty: Ty::U32, lhs: selector, rhs: Operand::Const(Const::U32(k as u32)) },
            }];
            stmts.push(Stmt::If { cond: Operand::Var(c), then_body: Block { stmts: arm }, else_body: Block { stmts: tail } });
            tail = stmts;
        }
        out.extend(tail);
        Ok(out)
    }

    /// The linear fallback: one `if state == k { … }` per node, in topological order.
    fn emit_state_machine(&mut self, order: &[NodeId]) -> Vec<Stmt> {
        let state = self.new_var(Ty::U32, "structurizer state");
        let id: HashMap<NodeId, u32> = order.iter().enumerate().map(|(i, &n)| (n, i as u32)).collect();
        let mut out = vec![Stmt::Assign { dst: state, expr: Expr::Use(Operand::Const(Const::U32(0))) }];
        for &n in order {
            let mut body: Vec<Stmt> = self.nodes[n].stmts.clone();
            let set = |t: NodeId| Stmt::Assign { dst: state, expr: Expr::Use(Operand::Const(Const::U32(id[&t]))) };
            match self.nodes[n].term.clone() {
                Terminator::Return => body.push(Stmt::Return),
                Terminator::Break => body.push(Stmt::Break),
                Terminator::Continue => body.push(Stmt::Continue),
                Terminator::Jump(t) => body.push(set(t)),
                Terminator::Branch { cond, then_target, else_target } => body.push(Stmt::Assign {
                    dst: state,
                    expr: Expr::Select {
                        ty: Ty::U32,
                        cond,
                        a: Operand::Const(Const::U32(id[&then_target])),
                        b: Operand::Const(Const::U32(id[&else_target])),
                    },
                }),
                Terminator::Switch { selector, targets } => {
                    // state = id[last]; then for each other case, select.
                    let last = *targets.last().expect("switch has targets");
                    body.push(set(last));
                    for (k, &t) in targets.iter().enumerate().rev().skip(1) {
                        let c = self.new_var(Ty::Bool, "switch case");
                        body.push(Stmt::Assign {
                            dst: c,
                            expr: Expr::Compare { op: CmpOp::Eq, ty: Ty::U32, lhs: selector, rhs: Operand::Const(Const::U32(k as u32)) },
                        });
                        body.push(Stmt::Assign {
                            dst: state,
                            expr: Expr::Select {
                                ty: Ty::U32,
                                cond: Operand::Var(c),
                                a: Operand::Const(Const::U32(id[&t])),
                                b: Operand::Var(state),
                            },
                        });
                    }
                }
            }
            let here = self.new_var(Ty::Bool, "structurizer state test");
            out.push(Stmt::Assign {
                dst: here,
                expr: Expr::Compare { op: CmpOp::Eq, ty: Ty::U32, lhs: Operand::Var(state), rhs: Operand::Const(Const::U32(id[&n])) },
            });
            out.push(Stmt::If { cond: Operand::Var(here), then_body: Block { stmts: body }, else_body: Block::new() });
        }
        out
    }
}
