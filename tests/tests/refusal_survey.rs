//! Survey of what ptxcross still refuses in the compiler output of the parse corpus
//! (`tests/parse-corpus/real`, and `large/cub_zoo.sm_80.ptx` when it is there): every kernel
//! of every file is lowered on its own and emitted by both backends (without validation), and
//! the refusals are counted by message (one per kernel and stage). It asserts nothing about
//! the counts (they are a to-do list, not a contract); it fails only if something panics.
//!
//! `cargo test -p ptxcross-tests --test refusal_survey -- --ignored --nocapture`
//! (`PTXCROSS_SURVEY_LARGE=0` skips the 13.5 MB file).

use ptxcross::{translate, Backend};
use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::{lower, LowerOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p);
        }
    }
}

/// The message without the names that vary between kernels of one refusal: backquoted
/// instruction names keep their opcode and first modifier (`wmma.load`), other backquoted
/// text stays.
fn normalize(message: &str) -> String {
    let first = message.lines().next().unwrap_or("").trim_start_matches("error: ");
    if let Some(rest) = first.strip_prefix("not supported yet: instruction `") {
        let opcode: Vec<&str> = rest.trim_end_matches('`').split('.').take(2).collect();
        return format!("not supported yet: instruction `{}…`", opcode.join("."));
    }
    first.to_string()
}

#[test]
#[ignore = "a survey, run by hand: see the module comment"]
fn refusals_in_the_parse_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("parse-corpus");
    let mut files = Vec::new();
    ptx_files(&root.join("real"), &mut files);
    let large = root.join("large/cub_zoo.sm_80.ptx");
    if large.exists() && std::env::var("PTXCROSS_SURVEY_LARGE").as_deref() != Ok("0") {
        files.push(large);
    }
    let mut counts: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let (mut kernels, mut refused) = (0usize, 0usize);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let file = SourceFile::new(name.clone(), &text);
        let ast = parse(&file).unwrap_or_else(|e| panic!("{name}: {}", e[0].render(&file)));
        let entries = ast
            .items
            .iter()
            .filter(|i| matches!(i, ptxcross_frontend::ast::Item::Function(f) if f.kind == ptxcross_frontend::ast::FunctionKind::Entry && f.body.is_some()))
            .count();
        kernels += entries;
        let t = std::time::Instant::now();
        // Lowered one kernel at a time (a module-level refusal counts once), each through both
        // backends (without validation: every refusal is the backend's own).
        let mut rendered: Vec<(String, String)> = Vec::new();
        let names: Vec<String> = ast
            .items
            .iter()
            .filter_map(|i| match i {
                ptxcross_frontend::ast::Item::Function(f) if f.kind == ptxcross_frontend::ast::FunctionKind::Entry && f.body.is_some() => {
                    Some(f.name.name.to_string())
                }
                _ => None,
            })
            .collect();
        for kernel in &names {
            let options = LowerOptions { kernel: Some(kernel.clone()), ..Default::default() };
            let before = rendered.len();
            match lower(&ast, &file, &options) {
                Err(e) => {
                    let r = e[0].render(&file);
                    let at = r.lines().find_map(|l| l.trim_start().strip_prefix("--> ")).unwrap_or("").to_string();
                    rendered.push((normalize(&r), at));
                }
                Ok(module) => {
                    for backend in Backend::ALL {
                        if let Err(e) = translate::build_program_from_ir(&name, module.clone(), &[backend], false) {
                            rendered.push((normalize(&e.to_string()), format!("{name} `{kernel}`")));
                        }
                    }
                }
            }
            refused += (rendered.len() > before) as usize;
        }
        eprintln!("{name}: {entries} kernels, {} refusals ({:.1} s)", rendered.len(), t.elapsed().as_secs_f64());
        for (message, at) in rendered {
            let e = counts.entry(message).or_insert((0, String::new()));
            e.0 += 1;
            if e.1.is_empty() {
                e.1 = at;
            }
        }
    }
    let mut rows: Vec<_> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(&b.0)));
    println!("\n{} files, {kernels} kernels, {refused} refused by lower or a backend\n", files.len());
    println!("| count | message | first at |\n|---|---|---|");
    for (message, (n, at)) in rows {
        println!("| {n} | {} | {at} |", message.replace('|', "\\|"));
    }
}
