//! The goto-based control-flow graph that instruction lowering produces and the structurizer
//! consumes. Blocks hold straight-line IR statements (which may contain `If`s built by
//! predication, but never `Break`/`Continue`/`Return`); control transfers are terminators.

use crate::ir::{Operand, Stmt};

pub type NodeId = usize;

/// [`Terminator::successors`].
pub type Successors = smallvec::SmallVec<[NodeId; 2]>;

#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    Jump(NodeId),
    Branch { cond: Operand, then_target: NodeId, else_target: NodeId },
    /// Multi-way branch on a `U32` selector: the target of the case whose value equals the
    /// selector, else `default`. Case values are distinct.
    Switch { selector: Operand, cases: Vec<(u32, NodeId)>, default: NodeId },
    Return,
    /// Only inside the structurizer: leave / restart the innermost loop being built.
    Break,
    Continue,
}

impl Terminator {
    /// `targets[selector]`, or the last target when the selector is out of range (`brx.idx`
    /// leaves that case undefined: any target will do, never a hang or a fault).
    pub fn indexed(selector: Operand, targets: &[NodeId]) -> Terminator {
        let (&default, cases) = targets.split_last().expect("an indexed switch has targets");
        Terminator::Switch {
            selector,
            cases: cases
                .iter()
                .enumerate()
                .map(|(k, &t)| (k as u32, t))
                .collect(),
            default,
        }
    }

    /// Inline up to two (a `Vec` here was ~0.45 M allocations on the CUB file's first 100
    /// kernels: every walk of the graph asks for every block's successors).
    pub fn successors(&self) -> Successors {
        match self {
            Terminator::Jump(t) => smallvec::smallvec![*t],
            Terminator::Branch { then_target, else_target, .. } => smallvec::smallvec![*then_target, *else_target],
            Terminator::Switch { cases, default, .. } => cases
                .iter()
                .map(|&(_, t)| t)
                .chain(std::iter::once(*default))
                .collect(),
            Terminator::Return | Terminator::Break | Terminator::Continue => Successors::new(),
        }
    }

    /// Replaces every occurrence of `from` among the successors by `to`.
    pub fn redirect(&mut self, from: NodeId, to: NodeId) {
        let fix = |t: &mut NodeId| {
            if *t == from {
                *t = to
            }
        };
        match self {
            Terminator::Jump(t) => fix(t),
            Terminator::Branch { then_target, else_target, .. } => {
                fix(then_target);
                fix(else_target)
            }
            Terminator::Switch { cases, default, .. } => {
                cases.iter_mut().for_each(|(_, t)| fix(t));
                fix(default)
            }
            Terminator::Return | Terminator::Break | Terminator::Continue => {}
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BasicBlock {
    pub stmts: Vec<Stmt>,
    pub term: Terminator,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cfg {
    pub blocks: Vec<BasicBlock>,
    pub entry: NodeId,
}

impl Cfg {
    /// Predecessor lists.
    pub fn predecessors(&self) -> Vec<Vec<NodeId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for (b, block) in self.blocks.iter().enumerate() {
            for s in block.term.successors() {
                if !preds[s].contains(&b) {
                    preds[s].push(b);
                }
            }
        }
        preds
    }

    /// Blocks reachable from the entry, in reverse postorder.
    pub fn reverse_postorder(&self) -> Vec<NodeId> {
        let n = self.blocks.len();
        let mut seen = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack: Vec<(NodeId, usize)> = vec![(self.entry, 0)];
        seen[self.entry] = true;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            let succs = self.blocks[b].term.successors();
            if *i < succs.len() {
                let s = succs[*i];
                *i += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        post
    }

    /// Immediate post-dominators (`None` = the virtual exit), by the Cooper–Harvey–Kennedy
    /// iteration on the reverse graph. Blocks that cannot reach an exit get `None` too.
    pub fn immediate_post_dominators(&self) -> Vec<Option<NodeId>> {
        let n = self.blocks.len();
        // Reverse-graph postorder numbering, rooted at the virtual exit (index n).
        let preds = self.predecessors();
        let exits: Vec<NodeId> =
            (0..n).filter(|&b| self.blocks[b].term.successors().is_empty()).collect();
        let mut order = Vec::with_capacity(n + 1); // postorder of the reverse graph
        let mut seen = vec![false; n + 1];
        seen[n] = true;
        let mut stack: Vec<(usize, usize)> = vec![(n, 0)];
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            let next = if b == n { exits.get(*i).copied() } else { preds[b].get(*i).copied() };
            match next {
                Some(s) => {
                    *i += 1;
                    if !seen[s] {
                        seen[s] = true;
                        stack.push((s, 0));
                    }
                }
                None => {
                    order.push(b);
                    stack.pop();
                }
            }
        }
        let mut rank = vec![usize::MAX; n + 1];
        for (i, &b) in order.iter().enumerate() {
            rank[b] = i;
        }
        let mut ipdom: Vec<Option<usize>> = vec![None; n + 1];
        ipdom[n] = Some(n);
        let succ_of = |b: usize| -> Successors {
            let s = self.blocks[b].term.successors();
            if s.is_empty() {
                smallvec::smallvec![n]
            } else {
                s
            }
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().rev() {
                if b == n {
                    continue;
                }
                let mut new: Option<usize> = None;
                for s in succ_of(b) {
                    if ipdom[s].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => s,
                        Some(cur) => {
                            let (mut x, mut y) = (cur, s);
                            while x != y {
                                while rank[x] < rank[y] {
                                    x = ipdom[x].unwrap_or(n);
                                }
                                while rank[y] < rank[x] {
                                    y = ipdom[y].unwrap_or(n);
                                }
                            }
                            x
                        }
                    });
                }
                if new.is_some() && ipdom[b] != new {
                    ipdom[b] = new;
                    changed = true;
                }
            }
        }
        (0..n).map(|b| ipdom[b].filter(|&p| p != n)).collect()
    }
}
