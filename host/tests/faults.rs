//! A faulting access changes nothing and the fault names the kernel (issue 7 §7): a misaligned
//! `st.global.u32 [a+1]` used to fault *and* write the whole word at `a`.

mod common;
use common::gpu;


use ptxcross::runtime::{Backend, Context, ContextOptions, Error};
use ptxcross::translate;
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;


/// `kernel(a, off, v)` stores the low `width` bytes of `v` at byte `a + off`.
fn store_kernel(name: &str, width: u32) -> String {
    let bits = width * 8;
    let (reg, cvt) = match width {
        4 => ("%r1", String::new()),
        8 => ("%rd4", "cvt.u64.u32 %rd4, %r1;\n".to_string()),
        _ => ("%h1", "cvt.u16.u32 %h1, %r1;\n".to_string()),
    };
    format!(
        ".visible .entry {name}(.param .u64 a, .param .u64 off, .param .u32 v)\n{{\n\
         .reg .b16 %h<2>;\n.reg .b32 %r<2>;\n.reg .b64 %rd<5>;\n\
         ld.param.u64 %rd1, [a];\nld.param.u64 %rd2, [off];\nld.param.u32 %r1, [v];\n\
         cvta.to.global.u64 %rd1, %rd1;\nadd.u64 %rd3, %rd1, %rd2;\n{cvt}st.global.u{bits} [%rd3], {reg};\nret;\n}}\n"
    )
}

const KERNELS: [(&str, u64); 3] = [("misaligned_store", 4), ("misaligned_store64", 8), ("misaligned_store16", 2)];

#[test]
fn a_misaligned_store_faults_names_the_kernel_and_changes_nothing() {
    let Some(gpu) = gpu() else { return };
    let mut ptx = String::from(".version 7.0\n.target sm_70\n.address_size 64\n");
    for (name, width) in KERNELS {
        ptx += &store_kernel(name, width as u32);
    }
    let file = SourceFile::new("misaligned.ptx", ptx);
    let options = LowerOptions { block: Some([1, 1, 1]), ..common::device_options() };
    let program = translate::build_program(&file, &options, &Backend::ALL, true).unwrap();
    let before: Vec<u8> = (0u8..16).map(|i| 0xA0 | i).collect();
    for backend in Backend::ALL {
        for (kernel, width) in KERNELS {
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
