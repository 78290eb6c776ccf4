//! A minimal harness for execution tests: one device per test binary, the ABI's two
//! bindings, one dispatch, the heap read back. Through wgpu (lavapipe in CI), or, with
//! `PTXCROSS_WGSL_TEST_BROWSER=1`, through headless Chromium's WebGPU (Tint + SwiftShader) via
//! `tools/tint-check/serve.mjs` (needs chromium and playwright-core, see tools/tint-check).
#![allow(dead_code)]

use ptxcross_lower::abi;
use std::sync::OnceLock;

pub struct Gpu {
    pub features: wgpu::Features,
    pub name: String,
    imp: Imp,
}

enum Imp {
    Wgpu { device: wgpu::Device, queue: wgpu::Queue, layout: wgpu::BindGroupLayout, pipeline_layout: wgpu::PipelineLayout },
    Browser(std::sync::Mutex<Browser>),
}

struct Browser {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::io::BufReader<std::process::ChildStdout>,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
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
    if std::env::var_os("PTXCROSS_WGSL_TEST_BROWSER").is_some_and(|v| !v.is_empty() && v != "0") {
        return Some(open_browser().unwrap_or_else(|e| panic!("PTXCROSS_WGSL_TEST_BROWSER: {e}")));
    }
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
    Some(Gpu {
        features,
        name: format!("{} ({:?})", info.name, info.backend),
        imp: Imp::Wgpu { device, queue, layout, pipeline_layout },
    })
}

fn open_browser() -> Result<Gpu, String> {
    use std::io::BufRead;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/tint-check/serve.mjs");
    let cache = std::env::var("PTXCROSS_TOOLS_CACHE").unwrap_or_else(|_| {
        format!("{}/ptxcross-tint-check", std::env::var("TMPDIR").unwrap_or_else(|_| "/tmp".into()))
    });
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/lib/chromium/chromium".into());
    let mut child = std::process::Command::new("node")
        .arg(&script)
        .arg(&chromium)
        .env("NODE_PATH", format!("{cache}/node_modules"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("node: {e}"))?;
    let input = child.stdin.take().ok_or("no stdin")?;
    let mut output = std::io::BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut line = String::new();
    output.read_line(&mut line).map_err(|e| e.to_string())?;
    let v: serde_json::Value = serde_json::from_str(&line).map_err(|e| format!("{e}: {line:?}"))?;
    let name = match v.get("ready") {
        Some(n) => format!("Chromium WebGPU: {}", n.as_str().unwrap_or("?")),
        None => return Err(format!("browser runner: {line}")),
    };
    let browser = Browser { child, input, output };
    Ok(Gpu { features: wgpu::Features::empty(), name, imp: Imp::Browser(std::sync::Mutex::new(browser)) })
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
        // The header word the host fills with 1.0 (the float guards depend on it).
        let mut params = params.to_vec();
        if let Some(w) = params.get_mut(abi::PARAM_ONE_F32_WORD as usize) {
            *w = abi::ONE_F32_BITS;
        }
        let params = &params[..];
        let (device, queue, layout, pipeline_layout) = match &self.imp {
            Imp::Wgpu { device, queue, layout, pipeline_layout } => (device, queue, layout, pipeline_layout),
            Imp::Browser(b) => {
                let mut b = b.lock().map_err(|e| e.to_string())?;
                return b.run(wgsl, entry, heap, params, groups);
            }
        };
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(entry),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: Some(pipeline_layout),
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
        let heap_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("heap"),
            contents: &bytes(heap),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        });
        let param_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("params"),
            contents: &bytes(params),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let size = (heap.len().max(1) * 4) as u64;
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: layout,
            entries: &[
                wgpu::BindGroupEntry { binding: abi::BINDING_HEAP, resource: heap_buf.as_entire_binding() },
                wgpu::BindGroupEntry { binding: abi::BINDING_PARAMS, resource: param_buf.as_entire_binding() },
            ],
        });
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(abi::BIND_GROUP, &bind_group, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        }
        enc.copy_buffer_to_buffer(&heap_buf, 0, &staging, 0, size);
        queue.submit([enc.finish()]);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(e.to_string());
        }
        let (tx, rx) = std::sync::mpsc::channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        device.poll(wgpu::PollType::Wait { submission_index: None, timeout: None }).map_err(|e| e.to_string())?;
        rx.recv().map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
        let data = staging.slice(..).get_mapped_range().map_err(|e| e.to_string())?.to_vec();
        for (w, c) in heap.iter_mut().zip(data.chunks_exact(4)) {
            *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(())
    }
}

impl Browser {
    fn run(&mut self, wgsl: &str, entry: &str, heap: &mut [u32], params: &[u32], groups: [u32; 3]) -> Result<(), String> {
        use std::io::{BufRead, Write};
        let job = serde_json::json!({ "wgsl": wgsl, "entry": entry, "heap": heap, "params": params, "groups": groups });
        writeln!(self.input, "{job}").map_err(|e| e.to_string())?;
        self.input.flush().map_err(|e| e.to_string())?;
        let mut line = String::new();
        self.output.read_line(&mut line).map_err(|e| e.to_string())?;
        let v: serde_json::Value = serde_json::from_str(&line).map_err(|e| format!("{e}: {line:?}"))?;
        if let Some(e) = v.get("error") {
            return Err(e.to_string());
        }
        let words = v.get("heap").and_then(|h| h.as_array()).ok_or_else(|| format!("bad reply {line:?}"))?;
        for (w, x) in heap.iter_mut().zip(words) {
            *w = x.as_u64().ok_or("bad word")? as u32;
        }
        Ok(())
    }
}
