//! No launch sees memory another launch left behind (issue 7 §1): a kernel that writes a pattern
//! into shared and local memory, then a kernel that reads both without writing them, in another
//! context of the same process and in another process. CUDA leaves both memories undefined; our
//! contract is that they start zeroed, so nothing of another context can leak.
//!
//! Needs a GPU adapter (lavapipe is enough); without one it prints why and passes unless
//! `PTXCROSS_REQUIRE_GPU=1`.

mod common;
use common::gpu;

use std::path::PathBuf;
use std::process::Command;

use ptxcross::runtime::{Backend, Context};
use ptxcross::translate;
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;


/// `writer` fills all 1024 shared words with `0xCAFE0000 | i` and its 64 local words with
/// `0xBEEF0000 | j`; `reader` copies the 1024 shared words to `out[0..1024]` and stores the OR
/// of its 64 local words at `out[1024 + tid]`. Block: 256 threads.
const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry writer(.param .u64 keep)
{
	.reg .pred %p<2>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<10>;
	.shared .align 4 .b32 sh[1024];
	.local .align 4 .b32 loc[64];
	ld.param.u64 %rd9, [keep];
	cvta.to.global.u64 %rd9, %rd9;
	mov.u32 %r1, %tid.x;
	mov.u64 %rd1, sh;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd1, %rd1, %rd2;
	add.u64 %rd7, %rd9, %rd2;
	or.b32 %r2, %r1, 0xCAFE0000;
	st.shared.u32 [%rd1], %r2;
	add.u32 %r3, %r2, 256;
	st.shared.u32 [%rd1+1024], %r3;
	add.u32 %r3, %r2, 512;
	st.shared.u32 [%rd1+2048], %r3;
	add.u32 %r3, %r2, 768;
	st.shared.u32 [%rd1+3072], %r3;
	mov.u64 %rd3, loc;
	mov.u32 %r4, 0;
LOOP:
	mul.wide.u32 %rd4, %r4, 4;
	add.u64 %rd5, %rd3, %rd4;
	or.b32 %r5, %r4, 0xBEEF0000;
	st.local.u32 [%rd5], %r5;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p1, %r4, 64;
	@%p1 bra LOOP;
	// Read both memories back so no compiler can drop the stores as dead.
	bar.sync 0;
	xor.b32 %r6, %r1, 255;
	mul.wide.u32 %rd6, %r6, 4;
	mov.u64 %rd8, sh;
	add.u64 %rd8, %rd8, %rd6;
	ld.shared.u32 %r7, [%rd8+3072];
	add.u64 %rd6, %rd3, %rd6;
	and.b32 %r8, %r1, 63;
	mul.wide.u32 %rd4, %r8, 4;
	add.u64 %rd5, %rd3, %rd4;
	ld.local.u32 %r9, [%rd5];
	xor.b32 %r7, %r7, %r9;
	st.global.u32 [%rd7], %r7;
	ret;
}

.visible .entry reader(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<10>;
	.shared .align 4 .b32 sh[1024];
	.local .align 4 .b32 loc[64];
	ld.param.u64 %rd9, [out];
	cvta.to.global.u64 %rd9, %rd9;
	mov.u32 %r1, %tid.x;
	mov.u64 %rd1, sh;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd1, %rd1, %rd2;
	add.u64 %rd7, %rd9, %rd2;
	ld.shared.u32 %r2, [%rd1];
	st.global.u32 [%rd7], %r2;
	ld.shared.u32 %r2, [%rd1+1024];
	st.global.u32 [%rd7+1024], %r2;
	ld.shared.u32 %r2, [%rd1+2048];
	st.global.u32 [%rd7+2048], %r2;
	ld.shared.u32 %r2, [%rd1+3072];
	st.global.u32 [%rd7+3072], %r2;
	mov.u64 %rd3, loc;
	mov.u32 %r4, 0;
	mov.u32 %r6, 0;
LOOP:
	mul.wide.u32 %rd4, %r4, 4;
	add.u64 %rd5, %rd3, %rd4;
	ld.local.u32 %r5, [%rd5];
	or.b32 %r6, %r6, %r5;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p1, %r4, 64;
	@%p1 bra LOOP;
	st.global.u32 [%rd7+4096], %r6;
	ret;
}
"#;

const OUT_WORDS: usize = 1024 + 256;

fn options() -> LowerOptions {
    LowerOptions { block: Some([256, 1, 1]), ..common::device_options() }
}

#[test]
fn a_context_never_sees_shared_or_local_memory_of_another() {
    let Some(gpu) = gpu() else { return };
    let file = SourceFile::new("isolation.ptx", PTX);
    let program = translate::build_program(&file, &options(), &Backend::ALL, true).unwrap();
    for backend in Backend::ALL {
        for round in 0..3 {
            let mut a = Context::new(ptxcross::ContextOptions { gpu: Some(gpu.clone()), ..Default::default() }).unwrap();
            let keep = a.alloc(1024).unwrap();
            a.launch(&program, "writer", [8, 1, 1], &[&keep.0.to_le_bytes()], backend).unwrap();
            let mut b = Context::new(ptxcross::ContextOptions { gpu: Some(gpu.clone()), ..Default::default() }).unwrap();
            let out = b.alloc(OUT_WORDS as u64 * 4).unwrap();
            b.launch(&program, "reader", [8, 1, 1], &[&out.0.to_le_bytes()], backend).unwrap();
            let bytes = b.read(out, OUT_WORDS as u64 * 4).unwrap();
            let leaked: Vec<(usize, u32)> = bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .enumerate()
                .filter(|&(_, w)| w != 0)
                .take(4)
                .collect();
            assert!(leaked.is_empty(), "{backend}, round {round}: memory of another context visible: {leaked:x?}");
        }
    }
}

fn ptxcross(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ptxcross")).args(args).output().expect("run ptxcross")
}

#[test]
fn a_process_never_sees_shared_or_local_memory_of_an_earlier_one() {
    if gpu().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ptxcross-isolation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.ptx"), PTX).unwrap();
    let spec = |kernel: &str, buffers: &str, args: &str, expect: &str| -> PathBuf {
        let p = dir.join(format!("{kernel}.json"));
        let text = format!(
            r#"{{"ptx": "k.ptx", "kernel": "{kernel}", "grid": [8], "block": [256],
                "buffers": {{{buffers}}}, "args": [{args}], "expect": {{{expect}}}}}"#
        );
        std::fs::write(&p, text).unwrap();
        p
    };
    let bytes = OUT_WORDS * 4;
    let writer = spec("writer", r#""keep": {"zeros": 1024}"#, r#"{"buffer": "keep"}"#, "");
    let reader = spec(
        "reader",
        &format!(r#""out": {{"zeros": {bytes}}}"#),
        r#"{"buffer": "out"}"#,
        &format!(r#""out": {{"zeros": {bytes}}}"#),
    );
    for _ in 0..2 {
        let w = ptxcross(&["run", "--spec", writer.to_str().unwrap()]);
        assert_eq!(w.status.code(), Some(0), "{}", String::from_utf8_lossy(&w.stderr));
        let r = ptxcross(&["run", "--spec", reader.to_str().unwrap()]);
        let out = String::from_utf8_lossy(&r.stdout);
        assert_eq!(r.status.code(), Some(0), "{out}{}", String::from_utf8_lossy(&r.stderr));
        assert_eq!(out.matches(": pass").count(), 2, "{out}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `writer` fills the `WORDS` shared words with `0xCAFE0000 | w`; `reader` copies them to `out`
/// (each thread words `tid, tid + ntid, …`), for shapes of the zeroing prologue
/// (`isolation.rs`): whole rounds and a remainder, fewer words than threads, and more rounds
/// than it writes out (a loop).
const SIZED: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry writer(.param .u64 keep)
{
	.shared .align 4 .b32 sh[WORDS];
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, sh;
WL:
	setp.ge.u32 %p1, %r1, WORDS;
	@%p1 bra WD;
	shl.b32 %r4, %r1, 2;
	add.u32 %r5, %r3, %r4;
	or.b32 %r6, %r1, 0xCAFE0000;
	st.shared.u32 [%r5], %r6;
	add.u32 %r1, %r1, %r2;
	bra WL;
WD:
	ret;
}

.visible .entry reader(.param .u64 out)
{
	.shared .align 4 .b32 sh[WORDS];
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, sh;
RL:
	setp.ge.u32 %p1, %r1, WORDS;
	@%p1 bra RD;
	shl.b32 %r4, %r1, 2;
	add.u32 %r5, %r3, %r4;
	ld.shared.u32 %r6, [%r5];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	add.u32 %r1, %r1, %r2;
	bra RL;
RD:
	ret;
}
"#;

#[test]
fn every_shape_of_the_zeroing_prologue_clears_every_word() {
    let Some(gpu) = gpu() else { return };
    for (words, block) in [(1056u32, 256u32), (1000, 96), (7, 64), (256, 256)] {
        let ptx = SIZED.replace("WORDS", &words.to_string());
        let file = SourceFile::new("sized.ptx", ptx.as_str());
        let options = LowerOptions { block: Some([block, 1, 1]), ..common::device_options() };
        let program = translate::build_program(&file, &options, &Backend::ALL, true).unwrap();
        for backend in Backend::ALL {
            let mut a = Context::new(ptxcross::ContextOptions { gpu: Some(gpu.clone()), ..Default::default() }).unwrap();
            let keep = a.alloc(64).unwrap();
            // Several blocks, so that the reader's workgroups run where the writer's ran.
            a.launch(&program, "writer", [8, 1, 1], &[&keep.0.to_le_bytes()], backend).unwrap();
            let mut b = Context::new(ptxcross::ContextOptions { gpu: Some(gpu.clone()), ..Default::default() }).unwrap();
            let out = b.alloc(words as u64 * 4).unwrap();
            b.write(out, &vec![0x55u8; words as usize * 4]).unwrap();
            b.launch(&program, "reader", [1, 1, 1], &[&out.0.to_le_bytes()], backend).unwrap();
            let bytes = b.read(out, words as u64 * 4).unwrap();
            let bad: Vec<(usize, u32)> = bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .enumerate()
                .filter(|&(_, w)| w != 0)
                .take(4)
                .collect();
            assert!(bad.is_empty(), "{backend}, {words} words, {block} threads: words not zeroed: {bad:x?}");
        }
    }
}
