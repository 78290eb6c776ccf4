//! Parse throughput of the PTX frontend (issue #3), compared in the same run with ptxas.
//!
//!     cargo bench -p ptxcross-tests --bench parse_throughput
//!
//! - criterion measures `ptxcross_frontend::parse` in MB/s (decimal) on the large file
//!   (tests/parse-corpus/large/cub_zoo.sm_80.ptx, ~13 MB of CUB/Thrust kernels; regenerated with
//!   nvcc when missing, skipped with a message when nvcc is unavailable) and on the whole real
//!   corpus (tests/parse-corpus/real/, every file parsed in turn: concatenating modules would
//!   not be PTX, each has its own `.version`);
//! - then, timed as wall clock, best of 3: `ptxas -arch=sm_80 -O0` and `ptxas -arch=sm_80`
//!   (default -O3) on the large file (skipped when ptxas is absent: $PTXAS, the regen venv, or
//!   $PATH), and `ptxcross check` on it when a release `ptxcross` binary exists
//!   ($PTXCROSS_BIN, or target/release/ptxcross; build it with
//!   `cargo build --release -p ptxcross`), and a comparison table is printed.

#[path = "common/mod.rs"]
mod common;

use criterion::{black_box, Criterion, Throughput};
use ptxcross_frontend::{parse, print, SourceFile};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Row {
    what: String,
    time: Option<Timing>,
    bytes: usize,
    note: String,
}

/// Best wall-clock time, and best CPU time (this process plus waited-for children, from
/// /proc/self/stat, 10 ms ticks; `None` off Linux). The CPU time is what to compare on a
/// shared machine: other jobs stretch the wall clock of both the parser and ptxas.
#[derive(Clone, Copy)]
struct Timing {
    wall: Duration,
    cpu: Option<Duration>,
}

fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // fields after the parenthesised command name: state is field 3; utime..cstime are 14..17
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11..15)?.iter().map(|x| x.parse::<u64>().unwrap_or(0)).sum();
    Some(Duration::from_millis(ticks * 10)) // USER_HZ is 100 on Linux
}

/// Runs `f` `reps` times per sample, `n` samples; per-call times.
fn best_of<F: FnMut() -> Result<(), String>>(n: usize, reps: u32, mut f: F) -> Result<Timing, String> {
    let (mut wall, mut cpu) = (Duration::MAX, None::<Duration>);
    for _ in 0..n {
        let (t, c) = (Instant::now(), cpu_time());
        for _ in 0..reps {
            f()?;
        }
        wall = wall.min(t.elapsed() / reps);
        if let (Some(c0), Some(c1)) = (c, cpu_time()) {
            let d = c1.saturating_sub(c0) / reps;
            cpu = Some(cpu.map_or(d, |b| b.min(d)));
        }
    }
    Ok(Timing { wall, cpu })
}

fn run_tool(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(format!("{}: {}", out.status, err.lines().next().unwrap_or("")))
    }
}

fn ptxcross_bin() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXCROSS_BIN") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    // this bench runs as target/release/deps/parse_throughput-<hash>
    let exe = std::env::current_exe().ok()?;
    let release = exe.parent()?.parent()?;
    Some(release.join("ptxcross")).filter(|p| p.is_file())
}

fn mb_per_s(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / 1e6 / t.as_secs_f64()
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(8))
        .configure_from_args();

    let mut rows: Vec<Row> = Vec::new();

    // --- the real corpus ---------------------------------------------------------------------
    let real: Vec<SourceFile> = common::ptx_files(&common::corpus_dir().join("real"))
        .iter()
        .map(|p| SourceFile::new(p.display().to_string(), std::fs::read_to_string(p).unwrap()))
        .collect();
    let real_bytes: usize = real.iter().map(|f| f.text.len()).sum();
    {
        let mut g = c.benchmark_group("parse");
        g.throughput(Throughput::BytesDecimal(real_bytes as u64));
        g.bench_function(format!("real corpus ({} files)", real.len()), |b| {
            b.iter(|| {
                for f in &real {
                    black_box(parse(black_box(f)).is_ok());
                }
            })
        });
        g.finish();
    }
    let t = best_of(5, 10, || {
        for f in &real {
            parse(f).map_err(|e| format!("{}: {} errors", f.name, e.len()))?;
        }
        Ok(())
    });
    rows.push(Row {
        what: format!("ptxcross parse, real corpus ({} files)", real.len()),
        time: t.as_ref().ok().copied(),
        bytes: real_bytes,
        note: t.err().unwrap_or_default(),
    });

    // --- the large file ----------------------------------------------------------------------
    let large = match common::ensure_large_file() {
        Ok(p) => Some(p),
        Err(why) => {
            eprintln!("parse_throughput: large file SKIPPED: {why}");
            None
        }
    };
    if let Some(path) = &large {
        let file = SourceFile::new("cub_zoo.sm_80.ptx", std::fs::read_to_string(path).unwrap());
        let n = file.text.len();
        let module = parse(&file).ok();
        {
            let mut g = c.benchmark_group("parse");
            g.throughput(Throughput::BytesDecimal(n as u64));
            g.bench_function("large file (cub_zoo.sm_80.ptx)", |b| b.iter(|| black_box(parse(black_box(&file)).is_ok())));
            g.finish();
        }
        let t = best_of(5, 2, || parse(&file).map(|_| ()).map_err(|e| format!("{} parse errors", e.len())));
        rows.push(Row {
            what: "ptxcross parse, large file".into(),
            time: t.as_ref().ok().copied(),
            bytes: n,
            note: t.err().unwrap_or_default(),
        });
        if let Some(m) = &module {
            let t = best_of(5, 4, || {
                black_box(print(m));
                Ok(())
            });
            rows.push(Row { what: "ptxcross print, large file".into(), time: t.ok(), bytes: n, note: String::new() });
        }
        compare_tools(path, n, &mut rows);
    }

    c.final_summary();
    print_table(&rows, large.as_deref());
}

fn compare_tools(path: &Path, n: usize, rows: &mut Vec<Row>) {
    match common::find_cuda_tool("ptxas") {
        None => rows.push(Row {
            what: "ptxas".into(),
            time: None,
            bytes: n,
            note: "SKIPPED: no ptxas ($PTXAS, the regen venv, or $PATH)".into(),
        }),
        Some(ptxas) => {
            let version = Command::new(&ptxas)
                .arg("--version")
                .output()
                .ok()
                .and_then(|o| String::from_utf8_lossy(&o.stdout).split_whitespace().find(|w| w.starts_with('V')).map(String::from))
                .unwrap_or_default();
            let cubin = std::env::temp_dir().join(format!("parse_throughput_{}.cubin", std::process::id()));
            for (label, opt) in [("-O0", Some("-O0")), ("default (-O3)", None)] {
                eprintln!("parse_throughput: timing ptxas -arch=sm_80 {label}, best of 3 ...");
                let t = best_of(3, 1, || {
                    let mut cmd = Command::new(&ptxas);
                    cmd.arg("-arch=sm_80");
                    if let Some(o) = opt {
                        cmd.arg(o);
                    }
                    run_tool(cmd.arg(path).arg("-o").arg(&cubin))
                });
                rows.push(Row {
                    what: format!("ptxas {version} -arch=sm_80 {label}"),
                    time: t.as_ref().ok().copied(),
                    bytes: n,
                    note: t.err().unwrap_or_default(),
                });
            }
            let _ = std::fs::remove_file(&cubin);
        }
    }
    match ptxcross_bin() {
        None => rows.push(Row {
            what: "ptxcross check".into(),
            time: None,
            bytes: n,
            note: "SKIPPED: no release binary ($PTXCROSS_BIN or target/release/ptxcross; cargo build --release -p ptxcross)".into(),
        }),
        Some(bin) => {
            eprintln!("parse_throughput: timing {} check --json, best of 3 ...", bin.display());
            let mut stages = String::new();
            let t = best_of(3, 1, || {
                let out = Command::new(&bin).arg("check").arg("--json").arg(path).output().map_err(|e| e.to_string())?;
                stages = String::from_utf8_lossy(&out.stdout).trim().to_string();
                Ok(())
            });
            // {"file":…,"parse":"ok","spirv":"<errors>","wgsl":…}: show how far it got, and the
            // first error of a failed stage (errors are "<path>:l:c: message; <path>:…").
            let path_str = path.display().to_string();
            let summary = serde_json::from_str::<serde_json::Value>(stages.lines().last().unwrap_or(""))
                .ok()
                .map(|v| {
                    ["parse", "spirv", "wgsl"]
                        .iter()
                        .map(|k| {
                            let s = v[*k].as_str().unwrap_or("?");
                            if s == "ok" {
                                return format!("{k} ok");
                            }
                            let n = s.matches(path_str.as_str()).count().max(1);
                            let first = s.split(&format!("; {path_str}")).next().unwrap_or(s);
                            let first = first.trim_start_matches(path_str.as_str()).trim_start_matches(':');
                            format!("{k} FAILED ({n} errors, first: line {})", first.chars().take(60).collect::<String>())
                        })
                        .collect::<Vec<_>>()
                        .join("; ")
                })
                .unwrap_or_else(|| stages.chars().take(120).collect());
            rows.push(Row { what: "ptxcross check (release binary)".into(), time: t.as_ref().ok().copied(), bytes: n, note: summary });
        }
    }
}

fn print_table(rows: &[Row], large: Option<&Path>) {
    println!();
    println!("parse_throughput: best of 5 (ptxcross) / best of 3 (tools); MB = 10^6 bytes;");
    println!("cpu = user+system time of the process and its children (compare these on a busy machine)");
    if let Some(p) = large {
        println!("large file: {}", p.display());
    }
    let parse_large = rows.iter().find(|r| r.what == "ptxcross parse, large file").and_then(|r| r.time);
    println!(
        "{:<42} {:>9} {:>9} {:>9} {:>9} {:>9}  note",
        "what", "wall", "MB/s", "cpu", "MB/s cpu", "x parse"
    );
    for r in rows {
        let secs = |d: Duration| format!("{:.3} s", d.as_secs_f64());
        let (wall, rate, cpu, cpu_rate, rel) = match r.time {
            Some(t) => (
                secs(t.wall),
                format!("{:.1}", mb_per_s(r.bytes, t.wall)),
                t.cpu.map(secs).unwrap_or_else(|| "-".into()),
                t.cpu.filter(|c| !c.is_zero()).map(|c| format!("{:.1}", mb_per_s(r.bytes, c))).unwrap_or_else(|| "-".into()),
                parse_large.map(|p| format!("{:.1}", t.wall.as_secs_f64() / p.wall.as_secs_f64())).unwrap_or_default(),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into(), String::new()),
        };
        println!("{:<42} {:>9} {:>9} {:>9} {:>9} {:>9}  {}", r.what, wall, rate, cpu, cpu_rate, rel, r.note);
    }
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!("load average at the end: {}", load.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    }
    println!("goal (issue #3): parse >= 100 MB/s; `ptxcross check` on the large file faster than ptxas");
}
