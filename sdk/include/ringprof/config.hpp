// Settings of a profiling session. A program can leave them all alone: the default session reads
// the environment (RINGPROF_OUTPUT_DIR, RINGPROF_RUN_ID, ...) via Config::from_environment().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ringprof {

// What a marker does when its thread's ring is full (RINGPROF_ON_FULL).
enum class OnFull {
    Wait,  // wait for the drainer to make room, recorded as a `ringprof.wait` scope (the default)
    Drop,  // refuse the scope at once, counted in dropped_scopes (code that must never stall)
};

enum class TimersFormat {
    List,  // children as a list of named nodes (the ML-Agents seed form; the default)
    Dict,  // children as an object keyed by name (ML-Agents 0.15 and later)
};

struct Config {
    // Where every output file goes; created if missing. Env: RINGPROF_OUTPUT_DIR.
    std::string output_dir = "./ringprof_out";
    // Prefix of every output file name; empty means "<program name>_<pid>". Env: RINGPROF_RUN_ID.
    std::string run_id;
    // The most ring memory one recording thread may hold, rounded up to a power of two of
    // 16-byte events and capped at 1 GiB. Every thread starts with 16 KiB; only threads that fill
    // it grow (4 MiB, then x4 up to this). Env: RINGPROF_RING_BYTES
    // (1024 to 1073741824).
    std::size_t ring_bytes = std::size_t{16} << 20;
    // Record from the start; otherwise wait for ringprof::enable(). Env: RINGPROF_START_RECORDING=0|1
    // (or its first name, RINGPROF_ENABLED, which is also the compile-out macro).
    bool start_enabled = true;
    // Built-in outputs to write, by name; empty means all of them. Env: RINGPROF_BACKENDS
    // (comma-separated).
    std::vector<std::string> backends;
    // Form of <run_id>_timers.json. Env: RINGPROF_TIMERS_FORMAT=list|dict.
    TimersFormat timers_format = TimersFormat::List;
    // Write a snapshot every this many milliseconds while running (0: only at flush and exit).
    // Env: RINGPROF_FLUSH_INTERVAL_MS (0 to 86400000).
    std::uint32_t flush_interval_ms = 0;
    // Subtract the measured cost of a marker from each parent's self time. Env:
    // RINGPROF_SUBTRACT_OVERHEAD=0|1.
    bool subtract_overhead = false;

    // A clock of the user's own (accelerate.profiler's custom_timer) instead of the CPU's
    // tick counter: returns ticks of `custom_clock_seconds_per_tick` seconds each. Markers then
    // take a slower path that calls it; null uses the built-in clock.
    std::uint64_t (*custom_clock)() = nullptr;
    double custom_clock_seconds_per_tick = 1e-9;

    // The defaults above, overridden by whatever RINGPROF_* variables are set.
    static Config from_environment();

    // The run id actually used: `run_id`, or "<program>_<pid>" when empty.
    std::string effective_run_id() const;

    // ---- timelines (pythontimeline, trace): the aggregates always see every scope ----
    // Scopes shorter than this stay out of the timelines. Env: RINGPROF_TIMELINE_MIN_NS (0 to an
    // hour, 3600000000000).
    std::uint64_t timeline_min_ns = 0;
    // Only the outermost this many levels of scopes go to the timelines (0: every level), so a
    // hot loop of tiny nested scopes can run with the timeline on. Env: RINGPROF_TIMELINE_MAX_DEPTH
    // (0 to 1000000).
    std::uint32_t timeline_max_depth = 0;
    // Spans in flight to the timeline writer; beyond it they are dropped and counted
    // ("timeline_dropped_spans"). About 48 bytes each. Env: RINGPROF_TIMELINE_QUEUE_SPANS (16 to
    // 67108864).
    std::size_t timeline_queue_spans = std::size_t{1} << 20;
    // pythontimeline files rotate when larger than this or older than that (smdebug's defaults).
    // Env: RINGPROF_PYTHONTIMELINE_MAX_BYTES (65536 to 2^40; set here, anything below 4096 acts as
    // 4096), RINGPROF_PYTHONTIMELINE_MAX_SECONDS (0 to 604800; 0: no age limit).
    std::uint64_t pythontimeline_max_bytes = std::uint64_t{10} << 20;
    std::uint32_t pythontimeline_max_seconds = 60;

    // When a ring is full: wait for room (exact counts) or drop. Env: RINGPROF_ON_FULL=wait|drop.
    OnFull on_full = OnFull::Wait;
    // Threads that may read the rings at once. 0: one, joined by up to one more per four cores
    // while several threads record faster than one reader keeps up with; n: up to n whenever two
    // or more threads have something to read. The outputs are the same either way. Env:
    // RINGPROF_DRAINERS (0 to 64).
    std::uint32_t drainers = 0;

    // ---- system metrics (docs/system_metrics.md) ----
    // Sample CPU, memory, disk, network and GPU utilization into <output_dir>/system/ as
    // SageMaker does. Env: RINGPROF_SYSTEM_METRICS=0|1, RINGPROF_SYSTEM_INTERVAL_MS (100 to 60000).
    bool system_metrics = true;
    std::uint32_t system_interval_ms = 500;
    // This machine's rank among the job's nodes: its files are named "algo-<rank + 1>". Env:
    // RINGPROF_NODE_RANK (0 to 1000000); when unset, SageMaker's SM_CURRENT_HOST ("algo-<n>")
    // or the launcher's NODE_RANK (torchrun, Lightning).
    std::uint32_t node_rank = 0;
};

}  // namespace ringprof
