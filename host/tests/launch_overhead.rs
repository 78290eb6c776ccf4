//! CI smoke run of the launch-overhead benchmark (`host/benches/launch_overhead.rs`): a few
//! launches of each variant, no timing assertion (the figures are printed).

mod common;

#[path = "../benches/launch_overhead.rs"]
mod bench;

#[test]
fn launch_overhead_benchmark_runs() {
    let Some(gpu) = common::gpu() else { return };
    let report = bench::run(gpu.clone(), 20, 1);
    assert_eq!(report.rows.len(), 4);
    report.print(&gpu, 20, 1);
}
