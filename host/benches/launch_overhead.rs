//! Launch overhead: launches per second of an empty kernel through `Context::launch` against a
//! raw wgpu dispatch of an empty hand-written WGSL kernel, in one process, interleaved.
//!
//!     cargo bench -p ptxcross --bench launch_overhead            # 2000 launches × 7 rounds
//!     PTXCROSS_LAUNCHES=500 PTXCROSS_ROUNDS=3 cargo bench -p ptxcross --bench launch_overhead
//!
//! Two ways of launching are compared, each against its raw counterpart:
//! - synchronous: every launch waits for the kernel (ptxcross: `Context::launch`, which also
//!   reads the fault word back; raw: submit + `device.poll(Wait)`);
//! - asynchronous: N launches, then one wait (ptxcross: `Context::launch_async` N times and
//!   `Context::synchronize`, which reads every launch's fault word back in one transfer; raw:
//!   N submits and one `poll(Wait)`).
//!
//! The raw side binds one storage buffer and dispatches one workgroup of 32, like the ptxcross
//! kernel (one `.u64` parameter, block 32). Each variant runs `n` launches per round; the
//! median of the rounds is reported, and the ratio ptxcross / raw (goal: ≤ 1.2). The smoke
//! test `host/tests/launch_overhead.rs` runs this with a few launches (no timing assertion).
#![allow(dead_code)]

use std::time::{Duration, Instant};

use ptxcross::runtime::{Backend, Context, ContextOptions, Gpu};
use ptxcross_lower::LowerOptions;

const EMPTY_PTX: &str = "\
.version 7.0
.target sm_70
.address_size 64
.visible .entry empty(.param .u64 out)
{
    ret;
}
";

const RAW_WGSL: &str = "
@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(32) fn main() {}
";

struct Raw {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
}

impl Raw {
    fn new(gpu: &Gpu) -> Raw {
        let device = gpu.device();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("raw"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("raw"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("raw"),
            source: wgpu::ShaderSource::Wgsl(RAW_WGSL.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("raw"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("raw"),
            size: 1 << 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("raw"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() }],
        });
        Raw { pipeline, bind_group }
    }

    fn submit(&self, gpu: &Gpu) {
        let mut enc = gpu.device().create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        gpu.queue().submit([enc.finish()]);
    }

    fn wait(gpu: &Gpu) {
        gpu.device().poll(wgpu::PollType::Wait { submission_index: None, timeout: None }).expect("poll");
    }
}

/// Median launches per second of each variant, per backend: `(backend, [(name, ptxcross/s,
/// raw/s)])`.
pub struct Report {
    pub rows: Vec<(Backend, &'static str, f64, f64)>,
}

fn per_second(n: usize, t: Duration) -> f64 {
    n as f64 / t.as_secs_f64().max(1e-9)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Runs `rounds` rounds of `n` launches of each variant (interleaved) on both backends.
pub fn run(gpu: std::sync::Arc<Gpu>, n: usize, rounds: usize) -> Report {
    let file = ptxcross_frontend::SourceFile::new("empty.ptx", EMPTY_PTX.to_string());
    let options = LowerOptions { block: Some([32, 1, 1]), ..Default::default() };
    let program = ptxcross::translate::build_program(&file, &options, &Backend::ALL, true).expect("translates");
    let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, gpu: Some(gpu.clone()), ..Default::default() }).expect("context");
    let out = ctx.alloc(256).expect("alloc");
    let arg = out.0.to_le_bytes();
    let args: [&[u8]; 1] = [&arg];
    let raw = Raw::new(&gpu);
    let mut rows = Vec::new();
    for backend in Backend::ALL {
        // Warm up: pipelines, buffers.
        ctx.launch(&program, "empty", [1, 1, 1], &args, backend).expect("launch");
        raw.submit(&gpu);
        Raw::wait(&gpu);
        let (mut px_sync, mut raw_sync, mut px_async, mut raw_async) = (vec![], vec![], vec![], vec![]);
        for _ in 0..rounds {
            let t = Instant::now();
            for _ in 0..n {
                raw.submit(&gpu);
                Raw::wait(&gpu);
            }
            raw_sync.push(per_second(n, t.elapsed()));
            let t = Instant::now();
            for _ in 0..n {
                ctx.launch(&program, "empty", [1, 1, 1], &args, backend).expect("launch");
            }
            px_sync.push(per_second(n, t.elapsed()));
            let t = Instant::now();
            for _ in 0..n {
                raw.submit(&gpu);
            }
            Raw::wait(&gpu);
            raw_async.push(per_second(n, t.elapsed()));
            let t = Instant::now();
            for _ in 0..n {
                ctx.launch_async(&program, "empty", [1, 1, 1], &args, backend).expect("launch");
            }
            ctx.synchronize().expect("synchronize");
            px_async.push(per_second(n, t.elapsed()));
        }
        rows.push((backend, "synchronous", median(px_sync), median(raw_sync)));
        rows.push((backend, "asynchronous", median(px_async), median(raw_async)));
    }
    Report { rows }
}

impl Report {
    pub fn print(&self, gpu: &Gpu, n: usize, rounds: usize) {
        println!("launch overhead on {}, empty kernel, {n} launches × {rounds} rounds (median):", gpu.describe());
        println!("| backend | launches | ptxcross launches/s | raw wgpu launches/s | time ratio ptxcross/raw |");
        println!("|---|---|---|---|---|");
        for (b, how, px, raw) in &self.rows {
            println!("| {} | {how} | {px:.0} | {raw:.0} | {:.2} |", b.name(), raw / px);
        }
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    // `cargo bench` passes `--bench`; anything else is ignored.
    let gpu = match Gpu::shared() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("no GPU: {e}");
            return;
        }
    };
    let n = env_usize("PTXCROSS_LAUNCHES", 2000);
    let rounds = env_usize("PTXCROSS_ROUNDS", 7).max(1);
    let report = run(gpu.clone(), n, rounds);
    report.print(&gpu, n, rounds);
}
