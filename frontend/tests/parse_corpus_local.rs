//! Runs the project's parse corpus (`tests/parse-corpus/`, maintained beside the `tests` crate)
//! from this crate, so that `cargo test -p ptxcross-frontend` covers it without building the
//! whole workspace. Mirrors `tests/tests/parse_corpus.rs`: spec examples wrapped into a module
//! (those in KNOWN_INVALID.txt must be rejected, all others must parse), real compiler output,
//! and the large file when present; everything that parses must round-trip.
//! Skipped (with a message) when the corpus folder is absent.

mod common;
use common::strip;
use ptxcross_frontend::{parse, print, SourceFile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/parse-corpus")
}

fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ptx") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

const WRAP_REGS: &str = "\t.reg .pred %p<100>;\n\t.reg .b16 %rs<100>;\n\t.reg .b32 %r<1000>;\n\
                         \t.reg .b64 %rd<1000>;\n\t.reg .f32 %f<1000>;\n\t.reg .f64 %fd<1000>;\n";

fn first_word_is(line: &str, word: &str) -> bool {
    let t = line.trim_start();
    t.strip_prefix(word).is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

fn wrap_example(name: &str, text: &str) -> String {
    let mut module = String::new();
    let mut body = String::new();
    let mut in_body = false;
    for line in text.lines() {
        if let Some(scope) = line.strip_prefix("//! scope: ") {
            in_body = scope.trim() == "body";
            continue;
        }
        let dst = if in_body { &mut body } else { &mut module };
        dst.push_str(line);
        dst.push('\n');
    }
    let has = |w: &str| module.lines().any(|l| first_word_is(l, w));
    let (version, target, addr) = if name.starts_with("v1.4-") {
        (".version 1.4", ".target sm_13", None)
    } else {
        (".version 8.5", ".target sm_90a", Some(".address_size 64"))
    };
    let mut out = String::new();
    if !has(".version") {
        out.push_str(version);
        out.push('\n');
        if !has(".target") {
            out.push_str(target);
            out.push('\n');
            if let (Some(a), false) = (addr, has(".address_size")) {
                out.push_str(a);
                out.push('\n');
            }
        }
    }
    out.push_str(&module);
    if !body.is_empty() {
        out.push_str("\n.visible .entry wrap()\n{\n");
        out.push_str(WRAP_REGS);
        out.push_str(&body);
        out.push_str("}\n");
    }
    out
}

fn round_trip(display: &str, m1: &ptxcross_frontend::ast::Module, failures: &mut Vec<String>) {
    let printed = print(m1);
    match parse(&SourceFile::new("printed", printed.clone())) {
        Err(es) => failures.push(format!("{display}: printed text does not parse: {:?}", es.first())),
        Ok(m2) => {
            if strip(m1) != strip(&m2) {
                failures.push(format!("{display}: round trip changes the AST"));
            } else if print(&m2) != printed {
                failures.push(format!("{display}: printing is not idempotent"));
            }
        }
    }
}

fn errors_text(file: &SourceFile, es: &[ptxcross_frontend::Diagnostic]) -> String {
    es.iter()
        .take(3)
        .map(|d| {
            let (l, _) = file.line_col(d.span.start);
            format!("\n    {} | {}", d.short(file), file.line_text(l).trim())
        })
        .collect()
}

#[test]
fn parse_corpus() {
    let dir = corpus_dir();
    if !dir.join("spec/examples").is_dir() {
        eprintln!("parse corpus not found at {}: skipped", dir.display());
        return;
    }
    let mut failures = Vec::new();
    let known: BTreeMap<String, String> = std::fs::read_to_string(dir.join("spec/KNOWN_INVALID.txt"))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (n, r) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            (n.to_string(), r.trim().to_string())
        })
        .collect();
    let (mut n_spec, mut n_real) = (0, 0);
    for path in ptx_files(&dir.join("spec/examples")) {
        n_spec += 1;
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let wrapped = wrap_example(&name, &std::fs::read_to_string(&path).unwrap());
        let file = SourceFile::new(name.clone(), wrapped);
        match (known.get(&name), parse(&file)) {
            (Some(_), Err(_)) => {}
            (Some(reason), Ok(_)) => failures.push(format!("{name}: known invalid ({reason}) but parses")),
            (None, Ok(m)) => round_trip(&name, &m, &mut failures),
            (None, Err(es)) => failures.push(format!("{name}: {}", errors_text(&file, &es))),
        }
    }
    let mut others = ptx_files(&dir.join("real"));
    others.extend(ptx_files(&dir.join("large")));
    for path in others {
        n_real += 1;
        let display = path.strip_prefix(&dir).unwrap().to_string_lossy().to_string();
        let file = SourceFile::new(display.clone(), std::fs::read_to_string(&path).unwrap());
        match parse(&file) {
            Ok(m) => round_trip(&display, &m, &mut failures),
            Err(es) => failures.push(format!("{display}: {}", errors_text(&file, &es))),
        }
    }
    eprintln!("parse corpus: {n_spec} spec examples, {n_real} compiler outputs, {} failures", failures.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
