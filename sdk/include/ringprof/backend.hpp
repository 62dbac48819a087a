// The one interface every output implements (compare spdlog's sinks). A backend never runs on a
// producer thread: spans arrive on the writer thread, snapshots at flush and at close.
//
//     class SlowSpans : public ringprof::Backend {
//         const char* name() const override { return "slow_spans"; }
//         bool wants_spans() const override { return true; }
//         void on_spans(const ringprof::SpanBatch& b) override {
//             for (const auto& s : b.spans) if (s.end_ns - s.begin_ns > 1'000'000) ...;
//         }
//     };
//     session.add_backend(std::make_unique<SlowSpans>());
//
// A backend reports a failure (unwritable file, full disk) by throwing std::exception: the
// session prints one message naming the backend and the problem and keeps everything else
// running; data already collected stays in the aggregates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ringprof/site.hpp"
#include "ringprof/stats.hpp"
#include "ringprof/timer_tree.hpp"

namespace ringprof {

// What every backend knows about the run before its first data.
struct RunInfo {
    std::string output_dir;
    std::string run_id;
    std::int64_t pid = 0;
    std::string host;
    std::uint64_t start_epoch_ns = 0;  // wall-clock time of the session's start
};

// One completed scope, on absolute time.
struct Span {
    // ringprof's own copy of the marker's site (same fields; it outlives a module that is
    // unloaded), a step site (step_mode_of), or null for spans not from a static site.
    const Site* site = nullptr;
    const char* name = nullptr;  // site->name, or a name interned for the session's lifetime
    std::uint64_t begin_ns = 0;  // wall clock, ns since the Unix epoch
    std::uint64_t end_ns = 0;
    std::uint32_t tid = 0;    // OS thread id
    std::uint32_t depth = 0;  // 0 = outermost scope of its thread
    bool has_step = false;    // whether it ran in a training step (PROF_STEP)
    std::int64_t step = -1;   // and that step's number, any int64 (-1 when has_step is false)
};

struct ThreadInfo {
    std::uint32_t tid = 0;
    std::string name;
    std::uint64_t dropped = 0;    // scopes refused because the ring was full
    std::uint64_t waits = 0;      // times a marker waited for room (RINGPROF_ON_FULL=wait)
    std::uint64_t wait_ns = 0;    // and the time it spent waiting
    std::uint64_t growths = 0;    // times a marker mapped its ring's next segment itself
    std::uint64_t growth_ns = 0;  // and the time that took
    bool exited = false;
    TimerNode tree{"root"};  // this thread's own scopes (also of exited threads: the first 64 are
                             // listed one by one, later ones summed into one entry with tid 0)
};

struct SpanBatch {
    std::vector<Span> spans;
};

// The aggregates at one moment.
struct Snapshot {
    TimerTree tree;  // the process tree (threads and merged workers)
    std::vector<ThreadInfo> threads;
    std::vector<FunctionStats> stats;  // flat cProfile-style statistics (ringprof/stats.hpp)
    std::uint64_t dropped = 0;         // scopes dropped in all threads
    std::uint64_t waits = 0;           // waits for room in all threads, and their total time
    std::uint64_t wait_ns = 0;
    std::uint64_t growths = 0;  // ring segments mapped by the recording threads themselves
    std::uint64_t growth_ns = 0;
    std::uint64_t end_epoch_ns = 0;  // wall-clock time the snapshot was taken
    bool final = false;              // the last snapshot of the session
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual const char* name() const = 0;

    virtual void on_start(const RunInfo&) {}
    virtual bool wants_spans() const { return false; }
    virtual void on_spans(const SpanBatch&) {}
    virtual void on_snapshot(const Snapshot&) {}
    virtual void on_close() {}
};

}  // namespace ringprof
