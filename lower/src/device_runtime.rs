//! CUDA's device-side `malloc` and `free` (CUDA C++ Programming Guide, "Dynamic Global Memory
//! Allocation and Operations"), which nvcc declares `.extern .func` and calls.
//!
//! The allocator is CUDA C (`lower/runtime/malloc.cu`, compiled to `malloc.ptx` by
//! `lower/runtime/regen.sh`): a module that declares `malloc` or `free` without defining them
//! is lowered with that PTX appended to its text, so its calls bind to those definitions as to
//! any `.func` of the module, and the heap and its bitmaps are `.global` arrays of the module:
//! its globals segment, inside its context's memory, persisting across launches. Each module
//! has its own heap; `free` of another module's pointer does nothing.
//!
//! Appending text (rather than merging parsed items) keeps every span of the user's module
//! as it was, so its diagnostics and fault sites read as without the runtime; a diagnostic
//! inside the runtime's part (none is expected) is moved to the user's declaration.

use ptxcross_frontend::{ast, Diagnostic, SourceFile};

/// The allocator's PTX (nvcc 13.5 output, committed).
const RUNTIME_PTX: &str = include_str!("../runtime/malloc.ptx");

/// Heap bytes each module that uses `malloc` gets: CUDA's default `cudaLimitMallocHeapSize`
/// (`HEAP_BYTES` of `malloc.cu`).
pub const HEAP_BYTES: u64 = 8 << 20;

/// Names the runtime defines.
const FUNCTIONS: [&str; 2] = ["malloc", "free"];

/// A module with the runtime appended.
pub struct Attached {
    pub module: ast::Module,
    pub file: SourceFile,
    /// Bytes of the user's text: spans at or past it are the runtime's.
    user_bytes: u32,
    /// The user's first declaration of `malloc`/`free`, where the runtime's diagnostics go.
    declaration: ast::Span,
}

/// The first `.extern` declaration of `malloc`/`free` without a definition of either in the
/// module (a module that defines its own keeps it).
fn runtime_declaration(module: &ast::Module) -> Option<ast::Span> {
    let functions = module.items.iter().filter_map(|i| match i {
        ast::Item::Function(f) if FUNCTIONS.contains(&f.name.name.as_str()) => Some(f),
        _ => None,
    });
    let mut declaration = None;
    for f in functions {
        if f.body.is_some() {
            return None;
        }
        declaration.get_or_insert(f.name.span);
    }
    declaration
}

/// The runtime's items without its module header (`.version`, `.target`, `.address_size`: the
/// user's module has its own).
fn runtime_body() -> String {
    let header = [".version", ".target", ".address_size"];
    RUNTIME_PTX.lines().filter(|l| !header.iter().any(|h| l.trim_start().starts_with(h))).fold(String::new(), |mut s, l| {
        s.push_str(l);
        s.push('\n');
        s
    })
}

/// `module` with the allocator appended when it declares `malloc`/`free` without defining
/// them; `None` when it needs no runtime.
pub fn attach(module: &ast::Module, file: &SourceFile) -> Result<Option<Attached>, Vec<Diagnostic>> {
    let Some(declaration) = runtime_declaration(module) else {
        return Ok(None);
    };
    if module.address_size.unwrap_or(32) != 64 {
        return Err(vec![crate::function::unsupported(
            "device-side `malloc`/`free` in a `.address_size 32` module (the allocator is 64-bit PTX)",
            declaration,
        )]);
    }
    let user_bytes = file.text.len() as u32;
    let text = format!("{}\n// ptxcross device runtime: malloc/free (lower/runtime/malloc.cu)\n{}", file.text, runtime_body());
    let file = SourceFile::new(file.name.clone(), text);
    let module = ptxcross_frontend::parse(&file).map_err(|ds| ds.into_iter().map(|d| place(d, user_bytes, declaration)).collect::<Vec<_>>())?;
    Ok(Some(Attached { module, file, user_bytes, declaration }))
}

/// `f` of `module`, or of the module with the runtime attached when it needs it (its
/// diagnostics placed in the user's file).
pub(crate) fn with_runtime<T>(
    module: &ast::Module,
    file: &SourceFile,
    f: impl FnOnce(&ast::Module, &SourceFile) -> Result<T, Vec<Diagnostic>>,
) -> Result<T, Vec<Diagnostic>> {
    match attach(module, file)? {
        Some(a) => f(&a.module, &a.file).map_err(|ds| a.place(ds)),
        None => f(module, file),
    }
}

/// A diagnostic of the attached module, with a span the user's file has.
fn place(mut d: Diagnostic, user_bytes: u32, declaration: ast::Span) -> Diagnostic {
    if d.span.start >= user_bytes {
        d.message = format!("{} (in ptxcross's device runtime for `malloc`/`free`, lower/runtime/malloc.ptx)", d.message);
        d.span = declaration;
    }
    d
}

impl Attached {
    /// Diagnostics of lowering the attached module, placed in the user's file.
    pub fn place(&self, ds: Vec<Diagnostic>) -> Vec<Diagnostic> {
        ds.into_iter().map(|d| place(d, self.user_bytes, self.declaration)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> (ast::Module, SourceFile) {
        let file = SourceFile::new("t.ptx", text);
        (ptxcross_frontend::parse(&file).unwrap(), file)
    }

    const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

    #[test]
    fn attaches_only_to_modules_that_declare_without_defining() {
        let decl = format!("{HEADER}.extern .func (.param .b64 r) malloc (.param .b64 n);\n.visible .entry k() {{ ret; }}\n");
        let (m, f) = module(&decl);
        let a = attach(&m, &f).unwrap().expect("attached");
        assert!(a.file.text.starts_with(&decl));
        let defined = |name: &str| a.module.items.iter().any(|i| matches!(i, ast::Item::Function(g) if g.name.name == name && g.body.is_some()));
        assert!(defined("malloc") && defined("free"));

        let (m, f) = module(&format!("{HEADER}.visible .entry k() {{ ret; }}\n"));
        assert!(attach(&m, &f).unwrap().is_none());
        let own = format!("{HEADER}.func (.param .b64 r) malloc (.param .b64 n) {{ st.param.b64 [r], 0; ret; }}\n");
        let (m, f) = module(&own);
        assert!(attach(&m, &f).unwrap().is_none());
    }

    #[test]
    fn refuses_32_bit_modules_at_the_declaration() {
        let text = ".version 7.0\n.target sm_80\n.address_size 32\n.extern .func free (.param .b32 p);\n";
        let (m, f) = module(text);
        let Err(ds) = attach(&m, &f) else { panic!("attached a 32-bit module") };
        assert!(ds[0].message.contains(".address_size 32"), "{}", ds[0].message);
        assert_eq!(f.location(ds[0].span), "t.ptx:4:15");
    }
}
