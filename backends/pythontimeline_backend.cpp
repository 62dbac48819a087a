#include "pythontimeline_backend.hpp"

#include <ctime>

#include "json/smdebug_metadata.hpp"
#include "process/node_id.hpp"
#include "process/safe_files.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/steps.hpp"

namespace ringprof::backends {

namespace {
constexpr const char* kScopePhase = "ringprof";
constexpr std::size_t kWriteChunk = std::size_t{1} << 18;

std::int64_t floor_us(std::uint64_t ns) { return static_cast<std::int64_t>(ns / 1000); }

std::string hour_folder(std::int64_t epoch_us) {
    const std::time_t secs = static_cast<std::time_t>(epoch_us / 1000000);
    std::tm tm{};
    ::gmtime_r(&secs, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y%m%d%H", &tm);
    return buf;
}

}  // namespace

PythonTimelineBackend::~PythonTimelineBackend() {
    try {
        close_file();
    } catch (...) {
        // The session already reported problems with this file; a destructor must not throw.
    }
}

std::string PythonTimelineBackend::node_id(std::int64_t pid, const std::string& host) {
    return detail::node_id(static_cast<long long>(pid), host);
}

void PythonTimelineBackend::on_start(const RunInfo& run) {
    root_ = run.output_dir;
    node_ = node_id(run.pid, run.host);
    temp_path_ = root_ + "/framework/" + node_ + "_pythontimeline.json.tmp";  // until a file is opened
    os_pid_ = run.pid;
    base_us_ = floor_us(run.start_epoch_ns);
}

void PythonTimelineBackend::on_thread_name(std::uint32_t tid, const std::string& name) { thread_names_[tid] = name; }

int PythonTimelineBackend::phase_pid(const std::string& phase) {
    auto it = phases_.find(phase);
    if (it != phases_.end()) return it->second;
    const int pid = static_cast<int>(phases_.size()) + 1;  // 0 is the time base
    phases_.emplace(phase, pid);
    return pid;
}

void PythonTimelineBackend::declare(int pid, std::uint32_t tid) {
    if (declared_phases_.insert(pid).second) {
        std::string phase;
        for (const auto& [name, id] : phases_) {
            if (id == pid) phase = name;
        }
        detail::append_phase_metadata(buf_, pid, phase, detail::NonAscii::keep);
    }
    if (declared_threads_.insert({pid, tid}).second) {
        auto it = thread_names_.find(tid);
        const std::string name = it != thread_names_.end() ? it->second : "thread " + std::to_string(tid);
        detail::append_thread_metadata(buf_, pid, tid, name, detail::NonAscii::keep);
    }
}

void PythonTimelineBackend::open_file(std::uint64_t now_ns) {
    // Every folder below the output folder is opened without following a link, and kept open
    // for the rename at close.
    const std::string name = node_ + "_pythontimeline.json";
    file_.open(detail::OutputFolder::open(root_).subfolder("framework"), name, name + ".tmp");
    temp_path_ = file_.temp_path();
    opened_ns_ = now_ns;
    file_bytes_ = 0;
    end_us_ = 0;
    declared_phases_.clear();
    declared_threads_.clear();
    // The time base comes first in every file: smdebug reads each file's events against it.
    buf_ += "[\n";
    detail::append_time_base(buf_, base_us_);
}

void PythonTimelineBackend::write_out() {
    if (buf_.empty() || !file_.is_open()) return;
    file_bytes_ += buf_.size();
    try {
        file_.append(buf_);  // what a full disk does not take is kept and written first next time
    } catch (...) {
        buf_.clear();
        throw;
    }
    buf_.clear();
}

bool PythonTimelineBackend::due_to_rotate(std::uint64_t now_ns) const {
    // Not while bytes wait for a full disk: the file is finished once they are written.
    return file_.is_open() && file_.pending_bytes() == 0 &&
           (file_bytes_ + buf_.size() >= max_bytes_ || (max_age_ns_ != 0 && now_ns - opened_ns_ >= max_age_ns_));
}

void PythonTimelineBackend::close_file() {
    if (!file_.is_open()) return;
    // Counts a reader of this format has no other place for; smdebug's reader ignores M events
    // it does not know.
    buf_ += ",\n{\"name\": \"ringprof_drops\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"dropped_spans\": ";
    append_int(buf_, static_cast<std::int64_t>(status_.dropped_spans));
    buf_ += ", \"filtered_spans\": ";
    append_int(buf_, static_cast<std::int64_t>(status_.filtered_spans));
    buf_ += ", \"dropped_scopes\": ";
    append_int(buf_, static_cast<std::int64_t>(dropped_scopes_));
    buf_ += "}}\n]\n";
    write_out();
    // Only a complete file goes under pevents/: one that cannot be completed is given up where
    // it is, and the error names it.
    if (!file_.close_complete()) return;
    const detail::OutputFolder hour = file_.folder().subfolder("pevents").subfolder(hour_folder(end_us_));
    // A name is never reused, nor anything already there replaced; a later END_US still covers
    // every event in the file.
    file_.place_into(hour, [this](unsigned n) {
        return std::to_string(end_us_ + static_cast<std::int64_t>(n)) + "_" + node_ + "_pythontimeline.json";
    });
}

void PythonTimelineBackend::on_spans(const SpanBatch& batch) {
    const std::uint64_t now = wall_clock_ns();
    for (const Span& s : batch.spans) {
        if (due_to_rotate(now)) close_file();
        if (!file_.is_open()) open_file(now);
        const int mode = step_mode_of(s.site);
        const int pid = phase_pid(mode >= 0 ? std::string(s.name) : std::string(kScopePhase));
        declare(pid, s.tid);
        const std::int64_t b = floor_us(s.begin_ns);
        const std::int64_t e = floor_us(s.end_ns);
        if (e > end_us_) end_us_ = e;
        buf_ += ",\n{\"name\": ";
        buf_ += names_.quoted(s.name);
        buf_ += ", \"pid\": ";
        append_int(buf_, pid);
        buf_ += ", \"tid\": ";
        append_int(buf_, s.tid);
        buf_ += ", \"ph\": \"X\", \"ts\": ";
        append_int(buf_, b - base_us_);
        buf_ += ", \"dur\": ";
        append_int(buf_, e - b);
        if (mode >= 0) {
            buf_ += ", \"args\": {\"pid\": ";
            append_int(buf_, os_pid_);
            buf_ += ", \"step_num\": \"";
            append_int(buf_, s.step);
            buf_ += "\"}}";
        } else if (s.has_step) {
            buf_ += ", \"args\": {\"step_num\": \"";
            append_int(buf_, s.step);
            buf_ += "\"}}";
        } else {
            buf_ += '}';
        }
        if (buf_.size() >= kWriteChunk) write_out();
    }
    write_out();
    file_.throw_new_problem();
}

void PythonTimelineBackend::on_timeline_flush(const TimelineStatus& status) {
    status_ = status;
    write_out();
    file_.throw_new_problem();
}

void PythonTimelineBackend::on_idle(std::uint64_t now_epoch_ns) {
    file_.retry();  // a disk that was full may take what is pending now
    if (max_age_ns_ != 0 && due_to_rotate(now_epoch_ns)) close_file();
    file_.throw_new_problem();
}

void PythonTimelineBackend::on_snapshot(const Snapshot& snapshot) { dropped_scopes_ = snapshot.dropped; }

void PythonTimelineBackend::on_close() { close_file(); }

}  // namespace ringprof::backends
