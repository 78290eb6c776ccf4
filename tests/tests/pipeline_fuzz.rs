//! No input may panic the pipeline: mutated real PTX (instructions, modifiers and operands
//! swapped between lines) goes through parse → lower → both backends. Each stage may refuse with
//! a diagnostic; it must never panic, and whatever it emits must validate.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::{lower, LowerOptions};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of the text: swap two instruction lines, replace a line's opcode part or an
/// operand with another line's, or duplicate / delete a line.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let insts: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            let t = lines[i].trim_start();
            t.ends_with(';') && !t.starts_with('.') && !t.starts_with("//")
        })
        .collect();
    if insts.len() < 2 {
        return text.to_string();
    }
    let (a, b) = (insts[rng.below(insts.len())], insts[rng.below(insts.len())]);
    match rng.below(5) {
        0 => lines.swap(a, b),
        1 => {
            // Opcode of b with operands of a.
            let (oa, ob) = (lines[a].trim().to_string(), lines[b].trim().to_string());
            let ops_a = oa.split_once(char::is_whitespace).map(|x| x.1).unwrap_or("");
            let op_b = ob.split_whitespace().next().unwrap_or("");
            if !op_b.starts_with('@') {
                lines[a] = format!("\t{op_b} {ops_a}");
            }
        }
        2 => {
            // An operand of a replaced by an operand of b.
            let pick = |s: &str, rng: &mut Rng| -> Option<String> {
                let ops: Vec<&str> = s.trim().trim_end_matches(';').split(',').collect();
                (ops.len() > 1).then(|| ops[1 + rng.below(ops.len() - 1)].trim().to_string())
            };
            if let (Some(x), Some(y)) = (pick(&lines[a], rng), pick(&lines[b], rng)) {
                lines[a] = lines[a].replacen(&x, &y, 1);
            }
        }
        3 => {
            let l = lines[b].clone();
            lines.insert(a, l);
        }
        _ => {
            lines.remove(a);
        }
    }
    lines.join("\n")
}

#[test]
fn mutated_corpus_never_panics_and_emits_only_valid_modules() {
    // The end-to-end corpus and the device-function corpus (calls, recursion, function pointers).
    let mut sources: Vec<String> = ["corpus/ptx", "calls/ptx"]
        .iter()
        .flat_map(|d| std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(d)).unwrap())
        .filter_map(|e| e.ok())
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    sources.sort();
    let mut rng = Rng(0x5eed);
    let (mut lowered, mut refused) = (0, 0);
    for round in 0..600 {
        let base = &sources[round % sources.len()];
        let mut text = base.clone();
        for _ in 0..1 + rng.below(3) {
            text = mutate(&text, &mut rng);
        }
        let file = SourceFile::new(format!("mutant{round}.ptx"), text.clone());
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let Ok(ast) = parse(&file) else { return None };
            let module = match lower(&ast, &file, &LowerOptions::default()) {
                Ok(m) => m,
                Err(d) => {
                    assert!(!d.is_empty());
                    return Some(false);
                }
            };
            if let Ok(words) = ptxcross_spirv::emit(&module) {
                ptxcross_spirv::validate_with_spirv_val(&words).unwrap_or_else(|e| panic!("spirv-val: {e}"));
            }
            // `emit` validates with naga before returning; an error is a refusal, not a panic.
            let _ = ptxcross_wgsl::emit(&module, ptxcross_wgsl::Profile::Wgpu);
            Some(true)
        }));
        match outcome {
            Ok(Some(true)) => lowered += 1,
            Ok(_) => refused += 1,
            Err(_) => panic!("the pipeline panicked on this input:\n{text}"),
        }
    }
    eprintln!("{lowered} mutants translated, {refused} refused with diagnostics");
    assert!(lowered > 50, "too few mutants got through: {lowered}");
}
