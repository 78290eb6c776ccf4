//! Test helpers: span stripping for AST comparisons, error rendering.
#![allow(dead_code)]

use ptxcross_frontend::ast::*;
use ptxcross_frontend::{parse, print, SourceFile};

pub fn parse_ok(name: &str, text: &str) -> Module {
    let file = SourceFile::new(name, text);
    match parse(&file) {
        Ok(m) => m,
        Err(es) => panic!("{} errors:\n{}", es.len(), es.iter().map(|d| d.render(&file)).collect::<String>()),
    }
}

pub use ptxcross_frontend::spans::strip_spans as strip;

/// parse → print → parse must give the same AST modulo spans, and printing is idempotent.
pub fn assert_round_trip(name: &str, text: &str) -> Module {
    let m1 = parse_ok(name, text);
    let printed = print(&m1);
    let m2 = parse_ok(&format!("{name} (printed)"), &printed);
    let (s1, s2) = (strip(&m1), strip(&m2));
    if s1 != s2 {
        // Point at the first differing item for a readable failure.
        for (a, b) in s1.items.iter().zip(&s2.items) {
            assert_eq!(a, b, "round trip of {name} differs; printed text:\n{printed}");
        }
        assert_eq!(s1, s2, "round trip of {name} differs; printed text:\n{printed}");
    }
    assert_eq!(print(&m2), printed, "printing is not idempotent for {name}");
    m1
}
