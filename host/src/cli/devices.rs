//! `ptxcross devices` and `--device`: the adapters wgpu finds, and choosing one.

use std::io::Write;

use super::EXIT_OK;
use crate::runtime::{adapters, Backend, Gpu, GpuOptions, Subnormals, WANTED_FEATURES};

/// `--device N|NAME`: makes the chosen adapter the one every command opens (through
/// `PTXCROSS_ADAPTER`, which `Gpu::open` reads). Runs before any device is opened.
pub fn select(device: &str) -> Result<(), String> {
    let list = adapters(None);
    let names: Vec<String> = list.iter().map(|a| a.get_info().name).collect();
    let name = match device.parse::<usize>() {
        Ok(i) => names.get(i).cloned().ok_or_else(|| {
            format!("--device {i}: there are {} adapter(s) (see `ptxcross devices`)", names.len())
        })?,
        Err(_) => names
            .iter()
            .find(|n| n.to_lowercase().contains(&device.to_lowercase()))
            .cloned()
            .ok_or_else(|| format!("--device: no adapter name contains `{device}` (found: {})", names.join(", ")))?,
    };
    std::env::set_var("PTXCROSS_ADAPTER", name);
    Ok(())
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// What the subnormal probe found, and what it means for kernels.
fn subnormals_line(s: &Subnormals) -> String {
    let f64 = match s.f64_kept {
        None => "",
        Some(true) => ", f64 kept",
        Some(false) => ", f64 FLUSHED (kernels with f64 arithmetic are refused)",
    };
    if s.failed == u32::MAX {
        return "subnormals: the probe could not run, or PTXCROSS_ASSUME_FLUSHED names this backend: taken as \
                flushed (f32 translated to give exact results anyway; kernels that need f64 subnormals, or \
                with an f32 instruction not covered, if any, are refused)"
            .into();
    }
    let f32 = if s.f32_kept && !s.native_fma_keeps_subnormals() {
        "f32 kept (except by the native fma, which therefore runs behind a guard where fused)".to_string()
    } else if s.f32_kept {
        "f32 kept".to_string()
    } else {
        format!(
            "f32 FLUSHED ({}; f32 instructions are translated to give exact results anyway, slower where \
             they meet tiny values; a kernel with an f32 instruction not covered, if any, is refused naming it)",
            s.failed_checks().into_iter().filter(|c| c.starts_with("f32") || c.contains("to an f32")).collect::<Vec<_>>().join(", ")
        )
    };
    format!("subnormals: {f32}{f64}")
}

pub fn main() -> Result<i32, String> {
    let list = adapters(None);
    let mut out = std::io::stdout().lock();
    if list.is_empty() {
        let _ = writeln!(out, "no adapters found; {}", crate::runtime::NO_ADAPTER_HINT);
        return Ok(EXIT_OK);
    }
    for (i, adapter) in list.iter().enumerate() {
        let info = adapter.get_info();
        let lim = adapter.limits();
        let features = adapter.features();
        let _ = writeln!(out, "[{i}] {} ({:?}, {:?})", info.name, info.backend, info.device_type);
        let _ = writeln!(out, "    driver: {} {}", info.driver, info.driver_info);
        let _ = writeln!(out, "    vendor {:#06x}, device {:#06x}", info.vendor, info.device);
        let _ = writeln!(out, "    subgroup sizes: {}..={}", info.subgroup_min_size, info.subgroup_max_size);
        let _ = writeln!(
            out,
            "    limits: {} invocations per workgroup ({}x{}x{}), {} workgroups per dimension, \
             {} bytes of workgroup memory, {} bytes per storage binding, {} bytes per buffer, \
             {} storage buffers per shader stage",
            lim.max_compute_invocations_per_workgroup,
            lim.max_compute_workgroup_size_x,
            lim.max_compute_workgroup_size_y,
            lim.max_compute_workgroup_size_z,
            lim.max_compute_workgroups_per_dimension,
            lim.max_compute_workgroup_storage_size,
            lim.max_storage_buffer_binding_size,
            lim.max_buffer_size,
            lim.max_storage_buffers_per_shader_stage
        );
        let used: Vec<String> = WANTED_FEATURES
            .iter_names()
            .map(|(name, f)| format!("{}{name}", if features.contains(f) { "+" } else { "-" }))
            .collect();
        let _ = writeln!(out, "    features ptxcross uses: {}", used.join(" "));
        // Probes need a device on this adapter; they decide how kernels are translated for it.
        match Gpu::open(&GpuOptions { adapter_name: Some(info.name.clone()), ..Default::default() }) {
            Ok(gpu) => {
                let gpu = std::sync::Arc::new(gpu);
                for b in Backend::ALL {
                    let ok = b != Backend::Spirv || gpu.features().contains(wgpu::Features::PASSTHROUGH_SHADERS);
                    if !ok {
                        let _ = writeln!(out, "    {b}: not available (no SPIR-V passthrough)");
                        continue;
                    }
                    let fused = gpu.fma_is_fused(b);
                    let mode = gpu.fma_mode(b);
                    let cut = gpu.cuts_long_loops(b);
                    let fences = gpu.fences_lose_threads(b);
                    let _ = writeln!(
                        out,
                        "    {b}: fma fused {} ({}); cuts long loops {} ({}); fences lose threads {} ({}); {}",
                        yes_no(fused),
                        match mode {
                            crate::runtime::FmaMode::Native => "native fma.rn.f32",
                            crate::runtime::FmaMode::Guarded => {
                                "fma.rn native behind a guard: the native one flushes subnormals, DenormPreserve or not; \
                                 operands or results near them are recomputed exactly"
                            }
                            crate::runtime::FmaMode::Emulated if fused => "fma.rn emulated exactly: the f64 fma is not fused or flushes",
                            crate::runtime::FmaMode::Emulated => "fma.rn.f32 emulated exactly",
                        },
                        yes_no(cut),
                        if cut { "loops check for it and fault" } else { "no check" },
                        yes_no(fences),
                        if fences { "fences become sink-word atomics" } else { "memory barriers" },
                        subnormals_line(&gpu.subnormals(b))
                    );
                }
            }
            Err(e) => {
                let _ = writeln!(out, "    cannot open a device: {e}");
            }
        }
    }
    Ok(EXIT_OK)
}
