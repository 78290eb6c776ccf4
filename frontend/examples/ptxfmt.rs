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
        let t = std::time::Instant::now();
        for _ in 0..n {
            let _ = std::hint::black_box(parse(std::hint::black_box(&file)));
        }
        let s = t.elapsed().as_secs_f64();
        let mb = (file.text.len() * n) as f64 / 1e6;
        println!("{:.1} MB in {:.3} s: {:.1} MB/s", mb, s, mb / s);
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
