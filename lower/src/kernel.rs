//! One kernel: lay out its memories, lower its body into a CFG, check barriers, structurize.

use crate::abi;
use crate::function::{unsupported, FnLower, LResult, Symbol};
use crate::ir::{self, Ty};
use crate::layout::{self, align_up, GlobalPlace};
use crate::ptx_types::value_ty;
use crate::{features, simt, structurize, LowerOptions, DEFAULT_BLOCK};
use ptxcross_frontend::ast::{self, Statement, StateSpace, VarDecl};
use ptxcross_frontend::Diagnostic;
use std::collections::HashMap;

/// Largest CTA shape any target could run (CUDA's limit); the host checks the device's own.
const MAX_BLOCK_THREADS: u64 = 1024;

pub fn lower_kernel(
    module: &ast::Module,
    f: &ast::Function,
    globals: &[(String, GlobalPlace)],
    options: &LowerOptions,
) -> LResult<ir::Kernel> {
    let block = options.block.or_else(|| reqntid(f)).unwrap_or(DEFAULT_BLOCK);
    if block.contains(&0) || block.iter().map(|&b| b as u64).product::<u64>() > MAX_BLOCK_THREADS {
        return Err(Diagnostic::new(
            format!("block shape {block:?} is invalid (each dimension ≥ 1, at most {MAX_BLOCK_THREADS} threads)"),
            f.name.span,
        ));
    }
    let body = f.body.as_deref().unwrap_or(&[]);
    let mut fl = FnLower::new(module.address_size.unwrap_or(32), block);
    fl.native_fma = options.native_fma;

    // Parameters.
    let (params, param_bytes) = layout::layout_params(&f.params)?;
    for (p, slot) in f.params.iter().zip(&params) {
        fl.declare(
            p.name.name.to_string(),
            Symbol::Param { offset: abi::PARAM_HEADER_WORDS * 4 + slot.offset },
        );
    }
    for (name, place) in globals {
        fl.declare(name.clone(), Symbol::Global { offset: place.offset });
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
            let (size, align) = layout::var_size_align(d, &n.array);
            match size {
                Some(size) => {
                    let off = align_up(shared_end, align);
                    offsets.insert(n.span.start, off as u32);
                    shared_end = off + size;
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
        if dynamic.is_empty() { shared_end } else { dyn_start + options.dynamic_shared_bytes as u64 }.max(shared_end);
    if shared_total > 48 * 1024 * 4 {
        return Err(Diagnostic::new(format!("kernel needs {shared_total} bytes of shared memory"), f.name.span));
    }
    let mut local_end = 0u64;
    for d in &local_decls {
        for n in &d.names {
            let (size, align) = layout::var_size_align(d, &n.array);
            let size = size.ok_or_else(|| Diagnostic::new("local array without a size", n.span))?;
            let off = align_up(local_end, align);
            offsets.insert(n.span.start, off as u32);
            local_end = off + size;
        }
    }
    if local_end > 64 * 1024 {
        return Err(unsupported(format!("{local_end} bytes of local memory per thread (at most 64 KiB)"), f.name.span));
    }
    fl.shared_bytes = shared_total as u32;
    fl.local_bytes = local_end as u32;
    fl.has_shared = shared_total > 0;
    fl.has_local = local_end > 0;
    for d in shared_decls.iter().filter(|d| module.items.iter().any(|i| matches!(i, ast::Item::Var(v) if std::ptr::eq(v, **d)))) {
        for n in &d.names {
            fl.declare(n.name.name.to_string(), Symbol::Shared { offset: offsets[&n.span.start] });
        }
    }

    // Labels may be targets before they appear.
    collect_labels(body, &mut fl);
    crate::inst::collect_read_regs(body, &mut fl.read_regs);

    fl.scopes.push(HashMap::new());
    lower_statements(body, &mut fl, &offsets)?;

    let (shared_bytes, local_bytes) = (fl.shared_bytes, fl.local_bytes);
    let (cfg, mut vars, barriers) = fl.into_cfg();
    let barrier_check = simt::check_barriers(&cfg, &vars, &barriers);
    let mut body = structurize::structurize(cfg, &mut vars);
    let mut shared_words = shared_bytes.div_ceil(4);
    // A barrier inside an instruction's own `if` (a predicated warp collective) is invisible
    // to the CFG check: the structured body is checked too.
    let barrier_check = barrier_check.and_then(|()| simt::check_structured(&body, vars.len(), f.name.span));
    if let Err(refusal) = barrier_check {
        // Some thread could skip a barrier: make every barrier uniform, or refuse.
        body = simt::uniformize(&body, &mut vars, &mut shared_words).map_err(|()| refusal)?;
    }
    let mut kernel = ir::Kernel {
        name: f.name.name.to_string(),
        entry_point: String::new(),
        workgroup_size: block,
        vars,
        body,
        shared_words,
        local_words: local_bytes.div_ceil(4),
        params,
        param_bytes,
        features: ir::Features::default(),
    };
    kernel.features = features::compute(&kernel);
    Ok(kernel)
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

fn collect_decls<'a>(stmts: &'a [Statement], shared: &mut Vec<&'a VarDecl>, local: &mut Vec<&'a VarDecl>) {
    for s in stmts {
        match s {
            Statement::Var(d) if matches!(d.space, StateSpace::Shared | StateSpace::SharedCta) => shared.push(d),
            Statement::Var(d) if d.space == StateSpace::Local => local.push(d),
            Statement::Block(inner, _) => collect_decls(inner, shared, local),
            _ => {}
        }
    }
}

fn collect_labels(stmts: &[Statement], fl: &mut FnLower) {
    for s in stmts {
        match s {
            Statement::Label(l) => {
                fl.label_node(&l.name);
            }
            Statement::Block(inner, _) => collect_labels(inner, fl),
            _ => {}
        }
    }
}

fn lower_statements(stmts: &[Statement], fl: &mut FnLower, offsets: &HashMap<u32, u32>) -> LResult<()> {
    for s in stmts {
        match s {
            Statement::Label(l) => {
                let n = fl.label_node(&l.name);
                fl.terminate(crate::cfg::Terminator::Jump(n), n);
            }
            Statement::Var(d) => declare(d, fl, offsets)?,
            Statement::Instruction(i) => fl.instruction(i)?,
            Statement::Block(inner, _) => {
                fl.scopes.push(HashMap::new());
                let r = lower_statements(inner, fl, offsets);
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
            if d.vector.is_some() {
                return Err(unsupported("vector registers (`.reg .v2 …`)", d.span));
            }
            let ty: Ty = value_ty(d.ty).ok_or_else(|| unsupported(format!("registers of type .{}", d.ty.suffix()), d.span))?;
            for n in &d.names {
                if !n.array.is_empty() {
                    return Err(unsupported("register arrays", n.span));
                }
                let add = |name: String, fl: &mut FnLower| {
                    let var = fl.new_var(ty, &name);
                    fl.declare(name, Symbol::Reg { var, ty: d.ty });
                };
                match n.range {
                    Some(count) => {
                        for i in 0..count {
                            add(format!("{}{}", n.name.name, i), fl);
                        }
                    }
                    None => add(n.name.name.to_string(), fl),
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
        StateSpace::Local => {
            for n in &d.names {
                fl.declare(n.name.name.to_string(), Symbol::Local { offset: offsets[&n.span.start] });
            }
            Ok(())
        }
        StateSpace::Param => Err(unsupported("`.param` declarations in a kernel body (device function calls)", d.span)),
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
