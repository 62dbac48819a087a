#include "chrome_trace_backend.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <utility>

#include "process/safe_files.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/steps.hpp"

namespace ringprof::backends {

namespace {
constexpr std::size_t kChunk = std::size_t{1} << 16;
}  // namespace

ChromeTraceBackend::~ChromeTraceBackend() {
    if (z_open_) deflateEnd(&z_);
}

void ChromeTraceBackend::on_start(const RunInfo& run) {
    run_ = run;
    open_stream();
}

void ChromeTraceBackend::open_stream() {
    try {
        const std::string name = run_.run_id + "_trace.json.gz";
        path_ = output_path(run_.output_dir, name);
        file_.open(detail::OutputFolder::open(run_.output_dir), name, name + "." + std::to_string(run_.pid) + ".tmp");
    } catch (const OutputRefused&) {
        failed_ = true;
        throw;
    } catch (const OutputError& e) {
        failed_ = true;
        throw OutputError(std::string(e.what()) + " (no trace is written)", e.folder(), e.reason());
    }
    buf_ += "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    buf_ += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":";
    append_int(buf_, run_.pid);
    buf_ += ",\"args\":{\"name\":";
    append_json_string(buf_, run_.run_id);
    buf_ += "}},\n{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":";
    append_int(buf_, run_.pid);
    buf_ += ",\"args\":{\"labels\":";
    append_json_string(
        buf_, "host " + run_.host + ", start_time_since_epoch_in_micros " + std::to_string(run_.start_epoch_ns / 1000));
    buf_ += "}},\n";  // compressed with the first spans, on the timeline writer (start_compressing)
}

// Not in on_start: the compressor's state (~256 KiB, zeroed) is about half of the instructions the
// default session's start costs the thread that starts it, often a marker's first call (callgrind);
// the first compression runs on the timeline writer.
void ChromeTraceBackend::start_compressing() {
    // Level 1: the writer must keep up with millions of spans per second; the text is
    // repetitive enough that the fastest level still compresses it about tenfold.
    if (deflateInit2(&z_, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        failed_ = true;
        throw OutputError("cannot start compressing '" + path_ + "'");
    }
    z_open_ = true;
    out_.resize(kChunk);
}

void ChromeTraceBackend::compress(int flush) {
    if (!file_.is_open()) {
        buf_.clear();
        return;
    }
    if (!z_open_) start_compressing();
    z_.next_in = reinterpret_cast<Bytef*>(buf_.data());
    z_.avail_in = static_cast<uInt>(buf_.size());
    for (;;) {
        z_.next_out = reinterpret_cast<Bytef*>(out_.data());
        z_.avail_out = static_cast<uInt>(out_.size());
        const int rc = deflate(&z_, flush);
        const std::size_t produced = out_.size() - z_.avail_out;
        if (produced != 0) {
            try {
                file_.append(std::string_view(reinterpret_cast<const char*>(out_.data()), produced));
            } catch (const OutputError&) {
                failed_ = true;  // given up: the message says where what was written is kept
                buf_.clear();
                throw;
            }
        }
        if (rc == Z_STREAM_END) break;
        if (z_.avail_in == 0 && z_.avail_out != 0) break;
    }
    buf_.clear();
}

void ChromeTraceBackend::sync() {
    if (!file_.is_open()) return;
    compress(Z_SYNC_FLUSH);  // written straight to the file: nothing is left in a user-space buffer
    last_sync_ns_ = wall_clock_ns();
}

void ChromeTraceBackend::append_ts(std::uint64_t epoch_ns) {
    append_trace_ts(buf_, static_cast<std::int64_t>(epoch_ns - run_.start_epoch_ns));
}

void ChromeTraceBackend::on_thread_name(std::uint32_t tid, const std::string& name) {
    if (!file_.is_open()) return;
    buf_ += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":";
    append_int(buf_, run_.pid);
    buf_ += ",\"tid\":";
    append_int(buf_, tid);
    buf_ += ",\"args\":{\"name\":";
    append_json_string(buf_, name);
    buf_ += "}},\n";
}

void ChromeTraceBackend::append_span(std::string& buf, const Span& s, std::int64_t pid, std::uint64_t start_epoch_ns,
                                     std::string_view quoted_name, bool marks_step) {
    const auto append_ts = [&](std::uint64_t epoch_ns) {
        append_trace_ts(buf, static_cast<std::int64_t>(epoch_ns - start_epoch_ns));
    };
    buf += marks_step ? "{\"ph\":\"X\",\"cat\":\"step\",\"pid\":" : "{\"ph\":\"X\",\"pid\":";
    append_int(buf, pid);
    buf += ",\"tid\":";
    append_int(buf, s.tid);
    buf += ",\"ts\":";
    append_ts(s.begin_ns);
    buf += ",\"dur\":";
    append_trace_dur(buf, static_cast<std::int64_t>(s.begin_ns - start_epoch_ns),
                     static_cast<std::int64_t>(s.end_ns - start_epoch_ns));
    buf += ",\"name\":";
    buf += quoted_name;
    if (marks_step) {
        // The step also as an instant across the process: a line through every thread.
        buf += ",\"args\":{\"step_num\":\"";
        append_int(buf, s.step);
        buf += "\"}},\n{\"ph\":\"i\",\"s\":\"p\",\"pid\":";
        append_int(buf, pid);
        buf += ",\"tid\":";
        append_int(buf, s.tid);
        buf += ",\"ts\":";
        append_ts(s.begin_ns);
        buf += ",\"name\":";
        buf += quoted_name;
        buf += ",\"args\":{\"step_num\":\"";
        append_int(buf, s.step);
        buf += "\"}},\n";
    } else if (s.has_step) {
        buf += ",\"args\":{\"step\":";
        append_int(buf, s.step);
        buf += "}},\n";
    } else {
        buf += "},\n";
    }
}

void ChromeTraceBackend::on_spans(const SpanBatch& batch) {
    if (!file_.is_open()) return;
    for (const Span& s : batch.spans) {
        append_span(buf_, s, run_.pid, run_.start_epoch_ns, names_.quoted(s.name), step_mode_of(s.site) >= 0);
        if (buf_.size() >= kChunk) compress(Z_NO_FLUSH);
    }
    compress(Z_NO_FLUSH);
    if (sync_ns_ != 0 && wall_clock_ns() - last_sync_ns_ >= sync_ns_) sync();
    file_.throw_new_problem();
}

void ChromeTraceBackend::on_counter(const char* name, std::uint64_t epoch_ns, std::uint32_t tid, double value) {
    static_cast<void>(tid);  // counters belong to the process in this format
    if (!file_.is_open() || !std::isfinite(value)) return;
    char num[32];
    const int n = std::snprintf(num, sizeof num, "%.17g", value);
    buf_ += "{\"ph\":\"C\",\"pid\":";
    append_int(buf_, run_.pid);
    buf_ += ",\"ts\":";
    append_ts(epoch_ns);
    buf_ += ",\"name\":";
    buf_ += names_.quoted(name);
    buf_ += ",\"args\":{\"value\":";
    buf_.append(num, static_cast<std::size_t>(n));
    buf_ += "}},\n";
}

void ChromeTraceBackend::append_status_counter(std::uint64_t epoch_ns) {
    buf_ += "{\"ph\":\"C\",\"pid\":";
    append_int(buf_, run_.pid);
    buf_ += ",\"ts\":";
    append_ts(epoch_ns);
    buf_ += ",\"name\":\"ringprof dropped\",\"args\":{\"timeline_spans\":";
    append_int(buf_, static_cast<std::int64_t>(status_.dropped_spans));
    buf_ += ",\"ring_scopes\":";
    append_int(buf_, static_cast<std::int64_t>(dropped_scopes_));
    buf_ += "}},\n";
}

void ChromeTraceBackend::on_timeline_flush(const TimelineStatus& status) {
    if (!file_.is_open()) return;
    status_ = status;
    append_status_counter(status.now_epoch_ns);
    sync();
    file_.throw_new_problem();
}

void ChromeTraceBackend::on_idle(std::uint64_t now_epoch_ns) {
    if (!file_.is_open()) return;
    file_.retry();  // a disk that was full may take what is pending now
    // The header waits in buf_ until the first compression.
    const bool anything = z_.total_in != 0 || !buf_.empty();
    if (sync_ns_ != 0 && anything && now_epoch_ns - last_sync_ns_ >= sync_ns_) sync();
    file_.throw_new_problem();
}

void ChromeTraceBackend::on_snapshot(const Snapshot& snapshot) { dropped_scopes_ = snapshot.dropped; }

void ChromeTraceBackend::on_close() {
    if (!file_.is_open()) return;
    std::string counts = "\"timeline_dropped_spans\":" + std::to_string(status_.dropped_spans) +
                         ",\"timeline_filtered_spans\":" + std::to_string(status_.filtered_spans) +
                         ",\"dropped_scopes\":" + std::to_string(dropped_scopes_);
    buf_ += "{\"ph\":\"M\",\"name\":\"ringprof_status\",\"pid\":";
    append_int(buf_, run_.pid);
    buf_ += ",\"args\":{" + counts + "}}\n],\"otherData\":{\"run_id\":";
    append_json_string(buf_, run_.run_id);
    buf_ += ",\"host\":";
    append_json_string(buf_, run_.host);
    buf_ +=
        ",\"start_time_since_epoch_in_micros\":" + std::to_string(run_.start_epoch_ns / 1000) + "," + counts + "}}\n";
    compress(Z_FINISH);
    deflateEnd(&z_);
    z_open_ = false;
    file_.finish();  // the trace takes its name only whole: gzip trailer included
}

}  // namespace ringprof::backends
