//! `ptxcross check [--json] FILE.ptx...`

use std::path::Path;

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

fn check_file(path: &str) -> FileReport {
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
    let module = match translate::lower(&ast, &file, &LowerOptions::default()) {
        Ok(m) => m,
        Err(e) => {
            // A lowering failure fails both targets.
            r.spirv = Some(Err(e.clone()));
            r.wgsl = Some(Err(e));
            return r;
        }
    };
    r.kernels = module.kernels.iter().map(|k| k.name.clone()).collect();
    r.spirv = Some(translate::emit_spirv(&module).and_then(|w| translate::validate_spirv(&w)));
    r.wgsl = Some(
        translate::emit_wgsl(&module, Profile::Wgpu)
            .and_then(|t| translate::validate_wgsl(&t, Profile::Wgpu)),
    );
    r
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
    let mut all_ok = true;
    for path in &a.positional {
        let r = check_file(path);
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
