//! Helpers shared by the host's integration tests.
#![allow(dead_code)]

use std::process::Output;
use std::sync::Arc;

use ptxcross::runtime::Gpu;

/// The shared device, or `None` (with a note) when there is no adapter, unless CI requires one
/// (`PTXCROSS_REQUIRE_GPU=1`).
pub fn gpu() -> Option<Arc<Gpu>> {
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

/// Whether a `ptxcross` run found no adapter (then a GPU test skips, unless CI requires one).
pub fn no_adapter(o: &Output) -> bool {
    let err = String::from_utf8_lossy(&o.stderr);
    if !err.contains("no GPU adapter found") {
        return false;
    }
    assert!(std::env::var("PTXCROSS_REQUIRE_GPU").map_or(true, |v| v != "1"), "{err}");
    eprintln!("skipping: no GPU adapter");
    true
}

/// The options the runtime translates with for the shared device and both backends
/// (`Gpu::lower_options`: the driver workarounds a launch insists on, exact f32 where a backend
/// flushes subnormals, …); the defaults without a device.
pub fn device_options() -> ptxcross_lower::LowerOptions {
    Gpu::shared().map(|g| g.lower_options(&ptxcross::runtime::Backend::ALL)).unwrap_or_default()
}
