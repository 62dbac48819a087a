// Holds the kept events until they can be written in order, within a memory budget: records go
// to an in-memory arena; when it is full they are sorted and spilled to a temporary run file, and
// the runs are merged at the end (an external merge sort). Memory is the budget plus one read
// buffer per run. Each input file is a transaction: a file found corrupt half-way is rolled back
// even if part of it was already spilled.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "merge/chunk_pool.hpp"
#include "merge/event_order.hpp"
#include "trace/trace_number.hpp"

namespace ringprof::detail {

// Arrays of 2 MiB and more on 2 MiB boundaries, advised to use transparent huge pages (the index
// and the sort's scratch, 40 bytes per event): their fresh 4 KiB pages were a fault each.
void* allocate_huge_page_aligned(std::size_t bytes);
template <class T>
struct HugePageAllocator {
    using value_type = T;
    HugePageAllocator() = default;
    template <class U>
    HugePageAllocator(const HugePageAllocator<U>&) {}
    T* allocate(std::size_t n) { return static_cast<T*>(allocate_huge_page_aligned(n * sizeof(T))); }
    void deallocate(T* p, std::size_t) { std::free(p); }
    template <class U>
    bool operator==(const HugePageAllocator<U>&) const {
        return true;
    }
    template <class U>
    bool operator!=(const HugePageAllocator<U>&) const {
        return false;
    }
};

struct StoredEvent {
    TraceNumber start;
    std::uint64_t seq = 0;     // the store's order among equal starts (file rank, then position)
    std::uint32_t thread = 0;  // the caller's id of the event's track
    std::string_view head;     // caller's text pieces, returned as given
    std::string_view tail;
};

class RecordStore {
public:
    using Block = MemoryBlock;

    RecordStore(std::size_t budget_bytes, std::string temp_parent);
    ~RecordStore();
    RecordStore(const RecordStore&) = delete;
    RecordStore& operator=(const RecordStore&) = delete;

    // Reserves the index for input of about this many bytes (inflated, for gzip files).
    void reserve_index_for(std::uint64_t input_bytes);

    // Events added after this call get the seqs event_seq(rank, 0), event_seq(rank, 1), ...: they
    // come after every event of lower-ranked files that has the same start, and before those of
    // higher-ranked ones, whatever order the files are stored in (event_order.hpp). Without it,
    // ties keep the order of add() calls.
    void begin_file(std::uint64_t rank);
    void add(const StoredEvent& e);

    // Records written in place by the caller, without a copy: kRecordHeader bytes (put_header),
    // then head, then tail. adopt() takes over a block of such records (`bytes`
    // counted against the budget; the store spills first if it would pass it), add_record() then
    // indexes each record of that block. The budget can thus be passed by one block's index.
    static constexpr std::size_t kRecordHeader = 12;  // thread, head length, tail length
    // Read back by decode() as native uint32s. Stored one by one: an array of them built on the
    // stack and copied was read back as one 8-byte word before its 4-byte stores had landed, a
    // stall that was a third of the reader's BatchSink::on_event (perf annotate).
    static void put_header(char* rec, std::uint32_t thread, std::uint32_t head_size, std::uint32_t tail_size) {
        static_assert(3 * sizeof(std::uint32_t) == kRecordHeader, "the header's layout");
        std::memcpy(rec, &thread, sizeof thread);
        std::memcpy(rec + 4, &head_size, sizeof head_size);
        std::memcpy(rec + 8, &tail_size, sizeof tail_size);
    }
    void adopt(Block block, std::size_t bytes);
    void add_record(TraceNumber start, const char* rec) {  // inline: once per event, on the merging thread
        index_.emplace_back(start, next_seq_++, rec);
        ++pending_count_;
    }
    void commit_file();    // what was added since the last commit/rollback is kept
    void rollback_file();  // ... or forgotten

    std::uint64_t size() const { return committed_count_; }
    std::size_t runs() const { return runs_.size(); }
    using Visit = std::function<void(const StoredEvent&)>;
    // Visits committed events in event_before order. Throws std::runtime_error on I/O errors.
    void for_each_sorted(const Visit& visit);
    // Sorts the committed events where they are, when nothing was spilled (returns false
    // otherwise: then only for_each_sorted serves). Afterwards visit_sorted hands out any range
    // of the order, on any thread, the store staying unchanged.
    bool sort_in_memory();
    void visit_sorted(std::size_t from, std::size_t to, const Visit& visit) const;

private:
    // 24 bytes: the packed (start, seq) and where the record lies.
    struct Entry : PackedEventKey {
        const char* rec;

        // Built where it is stored (emplace_back): built on the stack and copied, it was read
        // back as a 16-byte word before its 8-byte pieces' stores had landed, a stall that was
        // 80% of the merging thread's loop over a batch (perf annotate).
        Entry() = default;
        Entry(TraceNumber start, std::uint64_t seq, const char* record) : PackedEventKey(start, seq), rec(record) {}
    };
    struct Run {
        std::string path;
        bool pending;
    };

    void spill();
    void write_run(std::size_t from, std::size_t to, bool pending);
    void collapse_sorted_runs(std::size_t keep);
    void merge_adjacent_runs(std::size_t a, std::size_t b, std::size_t end);
    void ensure_temp_dir();

    std::size_t budget_;
    std::string temp_parent_, temp_dir_;
    // Fixed-size blocks rather than one growing vector: growth never copies what is stored.
    char* reserve(std::size_t n);
    void clear_arena();
    std::vector<Block> blocks_;
    std::vector<std::size_t> block_caps_;
    std::size_t block_used_ = 0, block_cap_ = 0, arena_bytes_ = 0;
    std::size_t committed_blocks_ = 0, committed_block_used_ = 0;
    std::vector<Entry, HugePageAllocator<Entry>> index_;
    std::size_t committed_entries_ = 0;  // index_[0, committed_entries_) belong to committed files
    // Where each sorted run of the committed entries begins (one per file until merged), run sizes
    // decreasing: runs are merged as files are committed, while readers still parse, so that the
    // end of the merge only merges a few runs instead of sorting the whole index.
    std::vector<std::size_t> sorted_runs_;
    std::vector<Entry, HugePageAllocator<Entry>> merge_scratch_;
    std::size_t committed_arena_bytes_ = 0;
    std::uint64_t next_seq_ = 0;
    std::uint64_t committed_count_ = 0, pending_count_ = 0;
    std::vector<Run> runs_;
    std::size_t removed_runs_ = 0;  // keeps run file names unique after rollbacks
};

}  // namespace ringprof::detail
