// SageMaker Debugger's pythontimeline files (FORMATS.md §2), readable by smdebug's own
// TraceEventParser and MergedTimeline:
//   <output_dir>/framework/pevents/<YYYYMMDDHH>/<END_US>_<NODE_ID>_pythontimeline.json
// written as <output_dir>/framework/<NODE_ID>_pythontimeline.json.tmp (or another free name, if
// a regular file already has that one) and renamed when the file rotates (size or age) or the
// session ends, so every file under pevents/ is complete JSON. A file that cannot be completed
// (a disk that stays full) becomes framework/<NODE_ID>_pythontimeline.json.incomplete instead
// (process/streamed_file.hpp); a disk full for a moment only delays the rename. Folders and files are made as
// process/safe_files.hpp says: a link planted at any of these names is refused, never followed.
//
// Phases (smdebug's "pid"): 0 is the time base, `Step:ModeKeys.<MODE>` holds the steps and
// "ringprof" every scope; threads are told apart by `tid`, each declared by a thread_name event
// in every file that uses it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "process/safe_files.hpp"
#include "process/streamed_file.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/timeline_backend.hpp"
#include "timeline_text.hpp"

namespace ringprof::backends {

class PythonTimelineBackend : public TimelineBackend {
public:
    // A file always takes at least 4 KiB before it rotates (a limit of 0 would write a file per span).
    static constexpr std::uint64_t kMinFileBytes = 4096;

    PythonTimelineBackend(std::uint64_t max_bytes, std::uint32_t max_seconds)
        : max_bytes_(max_bytes > kMinFileBytes ? max_bytes : kMinFileBytes),
          max_age_ns_(std::uint64_t{max_seconds} * 1000000000ull) {}
    ~PythonTimelineBackend() override;

    const char* name() const override { return "pythontimeline"; }
    void on_start(const RunInfo& run) override;
    void on_spans(const SpanBatch& batch) override;
    void on_thread_name(std::uint32_t tid, const std::string& name) override;
    void on_timeline_flush(const TimelineStatus& status) override;
    void on_idle(std::uint64_t now_epoch_ns) override;
    void on_snapshot(const Snapshot& snapshot) override;
    void on_close() override;

    // smdebug's node id: "<pid>-<host>" with every '_' turned into '-'.
    static std::string node_id(std::int64_t pid, const std::string& host);
    const std::string& temp_path() const { return temp_path_; }

private:
    void open_file(std::uint64_t now_ns);
    bool due_to_rotate(std::uint64_t now_ns) const;
    void close_file();  // renames it into pevents/
    void write_out();
    int phase_pid(const std::string& phase);
    void declare(int pid, std::uint32_t tid);

    const std::uint64_t max_bytes_;
    const std::uint64_t max_age_ns_;
    std::string root_;
    std::string node_;
    std::string temp_path_;
    std::int64_t os_pid_ = 0;
    std::int64_t base_us_ = 0;  // start_time_since_epoch_in_micros

    std::map<std::string, int> phases_;  // phase name -> pid, stable over files (as smdebug)
    std::unordered_map<std::uint32_t, std::string> thread_names_;
    NameCache names_;

    detail::StreamedFile file_;  // in <output_dir>/framework; never written by a forked child
    std::uint64_t opened_ns_ = 0;
    std::uint64_t file_bytes_ = 0;
    std::int64_t end_us_ = 0;  // the largest event end in the open file, absolute
    std::set<int> declared_phases_;
    std::set<std::pair<int, std::uint32_t>> declared_threads_;
    std::string buf_;

    TimelineStatus status_;
    std::uint64_t dropped_scopes_ = 0;
};

}  // namespace ringprof::backends
