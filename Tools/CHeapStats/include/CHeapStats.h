// The heap in use, from glibc's malloc (not in Swift's Glibc module): what avocet-soak samples
// beside resident memory to tell memory held from memory fragmented.
#ifndef CHEAPSTATS_H
#define CHEAPSTATS_H
#include <malloc.h>
#include <stddef.h>

/// Bytes malloc has handed out and not had back: in its arenas and in blocks mapped on their own.
static inline size_t avocet_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
/// Gives the free memory malloc holds back to the system (glibc's malloc_trim over every arena).
static inline void avocet_heap_trim(void) { malloc_trim(0); }
#endif
