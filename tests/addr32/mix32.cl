// OpenCL C for clang's 32-bit nvptx target (.address_size 32): global, constant and local
// (shared) memory, a pointer-initialized global, generic pointers.
__constant int lut[4] = {3, 5, 7, 11};
__global int table[4] = {100, 200, 300, 400};
__global int *tp = &table[1];

static int pick(int *p, int k) { return p[k]; }  // a generic pointer

__kernel void mix32(__global const float *x, __global float *y, float a, int n, __global int *o) {
    __local int tile[64];
    int t = __nvvm_read_ptx_sreg_tid_x();
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + t;
    tile[t] = i * 3;
    __nvvm_bar_sync(0);
    if (i < n) {
        y[i] = a * x[i] + y[i];
        o[i] = pick(tile, 63 - t) + lut[i & 3] + tp[i & 1] + pick((int *)o, i);
    }
}
