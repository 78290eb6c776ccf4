//! One opened adapter + device, shared by every [`super::Context`] of the process.
//!
//! Opening an adapter is slow (lavapipe: hundreds of ms) and a test binary runs many contexts, so
//! [`Gpu::shared`] opens it once (`OnceLock`) and hands out `Arc`s. Shader modules and pipelines
//! depend only on the device, so they are cached here too.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};

use ptxcross_lower::abi;

use super::error::Error;
use super::Backend;

/// Features requested from the adapter when it offers them (the device gets exactly these).
pub const WANTED_FEATURES: wgpu::Features = wgpu::Features::SHADER_INT64
    .union(wgpu::Features::SHADER_F64)
    .union(wgpu::Features::SHADER_F16)
    .union(wgpu::Features::SUBGROUP)
    .union(wgpu::Features::SUBGROUP_BARRIER)
    .union(wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX)
    .union(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS)
    .union(wgpu::Features::SHADER_FLOAT32_ATOMIC)
    .union(wgpu::Features::PASSTHROUGH_SHADERS)
    // GPU time of each launch (`Context::last_kernel_time`, the driver's events).
    .union(wgpu::Features::TIMESTAMP_QUERY);

/// How to pick the adapter.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GpuOptions {
    /// Backends to try; `None`: `WGPU_BACKEND` from the environment, else all.
    pub backends: Option<wgpu::Backends>,
    /// Only adapters whose name contains this (case-insensitive); `None`: `PTXCROSS_ADAPTER`
    /// from the environment, else the best one (discrete > integrated > virtual > CPU).
    pub adapter_name: Option<String>,
    /// Request only these of [`WANTED_FEATURES`] (e.g. to behave like a device without 64-bit
    /// integers); `None`: all the adapter offers.
    pub feature_mask: Option<wgpu::Features>,
}

pub(crate) type PipelineKey = (u64, Backend, String);

/// Which translation of a kernel with warp collectives a launch ran (see
/// [`super::Context::last_warp_path`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarpPath {
    /// Native subgroup operations (`ir::Features::native_warps`): the device's subgroups held
    /// whole warps.
    Native,
    /// The emulation through shared memory and barriers (the kernel's `warp_fallback` twin).
    Emulated,
}

/// An opened device and what the runtime needs to know about it.
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    features: wgpu::Features,
    pub(crate) bind_group_layout: wgpu::BindGroupLayout,
    pub(crate) pipeline_layout: wgpu::PipelineLayout,
    /// Layouts of kernels translated for `S` ≥ 2 heap segment slots (`abi::segment_binding`),
    /// by `S`, created on first use.
    pub(crate) segment_layouts: Mutex<HashMap<u32, (wgpu::BindGroupLayout, wgpu::PipelineLayout)>>,
    pub(crate) modules: Mutex<HashMap<(u64, Backend), wgpu::ShaderModule>>,
    pub(crate) pipelines: Mutex<HashMap<PipelineKey, wgpu::ComputePipeline>>,
    /// Probe results: does `fma` round once on this backend (see `probe.rs`).
    pub(crate) fma_fused: Mutex<HashMap<Backend, bool>>,
    /// Probe results: does the f64 `fma` round once on this backend (see `probe.rs`).
    pub(crate) fma_f64_fused: Mutex<HashMap<Backend, bool>>,
    /// Probe results: does the driver end long loops on its own (see `probe.rs`).
    pub(crate) loops_cut: Mutex<HashMap<Backend, bool>>,
    pub(crate) fences_lose_threads: Mutex<HashMap<Backend, bool>>,
    /// Probe results: which subnormals the device keeps (see `probe.rs`).
    pub(crate) subnormals: Mutex<HashMap<Backend, super::probe::Subnormals>>,
    /// Per native-warps pipeline (program id, backend, entry point): did its subgroup layout
    /// check pass at its first launch (a check-only launch: `abi::PARAM_WARP_CHECK_ONLY_WORD`)
    /// (`true`), or did it fault with `abi::FAULT_WARP_LAYOUT`
    /// (`false`: its emulated twin runs from then on). The check is made once per pipeline.
    pub(crate) warp_layouts: Mutex<HashMap<PipelineKey, bool>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.info.name)
            .field("backend", &self.info.backend)
            .finish()
    }
}

static SHARED: OnceLock<Result<Arc<Gpu>, Error>> = OnceLock::new();

/// Mesa's implicit Vulkan layer `VK_LAYER_MESA_device_select` connects to a Wayland display while
/// enumerating physical devices, and libwayland prints `error: XDG_RUNTIME_DIR is invalid or
/// not set in the environment.` where there is no display session (CI, containers, ssh). The
/// layer only reorders devices for presentation, which wgpu does not use (it enumerates every
/// adapter itself), so without a session it is switched off through its documented
/// `NODEVICE_SELECT` variable, once, before the first Vulkan instance. A user's own setting wins.
fn quiet_device_select_layer() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let session = std::env::var_os("XDG_RUNTIME_DIR")
            .is_some_and(|d| std::path::Path::new(&d).is_dir());
        if !session && std::env::var_os("NODEVICE_SELECT").is_none() {
            std::env::set_var("NODEVICE_SELECT", "1");
        }
    });
}

/// Every adapter wgpu finds on `backends` (`None`: `WGPU_BACKEND` from the environment, else
/// all), the most preferred first: discrete > integrated > virtual > other > CPU.
pub fn adapters(backends: Option<wgpu::Backends>) -> Vec<wgpu::Adapter> {
    quiet_device_select_layer();
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends
        .or_else(wgpu::Backends::from_env)
        .unwrap_or(wgpu::Backends::all());
    let instance = wgpu::Instance::new(desc);
    let mut list = block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    list.sort_by_key(|a| match a.get_info().device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    });
    list
}

pub(crate) fn block_on<F: Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

impl Gpu {
    /// The process-wide device (default [`GpuOptions`]), opened on first use. A failure is
    /// remembered: later calls return the same error without retrying.
    pub fn shared() -> Result<Arc<Gpu>, Error> {
        SHARED
            .get_or_init(|| Gpu::open(&GpuOptions::default()).map(Arc::new))
            .clone()
    }

    /// Opens a new device (prefer [`Gpu::shared`]).
    pub fn open(options: &GpuOptions) -> Result<Gpu, Error> {
        let adapters = adapters(options.backends);
        let wanted_name = options
            .adapter_name
            .clone()
            .or_else(|| std::env::var("PTXCROSS_ADAPTER").ok())
            .filter(|s| !s.is_empty());
        let found: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        let candidates: Vec<wgpu::Adapter> = adapters
            .into_iter()
            .filter(|a| match &wanted_name {
                Some(n) => a.get_info().name.to_lowercase().contains(&n.to_lowercase()),
                None => true,
            })
            .collect();
        let Some(adapter) = candidates.into_iter().next() else {
            let reason = match (&wanted_name, found.is_empty()) {
                (_, true) => "no Vulkan/Metal/DX12 adapter is visible to wgpu".to_string(),
                (Some(n), false) => {
                    format!(
                        "no adapter name contains `{n}` (PTXCROSS_ADAPTER); found: {}",
                        found.join(", ")
                    )
                }
                (None, false) => "no usable adapter".to_string(),
            };
            return Err(Error::NoAdapter { reason });
        };
        let info = adapter.get_info();
        let features =
            adapter.features() & WANTED_FEATURES & options.feature_mask.unwrap_or(WANTED_FEATURES);
        let limits = adapter.limits();
        let (device, queue) = block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("ptxcross"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| Error::RequestDevice {
            adapter: info.name.clone(),
            reason: e.to_string(),
        })?;
        // The default handler panics; every operation that can fail runs inside error scopes,
        // so anything reaching here is reported and otherwise ignored.
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| {
            eprintln!("ptxcross: uncaptured wgpu error: {e}");
        }));

        let storage = |binding: u32, read_only: bool| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("ptxcross kernel resources"),
            entries: &[
                storage(abi::BINDING_HEAP, false),
                storage(abi::BINDING_PARAMS, true),
                storage(abi::BINDING_SCRATCH, false),
                // The heap again, for kernels' 64-bit atomics (`abi::BINDING_HEAP64`).
                storage(abi::BINDING_HEAP64, false),
            ],
        });
        let mut layouts: Vec<Option<&wgpu::BindGroupLayout>> =
            vec![None; abi::BIND_GROUP as usize + 1];
        layouts[abi::BIND_GROUP as usize] = Some(&bind_group_layout);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("ptxcross kernel layout"),
            bind_group_layouts: &layouts,
            immediate_size: 0,
        });
        Ok(Gpu {
            device,
            queue,
            info,
            limits,
            features,
            bind_group_layout,
            pipeline_layout,
            segment_layouts: Mutex::new(HashMap::new()),
            modules: Mutex::new(HashMap::new()),
            pipelines: Mutex::new(HashMap::new()),
            fma_fused: Mutex::new(HashMap::new()),
            fma_f64_fused: Mutex::new(HashMap::new()),
            loops_cut: Mutex::new(HashMap::new()),
            fences_lose_threads: Mutex::new(HashMap::new()),
            subnormals: Mutex::new(HashMap::new()),
            warp_layouts: Mutex::new(HashMap::new()),
        })
    }

    /// The most heap segments one launch binds on this device: its storage buffers per shader
    /// stage less the four every launch has (heap, parameters, scratch, 64-bit heap view),
    /// two per further segment (`abi::max_segment_slots`; lavapipe's 32: 15; WebGPU's
    /// default 8: 3).
    pub fn max_segment_slots(&self) -> u32 {
        abi::max_segment_slots(self.limits.max_storage_buffers_per_shader_stage)
    }

    /// The bind group and pipeline layouts of kernels translated for `slots` heap segments
    /// (`slots` ≤ 1: the usual ones).
    pub(crate) fn layouts(&self, slots: u32) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
        if slots <= 1 {
            return (self.bind_group_layout.clone(), self.pipeline_layout.clone());
        }
        let mut map = self.segment_layouts.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(slots)
            .or_insert_with(|| {
                let entries: Vec<wgpu::BindGroupLayoutEntry> = (0..abi::storage_bindings(slots))
                    .map(|binding| wgpu::BindGroupLayoutEntry {
                        binding,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Storage { read_only: binding == abi::BINDING_PARAMS },
                            has_dynamic_offset: false,
                            min_binding_size: None,
                        },
                        count: None,
                    })
                    .collect();
                let bgl = self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("ptxcross kernel resources, several heap segments"),
                    entries: &entries,
                });
                let mut layouts: Vec<Option<&wgpu::BindGroupLayout>> = vec![None; abi::BIND_GROUP as usize + 1];
                layouts[abi::BIND_GROUP as usize] = Some(&bgl);
                let pl = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("ptxcross kernel layout, several heap segments"),
                    bind_group_layouts: &layouts,
                    immediate_size: 0,
                });
                (bgl, pl)
            })
            .clone()
    }

    /// Whether to translate kernels with warp collectives to native subgroup operations too
    /// (`ptxcross_lower::LowerOptions::native_warps`; the runtime then launches the native
    /// translation where its layout check passes, the emulated one elsewhere). Never without
    /// wgpu's `Features::SUBGROUP`. `PTXCROSS_WARPS`: `native` tries it on any such device (a
    /// subgroup narrower than 32 then fails the check at the first launch and the emulation
    /// runs: how tests cover the fallback on lavapipe), `emulated` never, `auto` (or unset)
    /// where every subgroup size the adapter reports is a multiple of 32
    /// ([`Gpu::subgroups_hold_warps`]).
    pub fn native_warps(&self) -> bool {
        if !self.features.contains(wgpu::Features::SUBGROUP) {
            return false;
        }
        match std::env::var("PTXCROSS_WARPS").ok().as_deref().map(str::trim) {
            Some("native") => true,
            Some("emulated") => false,
            _ => self.subgroups_hold_warps(),
        }
    }

    /// Every subgroup size the adapter reports (`subgroup_min_size ..= subgroup_max_size`,
    /// powers of two) is a multiple of 32, so a subgroup can hold whole warps (the kernel's
    /// run-time check proves the lane layout).
    pub fn subgroups_hold_warps(&self) -> bool {
        let (lo, hi) = (self.info.subgroup_min_size, self.info.subgroup_max_size);
        lo >= 32 && lo % 32 == 0 && hi % 32 == 0
    }

    /// The wgpu device (for work of the caller's own beside ptxcross's, e.g. benchmarks).
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }
    /// The device's queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }
    /// The device's limits (= the adapter's: they are requested in full).
    pub fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }
    /// The features the device was opened with (what we want ∩ what the adapter offers).
    pub fn features(&self) -> wgpu::Features {
        self.features
    }
    /// One line for reports: `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)`.
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }
    /// Largest heap segment: one storage binding of one buffer, a multiple of
    /// [`super::ALLOC_ALIGN`]. One allocation fits in one segment (less its
    /// [`super::HEAP_RESERVED_BYTES`]).
    pub fn max_segment_bytes(&self) -> u64 {
        self.limits.max_storage_buffer_binding_size.min(self.limits.max_buffer_size)
            .min(abi::SEGMENT_WINDOW)
            & !(super::ALLOC_ALIGN - 1)
    }

    /// Largest heap a context can have: [`super::MAX_SEGMENTS`] segments of
    /// [`Gpu::max_segment_bytes`] (whether the device has that much memory is found out when
    /// the segments are created, as allocations need them).
    pub fn max_heap_bytes(&self) -> u64 {
        self.max_segment_bytes() * super::MAX_SEGMENTS as u64
    }

    /// Drops cached shader modules and pipelines of a program (e.g. after a long-running tool
    /// is done with it).
    pub fn forget_program(&self, program_id: u64) {
        if let Ok(mut m) = self.modules.lock() {
            m.retain(|k, _| k.0 != program_id);
        }
        if let Ok(mut p) = self.pipelines.lock() {
            p.retain(|k, _| k.0 != program_id);
        }
        if let Ok(mut w) = self.warp_layouts.lock() {
            w.retain(|k, _| k.0 != program_id);
        }
    }

    /// Runs `f` inside validation + out-of-memory + internal error scopes and turns the first
    /// error into `Err`.
    pub(crate) fn scoped<T>(&self, f: impl FnOnce() -> T) -> (T, Option<wgpu::Error>) {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let internal = self.device.push_error_scope(wgpu::ErrorFilter::Internal);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        let e1 = block_on(validation.pop());
        let e2 = block_on(internal.pop());
        let e3 = block_on(oom.pop());
        (out, e1.or(e2).or(e3))
    }

    /// Blocks until the queue is idle.
    pub(crate) fn wait(
        &self,
        during: &'static str,
        timeout: Option<std::time::Duration>,
    ) -> Result<(), Error> {
        match self.device.poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout,
        }) {
            Ok(_) => Ok(()),
            Err(wgpu::PollError::Timeout) => Err(Error::Timeout {
                during,
                seconds: timeout.map(|t| t.as_secs()).unwrap_or(0),
            }),
            Err(e) => Err(Error::Gpu {
                during,
                message: e.to_string(),
            }),
        }
    }
}
