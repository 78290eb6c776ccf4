// OpenCL C compiled by clang-16 for NVPTX:
//   clang-16 -x cl -cl-std=CL2.0 -target nvptx64-nvidia-nvcl -O2 -S
// There is no libclc here, so the module must not call OpenCL library functions (they would be
// unresolved `.func` declarations): work-item functions are NVVM builtins, math is clang
// builtins, atomics are NVVM builtins on generic pointers (OpenCL 2.0).
#define gid_x() (__nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x())

typedef struct { float x, y, z; } vec3;

__constant float weights[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

static float dot3(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__kernel void blur5(__global const float *in, __global float *out, int n) {
    int i = gid_x();
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = -2; k <= 2; k++) {
        int j = i + k < 0 ? 0 : (i + k > n - 1 ? n - 1 : i + k);
        acc += weights[k + 2] * in[j];
    }
    out[i] = acc;
}

__kernel void tile_transpose(__global const float4 *in, __global float4 *out, int w,
                             __local float4 *tile) {
    int tx = __nvvm_read_ptx_sreg_tid_x(), ty = __nvvm_read_ptx_sreg_tid_y();
    int bx = __nvvm_read_ptx_sreg_ctaid_x(), by = __nvvm_read_ptx_sreg_ctaid_y();
    tile[ty * 17 + tx] = in[(by * 16 + ty) * w + bx * 16 + tx];
    __nvvm_bar_sync(0);
    float4 v = tile[tx * 17 + ty];
    out[(bx * 16 + ty) * w + by * 16 + tx] = v.wzyx;
}

__kernel void lengths(__global const vec3 *v, __global float *len, __global int *count,
                      int n) {
    int i = gid_x();
    if (i < n) {
        float d = dot3(v[i], v[i]);
        len[i] = __builtin_sqrtf(d);
        if (d > 1.0f)
            __nvvm_atom_add_gen_i((int *)count, 1);
        float4 f = v[i].x * (float4)(1.0f, 2.0f, 3.0f, 4.0f);
        int4 c = __builtin_convertvector(f, int4) & 0xff;
        len[i] += (float)(c.x + c.w) + f.y * f.z;
    }
}
