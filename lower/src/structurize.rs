//! CFG → structured control flow ([`ir::Block`]), for any CFG, irreducible ones included, with
//! nesting that follows the program's loops rather than its number of branches.
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
//!    when that would grow the region beyond [`DUPLICATION_BUDGET`], nest it more than
//!    [`MAX_REGION_NESTING`] levels, or copy a barrier or an emulated warp collective (each copy
//!    would run with only its path's threads), the region is instead emitted as a *state machine in
//!    topological order* (`if state == k { … }` per block), which is linear in size, one level
//!    deep, and correct for any DAG. It is cut first at the post-dominators of its entry, each
//!    piece structured or a state machine of its own, so that what every path passes (the CTA
//!    barrier scheduler's round barriers) stays out of per-thread control flow.
//! 3. **Flat branch chains.** Nesting must not grow with the number of branches (drivers limit
//!    it: lavapipe mis-executes past ~80 levels, Tint refuses 63, Vulkan 1,024). A join with
//!    [`BLOCK_MIN_IN_EDGES`] or more in-edges (a chain of early exits to one label, an
//!    `else if` ladder) gets a *breakable block*: a one-trip `Loop` whose body ends in `Break`.
//!    Inside it, a branch to the join is `if c { …; break }` and the other arm continues at the
//!    same level. A `Break`/`Continue` of the enclosing loop inside such a block sets a flag,
//!    leaves the block, and is repeated after it (`if flag { break }`).
//!    A block holds at most [`MAX_BLOCK_EXITS`] exits (lavapipe mis-executes longer chains);
//!    longer chains make the region a state machine, flat too.
//! 4. **Switches.** Multi-way branches (`brx.idx`, loop entry/exit selectors) become
//!    [`Stmt::Switch`]. A case that leaves the enclosing loop does so through a flag too (IR
//!    rule: no `Break`/`Continue` directly inside a switch).
//!
//! Work and memory are linear in the CFG per loop level: statement counts and depths of nodes
//! are cached, node statements are moved (cloned only for real tail duplication), and a loop's
//! nodes leave the enclosing region before its body is structured.

use crate::cfg::{BasicBlock, Cfg, NodeId, Terminator};
use crate::ir::{Block, CmpOp, Const, Expr, Operand, Stmt, SwitchCase, Ty, VarId, VarInfo};
// Node sets and maps are hashed with FxHash: SipHash dominated the time of deep loop nests.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// A region may emit at most `2 × its size + DUPLICATION_BUDGET` statements through duplication.
pub const DUPLICATION_BUDGET: usize = 16;

/// An acyclic region whose emission would nest more than this many levels deeper than its
/// state machine is emitted as the state machine.
pub const MAX_REGION_NESTING: usize = 16;

/// A join with at least this many in-edges gets a breakable block.
pub const BLOCK_MIN_IN_EDGES: usize = 3;

/// At most this many `break`s leave one breakable block; a region needing more is emitted as
/// the state machine. Measured: lavapipe (Mesa 22.3) runs a chain of 81 exits from one loop
/// right and mis-executes 85, on both backends (`probe_driver_limits` in
/// tests/tests/control_flow_e2e.rs); the state machine has no such limit.
pub const MAX_BLOCK_EXITS: usize = 64;

/// Loops nested deeper than this are refused as soon as the structurizer gets there: the kernel
/// refuses structured control flow deeper than this anyway (`kernel::MAX_CONTROL_DEPTH`), and
/// each loop level re-scans the rest of the nest, so stopping early bounds the work on deeper
/// nests to `MAX_LOOP_NESTING × size`.
pub const MAX_LOOP_NESTING: usize = crate::kernel::MAX_CONTROL_DEPTH;

/// Structures `cfg` into a block. New variables are appended to `vars`. Fails only when the
/// program's own loops nest deeper than [`MAX_LOOP_NESTING`].
pub fn structurize(cfg: Cfg, vars: &mut Vec<VarInfo>) -> Result<Block, String> {
    let entry = cfg.entry;
    let size = cfg.blocks.iter().map(|b| stmts_size(&b.stmts)).collect();
    let mut s = Structurizer {
        nodes: cfg.blocks,
        size,
        vars,
    };
    let region: HashSet<NodeId> = s.reachable(entry, None);
    let emitted = s.structure_region(region, entry, 0)?;
    Ok(Block {
        stmts: emitted.stmts,
    })
}

/// (statement count, nesting depth) of a statement list.
fn stmts_size(stmts: &[Stmt]) -> (usize, usize) {
    let mut count = 0;
    let mut depth = 0;
    for s in stmts {
        count += 1;
        let bodies: Vec<&Block> = match s {
            Stmt::If {
                then_body,
                else_body,
                ..
            } => vec![then_body, else_body],
            Stmt::Loop { body } => vec![body],
            Stmt::Switch { cases, default, .. } => {
                cases.iter().map(|c| &c.body).chain([default]).collect()
            }
            _ => continue,
        };
        for b in bodies {
            let (c, d) = stmts_size(&b.stmts);
            count += c;
            depth = depth.max(d + 1);
        }
        depth = depth.max(1);
    }
    (count, depth)
}

struct Structurizer<'a> {
    nodes: Vec<BasicBlock>,
    /// Per node: [`stmts_size`] of its statements (cached: nodes holding loops are big).
    size: Vec<(usize, usize)>,
    vars: &'a mut Vec<VarInfo>,
}

/// A structured region: its statements, their size and nesting depth.
struct Emitted {
    stmts: Vec<Stmt>,
    cost: usize,
    depth: usize,
}

#[derive(PartialEq)]
enum Emit {
    /// Every path ended in `Return`/`Break`/`Continue`.
    Diverged,
    /// Control reaches the stop node.
    Reached,
}

/// Where emission goes on after a terminator.
enum Flow {
    At(NodeId),
    Diverged,
}

struct TooBig;

/// The enclosing region loop's exits, realised through flags inside blocks and switches.
#[derive(Clone, Copy, PartialEq)]
enum Exit {
    Break,
    Continue,
}

impl Exit {
    const ALL: [Exit; 2] = [Exit::Break, Exit::Continue];
    fn bit(self) -> u8 {
        match self {
            Exit::Break => 1,
            Exit::Continue => 2,
        }
    }
    fn stmt(self) -> Stmt {
        match self {
            Exit::Break => Stmt::Break,
            Exit::Continue => Stmt::Continue,
        }
    }
}

/// A construct opened by the acyclic emission, between the current point and the region's
/// loop. `used`: the exits taken inside it (bits of [`Exit::bit`]).
struct Frame {
    /// `Some(join)`: a breakable block whose `Break` lands at `join`; `None`: a switch case.
    block: Option<NodeId>,
    used: u8,
    /// `Break`s emitted directly in the block.
    exits: usize,
}

/// An acyclic region's graph facts, shared by the emission of its pieces.
struct Graph<'r> {
    region: &'r HashSet<NodeId>,
    ipdom: &'r HashMap<NodeId, Option<NodeId>>,
    in_edges: &'r HashMap<NodeId, usize>,
}

/// State of one acyclic region's emission.
struct Cx<'r> {
    region: &'r HashSet<NodeId>,
    ipdom: &'r HashMap<NodeId, Option<NodeId>>,
    in_edges: &'r HashMap<NodeId, usize>,
    budget: usize,
    frames: Vec<Frame>,
    flags: [Option<VarId>; 2],
    max_depth: usize,
    /// Some block needs more than [`MAX_BLOCK_EXITS`] exits.
    too_many_exits: bool,
    charged: usize,
    /// Planning run: counts how often each node is emitted (`uses`), moves nothing.
    dry: bool,
    uses: HashMap<NodeId, usize>,
}

impl Cx<'_> {
    fn innermost_block(&self) -> Option<NodeId> {
        self.frames.last().and_then(|f| f.block)
    }
    fn note_depth(&mut self, d: usize) {
        self.max_depth = self.max_depth.max(d);
    }
    /// A `Break` leaving the innermost block.
    fn note_exit(&mut self) {
        if let Some(f) = self.frames.last_mut() {
            f.exits += 1;
            self.too_many_exits |= f.exits > MAX_BLOCK_EXITS;
        }
    }
}

fn if_then(cond: Operand, then: Vec<Stmt>) -> Stmt {
    Stmt::If {
        cond,
        then_body: Block { stmts: then },
        else_body: Block::new(),
    }
}

fn set_true(v: VarId) -> Stmt {
    Stmt::Assign {
        dst: v,
        expr: Expr::Use(Operand::Const(Const::Bool(true))),
    }
}

impl<'a> Structurizer<'a> {
    fn new_var(&mut self, ty: Ty, name: &str) -> VarId {
        self.vars.push(VarInfo {
            ty,
            name: name.into(),
        });
        VarId(self.vars.len() as u32 - 1)
    }

    fn add_node(&mut self, stmts: Vec<Stmt>, term: Terminator) -> NodeId {
        self.size.push(stmts_size(&stmts));
        self.nodes.push(BasicBlock { stmts, term });
        self.nodes.len() - 1
    }

    /// Nodes reachable from `entry`, staying inside `within` when given.
    fn reachable(&self, entry: NodeId, within: Option<&HashSet<NodeId>>) -> HashSet<NodeId> {
        let mut seen = HashSet::default();
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

    fn structure_region(
        &mut self,
        mut region: HashSet<NodeId>,
        mut entry: NodeId,
        loops: usize,
    ) -> Result<Emitted, String> {
        for scc in self.loops_in(&region, entry) {
            let (collapsed, new_entry) = self.collapse_loop(&mut region, scc, entry, loops)?;
            region.insert(collapsed);
            entry = new_entry;
        }
        Ok(self.emit_acyclic(&region, entry))
    }

    /// Non-trivial strongly connected components of the region (iterative Tarjan).
    fn loops_in(&self, region: &HashSet<NodeId>, entry: NodeId) -> Vec<Vec<NodeId>> {
        let mut index: HashMap<NodeId, usize> = HashMap::default();
        let mut low: HashMap<NodeId, usize> = HashMap::default();
        let mut on_stack: HashSet<NodeId> = HashSet::default();
        let mut stack: Vec<NodeId> = Vec::new();
        let mut sccs = Vec::new();
        let mut counter = 0usize;
        let succs = |n: NodeId| -> Vec<NodeId> {
            self.nodes[n]
                .term
                .successors()
                .into_iter()
                .filter(|s| region.contains(s))
                .collect()
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
    /// Returns the new node and the region's (possibly new) entry. `loops`: how many loops
    /// enclose the region.
    fn collapse_loop(
        &mut self,
        region: &mut HashSet<NodeId>,
        scc: Vec<NodeId>,
        entry: NodeId,
        loops: usize,
    ) -> Result<(NodeId, NodeId), String> {
        if loops >= MAX_LOOP_NESTING {
            return Err(format!(
                "loops nest more than {MAX_LOOP_NESTING} levels deep; structured control flow may nest at most {MAX_LOOP_NESTING} levels"
            ));
        }
        // `scc` is dropped here, not held while the body is structured: in a deep nest every
        // level's component holds the rest of the nest (memory would grow with depth × size).
        let mut members: HashSet<NodeId> = scc.into_iter().collect();
        let outside: Vec<NodeId> = {
            let mut v: Vec<NodeId> = region
                .iter()
                .copied()
                .filter(|n| !members.contains(n))
                .collect();
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
            let dispatch = self.add_node(vec![], Terminator::indexed(Operand::Var(sel), &entries));
            let mut sources: Vec<NodeId> = region.iter().copied().collect();
            sources.sort_unstable();
            for u in sources {
                for (k, &e) in entries.iter().enumerate() {
                    if self.nodes[u].term.successors().contains(&e) {
                        let setter = self.add_node(
                            vec![Stmt::Assign {
                                dst: sel,
                                expr: Expr::Use(Operand::Const(Const::U32(k as u32))),
                            }],
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
                    vec![Stmt::Assign {
                        dst: sel,
                        expr: Expr::Use(Operand::Const(Const::U32(k as u32))),
                    }],
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
        let exit_var = if exits.len() > 1 {
            Some(self.new_var(Ty::U32, "loop exit selector"))
        } else {
            None
        };

        // The node that will hold the loop, created now so that the enclosing region can drop
        // the loop's nodes before the body is structured (memory stays linear in nesting).
        let term = match (exits.len(), exit_var) {
            (0, _) => Terminator::Return,
            (1, _) => Terminator::Jump(exits[0]),
            (_, Some(v)) => Terminator::indexed(Operand::Var(v), &exits),
            (_, None) => unreachable!("several exits always get a selector"),
        };
        let collapsed = self.add_node(vec![], term);
        let mut sources: Vec<NodeId> = region
            .iter()
            .copied()
            .filter(|n| !members.contains(n))
            .collect();
        sources.sort_unstable();
        for u in sources {
            self.nodes[u].term.redirect(header, collapsed);
        }
        region.retain(|n| !members.contains(n));
        // Give the capacity back too: this set stays alive while the body (most of it, in a
        // deep nest) is structured one level down.
        region.shrink_to_fit();
        if region_entry == header || members.contains(&region_entry) {
            region_entry = collapsed;
        }
        drop(outside);

        // The body: back edges → Continue, exits → (record) Break.
        let cont = self.add_node(vec![], Terminator::Continue);
        let breaks: Vec<NodeId> = (0..exits.len())
            .map(|k| {
                let stmts = match exit_var {
                    Some(v) => vec![Stmt::Assign {
                        dst: v,
                        expr: Expr::Use(Operand::Const(Const::U32(k as u32))),
                    }],
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
        drop(member_list);
        let mut body_region = members;
        body_region.insert(cont);
        body_region.extend(breaks.iter().copied());
        let body = self.structure_region(body_region, header, loops + 1)?;
        self.size[collapsed] = (body.cost + 1, body.depth + 1);
        self.nodes[collapsed].stmts = vec![Stmt::Loop {
            body: Block { stmts: body.stmts },
        }];
        Ok((collapsed, region_entry))
    }

    /// Emits an acyclic region (see the module comment): a planning run decides between the
    /// structured form and the state machine and counts node uses, then the real run moves
    /// each node's statements into place (cloning only for tail duplication).
    ///
    /// Where the whole region cannot be structured, it is cut at the post-dominators of its
    /// entry (every path passes them, in order) and each piece is structured or made a state
    /// machine on its own: a node on that chain is then emitted at the region's top level, never
    /// under a per-thread state test. The CTA barrier scheduler relies on it: its round barriers
    /// follow the kernel's code, which may need the state machine (found by the meeting family
    /// of the differential tester: loops of `redux.sync` in a row in one-warp CTAs, whose
    /// smaller round code gave a smaller duplication budget).
    fn emit_acyclic(&mut self, region: &HashSet<NodeId>, entry: NodeId) -> Emitted {
        let order = self.topological_order(region, entry);
        let ipdom = self.post_dominators(region, &order);
        let mut in_edges: HashMap<NodeId, usize> = HashMap::default();
        for &n in &order {
            for s in self.nodes[n].term.successors() {
                if region.contains(&s) {
                    *in_edges.entry(s).or_default() += 1;
                }
            }
        }
        let g = Graph { region, ipdom: &ipdom, in_edges: &in_edges };
        if let Some(whole) = self.emit_piece(&g, &order, entry, None) {
            return whole;
        }
        // Each piece runs from a node of the chain to the next; the topological order holds
        // them one after the other (a piece's nodes all reach its end, which alone reaches on).
        let position: HashMap<NodeId, usize> = order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        let mut out = Emitted { stmts: Vec::new(), cost: 0, depth: 0 };
        let mut start = 0;
        let mut from = entry;
        loop {
            let stop = ipdom[&from];
            let end = stop.map_or(order.len(), |t| position[&t]);
            let piece = &order[start..end];
            let e = self.emit_piece(&g, piece, from, stop).unwrap_or_else(|| Emitted {
                cost: piece.iter().map(|&n| self.size[n].0).sum::<usize>() + piece.len(),
                depth: 1 + piece.iter().map(|&n| self.size[n].1).max().unwrap_or(0),
                stmts: self.emit_state_machine(piece),
            });
            out.stmts.extend(e.stmts);
            out.cost += e.cost;
            out.depth = out.depth.max(e.depth);
            match stop {
                Some(t) => (start, from) = (end, t),
                None => return out,
            }
        }
    }

    /// The structured form of the region's nodes `order` (topologically sorted, starting at
    /// `entry`) up to `stop`, or `None` where they need the state machine.
    fn emit_piece(&mut self, g: &Graph, order: &[NodeId], entry: NodeId, stop: Option<NodeId>) -> Option<Emitted> {
        let size: usize = order.iter().map(|&n| self.size[n].0).sum();
        let machine_depth = 1 + order.iter().map(|&n| self.size[n].1).max().unwrap_or(0);
        let new_cx = |dry, uses| Cx {
            region: g.region,
            ipdom: g.ipdom,
            in_edges: g.in_edges,
            budget: 2 * size + DUPLICATION_BUDGET,
            frames: Vec::new(),
            flags: [None, None],
            max_depth: 0,
            too_many_exits: false,
            charged: 0,
            dry,
            uses,
        };

        let vars_before = self.vars.len();
        let mut plan = new_cx(true, HashMap::default());
        let planned = self.emit_path(entry, stop, 0, &mut plan, &mut Vec::new());
        self.vars.truncate(vars_before);
        // A node emitted twice (tail duplication) must not hold a barrier or an emulated warp
        // collective: the copies sit under per-thread branches, so the SIMT pass runs each copy
        // with only the threads that took its path, and a collective (or `bar.red`) would see
        // only them (found by the SIMT differential tester, seed 0x51a71015). The state machine
        // emits every node once.
        let duplicates_a_barrier =
            plan.uses.iter().any(|(&n, &u)| u > 1 && crate::simt::contains_barrier(&self.nodes[n].stmts));
        let structured = planned.is_ok()
            && plan.max_depth <= machine_depth + MAX_REGION_NESTING
            && !plan.too_many_exits
            && !duplicates_a_barrier;
        if !structured {
            return None;
        }
        let mut cx = new_cx(false, plan.uses);
        let mut out = Vec::new();
        let done = self.emit_path(entry, stop, 0, &mut cx, &mut out);
        debug_assert!(done.is_ok(), "the planning run succeeded");
        // Flags start false in every iteration of the region's loop.
        let inits: Vec<Stmt> = cx
            .flags
            .iter()
            .flatten()
            .map(|&v| Stmt::Assign {
                dst: v,
                expr: Expr::Use(Operand::Const(Const::Bool(false))),
            })
            .collect();
        let stmts = if inits.is_empty() {
            out
        } else {
            inits.into_iter().chain(out).collect()
        };
        Some(Emitted {
            stmts,
            cost: cx.charged + 1,
            depth: cx.max_depth,
        })
    }

    /// The statements of node `n` for one emission (see [`Cx::uses`]).
    fn node_stmts(&mut self, n: NodeId, cx: &mut Cx) -> Vec<Stmt> {
        if cx.dry {
            *cx.uses.entry(n).or_default() += 1;
            return Vec::new();
        }
        match cx.uses.get_mut(&n) {
            Some(u) if *u > 1 => {
                *u -= 1;
                self.nodes[n].stmts.clone()
            }
            _ => std::mem::take(&mut self.nodes[n].stmts),
        }
    }

    fn flag(&mut self, exit: Exit, cx: &mut Cx) -> VarId {
        let i = (exit.bit() - 1) as usize;
        match cx.flags[i] {
            Some(v) => v,
            None => {
                let name = if exit == Exit::Break {
                    "leave loop (from a block)"
                } else {
                    "next iteration (from a block)"
                };
                let v = self.new_var(Ty::Bool, name);
                cx.flags[i] = Some(v);
                v
            }
        }
    }

    /// Leaves the region's loop (`Break`/`Continue`) from the current point.
    fn exit(&mut self, exit: Exit, cx: &mut Cx, out: &mut Vec<Stmt>) {
        if cx.frames.is_empty() {
            out.push(exit.stmt());
            return;
        }
        let flag = self.flag(exit, cx);
        out.push(set_true(flag));
        let f = cx.frames.last_mut().expect("frames are not empty");
        f.used |= exit.bit();
        if f.block.is_some() {
            out.push(Stmt::Break);
            cx.note_exit();
        }
        // In a switch case this is the case's last statement (cases with exits are blocks).
    }

    /// After a block or switch that took the region loop's exits `used`: take them here too.
    fn close(&mut self, used: u8, depth: usize, cx: &mut Cx, out: &mut Vec<Stmt>) {
        for exit in Exit::ALL {
            if used & exit.bit() == 0 {
                continue;
            }
            let flag = Operand::Var(self.flag(exit, cx));
            match cx.frames.last_mut() {
                None => out.push(if_then(flag, vec![exit.stmt()])),
                Some(f) => {
                    f.used |= exit.bit();
                    if f.block.is_some() {
                        out.push(if_then(flag, vec![Stmt::Break]));
                        cx.note_exit();
                    }
                }
            }
            cx.note_depth(depth + 1);
        }
    }

    /// Emits from `n` until `stop` (exclusive) or until every path leaves; statements go to
    /// nesting level `depth`.
    fn emit_path(
        &mut self,
        mut n: NodeId,
        stop: Option<NodeId>,
        depth: usize,
        cx: &mut Cx,
        out: &mut Vec<Stmt>,
    ) -> Result<Emit, TooBig> {
        loop {
            if Some(n) == stop {
                return Ok(Emit::Reached);
            }
            let (cost, node_depth) = self.size[n];
            if cx.budget < cost {
                return Err(TooBig);
            }
            cx.budget -= cost;
            cx.charged += cost;
            cx.note_depth(depth + node_depth);
            let stmts = self.node_stmts(n, cx);
            out.extend(stmts);
            let flow = match self.nodes[n].term.clone() {
                Terminator::Return => {
                    out.push(Stmt::Return);
                    Flow::Diverged
                }
                Terminator::Break => {
                    self.exit(Exit::Break, cx, out);
                    Flow::Diverged
                }
                Terminator::Continue => {
                    self.exit(Exit::Continue, cx, out);
                    Flow::Diverged
                }
                Terminator::Jump(t) => Flow::At(t),
                Terminator::Branch {
                    then_target,
                    else_target,
                    ..
                } if then_target == else_target => Flow::At(then_target),
                Terminator::Branch {
                    cond,
                    then_target,
                    else_target,
                } => {
                    let join = cx.ipdom[&n];
                    match join {
                        Some(j)
                            if cx.innermost_block() != Some(j)
                                && cx.in_edges[&j] >= BLOCK_MIN_IN_EDGES =>
                        {
                            self.open_block(j, depth, cx, out, |s, cx, body| {
                                s.emit_branch(
                                    cond,
                                    then_target,
                                    else_target,
                                    join,
                                    depth + 1,
                                    cx,
                                    body,
                                )
                            })?
                        }
                        _ => {
                            self.emit_branch(cond, then_target, else_target, join, depth, cx, out)?
                        }
                    }
                }
                Terminator::Switch {
                    selector,
                    cases,
                    default,
                } => {
                    let join = cx.ipdom[&n];
                    self.emit_switch(selector, &cases, default, join, depth, cx, out)?
                }
            };
            match flow {
                Flow::At(t) => n = t,
                Flow::Diverged => return Ok(Emit::Diverged),
            }
        }
    }

    /// A breakable block for `join`: `loop { first…; …up to join; break }`, then the exits it
    /// took. Continues at `join`.
    fn open_block(
        &mut self,
        join: NodeId,
        depth: usize,
        cx: &mut Cx,
        out: &mut Vec<Stmt>,
        first: impl FnOnce(&mut Self, &mut Cx, &mut Vec<Stmt>) -> Result<Flow, TooBig>,
    ) -> Result<Flow, TooBig> {
        cx.frames.push(Frame {
            block: Some(join),
            used: 0,
            exits: 0,
        });
        cx.note_depth(depth + 1);
        let mut body = Vec::new();
        let mut end = Emit::Diverged;
        if let Flow::At(t) = first(self, cx, &mut body)? {
            end = self.emit_path(t, Some(join), depth + 1, cx, &mut body)?;
        }
        if end == Emit::Reached {
            body.push(Stmt::Break);
        }
        let frame = cx.frames.pop().expect("the block's frame");
        out.push(Stmt::Loop {
            body: Block { stmts: body },
        });
        self.close(frame.used, depth, cx, out);
        Ok(Flow::At(join))
    }

    /// `if cond { then… } else { else… }` up to `join`. Inside the breakable block of `join`
    /// one arm ends in `break` and the other continues at this level.
    #[allow(clippy::too_many_arguments)]
    fn emit_branch(
        &mut self,
        cond: Operand,
        then_target: NodeId,
        else_target: NodeId,
        join: Option<NodeId>,
        depth: usize,
        cx: &mut Cx,
        out: &mut Vec<Stmt>,
    ) -> Result<Flow, TooBig> {
        cx.note_depth(depth + 1);
        if join.is_some() && cx.innermost_block() == join {
            // The arm that is the join itself (an early exit) breaks; the other is inlined.
            let (arm, inline, arm_is_then) = if else_target == join.unwrap_or(usize::MAX) {
                (else_target, then_target, false)
            } else {
                (then_target, else_target, true)
            };
            let mut a = Vec::new();
            if self.emit_path(arm, join, depth + 1, cx, &mut a)? == Emit::Reached {
                a.push(Stmt::Break);
                cx.note_exit();
            }
            let (then_body, else_body) = if arm_is_then {
                (a, Vec::new())
            } else {
                (Vec::new(), a)
            };
            out.push(Stmt::If {
                cond,
                then_body: Block { stmts: then_body },
                else_body: Block { stmts: else_body },
            });
            return Ok(Flow::At(inline));
        }
        let mut a = Vec::new();
        let mut b = Vec::new();
        let ea = self.emit_path(then_target, join, depth + 1, cx, &mut a)?;
        let eb = self.emit_path(else_target, join, depth + 1, cx, &mut b)?;
        match (ea, eb) {
            (Emit::Diverged, Emit::Reached) => {
                out.push(Stmt::If {
                    cond,
                    then_body: Block { stmts: a },
                    else_body: Block::new(),
                });
                out.extend(b);
            }
            (Emit::Reached, Emit::Diverged) => {
                out.push(Stmt::If {
                    cond,
                    then_body: Block::new(),
                    else_body: Block { stmts: b },
                });
                out.extend(a);
            }
            _ => out.push(Stmt::If {
                cond,
                then_body: Block { stmts: a },
                else_body: Block { stmts: b },
            }),
        }
        Ok(join.map_or(Flow::Diverged, Flow::At))
    }

    /// A `Switch` statement whose cases run up to `join`. Cases sharing a target share a body.
    #[allow(clippy::too_many_arguments)]
    fn emit_switch(
        &mut self,
        selector: Operand,
        cases: &[(u32, NodeId)],
        default: NodeId,
        join: Option<NodeId>,
        depth: usize,
        cx: &mut Cx,
        out: &mut Vec<Stmt>,
    ) -> Result<Flow, TooBig> {
        cx.note_depth(depth + 1);
        let mut groups: Vec<(NodeId, Vec<u32>)> = Vec::new();
        let mut group_of: HashMap<NodeId, usize> = HashMap::default();
        for &(v, t) in cases {
            if t == default {
                continue;
            }
            let g = *group_of.entry(t).or_insert_with(|| {
                groups.push((t, Vec::new()));
                groups.len() - 1
            });
            groups[g].1.push(v);
        }
        let mut used = 0u8;
        let mut ir_cases = Vec::with_capacity(groups.len());
        for (t, values) in groups {
            let (body, u) = self.case_body(t, join, depth + 1, cx)?;
            used |= u;
            ir_cases.push(SwitchCase {
                values,
                body: Block { stmts: body },
            });
        }
        let (default_body, u) = self.case_body(default, join, depth + 1, cx)?;
        used |= u;
        out.push(Stmt::Switch {
            selector,
            cases: ir_cases,
            default: Block {
                stmts: default_body,
            },
        });
        self.close(used, depth, cx, out);
        Ok(join.map_or(Flow::Diverged, Flow::At))
    }

    /// One case of a switch, from `t` up to `join`; with the region loop's exits it used.
    fn case_body(
        &mut self,
        t: NodeId,
        join: Option<NodeId>,
        depth: usize,
        cx: &mut Cx,
    ) -> Result<(Vec<Stmt>, u8), TooBig> {
        cx.frames.push(Frame {
            block: None,
            used: 0,
            exits: 0,
        });
        let mut body = Vec::new();
        let r = match join {
            // A case that may leave the region's loop is a block, so the exit can skip the
            // rest of the case.
            Some(j) if self.leaves_before(t, j, cx.region) => self
                .open_block(j, depth, cx, &mut body, |_, _, _| Ok(Flow::At(t)))
                .map(|_| ()),
            _ => self.emit_path(t, join, depth, cx, &mut body).map(|_| ()),
        };
        let frame = cx.frames.pop().expect("the case's frame");
        r?;
        Ok((body, frame.used))
    }

    /// Whether a `Break`/`Continue` of the region's loop is reachable from `from` before `join`.
    fn leaves_before(&self, from: NodeId, join: NodeId, region: &HashSet<NodeId>) -> bool {
        let mut seen = HashSet::default();
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            if n == join || !seen.insert(n) {
                continue;
            }
            match &self.nodes[n].term {
                Terminator::Break | Terminator::Continue => return true,
                t => stack.extend(t.successors().into_iter().filter(|s| region.contains(s))),
            }
        }
        false
    }

    /// Topological order (reverse postorder) of the region's nodes reachable from `entry`.
    fn topological_order(&self, region: &HashSet<NodeId>, entry: NodeId) -> Vec<NodeId> {
        let mut seen = HashSet::default();
        let mut post = Vec::new();
        let mut stack: Vec<(NodeId, usize)> = vec![(entry, 0)];
        seen.insert(entry);
        while let Some(&mut (n, ref mut i)) = stack.last_mut() {
            let succs: Vec<NodeId> = self.nodes[n]
                .term
                .successors()
                .into_iter()
                .filter(|s| region.contains(s))
                .collect();
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
    fn post_dominators(
        &self,
        region: &HashSet<NodeId>,
        order: &[NodeId],
    ) -> HashMap<NodeId, Option<NodeId>> {
        let mut ipdom: HashMap<NodeId, Option<NodeId>> = HashMap::default();
        let mut depth: HashMap<NodeId, usize> = HashMap::default();
        let d = |n: Option<NodeId>, depth: &HashMap<NodeId, usize>| n.map_or(0, |n| depth[&n]);
        for &n in order.iter().rev() {
            let succs: Vec<NodeId> = self.nodes[n]
                .term
                .successors()
                .into_iter()
                .filter(|s| region.contains(s))
                .collect();
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

    /// The linear fallback: one `if state == k { … }` per node, in topological order. An edge
    /// to a node outside `order` (the end of a piece of the region) leaves the machine: its
    /// state matches no later test.
    fn emit_state_machine(&mut self, order: &[NodeId]) -> Vec<Stmt> {
        let state = self.new_var(Ty::U32, "structurizer state");
        let id: HashMap<NodeId, u32> = order
            .iter()
            .enumerate()
            .map(|(i, &n)| (n, i as u32))
            .collect();
        let mut out = vec![Stmt::Assign {
            dst: state,
            expr: Expr::Use(Operand::Const(Const::U32(0))),
        }];
        for &n in order {
            let mut body: Vec<Stmt> = std::mem::take(&mut self.nodes[n].stmts);
            let gone = order.len() as u32;
            let at = |t: NodeId| id.get(&t).copied().unwrap_or(gone);
            let set = |t: NodeId| Stmt::Assign {
                dst: state,
                expr: Expr::Use(Operand::Const(Const::U32(at(t)))),
            };
            match self.nodes[n].term.clone() {
                Terminator::Return => body.push(Stmt::Return),
                Terminator::Break => body.push(Stmt::Break),
                Terminator::Continue => body.push(Stmt::Continue),
                Terminator::Jump(t) => body.push(set(t)),
                Terminator::Branch {
                    cond,
                    then_target,
                    else_target,
                } => body.push(Stmt::Assign {
                    dst: state,
                    expr: Expr::Select {
                        ty: Ty::U32,
                        cond,
                        a: Operand::Const(Const::U32(at(then_target))),
                        b: Operand::Const(Const::U32(at(else_target))),
                    },
                }),
                Terminator::Switch {
                    selector,
                    cases,
                    default,
                } => {
                    let arms = cases.into_iter().map(|(v, t)| SwitchCase {
                        values: vec![v],
                        body: Block {
                            stmts: vec![set(t)],
                        },
                    });
                    body.push(Stmt::Switch {
                        selector,
                        cases: arms.collect(),
                        default: Block {
                            stmts: vec![set(default)],
                        },
                    });
                }
            }
            if n == order[0] {
                // The entry runs first, always: no test, so that what it holds (the join of a
                // piece: a barrier) stays in uniform control flow.
                out.extend(body);
                continue;
            }
            let here = self.new_var(Ty::Bool, "structurizer state test");
            out.push(Stmt::Assign {
                dst: here,
                expr: Expr::Compare {
                    op: CmpOp::Eq,
                    ty: Ty::U32,
                    lhs: Operand::Var(state),
                    rhs: Operand::Const(Const::U32(id[&n])),
                },
            });
            out.push(Stmt::If {
                cond: Operand::Var(here),
                then_body: Block { stmts: body },
                else_body: Block::new(),
            });
        }
        out
    }
}

/// Rewrites every `Switch` in `block` as an equivalent `if … else if …` ladder (for passes that
/// know only `If`/`Loop`; it nests one level per case, so it is used only where those passes
/// run: kernels with barriers or warp collectives).
pub fn switches_to_ifs(block: &mut Block, vars: &mut Vec<VarInfo>) {
    let mut stack: Vec<&mut Block> = vec![block];
    while let Some(b) = stack.pop() {
        let stmts = std::mem::take(&mut b.stmts);
        for s in stmts {
            let s = match s {
                Stmt::Switch { selector, cases, default } => {
                    let mut ladder = default.stmts;
                    for case in cases.into_iter().rev() {
                        let mut tests = Vec::new();
                        let mut cond: Option<Operand> = None;
                        for v in case.values {
                            let t = VarId(vars.len() as u32);
                            vars.push(VarInfo { ty: Ty::Bool, name: "switch case".into() });
                            tests.push(Stmt::Assign {
                                dst: t,
                                expr: Expr::Compare { op: CmpOp::Eq, ty: Ty::U32, lhs: selector, rhs: Operand::Const(Const::U32(v)) },
                            });
                            cond = Some(match cond {
                                None => Operand::Var(t),
                                Some(c) => {
                                    let o = VarId(vars.len() as u32);
                                    vars.push(VarInfo { ty: Ty::Bool, name: "switch case".into() });
                                    tests.push(Stmt::Assign {
                                        dst: o,
                                        expr: Expr::Binary { op: crate::ir::BinaryOp::Or, ty: Ty::Bool, lhs: c, rhs: Operand::Var(t) },
                                    });
                                    Operand::Var(o)
                                }
                            });
                        }
                        let cond = cond.unwrap_or(Operand::Const(Const::Bool(false)));
                        tests.push(Stmt::If { cond, then_body: case.body, else_body: Block { stmts: ladder } });
                        ladder = tests;
                    }
                    b.stmts.extend(ladder);
                    continue;
                }
                s => s,
            };
            b.stmts.push(s);
        }
        for s in b.stmts.iter_mut() {
            match s {
                Stmt::If { then_body, else_body, .. } => {
                    stack.push(then_body);
                    stack.push(else_body);
                }
                Stmt::Loop { body } => stack.push(body),
                _ => {}
            }
        }
    }
}
