//! Differential execution testing (issue 6 §2): random valid PTX kernels run through both
//! backends on the device and compared with an independent model of the PTX.
//!
//! - [`gen`] builds a random program from a seed: integer arithmetic on many registers
//!   (u32/s32/u64/s64), predicated instructions, `setp` with predicate combination, forward
//!   branches, counted loops (do-while: a backward predicated branch; while), breaks out of
//!   nested loops, `continue`, irreducible two-entry loops, early `ret`, loads and stores of
//!   every width to global, shared and local memory (own slots, or read-only shared data
//!   published before a barrier at the top level), direct and generic addresses. Every loop is
//!   counted by a per-thread trip count of at most 9, so every program terminates (far below
//!   lavapipe's 65,535-iteration loop cut).
//! - [`gen::simt_program`] (cases from [`Case::simt_from_seed`]) adds barriers and warp
//!   collectives (shfl/vote/activemask/redux/match, full membermask) where every non-exited
//!   thread of the CTA reaches the same sequence of them: the top level, after per-thread
//!   control flow and early exits, and uniform loops; CTAs of 32–256 threads with partial warps.
//! - [`meet::meet_program`] (cases from [`Case::meet_from_seed`]) puts sm_80 collectives into
//!   per-lane control flow, so that lanes of a warp meet at different instructions (§9.7.8.6);
//!   the model runs each CTA as a per-warp scheduler of the sm_70 rule, and programs whose lanes
//!   never all arrive must end with `FAULT_BARRIER_DEADLOCK`.
//! - [`gen::call_program`] (cases from [`Case::call_from_seed`]) puts parts of the program into
//!   device functions (`calls.rs`): `.param` and `.reg` formals of every width, pointers to the
//!   caller's memories, direct, indirect, guarded, nested and recursive calls, run twice: with
//!   the default inlining and with every call through the call stack (`inline_budget: Some(0)`).
//!   [`gen::simt_call_program`] (cases from [`Case::simt_call_from_seed`]) adds a function
//!   holding barriers and collectives, called from the kernel's uniform points (ptxcross
//!   inlines it whatever the budget); the model waits at collectives inside functions.
//! - [`model`] executes the program with semantics written from the PTX ISA.
//! - [`Runner::check`] translates (validating the SPIR-V with spirv-val and the WGSL with naga),
//!   launches 2–4 CTAs of 64–256 threads with per-thread inputs through each backend, and
//!   compares every output word and every scratch word with the model.
//! - [`minimize`] shrinks a failing case (statements, blocks, loops, guards, launch size) while
//!   the same failure persists; [`save_regression`] writes it as a `ptxcross run` launch spec
//!   (PTX + inputs + the model's expected outputs) that `tests/tests/differential.rs` replays.

pub mod calls;
pub mod fops;
pub mod gen;
pub mod hops;
pub mod meet;
pub mod model;
pub mod program;
pub mod xops;

use program::{flatten, print, Program, Stmt, NG, NIN, NOUT};
use ptxcross::{translate, Backend, Context, ContextOptions, Gpu};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A program with its launch inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub program: Program,
    /// NIN words per thread.
    pub input: Vec<u32>,
    /// NG words per thread: the scratch buffer before the launch.
    pub scratch: Vec<u32>,
}

impl Case {
    /// The case of `seed`: 2–4 CTAs of 64, 128 or 256 threads.
    pub fn from_seed(seed: u64) -> Case {
        let mut rng = gen::Rng::new(seed);
        let grid = 2 + rng.below(3) as u32;
        let block = rng.pick(&[64, 128, 256]);
        let program = gen::program(&mut rng, grid, block);
        let (input, scratch) = gen::inputs(&mut rng, (grid * block) as usize);
        Case { program, input, scratch }
    }
    /// The SIMT case of `seed` ([`gen::simt_program`]: collectives, uniform loops, early
    /// exits before barriers): 1–3 CTAs of 32–256 threads, often not a multiple of 32 (partial
    /// last warps).
    pub fn simt_from_seed(seed: u64) -> Case {
        let mut rng = gen::Rng::new(seed);
        let grid = 1 + rng.below(3) as u32;
        let block = rng.pick(&[32, 48, 64, 100, 128, 200, 256]);
        let program = gen::simt_program(&mut rng, grid, block);
        let (input, scratch) = gen::inputs(&mut rng, (grid * block) as usize);
        Case { program, input, scratch }
    }
    /// The meeting case of `seed` ([`meet::meet_program`]: `.target sm_80` collectives in
    /// per-lane control flow that meet at different instructions): 1–2 CTAs of 32–128 threads,
    /// partial warps and several warps.
    pub fn meet_from_seed(seed: u64) -> Case {
        let mut rng = gen::Rng::new(seed);
        let grid = 1 + rng.below(2) as u32;
        // One-warp CTAs twice as often: the CTA barrier scheduler's round code is smallest there.
        let block = rng.pick(&[32, 32, 48, 64, 96, 100, 128]);
        let program = meet::meet_program(&mut rng, grid, block);
        let (input, scratch) = gen::inputs(&mut rng, (grid * block) as usize);
        Case { program, input, scratch }
    }
    /// The float case of `seed` ([`gen::float_program`], inputs from [`fops::inputs`]): 1–2
    /// CTAs of 64 or 128 threads.
    pub fn float_from_seed(seed: u64) -> Case {
        let mut rng = gen::Rng::new(seed);
        let grid = 1 + rng.below(2) as u32;
        let block = rng.pick(&[64, 128]);
        let program = gen::float_program(&mut rng, grid, block);
        let (input, scratch) = fops::inputs(&mut rng, (grid * block) as usize);
        Case { program, input, scratch }
    }
    /// The case of `seed` with the integer families of `xops.rs` ([`gen::xint_program`]): 1–2
    /// CTAs of 64 or 128 threads.
    pub fn xint_from_seed(seed: u64) -> Case {
        let mut rng = gen::Rng::new(seed);
        let grid = 1 + rng.below(2) as u32;
        let block = rng.pick(&[64, 128]);
        let program = gen::xint_program(&mut rng, grid, block);
        let (input, scratch) = gen::inputs(&mut rng, (grid * block) as usize);
        Case { program, input, scratch }
    }
    /// The case of `seed` with the adversary's families of `hops.rs` ([`gen::hx_program`]:
    /// half arithmetic, f32 min/max .NaN/.xorsign, cvt to halves and fp8, carry chains across
    /// control flow, float atomics, prmt modes, integer cvt of every width pair, register-indexed
    /// vectors) and inputs full of half lanes ([`hops::inputs`]): 1–2 CTAs of 64 or 128 threads.
    pub fn hx_from_seed(seed: u64) -> Case {
        let mut rng = gen::Rng::new(seed);
        let grid = 1 + rng.below(2) as u32;
        let block = rng.pick(&[64, 128]);
        let program = gen::hx_program(&mut rng, grid, block);
        let (input, scratch) = hops::inputs(&mut rng, (grid * block) as usize);
        Case { program, input, scratch }
    }
    /// The call case of `seed` ([`gen::call_program`]): 1–2 CTAs of 64 or 128 threads.
    pub fn call_from_seed(seed: u64) -> Case {
        let mut rng = gen::Rng::new(seed);
        let grid = 1 + rng.below(2) as u32;
        let block = rng.pick(&[64, 128]);
        let program = gen::call_program(&mut rng, grid, block);
        let (input, scratch) = gen::inputs(&mut rng, (grid * block) as usize);
        Case { program, input, scratch }
    }
    /// The SIMT call case of `seed` ([`gen::simt_call_program`]: a device function holding
    /// collectives, called from the kernel's uniform points): 1–2 CTAs of 48–128 threads
    /// (partial warps).
    pub fn simt_call_from_seed(seed: u64) -> Case {
        let mut rng = gen::Rng::new(seed);
        let grid = 1 + rng.below(2) as u32;
        let block = rng.pick(&[48, 64, 100, 128]);
        let program = gen::simt_call_program(&mut rng, grid, block);
        let (input, scratch) = gen::inputs(&mut rng, (grid * block) as usize);
        Case { program, input, scratch }
    }
    pub fn threads(&self) -> usize {
        (self.program.grid * self.program.block) as usize
    }
    pub fn ptx(&self) -> String {
        print(&self.program, &flatten(&self.program), "difftest")
    }
    pub fn expected(&self) -> Result<model::Expected, String> {
        model::run(&self.program, &flatten(&self.program), &self.input, &self.scratch)
    }
}

/// How a case went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Not valid PTX to compare on (the model says why); never counted, never kept.
    Invalid(String),
    Fail(Failure),
}

/// The backends a case runs on: both, or the one `PTXCROSS_DIFF_BACKEND` names (`spirv` or
/// `wgsl`), for long runs that look past a known open bug of the other one.
fn backends() -> Vec<Backend> {
    let only = std::env::var("PTXCROSS_DIFF_BACKEND").ok().map(|s| s.to_lowercase().replace('-', ""));
    Backend::ALL.into_iter().filter(|b| only.as_ref().is_none_or(|o| format!("{b:?}").to_lowercase() == *o)).collect()
}

/// What went wrong: `kind` groups failures for the minimizer (it keeps a reduction only while
/// the kind stays the same).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub backend: Option<Backend>,
    /// The inlining budget of the translation that failed (`Some(0)`: every call through the
    /// call stack).
    pub inline_budget: Option<usize>,
    pub kind: FailureKind,
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// ptxcross refused or failed to translate/validate a valid program.
    Translate,
    /// The launch failed or recorded a fault.
    Launch,
    /// Outputs differ from the model.
    Mismatch,
}

/// Runs cases on one device, reusing one context.
pub struct Runner {
    gpu: Arc<Gpu>,
    ctx: Context,
}

impl Runner {
    pub fn new(gpu: Arc<Gpu>) -> Runner {
        let ctx = Context::new(ContextOptions { heap_bytes: 4 << 20, timeout: None, gpu: Some(gpu.clone()) })
            .expect("a context with a 4 MiB heap");
        Runner { gpu, ctx }
    }

    /// Checks `case`; a program with device functions twice: with the default inlining and
    /// with every call through the call stack (`inline_budget: Some(0)`).
    pub fn check(&mut self, case: &Case) -> Verdict {
        let expected = match case.expected() {
            Ok(e) => e,
            Err(why) => return Verdict::Invalid(why),
        };
        let budgets: &[Option<usize>] = if case.program.funcs.is_empty() { &[None] } else { &[None, Some(0)] };
        for &inline_budget in budgets {
            if let Err(f) = self.check_with(case, &expected, inline_budget) {
                return Verdict::Fail(f);
            }
        }
        Verdict::Pass
    }

    fn check_with(&mut self, case: &Case, expected: &model::Expected, inline_budget: Option<usize>) -> Result<(), Failure> {
        let program = self.translate(case, inline_budget)?;
        let mut result = Ok(());
        for backend in backends() {
            // A device that flushes subnormals on this backend refuses kernels whose results
            // depend on them (`Error::SubnormalsFlushed`): the right answer there, skipped.
            if crate::launch::refused_for_subnormals(&self.gpu, &program, backend) {
                continue;
            }
            if let Err(mut f) = self.launch(case, &program, backend, expected) {
                f.inline_budget = inline_budget;
                result = Err(f);
                break;
            }
        }
        self.gpu.forget_program(program.id());
        result
    }

    /// `case` translated for both backends as the runner checks it, at `inline_budget`.
    fn translate(&self, case: &Case, inline_budget: Option<usize>) -> Result<ptxcross::Program, Failure> {
        let file = SourceFile::new("difftest.ptx", case.ptx());
        let block = [case.program.block, 1, 1];
        // As the host translates (`Gpu::lower_options`): without the loop-cut check a program
        // that lavapipe cuts short gives wrong values and no fault (seed 0x5ca20007); the
        // launch refuses a kernel lowered without a workaround the device needs.
        let options = LowerOptions { block: Some(block), inline_budget, ..self.gpu.lower_options(&Backend::ALL) };
        translate::build_program(&file, &options, &Backend::ALL, true).map_err(|e| Failure {
            backend: None,
            inline_budget,
            kind: FailureKind::Translate,
            detail: e.render(),
        })
    }

    /// `case` translated as [`Runner::check`] does and launched once on `backend`, whatever
    /// the model says of it (tests of programs the model refuses): the launch's own result.
    pub fn launch_unchecked(&mut self, case: &Case, inline_budget: Option<usize>, backend: Backend) -> Result<Result<(Vec<u32>, Vec<u32>), ptxcross::Error>, String> {
        let program = self.translate(case, inline_budget).map_err(|f| f.detail)?;
        let launched = self.launch_once(case, &program, backend);
        self.gpu.forget_program(program.id());
        launched
    }

    fn launch(&mut self, case: &Case, program: &ptxcross::Program, backend: Backend, expected: &model::Expected) -> Result<(), Failure> {
        let fail = |kind, detail: String| Failure { backend: Some(backend), inline_budget: None, kind, detail };
        let launched = self.launch_once(case, program, backend).map_err(|e| fail(FailureKind::Launch, e))?;
        if expected.deadlock {
            // Lanes that wait forever: a hang on NVIDIA, a fault here; nothing to compare. Any
            // other outcome is a `Mismatch` (the minimizer keeps the kind: a program that
            // faults some other way does not shrink into one that never completes).
            return match launched {
                Err(ptxcross::Error::KernelFault { bits, .. }) if bits == ptxcross_lower::abi::FAULT_BARRIER_DEADLOCK => Ok(()),
                other => Err(fail(
                    FailureKind::Mismatch,
                    format!("lanes wait at collectives that never complete: expected FAULT_BARRIER_DEADLOCK, got {:?}", other.map(|_| "a launch that ran through")),
                )),
            };
        }
        let (out, scratch) = launched.map_err(|e| fail(FailureKind::Launch, e.to_string()))?;
        compare(&out, &expected.out, NOUT, "out")
            .or_else(|| compare(&scratch, &expected.scratch, NG, "scratch"))
            .map_or(Ok(()), |d| Err(fail(FailureKind::Mismatch, d)))
    }

    /// Launches `case` once: the launch's own result, with the output and scratch words where
    /// it ran through; `Err` where the buffers could not be set up or read.
    #[allow(clippy::type_complexity)]
    fn launch_once(&mut self, case: &Case, program: &ptxcross::Program, backend: Backend) -> Result<Result<(Vec<u32>, Vec<u32>), ptxcross::Error>, String> {
        let n = case.threads();
        let bufs = [vec![0u32; n * NOUT], case.scratch.clone(), case.input.clone()];
        let mut ptrs = Vec::new();
        let ctx = &mut self.ctx;
        let result = (|| {
            for b in &bufs {
                let p = ctx.alloc(b.len() as u64 * 4).map_err(|e| format!("alloc: {e}"))?;
                ptrs.push(p);
                ctx.write(p, &crate::launch::bytes(b)).map_err(|e| format!("write: {e}"))?;
            }
            let args: Vec<[u8; 8]> = ptrs.iter().map(|p| p.to_le_bytes()).collect();
            let arg_refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
            if let Err(e) = ctx.launch(program, "difftest", [case.program.grid, 1, 1], &arg_refs, backend) {
                return Ok(Err(e));
            }
            let read = |i: usize| ctx.read(ptrs[i], bufs[i].len() as u64 * 4).map(|b| crate::launch::words(&b)).map_err(|e| format!("read: {e}"));
            Ok(Ok((read(0)?, read(1)?)))
        })();
        for p in ptrs {
            let _ = self.ctx.free(p);
        }
        result
    }

    /// For a case whose lanes really meet ([`model::Expected::meetings`] > 0, no deadlock): its
    /// translation with the run-time meeting check instead of the CTA barrier scheduler
    /// (`Meeting::Check`) must fault with `FAULT_WARP_DIVERGED` on SPIR-V, as meeting lanes do
    /// outside the scheduler; a launch that runs through means the static proof cleared a
    /// kernel whose lanes meet (`lower/src/meeting.rs`). `Ok(false)`: the case does not meet.
    pub fn checked_lowering_faults(&mut self, case: &Case) -> Result<bool, Failure> {
        let expected = case.expected().map_err(|why| Failure { backend: None, inline_budget: None, kind: FailureKind::Translate, detail: why })?;
        if expected.deadlock || expected.meetings == 0 {
            return Ok(false);
        }
        let file = SourceFile::new("difftest.ptx", case.ptx());
        let options = LowerOptions {
            block: Some([case.program.block, 1, 1]),
            meeting: ptxcross_lower::Meeting::Check,
            ..self.gpu.lower_options(&[Backend::Spirv])
        };
        let fail = |kind, detail: String| Failure { backend: Some(Backend::Spirv), inline_budget: None, kind, detail };
        let program = translate::build_program(&file, &options, &[Backend::Spirv], true).map_err(|e| fail(FailureKind::Translate, e.render()))?;
        let launched = self.launch_once(case, &program, Backend::Spirv);
        self.gpu.forget_program(program.id());
        match launched.map_err(|e| fail(FailureKind::Launch, e))? {
            Err(ptxcross::Error::KernelFault { bits, .. }) if bits == ptxcross_lower::abi::FAULT_WARP_DIVERGED => Ok(true),
            other => Err(fail(
                FailureKind::Mismatch,
                format!("{} meetings; the checked lowering: expected FAULT_WARP_DIVERGED, got {:?}", expected.meetings, other.map(|_| "a launch that ran through")),
            )),
        }
    }
}

/// The first difference between `got` and `want` (per-thread records of `per` words), described.
fn compare(got: &[u32], want: &[u32], per: usize, what: &str) -> Option<String> {
    let bad: Vec<usize> = (0..want.len()).filter(|&i| got.get(i) != Some(&want[i])).collect();
    let &i = bad.first()?;
    let field = if what == "out" {
        let mut k = i % per;
        let mut name = String::new();
        for (f, len) in program::epilogue_layout() {
            if k < len {
                name = format!("{f}[{k}]");
                break;
            }
            k -= len;
        }
        name
    } else {
        format!("word {}", i % per)
    };
    Some(format!(
        "{} of {} {what} words differ; first: thread {} {field}: expected {:#x}, got {:#x}",
        bad.len(),
        want.len(),
        i / per,
        want[i],
        got.get(i).copied().unwrap_or(0)
    ))
}

/// Shrinks `case` while `runner` still fails it the same way as `failure` (same backend and
/// kind); gives up after `max_runs` device runs or `PTXCROSS_DIFF_MINIMIZE_SECONDS` (default
/// 900: SIMT programs take lavapipe tens of seconds each to compile). Returns the smallest
/// failing case found.
pub fn minimize(runner: &mut Runner, case: &Case, failure: &Failure, max_runs: usize) -> Case {
    let same = |v: &Verdict| {
        matches!(v, Verdict::Fail(f) if f.backend == failure.backend && f.kind == failure.kind && f.inline_budget == failure.inline_budget)
    };
    let seconds = std::env::var("PTXCROSS_DIFF_MINIMIZE_SECONDS").ok().and_then(|s| s.parse::<f64>().ok()).unwrap_or(900.0);
    let start = std::time::Instant::now();
    let mut cur = case.clone();
    let mut runs = 0;
    'outer: loop {
        for cand in reductions(&cur) {
            if runs >= max_runs || start.elapsed().as_secs_f64() > seconds {
                break 'outer;
            }
            runs += 1;
            if same(&runner.check(&cand)) {
                cur = cand;
                continue 'outer;
            }
        }
        break;
    }
    cur
}

/// One-step reductions of a case, larger ones first.
fn reductions(case: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    let with_launch = |grid: u32, block: u32| {
        let n = (grid * block) as usize;
        let mut c = case.clone();
        c.program.grid = grid;
        c.program.block = block;
        c.input.truncate(n * NIN);
        c.scratch.truncate(n * NG);
        c
    };
    if case.program.grid > 1 {
        out.push(with_launch(1, case.program.block));
    }
    if case.program.block > 32 {
        out.push(with_launch(case.program.grid, case.program.block / 2));
    }
    for body in block_reductions(&case.program.body) {
        let mut c = case.clone();
        c.program.body = body;
        out.push(c);
    }
    for (k, f) in case.program.funcs.iter().enumerate() {
        for body in block_reductions(&f.body) {
            let mut c = case.clone();
            c.program.funcs[k].body = body;
            out.push(c);
        }
    }
    out
}

/// Reductions of a statement list: chunks deleted (halves first), then each statement deleted,
/// replaced by its inner statements, or reduced inside.
fn block_reductions(stmts: &[Stmt]) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    let n = stmts.len();
    let mut chunk = n / 2;
    while chunk > 1 {
        let mut start = 0;
        while start < n {
            let mut v = stmts.to_vec();
            v.drain(start..(start + chunk).min(n));
            out.push(v);
            start += chunk;
        }
        chunk /= 2;
    }
    for i in 0..n {
        let replace = |with: Vec<Stmt>| {
            let mut v = stmts[..i].to_vec();
            v.extend(with);
            v.extend_from_slice(&stmts[i + 1..]);
            v
        };
        out.push(replace(vec![]));
        match &stmts[i] {
            Stmt::If { g, then_, else_ } => {
                out.push(replace(then_.iter().chain(else_).cloned().collect()));
                if !else_.is_empty() {
                    out.push(replace(vec![Stmt::If { g: *g, then_: then_.clone(), else_: vec![] }]));
                }
                for t in block_reductions(then_) {
                    out.push(replace(vec![Stmt::If { g: *g, then_: t, else_: else_.clone() }]));
                }
                for e in block_reductions(else_) {
                    out.push(replace(vec![Stmt::If { g: *g, then_: then_.clone(), else_: e }]));
                }
            }
            Stmt::Loop { do_while, trip, body } => {
                out.push(replace(body.clone()));
                for b in block_reductions(body) {
                    out.push(replace(vec![Stmt::Loop { do_while: *do_while, trip: *trip, body: b }]));
                }
            }
            Stmt::Irreducible { g, trip, a, b } => {
                out.push(replace(a.iter().chain(b).cloned().collect()));
                out.push(replace(vec![Stmt::Loop { do_while: true, trip: *trip, body: a.iter().chain(b).cloned().collect() }]));
                for x in block_reductions(a) {
                    out.push(replace(vec![Stmt::Irreducible { g: *g, trip: *trip, a: x, b: b.clone() }]));
                }
                for x in block_reductions(b) {
                    out.push(replace(vec![Stmt::Irreducible { g: *g, trip: *trip, a: a.clone(), b: x }]));
                }
            }
            Stmt::ULoop { word, mask, body } => {
                out.push(replace(body.clone()));
                for b in block_reductions(body) {
                    out.push(replace(vec![Stmt::ULoop { word: *word, mask: *mask, body: b }]));
                }
            }
            Stmt::Ins(Some(_), ins) => out.push(replace(vec![Stmt::Ins(None, *ins)])),
            Stmt::Call { g, call } => {
                if g.is_some() {
                    out.push(replace(vec![Stmt::Call { g: None, call: call.clone() }]));
                }
                if call.alt.is_some() {
                    out.push(replace(vec![Stmt::Call { g: *g, call: calls::Call { alt: None, ..call.clone() } }]));
                }
            }
            _ => {}
        }
    }
    out
}

/// Statements of a program's kernel and device functions, nested ones included.
pub fn program_size(p: &Program) -> usize {
    size(&p.body) + p.funcs.iter().map(|f| size(&f.body)).sum::<usize>()
}

/// Statements in a program, nested ones included.
pub fn size(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| {
            1 + match s {
                Stmt::If { then_, else_, .. } => size(then_) + size(else_),
                Stmt::Loop { body, .. } => size(body),
                Stmt::Irreducible { a, b, .. } => size(a) + size(b),
                Stmt::ULoop { body, .. } => size(body),
                _ => 0,
            }
        })
        .sum()
}

/// Writes `case` as `dir/<name>.ptx` and the launch spec `dir/<name>.json` (expected outputs
/// from the model) that `ptxcross run --spec` checks on both backends. `note` goes into the
/// PTX as a comment.
pub fn save_regression(case: &Case, dir: &Path, name: &str, note: &str) -> std::io::Result<PathBuf> {
    let expected = case.expected().map_err(std::io::Error::other)?;
    std::fs::create_dir_all(dir)?;
    let mut ptx = String::new();
    for line in note.lines() {
        ptx.push_str("// ");
        ptx.push_str(line);
        ptx.push('\n');
    }
    ptx.push_str(&case.ptx());
    std::fs::write(dir.join(format!("{name}.ptx")), ptx)?;
    let values = |w: &[u32]| serde_json::json!({"type": "u32", "values": w});
    let spec = serde_json::json!({
        "ptx": format!("{name}.ptx"),
        "kernel": "difftest",
        "grid": [case.program.grid, 1, 1],
        "block": [case.program.block, 1, 1],
        "buffers": {
            "out": {"zeros": case.threads() * NOUT * 4},
            "scratch": values(&case.scratch),
            "inp": values(&case.input),
        },
        "args": [{"buffer": "out"}, {"buffer": "scratch"}, {"buffer": "inp"}],
        "expect": {"out": values(&expected.out), "scratch": values(&expected.scratch)},
    });
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string(&spec).map_err(std::io::Error::other)? + "\n")?;
    Ok(path)
}

/// What a campaign did.
#[derive(Debug, Default)]
pub struct Report {
    pub programs: usize,
    pub invalid: usize,
    pub threads: usize,
    /// (seed, minimized failure, where it was saved)
    pub failures: Vec<(u64, Failure, Option<PathBuf>)>,
}

/// Runs seeds `first_seed, first_seed + 1, …` for `seconds` or `max_programs`, whichever ends
/// first; every failure is minimized and saved into `save_dir` (when given).
pub fn campaign(runner: &mut Runner, first_seed: u64, seconds: f64, max_programs: usize, save_dir: Option<&Path>) -> Report {
    campaign_of(runner, Case::from_seed, "seed", first_seed, seconds, max_programs, save_dir)
}

/// As [`campaign`], with cases from `case_of` (e.g. [`Case::simt_from_seed`]); saved cases are
/// named `<prefix>-<seed>`.
pub fn campaign_of(
    runner: &mut Runner,
    case_of: fn(u64) -> Case,
    prefix: &str,
    first_seed: u64,
    seconds: f64,
    max_programs: usize,
    save_dir: Option<&Path>,
) -> Report {
    let start = std::time::Instant::now();
    let mut report = Report::default();
    let mut seed = first_seed;
    let mut last_note = 0.0;
    // `PTXCROSS_DIFF_DUMP=DIR`: every program that passed is written there as a launch spec
    // too, with the model's outputs as its expectation, so that another implementation (the
    // CUDA driver on an NVIDIA GPU: tests/nvidia/run_specs.py) can be judged by the model, and
    // the model by it.
    let dump = std::env::var_os("PTXCROSS_DIFF_DUMP").map(std::path::PathBuf::from);
    while start.elapsed().as_secs_f64() < seconds && report.programs < max_programs {
        let t = start.elapsed().as_secs_f64();
        if t - last_note >= 60.0 {
            eprintln!("differential: {} programs, {} failures after {t:.0} s", report.programs, report.failures.len());
            last_note = t;
        }
        let case = case_of(seed);
        match runner.check(&case) {
            Verdict::Pass => {
                if let Some(d) = &dump {
                    let note = format!("A program of the differential tester (tests/src/difftest), seed {seed:#x}; passed on ptxcross.");
                    if let Err(e) = save_regression(&case, d, &format!("{prefix}-{seed:016x}"), &note) {
                        eprintln!("PTXCROSS_DIFF_DUMP: {e}");
                    }
                }
            }
            Verdict::Invalid(_) => report.invalid += 1,
            Verdict::Fail(f) => {
                eprintln!("seed {seed:#x}: {:?} {:?} (inline budget {:?}): {}", f.backend, f.kind, f.inline_budget, f.detail);
                let small = minimize(runner, &case, &f, 3000);
                let f2 = match runner.check(&small) {
                    Verdict::Fail(f2) => f2,
                    _ => f.clone(),
                };
                eprintln!(
                    "seed {seed:#x}: minimized from {} to {} statements, {}×{} threads: {}",
                    program_size(&case.program),
                    program_size(&small.program),
                    small.program.grid,
                    small.program.block,
                    f2.detail
                );
                let saved = save_dir.and_then(|d| {
                    let note = format!(
                        "Found by the differential tester (tests/src/difftest), seed {seed:#x}, minimized.\n{} {:?} (inline budget {:?}): {}",
                        f2.backend.map_or("translation".to_string(), |b| b.to_string()),
                        f2.kind,
                        f2.inline_budget,
                        f2.detail.lines().next().unwrap_or("")
                    );
                    save_regression(&small, d, &format!("{prefix}-{seed:016x}"), &note).ok()
                });
                report.failures.push((seed, f2, saved));
            }
        }
        report.programs += 1;
        report.threads += case.threads();
        seed += 1;
    }
    report
}
