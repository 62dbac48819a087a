#include "merge/merged_file_writer.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <exception>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "merge/background_writer.hpp"
#include "merge/decimal_text.hpp"
#include "merge/merged_line.hpp"
#include "merge/text_buffer.hpp"
#include "process/quiet_thread.hpp"
#include "trace/trace_number.hpp"

namespace ringprof::detail {

namespace {

constexpr std::size_t kFlushBytes = 1 << 20;

// Where a slice's full buffers go: written at once (file.write_at), or queued for a writing
// thread. Either way the buffer comes back empty, to be filled again.
using HandOver = std::function<void(std::uint64_t offset, TextBuffer& full)>;

// One consecutive part of the file's lines, formatted into a buffer and handed over to be written
// at its place a megabyte at a time: per-line writes and std::to_string temporaries were a fifth
// of a merge's instructions.
class Slice {
public:
    Slice(const HandOver& hand_over, const TrackNumbering& tracks, std::uint64_t offset, bool opens_file)
        : hand_over_(hand_over), tracks_(tracks), offset_(offset), opens_file_(opens_file) {
        out_.reserve(kFlushBytes + 4096);
    }

    // The bytes add(e) writes, found by the same put_line without formatting it: the slices
    // after the first learn where they start from these.
    static std::size_t bytes_of(const StoredEvent& e, const TrackNumbering& tracks) {
        merged_line::LineSize size;
        merged_line::put_line(size, line_of(e, tracks[e.thread]));
        return size.bytes;
    }

    void add(const StoredEvent& e) {
        const TrackNumbering::Track& t = tracks_[e.thread];
        const merged_line::Line line = line_of(e, t);
        // The line in one reservation, its pieces copied straight in: appending them one by one
        // (a room check and a size update each, through two calls) was a fifth of writing a line.
        char* const p = out_.room(merged_line::room_for(line));
        Copy copy{p, *this};
        merged_line::put_line(copy, line);
        if (!line.announce.empty()) metadata += t.announce_lines;
        if (opens_file_) *p = '[';  // every line starts with ",\n", the first with "[\n"
        opens_file_ = false;
        out_.advance(static_cast<std::size_t>(copy.at - p));
        ++events;
        if (out_.size() >= kFlushBytes) flush();
    }

    // Writes what is left; returns the offset just after the slice.
    std::uint64_t finish() {
        flush();
        return offset_;
    }

    std::uint64_t events = 0, metadata = 0;

private:
    static merged_line::Line line_of(const StoredEvent& e, const TrackNumbering::Track& t) {
        // Never a null pointer, even when empty: memcpy must not be given one.
        const std::string_view announce(t.announce.data(), e.seq == t.first_seq ? t.announce.size() : 0);
        return {announce, e.head, t.middle, e.start, t.after_ts, e.tail};
    }

    // Writes put_line's pieces at `at`. ts from the stored start rather than from the record:
    // this costs the writing little and takes 25 bytes of fresh memory off every record.
    struct Copy {
        char* at;
        Slice& slice;
        void text(std::string_view s) {
            std::memcpy(at, s.data(), s.size());
            at += s.size();
        }
        void ts(TraceNumber t) {
            if (!t.is_float) {
                at += slice.write_ts(at, t.i);
            } else {
                slice.scratch_.clear();
                append_time(slice.scratch_, t);
                text(slice.scratch_);
            }
        }
    };

    void flush() {
        if (out_.size() == 0) return;
        const std::uint64_t at = offset_;
        offset_ += out_.size();
        hand_over_(at, out_);
        if (out_.capacity() == 0) out_.reserve(kFlushBytes + 4096);
    }

    // Starts are written in order, so their leading digits rarely change: above 10^8 the digits
    // before the last eight are printed once per 10^8 us (100 s of trace time) and copied after.
    // The same text as write_decimal.
    std::size_t write_ts(char* out, std::int64_t v) {
        constexpr std::int64_t kLow = 100000000;
        if (v < kLow) return write_decimal(out, v);
        const std::int64_t high = v / kLow;
        if (high != ts_high_) {
            ts_high_ = high;
            ts_high_size_ = write_decimal(ts_high_text_, high);
        }
        std::memcpy(out, ts_high_text_, sizeof ts_high_text_);
        write_eight_digits(out + ts_high_size_, static_cast<std::uint32_t>(v % kLow));
        return ts_high_size_ + 8;
    }

    const HandOver& hand_over_;
    const TrackNumbering& tracks_;
    std::uint64_t offset_;
    bool opens_file_;
    TextBuffer out_;
    std::string scratch_;
    std::int64_t ts_high_ = -1;  // v / 10^8 of the last ts above 10^8, and its text
    char ts_high_text_[24];
    std::size_t ts_high_size_ = 0;
};

// Runs task(0) .. task(n - 1): task(0) on the caller, each other on a thread started for it (a
// part whose thread the system refuses runs on the caller); returns when all are done, rethrowing
// the first exception of any.
void run_parts(std::size_t n, const std::function<void(std::size_t)>& task) {
    std::vector<std::exception_ptr> failures(n);
    const auto part = [&](std::size_t k) {
        try {
            task(k);
        } catch (...) {
            failures[k] = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    std::vector<std::size_t> on_caller{0};
    for (std::size_t k = 1; k < n; ++k) {
        try {
            threads.push_back(start_quiet_thread([&part, k] { part(k); }));
        } catch (const std::system_error&) {
            on_caller.push_back(k);
        }
    }
    for (const std::size_t k : on_caller) part(k);
    for (auto& t : threads) t.join();
    for (const auto& f : failures)
        if (f) std::rethrow_exception(f);
}

}  // namespace

MergedFileWriter::MergedFileWriter(std::string final_path, const TrackNumbering& tracks)
    : file_(std::move(final_path)), tracks_(tracks) {}

// After reading, formatting and writing were the merge's whole wall time on one thread each
// (the formatting one, and the kernel's copy into the page cache on the other, 55-90% busy)
// while the readers' cores idled. Now the store is cut into a slice per thread: first every
// thread measures a part of the slices but the last (a look at each record's sizes), then, every
// slice knowing where it starts, each formats and writes its own: both halves of the work on
// every core. A store spilled to run files is read back in one pass: one thread formats, and a
// writing thread of its own copies each megabyte into the page cache meanwhile.
void MergedFileWriter::write_sorted(RecordStore& store, unsigned threads) {
    if (!store.sort_in_memory()) {  // spilled: one pass over the run files, written on a thread of its own
        BackgroundWriter writer(file_);
        const HandOver queue = [&](std::uint64_t offset, TextBuffer& full) { writer.hand_over(offset, full); };
        Slice slice(queue, tracks_, 0, true);
        store.for_each_sorted([&](const StoredEvent& e) { slice.add(e); });
        end_ = slice.finish();
        writer.wait();
        events_ = slice.events;
        metadata_ = slice.metadata;
        return;
    }
    const HandOver write_now = [&](std::uint64_t offset, TextBuffer& full) {
        file_.write_at(offset, full.view());
        full.clear();
    };
    const std::size_t n = store.size();
    const std::size_t slices = std::max<std::size_t>(1, std::min<std::size_t>(threads, n / kMinSliceEvents));
    const auto bound = [&](std::size_t s) { return n / slices * s + std::min(s, n % slices); };
    // Measuring: [0, bound(slices - 1)) cut into one piece per thread, each piece's bytes
    // counted per slice it overlaps.
    const std::size_t measured = bound(slices - 1);
    std::vector<std::vector<std::uint64_t>> bytes_of_piece(slices, std::vector<std::uint64_t>(slices, 0));
    run_parts(slices, [&](std::size_t k) {
        const std::size_t from = measured * k / slices, to = measured * (k + 1) / slices;
        for (std::size_t s = 0; s + 1 < slices; ++s) {
            const std::size_t a = std::max(from, bound(s)), b = std::min(to, bound(s + 1));
            if (a >= b) continue;
            std::uint64_t& bytes = bytes_of_piece[k][s];
            store.visit_sorted(a, b, [&](const StoredEvent& e) { bytes += Slice::bytes_of(e, tracks_); });
        }
    });
    std::vector<std::uint64_t> offset(slices, 0);
    for (std::size_t s = 1; s < slices; ++s) {
        offset[s] = offset[s - 1];
        for (std::size_t k = 0; k < slices; ++k) offset[s] += bytes_of_piece[k][s - 1];
    }
    std::vector<std::uint64_t> ends(slices), events(slices), metadata(slices);
    run_parts(slices, [&](std::size_t s) {
        Slice slice(write_now, tracks_, offset[s], s == 0);
        store.visit_sorted(bound(s), bound(s + 1), [&](const StoredEvent& e) { slice.add(e); });
        ends[s] = slice.finish();
        events[s] = slice.events;
        metadata[s] = slice.metadata;
    });
    for (std::size_t s = 0; s < slices; ++s) {
        if (s + 1 < slices && ends[s] != offset[s + 1]) {
            throw std::runtime_error(file_.temp_path() + ": internal error: slice " + std::to_string(s) +
                                     " of the merged file came out a different size than measured");
        }
        events_ += events[s];
        metadata_ += metadata[s];
    }
    end_ = ends.back();
}

void MergedFileWriter::finish() {
    file_.write_at(end_, events_ == 0 && metadata_ == 0 ? std::string_view("[]") : std::string_view("\n]"));
    file_.commit();
}

}  // namespace ringprof::detail
