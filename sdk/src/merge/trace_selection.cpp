#include "merge/trace_selection.hpp"

#include <algorithm>
#include <new>
#include <thread>

namespace ringprof::detail {

namespace {

// Finds where steps begin: the earliest event carrying each wanted step_num.
class StepSink final : public EventSink {
public:
    StepSink(std::int64_t a, std::int64_t b) : first_(a), second_(b) {}
    std::optional<TraceNumber> start_of_first, start_of_second;
    void on_event(const ReadEvent& e) override {
        if (!e.has_step) return;
        auto keep = [&](std::optional<TraceNumber>& slot) {
            if (!slot || compare(e.start, *slot) < 0) slot = e.start;
        };
        if (e.step == first_) keep(start_of_first);
        if (e.step == second_) keep(start_of_second);
    }

private:
    std::int64_t first_, second_;
};

}  // namespace

void check_range_request(const std::optional<std::pair<std::int64_t, std::int64_t>>& request, MergeUnit unit) {
    if (!request) return;
    if (unit == MergeUnit::time && request->second < request->first) {
        throw MergeError("end " + std::to_string(request->second) + " is before start " +
                         std::to_string(request->first));
    }
    if (unit == MergeUnit::step && request->second <= request->first) {
        throw MergeError("end step " + std::to_string(request->second) + " must be after start step " +
                         std::to_string(request->first) + " (the range is [start, end))");
    }
}

std::optional<TimeRange> resolve_range(const std::string& root,
                                       const std::optional<std::pair<std::int64_t, std::int64_t>>& request,
                                       MergeUnit unit, std::map<std::string, std::string>& skipped) {
    if (!request) return std::nullopt;
    check_range_request(request, unit);
    if (unit == MergeUnit::time)
        return TimeRange(TraceNumber::integer(request->first), TraceNumber::integer(request->second));
    // Steps come from pythontimeline files whatever the suffix filter says, as in smdebug.
    Discovery py = discover_trace_files(root, {"pythontimeline.json"});
    for (const auto& p : py.problems) skipped.emplace(p.path, p.reason);
    StepSink steps(request->first, request->second);
    for (const auto& f : py.files) {
        ReadOutcome o;
        if (auto err = read_trace_file(
                f, steps, [] {}, o))
            skipped.emplace(f.path, *err);
    }
    if (!steps.start_of_first || !steps.start_of_second) {
        const std::int64_t missing = !steps.start_of_first ? request->first : request->second;
        throw MergeError("step " + std::to_string(missing) + " appears in no pythontimeline file under " + root +
                         "/framework (args.step_num)");
    }
    return TimeRange(*steps.start_of_first, subtract(*steps.start_of_second, TraceNumber::integer(1)));
}

std::unique_ptr<ByteSource> open_trace(const TraceFile& f) {
    auto raw = open_file_source(f.path);
    if (f.kind == SourceKind::trace_gz) return gzip_source(std::move(raw));
    return raw;
}

std::optional<std::string> read_trace_file(const TraceFile& f, EventSink& sink, const std::function<void()>& restart,
                                           ReadOutcome& outcome) {
    try {
        ReaderSetup setup;
        setup.node_id = f.node_id;
        setup.has_base = f.has_base;
        setup.base = f.base;
        auto src = open_trace(f);
        outcome = read_trace_events(*src, setup, sink);
        if (outcome.reread_with_base) {
            restart();
            setup.has_base = true;
            setup.base = outcome.late_base;
            auto again = open_trace(f);
            outcome = read_trace_events(*again, setup, sink);
        }
        return std::nullopt;
    } catch (const InputError& e) {
        return std::string(e.what());
    } catch (const std::bad_alloc&) {
        return std::string("out of memory while reading");
    }
}

// About how many bytes of JSON a file holds. Chrome traces shrink 5-15x in gzip (bench_merge's
// synthetic one 34x): counting a compressed byte as 10 is enough to rank the files and to size the
// store's index, which is all this is for.
std::uint64_t text_bytes(const TraceFile& f) {
    constexpr std::uint64_t kGzipExpansion = 10;
    return f.size * (f.kind == SourceKind::trace_gz ? kGzipExpansion : 1);
}

// The order files are started in: the most work first, so that the largest file (often a
// gzip trace, which one thread must inflate and parse alone) starts at once instead of being left
// to one thread at the end while the other core idles (bench_merge input: its 10 MB trace.json.gz
// came last and one reader spent the last third of the merge on it alone). The answer does not
// depend on this order: the store orders ties by each file's rank in smdebug's reading order.
// With the batch text kept as records and the writing thread: 1.05x (load 7) to 1.49x (load 27)
// faster than before in interleaved runs, 24.3x-39.0x smdebug's MergedTimeline; 27x-47x since
// the flat-event fast path (docs/merge.md).
std::vector<std::size_t> starting_order(const std::vector<TraceFile>& files) {
    std::vector<std::size_t> order(files.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return text_bytes(files[a]) > text_bytes(files[b]); });
    return order;
}

// One reader per core: the merging thread's own work (storing, sorting, writing: 14% of the
// instructions) is light next to parsing, so it shares a core with them. bench_merge on 2 cores at
// load 6.7: 404 ms with 2 readers against 526 ms with 1 (1.30x); the whole merge is 20.8x
// (load 5.1) to 36.6x (load 6.8) smdebug's MergedTimeline, 18.8x before (load 0.9).
unsigned default_reader_threads() {
    const unsigned cores = std::thread::hardware_concurrency();
    return std::min(cores ? cores : 1u, 8u);
}

}  // namespace ringprof::detail
