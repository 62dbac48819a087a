#include "merge/chunk_pool.hpp"

#include <cstdint>
#include <cstdlib>
#include <new>
#include <stdexcept>

#include <sys/mman.h>

namespace ringprof::detail {

namespace {

// Straight from mmap, cut to a 2 MiB boundary: a slab is its own mapping, aligned without
// malloc's headers beside it, and unmapped whole with the pool.
char* map_slab() {
    constexpr std::size_t kSlab = ChunkPool::kSlabBytes;
    void* p = ::mmap(nullptr, 2 * kSlab, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (at + kSlab - 1) / kSlab * kSlab;
    if (aligned > at) ::munmap(p, aligned - at);
    ::munmap(reinterpret_cast<void*>(aligned + kSlab), at + kSlab - aligned);
    char* slab = reinterpret_cast<char*>(aligned);
#if defined(MADV_HUGEPAGE)
    ::madvise(slab, kSlab, MADV_HUGEPAGE);  // only advice: without huge pages, 4 KiB pages as before
#endif
    return slab;
}

}  // namespace

void BlockDeleter::operator()(char* p) const {
    if (pool)
        pool->give_back(p);
    else
        std::free(p);
}

ChunkPool::ChunkPool(std::size_t chunk_bytes) : chunk_bytes_(chunk_bytes) {
    if (chunk_bytes == 0 || kSlabBytes % chunk_bytes != 0)
        throw std::invalid_argument("ChunkPool: chunk size must divide 2 MiB");
}

ChunkPool::~ChunkPool() {
    for (char* s : slabs_) ::munmap(s, kSlabBytes);
}

MemoryBlock ChunkPool::take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) {
        slabs_.reserve(slabs_.size() + 1);
        free_.reserve((slabs_.size() + 1) * (kSlabBytes / chunk_bytes_));  // room for every chunk
        char* const slab = map_slab();
        slabs_.push_back(slab);
        // The slab's first chunk is handed out first.
        for (std::size_t at = kSlabBytes; at > 0; at -= chunk_bytes_) free_.push_back(slab + at - chunk_bytes_);
    }
    char* chunk = free_.back();
    free_.pop_back();
    return MemoryBlock(chunk, BlockDeleter{this});
}

void ChunkPool::give_back(char* chunk) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(chunk);  // cannot reallocate: take() reserved room for every chunk
}

std::size_t ChunkPool::slabs() const {
    std::lock_guard<std::mutex> lock(mu_);
    return slabs_.size();
}

}  // namespace ringprof::detail
