//! The parse corpus of issue #3 (tests/parse-corpus/, see its README):
//!
//! - every PTX example of the spec (spec/examples/, extracted by spec/extract.py), wrapped into
//!   a module: instruction fragments go into a kernel, directives stay at module level. The
//!   examples listed in KNOWN_INVALID.txt are not valid PTX on their own; each must be rejected
//!   (so the list stays honest), every other one must parse;
//! - real compiler output (real/: nvcc, NVRTC, clang CUDA and OpenCL, numba-cuda, triton);
//! - the large file (large/cub_zoo.sm_80.ptx, ~13 MB of CUB/Thrust), regenerated with nvcc if
//!   missing, skipped with a message if nvcc is unavailable.
//!
//! Everything that parses must round-trip: `print(parse(x))` parses to the same AST (spans
//! aside), and printing that AST again gives the same text.
//!
//! Run: `cargo test -p ptxcross-tests --test parse_corpus -- --nocapture` (counts are printed).
//! With PARSE_CORPUS_REPORT=<file> the failures are also written there, one per line.

#[path = "../benches/common/mod.rs"]
mod common;

use ptxcross_frontend::ast::*;
use ptxcross_frontend::spans::strip_spans;
use ptxcross_frontend::{parse, print, SourceFile};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// One problem found in one corpus file.
struct Failure {
    file: String,
    what: String,
}

#[derive(Default)]
struct Report {
    failures: Vec<Failure>,
}

impl Report {
    fn fail(&mut self, file: &str, what: impl Into<String>) {
        self.failures.push(Failure { file: file.to_string(), what: what.into() });
    }

    /// Records the diagnostics of a failed parse: location, message, and the offending line.
    fn parse_errors(&mut self, file: &SourceFile, display: &str, errors: &[ptxcross_frontend::Diagnostic]) {
        for d in errors.iter().take(5) {
            let (line, _) = file.line_col(d.span.start);
            let label = d.label.as_deref().map(|l| format!(" ({l})")).unwrap_or_default();
            self.fail(
                display,
                format!("{}: {}{label} | {}", file.location(d.span), d.message, file.line_text(line).trim()),
            );
        }
        if errors.len() > 5 {
            self.fail(display, format!("... and {} more errors", errors.len() - 5));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Span stripping, so that ASTs of different texts compare structurally.

fn clip(s: String, n: usize) -> String {
    if s.len() <= n {
        return s;
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// `print(parse(x))` must parse to the same AST (spans aside) and print to the same text.
fn check_round_trip(report: &mut Report, display: &str, m1: &Module) {
    let printed = print(m1);
    let file2 = SourceFile::new(format!("{display} (printed)"), printed.clone());
    let m2 = match parse(&file2) {
        Ok(m) => m,
        Err(errors) => {
            report.fail(display, "round trip: the printed text does not parse:".to_string());
            report.parse_errors(&file2, display, &errors);
            return;
        }
    };
    let (s1, s2) = (strip_spans(m1), strip_spans(&m2));
    let differs = s1 != s2
        && (s1.version != s2.version
            || s1.target != s2.target
            || s1.address_size != s2.address_size
            || s1.items.len() != s2.items.len()
            || s1.items.iter().zip(&s2.items).any(|(a, b)| a != b));
    if differs {
        let what = if s1.version != s2.version || s1.target != s2.target || s1.address_size != s2.address_size {
            format!(
                "round trip: header differs: {:?} {:?} {:?} vs {:?} {:?} {:?}",
                s1.version, s1.target, s1.address_size, s2.version, s2.target, s2.address_size
            )
        } else if s1.items.len() != s2.items.len() {
            format!("round trip: {} items become {}", s1.items.len(), s2.items.len())
        } else {
            let (i, (a, b)) =
                s1.items.iter().zip(&s2.items).enumerate().find(|(_, (a, b))| a != b).unwrap();
            first_difference(i, a, b)
        };
        report.fail(display, what);
        return;
    }
    let printed2 = print(&m2);
    if printed2 != printed {
        let line = printed.lines().zip(printed2.lines()).position(|(a, b)| a != b).unwrap_or(0);
        report.fail(
            display,
            format!(
                "round trip: printing is not idempotent, line {}: {:?} vs {:?}",
                line + 1,
                printed.lines().nth(line).unwrap_or(""),
                printed2.lines().nth(line).unwrap_or("")
            ),
        );
    }
}

/// Narrows an item difference down to the first differing statement, for a readable message.
fn first_difference(index: usize, a: &Item, b: &Item) -> String {
    if let (Item::Function(fa), Item::Function(fb)) = (a, b) {
        if let (Some(ba), Some(bb)) = (&fa.body, &fb.body) {
            if fa.params == fb.params && fa.returns == fb.returns && fa.directives == fb.directives {
                if let Some((j, (x, y))) = ba.iter().zip(bb).enumerate().find(|(_, (x, y))| x != y) {
                    return format!(
                        "round trip: function {} statement {j} differs: {} vs {}",
                        fa.name.name,
                        clip(format!("{x:?}"), 300),
                        clip(format!("{y:?}"), 300)
                    );
                }
                return format!("round trip: function {}: {} statements become {}", fa.name.name, ba.len(), bb.len());
            }
        }
    }
    format!("round trip: item {index} differs: {} vs {}", clip(format!("{a:?}"), 300), clip(format!("{b:?}"), 300))
}

// ---------------------------------------------------------------------------------------------
// Spec examples.

/// `KNOWN_INVALID.txt`: `<example file>  <reason>` per line; `#` starts a comment line.
fn known_invalid(dir: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(dir.join("KNOWN_INVALID.txt")).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        assert!(!reason.trim().is_empty(), "KNOWN_INVALID.txt: {name} has no reason");
        out.insert(name.to_string(), reason.trim().to_string());
    }
    out
}

/// Registers every wrapped example may use without declaring them (the parser does not resolve
/// names, but nvcc-style declarations keep the wrapper realistic).
const WRAP_REGS: &str = "\t.reg .pred %p<100>;\n\t.reg .b16 %rs<100>;\n\t.reg .b32 %r<1000>;\n\
                         \t.reg .b64 %rd<1000>;\n\t.reg .f32 %f<1000>;\n\t.reg .f64 %fd<1000>;\n";

fn first_word_is(line: &str, word: &str) -> bool {
    let t = line.trim_start();
    t.strip_prefix(word).is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

/// Builds a module from an extracted example: its `//! scope: module` runs at module level
/// after a `.version`/`.target`/`.address_size` header (unless the example has its own), its
/// `//! scope: body` runs, in order, inside `.visible .entry wrap() { ... }`.
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

struct Stats {
    files: usize,
    bytes: usize,
}

fn check_spec(report: &mut Report) -> (Stats, usize, usize) {
    let dir = common::corpus_dir().join("spec");
    let files = common::ptx_files(&dir.join("examples"));
    assert!(files.len() > 300, "expected the spec examples in {}, found {}", dir.display(), files.len());
    let mut known = known_invalid(&dir);
    let mut stats = Stats { files: 0, bytes: 0 };
    let mut wrapped_bytes = 0;
    let mut rejected = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let wrapped = wrap_example(&name, &text);
        stats.files += 1;
        stats.bytes += text.len();
        wrapped_bytes += wrapped.len();
        let display = format!("spec/examples/{name}");
        let file = SourceFile::new(format!("{name} (wrapped)"), wrapped);
        let result = parse(&file);
        match (known.remove(&name), result) {
            (Some(_), Err(_)) => rejected += 1,
            (Some(reason), Ok(_)) => report.fail(
                &display,
                format!("listed in KNOWN_INVALID.txt ({reason}) but parses: remove it from the list"),
            ),
            (None, Ok(m)) => check_round_trip(report, &display, &m),
            (None, Err(errors)) => report.parse_errors(&file, &display, &errors),
        }
    }
    for name in known.keys() {
        report.fail("spec/KNOWN_INVALID.txt", format!("lists {name}, which is not an extracted example"));
    }
    (stats, wrapped_bytes, rejected)
}

// ---------------------------------------------------------------------------------------------
// Real compiler output and the large file.

fn check_file(report: &mut Report, path: &Path, display: &str) -> usize {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            report.fail(display, format!("cannot read: {e}"));
            return 0;
        }
    };
    let n = text.len();
    let file = SourceFile::new(display, text);
    match parse(&file) {
        Ok(m) => check_round_trip(report, display, &m),
        Err(errors) => report.parse_errors(&file, display, &errors),
    }
    n
}

#[test]
fn parse_corpus() {
    let mut report = Report::default();
    let mut summary = String::new();

    let t = Instant::now();
    let (spec, wrapped, rejected) = check_spec(&mut report);
    writeln!(
        summary,
        "spec examples: {} files, {} bytes ({} bytes wrapped); {} known-invalid, rejected as expected ({:.2?})",
        spec.files,
        spec.bytes,
        wrapped,
        rejected,
        t.elapsed()
    )
    .unwrap();

    let t = Instant::now();
    let real_dir = common::corpus_dir().join("real");
    let mut per_producer: BTreeMap<String, Stats> = BTreeMap::new();
    for path in common::ptx_files(&real_dir) {
        let rel = path.strip_prefix(&real_dir).unwrap().to_string_lossy().to_string();
        let producer = rel.split('/').next().unwrap_or("").to_string();
        let bytes = check_file(&mut report, &path, &format!("real/{rel}"));
        let s = per_producer.entry(producer).or_insert(Stats { files: 0, bytes: 0 });
        s.files += 1;
        s.bytes += bytes;
    }
    let (files, bytes) = per_producer.values().fold((0, 0), |(f, b), s| (f + s.files, b + s.bytes));
    assert!(files >= 40, "expected the real compiler output in {}, found {files} files", real_dir.display());
    writeln!(summary, "real compiler output: {files} files, {bytes} bytes ({:.2?})", t.elapsed()).unwrap();
    for (p, s) in &per_producer {
        writeln!(summary, "  {p:<7} {:>3} files {:>9} bytes", s.files, s.bytes).unwrap();
    }

    match common::ensure_large_file() {
        Ok(path) => {
            let t = Instant::now();
            let bytes = check_file(&mut report, &path, "large/cub_zoo.sm_80.ptx");
            writeln!(
                summary,
                "large file: large/cub_zoo.sm_80.ptx, {bytes} bytes (parse + print + reparse: {:.2?})",
                t.elapsed()
            )
            .unwrap();
        }
        Err(why) => writeln!(summary, "large file: SKIPPED: {why}").unwrap(),
    }

    println!("{summary}");
    if report.failures.is_empty() {
        println!("parse corpus: no failures");
        return;
    }
    let mut text = String::new();
    for f in &report.failures {
        writeln!(text, "{}: {}", f.file, f.what).unwrap();
    }
    if let Some(path) = std::env::var_os("PARSE_CORPUS_REPORT") {
        std::fs::write(&path, &text).unwrap();
    }
    let files: std::collections::BTreeSet<&str> = report.failures.iter().map(|f| f.file.as_str()).collect();
    panic!(
        "parse corpus: {} problems in {} files (see tests/parse-corpus/FAILURES.md for the known ones):\n{}",
        report.failures.len(),
        files.len(),
        text
    );
}

/// The committed spec examples are exactly what `spec/extract.py` writes from the spec texts
/// (skipped when python3 or the spec folder, `../shared/ptx-isa` or $PTX_ISA_DIR, is absent).
#[test]
fn spec_examples_are_reproducible() {
    let script = common::corpus_dir().join("spec").join("extract.py");
    let out = match std::process::Command::new("python3").arg(&script).arg("--check").output() {
        Ok(o) => o,
        Err(e) => {
            println!("spec_examples_are_reproducible: SKIPPED: cannot run python3: {e}");
            return;
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("spec folder not found") {
        println!("spec_examples_are_reproducible: SKIPPED: {}", stderr.trim());
        return;
    }
    assert!(
        out.status.success(),
        "spec/examples differ from what spec/extract.py writes; run it and commit:\n{stderr}"
    );
    println!("{}", String::from_utf8_lossy(&out.stdout).trim());
}
