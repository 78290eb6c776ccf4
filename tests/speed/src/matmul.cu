// matmul: C (n x n) = A (n x n) * B (n x n), row-major, through 16x16 tiles in shared memory
// (the CUDA programming guide's shared-memory example). n is a multiple of 16. Each product is
// accumulated with fmaf in k order, so the result is fixed by this source.
#define TILE 16

extern "C" __global__ void matmul(const float *a, const float *b, float *c, int n)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        as[ty][tx] = a[row * n + t + tx];
        bs[ty][tx] = b[(t + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            sum = fmaf(as[ty][k], bs[k][tx], sum);
        __syncthreads();
    }
    c[row * n + col] = sum;
}
