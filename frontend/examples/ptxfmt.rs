//! `cargo run -p ptxcross-frontend --example ptxfmt -- file.ptx`: parses a PTX file and prints it
//! back (or its diagnostics). Also reports parse throughput with `--bench N`.
use ptxcross_frontend::{parse, print, SourceFile};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: ptxfmt FILE [--bench N]");
        std::process::exit(2);
    };
    let bytes = std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let file = SourceFile::new(path.clone(), String::from_utf8_lossy(&bytes).into_owned());
    if let Some(n) = args.iter().position(|a| a == "--bench").and_then(|i| args.get(i + 1)).and_then(|n| n.parse::<usize>().ok()) {
        let mb = file.text.len() as f64 / 1e6;
        // Wall time, and time on a CPU (from /proc/self/schedstat; on a machine shared with
        // other jobs the latter is the fairer measure).
        let (mut lex_s, mut parse_s, mut parse_cpu, mut drop_s) = (0.0, 0.0, 0.0, 0.0);
        for _ in 0..n {
            if std::env::var_os("PTXFMT_NO_LEX").is_none() {
                let t = std::time::Instant::now();
                let l = ptxcross_frontend::lexer::lex(std::hint::black_box(&file.text));
                lex_s += t.elapsed().as_secs_f64();
                drop(std::hint::black_box(l));
            }
            let (t, c) = (std::time::Instant::now(), cpu_time());
            let m = parse(std::hint::black_box(&file));
            parse_s += t.elapsed().as_secs_f64();
            parse_cpu += cpu_time() - c;
            let t = std::time::Instant::now();
            if std::env::var_os("PTXFMT_LEAK").is_some() {
                std::mem::forget(m); // profiling the parse alone
                continue;
            }
            drop(std::hint::black_box(m));
            drop_s += t.elapsed().as_secs_f64();
        }
        let n = n as f64;
        println!(
            "{mb:.1} MB: lex {:.0} MB/s; parse (lex+parse, AST built) {:.0} MB/s wall, {:.0} MB/s on-CPU; dropping the AST {:.3} s",
            mb * n / lex_s,
            mb * n / parse_s,
            mb * n / parse_cpu,
            drop_s / n
        );
        return;
    }
    match parse(&file) {
        Ok(m) => print!("{}", print(&m)),
        Err(es) => {
            for d in &es {
                eprint!("{}", d.render(&file));
            }
            std::process::exit(1);
        }
    }
}

/// Seconds this thread has run on a CPU (Linux; 0 elsewhere).
fn cpu_time() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()))
        .map_or(0.0, |ns| ns / 1e9)
}
