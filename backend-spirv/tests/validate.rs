//! The in-process validator (SPIRV-Tools linked from the system) gives the same verdict and the
//! same message as the `spirv-val --target-env vulkan1.1` program, on valid modules, hand-broken
//! ones and random word mutations of an emitted module.

mod common;
use common::*;

use ptxcross_spirv::{validate, validate_with_spirv_val, validator, Validator};

fn spirv_val_installed() -> bool {
    std::process::Command::new("spirv-val").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

/// Both validators' verdicts on `words`, which must agree to the byte.
fn same_verdict(words: &[u32], what: &str) -> Result<(), String> {
    let here = validate(words);
    if spirv_val_installed() {
        let there = validate_with_spirv_val(words);
        assert_eq!(here, there, "{what}: in-process and spirv-val differ");
    }
    here
}

#[test]
fn the_library_is_linked_where_required() {
    // scripts/test.sh (and so CI) sets this for the build and the tests alike.
    if std::env::var("PTXCROSS_REQUIRE_SPIRV_TOOLS").as_deref() == Ok("1") {
        assert_eq!(validator(), Validator::InProcess);
        let version = ptxcross_spirv::linked_version().expect("a version string");
        assert!(version.contains("SPIRV-Tools"), "{version}");
    }
}

#[test]
fn broken_modules_are_rejected_with_spirv_vals_message() {
    let good = check(&module(vec![vecadd()]));
    same_verdict(&good, "valid module").expect("the emitted module is valid");

    let mut cases: Vec<(&str, Vec<u32>, &str)> = Vec::new();
    cases.push(("three words", vec![1, 2, 3], "error: line 0: "));
    cases.push(("no words", vec![], "error: line 0: "));
    let mut w = good.clone();
    w.pop(); // the final OpFunctionEnd's word
    cases.push(("truncated", w, "error: line "));
    let mut w = good.clone();
    w[1] = 0x0001_0600; // SPIR-V 1.6: newer than Vulkan 1.1 accepts
    cases.push(("SPIR-V 1.6 header", w, "error: line 0: "));
    let mut w = good.clone();
    w[3] = 2; // id bound below the ids in use
    cases.push(("id bound", w, "error: line "));
    // Remove the OpMemoryModel instruction (opcode 14, 3 words).
    let mut w = good.clone();
    let at = instruction_offsets(&good).into_iter().find(|&i| good[i] & 0xffff == 14).expect("OpMemoryModel");
    w.drain(at..at + 3);
    cases.push(("no OpMemoryModel", w, "memory model"));

    for (what, words, needle) in cases {
        match same_verdict(&words, what) {
            Ok(()) => panic!("{what}: accepted"),
            Err(msg) => assert!(msg.starts_with("error: line ") && msg.contains(needle), "{what}: {msg}"),
        }
    }
}

/// Word offsets of the instructions after the 5-word header.
fn instruction_offsets(words: &[u32]) -> Vec<usize> {
    let mut at = 5;
    let mut out = Vec::new();
    while at < words.len() {
        out.push(at);
        at += ((words[at] >> 16) as usize).max(1);
    }
    out
}

#[test]
fn random_mutations_get_the_same_verdict_and_message() {
    let good = check(&module(vec![vecadd()]));
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut rejected, n) = (0, 150);
    for case in 0..n {
        let mut w = good.clone();
        for _ in 0..1 + next() % 3 {
            let i = 5 + (next() as usize) % (w.len() - 5);
            w[i] = match next() % 3 {
                0 => w[i] ^ (1 << (next() % 32)),
                1 => w[i].wrapping_add(1),
                _ => next() as u32 % 64,
            };
        }
        if same_verdict(&w, &format!("mutation {case}")).is_err() {
            rejected += 1;
        }
    }
    // Most mutations break something; a mutation that still validates is fine as long as both
    // validators agree (checked above).
    assert!(rejected > n / 3, "only {rejected} of {n} mutations were rejected");
}
