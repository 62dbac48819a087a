// MergedTimeline: find the files, read each into the record store (one transaction per file, so
// a bad file leaves nothing behind), then write the store out in order.
#include "ringprof/merged_timeline.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "json/json_text.hpp"
#include "merge/decimal_text.hpp"
#include "merge/event_order.hpp"
#include "merge/file_readers.hpp"
#include "merge/merged_file_writer.hpp"
#include "merge/merged_line.hpp"
#include "merge/record_store.hpp"
#include "merge/system_metric_events.hpp"
#include "merge/system_metric_rows.hpp"
#include "merge/trace_files.hpp"
#include "merge/trace_selection.hpp"
#include "merge/track_numbering.hpp"
#include "process/node_id.hpp"
#include "trace/byte_source.hpp"
#include "trace/trace_reader.hpp"

namespace ringprof {

namespace m = detail;

namespace {

// Interned phase names and thread tracks; a track is one thread of one node within one phase.
// The merge's phases and thread tracks, numbered in order of registration (the numbers stay inside
// the merge: the output numbers pids and tids in order of first appearance). Readers register the
// tracks of the file they read, once per track, under the lock; the merging thread reads the names
// only after every reader is done.
class Tables {
public:
    // The (phase, thread) ids of a file's track.
    std::pair<std::uint32_t, std::uint32_t> ids(std::string_view phase_name, std::string_view node,
                                                std::string_view thread_key, std::string_view label,
                                                m::TrackNumbering::Kind kind = m::TrackNumbering::Kind::thread_events) {
        std::lock_guard<std::mutex> lock(mu_);
        const std::uint32_t phase = phase_id(phase_name);
        const std::uint32_t thread = thread_id(phase, node, thread_key, label);
        if (kind != m::TrackNumbering::Kind::thread_events) {
            kinds_.resize(thread_labels_.size(), m::TrackNumbering::Kind::thread_events);
            kinds_[thread] = kind;
        }
        return {phase, thread};
    }
    const std::vector<std::string>& phases() const { return phases_; }
    const std::vector<std::string>& thread_labels() const { return thread_labels_; }
    const std::vector<m::TrackNumbering::Kind>& kinds() const { return kinds_; }

private:
    std::uint32_t phase_id(std::string_view name) {
        key_.assign(name);
        auto [it, fresh] = phase_ids_.try_emplace(key_, static_cast<std::uint32_t>(phases_.size()));
        if (fresh) phases_.push_back(key_);
        return it->second;
    }
    std::uint32_t thread_id(std::uint32_t phase, std::string_view node, std::string_view thread_key,
                            std::string_view label) {
        key_.assign(reinterpret_cast<const char*>(&phase), sizeof phase);
        key_.append(node);
        key_ += '\x1f';
        key_.append(thread_key);
        auto [it, fresh] = thread_ids_.try_emplace(key_, static_cast<std::uint32_t>(thread_labels_.size()));
        if (fresh) thread_labels_.emplace_back(label);
        return it->second;
    }

    std::mutex mu_;
    std::vector<std::string> phases_;
    std::unordered_map<std::string, std::uint32_t> phase_ids_;
    std::vector<std::string> thread_labels_;
    std::unordered_map<std::string, std::uint32_t> thread_ids_;
    std::vector<m::TrackNumbering::Kind> kinds_;  // by thread id; missing: thread_events
    std::string key_;
};

// Runs on a reader thread: keeps the events that overlap the range, already in the merged file's
// text, and sends them to the merging thread in batches of about a text chunk.
class BatchSink final : public m::EventSink {
public:
    // A text chunk (256 KiB) less room for the last event: large enough that a batch's hand-over
    // costs nothing per event.
    static constexpr std::size_t kRoomForLastEvent = 4096;

    BatchSink(std::optional<std::pair<m::TraceNumber, m::TraceNumber>> range, m::FileReaders::Outbox& out,
              m::EventBatch::Memory& memory, Tables& tables, std::string_view node_id)
        : range_(range),
          out_(out),
          memory_(memory),
          tables_(tables),
          node_id_(node_id),
          batch_(m::EventBatch::in(memory)),
          batch_text_(memory.text.chunk_bytes() - kRoomForLastEvent) {}

    std::optional<m::TraceNumber> max_end;    // over the file's kept events
    std::vector<m::TrackFirst> first_events;  // of each track the file has events on, seq: position

    void on_event(const m::ReadEvent& e) override {
        const m::TraceNumber end = m::add(e.start, e.dur);
        if (range_ && (m::compare(end, range_->first) < 0 || m::compare(range_->second, e.start) < 0)) return;
        // Written in place: built on the stack in pieces and then copied, the entry was read back
        // before its pieces' stores had landed, a stall that was a quarter of this function's
        // time (perf). The array never reallocates: it is flushed when full.
        m::EventBatch::Event& ev = batch_.events.emplace_back();
        ev.set(e.start);
        // The record's pieces: the quoted name, then from the duration's value on (the writer
        // prints ts from the stored start, and the `, "dur": ` every line has: 25 bytes less fresh
        // memory a record). The reader's fast path has already checked most names (the check was
        // 3% of a merge) and has the duration's text where it is already Python's (printing
        // floats through repr was 4% of a merge's instructions).
        const bool plain_name = e.name_plain || detail::json_plain_ascii(e.name);
        if (!plain_name) {
            scratch_.clear();
            detail::append_json_string(scratch_, e.name, detail::NonAscii::escape);
        }
        const std::size_t head_size = plain_name ? m::merged_line::plain_head_size(e.name) : scratch_.size();
        char digits[24];
        std::string_view dur;
        if (!e.dur.is_float && !e.start.is_float) {
            dur = e.dur_text.empty() ? std::string_view(digits, m::write_decimal(digits, e.dur.i)) : e.dur_text;
        } else {
            // Consumers read a span's end as ts + dur in doubles. Where the start was rounded (a
            // float ts on a time base), the file's dur can miss the span's end by an ulp and put a
            // child past its parent, which Chrome then leaves off its track; read exactly, it
            // misses it by up to half a step. Such a span gets the duration that lands on its end
            // (smdebug prints the file's dur).
            const bool keep = m::lands_on(e.start, e.dur, e.end);
            dur_scratch_.clear();
            m::append_time(dur_scratch_, keep ? e.dur : m::duration_landing_on(e.start, e.end),
                           keep ? e.dur_text : std::string_view());
            dur = dur_scratch_;
        }
        const std::size_t tail_size = m::merged_line::tail_size(dur, e.args_json);
        // One reservation, the pieces copied straight in: a room check and a size update for each
        // of six pieces were 3% of a merge's instructions (callgrind).
        m::TextBuffer& text = batch_.text;
        ev.offset = static_cast<std::uint32_t>(text.size());
        const std::size_t size = m::RecordStore::kRecordHeader + head_size + tail_size;
        char* const rec = text.room(size);
        char* at = rec + m::RecordStore::kRecordHeader;
        if (plain_name) {
            at = m::merged_line::write_plain_head(at, e.name);
        } else {
            std::memcpy(at, scratch_.data(), head_size);
            at += head_size;
        }
        m::merged_line::write_tail(at, dur, e.args_json);
        // The header too, here where the record is in this core's cache: written by the merging
        // thread, it was a cache miss a record on the critical path (the merging thread is alone
        // on the machine for the end of reading and for writing).
        const TrackIds& ids = ids_of(e);
        m::RecordStore::put_header(rec, ids.thread, static_cast<std::uint32_t>(head_size),
                                   static_cast<std::uint32_t>(tail_size));
        text.advance(size);
        // The track's earliest event, from which the writer numbers tracks before writing: the
        // file's events come nearly in time order, so this is nearly always one comparison.
        m::TrackFirst& first = first_events[ids.first];
        if (m::compare(e.start, first.start) < 0) {
            first.start = e.start;
            first.seq = position_;
        }
        ++position_;
        if (!max_end || m::compare(*max_end, end) < 0) max_end = end;
        if (text.size() >= batch_text_ || batch_.events.size() == batch_.events.capacity()) flush();
    }

    void flush() {
        if (batch_.empty()) return;
        m::FileMessage msg;
        msg.batch = std::move(batch_);
        batch_ = m::EventBatch::in(memory_);
        out_.send(std::move(msg));
    }

    // The file is read again from its start: what was sent so far must be forgotten.
    void restart() {
        batch_ = m::EventBatch::in(memory_);
        ids_of_track_.clear();
        epoch_ = 0;
        max_end.reset();
        first_events.clear();
        first_of_thread_.clear();
        position_ = 0;
        m::FileMessage msg;
        msg.kind = m::FileMessage::Kind::restart;
        out_.send(std::move(msg));
    }

private:
    struct TrackIds {
        std::uint32_t phase, thread;
        std::uint32_t first;  // where first_events has the thread's earliest event
    };
    static constexpr std::uint32_t kUnknown = ~std::uint32_t{0};

    // The ids of the event's track, registered in the tables on first use (the event is then
    // its thread's earliest so far, unless an earlier track of the file had the same thread).
    const TrackIds& ids_of(const m::ReadEvent& e) {
        const auto epoch = static_cast<std::uint32_t>(e.track >> 32);
        const auto index = static_cast<std::uint32_t>(e.track);
        if (epoch != epoch_) {
            ids_of_track_.clear();
            epoch_ = epoch;
        }
        if (ids_of_track_.size() <= index) ids_of_track_.resize(index + 1, {kUnknown, kUnknown, kUnknown});
        TrackIds& ids = ids_of_track_[index];
        if (ids.phase == kUnknown) {
            std::tie(ids.phase, ids.thread) = tables_.ids(e.phase, node_id_, e.thread_key, e.thread_label);
            const auto [it, fresh] =
                first_of_thread_.try_emplace(ids.thread, static_cast<std::uint32_t>(first_events.size()));
            if (fresh) first_events.push_back({ids.thread, ids.phase, e.start, position_});
            ids.first = it->second;
        }
        return ids;
    }

    std::optional<std::pair<m::TraceNumber, m::TraceNumber>> range_;
    m::FileReaders::Outbox& out_;
    m::EventBatch::Memory& memory_;
    Tables& tables_;
    std::string_view node_id_;
    m::EventBatch batch_;
    std::size_t batch_text_;
    std::string scratch_, dur_scratch_;   // an escaped name, a float's repr
    std::vector<TrackIds> ids_of_track_;  // per track index of the current epoch
    std::uint32_t epoch_ = 0;
    std::unordered_map<std::uint32_t, std::uint32_t> first_of_thread_;  // thread id -> index in first_events
    std::uint64_t position_ = 0;  // of the next kept event among the file's: the store's seq, less the rank
};

}  // namespace

const std::vector<std::string>& MergedTimeline::known_suffixes() { return m::known_suffixes(); }

MergedTimeline::MergedTimeline(std::string path, std::vector<std::string> suffix_filter, std::string output_dir) {
    settings_.path = std::move(path);
    settings_.suffixes = std::move(suffix_filter);
    settings_.output_dir = std::move(output_dir);
}

namespace {

using m::TimeRange;
using RangeRequest = std::optional<std::pair<std::int64_t, std::int64_t>>;

// What the merge reads: the files found and selected for the range, and the inputs left out.
struct Inputs {
    m::Discovery found;
    std::optional<TimeRange> range;              // nullopt: everything
    std::vector<m::TraceFile> files;             // in reading order: a file's index is its rank
    std::map<std::string, std::string> skipped;  // path -> reason, one message per input
};

Inputs find_inputs(const m::MergeSettings& settings, const RangeRequest& request, MergeUnit unit) {
    m::check_range_request(request, unit);
    Inputs in;
    try {
        in.found = m::discover_trace_files(settings.path, settings.suffixes);
    } catch (const std::runtime_error& e) {
        throw MergeError(e.what());
    }
    for (const auto& p : in.found.problems) in.skipped.emplace(p.path, p.reason);
    in.range = m::resolve_range(settings.path, request, unit, in.skipped);
    in.files = in.range ? m::select_for_range(in.found.files, in.range->first, in.range->second) : in.found.files;
    return in;
}

// What reading leaves besides the store's records.
struct ReadSummary {
    std::vector<m::TrackFirst> first_events;  // each track's earliest committed event, with the store's seq
    std::optional<m::TraceNumber> max_end;    // over merged files
};

// Files are read (parsed, filtered, formatted) on worker threads; this thread stores each file
// whole, those read to the end first (it used to wait behind the slowest file, then store what
// had queued up while the other cores idled). Each event's seq carries its file's rank
// (event_order.hpp), so the answer is the same whatever the thread count or the order files
// finish in. Files that turn out bad are rolled back and added to in.skipped.
ReadSummary read_into_store(Inputs& in, unsigned threads, m::EventBatch::Memory& batch_memory, m::RecordStore& store,
                            Tables& tables, MergeResult& result) {
    const std::vector<m::TraceFile>& files = in.files;
    ReadSummary summary;
    const std::vector<std::size_t> order = m::starting_order(files);
    std::vector<std::vector<std::string>> notes_of(files.size());  // reported in reading order
    const auto read_file = [&](std::size_t k, m::FileReaders::Outbox& out) {
        BatchSink sink(in.range, out, batch_memory, tables, files[order[k]].node_id);
        m::FileMessage done;
        done.error = m::read_trace_file(
            files[order[k]], sink, [&] { sink.restart(); }, done.outcome);
        if (!done.error) sink.flush();
        done.max_end = sink.max_end;
        done.first_events = std::move(sink.first_events);
        return done;
    };
    std::vector<std::optional<m::TrackFirst>> first_of_thread;  // over committed files, by thread id
    m::FileReaders readers(files.size(), threads, read_file);
    for (std::size_t stored = 0; stored < files.size(); ++stored) {
        const std::size_t i = order[readers.next_file()];
        const m::TraceFile& f = files[i];
        store.begin_file(i);
        for (;;) {
            m::FileMessage msg = readers.next();
            if (msg.kind == m::FileMessage::Kind::restart) {
                store.rollback_file();
                store.begin_file(i);
                continue;
            }
            if (msg.kind == m::FileMessage::Kind::batch) {
                if (msg.batch.events.empty()) continue;
                // The batch's text becomes the stored records: copying it into the store was the
                // merging thread's largest cost after writing (a memcpy of every event and a page
                // fault per fresh 4 KiB of the store's arena, all on the critical path).
                const std::size_t bytes = msg.batch.text.capacity();
                m::MemoryBlock block = msg.batch.text.release();
                char* const text = block.get();
                store.adopt(std::move(block), bytes);
                for (const auto& ev : msg.batch.events) store.add_record(ev.start(), text + ev.offset);
                continue;
            }
            if (msg.error) {
                store.rollback_file();
                in.skipped[f.path] = *msg.error;
                break;
            }
            store.commit_file();
            for (m::TrackFirst first : msg.first_events) {
                first.seq = m::event_seq(i, first.seq);
                if (first_of_thread.size() <= first.thread) first_of_thread.resize(first.thread + 1);
                std::optional<m::TrackFirst>& known = first_of_thread[first.thread];
                if (!known || m::event_before(first.start, first.seq, known->start, known->seq)) known = first;
            }
            if (msg.max_end && (!summary.max_end || m::compare(*summary.max_end, *msg.max_end) < 0)) {
                summary.max_end = msg.max_end;
            }
            result.events_dropped += msg.outcome.dropped;
            for (const auto& n : msg.outcome.notes) notes_of[i].push_back(f.path + ": " + n);
            ++result.files_merged;
            result.bytes_read += f.size;
            break;
        }
    }
    for (auto& notes : notes_of)
        for (auto& n : notes) result.notes.push_back(std::move(n));
    for (const auto& f : first_of_thread)
        if (f) summary.first_events.push_back(*f);
    return summary;
}

// The system metrics' events (system_metric_events.hpp) into the store as one more input, ranked
// after every file: smdebug appends them to the framework events before its stable sort by time,
// so at one time they come after the framework's and in the order they were made.
std::uint64_t add_system_events(const m::MergeSettings& settings, const Inputs& in, m::EventBatch::Memory& batch_memory,
                                m::RecordStore& store, Tables& tables, ReadSummary& summary, MergeResult& result) {
    std::optional<std::pair<m::TraceNumber, m::TraceNumber>> range_us;
    if (in.range) range_us.emplace(in.range->first, in.range->second);
    const std::size_t notes_before = result.notes.size();
    const std::vector<m::SystemRow> rows = m::read_system_metrics(settings.path, range_us, result.notes);
    result.events_dropped += result.notes.size() - notes_before;  // each names a bad line or file
    const std::vector<m::SystemTraceEvent> events = m::system_trace_events(rows);
    if (events.empty()) return 0;
    using Kind = m::TrackNumbering::Kind;
    const auto counters = tables.ids(m::kSystemCounterPhase, "", "\x1esystem", "", Kind::counters);
    const auto instants = tables.ids(m::kSystemInstantPhase, "", "\x1esystem", "", Kind::instants);
    const std::uint64_t rank = in.files.size();
    store.begin_file(rank);
    m::EventBatch batch = m::EventBatch::in(batch_memory);
    const auto flush = [&] {
        if (batch.empty()) return;
        const std::size_t bytes = batch.text.capacity();
        m::MemoryBlock block = batch.text.release();
        char* const text = block.get();
        store.adopt(std::move(block), bytes);
        for (const auto& ev : batch.events) store.add_record(ev.start(), text + ev.offset);
        batch = m::EventBatch::in(batch_memory);
    };
    bool first_counter = true, first_instant = true;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const m::SystemTraceEvent& e = events[i];
        const auto& [phase, thread] = e.instant ? instants : counters;
        bool& first = e.instant ? first_instant : first_counter;
        const m::TraceNumber start = m::TraceNumber::integer(e.ts_us);
        if (first) {
            summary.first_events.push_back({thread, phase, start, m::event_seq(rank, i)});
            first = false;
        }
        const std::size_t tail = m::merged_line::tail_size(e.args_json, {});
        const std::size_t size = m::RecordStore::kRecordHeader + e.name.size() + tail;
        m::EventBatch::Event& ev = batch.events.emplace_back();
        ev.set(start);
        ev.offset = static_cast<std::uint32_t>(batch.text.size());
        char* const rec = batch.text.room(size);
        m::RecordStore::put_header(rec, thread, static_cast<std::uint32_t>(e.name.size()),
                                   static_cast<std::uint32_t>(tail));
        std::memcpy(rec + m::RecordStore::kRecordHeader, e.name.data(), e.name.size());
        m::merged_line::write_tail(rec + m::RecordStore::kRecordHeader + e.name.size(), e.args_json, {});
        batch.text.advance(size);
        if (batch.text.size() + 4096 >= batch_memory.text.chunk_bytes() ||
            batch.events.size() == batch.events.capacity())
            flush();
    }
    flush();
    store.commit_file();
    return events.size();
}

// <end_us>_<node>_merged_timeline.json, end_us being the range's end or the last event's end.
std::string output_path(const std::string& out_dir, const std::string& node_id, const std::optional<TimeRange>& range,
                        const std::optional<m::TraceNumber>& max_end) {
    m::TraceNumber end = m::TraceNumber::integer(0);
    if (range)
        end = range->second;
    else if (max_end)
        end = *max_end;
    const std::string name = std::to_string(m::round_half_even(end)) + "_" + node_id + "_merged_timeline.json";
    return (std::filesystem::path(out_dir) / name).string();
}

void report_left_out(const Inputs& in, MergeResult& result) {
    for (auto& [path, reason] : in.skipped) result.skipped.push_back({path, reason});
    for (const auto& d : in.found.duplicates) result.notes.push_back(d.path + ": " + d.reason);
}

// Find, read into the store, number the tracks, write.
MergeResult run_merge(const m::MergeSettings& settings, const RangeRequest& request, MergeUnit unit) {
    const std::string out_dir = settings.output_dir.empty() ? settings.path : settings.output_dir;
    const std::string node_id = settings.node_id.empty() ? m::this_node_id() : settings.node_id;
    const unsigned threads = settings.reader_threads ? settings.reader_threads : m::default_reader_threads();
    Inputs in = find_inputs(settings, request, unit);
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (!std::filesystem::is_directory(out_dir, ec)) throw MergeError(out_dir + ": cannot create the output folder");

    MergeResult result;
    m::EventBatch::Memory batch_memory;  // outlives the store, which keeps the batches' text
    const std::string temp_dir =
        settings.temp_dir.empty() ? std::filesystem::temp_directory_path().string() : settings.temp_dir;
    m::RecordStore store(settings.memory_budget, temp_dir);
    std::uint64_t input_bytes = 0;
    for (const auto& f : in.files) input_bytes += m::text_bytes(f);
    store.reserve_index_for(input_bytes);
    Tables tables;
    try {
        ReadSummary read = read_into_store(in, threads, batch_memory, store, tables, result);
        if (settings.system_metrics)
            result.system_events = add_system_events(settings, in, batch_memory, store, tables, read, result);
        // Every input was left out: no file stands for a merge that did not happen.
        if (result.files_merged == 0 && !in.skipped.empty()) {
            report_left_out(in, result);
            return result;
        }
        result.output_path = output_path(out_dir, node_id, in.range, read.max_end);
        const m::TrackNumbering tracks(std::move(read.first_events), tables.phases(), tables.thread_labels(),
                                       tables.kinds());
        m::MergedFileWriter writer(result.output_path, tracks);
        writer.write_sorted(store, threads);
        writer.finish();
        result.events_written = writer.events() - result.system_events;
        result.metadata_written = writer.metadata();
    } catch (const std::runtime_error& e) {
        if (dynamic_cast<const MergeError*>(&e)) throw;
        throw MergeError(e.what());
    }
    if (in.range) {
        result.start_us = m::round_half_even(in.range->first);
        result.end_us = m::round_half_even(in.range->second);
    }
    report_left_out(in, result);
    return result;
}

}  // namespace

MergeResult MergedTimeline::merge_timeline(std::int64_t start, std::int64_t end, MergeUnit unit) {
    return run_merge(settings_, std::make_pair(start, end), unit);
}

MergeResult MergedTimeline::merge_all() { return run_merge(settings_, std::nullopt, MergeUnit::time); }

}  // namespace ringprof
