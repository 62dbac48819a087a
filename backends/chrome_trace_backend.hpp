// <output_dir>/<run_id>_trace.json.gz: the Chrome / Perfetto trace event format (FORMATS.md §3),
// streamed through zlib while the program runs, one event per line:
//
//   {"displayTimeUnit":"ns","traceEvents":[
//   {"ph":"M",...},                        <- every streamed event line ends with "},"
//   {"ph":"X","pid":..,"tid":..,"ts":12.345,"dur":0.250,"name":"env_step","args":{"step":3}},
//   {"ph":"M","name":"ringprof_status",...}
//   ],"otherData":{...drop counts...}}     <- written at close
//
// `ts` is microseconds since the session started (three decimals: nanoseconds), the start's
// wall-clock time is in otherData and in the process's labels. The gzip stream is flushed
// (Z_SYNC_FLUSH) at every ringprof flush and at least every `sync_ms` while spans arrive. It is
// written as <run_id>_trace.json.gz.<pid>.tmp and takes its name only once whole
// (process/streamed_file.hpp; <run_id>_trace.json.gz.incomplete if it cannot be completed), so a
// killed process leaves the .tmp file, whose every complete line up to the last flush can be read:
//   zcat run_trace.json.gz.*.tmp 2>/dev/null | grep -a '^{"ph".*},$' | sed 's/,$//'   # JSON lines
// (docs/backends.md shows how to turn that into a file Perfetto opens).
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>

#include "process/streamed_file.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/timeline_backend.hpp"
#include "timeline_text.hpp"

namespace ringprof::backends {

class ChromeTraceBackend : public TimelineBackend {
public:
    explicit ChromeTraceBackend(std::uint32_t sync_ms) : sync_ns_(std::uint64_t{sync_ms} * 1000000ull) {}
    ~ChromeTraceBackend() override;

    const char* name() const override { return "trace"; }
    void on_start(const RunInfo& run) override;
    void on_spans(const SpanBatch& batch) override;
    void on_thread_name(std::uint32_t tid, const std::string& name) override;
    void on_counter(const char* name, std::uint64_t epoch_ns, std::uint32_t tid, double value) override;
    void on_timeline_flush(const TimelineStatus& status) override;
    void on_idle(std::uint64_t now_epoch_ns) override;
    void on_snapshot(const Snapshot& snapshot) override;
    void on_close() override;

    const std::string& path() const { return path_; }

    // A span's line (and, for a span that marks a step, the step's instant line after it), as
    // on_spans writes it: ts from the run's start, the name already a JSON string.
    static void append_span(std::string& buf, const Span& s, std::int64_t pid, std::uint64_t start_epoch_ns,
                            std::string_view quoted_name, bool marks_step);

private:
    void open_stream();
    void start_compressing();
    void compress(int flush);  // buf_ into the gzip stream
    void sync();
    void append_ts(std::uint64_t epoch_ns);
    void append_status_counter(std::uint64_t epoch_ns);

    const std::uint64_t sync_ns_;
    std::string path_;
    RunInfo run_;
    detail::StreamedFile file_;  // never written by a forked child
    z_stream z_{};
    bool z_open_ = false;
    bool failed_ = false;
    std::string buf_;
    std::string out_;
    NameCache names_;
    std::uint64_t last_sync_ns_ = 0;
    TimelineStatus status_;
    std::uint64_t dropped_scopes_ = 0;
};

}  // namespace ringprof::backends
