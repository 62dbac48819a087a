// Sites the drainer keeps: its own copies, never the markers' Site objects.
//
// Problem: a marker's event carries a pointer to a `static constexpr Site` in the module that
// holds the marker, and every string it names (name, function, file, a signature's argument
// names and type names) lives in that module too. Aggregates, statistics rows, timeline records
// and a writer's pending spans outlive the events; a plugin or a Python extension that is
// dlclose'd takes that memory with it, and the next fold or write read unmapped memory.
// Mechanism: the first time the drainer meets a site it copies it, strings and signature
// descriptors included, into memory it owns and never frees; everything downstream of the
// decoder sees only the copy. The markers' pointers stay keys, never dereferenced after their
// first sight. When a module unloads (module_unload.cpp) its keys are forgotten, so a module
// mapped later at the same address is met afresh; its copies are kept for what already uses them,
// and taken again by a later module whose site reads the same (a plugin loaded again), so
// load/unload cycles do not grow the table.
// Bound: one copy per distinct site content ever seen.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ringprof/detail/signature_site.hpp"
#include "ringprof/site.hpp"

namespace ringprof::detail {

// The copy of one site. `sig.site` comes first, so a pointer to the copy is a Site pointer and,
// for a signature marker's site, a SignatureSite pointer (as the originals are).
struct OwnedSite {
    SignatureSite sig{};
    bool has_signature = false;
    std::string name, function, file, arg_names;
    std::deque<TypeDesc> type_storage;         // stable addresses for `types`
    std::vector<const TypeDesc*> types;        // one per argument
    std::deque<std::string> type_names;        // the TypeDescs' names
    std::string content;                       // what the site reads as: the key for taking it again
};

// The drainer's lookups go through a direct-mapped cache of its own (SiteCache), so a repeated
// site costs a hash and a compare; this table, shared with the thread that unloads a module, is
// asked only on a miss.
class SiteTable {
public:
    static SiteTable& instance();

    // The copy of `foreign`, made on first sight. `with_signature`: `foreign` is a SignatureSite
    // (a SigBegin's site), whose signature part is copied too, now or on its first such sight.
    const Site* own(const Site* foreign, bool with_signature);

    // A module spanning [lo, hi) is unloading: its sites are no longer keys.
    void forget_range(std::uintptr_t lo, std::uintptr_t hi);
    // Incremented by forget_range: a drainer's cache made before is stale.
    std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

private:
    std::unique_ptr<OwnedSite> copy(const Site* foreign, bool with_signature) const;
    static void copy_signature(OwnedSite& owned, const SignatureSite& foreign);
    static std::string content_of(const OwnedSite& owned);

    mutable std::mutex mutex_;
    std::unordered_map<const Site*, OwnedSite*> by_address_;
    // Copies no live module's site points at, by content: a module loaded again takes them back.
    std::unordered_multimap<std::string, OwnedSite*> unbound_;
    std::deque<std::unique_ptr<OwnedSite>> all_;  // never freed: aggregates and outputs use them
    std::atomic<std::uint64_t> generation_{0};
};

// The drainer's front to SiteTable: a direct-mapped cache, cleared when a module unloads.
class SiteCache {
public:
    const Site* own(const Site* foreign, bool with_signature = false) {
        // Sites are 16-aligned objects of 32 bytes or more, mostly laid out one after another, so
        // their address bits above the fifth index the cache with few collisions and no hashing.
        const std::size_t i = (reinterpret_cast<std::uintptr_t>(foreign) >> 5) & (kEntries - 1);
        const Entry& e = entries_[i];
        if (__builtin_expect(e.foreign == foreign && (!with_signature || signature_[i]), 1)) return e.owned;
        return miss(i, foreign, with_signature);
    }
    // Called before decoding events read from a ring: after a module unloaded (the table's
    // generation moved on), nothing cached is trusted.
    void refresh() {
        const std::uint64_t g = SiteTable::instance().generation();
        if (__builtin_expect(g != generation_, 0)) clear(g);
    }

private:
    static constexpr std::size_t kEntries = 1024;
    struct Entry {
        const Site* foreign = nullptr;
        const Site* owned = nullptr;
    };
    const Site* miss(std::size_t i, const Site* foreign, bool with_signature);
    void clear(std::uint64_t generation);
    std::array<Entry, kEntries> entries_{};
    std::array<bool, kEntries> signature_{};  // the entry's copy has its signature part
    std::uint64_t generation_ = 0;
};

}  // namespace ringprof::detail
