//! `ptxcross check [--json] FILE.ptx...`

use std::path::Path;

use ptxcross_frontend::ast;
use ptxcross_lower::LowerOptions;

use super::{Args, EXIT_ERROR, EXIT_OK};
use crate::translate::{self, Profile, TranslateError};

/// Result of one stage: ok, or the error.
type StageResult = Option<Result<(), TranslateError>>;

struct FileReport {
    file: String,
    parse: StageResult,
    spirv: StageResult,
    wgsl: StageResult,
    kernels: Vec<String>,
}

impl FileReport {
    fn ok(&self) -> bool {
        [&self.parse, &self.spirv, &self.wgsl]
            .iter()
            .all(|s| matches!(s, Some(Ok(()))))
    }
}

fn check_file(path: &str, options: &LowerOptions) -> FileReport {
    let mut r = FileReport {
        file: path.to_string(),
        parse: None,
        spirv: None,
        wgsl: None,
        kernels: Vec::new(),
    };
    let file = match translate::load(Path::new(path)) {
        Ok(f) => f,
        Err(e) => {
            r.parse = Some(Err(e));
            return r;
        }
    };
    let ast = match translate::parse(&file) {
        Ok(a) => a,
        Err(e) => {
            r.parse = Some(Err(e));
            return r;
        }
    };
    r.parse = Some(Ok(()));
    // Each kernel into a module of its own, as the runtime and the driver translate it (one
    // module of many kernels is not what runs: the CUB/Thrust file's 247 kernels in one module
    // need 9.8 M SPIR-V ids, over Vulkan's 4 M, and a 201 MB WGSL text that naga validates as
    // one unit). The file's functions and globals are analysed once (`lower_each`).
    let names = entry_kernels(&ast);
    let modules = if names.is_empty() {
        // No kernel: lowering says so (or reports what else is wrong).
        vec![translate::lower(&ast, &file, options)]
    } else {
        translate::lower_each(&ast, &file, options, &names)
    };
    // Every kernel's lowering errors (as lowering the whole module reported them), else the
    // first emission or validation failure of each target, in kernel order.
    let mut lowering: Option<TranslateError> = None;
    let mut lowered = Vec::new();
    for module in modules {
        // `--no-float64`: a kernel that still needs f64 fails as a lowering error.
        let module = module.and_then(|m| {
            if options.no_float64 {
                translate::refuse_float64(&m, &file)?;
            }
            Ok(m)
        });
        match module {
            Ok(m) => {
                for k in &m.kernels {
                    if !r.kernels.contains(&k.name) {
                        r.kernels.push(k.name.clone());
                    }
                }
                lowered.push(m);
            }
            Err(e) => {
                lowering = Some(match lowering.take() {
                    None => e,
                    Some(first) => join(first, e),
                })
            }
        }
    }
    let (mut spirv, mut wgsl) = (Ok(()), Ok(()));
    if lowering.is_none() {
        for (s, w) in emit_and_validate(&lowered) {
            if spirv.is_ok() {
                spirv = s;
            }
            if wgsl.is_ok() {
                wgsl = w;
            }
        }
    }
    if let Some(e) = lowering {
        // A lowering failure fails both targets.
        spirv = Err(e.clone());
        wgsl = Err(e);
    }
    r.spirv = Some(spirv);
    r.wgsl = Some(wgsl);
    r
}

/// Each module emitted and validated for both targets, on several threads (validation is most
/// of `check`'s time on a large file, and the modules are independent); results in order.
fn emit_and_validate(modules: &[ptxcross_lower::ir::Module]) -> Vec<(Result<(), TranslateError>, Result<(), TranslateError>)> {
    let one = |module: &ptxcross_lower::ir::Module| match translate::prepare_emission(module) {
        Ok(prepared) => {
            let spirv = translate::emit_spirv_prepared(&prepared).and_then(|w| translate::validate_spirv(&w));
            let wgsl = translate::emit_wgsl_prepared(&prepared, Profile::Wgpu).and_then(|t| translate::validate_wgsl(&t, Profile::Wgpu));
            (spirv, wgsl)
        }
        Err(e) => (Err(e.clone()), Err(e)),
    };
    // The emitters recurse as deep as the kernel's control flow nests: a large stack, as the
    // lowering threads have.
    ptxcross_lower::threads::map_ordered(modules, "ptxcross check", 256 << 20, one)
}

/// Two kernels' lowering diagnostics as one error.
fn join(a: TranslateError, b: TranslateError) -> TranslateError {
    match (a, b) {
        (
            TranslateError::Diagnostics { stage, mut short, mut rendered },
            TranslateError::Diagnostics { short: s2, rendered: r2, .. },
        ) => {
            short.extend(s2);
            rendered.push('\n');
            rendered.push_str(&r2);
            TranslateError::Diagnostics { stage, short, rendered }
        }
        (a, _) => a,
    }
}

/// The names of the module's kernels (`.entry` with a body), in order.
fn entry_kernels(ast: &ast::Module) -> Vec<String> {
    ast.items
        .iter()
        .filter_map(|i| match i {
            ast::Item::Function(f) if f.kind == ast::FunctionKind::Entry && f.body.is_some() => {
                Some(f.name.name.to_string())
            }
            _ => None,
        })
        .collect()
}

fn json_stage(s: &StageResult) -> String {
    match s {
        None => "skipped".into(),
        Some(Ok(())) => "ok".into(),
        Some(Err(e)) => e.to_string(),
    }
}

pub fn main(a: &Args) -> Result<i32, String> {
    if a.positional.is_empty() {
        return Err("check: no PTX files given".into());
    }
    let json = a.flag("--json");
    let options = LowerOptions {
        no_float64: a.flag("--no-float64"),
        ..LowerOptions::default()
    };
    let mut all_ok = true;
    for path in &a.positional {
        let r = check_file(path, &options);
        all_ok &= r.ok();
        if json {
            let line = serde_json::json!({
                "file": r.file,
                "parse": json_stage(&r.parse),
                "spirv": json_stage(&r.spirv),
                "wgsl": json_stage(&r.wgsl),
            });
            println!("{line}");
        } else {
            print_human(&r);
        }
    }
    Ok(if all_ok { EXIT_OK } else { EXIT_ERROR })
}

fn print_human(r: &FileReport) {
    let word = |s: &StageResult| match s {
        None => "skipped",
        Some(Ok(())) => "ok",
        Some(Err(_)) => "FAILED",
    };
    let kernels = if r.kernels.is_empty() {
        String::new()
    } else {
        format!(" [{}]", r.kernels.join(", "))
    };
    println!(
        "{}: parse {}, spirv {}, wgsl {}{kernels}",
        r.file,
        word(&r.parse),
        word(&r.spirv),
        word(&r.wgsl)
    );
    let mut shown: Vec<&TranslateError> = Vec::new();
    for (label, s) in [("parse", &r.parse), ("spirv", &r.spirv), ("wgsl", &r.wgsl)] {
        if let Some(Err(e)) = s {
            if shown.contains(&e) {
                continue; // a lowering error is reported once, not per target
            }
            shown.push(e);
            let _ = label;
            eprint!("{}", e.render());
        }
    }
}
