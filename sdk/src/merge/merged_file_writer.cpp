#include "merge/merged_file_writer.hpp"

#include <utility>

#include "merge/python_json.hpp"

namespace ringprof::merge {

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
    for (std::size_t i = 0; i < 11; ++i) next_in_range_[i] = kRanges[i].first;
}

void MergedFileWriter::line(std::string_view text) {
    file_.write(first_line_ ? "[\n" : ",\n");
    first_line_ = false;
    file_.write(text);
}

void MergedFileWriter::write(const StoredEvent& e, const std::vector<std::string>& phase_names,
                           const std::vector<std::string>& thread_labels) {
    if (pid_of_phase_.size() <= e.phase) pid_of_phase_.resize(e.phase + 1, -1);
    if (tid_of_thread_.size() <= e.thread) tid_of_thread_.resize(e.thread + 1, 0);
    std::int64_t& pid = pid_of_phase_[e.phase];
    std::string& s = scratch_;
    if (pid < 0) {
        const std::string& phase = phase_names[e.phase];
        std::size_t r = 0;
        while (kRanges[r].substring && phase.find(kRanges[r].substring) == std::string::npos) ++r;
        pid = next_in_range_[r]++;
        const std::string p = std::to_string(pid);
        s = "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + p + ", \"args\": {\"name\": ";
        append_python_string(s, phase);
        s += "}}";
        line(s);
        line("{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": " + p + ", \"args\": {\"sort_index\": " + p + "}}");
        metadata_ += 2;
    }
    std::int64_t& tid = tid_of_thread_[e.thread];
    if (tid == 0) {
        tid = next_tid_++;
        s = "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " + std::to_string(pid) + ", \"tid\": " +
            std::to_string(tid) + ", \"args\": {\"name\": ";
        append_python_string(s, thread_labels[e.thread]);
        s += "}}";
        line(s);
        ++metadata_;
    }
    s = "{\"name\": ";
    s += e.head;
    s += ", \"pid\": ";
    s += std::to_string(pid);
    s += ", \"tid\": ";
    s += std::to_string(tid);
    s += ", \"ph\": \"X\", \"ts\": ";
    s += e.tail;
    line(s);
    ++events_;
}

void MergedFileWriter::finish() {
    file_.write(first_line_ ? "[]" : "\n]");
    file_.commit();
}

}  // namespace ringprof::merge
