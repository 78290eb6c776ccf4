//! No input may panic the parser (nor the printer on what parses): random bytes, random token
//! soup, and random mutations of valid files. A tiny xorshift PRNG keeps this dependency-free
//! and deterministic.

mod common;
use ptxcross_frontend::{parse, print, SourceFile};

/// Iterations per test; `PTXCROSS_FUZZ_ITERS` raises it for longer local runs,
/// `PTXCROSS_FUZZ_SEED` varies the random streams.
fn iters() -> usize {
    std::env::var("PTXCROSS_FUZZ_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(3000)
}

fn seed(base: u64) -> u64 {
    let extra: u64 = std::env::var("PTXCROSS_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    (base ^ extra.wrapping_mul(0x9E3779B97F4A7C15)) | 1
}

struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SEEDS: &[&str] = &[
    include_str!("data/vecadd.ptx"),
    include_str!("data/syntax.ptx"),
    include_str!("data/legacy14.ptx"),
    include_str!("data/corner.ptx"),
];

const PIECES: &[&str] = &[
    ".entry", ".func", ".reg", ".b32", "%r<4>", ";", ",", "{", "}", "(", ")", "[", "]", "@", "@@DWARF", "!", "-",
    "+", "|", "?", ":", "0f3F800000", "0d3FF0000000000000", "0x", "1.5e", "99999999999999999999", "\"", "\"s\"",
    "/*", "*/", "//", "\n", " ", ".section", ".loc", ".file", ".pragma", ".maxntid", "L1:", "_", "%tid.x", "mov.u32",
    ".version", "8.5", ".target", "sm_80", "(.s64)", "generic(", "=", "<", ">", ".const[2]", "é", "\u{0}", "\t",
];

/// Parses; if that succeeds, the printed text must parse too (round trip under mutation).
fn check(text: &str) {
    let file = SourceFile::new("fuzz.ptx", text);
    match parse(&file) {
        Ok(m) => {
            let printed = print(&m);
            let fail = |why: String| -> ! {
                let _ = std::fs::write(std::env::temp_dir().join("ptxcross_fuzz_fail.ptx"), text);
                panic!("{why}\ninput:\n{text}\nprinted:\n{printed}");
            };
            match parse(&SourceFile::new("printed", printed.as_str())) {
                Err(es) => fail(format!("printed text does not re-parse: {es:?}")),
                Ok(m2) => {
                    if common::strip(&m) != common::strip(&m2) {
                        fail(format!("round trip changed the AST:\n{:?}\n{:?}", common::strip(&m), common::strip(&m2)));
                    }
                }
            }
        }
        Err(es) => {
            assert!(!es.is_empty());
            for d in es.iter().take(5) {
                assert!(d.span.start <= d.span.end && d.span.end as usize <= text.len(), "{d:?}");
                let _ = d.render(&file);
            }
        }
    }
}

#[test]
fn random_bytes() {
    let mut rng = XorShift(seed(0x9E3779B97F4A7C15));
    for _ in 0..iters() {
        let n = rng.below(300);
        let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn random_ascii_and_token_soup() {
    let mut rng = XorShift(seed(12345));
    for _ in 0..iters() {
        let n = rng.below(200);
        let s: String = if rng.below(2) == 0 {
            (0..n).map(|_| (32 + rng.below(95)) as u8 as char).collect()
        } else {
            (0..n / 3).map(|_| PIECES[rng.below(PIECES.len())]).collect::<Vec<_>>().join(if rng.below(2) == 0 { " " } else { "" })
        };
        check(&s);
    }
}

#[test]
fn mutations_of_valid_files() {
    let mut rng = XorShift(seed(0xDEADBEEF));
    for iter in 0..iters() {
        let seed = SEEDS[iter % SEEDS.len()];
        let mut b: Vec<u8> = seed.as_bytes().to_vec();
        for _ in 0..1 + rng.below(8) {
            if b.is_empty() {
                break;
            }
            let at = rng.below(b.len());
            match rng.below(5) {
                0 => {
                    b.remove(at);
                }
                1 => {
                    let set = b"{}[]();,.@!%-+|<>\"/*_0xfd\n";
                    b.insert(at, set[rng.below(set.len())])
                }
                2 => b[at] = rng.next() as u8,
                3 => {
                    let p = PIECES[rng.below(PIECES.len())];
                    b.splice(at..at, p.bytes());
                }
                _ => {
                    let end = (at + rng.below(40)).min(b.len());
                    b.drain(at..end);
                }
            }
        }
        check(&String::from_utf8_lossy(&b));
    }
}
