// Timeline throughput and cost:
//  - spans/s through each timeline backend on one core (the writer thread's work), target for
//    the gzip trace >= 2 million spans/s;
//  - spans/s through the drainer-side sink and the queue to a backend that does nothing;
//  - a demo-like run (a stepping thread plus workers in a hot loop) with recording off, with the
//    timers only, and with every built-in backend: compare the times as ratios;
//  - the trace's span line written by the backend (std::to_chars) and with fmt, to decide
//    where fmt can write timeline text.
#include <benchmark/benchmark.h>
#include <fmt/compile.h>
#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <thread>
#include <vector>

#include "chrome_trace_backend.hpp"
#include "drain/clock_calibration.hpp"
#include "pythontimeline_backend.hpp"
#include "ringprof/ringprof.hpp"
#include "timeline/timeline_writer.hpp"

namespace {

constexpr ringprof::Site kSites[3] = {{"env_step", "", "", 0}, {"physics", "", "", 0}, {"reward", "", "", 0}};

std::string bench_dir(const char* name) {
    const auto p = std::filesystem::temp_directory_path() / "ringprof_bench_timeline" / name;
    std::filesystem::remove_all(p);
    std::filesystem::create_directories(p);
    return p.string();
}

ringprof::RunInfo run_info(const std::string& dir) {
    ringprof::RunInfo r;
    r.output_dir = dir;
    r.run_id = "bench";
    r.pid = 1234;
    r.host = "benchhost";
    r.start_epoch_ns = ringprof::wall_clock_ns();
    return r;
}

// Realistic shapes: nested spans of a few hundred ns on four threads, some in a step.
ringprof::SpanBatch make_batch(std::uint64_t start_ns) {
    ringprof::SpanBatch b;
    b.spans.reserve(8192);
    std::uint64_t t = start_ns;
    for (int i = 0; i < 8192; ++i) {
        ringprof::Span s;
        s.site = &kSites[i % 3];
        s.name = s.site->name;
        s.begin_ns = t + static_cast<std::uint64_t>(i % 3) * 37;
        s.end_ns = s.begin_ns + 250 + static_cast<std::uint64_t>(i % 7) * 13;
        s.tid = 1000 + static_cast<std::uint32_t>(i % 4);
        s.depth = static_cast<std::uint32_t>(i % 3);
        s.step = (i / 2048) % 2 == 0 ? i / 512 : -1;
        b.spans.push_back(s);
        t += 300;
    }
    return b;
}

template <typename B>
void run_backend(benchmark::State& state, B& backend, const std::string& dir) {
    const ringprof::RunInfo run = run_info(dir);
    backend.on_start(run);
    for (std::uint32_t t = 1000; t < 1004; ++t) backend.on_thread_name(t, "worker_" + std::to_string(t));
    ringprof::SpanBatch batch = make_batch(run.start_epoch_ns);
    std::uint64_t shift = 0;
    for (auto _ : state) {
        for (auto& s : batch.spans) {
            s.begin_ns += shift;
            s.end_ns += shift;
        }
        shift = 8192 * 300;
        backend.on_spans(batch);
    }
    backend.on_close();
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch.spans.size()));
}

void BM_TraceGzipBackend(benchmark::State& state) {
    const std::string dir = bench_dir("trace");
    ringprof::backends::ChromeTraceBackend backend(1000);
    run_backend(state, backend, dir);
    state.counters["bytes_per_span"] = static_cast<double>(std::filesystem::file_size(dir + "/bench_trace.json.gz")) /
                                       static_cast<double>(state.items_processed());
}
BENCHMARK(BM_TraceGzipBackend)->Unit(benchmark::kMillisecond);

void BM_PythonTimelineBackend(benchmark::State& state) {
    const std::string dir = bench_dir("pythontimeline");
    ringprof::backends::PythonTimelineBackend backend(std::uint64_t{10} << 20, 60);
    run_backend(state, backend, dir);
}
BENCHMARK(BM_PythonTimelineBackend)->Unit(benchmark::kMillisecond);

class NullBackend : public ringprof::TimelineBackend {
public:
    const char* name() const override { return "null"; }
    void on_spans(const ringprof::SpanBatch& b) override { spans += b.spans.size(); }
    std::atomic<std::size_t> spans{0};
};

// The drainer's side of the pipeline (filters, step labels, conversion, queue) plus the writer's
// hand-off, to a backend that does nothing.
void BM_WriterPipeline(benchmark::State& state) {
    ringprof::detail::ClockCalibration clock;
    ringprof::detail::TimelineWriter writer(clock, ringprof::detail::TimelineOptions{});
    NullBackend backend;
    writer.add_backend(&backend);
    writer.start();
    ringprof::detail::TimelineRecords raw;
    std::uint64_t t = ringprof::detail::read_ticks();
    const std::vector<ringprof::detail::SpanThread> threads{{1000, "w"}};
    std::size_t produced = 0;
    for (auto _ : state) {
        raw.append(ringprof::detail::TimelineRecord::thread(1000, 7, t));
        for (int i = 0; i < 8192; ++i) {
            raw.append(
                ringprof::detail::TimelineRecord::span(&kSites[i % 3], t, t + 500, static_cast<std::uint32_t>(i % 3)));
            t += 600;
        }
        produced += raw.records() - 1;  // the Thread record is not a span
        writer.on_pass(raw, threads);
        raw.clear();
    }
    { const auto hold = writer.hold(); }
    writer.stop();
    state.SetItemsProcessed(static_cast<std::int64_t>(produced));
    state.counters["dropped_fraction"] = static_cast<double>(writer.dropped_spans()) / static_cast<double>(produced);
}
BENCHMARK(BM_WriterPipeline)->Unit(benchmark::kMillisecond);

// ---- demo-like end to end ----

double burn(int n, double x) {
    for (int i = 0; i < n; ++i) x = std::sqrt(x * x + 1.0) * 0.999;
    return x;
}
std::atomic<double> g_sink{0};

void env_step(double& s) {
    PROF_SCOPE("env_step");
    {
        PROF_SCOPE("physics");
        s = burn(120, s);
    }
    PROF_SCOPE("reward");
    s += burn(30, s) * 1e-3;
}

void demo_workload() {
    std::vector<std::thread> workers;
    for (int w = 0; w < 2; ++w) {
        workers.emplace_back([w] {
            double s = w + 1.0;
            for (int step = 0; step < 10; ++step) {
                PROF_SCOPE("collect_rollout");
                for (int i = 0; i < 2000; ++i) env_step(s);
            }
            g_sink.store(s);
        });
    }
    for (int step = 0; step < 10; ++step) {
        PROF_STEP(step);
        PROF_SCOPE("train_step");
        g_sink.store(burn(20000, step));
    }
    for (auto& t : workers) t.join();
}

// arg 0: recording off; 1: timers only; 2: timers + both timelines; 3: every built-in backend.
void BM_DemoEndToEnd(benchmark::State& state) {
    const std::string dir = bench_dir("demo");
    for (auto _ : state) {
        ringprof::Config c;
        c.output_dir = dir;
        c.run_id = "demo";
        c.start_enabled = state.range(0) != 0;
        if (state.range(0) == 1) c.backends = {"timers"};
        if (state.range(0) == 2) c.backends = {"timers", "trace", "pythontimeline"};
        ringprof::Session session(c);
        demo_workload();
    }
    static const char* const kLabels[] = {"off", "timers only", "timers+timelines", "all built-ins"};
    state.SetLabel(kLabels[state.range(0)]);
}
BENCHMARK(BM_DemoEndToEnd)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- text: one trace span line per span, 8192 spans per iteration ----

struct SpanText {
    std::int64_t tid, ts_ns, dur_ns, step;
};
std::vector<SpanText> span_texts() {
    std::vector<SpanText> v;
    for (std::int64_t i = 0; i < 8192; ++i)
        v.push_back({1000 + i % 4, 123456789 + i * 600, 500 + i % 77, 7 + i / 1000});
    return v;
}
const std::string kQuotedName = "\"env_step\"";

// The trace backend's own span line (ChromeTraceBackend::append_span), for spans in a step that
// do not mark it: the line the fmt forms below write.
void BM_SpanLineToChars(benchmark::State& state) {
    constexpr std::uint64_t kRunStart = 1000000000;
    std::vector<ringprof::Span> spans;
    for (const SpanText& t : span_texts()) {
        ringprof::Span s;
        s.tid = static_cast<std::uint32_t>(t.tid);
        s.begin_ns = kRunStart + static_cast<std::uint64_t>(t.ts_ns);
        s.end_ns = s.begin_ns + static_cast<std::uint64_t>(t.dur_ns);
        s.step = t.step;
        spans.push_back(s);
    }
    std::string buf;
    for (auto _ : state) {
        buf.clear();
        for (const ringprof::Span& s : spans) {
            ringprof::backends::ChromeTraceBackend::append_span(buf, s, 4242, kRunStart, kQuotedName, false);
        }
        benchmark::DoNotOptimize(buf.data());
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(spans.size()));
}
BENCHMARK(BM_SpanLineToChars);

#define RINGPROF_SPAN_LINE \
    "{{\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{}.{:03},\"dur\":{}.{:03},\"name\":{},\"args\":{{\"step\":{}}}}},\n"

// fmt: 0 runtime format string into fmt::memory_buffer, 1 compiled (FMT_COMPILE) into the
// backend's std::string, 2 compiled into fmt::memory_buffer.
void BM_SpanLineFmt(benchmark::State& state) {
    const auto spans = span_texts();
    std::string str;
    fmt::memory_buffer mem;
    for (auto _ : state) {
        str.clear();
        mem.clear();
        for (const SpanText& s : spans) {
            switch (state.range(0)) {
                case 0:
                    fmt::format_to(std::back_inserter(mem), RINGPROF_SPAN_LINE, 4242, s.tid, s.ts_ns / 1000,
                                   s.ts_ns % 1000, s.dur_ns / 1000, s.dur_ns % 1000, kQuotedName, s.step);
                    break;
                case 1:
                    fmt::format_to(std::back_inserter(str), FMT_COMPILE(RINGPROF_SPAN_LINE), 4242, s.tid,
                                   s.ts_ns / 1000, s.ts_ns % 1000, s.dur_ns / 1000, s.dur_ns % 1000, kQuotedName,
                                   s.step);
                    break;
                default:
                    fmt::format_to(std::back_inserter(mem), FMT_COMPILE(RINGPROF_SPAN_LINE), 4242, s.tid,
                                   s.ts_ns / 1000, s.ts_ns % 1000, s.dur_ns / 1000, s.dur_ns % 1000, kQuotedName,
                                   s.step);
            }
        }
        benchmark::DoNotOptimize(str.data());
        benchmark::DoNotOptimize(mem.data());
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(spans.size()));
}
BENCHMARK(BM_SpanLineFmt)->ArgName("form")->Arg(0)->Arg(1)->Arg(2);

}  // namespace

BENCHMARK_MAIN();
