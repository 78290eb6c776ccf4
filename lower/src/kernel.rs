//! One kernel: lay out its memories, lower its body into a CFG, check barriers, structurize.

use crate::abi;
use crate::function::{unsupported, FnLower, LResult, Scope, Symbol};
use crate::ir::{self, Ty};
use crate::layout::{self, align_up, GlobalPlace};
use crate::ptx_types::value_ty;
use crate::{call, fault_site, features, grid, int64, isolation, local_scratch, loop_cut, loop_exits, simt, structurize, warp_layout, LowerOptions, DEFAULT_BLOCK};
use ptxcross_frontend::ast::{self, ScalarType, Statement, StateSpace, VarDecl};
use ptxcross_frontend::Diagnostic;
use std::collections::HashMap;

/// Deepest nesting of structured control flow (`if`/`loop`) accepted. The later passes and the
/// emitters recurse over it; at this depth they stay far inside a 2 MiB thread stack (debug
/// builds overflowed one beyond 2,000 levels). WGSL compilers stop at 127 anyway.
pub(crate) const MAX_CONTROL_DEPTH: usize = 512;

/// Most registers one `%r<N>` declaration may create (each becomes a variable of the IR and of
/// the SPIR-V function, which Vulkan caps at 524,287).
const MAX_REGISTER_RANGE: u32 = 1 << 16;

/// Largest CTA shape any target could run (CUDA's limit); the host checks the device's own.
const MAX_BLOCK_THREADS: u64 = 1024;

pub fn lower_kernel(
    file: &ptxcross_frontend::SourceFile,
    module: &ast::Module,
    f: &ast::Function,
    globals: &[(String, GlobalPlace)],
    functions: &call::Functions,
    options: &LowerOptions,
) -> LResult<ir::Kernel> {
    match lower_kernel_once(file, module, f, globals, functions, options) {
        // Shared memory that goes to the scratch buffer is rewritten in the kernel's body
        // only: where an outlined expansion reaches it, the kernel is lowered again inline.
        Err(e) if !options.no_outline && e.message.contains(local_scratch::SHARED_IN_FUNCTION) => {
            lower_kernel_once(file, module, f, globals, functions, &LowerOptions { no_outline: true, ..options.clone() })
        }
        r => r,
    }
}

fn lower_kernel_once(
    file: &ptxcross_frontend::SourceFile,
    module: &ast::Module,
    f: &ast::Function,
    globals: &[(String, GlobalPlace)],
    functions: &call::Functions,
    options: &LowerOptions,
) -> LResult<ir::Kernel> {
    // Its shared memory exceeds the device's (moved to the scratch buffer, or not).
    let too_large = |k: &ir::Kernel| {
        k.features.scratch_shared_words > 0 || options.max_shared_bytes.is_some_and(|max| k.shared_words as u64 * 4 > max as u64)
    };
    let lower = |exchange_in_scratch| {
        let finish = |(fl, block, params, param_bytes): Body| finish_kernel(file, module, f, fl, block, params, param_bytes, options);
        match lower_body(module, f, globals, functions, options, exchange_in_scratch)? {
            Lowered::Plain(body) => finish(*body),
            Lowered::Scheduled { body, fallback, meet } => match (finish(*body), fallback) {
                (Ok(k), Some(plain)) if too_large(&k.0) => finish(*plain),
                // The checked lowering is finished only where its size can decide (the
                // scheduler's code above `MEET_MAX_STATEMENTS`): it was finished for every such
                // kernel, and dropped unread.
                (Ok(k), Some(plain)) if meet && options.meeting == crate::Meeting::Meet && ir::statement_count(&k.0.body.stmts) > MEET_MAX_STATEMENTS => match finish(*plain) {
                    Ok(p) if too_big_to_meet(ir::statement_count(&k.0.body.stmts), ir::statement_count(&p.0.body.stmts)) => Ok(p),
                    _ => Ok(k),
                },
                (Ok(k), _) => Ok(k),
                (Err(_), Some(plain)) => finish(*plain),
                (Err(e), None) => Err(e),
            },
        }
    };
    let (kernel, shared_exchange) = lower(false)?;
    // The device's shared memory cannot hold the kernel with its warp matrix exchange: the
    // exchange goes to the launch's scratch buffer instead (`inst::warp`, `warp_exchange`).
    // Decided on the finished kernel, whose shared memory includes every pass's scratch.
    if shared_exchange && too_large(&kernel) {
        return lower(true).map(|(k, _)| k);
    }
    Ok(kernel)
}

/// The kernel's instructions lowered one by one, without the passes over the whole body
/// (CFG, structurizer, SIMT, cleanup …): every error of an instruction (invalid operands,
/// unknown names, "not supported yet") and of the kernel's memory sizes, at a tenth of the
/// cost of [`lower_kernel`]. See `crate::module_facts`.
pub fn check_kernel(module: &ast::Module, f: &ast::Function, globals: &[(String, GlobalPlace)], functions: &call::Functions, options: &LowerOptions) -> LResult<()> {
    lower_body(module, f, globals, functions, options, false).map(|_| ())
}

type Body = (FnLower, [u32; 3], Vec<ir::ParamSlot>, u32);

/// A kernel's body lowered: today's way, or for the CTA barrier scheduler (`scheduler`).
enum Lowered {
    Plain(Box<Body>),
    /// `fallback`: today's lowering, used if the scheduler's cannot be finished or needs more
    /// shared memory than the device has, when only thread counts held in registers (today's
    /// lowering checks them at run time: a count below the CTA's faults) or warp collectives
    /// that may meet (today's lowering faults where they do) asked for the scheduler.
    /// `meet`: warp collectives that may meet asked for the scheduler (see [`too_big_to_meet`]).
    Scheduled { body: Box<Body>, fallback: Option<Box<Body>>, meet: bool },
}

/// Whether a kernel whose warp collectives may meet keeps the checked lowering (its
/// collectives fault where lanes really meet) rather than the scheduler's, of `scheduled`
/// statements against `checked`: where the scheduler's has more than [`MEET_MAX_STATEMENTS`]
/// and more than `MEET_GROWTH` times the checked lowering's plus `MEET_BASE` (the scheduler's
/// own code, about 800). Measured (docs/simt.md, "Meeting in the CTA barrier scheduler"):
/// CUB's segmented radix sorts grow from 15-42 k statements to 59-169 k there (their resume
/// points split loops around hundreds of collectives; SPIR-V 0.3-0.8 → 2.8-5.7 MB, whose
/// pipelines lavapipe builds in many minutes: 153 s for the checked 837 KB one); the segmented
/// reductions (10-14 k either way) and kernels with a few collectives in loops (7× larger,
/// 137-536 KB of SPIR-V) are scheduled.
fn too_big_to_meet(scheduled: usize, checked: usize) -> bool {
    scheduled > MEET_MAX_STATEMENTS && scheduled > MEET_GROWTH * checked + MEET_BASE
}
const MEET_MAX_STATEMENTS: usize = 40_000;
const MEET_GROWTH: usize = 3;
const MEET_BASE: usize = 1000;

/// The body lowered today's way, and again in scheduler mode where a barrier needs it:
/// `bar.arrive` or an immediate count naming fewer warps than the CTA (then a refusal of the
/// scheduler's lowering is the kernel's), a count held in a register (then the kernel keeps
/// today's lowering where the scheduler's is refused, and where it has warp collectives), or
/// warp collectives that may meet at different instructions (`meeting`; then the kernel keeps
/// today's lowering with the run-time meeting check where the scheduler's is refused, and on
/// targets where such a meeting is undefined: [`meets_across_instructions`]).
/// `exchange_in_scratch`: see `FnLower::exchange_in_scratch`.
fn lower_body(
    module: &ast::Module,
    f: &ast::Function,
    globals: &[(String, GlobalPlace)],
    functions: &call::Functions,
    options: &LowerOptions,
    exchange_in_scratch: bool,
) -> LResult<Lowered> {
    let everywhere = options.meeting == crate::Meeting::CheckEverywhere;
    let lower_body_in =
        |scheduler, meet_checks, broadcast| lower_body_in(module, f, globals, functions, options, scheduler, meet_checks, exchange_in_scratch, broadcast);
    let mut plain = lower_body_in(false, everywhere, Vec::new())?;
    let hard = plain.0.needs_scheduler.is_some();
    let mut meet = false;
    if !hard && !everywhere && may_meet(&mut plain.0, f, false).is_some() {
        match with_warp_loads(&mut plain.0, f, |spans| lower_body_in(false, false, spans)) {
            // Cleared with some loads given to whole warps (`warp_loads`).
            Some(body) => plain = body,
            None => {
                // `PTXCROSS_MEETING_WHY=1`: where and why the proof stops.
                may_meet(&mut plain.0, f, true);
                // Collectives that may meet at different instructions: lowered again with the
                // run-time meeting check (`meeting`), the fallback of the scheduler's lowering,
                // where they meet.
                plain = lower_body_in(false, true, Vec::new())?;
                meet = matches!(options.meeting, crate::Meeting::Meet | crate::Meeting::MeetAlways) && meets_across_instructions(module);
            }
        }
    }
    if !hard && !plain.0.register_count && !meet {
        return Ok(Lowered::Plain(Box::new(plain)));
    }
    let scheduled = lower_body_in(true, false, Vec::new()).and_then(|mut body| {
        if let (false, false, Some(p)) = (hard, meet, body.0.sched.points.iter().find(|p| p.kind == crate::scheduler::PointKind::Collective)) {
            // Only register counts asked for the scheduler: a kernel with warp collectives
            // keeps today's lowering (much faster; a count naming fewer warps than the CTA
            // faults there at run time), as before collectives ran in scheduler kernels.
            return Err(crate::function::unsupported("warp collectives with only register thread counts", p.span));
        }
        crate::scheduler::build(&mut body.0)?;
        Ok(body)
    });
    match scheduled {
        Ok(body) => Ok(Lowered::Scheduled { body: Box::new(body), fallback: (!hard).then(|| Box::new(plain)), meet }),
        Err(_) if !hard => Ok(Lowered::Plain(Box::new(plain))),
        Err(e) => Err(e),
    }
}

/// Whether lanes of a membermask at different collective instructions meet on the module's
/// target: on sm_70 and later (§9.7.8.6 `shfl.sync`: "For .target sm_6x or below, all threads
/// in membermask must execute the same shfl.sync instruction in convergence, and only threads
/// belonging to some membermask can be active when the shfl.sync instruction is executed.
/// Otherwise, the behavior is undefined"; the other `.sync` collectives alike). Elsewhere the
/// cheaper checked lowering stays: its fault is one outcome of undefined behavior. A module
/// without an `sm_NN` target is taken as a current one.
fn meets_across_instructions(module: &ast::Module) -> bool {
    module.sm_version().is_none_or(|v| v >= 70)
}

/// The body lowered again with the loads that clear its collectives given to whole warps
/// (`warp_loads`), where the proof then clears it; `fl`: the body lowered without meeting
/// checks, whose proof failed.
fn with_warp_loads(fl: &mut FnLower, f: &ast::Function, relower: impl Fn(Vec<ast::Span>) -> LResult<Body>) -> Option<Body> {
    let wl = &fl.warp_loads;
    if wl.candidates.is_empty() {
        return None;
    }
    let cfg = crate::cfg::Cfg { blocks: std::mem::take(&mut fl.blocks), entry: fl.entry };
    let first = crate::warp_loads::first_accesses(&cfg, wl);
    let loads: Vec<_> = first.iter().map(|&i| (wl.candidates[i].site, wl.candidates[i].results.clone())).collect();
    let chosen = crate::meeting::broadcasts_clearing(&cfg, &fl.vars, fl.block, &fl.collective_sites, &fl.warp_results, &fl.cta_results, &loads);
    fl.blocks = cfg.blocks;
    let chosen: Vec<usize> = chosen?.into_iter().map(|k| first[k]).collect();
    let chosen = crate::warp_loads::closed_in_blocks(wl, &chosen);
    if chosen.is_empty() {
        return None;
    }
    let mut body = relower(chosen.iter().map(|&i| wl.candidates[i].site.span).collect()).ok()?;
    may_meet(&mut body.0, f, false).is_none().then_some(body)
}

/// The first warp collective of a body lowered without meeting checks that
/// `meeting::may_meet` cannot clear; `explain`: print why with `PTXCROSS_MEETING_WHY=1`.
fn may_meet(fl: &mut FnLower, f: &ast::Function, explain: bool) -> Option<ast::Span> {
    let cfg = crate::cfg::Cfg { blocks: std::mem::take(&mut fl.blocks), entry: fl.entry };
    // `PTXCROSS_MEETING_WHY=1`: where and why the proof stops (docs/simt.md's census).
    let explain = explain && std::env::var_os("PTXCROSS_MEETING_WHY").is_some_and(|v| v == "1");
    let found = crate::meeting::may_meet(&cfg, &fl.vars, fl.block, &fl.collective_sites, &fl.warp_results, &fl.cta_results, explain);
    fl.blocks = cfg.blocks;
    let (span, why) = found?;
    if let Some(why) = why {
        eprintln!("meeting: {} {why}", f.name.name);
    }
    Some(span)
}

#[allow(clippy::too_many_arguments)]
fn lower_body_in(
    module: &ast::Module,
    f: &ast::Function,
    globals: &[(String, GlobalPlace)],
    functions: &call::Functions,
    options: &LowerOptions,
    scheduler: bool,
    meet_checks: bool,
    exchange_in_scratch: bool,
    broadcast: Vec<ast::Span>,
) -> LResult<Body> {
    let block = options.block.or_else(|| reqntid(f)).unwrap_or_else(|| default_block(f));
    check_block_directives(f, block)?;
    if block.contains(&0) || block.iter().map(|&b| b as u64).product::<u64>() > MAX_BLOCK_THREADS {
        return Err(Diagnostic::new(
            format!("block shape {block:?} is invalid (each dimension ≥ 1, at most {MAX_BLOCK_THREADS} threads)"),
            f.name.span,
        ));
    }
    let body = f.body.as_deref().unwrap_or(&[]);
    let mut fl = FnLower::new(module.address_size.unwrap_or(32), block);
    fl.native_fma = options.native_fma;
    fl.native_fma_guarded = options.native_fma_guarded;
    fl.no_float64 = options.split_int64 || options.no_float64;
    fl.split_int64 = options.split_int64;
    fl.outline = !options.no_outline;
    fl.flushed_f32 = options.flushed_f32;
    fl.legacy = crate::inst::legacy::Legacy::of(module);
    // A scheduler kernel's collectives are points of its scheduler (their lanes run in
    // different rounds, so a subgroup operation would not see them together): emulated.
    fl.native_warps = options.native_warps && !scheduler;
    fl.scheduler = scheduler;
    fl.meet_checks = meet_checks && !scheduler;
    fl.uniform_shared_loads = !scheduler && has_waiting_collectives(module);
    fl.warp_loads.record = fl.uniform_shared_loads && !fl.meet_checks && broadcast.is_empty();
    fl.warp_loads.broadcast = broadcast;
    fl.exchange_in_scratch = exchange_in_scratch;

    // Parameters.
    let (params, param_bytes) = layout::layout_params(&f.params)?;
    if options.segment_slots >= 2 {
        if options.segment_slots > abi::MAX_SEGMENT_SLOTS {
            return Err(Diagnostic::new(
                format!("{} heap segment slots asked for; at most {}", options.segment_slots, abi::MAX_SEGMENT_SLOTS),
                f.name.span,
            ));
        }
        if module.address_size.unwrap_or(32) != 64 {
            return Err(crate::function::unsupported(
                "several heap segments in one launch of an `.address_size 32` kernel (its addresses are offsets in one segment)",
                f.name.span,
            ));
        }
        fl.segment_slots = options.segment_slots;
        fl.param_bytes = param_bytes;
    }
    for (p, slot) in f.params.iter().zip(&params) {
        fl.declare(
            p.name.name.to_string(),
            Symbol::Param { offset: abi::PARAM_HEADER_WORDS * 4 + slot.offset },
        );
    }
    // The `.const` variables' range in the globals segment, for `isspacep.const`.
    let constants = globals.iter().filter(|(_, p)| p.constant);
    let start = constants.clone().map(|(_, p)| p.offset).min();
    let end = constants.map(|(_, p)| p.offset + p.size).max();
    fl.const_window = start.zip(end).map(|(s, e)| (s, e - s));
    for (name, place) in globals {
        match place.declared_at {
            None => fl.declare(name.clone(), Symbol::Global { offset: place.offset }),
            Some(at) => {
                fl.body_globals.insert(at, place.offset);
            }
        }
    }

    // Shared memory: module-scope and kernel-scope declarations; static ones first, then the
    // dynamic (`.extern`, unsized) arrays, which all start where the static ones end.
    let mut shared_decls: Vec<&VarDecl> = module
        .items
        .iter()
        .filter_map(|i| match i {
            ast::Item::Var(d) if matches!(d.space, StateSpace::Shared | StateSpace::SharedCta) => Some(d),
            _ => None,
        })
        .collect();
    let mut local_decls = Vec::new();
    collect_decls(body, &mut shared_decls, &mut local_decls);
    let mut offsets: HashMap<u32, u32> = HashMap::new(); // name span start → byte offset
    let mut shared_end = 0u64;
    let mut dynamic: Vec<(&ast::VarName, u64)> = Vec::new();
    for d in &shared_decls {
        for n in &d.names {
            let (size, align) = layout::var_size_align(d, &n.array)?;
            match size {
                Some(size) => {
                    let off = align_up(shared_end, align);
                    offsets.insert(n.span.start, off as u32);
                    shared_end = off.saturating_add(size);
                }
                None => dynamic.push((n, align)),
            }
        }
    }
    let dyn_align = dynamic.iter().map(|&(_, a)| a).max().unwrap_or(1);
    let dyn_start = align_up(shared_end, dyn_align);
    for (n, _) in &dynamic {
        offsets.insert(n.span.start, dyn_start as u32);
    }
    let shared_total =
        if dynamic.is_empty() { shared_end } else { dyn_start.saturating_add(options.dynamic_shared_bytes as u64) }.max(shared_end);
    if shared_total > 48 * 1024 * 4 {
        return Err(Diagnostic::new(format!("kernel needs {shared_total} bytes of shared memory"), f.name.span));
    }
    // `.local` variables and call-site `.param` variables (local memory, see `call`).
    let (local_offsets, local_end) = call::layout_locals(&local_decls, 0)?;
    offsets.extend(local_offsets);
    fl.shared_bytes = shared_total as u32;
    // §10.32: the launch's dynamic shared memory, declared or not; §10.30: static + dynamic,
    // in the target's allocation unit (256 bytes on sm_3x–7x, 128 on sm_2x and sm_8x/9x; the
    // 8.5 spec's table ends at sm_9x, later targets taken as 128).
    let unit = match module.sm_version() {
        Some(30..=79) => 256,
        _ => 128,
    };
    let total = (shared_end + options.dynamic_shared_bytes as u64).div_ceil(unit) * unit;
    fl.smem_sizes = (options.dynamic_shared_bytes, total.min(u32::MAX as u64) as u32);
    fl.cluster_directive = f
        .directives
        .iter()
        .find(|d| matches!(d.name.as_str(), "reqnctapercluster" | "explicitcluster" | "maxclusterrank"))
        .map(|d| d.name.to_string());
    fl.local_bytes = local_end as u32;
    fl.local_cursor = local_end as u32;
    fl.frame_bytes = local_end as u32;
    fl.has_shared = shared_total > 0;
    fl.has_local = local_end > 0;
    fl.has_param_window = functions.module_uses_cvta_param;
    for d in shared_decls.iter().filter(|d| module.items.iter().any(|i| matches!(i, ast::Item::Var(v) if std::ptr::eq(v, **d)))) {
        for n in &d.names {
            fl.declare(n.name.name.to_string(), Symbol::Shared { offset: offsets[&n.span.start] });
        }
    }

    let mut calls = call::Calls::new(functions, &mut fl, options.inline_budget.unwrap_or(call::INLINE_BUDGET));

    // Labels may be targets before they appear.
    collect_labels(body, &mut fl);
    // Device function bodies too: they are lowered into this kernel with its `read_regs`.
    let mut bodies = vec![body];
    bodies.extend(functions.defs.iter().filter_map(|d| d.body.as_deref()));
    let formals = functions.defs.iter().flat_map(|d| d.returns.iter().chain(&d.params)).map(|p| p.name.name.as_str());
    crate::inst::collect_read_regs(&bodies, formals, &mut fl.read_regs);

    fl.scopes.push(Scope::default());
    lower_statements(body, &mut fl, &offsets, &mut calls)?;
    fl.local_bytes = calls.finish(&mut fl)?;
    if fl.local_bytes > 64 * 1024 {
        return Err(unsupported(format!("{} bytes of local memory per thread (at most 64 KiB)", fl.local_bytes), f.name.span));
    }
    Ok((fl, block, params, param_bytes))
}

#[allow(clippy::too_many_arguments)]
fn finish_kernel(
    file: &ptxcross_frontend::SourceFile,
    module: &ast::Module,
    f: &ast::Function,
    mut fl: FnLower,
    block: [u32; 3],
    params: Vec<ir::ParamSlot>,
    param_bytes: u32,
    options: &LowerOptions,
) -> LResult<(ir::Kernel, bool)> {
    let (shared_bytes, local_bytes) = (fl.shared_bytes, fl.local_bytes);
    let (shared_exchange, exchange_words) = (fl.shared_exchange(), fl.scratch_exchange_words());
    let fault_site_var = fl.fault_site_var;
    let mut fault_sites = fault_site::resolve(std::mem::take(&mut fl.fault_sites), file);
    // The instruction the host names when it refuses the kernel on a device that flushes f32
    // subnormals (listed after the sites of faults; no fault names it).
    let subnormal_site = fl.f32_subnormal_site.take().filter(|_| fl.subnormals.f32).map(|(instruction, span)| {
        let (line, col) = file.line_col(span.start);
        fault_sites.push(ir::FaultSite { line, col, instruction });
        fault_sites.len() as u32
    });
    let mut site_of = |span: ptxcross_frontend::ast::Span| {
        let (line, col) = file.line_col(span.start);
        let text = file.text.get(span.start as usize..span.end as usize).unwrap_or("");
        fault_sites.push(ir::FaultSite { line, col, instruction: text.split_whitespace().find(|w| !w.starts_with('@')).unwrap_or("").to_string() });
        fault_sites.len() as u32
    };
    let fence_site = fl.fence_site.take().map(&mut site_of);
    let wide_lock_site = fl.wide_lock_site.take().map(&mut site_of);
    let float64_site = fl.float64_site.take().map(&mut site_of);
    let subnormals = fl.subnormals;
    let native_warps = fl.used_native_warps;
    let scheduled = fl.scheduler;
    let functions = std::mem::take(&mut fl.functions);
    let inst_vars = std::mem::take(&mut fl.inst_vars);
    let printf = std::mem::take(&mut fl.printf_formats);
    let (cfg, mut vars, barriers) = fl.into_cfg();
    let barrier_check = simt::check_barriers(&cfg, &vars, &barriers);
    let mut body = structurize::structurize(cfg, &mut vars)
        .map_err(|m| Diagnostic::new(format!("kernel `{}`: {m}", f.name.name), f.name.span))?;
    let mut shared_words = shared_bytes.div_ceil(4);
    // A barrier inside an instruction's own `if` (a predicated warp collective) is invisible
    // to the CFG check: the structured body is checked too.
    let barrier_check = barrier_check.and_then(|()| simt::check_structured(&body, vars.len(), f.name.span));
    if let (Err(refusal), true) = (&barrier_check, scheduled) {
        // The scheduler's barriers sit in its loop's uniform body unless the kernel's CFG
        // keeps some thread from reaching them (a loop without exit and without barrier).
        return Err(refusal.clone());
    }
    if let Err(refusal) = barrier_check {
        // Some thread could skip a barrier: make every barrier uniform, or refuse.
        body = simt::uniformize(&body, &mut vars, &mut shared_words).map_err(|()| refusal)?;
    }
    let depth = body.nesting().total;
    if depth > MAX_CONTROL_DEPTH {
        // The passes after this point and both emitters walk the tree recursively.
        return Err(unsupported(
            format!("control flow that nests {depth} levels deep once structured (at most {MAX_CONTROL_DEPTH})"),
            f.name.span,
        ));
    }
    // After `simt` (its scratch words are shared memory too), before `loop_exits` (the
    // pass's CAS loops have values read after them).
    crate::shared64::widen_shared(&mut body, &mut vars, shared_words);
    loop_exits::guard_loop_exits(&mut body, &mut vars);
    let mut kernel = ir::Kernel {
        name: f.name.name.to_string(),
        entry_point: String::new(),
        workgroup_size: block,
        vars,
        body,
        shared_words,
        local_words: local_bytes.div_ceil(4),
        local_placement: ir::LocalPlacement::Private,
        fault_site_var,
        fault_sites,
        params,
        param_bytes,
        features: ir::Features::default(),
        functions,
        printf,
    };
    grid::resolve_grid_builtins(&mut kernel);
    let loops = loop_cut::needs_check(&kernel);
    if options.detect_cut_loops {
        loop_cut::check_cut_loops(&mut kernel);
    }
    let simulated = native_warps && options.simulate_native_warps;
    if simulated {
        // Before the shared-memory prologue, which then zeroes the scratch too.
        warp_layout::simulate(&mut kernel);
    }
    isolation::zero_shared_memory(&mut kernel);
    if native_warps && !simulated {
        // First of all (ahead of the shared-memory prologue): the subgroup layout check.
        warp_layout::check_layout(&mut kernel);
    }
    let simulated_check = if simulated { options.simulate_warp_layout } else { None };
    if let Some(pass_below) = simulated_check {
        warp_layout::simulate_layout_check(&mut kernel, pass_below);
    }
    if native_warps && kernel.shared_dwords() {
        // The check's (or the simulation's) shared words, added after `shared64` ran, join the
        // doubleword layout too (the accesses it rewrote before are doublewords already).
        crate::shared64::widen_shared(&mut kernel.body, &mut kernel.vars, kernel.shared_words);
    }
    // After every pass that adds shared words or accesses (the prologue's included): shared
    // memory larger than the device's workgroup memory goes to the scratch buffer.
    let shared_in_scratch = local_scratch::shared_in_scratch(&kernel, options.max_shared_bytes)
        .map_err(|m| unsupported(format!("kernel `{}`: {m}", f.name.name), f.name.span))?;
    // After `grid`: the scratch slot uses the raw (per-dispatch) workgroup id.
    local_scratch::place_local_memory(
        &mut kernel,
        options.local_scratch_bytes.unwrap_or(local_scratch::DEFAULT_LOCAL_SCRATCH_BYTES),
        exchange_words,
        shared_in_scratch,
    );
    if options.split_int64 {
        int64::split_int64(&mut kernel).map_err(|(what, var)| {
            // The instruction whose lowering made the variable (a temporary of one instruction;
            // a register or a later pass's variable names no instruction: the kernel then).
            // Instructions nest (an inlined call's body), so the innermost range holding it.
            let site = var
                .and_then(|v| inst_vars.iter().filter(|&&(first, end, _)| (first..end).contains(&v.0)).min_by_key(|&&(first, end, _)| end - first))
                .map_or(f.name.span, |&(_, _, span)| span);
            unsupported(format!("{what}, on a target without 64-bit integers (kernel `{}`)", f.name.name), site)
        })?;
        // Functions too (their parameters and results are never 64-bit there: `FnLower::outlined`).
        let mut split = Ok(());
        crate::outline::for_each_function(&mut kernel, |k| split = split.clone().and(int64::split_int64(k).map_err(|(what, _)| what)));
        split.map_err(|what| unsupported(format!("{what}, on a target without 64-bit integers (kernel `{}`)", f.name.name), f.name.span))?;
    }
    // Last: no pass after it adds heap accesses or barriers.
    // Shared memory in the scratch buffer is reached by the CTA's other threads too.
    crate::barriers::narrow_barriers(&mut kernel, exchange_words > 0 || shared_in_scratch);
    // A function called once goes back inline (before `cleanup`, which folds its copies).
    crate::outline::inline_single_calls(&mut kernel);
    // After every pass that adds code: copies, identities and dead temporaries go.
    let values = crate::cleanup::simplify(&mut kernel);
    crate::outline::drop_uncalled(&mut kernel);
    // After it: the constants it propagated are where the drivers see them. (The values
    // `cleanup` computed last, where the body has not changed since: `drop_uncalled` only
    // renumbers calls.)
    let values = values.unwrap_or_else(|| kernel.value_vars());
    crate::misread_constants::hide_misread_constants_given(&mut kernel, &values);
    crate::misread_constants::hide_signaling_nans(&mut kernel);
    crate::narrowed_shifts::hide_narrowed_shifts(&mut kernel);
    crate::outline::for_each_function(&mut kernel, crate::misread_constants::hide_misread_constants);
    // After every pass that adds or removes faults: site assignments nothing reads go.
    fault_site::remove_dead_sites(&mut kernel);
    if options.simulate_flushed_f32 {
        // Last: every f32 operation the other passes emitted acts as on a flushing device.
        crate::flush_sim::simulate_flushed_f32(&mut kernel);
        crate::outline::for_each_function(&mut kernel, crate::flush_sim::simulate_flushed_f32);
    } else if options.simulate_flushed_fma {
        crate::flush_sim::simulate_flushed_fma(&mut kernel);
        crate::outline::for_each_function(&mut kernel, crate::flush_sim::simulate_flushed_fma);
    }
    let scratch_shared_words = kernel.features.scratch_shared_words;
    kernel.features = features::compute(&kernel);
    kernel.features.scratch_shared_words = scratch_shared_words;
    kernel.features.f32_subnormals = subnormals.f32;
    kernel.features.f32_subnormals_site = subnormal_site;
    kernel.features.fence_site = fence_site;
    kernel.features.wide_lock_site = wide_lock_site;
    kernel.features.float64_site = float64_site.filter(|_| kernel.features.float64);
    kernel.features.flushed_f32 = options.flushed_f32;
    kernel.features.fences_as_sink_atomics = options.fences_as_sink_atomics;
    kernel.features.loops = loops;
    kernel.features.loops_checked = options.detect_cut_loops;
    kernel.features.f64_subnormals = subnormals.f64;
    kernel.features.pointers32 = module.address_size.unwrap_or(32) != 64;
    kernel.features.native_warps = native_warps && (!simulated || simulated_check.is_some());
    kernel.features.segment_slots = if options.segment_slots >= 2 { options.segment_slots } else { 0 };
    kernel.features.scratch_exchange_words = exchange_words;
    Ok((kernel, shared_exchange))
}

/// A block shape the kernel's `.reqntid` or `.maxntid` rules out is an error, as the launch
/// fails on NVIDIA GPUs (PTX ISA §11.4.3: "Specifying a different CTA dimension at launch
/// will result in a runtime error or kernel launch failure"; §11.4.2: exceeding the maximum
/// number of threads, the product of `.maxntid`'s extents, likewise). Running it instead
/// gave `%ntid` the launch's shape, which a kernel written for the required one (shared
/// arrays sized by it, Triton's warp count) reads as wrong results.
fn check_block_directives(f: &ast::Function, block: [u32; 3]) -> LResult<()> {
    if let Some(req) = reqntid(f) {
        if req != block {
            let span = f.directives.iter().find(|d| d.name == "reqntid").map_or(f.name.span, |d| d.span);
            return Err(Diagnostic::new(
                format!(
                    "kernel `{}` requires a block of {req:?} threads (.reqntid), not {block:?}: a launch with another block shape fails (PTX ISA §11.4.3)",
                    f.name.name
                ),
                span,
            ));
        }
    }
    if let Some((max, d)) = maxntid(f) {
        let threads: u64 = block.iter().map(|&b| b as u64).product();
        if threads > max {
            return Err(Diagnostic::new(
                format!(
                    "kernel `{}` allows at most {max} threads per block (.maxntid), not {threads} ({block:?}): such a launch fails (PTX ISA §11.4.2)",
                    f.name.name
                ),
                d.span,
            ));
        }
    }
    Ok(())
}

/// The product of `.maxntid`'s extents (PTX ISA §11.4.2), if the kernel has one.
fn maxntid(f: &ast::Function) -> Option<(u64, &ast::Directive)> {
    let d = f.directives.iter().find(|d| d.name == "maxntid")?;
    let max = d.args.iter().take(3).map(|a| if let ast::DirectiveArg::Int(v) = a { (*v).max(0) as u64 } else { 1 }).product();
    Some((max, d))
}

/// The block shape of a kernel translated without one and without `.reqntid`:
/// [`DEFAULT_BLOCK`], or `.maxntid`'s total where that is smaller.
fn default_block(f: &ast::Function) -> [u32; 3] {
    let default: u64 = DEFAULT_BLOCK.iter().map(|&b| b as u64).product();
    match maxntid(f) {
        Some((max, _)) if (1..default).contains(&max) => [max as u32, 1, 1],
        _ => DEFAULT_BLOCK,
    }
}

fn reqntid(f: &ast::Function) -> Option<[u32; 3]> {
    let d = f.directives.iter().find(|d| d.name == "reqntid")?;
    let mut dims = [1u32; 3];
    for (i, a) in d.args.iter().take(3).enumerate() {
        if let ast::DirectiveArg::Int(v) = a {
            dims[i] = u32::try_from(*v).ok()?;
        }
    }
    Some(dims)
}

/// Whether some function of `module` has a waiting warp collective: only then does the meeting
/// proof (`meeting`) read the uniform shared loads (`FnLower::reads_one_value_after_barrier`),
/// so other kernels do without their second barrier.
fn has_waiting_collectives(module: &ast::Module) -> bool {
    fn any(stmts: &[Statement]) -> bool {
        stmts.iter().any(|s| match s {
            Statement::Instruction(i) => {
                matches!(i.opcode.name.as_str(), "shfl" | "vote" | "match" | "redux" | "elect")
                    || matches!(i.opcode.name.as_str(), "bar" | "barrier") && i.modifiers.iter().any(|m| m.text == "warp")
            }
            Statement::Block(inner, _) => any(inner),
            _ => false,
        })
    }
    module.items.iter().any(|i| matches!(i, ast::Item::Function(f) if f.body.as_deref().is_some_and(any)))
}

/// A body's `.shared` declarations, and its local-memory ones (`.local`, and `.param`
/// variables of call sites).
pub(crate) fn collect_decls<'a>(stmts: &'a [Statement], shared: &mut Vec<&'a VarDecl>, local: &mut Vec<&'a VarDecl>) {
    for s in stmts {
        match s {
            Statement::Var(d) if matches!(d.space, StateSpace::Shared | StateSpace::SharedCta) => shared.push(d),
            Statement::Var(d) if matches!(d.space, StateSpace::Local | StateSpace::Param) => local.push(d),
            Statement::Block(inner, _) => collect_decls(inner, shared, local),
            _ => {}
        }
    }
}

pub(crate) fn collect_labels(stmts: &[Statement], fl: &mut FnLower) {
    for (i, s) in stmts.iter().enumerate() {
        match s {
            Statement::Label(l) => {
                fl.label_node(&l.name);
                // `ts: .branchtargets L1, L2, …;` names a label list for `brx.idx`.
                if let Some(Statement::Directive(d)) = stmts.get(i + 1) {
                    if d.name == "branchtargets" {
                        let names = d
                            .args
                            .iter()
                            .filter_map(|a| match a {
                                ast::DirectiveArg::Ident(n) => Some(n.clone()),
                                _ => None,
                            })
                            .collect();
                        fl.branch_targets.insert(l.name.to_string(), names);
                    }
                }
            }
            Statement::Block(inner, _) => collect_labels(inner, fl),
            _ => {}
        }
    }
}

pub(crate) fn lower_statements(
    stmts: &[Statement],
    fl: &mut FnLower,
    offsets: &HashMap<u32, u32>,
    calls: &mut call::Calls,
) -> LResult<()> {
    for s in stmts {
        match s {
            Statement::Label(l) => {
                let n = fl.label_node(&l.name);
                fl.terminate(crate::cfg::Terminator::Jump(n), n);
            }
            Statement::Var(d) => declare(d, fl, offsets)?,
            Statement::Instruction(i) if i.opcode.name == "call" => {
                // The callee may access memory (`warp_loads`).
                if fl.warp_loads.record {
                    fl.warp_loads.ordering_points.push((fl.cur, fl.inst_serial));
                }
                fl.with_fault_site(i, |fl| call::lower_call(i, fl, calls))?
            }
            Statement::Instruction(i) => fl.with_fault_site(i, |fl| fl.instruction(i))?,
            Statement::Block(inner, _) => {
                fl.scopes.push(Scope::default());
                let r = lower_statements(inner, fl, offsets, calls);
                fl.scopes.pop();
                r?
            }
            Statement::Directive(_) => {}
        }
    }
    Ok(())
}

fn declare(d: &VarDecl, fl: &mut FnLower, offsets: &HashMap<u32, u32>) -> LResult<()> {
    match d.space {
        StateSpace::Reg => {
            // A vector register is one register per element, named `%v.x` … (see
            // `function::vector_element_name`).
            let elements: &[&str] = match d.vector {
                None => &[""],
                Some(2) => &["x", "y"],
                Some(4) => &["x", "y", "z", "w"],
                Some(n) => return Err(unsupported(format!("vector registers of {n} elements"), d.span)),
            };
            // A `.b128` register is two U64 variables (see `inst::b128`); not in vectors (a
            // vector has at most 128 bits, §5.4.2).
            let b128 = d.ty == ScalarType::B128;
            if b128 && d.vector.is_some() {
                return Err(Diagnostic::new("vectors of .b128 registers exceed 128 bits (PTX ISA §5.4.2)", d.span));
            }
            let ty: Ty = if b128 {
                Ty::U64
            } else {
                value_ty(d.ty).ok_or_else(|| unsupported(format!("registers of type .{}", d.ty.suffix()), d.span))?
            };
            for n in &d.names {
                if !n.array.is_empty() {
                    return Err(unsupported("register arrays", n.span));
                }
                let add = |name: ast::Name, fl: &mut FnLower| {
                    for e in elements {
                        let name: ast::Name = if e.is_empty() { name.clone() } else { crate::function::vector_element_name(&name, e).into() };
                        let var = fl.new_var(ty, &name);
                        if b128 {
                            let high = crate::inst::b128::high_half_name(&name);
                            let hi = fl.new_var(ty, &high);
                            fl.declare(high, Symbol::Reg { var: hi, ty: d.ty });
                        }
                        fl.declare(name, Symbol::Reg { var, ty: d.ty });
                    }
                };
                match n.range {
                    Some(count) if count > MAX_REGISTER_RANGE => {
                        return Err(unsupported(
                            format!("a register range of {count} registers (at most {MAX_REGISTER_RANGE})"),
                            n.span,
                        ));
                    }
                    Some(count) => {
                        for i in 0..count {
                            // Written into an inline name: no heap string per register.
                            let mut name = n.name.name.clone();
                            let _ = std::fmt::Write::write_fmt(&mut name, format_args!("{i}"));
                            add(name, fl);
                        }
                    }
                    None => add(n.name.name.clone(), fl),
                }
            }
            Ok(())
        }
        StateSpace::Shared | StateSpace::SharedCta => {
            for n in &d.names {
                fl.declare(n.name.name.to_string(), Symbol::Shared { offset: offsets[&n.span.start] });
            }
            Ok(())
        }
        StateSpace::Local | StateSpace::Param => {
            let call_site = d.space == StateSpace::Param;
            for n in &d.names {
                fl.declare(n.name.name.to_string(), Symbol::Local { offset: offsets[&n.span.start], call_site });
            }
            Ok(())
        }
        // Static storage in the globals segment (see `layout::layout_globals`), visible in
        // this scope.
        StateSpace::Global | StateSpace::Const => {
            for n in &d.names {
                let offset = fl.body_globals.get(&n.span.start).copied().ok_or_else(|| {
                    Diagnostic::new(format!("`{}` has no place in the globals segment", n.name.name), n.span)
                })?;
                fl.declare(n.name.name.to_string(), Symbol::Global { offset });
            }
            Ok(())
        }
        other => Err(unsupported(format!("{other:?} variables inside a kernel"), d.span)),
    }
}

/// An identifier valid as a SPIR-V entry point and WGSL function name: `k_` + the PTX name
/// with every character outside `[A-Za-z0-9_]` replaced by `_`. The prefix keeps clear of every
/// WGSL keyword, reserved word and predeclared identifier (`transpose`, `min`, `f32` …), of
/// identifiers WGSL reserves (`__…`), and of the backends' own helper names, whatever the PTX
/// name is.
pub fn entry_point_name(ptx_name: &str) -> String {
    let s: String = ptx_name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    format!("k_{s}")
}
