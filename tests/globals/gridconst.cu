// A __grid_constant__ kernel parameter whose address is taken: nvcc writes `mov.b64 %rd,
// param` and `cvta.param.u64` (the parameter's generic address), read by generic loads in a
// device function. Run by tests/tests/module_globals.rs against a CPU reference.
struct P { int a[4]; float s; };
__device__ __noinline__ int sum(const P *p) { return p->a[0] + p->a[1] + p->a[2] + p->a[3]; }
extern "C" __global__ void gc(const __grid_constant__ P p, int *out) {
    const P *q = &p;
    out[threadIdx.x] = q->a[threadIdx.x & 3] + sum(q) + (int)q->s;
}
