// Memory for the merge's batches, in fixed-size chunks carved from 2 MiB slabs advised to use
// transparent huge pages. A batch's text becomes the store's records (RecordStore::adopt), so all
// of it is memory the kernel must fault in; from malloc that was one fault per 4 KiB page, and
// malloc's arenas gave the consumed batches' event arrays back to the kernel only to fault them
// in again for the next ones: 13,000 faults in a merge of bench_merge's input, the costliest thing
// the kernel did for it. A chunk given back (a consumed event array, a spilled or rolled-back
// store) is handed out again before a new slab is made; slabs are freed only with the pool, which
// must therefore outlive every block taken from it.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>
#include <vector>

namespace ringprof::detail {

class ChunkPool;

// Frees a block the way it was allocated: back to its pool, or std::free without one.
struct BlockDeleter {
    ChunkPool* pool = nullptr;
    void operator()(char* p) const;
};
using MemoryBlock = std::unique_ptr<char, BlockDeleter>;

class ChunkPool {
public:
    static constexpr std::size_t kSlabBytes = 2 * 1024 * 1024;  // one huge page

    explicit ChunkPool(std::size_t chunk_bytes);  // a divisor of kSlabBytes
    ~ChunkPool();
    ChunkPool(const ChunkPool&) = delete;
    ChunkPool& operator=(const ChunkPool&) = delete;

    std::size_t chunk_bytes() const { return chunk_bytes_; }
    // A chunk, uninitialised. Thread-safe: one lock per chunk, not per event.
    MemoryBlock take();
    void give_back(char* chunk) noexcept;  // a chunk from take(), released from its block
    std::size_t slabs() const;

private:
    const std::size_t chunk_bytes_;
    mutable std::mutex mu_;
    std::vector<char*> slabs_;
    std::vector<char*> free_;
};

// For a std::vector whose capacity is reserved once: up to a chunk from the pool, larger (or
// without a pool) from malloc. Propagates with the vector, so a moved batch keeps its pool.
template <class T>
struct ChunkAllocator {
    using value_type = T;
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_copy_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;

    ChunkPool* pool = nullptr;
    ChunkAllocator() = default;
    explicit ChunkAllocator(ChunkPool* p) : pool(p) {}
    template <class U>
    ChunkAllocator(const ChunkAllocator<U>& o) : pool(o.pool) {}

    bool from_pool(std::size_t n) const { return pool && n * sizeof(T) <= pool->chunk_bytes(); }
    T* allocate(std::size_t n) {
        if (from_pool(n)) return reinterpret_cast<T*>(pool->take().release());
        void* p = std::malloc(n * sizeof(T));
        if (!p) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (from_pool(n))
            pool->give_back(reinterpret_cast<char*>(p));
        else
            std::free(p);
    }
    template <class U>
    bool operator==(const ChunkAllocator<U>& o) const {
        return pool == o.pool;
    }
    template <class U>
    bool operator!=(const ChunkAllocator<U>& o) const {
        return pool != o.pool;
    }
};

}  // namespace ringprof::detail
