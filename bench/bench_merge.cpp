// Throughput of `ringprof merge` in MB/s of input, on a synthetic run shaped like smdebug's
// reference traces (pythontimeline steps, model_timeline data-iterator and forward events, a
// TensorFlow trace.json.gz) scaled to many nodes. RINGPROF_BENCH_MERGE_DIR=<dir> keeps the
// generated input there, so smdebug's own merger can be timed on the very same files.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include "ringprof/merged_timeline.hpp"

namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kBase = 1594662605425850;

void write_text(const fs::path& p, const std::string& s) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << s;
}

std::string step_args(int step) { return "{\"pid\": 905, \"step_num\": \"" + std::to_string(step) + "\"}"; }

// One node: `steps` training steps, each with a forward pass and a burst of iterator calls.
void write_node(const fs::path& root, int node, int steps) {
    const std::string id = std::to_string(900 + node) + "-host" + std::to_string(node);
    const std::int64_t base = kBase + node * 37;
    std::string py =
        "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\": " +
        std::to_string(base) +
        "}},\n{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"sort_index\": 0}},\n"
        "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"Step:ModeKeys.TRAIN\"}},\n"
        "{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"sort_index\": 1}}";
    std::string model =
        "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\":" +
        std::to_string(base) +
        "}},\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"DataIterator\"}},\n"
        "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 2, \"args\": {\"name\": \"Forward\"}}";
    for (int s = 0; s < steps; ++s) {
        const std::int64_t t = 1000 + s * 85000;
        py += ",\n{\"name\": \"Step:ModeKeys.TRAIN\", \"pid\": 1, \"ph\": \"X\", \"ts\": " + std::to_string(t) +
              ", \"dur\": 84000, \"args\": " + step_args(s) + "}";
        model += ",\n{\"ph\": \"X\", \"name\": \"forward\", \"ts\": " + std::to_string(t + 100) +
                 ", \"pid\": 2, \"dur\": 30000}";
        for (int k = 0; k < 40; ++k) {
            model += ",\n{\"ph\": \"X\", \"name\": \"dataset::GetNext\", \"ts\": " + std::to_string(t + 200 + k * 7) +
                     ", \"pid\": 1, \"dur\": " + std::to_string(k % 13) + "}";
        }
    }
    const std::int64_t end = base + 1000 + steps * 85000;
    const fs::path dir = root / "framework" / "pevents" / "2020071317";
    write_text(dir / (std::to_string(end) + "_" + id + "_pythontimeline.json"), py + "\n]");
    write_text(dir / (std::to_string(end) + "_" + id + "_model_timeline.json"), model + "\n]");
}

void write_tf_trace(const fs::path& root, int events) {
    const fs::path step = root / "framework" / "tensorflow" / "detailed_profiling" / "2020071317" / "000000000";
    write_text(step / ("1-tfhost_" + std::to_string(kBase) + "_" + std::to_string(kBase + 10000000) + ".metadata"), "");
    std::string t =
        R"({"displayTimeUnit":"ns","traceEvents":[{"ph":"M","pid":49,"name":"process_name","args":{"name":"/host:CPU"}},)"
        R"({"ph":"M","pid":49,"tid":7,"name":"thread_name","args":{"name":"tf_Compute"}})";
    for (int i = 0; i < events; ++i) {
        t += R"(,{"pid":49,"tid":7,"ts":)" + std::to_string(2000 + i * 3) + R"(,"name":"op)" + std::to_string(i % 50) +
             R"(:MatMul","ph":"X","dur":2.5,"args":{"id":"-1","iter_num":"0"}})";
    }
    t += "]}";
    const fs::path p = step / "plugins" / "profile" / "2020_07_13_17_00_00" / "tfhost.example.com.trace.json.gz";
    fs::create_directories(p.parent_path());
    gzFile f = gzopen(p.string().c_str(), "wb6");
    gzwrite(f, t.data(), static_cast<unsigned>(t.size()));
    gzclose(f);
}

std::uint64_t input_bytes(const fs::path& root) {
    std::uint64_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) n += e.file_size();
    return n;
}

long minor_faults() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

void BM_MergeScaledReference(benchmark::State& state) {
    const char* keep = std::getenv("RINGPROF_BENCH_MERGE_DIR");
    const fs::path root =
        keep ? fs::path(keep) : fs::temp_directory_path() / ("ringprof-bench-merge-" + std::to_string(::getpid()));
    const int nodes = static_cast<int>(state.range(0));
    if (!fs::exists(root / "framework")) {
        for (int n = 0; n < nodes; ++n) write_node(root, n, 600);
        write_tf_trace(root, 100000);
    }
    const std::uint64_t bytes = input_bytes(root);
    const fs::path out = fs::temp_directory_path() / ("ringprof-bench-merge-out-" + std::to_string(::getpid()));
    std::uint64_t events = 0;
    const long faults_before = minor_faults();
    for (auto _ : state) {
        ringprof::MergedTimeline merger(root.string(), {}, out.string());
        merger.set_reader_threads(static_cast<unsigned>(state.range(1)));
        const auto r = merger.merge_all();
        events = r.events_written;
        benchmark::DoNotOptimize(events);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
    state.counters["input_MB"] = static_cast<double>(bytes) / 1e6;
    state.counters["events"] = static_cast<double>(events);
    // Fresh memory the kernel had to fault in (and zero) per merge: a third of a merge's CPU
    // time was once in the kernel, mostly here.
    state.counters["page_faults"] =
        static_cast<double>(minor_faults() - faults_before) / static_cast<double>(state.iterations());
    fs::remove_all(out);
    if (!keep) fs::remove_all(root);
}

}  // namespace

// Second argument: reader threads (0: one per core), so one run compares them. Real time: with
// reader threads, the calling thread's CPU time is only the storing and writing part.
BENCHMARK(BM_MergeScaledReference)
    ->Args({16, 1})
    ->Args({16, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_MAIN();
