// Runs compute dispatches in headless Chromium's WebGPU for the crate's execution tests
// (tests/common/gpu.rs, with PTXCROSS_WGSL_TEST_BROWSER=1). Protocol: one JSON object per line
// on stdin, {wgsl, entry, heap: [u32], params: [u32], groups: [x, y, z]}; one per line on
// stdout, {heap: [u32]} or {error: "..."}. The first line out is {ready: "<adapter>"}.
import { createRequire } from 'node:module';
import http from 'node:http';
import readline from 'node:readline';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const exe = process.argv[2] || '/usr/lib/chromium/chromium';

const server = http.createServer((_, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<!doctype html><title>ptxcross</title>');
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const browser = await chromium.launch({
  executablePath: exe,
  args: ['--headless=new', '--no-sandbox', '--enable-unsafe-webgpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = await browser.newPage();
await page.goto(`http://127.0.0.1:${server.address().port}/`);
const ready = await page.evaluate(async () => {
  if (!navigator.gpu) return { error: 'no navigator.gpu' };
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) return { error: 'no adapter' };
  const device = await adapter.requestDevice({ requiredLimits: {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
    maxComputeInvocationsPerWorkgroup: adapter.limits.maxComputeInvocationsPerWorkgroup,
    maxComputeWorkgroupSizeX: adapter.limits.maxComputeWorkgroupSizeX,
    maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize,
  } });
  const entry = (binding, type) => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
  const bgl = device.createBindGroupLayout({ entries: [entry(0, 'storage'), entry(1, 'read-only-storage')] });
  window.ctx = { device, bgl, layout: device.createPipelineLayout({ bindGroupLayouts: [bgl] }) };
  const info = adapter.info || {};
  return { ready: `${info.vendor || ''} ${info.architecture || ''} ${info.description || ''}`.trim() || 'webgpu' };
});
process.stdout.write(JSON.stringify(ready) + '\n');
if (ready.error) process.exit(1);

const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  let out;
  try {
    const job = JSON.parse(line);
    out = await page.evaluate(async (job) => {
      const { device, bgl, layout } = window.ctx;
      device.pushErrorScope('validation');
      const module = device.createShaderModule({ code: job.wgsl });
      const info = await module.getCompilationInfo();
      const errs = info.messages.filter((m) => m.type === 'error');
      if (errs.length) {
        await device.popErrorScope();
        return { error: errs.map((m) => `${m.lineNum}:${m.linePos}: ${m.message}`).join('\n') };
      }
      const pipeline = device.createComputePipeline({ layout, compute: { module, entryPoint: job.entry } });
      const words = (a) => new Uint32Array(a.length ? a : [0]);
      const mk = (data, usage) => {
        const b = device.createBuffer({ size: data.byteLength, usage, mappedAtCreation: true });
        new Uint32Array(b.getMappedRange()).set(data);
        b.unmap();
        return b;
      };
      const heapData = words(job.heap);
      const heap = mk(heapData, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC);
      const params = mk(words(job.params), GPUBufferUsage.STORAGE);
      const read = device.createBuffer({ size: heapData.byteLength, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const bg = device.createBindGroup({ layout: bgl, entries: [
        { binding: 0, resource: { buffer: heap } }, { binding: 1, resource: { buffer: params } }] });
      const enc = device.createCommandEncoder();
      const pass = enc.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bg);
      pass.dispatchWorkgroups(...job.groups);
      pass.end();
      enc.copyBufferToBuffer(heap, 0, read, 0, heapData.byteLength);
      device.queue.submit([enc.finish()]);
      const err = await device.popErrorScope();
      if (err) return { error: err.message };
      await read.mapAsync(GPUMapMode.READ);
      const result = Array.from(new Uint32Array(read.getMappedRange()));
      read.unmap();
      heap.destroy(); params.destroy(); read.destroy();
      return { heap: result.slice(0, job.heap.length) };
    }, job);
  } catch (e) {
    out = { error: String(e && e.message || e) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
await browser.close();
server.close();
