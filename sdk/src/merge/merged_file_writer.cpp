#include "merge/merged_file_writer.hpp"

#include <charconv>
#include <utility>

#include "json/json_text.hpp"

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
    out_ += first_line_ ? "[\n" : ",\n";
    first_line_ = false;
}

void MergedFileWriter::append_int(std::int64_t v) {
    char buf[24];
    out_.append(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}

// Lines are built in one buffer and handed to the file a megabyte at a time: per-line fputs/fwrite
// calls and std::to_string temporaries were a fifth of a merge's instructions.
void MergedFileWriter::drain(bool all) {
    if (out_.empty() || (!all && out_.size() < kFlushBytes)) return;
    file_.write(out_);
    out_.clear();
}

void MergedFileWriter::write(const StoredEvent& e, const std::vector<std::string>& phase_names,
                           const std::vector<std::string>& thread_labels) {
    if (pid_of_phase_.size() <= e.phase) pid_of_phase_.resize(e.phase + 1, -1);
    if (tid_of_thread_.size() <= e.thread) tid_of_thread_.resize(e.thread + 1, 0);
    std::int64_t& pid = pid_of_phase_[e.phase];
    if (pid < 0) {
        const std::string& phase = phase_names[e.phase];
        std::size_t r = 0;
        while (kRanges[r].substring && phase.find(kRanges[r].substring) == std::string::npos) ++r;
        pid = next_in_range_[r]++;
        line_start();
        out_ += "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": ";
        append_int(pid);
        out_ += ", \"args\": {\"name\": ";
        detail::append_json_string(out_, phase, detail::NonAscii::escape);
        out_ += "}}";
        line_start();
        out_ += "{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": ";
        append_int(pid);
        out_ += ", \"args\": {\"sort_index\": ";
        append_int(pid);
        out_ += "}}";
        metadata_ += 2;
    }
    std::int64_t& tid = tid_of_thread_[e.thread];
    if (tid == 0) {
        tid = next_tid_++;
        line_start();
        out_ += "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": ";
        append_int(pid);
        out_ += ", \"tid\": ";
        append_int(tid);
        out_ += ", \"args\": {\"name\": ";
        detail::append_json_string(out_, thread_labels[e.thread], detail::NonAscii::escape);
        out_ += "}}";
        ++metadata_;
    }
    line_start();
    out_ += "{\"name\": ";
    out_ += e.head;
    out_ += ", \"pid\": ";
    append_int(pid);
    out_ += ", \"tid\": ";
    append_int(tid);
    out_ += ", \"ph\": \"X\", \"ts\": ";
    out_ += e.tail;
    ++events_;
    drain(false);
}

void MergedFileWriter::finish() {
    out_ += first_line_ ? "[]" : "\n]";
    drain(true);
    file_.commit();
}

}  // namespace ringprof::detail
