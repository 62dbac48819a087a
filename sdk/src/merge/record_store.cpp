#include "merge/record_store.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <queue>
#include <stdexcept>
#include <system_error>

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

namespace ringprof::detail {

namespace {

constexpr std::size_t kRecordHeader = RecordStore::kRecordHeader;
constexpr std::size_t kRunReadBuffer = 256 * 1024;
constexpr std::size_t kRecordsAhead = 16;

constexpr std::size_t kBlock = 4 << 20;
constexpr std::size_t kHugePage = 2 << 20;

// Blocks on 2 MiB boundaries, marked for transparent huge pages where the kernel offers them
// (Debian's default is "madvise"): each 4 KiB page of a fresh block cost a page fault, and the
// arena's faults were most of a merge's ~33,000 (perf stat, bench_merge input).
RecordStore::Block allocate_block(std::size_t& cap) {
    cap = (cap + kHugePage - 1) / kHugePage * kHugePage;
    return RecordStore::Block(static_cast<char*>(allocate_huge_page_aligned(cap)));
}

template <class T>
void put_at(char*& out, T v) {
    std::memcpy(out, &v, sizeof v);
    out += sizeof v;
}

template <class T>
void put(std::vector<char>& out, T v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    out.insert(out.end(), p, p + sizeof v);
}

template <class T>
T get(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Events arrive file by file and each file is nearly in time order, so an index is a few long
// sorted runs: merging the runs takes log2(runs) passes where std::sort takes log2(n) (on the
// bench_merge input, 33 files: 6 passes instead of 19, a fifth of the sort's instructions).
// Entries are ordered by event_before: seqs are unique, so the order is total and ties need no stability.
template <class Index>
void sort_by_start(Index& index, std::size_t from, std::size_t to) {
    using Entry = typename Index::value_type;
    auto less = [](const Entry& a, const Entry& b) { return event_before(a, b); };
    std::vector<std::size_t> bounds{from};
    for (std::size_t i = from + 1; i < to; ++i)
        if (less(index[i], index[i - 1])) bounds.push_back(i);
    bounds.push_back(to);
    if (bounds.size() <= 2) return;
    Index scratch(to - from);
    const auto at = [](Index& v, std::size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
    Index* src = &index;
    Index* dst = &scratch;
    std::size_t src_base = 0, dst_base = from;  // position i of [from, to) lives at v[i - base]
    while (bounds.size() > 2) {
        std::vector<std::size_t> merged{from};
        for (std::size_t r = 0; r + 1 < bounds.size(); r += 2) {
            const std::size_t a = bounds[r], b = bounds[r + 1];
            const std::size_t c = r + 2 < bounds.size() ? bounds[r + 2] : b;
            std::merge(at(*src, a - src_base), at(*src, b - src_base), at(*src, b - src_base), at(*src, c - src_base),
                       at(*dst, a - dst_base), less);
            merged.push_back(c);
        }
        bounds.swap(merged);
        std::swap(src, dst);
        std::swap(src_base, dst_base);
    }
    if (src != &index) std::copy(src->begin(), src->end(), at(index, from));
}

// A record's bytes, header included (put_header: thread, head length, tail length).
std::size_t record_size(const char* rec) {
    return kRecordHeader + get<std::uint32_t>(rec + 4) + std::size_t{get<std::uint32_t>(rec + 8)};
}

StoredEvent decode(const char* rec, TraceNumber start, std::uint64_t seq) {
    StoredEvent e;
    e.start = start;
    e.seq = seq;
    e.thread = get<std::uint32_t>(rec);
    const auto hl = get<std::uint32_t>(rec + 4);
    const auto tl = get<std::uint32_t>(rec + 8);
    e.head = std::string_view(rec + kRecordHeader, hl);
    e.tail = std::string_view(rec + kRecordHeader + hl, tl);
    return e;
}

// Reads a run file back one record at a time.
class RunCursor {
public:
    explicit RunCursor(const std::string& path) : path_(path), buf_(kRunReadBuffer) {
        f_ = std::fopen(path.c_str(), "rb");
        if (!f_) throw std::runtime_error(path + ": cannot reopen spill file: " + std::strerror(errno));
        std::setvbuf(f_, buf_.data(), _IOFBF, buf_.size());
    }
    ~RunCursor() {
        if (f_) std::fclose(f_);
    }
    RunCursor(const RunCursor&) = delete;
    RunCursor& operator=(const RunCursor&) = delete;

    bool advance() {
        char hdr[1 + 8 + 8];
        const std::size_t n = std::fread(hdr, 1, sizeof hdr, f_);
        if (n == 0) return false;
        if (n != sizeof hdr) fail();
        start = hdr[0] ? TraceNumber::floating(get<double>(hdr + 1)) : TraceNumber::integer(get<std::int64_t>(hdr + 1));
        seq = get<std::uint64_t>(hdr + 9);
        rec_.resize(kRecordHeader);
        if (std::fread(rec_.data(), 1, kRecordHeader, f_) != kRecordHeader) fail();
        const std::size_t body = record_size(rec_.data()) - kRecordHeader;
        rec_.resize(kRecordHeader + body);
        if (body && std::fread(rec_.data() + kRecordHeader, 1, body, f_) != body) fail();
        return true;
    }
    StoredEvent event() const { return decode(rec_.data(), start, seq); }

    TraceNumber start;
    std::uint64_t seq = 0;

private:
    [[noreturn]] void fail() { throw std::runtime_error(path_ + ": spill file is short (temporary folder full?)"); }
    std::string path_;
    std::vector<char> buf_;
    std::FILE* f_ = nullptr;
    std::vector<char> rec_;
};

}  // namespace

void* allocate_huge_page_aligned(std::size_t bytes) {
    void* p = nullptr;
    if (bytes < kHugePage) {
        p = std::malloc(bytes ? bytes : 1);
    } else {
        bytes = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        p = std::aligned_alloc(kHugePage, bytes);
#if defined(MADV_HUGEPAGE)
        if (p) ::madvise(p, bytes, MADV_HUGEPAGE);  // only advice: without huge pages, 4 KiB pages as before
#endif
    }
    if (!p) throw std::bad_alloc();
    return p;
}

RecordStore::RecordStore(std::size_t budget_bytes, std::string temp_parent)
    : budget_(std::max<std::size_t>(budget_bytes, 4096)), temp_parent_(std::move(temp_parent)) {}

// Room for the index at once, where doubling copied it about log2(n) times onto fresh pages
// (realloc 0.9% of a merge's CPU time, on the merging thread): address space only, faulted in as
// it fills. As much as the input can need, and never more than the budget (the store spills
// first) nor 256 MiB: reserving the budget's worth whatever the input made a merge of one small
// file cost 80 ms under ASan, which poisons the whole reservation's shadow (fuzz_pythontimeline ran
// 12 inputs a second).
void RecordStore::reserve_index_for(std::uint64_t input_bytes) {
    constexpr std::size_t kMaxIndexReserve = std::size_t{256} << 20;
    constexpr std::uint64_t kSmallestEvent = 16;  // bytes of input per stored event, at the least
    const std::uint64_t events = input_bytes / kSmallestEvent + 1;
    const std::size_t cap = std::min(budget_, kMaxIndexReserve) / sizeof(Entry) + 1;
    index_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(events, cap)));
}

RecordStore::~RecordStore() {
    if (!temp_dir_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(temp_dir_, ec);
    }
}

void RecordStore::ensure_temp_dir() {
    if (!temp_dir_.empty()) return;
    std::string tmpl = (std::filesystem::path(temp_parent_) / "ringprof-merge-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
        throw std::runtime_error(tmpl + ": cannot create a folder for spill files: " + std::strerror(errno));
    }
    temp_dir_ = tmpl;
}

char* RecordStore::reserve(std::size_t n) {
    if (blocks_.empty() || block_cap_ - block_used_ < n) {
        block_cap_ = std::max(kBlock, n);
        blocks_.push_back(allocate_block(block_cap_));  // left uninitialised: every byte is written before use
        block_caps_.push_back(block_cap_);
        block_used_ = 0;
    }
    char* p = blocks_.back().get() + block_used_;
    block_used_ += n;
    arena_bytes_ += n;
    return p;
}

void RecordStore::clear_arena() {
    blocks_.clear();
    block_caps_.clear();
    block_used_ = block_cap_ = arena_bytes_ = 0;
}

void RecordStore::begin_file(std::uint64_t rank) { next_seq_ = event_seq(rank, 0); }

void RecordStore::add(const StoredEvent& e) {
    char* rec = reserve(kRecordHeader + e.head.size() + e.tail.size());
    index_.emplace_back(e.start, next_seq_++, rec);
    put_at(rec, e.thread);
    put_at(rec, static_cast<std::uint32_t>(e.head.size()));
    put_at(rec, static_cast<std::uint32_t>(e.tail.size()));
    // An empty piece may have no data pointer at all, which memcpy must not be given.
    if (!e.head.empty()) std::memcpy(rec, e.head.data(), e.head.size());
    if (!e.tail.empty()) std::memcpy(rec + e.head.size(), e.tail.data(), e.tail.size());
    ++pending_count_;
    if (arena_bytes_ + index_.size() * sizeof(Entry) > budget_) spill();
}

void RecordStore::adopt(Block block, std::size_t bytes) {
    if (!index_.empty() && arena_bytes_ + bytes + index_.size() * sizeof(Entry) > budget_) spill();
    blocks_.push_back(std::move(block));
    block_caps_.push_back(bytes);
    block_cap_ = block_used_ = bytes;  // full: add() starts a block of its own
    arena_bytes_ += bytes;
}

void RecordStore::write_run(std::size_t from, std::size_t to, bool pending) {
    if (from == to) return;
    sort_by_start(index_, from, to);
    ensure_temp_dir();
    const std::string path = temp_dir_ + "/run" + std::to_string(runs_.size() + removed_runs_);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw std::runtime_error(path + ": cannot create spill file: " + std::strerror(errno));
    std::vector<char> out;
    out.reserve(1 << 20);
    bool ok = true;
    for (std::size_t i = from; i < to && ok; ++i) {
        const Entry& en = index_[i];
        const char* rec = en.rec;
        const std::size_t len = record_size(rec);
        const TraceNumber start = en.start();
        out.push_back(start.is_float ? 1 : 0);
        if (start.is_float)
            put(out, start.d);
        else
            put(out, start.i);
        put(out, en.seq());
        out.insert(out.end(), rec, rec + len);
        if (out.size() >= (1 << 20)) {
            ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
            out.clear();
        }
    }
    if (ok && !out.empty()) ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
    if (std::fclose(f) != 0) ok = false;
    if (!ok) throw std::runtime_error(path + ": cannot write spill file (temporary folder full?)");
    runs_.push_back({path, pending});
}

void RecordStore::spill() {
    write_run(0, committed_entries_, false);
    write_run(committed_entries_, index_.size(), true);
    clear_arena();
    index_.clear();
    sorted_runs_.clear();
    committed_entries_ = 0;
    committed_blocks_ = committed_block_used_ = committed_arena_bytes_ = 0;
}

// The file's events become one sorted run (nearly always already in order: one pass of
// comparisons), merged with the runs before it while the run below is no larger. The stack of
// runs then halves in size from bottom to top, so each event is moved about log2(files) times
// over the whole merge, as with one sort at the end, but mostly while other files are still being
// parsed, and for_each_sorted only merges the few runs left (bench_merge input: 33 files, 5 runs
// left; the end-of-merge sort was 8% of the merge's CPU time, all of it after reading).
void RecordStore::commit_file() {
    sort_by_start(index_, committed_entries_, index_.size());
    if (index_.size() > committed_entries_) sorted_runs_.push_back(committed_entries_);
    committed_entries_ = index_.size();
    collapse_sorted_runs(0);
    committed_blocks_ = blocks_.size();
    committed_block_used_ = block_used_;
    committed_arena_bytes_ = arena_bytes_;
    for (auto& r : runs_) r.pending = false;
    committed_count_ += pending_count_;
    pending_count_ = 0;
}

void RecordStore::rollback_file() {
    index_.resize(committed_entries_);
    if (blocks_.size() > committed_blocks_) {
        blocks_.resize(committed_blocks_);
        block_caps_.resize(committed_blocks_);
        block_cap_ = block_caps_.empty() ? 0 : block_caps_.back();
    }
    block_used_ = committed_block_used_;
    arena_bytes_ = committed_arena_bytes_;
    for (auto it = runs_.begin(); it != runs_.end();) {
        if (it->pending) {
            std::remove(it->path.c_str());
            ++removed_runs_;
            it = runs_.erase(it);
        } else {
            ++it;
        }
    }
    pending_count_ = 0;
}

// Merges while the run below the top is no larger than the top one (`keep` == 0), or until at most
// `keep` runs are left.
void RecordStore::collapse_sorted_runs(std::size_t keep) {
    while (sorted_runs_.size() >= 2) {
        const std::size_t n = sorted_runs_.size();
        const std::size_t a = sorted_runs_[n - 2], b = sorted_runs_[n - 1];
        const std::size_t below = b - a, top = committed_entries_ - b;
        if (keep == 0 ? below > top : n <= keep) break;
        merge_adjacent_runs(a, b, committed_entries_);
        sorted_runs_.pop_back();
    }
}

// Merges the sorted runs index_[a, b) and index_[b, end) in place, by event_before. Entries already
// in their final place at either end are left alone: only the overlap of the two runs' times moves.
void RecordStore::merge_adjacent_runs(std::size_t a, std::size_t b, std::size_t end) {
    auto less = [](const Entry& x, const Entry& y) { return event_before(x, y); };
    const auto at = [&](std::size_t i) { return index_.begin() + static_cast<std::ptrdiff_t>(i); };
    if (a == b || b == end || !less(index_[b], index_[b - 1])) return;  // already in order
    // The first run's entries not after index_[b] stay; the second run's not before index_[b - 1] too.
    const std::size_t from = static_cast<std::size_t>(std::upper_bound(at(a), at(b), index_[b], less) - index_.begin());
    const std::size_t to =
        static_cast<std::size_t>(std::lower_bound(at(b), at(end), index_[b - 1], less) - index_.begin());
    // The smaller side goes aside: scratch is then at most half the index, reserved once (address
    // space, faulted in as used), where copying the first side each time made a larger scratch,
    // freshly allocated for each larger merge (fresh pages are what the kernel's time goes to).
    if (merge_scratch_.capacity() == 0) merge_scratch_.reserve(index_.capacity() / 2 + 1);
    if (b - from <= to - b) {
        merge_scratch_.assign(at(from), at(b));
        // Writing forwards from `from` never overtakes the second side's next unread entry.
        std::size_t i = 0, j = b, out = from;
        const std::size_t left = merge_scratch_.size();
        while (i < left && j < to)
            index_[out++] = less(index_[j], merge_scratch_[i]) ? index_[j++] : merge_scratch_[i++];
        while (i < left) index_[out++] = merge_scratch_[i++];
    } else {
        merge_scratch_.assign(at(b), at(to));
        // Writing backwards from `to` never overtakes the first side's next unread entry.
        std::size_t i = b, j = merge_scratch_.size(), out = to;
        while (j > 0 && i > from)
            index_[--out] = less(merge_scratch_[j - 1], index_[i - 1]) ? index_[--i] : merge_scratch_[--j];
        while (j > 0) index_[--out] = merge_scratch_[--j];
    }
}

bool RecordStore::sort_in_memory() {
    rollback_file();  // anything not committed is not part of the answer
    if (!runs_.empty()) return false;
    // The runs left (a handful) merged into one, to be visited in order: interleaving them by a
    // look at every run's head cost about 170 instructions an event, merging them about 60
    // (callgrind, bench_merge input: 988 M -> 951 M instructions for the whole merge).
    collapse_sorted_runs(1);
    return true;
}

void RecordStore::visit_sorted(std::size_t from, std::size_t to, const Visit& visit) const {
    for (std::size_t i = from; i < to; ++i) {
        // Records lie where their files' batches put them, so in time order each is a cache
        // miss: fetched ahead, a few events before it is written.
        if (i + kRecordsAhead < to) __builtin_prefetch(index_[i + kRecordsAhead].rec);
        visit(decode(index_[i].rec, index_[i].start(), index_[i].seq()));
    }
}

void RecordStore::for_each_sorted(const Visit& visit) {
    if (sort_in_memory()) {
        visit_sorted(0, index_.size(), visit);
        return;
    }
    spill();
    std::vector<std::unique_ptr<RunCursor>> cursors;
    for (const auto& r : runs_) cursors.push_back(std::make_unique<RunCursor>(r.path));
    auto later = [&](std::size_t a, std::size_t b) {
        return event_before(cursors[b]->start, cursors[b]->seq, cursors[a]->start, cursors[a]->seq);
    };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heap(later);
    for (std::size_t i = 0; i < cursors.size(); ++i) {
        if (cursors[i]->advance()) heap.push(i);
    }
    while (!heap.empty()) {
        const std::size_t i = heap.top();
        heap.pop();
        visit(cursors[i]->event());
        if (cursors[i]->advance()) heap.push(i);
    }
}

}  // namespace ringprof::detail
