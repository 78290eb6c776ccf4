//! A faulting access changes nothing and the fault names the kernel (issue 7 §7): a misaligned
//! `st.global.u32 [a+1]` used to fault *and* write the whole word at `a`.

use std::sync::Arc;

use ptxcross::runtime::{Backend, Context, ContextOptions, Error, Gpu};
use ptxcross::translate;
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;

fn gpu() -> Option<Arc<Gpu>> {
    match Gpu::shared() {
        Ok(g) => Some(g),
        Err(e) => {
            if std::env::var("PTXCROSS_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("PTXCROSS_REQUIRE_GPU=1 but: {e}");
            }
            eprintln!("skipping GPU test: {e}");
            None
        }
    }
}

/// Stores `v` at byte `a + off` with the given width.
const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry misaligned_store(.param .u64 a, .param .u64 off, .param .u32 v)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [off];
	ld.param.u32 %r1, [v];
	cvta.to.global.u64 %rd1, %rd1;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
}
.visible .entry misaligned_store64(.param .u64 a, .param .u64 off, .param .u32 v)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [off];
	ld.param.u32 %r1, [v];
	cvta.to.global.u64 %rd1, %rd1;
	add.u64 %rd3, %rd1, %rd2;
	cvt.u64.u32 %rd4, %r1;
	st.global.u64 [%rd3], %rd4;
	ret;
}
.visible .entry misaligned_store16(.param .u64 a, .param .u64 off, .param .u32 v)
{
	.reg .b16 %h<2>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [off];
	ld.param.u32 %r1, [v];
	cvta.to.global.u64 %rd1, %rd1;
	add.u64 %rd3, %rd1, %rd2;
	cvt.u16.u32 %h1, %r1;
	st.global.u16 [%rd3], %h1;
	ret;
}
"#;

#[test]
fn a_misaligned_store_faults_names_the_kernel_and_changes_nothing() {
    let Some(gpu) = gpu() else { return };
    let file = SourceFile::new("misaligned.ptx", PTX);
    let options = LowerOptions { block: Some([1, 1, 1]), ..LowerOptions::default() };
    let program = translate::build_program(&file, &options, &Backend::ALL, true).unwrap();
    let before: Vec<u8> = (0u8..16).map(|i| 0xA0 | i).collect();
    for backend in Backend::ALL {
        for (kernel, width) in [("misaligned_store", 4u64), ("misaligned_store64", 8), ("misaligned_store16", 2)] {
            for off in 1..width {
                let mut ctx = Context::new(ContextOptions { gpu: Some(gpu.clone()), ..ContextOptions::default() }).unwrap();
                let a = ctx.alloc(16).unwrap();
                ctx.write(a, &before).unwrap();
                let args: [&[u8]; 3] = [&a.0.to_le_bytes(), &off.to_le_bytes(), &0xFFFF_FFFFu32.to_le_bytes()];
                match ctx.launch(&program, kernel, [1, 1, 1], &args, backend) {
                    Err(e @ Error::KernelFault { .. }) => {
                        let text = e.to_string();
                        assert!(text.contains(&format!("kernel `{kernel}`")) && text.contains("misaligned"), "{text}");
                    }
                    other => panic!("{backend} {kernel} +{off}: {other:?}"),
                }
                assert_eq!(ctx.read(a, 16).unwrap(), before, "{backend} {kernel} +{off}: memory changed");
            }
            // Aligned, it stores.
            let mut ctx = Context::new(ContextOptions { gpu: Some(gpu.clone()), ..ContextOptions::default() }).unwrap();
            let a = ctx.alloc(16).unwrap();
            ctx.write(a, &before).unwrap();
            let args: [&[u8]; 3] = [&a.0.to_le_bytes(), &width.to_le_bytes(), &0x1234_5678u32.to_le_bytes()];
            ctx.launch(&program, kernel, [1, 1, 1], &args, backend).unwrap();
            let mut want = before.clone();
            let value = 0x1234_5678u64.to_le_bytes();
            want[width as usize..2 * width as usize].copy_from_slice(&value[..width as usize]);
            assert_eq!(ctx.read(a, 16).unwrap(), want, "{backend} {kernel}");
        }
    }
}
