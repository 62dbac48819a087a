// Writers are linear in what they write: a recursion 10,000 scopes deep makes every aggregate
// output a few MB that parses back (indentation that grew with depth would make timers.json
// 3.2 GB, written for 37 s at exit).
#include <gtest/gtest.h>
#include <pthread.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bounded_process.hpp"
#include "nested_levels.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/stats.hpp"
#include "ringprof/timers_json.hpp"
#include "sanitizer_build.hpp"
#include "temp_dir.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

// 1,000 under sanitizers (RINGPROF_TEST_SCALE=10): their larger frames overflow the drainer's
// stack in the recursive tree walks at 10,000. The old writer still wrote 32 MB at 1,000.
const int kDepth = static_cast<int>(scaled(10000));
constexpr std::size_t kMaxDepth = 10000;

// Levels below the root, walked without recursion (the readers recurse, and sanitizer frames
// overflow a thread's stack long before 10,000 levels).
int depth_of_timers_file(const std::string& text) {
    simdjson::dom::parser parser;
    EXPECT_EQ(parser.allocate(text.size(), 4 * kMaxDepth), simdjson::SUCCESS);
    simdjson::dom::element node;
    const auto error = parser.parse(text).get(node);
    EXPECT_EQ(error, simdjson::SUCCESS) << simdjson::error_message(error);
    if (error) return -1;
    // Each level's child of that name (a level may also hold a `ringprof.grow`, see below).
    int depth = 0;
    simdjson::dom::array children;
    for (bool deeper = true; deeper && node["children"].get(children) == simdjson::SUCCESS;) {
        deeper = false;
        for (simdjson::dom::element child : children) {
            if (std::string_view(child["name"]) != "level") continue;
            node = child;
            deeper = true;
            ++depth;
            break;
        }
    }
    return depth;
}

TEST(DeepNesting, TenThousandLevelsWriteEveryAggregateOutputInAFewMegabytes) {
    TempDir dir;
    Config c;
    c.output_dir = dir.str();
    c.run_id = "deep";
    c.backends = {"timers", "stats", "flame", "flame_svg", "folded"};
    const auto started = std::chrono::steady_clock::now();
    {
        Session session(c);
        nest_levels(kDepth);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("%d levels: session and every output in %.2f s\n", kDepth, seconds);
    // Not the folded stacks: that format spells each line's whole stack, so a chain with self
    // time at every level is quadratic in depth by definition (14 MB here, written in ms).
    for (const char* name : {"deep_timers.json", "deep_stats.json", "deep_flame.html", "deep_flame.svg"}) {
        const auto path = dir.path() / name;
        ASSERT_TRUE(std::filesystem::exists(path)) << name;
        const auto bytes = std::filesystem::file_size(path);
        std::printf("%s: %.2f MB\n", name, static_cast<double>(bytes) / 1e6);
        EXPECT_LT(bytes, 8u * 1000 * 1000) << name << " grows faster than the tree";
    }
    // The tree keeps kMaxTreeDepth levels; the deeper ones are folded into the last (README).
    EXPECT_EQ(depth_of_timers_file(read_text(dir.path() / "deep_timers.json")),
              std::min(kDepth, static_cast<int>(kMaxTreeDepth)));
    // One row for the levels. The ring grows from its first segment to hold them all open; when
    // the drainer had no bigger segment ready in time (a loaded machine), the thread grew it
    // itself, which is recorded as a `ringprof.grow` scope: the only other row there may be.
    const auto stats = load_stats_json((dir.path() / "deep_stats.json").string());
    const FunctionStats* level = nullptr;
    for (const FunctionStats& f : stats) {
        if (f.name == "level")
            level = &f;
        else
            EXPECT_EQ(f.name, "ringprof.grow") << "a row of its own";
    }
    ASSERT_NE(level, nullptr);
    EXPECT_EQ(level->counts.ncalls, static_cast<std::uint64_t>(kDepth));
    EXPECT_EQ(level->counts.primitive_calls, 1u);
}

// ---- a user's depth, on a small stack ---------------------------------------------------------

constexpr Site kLevel{"level", "", "", 0};

// The stack every thread the program starts from now on gets (the drainer's and the writers'
// included), as `ulimit -s` sets it for a program's threads: 2 MiB, where the drainer's
// recursive fold overflowed at 20,000 levels. Sanitizer frames are several times larger.
std::size_t small_stack_bytes() { return (kSanitized ? 16u : 2u) << 20; }

// `levels` nested scopes opened by a loop, not a recursion: the program's own stack is not what
// is measured, ringprof's threads' are.
void open_nested_scopes(long levels) {
    std::vector<std::unique_ptr<detail::Scope>> open;
    open.reserve(static_cast<std::size_t>(levels));
    for (long i = 0; i < levels; ++i) open.push_back(std::make_unique<detail::Scope>(&kLevel));
    while (!open.empty()) open.pop_back();  // innermost first
}

// A shell command under the same small stack; its exit status (-1: killed by a signal).
int run_with_small_stack(const std::string& command, const std::string& err_path) {
    const std::string line = "ulimit -s " + std::to_string(small_stack_bytes() >> 10) + " && timeout 120 " +
                             command + " >/dev/null 2>'" + err_path + "'";
    const int status = std::system(line.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A timers file nested `levels` deep, written by hand (no ringprof writer goes past kMaxTreeDepth).
void write_deep_timers_file(const std::string& path, long levels) {
    std::ofstream out(path);
    for (long i = 0; i < levels; ++i) out << "{\"name\": \"level\", \"total\": 1.0, \"count\": 1, \"children\": [";
    out << "{\"name\": \"leaf\", \"total\": 1.0, \"count\": 1}";
    for (long i = 0; i < levels; ++i) out << "]}";
}

TEST(DeepNesting, AHundredThousandLevelsOnASmallStackWriteEveryOutputAndEveryReaderReadsThem) {
    const long levels = scaled(100000);
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setstacksize(&attr, small_stack_bytes());
            if (pthread_setattr_default_np(&attr) != 0) return 97;
            Config c;
            c.output_dir = dir.str();
            c.run_id = "deepest";
            c.backends = {"timers", "stats", "flame", "flame_svg", "folded", "trace", "pythontimeline"};
            Session session(c);
            open_nested_scopes(levels);
            return 0;
        },
        stderr_to(err, std::chrono::seconds(240)));
    ASSERT_TRUE(o.finished) << "hung";
    ASSERT_EQ(o.exit_code, 0) << "signal " << o.signal << "\n" << read_text(err);

    const TimerTree tree = load_timers_json(dir.str() + "/deepest_timers.json");
    int kept = 0;
    for (const TimerNode* n = &tree.root; !n->children.empty(); n = &n->children[0]) ++kept;
    EXPECT_EQ(kept, static_cast<int>(kMaxTreeDepth));
    ASSERT_NE(tree.find_metadata("folded_deep_nodes"), nullptr);
    EXPECT_EQ(*tree.find_metadata("folded_deep_nodes"), std::to_string(levels - static_cast<long>(kMaxTreeDepth)));
    ASSERT_NE(tree.root.find("level"), nullptr);
    EXPECT_EQ(tree.root.find("level")->count, 1u);
    const auto stats = load_stats_json(dir.str() + "/deepest_stats.json");
    ASSERT_EQ(stats.size(), 1u);
    EXPECT_EQ(stats[0].counts.ncalls, static_cast<std::uint64_t>(levels));
    for (const char* name : {"deepest_flame.html", "deepest_flame.svg", "deepest_folded.txt"}) {
        EXPECT_TRUE(std::filesystem::exists(dir.path() / name)) << name;
    }

#ifdef RINGPROF_TOOL
    std::string trace;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
        if (e.path().filename().string().find("_trace.json.gz") != std::string::npos) trace = e.path().string();
    }
    ASSERT_FALSE(trace.empty()) << "no Chrome trace written";
    const std::string tool = std::string("'") + RINGPROF_TOOL + "'";
    const std::string timers = "'" + dir.str() + "/deepest_timers.json'";
    for (const std::string& command : {
             tool + " flame '" + trace + "' -o '" + dir.str() + "/from_trace.svg' --format svg",
             tool + " flame " + timers + " -o '" + dir.str() + "/from_timers.html'",
             tool + " merge-timers " + timers + " -o '" + dir.str() + "/merged_timers.json'",
             tool + " stats '" + dir.str() + "/deepest_stats.json'",
             tool + " merge '" + dir.str() + "' -o '" + dir.str() + "/merged'",
         }) {
        SCOPED_TRACE(command);
        EXPECT_EQ(run_with_small_stack(command, err), 0) << read_text(err);
    }
    EXPECT_EQ(load_timers_json(dir.str() + "/merged_timers.json").root.find("level")->count, 1u);

    // A file nested deeper than any ringprof writer goes is refused, with its name, not a crash.
    const std::string deep = dir.str() + "/hand_made_timers.json";
    write_deep_timers_file(deep, levels);
    for (const std::string& command : {tool + " flame '" + deep + "' -o '" + dir.str() + "/deep.html'",
                                       tool + " merge-timers '" + deep + "' -o '" + dir.str() + "/deep_merged.json'"}) {
        SCOPED_TRACE(command);
        const int code = run_with_small_stack(command, err);
        EXPECT_NE(code, 0);
        EXPECT_NE(code, -1) << "killed by a signal";
        const std::string said = read_text(err);
        EXPECT_NE(said.find("hand_made_timers.json"), std::string::npos) << said;
        EXPECT_NE(said.find("nested deeper than"), std::string::npos) << said;
    }
#endif
}

}  // namespace
}  // namespace ringprof
