//! Linking several PTX modules into one, as `nvlink` / `cuLinkComplete` do for PTX inputs
//! (`nvcc -rdc=true`, numba's `link=`, `cuLinkAddData` with several PTX images).
//!
//! PTX linkage (ISA 8.5 §5.4.7 "Linking Directives"): a module-scope symbol without a linking
//! directive is local to its module; `.visible` and `.weak` / `.common` definitions are seen by
//! every module; `.extern` declares a symbol defined elsewhere. So linking here:
//! - keeps every module's items, in input order, in one module;
//! - renames a local symbol that another module also names (`name` → `name$link<i>`), inside
//!   its own module only, so two modules' private helpers or string constants never merge;
//! - picks one definition per global name: the strong one (two strong definitions are an error
//!   naming both places), else the first `.weak`/`.common` one; later weak ones are dropped;
//! - drops `.extern` variable declarations that a definition satisfies (a function
//!   declaration stays: it is a prototype, and `lower` binds calls by name);
//! - leaves unresolved `.extern` declarations alone, so a module that names an undefined symbol
//!   gets the same diagnostic from `lower` whether it was linked or loaded alone (NVIDIA's linker,
//!   too, only complains about references it must resolve).
//!
//! The result's spans point into the inputs, so it is printed ([`crate::print`]) and parsed
//! again before it is lowered: [`link_sources`] does that.

use std::collections::{HashMap, HashSet};

use crate::ast::{self, Expr, Function, Initializer, Item, Linkage, Module, Name, Operand, OperandKind, Span, Statement};
use crate::source::{Diagnostic, SourceFile};

/// A problem found while linking: the input it is in, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkError {
    pub input: usize,
    pub diagnostic: Diagnostic,
}

impl LinkError {
    fn new(input: usize, message: impl Into<String>, span: Span) -> LinkError {
        LinkError { input, diagnostic: Diagnostic::new(message, span) }
    }
}

/// Parses every file, links the modules and returns the linked PTX text. Errors (syntax errors
/// of an input, or link errors) come rendered with the input's `file:line:col`.
pub fn link_sources(files: &[SourceFile]) -> Result<String, Vec<String>> {
    let mut modules = Vec::with_capacity(files.len());
    let mut errors = Vec::new();
    for file in files {
        match crate::parse(file) {
            Ok(m) => modules.push(m),
            Err(ds) => errors.extend(ds.iter().map(|d| d.render(file))),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    link(modules).map(|m| crate::print(&m)).map_err(|es| es.iter().map(|e| e.diagnostic.render(&files[e.input])).collect())
}

/// What a module-scope item declares, for linking.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Binding {
    /// No linking directive: private to its module.
    Local,
    /// `.visible` definition, or an `.entry` (kernels are found by name).
    Strong,
    /// `.weak` or `.common` definition.
    Weak,
    /// `.extern` declaration.
    Extern,
}

fn binding(linkage: &[Linkage], is_entry: bool) -> Binding {
    if linkage.contains(&Linkage::Extern) {
        Binding::Extern
    } else if linkage.contains(&Linkage::Weak) || linkage.contains(&Linkage::Common) {
        Binding::Weak
    } else if linkage.contains(&Linkage::Visible) || is_entry {
        Binding::Strong
    } else {
        Binding::Local
    }
}

/// One module-scope symbol occurrence.
struct Symbol {
    name: Name,
    binding: Binding,
    /// A definition (a function with a body, or a variable), not a prototype.
    defines: bool,
    is_function: bool,
    span: Span,
}

fn symbols(m: &Module) -> Vec<Symbol> {
    let mut out = Vec::new();
    for item in &m.items {
        match item {
            Item::Function(f) => out.push(Symbol {
                name: f.name.name.clone(),
                binding: binding(&f.linkage, f.kind == ast::FunctionKind::Entry),
                defines: f.body.is_some(),
                is_function: true,
                span: f.name.span,
            }),
            Item::Var(v) => {
                for n in &v.names {
                    out.push(Symbol {
                        name: n.name.name.clone(),
                        binding: binding(&v.linkage, false),
                        defines: !v.linkage.contains(&Linkage::Extern),
                        is_function: false,
                        span: n.name.span,
                    })
                }
            }
            Item::Directive(_) => {}
        }
    }
    out
}

/// `.extern .shared .b8 smem[];`: the kernel's dynamic shared memory, not a linked symbol.
fn is_dynamic_shared(v: &ast::VarDecl) -> bool {
    v.space == ast::StateSpace::Shared && v.linkage.contains(&Linkage::Extern)
}

/// Links parsed modules (see the module documentation for the rules).
pub fn link(modules: Vec<Module>) -> Result<Module, Vec<LinkError>> {
    let mut errors = Vec::new();
    if modules.is_empty() {
        return Err(vec![LinkError::new(0, "nothing to link: no PTX input", Span::new(0, 0))]);
    }
    // §11.1.3: without `.address_size` the module is 32-bit.
    let sizes: Vec<u32> = modules.iter().map(|m| m.address_size.unwrap_or(32)).collect();
    if let Some(i) = sizes.iter().position(|&s| s != sizes[0]) {
        errors.push(LinkError::new(
            i,
            format!("cannot link a {}-bit module with a {}-bit one (`.address_size` differs from the first input's)", sizes[i], sizes[0]),
            Span::new(0, 0),
        ));
        return Err(errors);
    }

    // Choose one definition per global name, and find duplicate strong definitions.
    let syms: Vec<Vec<Symbol>> = modules.iter().map(symbols).collect();
    let mut chosen: HashMap<Name, (usize, Binding, Span, bool)> = HashMap::new();
    for (i, ss) in syms.iter().enumerate() {
        for s in ss.iter().filter(|s| s.defines && matches!(s.binding, Binding::Strong | Binding::Weak)) {
            match chosen.get(&s.name) {
                None => {
                    chosen.insert(s.name.clone(), (i, s.binding, s.span, s.is_function));
                }
                Some(&(j, Binding::Strong, span, _)) if s.binding == Binding::Strong => {
                    if i == j {
                        continue; // A duplicate within one module is `lower`'s to report.
                    }
                    errors.push(LinkError::new(i, format!("`{}` is defined in two inputs", s.name), s.span));
                    errors.push(LinkError::new(j, format!("`{}`: the other definition is here", s.name), span));
                }
                Some(&(_, Binding::Weak, _, _)) if s.binding == Binding::Strong => {
                    chosen.insert(s.name.clone(), (i, s.binding, s.span, s.is_function));
                }
                Some(_) => {}
            }
        }
    }
    // An `.extern` function declaration must agree with the definition it binds to, or the
    // call would pass the wrong parameters.
    let signature = |m: &Module, name: &str| {
        m.items.iter().find_map(|it| match it {
            Item::Function(f) if f.name.name == name && f.body.is_some() => Some(signature_of(f)),
            _ => None,
        })
    };
    for (i, m) in modules.iter().enumerate() {
        for it in &m.items {
            let Item::Function(f) = it else { continue };
            if f.body.is_some() || !f.linkage.contains(&Linkage::Extern) {
                continue;
            }
            let Some(&(j, ..)) = chosen.get(&f.name.name) else { continue };
            if let Some(def) = signature(&modules[j], &f.name.name) {
                if def != signature_of(f) {
                    errors.push(LinkError::new(
                        i,
                        format!(
                            "`{}` is declared here with parameters {}, but defined in input {} with {}",
                            f.name.name,
                            signature_of(f),
                            j + 1,
                            def
                        ),
                        f.name.span,
                    ));
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    // Global names are reserved; a local name that is taken already is renamed.
    let mut taken: HashSet<Name> = syms.iter().flatten().filter(|s| s.binding != Binding::Local).map(|s| s.name.clone()).collect();
    let mut version = None;
    let mut best_target: Option<(u32, String)> = None;
    let mut flags: Vec<String> = Vec::new();
    let mut items = Vec::new();
    let mut dynamic_shared: HashSet<Name> = HashSet::new();
    for (i, mut m) in modules.into_iter().enumerate() {
        version = version.max(m.version);
        for t in &m.target {
            match ast::sm_number(t) {
                Some(n) if best_target.as_ref().is_none_or(|(b, _)| n > *b) => best_target = Some((n, t.clone())),
                Some(_) => {}
                None if !flags.contains(t) => flags.push(t.clone()),
                None => {}
            }
        }
        let mut renames: HashMap<Name, Name> = HashMap::new();
        for s in syms[i].iter().filter(|s| s.binding == Binding::Local) {
            if renames.contains_key(&s.name) {
                continue;
            }
            if taken.contains(&s.name) {
                let mut k = 0;
                let fresh = loop {
                    let candidate = Name::from(format!("{}$link{}{}", s.name, i + 1, if k == 0 { String::new() } else { format!("_{k}") }));
                    if !taken.contains(&candidate) {
                        break candidate;
                    }
                    k += 1;
                };
                taken.insert(fresh.clone());
                renames.insert(s.name.clone(), fresh);
            }
        }
        // Local names seen in this module are now taken for the modules after it.
        taken.extend(syms[i].iter().filter(|s| s.binding == Binding::Local).map(|s| s.name.clone()));
        if !renames.is_empty() {
            rename_module(&mut m, &renames);
        }
        for item in m.items {
            let keep = match &item {
                // DWARF: the file table and debug sections of later inputs would clash with the
                // first's (`.file 1 …` twice); ptxcross does not read them.
                Item::Directive(d) => i == 0 || (d.name != "file" && d.name != "section"),
                // Every module's `.extern .shared` array is the same dynamic shared memory: one
                // declaration per name is enough.
                Item::Var(v) if is_dynamic_shared(v) => v.names.iter().any(|n| dynamic_shared.insert(n.name.name.clone())),
                // A declaration that a definition somewhere satisfies goes.
                Item::Var(v) if v.linkage.contains(&Linkage::Extern) => !v.names.iter().all(|n| chosen.contains_key(&n.name.name)),
                // Of weak definitions, only the chosen one stays.
                Item::Var(v) if binding(&v.linkage, false) == Binding::Weak => {
                    v.names.iter().any(|n| chosen.get(&n.name.name).is_some_and(|c| c.0 == i && c.2 == n.name.span))
                }
                Item::Function(f) if f.body.is_some() && binding(&f.linkage, false) == Binding::Weak => {
                    chosen.get(&f.name.name).is_none_or(|c| c.0 == i && c.2 == f.name.span)
                }
                _ => true,
            };
            if !keep {
                continue;
            }
            items.push(item);
        }
    }
    let mut target: Vec<String> = best_target.map(|(_, t)| t).into_iter().collect();
    target.extend(flags);
    Ok(Module { version, target, address_size: Some(sizes[0]), items })
}

/// A function's parameter and return types, for comparing a declaration with its definition.
fn signature_of(f: &Function) -> String {
    let list = |ps: &[ast::Param]| {
        ps.iter()
            .map(|p| {
                let dims: String = p.array.iter().map(|d| d.map(|n| format!("[{n}]")).unwrap_or_else(|| "[]".into())).collect();
                format!("{:?}{}{dims}", p.ty, p.vector.map(|v| format!("x{v}")).unwrap_or_default())
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("({}) -> ({})", list(&f.params), list(&f.returns))
}

/// Renames module-scope symbols of one module everywhere they are named, except where a
/// function declares a name of its own that shadows them.
fn rename_module(m: &mut Module, renames: &HashMap<Name, Name>) {
    for item in &mut m.items {
        match item {
            Item::Function(f) => {
                if let Some(new) = renames.get(&f.name.name) {
                    f.name.name = new.clone();
                }
                let Some(body) = &mut f.body else { continue };
                let mut own: HashSet<Name> = f.params.iter().chain(&f.returns).map(|p| p.name.name.clone()).collect();
                declared_names(body, &mut own);
                let local: HashMap<Name, Name> = renames.iter().filter(|(k, _)| !own.contains(*k)).map(|(k, v)| (k.clone(), v.clone())).collect();
                rename_statements(body, &local);
            }
            Item::Var(v) => {
                for n in &mut v.names {
                    if let Some(new) = renames.get(&n.name.name) {
                        n.name.name = new.clone();
                    }
                    if let Some(init) = &mut n.init {
                        rename_initializer(init, renames);
                    }
                }
            }
            Item::Directive(d) => rename_directive(d, renames),
        }
    }
}

/// Names a body declares (variables and labels), nested blocks included.
fn declared_names(stmts: &[Statement], out: &mut HashSet<Name>) {
    for s in stmts {
        match s {
            Statement::Label(l) => {
                out.insert(l.name.clone());
            }
            Statement::Var(v) => out.extend(v.names.iter().map(|n| n.name.name.clone())),
            Statement::Block(inner, _) => declared_names(inner, out),
            _ => {}
        }
    }
}

fn rename_statements(stmts: &mut [Statement], renames: &HashMap<Name, Name>) {
    for s in stmts {
        match s {
            Statement::Instruction(inst) => inst.operands.iter_mut().for_each(|o| rename_operand(o, renames)),
            Statement::Var(v) => {
                for n in &mut v.names {
                    if let Some(init) = &mut n.init {
                        rename_initializer(init, renames);
                    }
                }
            }
            Statement::Block(inner, _) => rename_statements(inner, renames),
            Statement::Directive(d) => rename_directive(d, renames),
            Statement::Label(_) => {}
        }
    }
}

fn rename_operand(o: &mut Operand, renames: &HashMap<Name, Name>) {
    match &mut o.kind {
        OperandKind::Symbol { name, .. } => {
            if let Some(new) = renames.get(name) {
                *name = new.clone();
            }
        }
        OperandKind::Expr(e) => rename_expr(e, renames),
        OperandKind::Address(v) | OperandKind::Vector(v) | OperandKind::List(v) => v.iter_mut().for_each(|o| rename_operand(o, renames)),
        OperandKind::Not(a) | OperandKind::Neg(a) | OperandKind::Qualified(a, _) => rename_operand(a, renames),
        OperandKind::Pair(a, b) | OperandKind::Index(a, b) => {
            rename_operand(a, renames);
            rename_operand(b, renames);
        }
        OperandKind::Sink => {}
    }
}

fn rename_expr(e: &mut Expr, renames: &HashMap<Name, Name>) {
    match e {
        Expr::Symbol { name, .. } => {
            if let Some(new) = renames.get(name) {
                *name = new.clone();
            }
        }
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => rename_expr(arg, renames),
        Expr::Binary { lhs, rhs, .. } => {
            rename_expr(lhs, renames);
            rename_expr(rhs, renames);
        }
        Expr::Conditional { cond, then, otherwise, .. } => {
            rename_expr(cond, renames);
            rename_expr(then, renames);
            rename_expr(otherwise, renames);
        }
        Expr::Call { args, .. } => args.iter_mut().for_each(|a| rename_expr(a, renames)),
        Expr::Int { .. } | Expr::F32Bits { .. } | Expr::F64Bits { .. } | Expr::Float { .. } => {}
    }
}

fn rename_initializer(init: &mut Initializer, renames: &HashMap<Name, Name>) {
    match init {
        Initializer::Expr(e) => rename_expr(e, renames),
        Initializer::List(items, _) => items.iter_mut().for_each(|i| rename_initializer(i, renames)),
    }
}

/// Directives that name symbols (`.alias a, b;`, `.calltargets f, g;`): their parsed
/// arguments and the raw text the printer writes back.
fn rename_directive(d: &mut ast::Directive, renames: &HashMap<Name, Name>) {
    let mut changed = false;
    for a in &mut d.args {
        if let ast::DirectiveArg::Ident(n) = a {
            if let Some(new) = renames.get(n.as_str()) {
                *n = new.to_string();
                changed = true;
            }
        }
    }
    if changed {
        d.raw = rename_in_text(&d.raw, renames);
    }
}

/// Replaces whole identifiers in a directive's text (PTX identifiers: letters, digits, `_`,
/// `$`, `%`; §4.3).
fn rename_in_text(text: &str, renames: &HashMap<Name, Name>) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '%';
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match renames.get(word.as_str()) {
            Some(new) => out.push_str(new),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if is_ident(c) {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}
