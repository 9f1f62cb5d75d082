/*
 * malloc.c: malloc and free for posenc's wasm build, in place of Emscripten's.
 * posenc's C routines never allocate; only the JS API calls these, to stage
 * caller arrays and to back WasmArrays. Not part of the native library.
 *
 * Why not Emscripten 3.1.6's allocators, with memory that may grow to 4 GiB:
 * emmalloc forms `start + size` in 32-bit pointer arithmetic, which wraps past
 * 4 GiB, so requests that do not fit come back non-NULL (two malloc(2^31)
 * both succeed; four malloc(2^30) give a block that ends past the end of
 * memory, and the next small block lands inside it). dlmalloc refuses every
 * request of 2 GiB or more. Here addresses and sizes are summed in 64 bits: a
 * block is handed out only when it lies inside memory, and memory grows only
 * within the 4 GiB address space of wasm32.
 *
 * The design is the one of Kernighan and Ritchie, "The C Programming
 * Language" (2nd ed., 8.7): a list of free blocks in address order, first
 * fit, a block split from the tail of the free block that holds it, a freed
 * block merged with free neighbours. posenc holds few blocks at a time (the
 * live WasmArrays and one staging block per call), so the lists stay short.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define PAGE_BYTES 65536u                      /* a wasm page                  */
#define ADDRESS_SPACE ((uint64_t)1 << 32)      /* wasm32: 32-bit byte offsets  */
#define ALIGNMENT 8u                           /* Float64Array views need 8    */
#define IN_USE 1u                              /* `next` of a block handed out */

/* Every block, free or in use, starts with this header; its payload follows. */
typedef struct block {
    uint32_t size; /* bytes, header included, a multiple of ALIGNMENT        */
    uint32_t next; /* free: the next free block's address, 0 for none;
                      in use: IN_USE (never a block address: those are even) */
} block;

#define HEADER ((uint64_t)sizeof(block))
#define SMALLEST (HEADER + ALIGNMENT) /* a tail left over smaller than this stays with its block */

/* the first byte after data and stack, defined by wasm-ld (so the reserved name) */
extern unsigned char __heap_base; /* NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */

static uint32_t free_list; /* the lowest free block, 0 for none */
static int ready;

static block *at(uint64_t address)
{
    return (block *)(uintptr_t)address;
}

static uint64_t memory_end(void)
{
    return (uint64_t)__builtin_wasm_memory_size(0) * PAGE_BYTES;
}

/* Adds [address, address + size) to the free list, merged with the free
 * blocks that touch it. Merged sizes stay below 2^32: blocks lie in memory. */
static void release(uint64_t address, uint64_t size)
{
    uint32_t prev = 0, next = free_list;
    while (next != 0 && next < address) {
        prev = next;
        next = at(next)->next;
    }
    block *b = at(address);
    b->size = (uint32_t)size;
    b->next = next;
    if (next != 0 && address + size == next) {
        b->size += at(next)->size;
        b->next = at(next)->next;
    }
    if (prev == 0) {
        free_list = (uint32_t)address;
    } else if ((uint64_t)prev + at(prev)->size == address) {
        at(prev)->size += b->size;
        at(prev)->next = b->next;
    } else {
        at(prev)->next = (uint32_t)address;
    }
}

/* Hands out `need` bytes of the first free block that holds them, or 0. */
static uint64_t take(uint64_t need)
{
    uint32_t prev = 0;
    for (uint32_t f = free_list; f != 0; prev = f, f = at(f)->next) {
        block *b = at(f);
        if (b->size < need)
            continue;
        uint64_t address = f;
        if (b->size - need >= SMALLEST) { /* split: the tail is handed out */
            b->size -= (uint32_t)need;
            address += b->size;
            at(address)->size = (uint32_t)need;
        } else if (prev == 0) {
            free_list = b->next;
        } else {
            at(prev)->next = b->next;
        }
        at(address)->next = IN_USE;
        return address;
    }
    return 0;
}

/* Grows memory by the pages a block of `need` bytes lacks (a free block at
 * the end of memory counts); 0 when the address space or the engine refuses. */
static int grow(uint64_t need)
{
    uint64_t end = memory_end(), have = 0;
    for (uint32_t f = free_list; f != 0; f = at(f)->next)
        if ((uint64_t)f + at(f)->size == end)
            have = at(f)->size;
    uint64_t pages = (need - have + PAGE_BYTES - 1) / PAGE_BYTES;
    if (end + pages * PAGE_BYTES > ADDRESS_SPACE ||
        __builtin_wasm_memory_grow(0, (size_t)pages) == SIZE_MAX)
        return 0;
    release(end, pages * PAGE_BYTES);
    return 1;
}

void *malloc(size_t size)
{
    if (!ready) { /* the heap: from __heap_base to the end of the initial memory */
        uint64_t start = ((uint64_t)(uintptr_t)&__heap_base + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
        release(start, memory_end() - start);
        ready = 1;
    }
    uint64_t need = ((uint64_t)size + HEADER + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    if (need < SMALLEST)
        need = SMALLEST;
    uint64_t address = take(need);
    if (address == 0 && grow(need))
        address = take(need);
    return address == 0 ? NULL : (void *)(uintptr_t)(address + HEADER);
}

void free(void *ptr)
{
    if (ptr == NULL)
        return;
    uint64_t address = (uintptr_t)ptr - HEADER;
    if (at(address)->next != IN_USE) /* freed twice, or not from malloc */
        __builtin_trap();
    release(address, at(address)->size);
}
