// CUDA's device-side malloc/free for ptxcross (CUDA C++ Programming Guide, "Dynamic Global
// Memory Allocation and Operations"). Compiled to malloc.ptx by regen.sh; `lower`
// (src/device_runtime.rs) appends that PTX to every module that declares `malloc` or `free`
// without defining them, so the heap is a `.global` array of that module (its globals
// segment, inside its context's memory) and persists across launches until freed.
//
// Design: the heap is cut into 4 KiB pages. A page is free, or serves one size class of
// small blocks (16, 32, ... 2048 bytes, one bit per slot in the page's bitmap, claimed with
// atomicOr and released with atomicAnd), or is part of a run of whole pages for one larger
// block (first fit, each page claimed with atomicCAS, rolled back on a conflict). Every
// operation is lock-free: no thread ever waits for another, so it is safe in divergent code
// on any scheduling. A page given to a size class stays with it (its slots are reused; the
// page is never handed to another class), so after many small blocks of one class are freed,
// their pages serve only that class. No fences: like CUDA's, the allocator does not order a
// thread's accesses to a block with other threads' (kernels synchronize themselves).
// No request can be served: NULL (malloc(0) too).

#define HEAP_BYTES (8u << 20)            // CUDA's default cudaLimitMallocHeapSize
#define PAGE_BYTES 4096u
#define PAGES (HEAP_BYTES / PAGE_BYTES)
#define SLOT_WORDS (PAGE_BYTES / 16u / 32u) // bitmap words of a page (16-byte slots)
#define SMALL_MAX 2048u
#define PAGE_FREE 0u
// 1..8: the page serves blocks of 16 << (class - 1) bytes.
#define PAGE_RUN 100u      // part of a run being claimed, or a run's later pages
#define PAGE_RUN_HEAD 101u // first page of a run; its length is in run_pages

__device__ __align__(16) unsigned char __ptxcross_heap[HEAP_BYTES];
__device__ unsigned int __ptxcross_page_class[PAGES];
__device__ unsigned int __ptxcross_run_pages[PAGES];
__device__ unsigned int __ptxcross_slot_bits[PAGES * SLOT_WORDS];
// Per class: the page that last served it, where the next search starts.
__device__ unsigned int __ptxcross_class_hint[8];
// Pages at or above this one were never used: searches for a class's pages stop there.
__device__ unsigned int __ptxcross_pages_used;

static __device__ unsigned int load_word(const unsigned int *p) {
    return *(const volatile unsigned int *)p;
}

// Claims a free slot of `page` (class `cls`); its index, or -1 when the page is full.
static __device__ int claim_slot(unsigned int page, unsigned int cls) {
    unsigned int slots = PAGE_BYTES >> (cls + 3); // 4096 / (16 << (cls - 1))
    unsigned int words = (slots + 31u) / 32u;
    unsigned int mask = slots >= 32u ? 0xffffffffu : (1u << slots) - 1u;
    unsigned int *bits = &__ptxcross_slot_bits[page * SLOT_WORDS];
    #pragma unroll 1
    for (unsigned int w = 0; w < words; w++) {
        unsigned int seen = load_word(&bits[w]);
        // Each failed claim means another thread took that bit: bounded by the slots.
        #pragma unroll 1
        for (unsigned int tries = 0; tries < 32u; tries++) {
            unsigned int open = ~seen & mask;
            if (open == 0u)
                break;
            unsigned int bit = open & (0u - open);
            seen = atomicOr(&bits[w], bit);
            if ((seen & bit) == 0u)
                return (int)(w * 32u + (__ffs(bit) - 1));
            seen |= bit;
        }
    }
    return -1;
}

static __device__ void *small_block(unsigned int cls) {
    // First the pages that already serve this class (all below pages_used), then a free page.
    unsigned int used = load_word(&__ptxcross_pages_used);
    unsigned int start = used ? load_word(&__ptxcross_class_hint[cls - 1]) % used : 0u;
    #pragma unroll 1
    for (unsigned int i = 0; i < used; i++) {
        unsigned int page = (start + i) % used;
        if (load_word(&__ptxcross_page_class[page]) != cls)
            continue;
        int slot = claim_slot(page, cls);
        if (slot >= 0) {
            __ptxcross_class_hint[cls - 1] = page;
            return __ptxcross_heap + page * PAGE_BYTES + ((unsigned int)slot << (cls + 3));
        }
    }
    #pragma unroll 1
    for (unsigned int page = 0; page < PAGES; page++) {
        if (load_word(&__ptxcross_page_class[page]) != PAGE_FREE)
            continue;
        unsigned int was = atomicCAS(&__ptxcross_page_class[page], PAGE_FREE, cls);
        if (was != PAGE_FREE && was != cls)
            continue;
        atomicMax(&__ptxcross_pages_used, page + 1u);
        // A page that was free has an empty bitmap (only small pages set bits, and they are
        // never freed), but other threads may fill it first.
        int slot = claim_slot(page, cls);
        if (slot >= 0) {
            __ptxcross_class_hint[cls - 1] = page;
            return __ptxcross_heap + page * PAGE_BYTES + ((unsigned int)slot << (cls + 3));
        }
    }
    return 0;
}

static __device__ void *page_run(unsigned int count) {
    unsigned int page = 0;
    #pragma unroll 1
    while (page + count <= PAGES) {
        unsigned int taken = 0;
        #pragma unroll 1
        while (taken < count && load_word(&__ptxcross_page_class[page + taken]) == PAGE_FREE &&
               atomicCAS(&__ptxcross_page_class[page + taken], PAGE_FREE, PAGE_RUN) == PAGE_FREE)
            taken++;
        if (taken == count) {
            atomicMax(&__ptxcross_pages_used, page + count);
            #pragma unroll 1
            for (unsigned int i = 0; i < count; i++)
                __ptxcross_run_pages[page + i] = count - i;
            atomicExch(&__ptxcross_page_class[page], PAGE_RUN_HEAD);
            return __ptxcross_heap + page * PAGE_BYTES;
        }
        // Page `page + taken` is not free: give back the ones taken, search after it (after
        // the rest of its run when it is in one: run_pages says how much of the run is left;
        // only a hint, as the run may be changing, so at least one page and no further than
        // the end).
        #pragma unroll 1
        for (unsigned int i = 0; i < taken; i++)
            atomicExch(&__ptxcross_page_class[page + i], PAGE_FREE);
        page += taken;
        unsigned int kind = load_word(&__ptxcross_page_class[page]);
        unsigned int skip = kind == PAGE_RUN || kind == PAGE_RUN_HEAD ? load_word(&__ptxcross_run_pages[page]) : 1u;
        page += skip >= 1u && skip <= PAGES - page ? skip : 1u;
    }
    return 0;
}

extern "C" __device__ void *malloc(size_t size) throw() {
    if (size == 0 || size > HEAP_BYTES)
        return 0;
    if (size > SMALL_MAX)
        return page_run((unsigned int)((size + PAGE_BYTES - 1) / PAGE_BYTES));
    unsigned int cls = 1;
    #pragma unroll 1
    while ((16u << (cls - 1)) < size)
        cls++;
    return small_block(cls);
}

// free(NULL), a pointer outside this module's heap (another module's, or no block's) and a
// pointer inside a block but not at its start are ignored.
extern "C" __device__ void free(void *block) throw() {
    unsigned char *p = (unsigned char *)block;
    if (p < __ptxcross_heap || p >= __ptxcross_heap + HEAP_BYTES)
        return;
    unsigned int offset = (unsigned int)(p - __ptxcross_heap);
    unsigned int page = offset / PAGE_BYTES, within = offset % PAGE_BYTES;
    unsigned int cls = load_word(&__ptxcross_page_class[page]);
    if (cls >= 1u && cls <= 8u) {
        unsigned int slot_bytes = 16u << (cls - 1);
        if (within % slot_bytes != 0u)
            return;
        unsigned int slot = within / slot_bytes;
        atomicAnd(&__ptxcross_slot_bits[page * SLOT_WORDS + slot / 32u], ~(1u << (slot % 32u)));
    } else if (cls == PAGE_RUN_HEAD && within == 0u) {
        // Claim the head back first, so two frees of one block release its run once.
        if (atomicCAS(&__ptxcross_page_class[page], PAGE_RUN_HEAD, PAGE_RUN) != PAGE_RUN_HEAD)
            return;
        unsigned int count = __ptxcross_run_pages[page];
        #pragma unroll 1
        for (unsigned int i = count; i-- > 0;)
            atomicExch(&__ptxcross_page_class[page + i], PAGE_FREE);
    }
}
