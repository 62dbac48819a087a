// Finding a tree node's child by its key in constant time, for every tree ringprof builds (the
// drainer's call trees, the process tree it folds them into, timer trees merged by the CLI and
// flame graphs built from traces). A linear scan of the siblings made a parent with n distinct
// children cost n^2: 100,000 names took seconds per flush, 1,000,000 did not finish.
//
// The index holds positions into a container the tree already keeps in its own order (first-seen
// order of children, or a node vector), so output order never depends on hashing. Open
// addressing over 32-bit positions: 4 bytes a slot, at most half the slots full, no allocation
// per entry.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace ringprof::detail {

// Work done by child lookups (candidates compared against the key) in the whole process, for
// tests that check lookups stay linear by counting work instead of timing it. Relaxed load and
// store rather than an increment: one plain add on the drainer's path; lookups counted by a
// test run on one thread at a time.
class ChildLookupWork {
public:
    static void add(std::uint64_t compared) {
        counter().store(counter().load(std::memory_order_relaxed) + compared, std::memory_order_relaxed);
    }
    static std::uint64_t read() { return counter().load(std::memory_order_relaxed); }

private:
    static std::atomic<std::uint64_t>& counter() {
        static std::atomic<std::uint64_t> compared{0};
        return compared;
    }
};

inline std::uint64_t hash_name(std::string_view name) { return std::hash<std::string_view>{}(name); }

// Below this many children a scan is as fast as hashing and costs no memory: trees keep the
// index only for nodes with more.
inline constexpr std::size_t kChildScanLimit = 8;

class ChildIndex {
public:
    static constexpr std::uint32_t kMissing = UINT32_MAX;

    bool empty() const { return used_ == 0; }

    // The position whose entry `matches(position)` accepts among those stored with `hash`, or
    // kMissing.
    template <class Matches>
    std::uint32_t find(std::uint64_t hash, Matches&& matches) const {
        if (slots_.empty()) return kMissing;
        const std::size_t mask = slots_.size() - 1;
        std::uint64_t compared = 0;
        std::uint32_t found = kMissing;
        for (std::size_t s = spread(hash) & mask;; s = (s + 1) & mask) {
            const std::uint32_t entry = slots_[s];
            if (entry == 0) break;
            ++compared;
            if (matches(entry - 1)) {
                found = entry - 1;
                break;
            }
        }
        ChildLookupWork::add(compared);
        return found;
    }

    // Adds `position` (not present yet) under `hash`; `hash_of(p)` gives the hash of any position
    // stored before, for growing.
    template <class HashOf>
    void insert(std::uint64_t hash, std::uint32_t position, HashOf&& hash_of) {
        if ((used_ + 1) * 2 > slots_.size()) grow(hash_of);
        place(hash, position);
        ++used_;
    }

    void clear() {
        slots_.clear();
        slots_.shrink_to_fit();
        used_ = 0;
    }

private:
    // Hashes of pointers and small integers differ in their high bits only: mix before masking.
    static std::size_t spread(std::uint64_t h) {
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
        return static_cast<std::size_t>(h);
    }

    void place(std::uint64_t hash, std::uint32_t position) {
        const std::size_t mask = slots_.size() - 1;
        std::size_t s = spread(hash) & mask;
        while (slots_[s] != 0) s = (s + 1) & mask;
        slots_[s] = position + 1;
    }

    template <class HashOf>
    void grow(HashOf&& hash_of) {
        std::vector<std::uint32_t> old(slots_.empty() ? 16 : slots_.size() * 2, 0);
        old.swap(slots_);
        for (const std::uint32_t entry : old) {
            if (entry != 0) place(hash_of(entry - 1), entry - 1);
        }
    }

    std::vector<std::uint32_t> slots_;  // position + 1; 0: empty
    std::uint32_t used_ = 0;
};

}  // namespace ringprof::detail
