// Globals initialized with addresses (PTX ISA §5.4.4): nvcc writes `generic(var)+offset`
// fields, tables of them, and, for a pointer at an unaligned place of a packed struct, the
// mask() operator on each byte (`0xFF00(generic(table)+8)`). Run by
// tests/tests/module_globals.rs against a CPU reference; regenerate with regen.sh.

__device__ int table[6] = {10, 20, 30, 40, 50, 60};
__constant__ int ctab[4] = {7, 8, 9, 11};
__device__ int *tp = &table[2];
__device__ int *ptrs[3] = {&table[0], &table[5], &table[3]};
__device__ const int *cp = &ctab[1];
struct Node { char tag; int *p; short s; };
__device__ Node nodes[2] = {{'a', &table[1], 5}, {'b', &table[4], 6}};
struct Packed { char c[3]; int *p; } __attribute__((packed));
__device__ Packed pk = {{'x', 'y', 'z'}, &table[2]};

// out[t] for thread t of one block of 8.
extern "C" __global__ void readptrs(int *out) {
    int t = threadIdx.x;
    int r;
    switch (t) {
    case 0: r = *tp; break;
    case 1: r = *ptrs[0] + *ptrs[1] + *ptrs[2]; break;
    case 2: case 3: case 4: r = cp[t - 2]; break;
    case 5: r = *nodes[0].p + *nodes[1].p + nodes[1].tag + nodes[0].s; break;
    case 6: r = *pk.p + pk.c[1]; break;
    default: r = ptrs[1][-1] + tp[-2]; break;
    }
    out[t] = r;
}

// A store through a pointer of the table, seen through the variable by the next launch.
extern "C" __global__ void write_through(int v) { *ptrs[2] = v; }
extern "C" __global__ void after(int *out) { out[threadIdx.x] = table[3] + *tp + threadIdx.x; }
