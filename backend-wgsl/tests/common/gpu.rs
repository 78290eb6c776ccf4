//! A minimal wgpu harness for execution tests: one device per test binary, the ABI's two
//! bindings, one dispatch, the heap read back.
#![allow(dead_code)]

use ptxcross_lower::abi;
use std::sync::OnceLock;

pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub features: wgpu::Features,
    pub name: String,
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
}

static GPU: OnceLock<Option<Gpu>> = OnceLock::new();

/// The shared device, or `None` (with a note on stderr) where wgpu finds no adapter.
pub fn gpu() -> Option<&'static Gpu> {
    GPU.get_or_init(|| {
        let g = open();
        match &g {
            Some(g) => eprintln!("execution tests on {} ({:?})", g.name, g.features),
            None => eprintln!("NOTE: no wgpu adapter: execution tests are skipped"),
        }
        g
    })
    .as_ref()
}

fn open() -> Option<Gpu> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let instance = wgpu::Instance::new(desc);
    let mut adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    adapters.sort_by_key(|a| match a.get_info().device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    });
    let adapter = adapters.into_iter().next()?;
    let info = adapter.get_info();
    let features = adapter.features() & (wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_F64);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("ptxcross-wgsl tests"),
        required_features: features,
        required_limits: adapter.limits(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }))
    .ok()?;
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
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &[storage(abi::BINDING_HEAP, false), storage(abi::BINDING_PARAMS, true)],
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    Some(Gpu { device, queue, features, name: format!("{} ({:?})", info.name, info.backend), layout, pipeline_layout })
}

impl Gpu {
    pub fn int64(&self) -> bool {
        self.features.contains(wgpu::Features::SHADER_INT64)
    }
    pub fn float64(&self) -> bool {
        self.features.contains(wgpu::Features::SHADER_F64)
    }

    /// Runs `entry` of `wgsl` on `groups` workgroups with `heap` and `params` bound; `heap`
    /// receives the heap's final contents.
    pub fn run(&self, wgsl: &str, entry: &str, heap: &mut [u32], params: &[u32], groups: [u32; 3]) -> Result<(), String> {
        use wgpu::util::DeviceExt;
        super::common::dump(wgsl);
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(entry),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: Some(&self.pipeline_layout),
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        });
        let bytes = |w: &[u32]| -> Vec<u8> {
            let mut v: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
            if v.is_empty() {
                v.extend([0; 4]);
            }
            v
        };
        let heap_buf = self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("heap"),
            contents: &bytes(heap),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        });
        let param_buf = self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("params"),
            contents: &bytes(params),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let size = (heap.len().max(1) * 4) as u64;
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry { binding: abi::BINDING_HEAP, resource: heap_buf.as_entire_binding() },
                wgpu::BindGroupEntry { binding: abi::BINDING_PARAMS, resource: param_buf.as_entire_binding() },
            ],
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(abi::BIND_GROUP, &bind_group, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        }
        enc.copy_buffer_to_buffer(&heap_buf, 0, &staging, 0, size);
        self.queue.submit([enc.finish()]);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(e.to_string());
        }
        let (tx, rx) = std::sync::mpsc::channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: None }).map_err(|e| e.to_string())?;
        rx.recv().map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
        let data = staging.slice(..).get_mapped_range().map_err(|e| e.to_string())?.to_vec();
        for (w, c) in heap.iter_mut().zip(data.chunks_exact(4)) {
            *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(())
    }
}
