//! Every block of a grid runs exactly once, whatever the device caps per dispatch (issue 7 §4):
//! grids larger than a dispatch are split, and `%ctaid`/`%nctaid` stay those of the whole grid.
//! Each block's thread 0 counts itself (atomically) at its linear index and records `%nctaid`;
//! the expectation is computed here: every count 1, every record the grid's size.

mod common;
use common::gpu;

use std::sync::Arc;

use ptxcross::runtime::{Backend, Context, ContextOptions, Error, Gpu, Program};
use ptxcross::translate;
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;


const CENSUS: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry census(.param .u64 count, .param .u64 dims)
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ctaid.y;
	mov.u32 %r4, %ctaid.z;
	mov.u32 %r5, %nctaid.x;
	mov.u32 %r6, %nctaid.y;
	mov.u32 %r7, %nctaid.z;
	mad.lo.u32 %r8, %r4, %r6, %r3;
	mad.lo.u32 %r8, %r8, %r5, %r2;
	ld.param.u64 %rd1, [count];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r8, 4;
	add.u64 %rd3, %rd1, %rd2;
	atom.global.add.u32 %r9, [%rd3], 1;
	mad.lo.u32 %r10, %r6, 1024, %r5;
	mad.lo.u32 %r10, %r7, 1048576, %r10;
	ld.param.u64 %rd4, [dims];
	cvta.to.global.u64 %rd4, %rd4;
	add.u64 %rd5, %rd4, %rd2;
	st.global.u32 [%rd5], %r10;
DONE:
	ret;
}
"#;

fn program() -> Program {
    let file = SourceFile::new("census.ptx", CENSUS);
    let options = LowerOptions { block: Some([32, 1, 1]), ..LowerOptions::default() };
    translate::build_program(&file, &options, &Backend::ALL, true).unwrap()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Runs the census on `grid` (dispatches capped at `cap` if given) and checks every block.
fn census(gpu: &Arc<Gpu>, program: &Program, grid: [u32; 3], cap: Option<(u32, u64)>, backend: Backend) {
    let blocks = grid.iter().map(|&g| g as u64).product::<u64>();
    let mut ctx = Context::new(ContextOptions {
        heap_bytes: blocks * 8 + (1 << 20),
        gpu: Some(gpu.clone()),
        ..ContextOptions::default()
    })
    .unwrap();
    if let Some((per_dim, total)) = cap {
        ctx.limit_dispatch_size(per_dim, total);
    }
    let count = ctx.alloc(blocks * 4).unwrap();
    let dims = ctx.alloc(blocks * 4).unwrap();
    ctx.launch(program, "census", grid, &[&count.0.to_le_bytes(), &dims.0.to_le_bytes()], backend).unwrap();
    let counts = words(&ctx.read(count, blocks * 4).unwrap());
    let wrong: Vec<(usize, u32)> = counts.iter().copied().enumerate().filter(|&(_, c)| c != 1).take(5).collect();
    assert!(wrong.is_empty(), "{backend} {grid:?} {cap:?}: blocks not run exactly once (index, runs): {wrong:?}");
    let expect = grid[0] + grid[1] * 1024 + grid[2] * 1_048_576;
    let seen = words(&ctx.read(dims, blocks * 4).unwrap());
    assert!(seen.iter().all(|&d| d == expect), "{backend} {grid:?}: %nctaid is not the grid's size");
}

#[test]
fn split_dispatches_run_every_block_once_with_the_grids_ids() {
    let Some(gpu) = gpu() else { return };
    let p = program();
    for backend in Backend::ALL {
        // Unsplit, then split per axis and by total (uneven remainders on every axis).
        census(&gpu, &p, [5, 3, 2], None, backend);
        census(&gpu, &p, [37, 11, 5], Some((8, u64::MAX)), backend);
        census(&gpu, &p, [37, 11, 5], Some((1000, 64)), backend);
        census(&gpu, &p, [7, 9, 13], Some((4, 10)), backend);
    }
}

#[test]
fn a_grid_wider_than_the_device_allows_per_dispatch_runs_whole() {
    let Some(gpu) = gpu() else { return };
    let p = program();
    let max = gpu.limits().max_compute_workgroups_per_dimension;
    // Only where that is affordable (lavapipe: 65,535, so 70,000 blocks).
    if max > 1 << 20 {
        return eprintln!("skipping: the device allows {max} workgroups per dimension");
    }
    for backend in Backend::ALL {
        census(&gpu, &p, [max + 4465, 1, 1], None, backend);
    }
}

#[test]
fn grids_beyond_cudas_limits_are_refused() {
    let Some(gpu) = gpu() else { return };
    let p = program();
    let mut ctx = Context::new(ContextOptions { gpu: Some(gpu), ..ContextOptions::default() }).unwrap();
    let out = ctx.alloc(4).unwrap();
    let args: [&[u8]; 2] = [&out.0.to_le_bytes(), &out.0.to_le_bytes()];
    for grid in [[1, 65_536, 1], [1, 1, 65_536], [1 << 31, 1, 1], [0, 1, 1]] {
        match ctx.launch(&p, "census", grid, &args, Backend::Wgsl) {
            Err(Error::LimitExceeded { what, .. }) => assert!(what.contains("grid size"), "{what}"),
            other => panic!("{grid:?}: {other:?}"),
        }
    }
}
