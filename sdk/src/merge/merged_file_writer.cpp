#include "merge/merged_file_writer.hpp"

#include <cstring>
#include <utility>

#include "json/json_text.hpp"
#include "merge/decimal_text.hpp"
#include "trace/trace_number.hpp"

namespace ringprof::detail {

namespace {

// smdebug orders the timeline's processes by giving each kind of phase its own pid range; the
// first listed substring found in the phase name decides.
struct PidRange {
    const char* substring;
    std::int64_t first;
};
constexpr PidRange kRanges[] = {{"Step:", 1},           {"Forward", 10000},       {"Backward", 20000},
                                {"DataIterator", 30000}, {"Dataset", 40000},       {"/device", 50000},
                                {"/host", 60000},        {"gpu_functions", 70000}, {"cpu_functions", 80000},
                                {"Horovod", 90000},      {nullptr, 1000000}};

}  // namespace

MergedFileWriter::MergedFileWriter(std::string final_path) : file_(std::move(final_path)) {
    out_.reserve(kFlushBytes + 4096);
    for (std::size_t i = 0; i < 11; ++i) next_in_range_[i] = kRanges[i].first;
}

void MergedFileWriter::line_start() {
    if (first_line_) out_.append_literal("[\n"); else out_.append_literal(",\n");
    first_line_ = false;
}

void MergedFileWriter::append_int(std::int64_t v) {
    out_.advance(write_decimal(out_.room(24), v));
}

void MergedFileWriter::append_string(std::string_view s) {
    scratch_.clear();
    detail::append_json_string(scratch_, s, detail::NonAscii::escape);
    out_.append(scratch_);
}

// Lines are built in one buffer and handed to the file a megabyte at a time: per-line fputs/fwrite
// calls and std::to_string temporaries were a fifth of a merge's instructions. The writing thread
// writes one buffer while this one fills the other.
void MergedFileWriter::drain(bool all) {
    if (out_.size() > 0 && (all || out_.size() >= kFlushBytes)) {
        writer_.hand_over(out_);
        if (out_.capacity() == 0) out_.reserve(kFlushBytes + 4096);
    }
    if (all) writer_.wait();
}

void MergedFileWriter::write(const StoredEvent& e, const std::vector<std::string>& phase_names,
                           const std::vector<std::string>& thread_labels) {
    if (pid_of_phase_.size() <= e.phase) pid_of_phase_.resize(e.phase + 1, -1);
    if (tid_of_thread_.size() <= e.thread) {
        tid_of_thread_.resize(e.thread + 1, 0);
        middle_of_thread_.resize(e.thread + 1);
    }
    std::int64_t& pid = pid_of_phase_[e.phase];
    if (pid < 0) {
        const std::string& phase = phase_names[e.phase];
        std::size_t r = 0;
        while (kRanges[r].substring && phase.find(kRanges[r].substring) == std::string::npos) ++r;
        pid = next_in_range_[r]++;
        line_start();
        out_.append_literal("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": ");
        append_int(pid);
        out_.append_literal(", \"args\": {\"name\": ");
        append_string(phase);
        out_.append_literal("}}");
        line_start();
        out_.append_literal("{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": ");
        append_int(pid);
        out_.append_literal(", \"args\": {\"sort_index\": ");
        append_int(pid);
        out_.append_literal("}}");
        metadata_ += 2;
    }
    std::int64_t& tid = tid_of_thread_[e.thread];
    if (tid == 0) {
        tid = next_tid_++;
        line_start();
        out_.append_literal("{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": ");
        append_int(pid);
        out_.append_literal(", \"tid\": ");
        append_int(tid);
        out_.append_literal(", \"args\": {\"name\": ");
        append_string(thread_labels[e.thread]);
        out_.append_literal("}}");
        ++metadata_;
        // Everything between the name and ts is the same for every event of the track.
        std::string& middle = middle_of_thread_[e.thread];
        middle = ", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) + ", \"ph\": \"X\", \"ts\": ";
    }
    // The line in one reservation, its pieces copied straight in: appending them one by one (a
    // room check and a size update each, through two calls) was a fifth of writing a line.
    static constexpr char kStart[] = ",\n{\"name\": ";
    static constexpr char kDur[] = ", \"dur\": ";
    static constexpr std::size_t kLongestNumber = 32;  // an int64, or a float as repr prints it
    const std::string& middle = middle_of_thread_[e.thread];
    const std::size_t n = sizeof kStart - 1 + e.head.size() + middle.size() + kLongestNumber + sizeof kDur + e.tail.size();
    char* p = out_.room(n);
    std::memcpy(p, kStart, sizeof kStart - 1);
    if (first_line_) p[0] = '[';  // the first line opens the array instead
    first_line_ = false;
    char* at = p + sizeof kStart - 1;
    std::memcpy(at, e.head.data(), e.head.size());
    at += e.head.size();
    std::memcpy(at, middle.data(), middle.size());
    at += middle.size();
    // ts from the stored start, and the dur key, rather than from the record: this fits in this
    // pass's slack (it waits on the writing thread) and takes 25 bytes of fresh memory off every
    // record.
    if (!e.start.is_float) {
        at += write_ts(at, e.start.i);
    } else {
        scratch_.clear();
        append_number(scratch_, e.start);
        std::memcpy(at, scratch_.data(), scratch_.size());
        at += scratch_.size();
    }
    std::memcpy(at, kDur, sizeof kDur - 1);
    at += sizeof kDur - 1;
    std::memcpy(at, e.tail.data(), e.tail.size());
    at += e.tail.size();
    out_.advance(static_cast<std::size_t>(at - p));
    ++events_;
    if (out_.size() >= kFlushBytes) drain(false);
}

// Starts are written in order, so their leading digits rarely change: above 10^8 the digits
// before the last eight are printed once per 10^8 us (100 s of trace time) and copied after.
std::size_t MergedFileWriter::write_ts(char* out, std::int64_t v) {
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

void MergedFileWriter::finish() {
    if (first_line_) out_.append_literal("[]"); else out_.append_literal("\n]");
    drain(true);
    file_.commit();
}

}  // namespace ringprof::detail
