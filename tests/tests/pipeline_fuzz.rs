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
    let sources = corpus_sources();
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
                ptxcross_spirv::validate(&words).unwrap_or_else(|e| panic!("spirv-val: {e}"));
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

// ---------------------------------------------------------------------------------------------
// The guarded whole-pipeline fuzz: hostile mutations (huge sizes and counts, odd alignments,
// long names and literals, deep branch chains, truncation, byte flips) on top of the line
// mutations above, run in a child process with bounded memory, so that an abort (stack
// overflow, allocation failure) or a hang is caught and reported with its input instead of
// killing the test run. The child is this test binary in worker mode.
//
// CI runs a bounded slice (`PTXCROSS_FUZZ_ROUNDS`, default 300 inputs). Long runs:
//   PTXCROSS_FUZZ_ROUNDS=200000 PTXCROSS_FUZZ_SEED=1 \
//     cargo test --release -p ptxcross-tests --test pipeline_fuzz guarded -- --nocapture
// A failing input is written to $TMPDIR/ptxcross-fuzz-<seed>.ptx.

const HOSTILE_NUMBERS: [&str; 9] = [
    "18446744073709551615",
    "4294967296",
    "1099511627776",
    "0",
    "3",
    "2147483647",
    "65536",
    "1000000",
    "0x7fffffffffffffff",
];

/// One hostile change of `text`.
fn hostile(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return text.to_string();
    }
    let at = rng.below(lines.len());
    match rng.below(8) {
        0 => {
            // A number of a line becomes a hostile one.
            let l = &lines[at];
            let starts: Vec<usize> = l
                .char_indices()
                .filter(|&(i, c)| c.is_ascii_digit() && (i == 0 || !l.as_bytes()[i - 1].is_ascii_alphanumeric()))
                .map(|(i, _)| i)
                .collect();
            if let Some(&s) = starts.get(rng.below(starts.len().max(1))) {
                let e = l[s..].find(|c: char| !c.is_ascii_alphanumeric()).map_or(l.len(), |n| s + n);
                let n = HOSTILE_NUMBERS[rng.below(HOSTILE_NUMBERS.len())];
                lines[at] = format!("{}{}{}", &l[..s], n, &l[e..]);
            }
        }
        1 => {
            let n = HOSTILE_NUMBERS[rng.below(HOSTILE_NUMBERS.len())];
            let a = [1, 2, 3, 0, 16, 1 << 20, 1 << 30][rng.below(7)];
            let decl = match rng.below(4) {
                0 => format!(".global .align {a} .b8 fz_g[{n}];"),
                1 => format!(".shared .align {a} .b8 fz_s[{n}];"),
                2 => format!(".local .align {a} .b32 fz_l[{n}];"),
                _ => format!(".reg .b32 %fz<{n}>;"),
            };
            // Module scope for globals, else after the first `{`.
            let pos = if decl.starts_with(".global") {
                lines.iter().position(|l| l.starts_with(".address_size")).map_or(0, |p| p + 1)
            } else {
                lines.iter().position(|l| l.trim() == "{").map_or(at, |p| p + 1)
            };
            lines.insert(pos.min(lines.len()), decl);
        }
        2 => {
            // A chain of branches to one label.
            let n = [100, 1000, 5000][rng.below(3)];
            let pos = lines.iter().position(|l| l.trim() == "{").map_or(at, |p| p + 1);
            let mut chain = vec![".reg .pred %fzp;".to_string(), "setp.ne.u32 %fzp, 0, 0;".to_string()];
            chain.extend((0..n).map(|_| "@%fzp bra FZ_END;".to_string()));
            chain.push("FZ_END:".to_string());
            let end = (pos + 1 + rng.below(lines.len() - pos.min(lines.len()) + 1)).min(lines.len());
            let tail: Vec<String> = lines.split_off(pos.min(lines.len()));
            let (mid, rest) = tail.split_at((end - pos.min(end)).min(tail.len()));
            lines.extend(chain[..2].iter().cloned());
            lines.extend(mid.iter().cloned());
            lines.extend(chain[2..].iter().cloned());
            lines.extend(rest.iter().cloned());
        }
        3 => {
            // A long identifier or literal.
            let long = "x".repeat([300, 70_000, 1 << 20][rng.below(3)]);
            lines[at] = lines[at].replacen("%r", &format!("%{long}"), 1).replacen(", 0", &format!(", 1{}", "9".repeat(long.len().min(100_000))), 1);
        }
        4 => {
            // A long constant expression.
            let n = [10, 300, 50_000][rng.below(3)];
            let e = vec!["1"; n].join("+");
            lines.insert(at, format!(".global .u32 fz_c = {e};"));
        }
        5 => {
            // Truncation.
            let keep = rng.below(text.len().max(1));
            let mut cut = keep;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            return text[..cut].to_string();
        }
        6 => {
            // A byte (ASCII) replaced.
            let l = &mut lines[at];
            if !l.is_empty() {
                let i = rng.below(l.len());
                if l.is_char_boundary(i) && l.is_char_boundary(i + 1) {
                    let c = b"{}[]<>;,.%@!-+0123456789xX:"[rng.below(27)] as char;
                    l.replace_range(i..i + 1, &c.to_string());
                }
            }
        }
        _ => return mutate(text, rng),
    }
    lines.join("\n")
}

/// The mutant of `seed`: a corpus file with one to four line or hostile mutations.
fn fuzz_input(sources: &[String], seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut text = sources[rng.below(sources.len())].clone();
    for _ in 0..1 + rng.below(4) {
        text = if rng.below(2) == 0 { mutate(&text, &mut rng) } else { hostile(&text, &mut rng) };
    }
    text
}

/// The end-to-end corpus and the device-function corpus (calls, recursion, function pointers).
fn corpus_sources() -> Vec<String> {
    let mut sources: Vec<String> = ["corpus/ptx", "calls/ptx"]
        .iter()
        .flat_map(|d| std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(d)).unwrap())
        .filter_map(|e| e.ok())
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    sources.sort();
    sources
}

/// Parse, lower, emit both; every emitted module must validate. Returns whether it lowered.
fn pipeline(name: &str, text: &str) -> bool {
    let file = SourceFile::new(name.to_string(), text.to_string());
    let Ok(ast) = parse(&file) else { return false };
    let module = match lower(&ast, &file, &LowerOptions::default()) {
        Ok(m) => m,
        Err(d) => {
            assert!(!d.is_empty());
            return false;
        }
    };
    if let Ok(words) = ptxcross_spirv::emit(&module) {
        ptxcross_spirv::validate(&words).unwrap_or_else(|e| panic!("spirv-val: {e}"));
    }
    let _ = ptxcross_wgsl::emit(&module, ptxcross_wgsl::Profile::Wgpu);
    true
}

/// Worker mode: runs seeds `start..start+count`, announcing each before it runs.
fn fuzz_worker(start: u64, count: u64) {
    use std::io::Write;
    let sources = corpus_sources();
    let mut out = std::io::stdout();
    for seed in start..start + count {
        let text = fuzz_input(&sources, seed);
        let _ = writeln!(out, "FUZZ seed {seed}");
        let _ = out.flush();
        if catch_unwind(AssertUnwindSafe(|| pipeline(&format!("fuzz{seed}.ptx"), &text))).is_err() {
            let _ = writeln!(out, "FUZZ panic {seed}");
            let _ = out.flush();
            std::process::exit(3);
        }
    }
    let _ = writeln!(out, "FUZZ done");
}

#[test]
fn guarded_whole_pipeline_fuzz() {
    use std::io::BufRead;
    if let Ok(range) = std::env::var("PTXCROSS_FUZZ_WORKER") {
        let (a, b) = range.split_once(':').expect("start:count");
        return fuzz_worker(a.parse().unwrap(), b.parse().unwrap());
    }
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let rounds = env("PTXCROSS_FUZZ_ROUNDS", 300);
    let first = env("PTXCROSS_FUZZ_SEED", 1);
    // Per input: at most 4 GiB of address space, 8 MiB of main stack, and 300 s of wall time
    // (generous: a loaded machine; no input of the corpus takes more than a few seconds).
    let per_input = std::time::Duration::from_secs(env("PTXCROSS_FUZZ_INPUT_SECS", 300));
    let exe = std::env::current_exe().unwrap();
    let started = std::time::Instant::now();
    {
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 4194304; ulimit -s 8192; exec \"$0\" --exact guarded_whole_pipeline_fuzz --nocapture --test-threads 1")
            .arg(&exe)
            .env("PTXCROSS_FUZZ_WORKER", format!("{first}:{rounds}"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut current = None;
        let failure = loop {
            match rx.recv_timeout(per_input) {
                Ok(l) if l == "FUZZ done" => break None,
                Ok(l) => {
                    if let Some(s) = l.strip_prefix("FUZZ seed ") {
                        current = s.parse::<u64>().ok();
                    } else if l.starts_with("FUZZ panic") {
                        break Some("panicked");
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    break Some("took longer than the limit per input (PTXCROSS_FUZZ_INPUT_SECS)");
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break Some("died (abort, stack overflow or out of memory)"),
            }
        };
        let status = child.wait().unwrap();
        match (failure, current) {
            (None, _) => {}
            (Some(why), Some(seed)) => {
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    use std::io::Read;
                    let _ = e.read_to_string(&mut err);
                }
                let path = std::env::temp_dir().join(format!("ptxcross-fuzz-{seed}.ptx"));
                std::fs::write(&path, fuzz_input(&corpus_sources(), seed)).unwrap();
                let tail: String = err.chars().rev().take(3000).collect::<Vec<_>>().into_iter().rev().collect();
                panic!("fuzz seed {seed} {why} ({status}); input: {}\n{tail}", path.display());
            }
            (Some(why), None) => panic!("the fuzz worker {why} before its first input ({status})"),
        }
    }
    eprintln!("{rounds} fuzz inputs from seed {first} ran clean in {:.1} s", started.elapsed().as_secs_f64());
}
