// ChunkPool: the merge's batches take their memory from it, so a chunk must never be handed to
// two owners at once, must come back when its owner is done (whichever thread that is), and must
// be reused before new memory is mapped.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "merge/chunk_pool.hpp"
#include "merge/event_batch.hpp"
#include "merge/text_buffer.hpp"
#include "temp_dir.hpp"

namespace {

using ringprof::detail::ChunkAllocator;
using ringprof::detail::ChunkPool;
using ringprof::detail::EventBatch;
using ringprof::detail::MemoryBlock;
using ringprof::detail::TextBuffer;

constexpr std::size_t kChunk = 256 * 1024;
constexpr std::size_t kPerSlab = ChunkPool::kSlabBytes / kChunk;

TEST(ChunkPool, HandsOutDisjointWritableChunksCarvedFromSlabs) {
    ChunkPool pool(kChunk);
    std::vector<MemoryBlock> held;
    for (std::size_t i = 0; i < 2 * kPerSlab + 1; ++i) {
        held.push_back(pool.take());
        std::memset(held.back().get(), static_cast<int>(i), kChunk);
    }
    EXPECT_EQ(pool.slabs(), 3u);
    std::vector<std::uintptr_t> starts;
    for (std::size_t i = 0; i < held.size(); ++i) {
        const char* p = held[i].get();
        EXPECT_EQ(p[0], static_cast<char>(i));  // no later chunk overwrote this one
        EXPECT_EQ(p[kChunk - 1], static_cast<char>(i));
        starts.push_back(reinterpret_cast<std::uintptr_t>(p));
    }
    std::sort(starts.begin(), starts.end());
    for (std::size_t i = 1; i < starts.size(); ++i) EXPECT_GE(starts[i] - starts[i - 1], kChunk);
}

TEST(ChunkPool, ChunksGivenBackAreReusedBeforeANewSlabIsMapped) {
    ChunkPool pool(kChunk);
    for (int round = 0; round < 10; ++round) {
        std::vector<MemoryBlock> held;
        for (std::size_t i = 0; i < kPerSlab; ++i) held.push_back(pool.take());
    }  // each round's blocks go back to the pool as they are destroyed
    EXPECT_EQ(pool.slabs(), 1u);
}

TEST(ChunkPool, RefusesAChunkSizeThatDoesNotDivideASlab) {
    EXPECT_THROW(ChunkPool(3000), std::invalid_argument);
    EXPECT_THROW(ChunkPool(0), std::invalid_argument);
}

// Readers take chunks, the merging thread gives them back: every chunk has one owner at a time,
// and reuse keeps the pool as small as the most chunks ever held at once.
TEST(ChunkPool, ChunksPassedBetweenThreadsHaveOneOwnerAtATime) {
    ChunkPool pool(kChunk);
    constexpr int kThreads = 4;
    constexpr std::size_t kHeldPerThread = 4;  // 16 held at most: two slabs, often drained
    const long rounds = ringprof::testing::scaled(20000);
    std::atomic<int> clobbered{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            std::vector<std::pair<MemoryBlock, std::uint64_t>> held;
            for (long r = 0; r < rounds; ++r) {
                MemoryBlock b = pool.take();
                const auto mark = static_cast<std::uint64_t>(t) << 32 | static_cast<std::uint64_t>(r);
                std::memcpy(b.get(), &mark, sizeof mark);
                std::memcpy(b.get() + kChunk - sizeof mark, &mark, sizeof mark);
                held.emplace_back(std::move(b), mark);
                for (const auto& [h, expected] : held) {
                    std::uint64_t first, last;
                    std::memcpy(&first, h.get(), sizeof first);
                    std::memcpy(&last, h.get() + kChunk - sizeof last, sizeof last);
                    if (first != expected || last != expected) ++clobbered;
                }
                if (held.size() == kHeldPerThread) held.erase(held.begin(), held.begin() + kHeldPerThread / 2);
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(clobbered.load(), 0);
    EXPECT_LE(pool.slabs(), kThreads * kHeldPerThread / kPerSlab);
}

TEST(ChunkAllocator, AVectorUpToAChunkLivesInThePoolAndOneBeyondItDoesNot) {
    ChunkPool pool(kChunk);
    {
        std::vector<std::uint64_t, ChunkAllocator<std::uint64_t>> fits{ChunkAllocator<std::uint64_t>(&pool)};
        fits.reserve(kChunk / sizeof(std::uint64_t));
        EXPECT_EQ(pool.slabs(), 1u);
        std::vector<std::uint64_t, ChunkAllocator<std::uint64_t>> larger{ChunkAllocator<std::uint64_t>(&pool)};
        larger.reserve(kChunk / sizeof(std::uint64_t) + 1);  // from malloc; given back to malloc
        larger.assign(larger.capacity(), 7);
        // The rest of the slab is still free: `larger` took none of it.
        std::vector<MemoryBlock> rest;
        for (std::size_t i = 1; i < kPerSlab; ++i) rest.push_back(pool.take());
        EXPECT_EQ(pool.slabs(), 1u);
        auto moved = std::move(fits);  // the allocator moves with the memory
        EXPECT_EQ(moved.get_allocator().pool, &pool);
    }
    // Every chunk came back: a full slab's worth can be taken without mapping another.
    std::vector<MemoryBlock> held;
    for (std::size_t i = 0; i < kPerSlab; ++i) held.push_back(pool.take());
    EXPECT_EQ(pool.slabs(), 1u);
}

TEST(TextBuffer, TakesItsFirstChunkFromThePoolAndGrowsPastItIntoMalloc) {
    ChunkPool pool(kChunk);
    for (int round = 0; round < 20; ++round) {
        TextBuffer text;
        text.take_from(&pool);
        text.append(std::string(1000, 'a'));
        EXPECT_EQ(text.capacity(), kChunk);
        const std::string big(kChunk, 'b');  // does not fit what is left of the chunk
        text.append(big);
        EXPECT_GT(text.capacity(), kChunk);
        ASSERT_EQ(text.size(), 1000 + kChunk);
        EXPECT_EQ(text.view().substr(0, 1000), std::string(1000, 'a'));
        EXPECT_EQ(text.view().substr(1000), big);
    }
    EXPECT_EQ(pool.slabs(), 1u);  // the chunk given up on growth went back each time
}

TEST(EventBatch, ABatchInPoolMemoryKeepsItsChunksWhenMoved) {
    EventBatch::Memory memory;
    EventBatch b = EventBatch::in(memory);
    const std::size_t room = b.events.capacity();
    EXPECT_EQ(room, memory.events.chunk_bytes() / sizeof(EventBatch::Event));
    b.events.resize(room);
    b.text.append("x");
    EventBatch moved = std::move(b);
    EXPECT_EQ(moved.events.capacity(), room);  // no copy into memory from elsewhere
    EXPECT_EQ(moved.events.get_allocator().pool, &memory.events);
    EXPECT_EQ(memory.text.slabs(), 1u);
    EXPECT_EQ(memory.events.slabs(), 1u);
}

}  // namespace
