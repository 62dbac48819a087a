// The `ringprof` subcommands on hostile inputs and arguments: a gzip bomb, an event of a hundred
// megabytes, an output that is an input, a merge with nothing to merge, too little memory. Each
// run is a child process with a deadline (and, where memory is the point, an address-space limit);
// every refusal is one line naming the file and the problem, and nothing is written.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ringprof/timer_tree.hpp"
#include "ringprof/timers_json.hpp"
#include "sanitizer_build.hpp"
#include "temp_dir.hpp"
#include "tool_run.hpp"

#ifdef RINGPROF_TOOL

namespace {

namespace fs = std::filesystem;
using ringprof::testing::TempDir;

using ringprof::testing::ToolExec;

// `ringprof ARGS...` in `dir`, with at most `address_space` bytes of address space (0: no limit).
ToolExec run_tool(const std::string& dir, const std::vector<std::string>& args, std::size_t address_space = 0) {
    ringprof::testing::ToolLimits limits;
    limits.address_space = address_space;
    return ringprof::testing::exec_ringprof(dir, args, limits);
}

std::size_t lines_of(const std::string& text) {
    std::size_t n = 0;
    for (const char c : text) n += c == '\n';
    return n;
}

// One complete gzip member holding `plain`.
std::string gzip_member(const std::string& plain) {
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, plain.size()), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
    z.avail_in = static_cast<uInt>(plain.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// About 1 MiB of gzip that inflates to 1 GiB: `first` followed by blanks, in 1,024 members.
void write_gzip_bomb(const std::string& path, char first) {
    std::string block(std::size_t{1} << 20, ' ');
    block[0] = first;
    std::ofstream out(path, std::ios::binary);
    out << gzip_member(block);
    const std::string blanks = gzip_member(std::string(std::size_t{1} << 20, ' '));
    for (int i = 1; i < 1024; ++i) out << blanks;
}

void write_text(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

std::string pythontimeline_path(const std::string& root, const char* node) {
    return root + "/framework/pevents/2020071317/1000_" + std::string(node) + "_pythontimeline.json";
}

bool has_merged_file(const std::string& dir) {
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().filename().string().find("merged_timeline") != std::string::npos) return true;
    }
    return false;
}

TEST(CliInput, FlameRefusesAGzipBombAsItInflatesNamingTheFile) {
    if (ringprof::testing::kSanitized) GTEST_SKIP() << "an address-space limit is meaningless under a sanitizer";
    TempDir dir;
    // Opens like a timers file ('{' then blanks): read as a trace first, then as a timers file.
    write_gzip_bomb(dir.str() + "/bomb.json.gz", '{');
    const ToolExec r = run_tool(dir.str(), {"flame", "bomb.json.gz"}, std::size_t{512} << 20);
    ASSERT_TRUE(r.finished) << "no answer within the deadline";
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(lines_of(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("bomb.json.gz: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("times its compressed size"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "bomb_flame.html"));
}

TEST(CliInput, FlameLooksAtTheFirstInflatedByteBeforeTheRest) {
    TempDir dir;
    write_gzip_bomb(dir.str() + "/zeros.json.gz", '\0');
    const ToolExec r = run_tool(dir.str(), {"flame", "zeros.json.gz"});
    ASSERT_TRUE(r.finished) << "no answer within the deadline";
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(lines_of(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("zeros.json.gz: not a timers JSON or trace file"), std::string::npos) << r.err;
    // Refused from its first bytes: nowhere near the gigabyte it inflates to.
    if (!ringprof::testing::kSanitized) {
        EXPECT_GT(r.max_rss_kib, 0) << "the peak was measured";
        EXPECT_LT(r.max_rss_kib, 64 * 1024) << "peak RSS in KiB";
    }
}

TEST(CliInput, AnEventLongerThanTheBoundIsRefusedNamingTheFile) {
    TempDir dir;
    const std::string root = dir.str();
    const std::string name(std::size_t{80} << 20, 'n');  // past the 64 MiB one event may hold
    const std::string path = pythontimeline_path(root, "big");
    write_text(path, R"([{"name": ")" + name + R"(", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1}])");

    const ToolExec merge = run_tool(root, {"merge", root, "-o", root + "/out"});
    ASSERT_TRUE(merge.finished) << "no answer within the deadline";
    EXPECT_EQ(merge.code, 1) << merge.err;
    EXPECT_NE(merge.err.find(path + ": an event longer than 64 MiB"), std::string::npos) << merge.err;
    EXPECT_EQ(merge.err.find("out of range"), std::string::npos) << merge.err;
    EXPECT_FALSE(has_merged_file(root + "/out"));
    if (!ringprof::testing::kSanitized) {
        EXPECT_GT(merge.max_rss_kib, 0) << "the peak was measured";
        EXPECT_LT(merge.max_rss_kib, 200 * 1024) << "peak RSS in KiB";
    }

    const ToolExec flame = run_tool(root, {"flame", path});
    ASSERT_TRUE(flame.finished) << "no answer within the deadline";
    EXPECT_EQ(flame.code, 1) << flame.err;
    EXPECT_EQ(lines_of(flame.err), 1u) << flame.err;
    EXPECT_NE(flame.err.find(path + ": not a readable trace: an event longer than 64 MiB"), std::string::npos)
        << flame.err;
}

TEST(CliOutput, FlameRefusesAnOutputThatIsItsInput) {
    TempDir dir;
    ringprof::TimerTree tree;
    tree.root.child("work").total = 1.0;
    const std::string text = ringprof::write_timers_json(tree, ringprof::TimersFormat::List);
    write_text(dir.str() + "/in.json", text);
    fs::create_symlink("in.json", dir.path() / "link.json");
    for (const char* out : {"in.json", "./in.json", "link.json"}) {
        const ToolExec r = run_tool(dir.str(), {"flame", "in.json", "-o", out});
        ASSERT_TRUE(r.finished);
        EXPECT_EQ(r.code, 2) << r.err;
        EXPECT_EQ(lines_of(r.err), 1u) << r.err;
        EXPECT_NE(r.err.find(std::string(out) + ": -o names the input file"), std::string::npos) << r.err;
        EXPECT_TRUE(ringprof::testing::read_text(dir.path() / "in.json") == text) << "the input was replaced";
    }
}

TEST(CliOutput, MergeTimersRefusesAnOutputThatIsOneOfItsInputs) {
    TempDir dir;
    ringprof::TimerTree tree;
    tree.root.child("work").total = 1.0;
    const std::string text = ringprof::write_timers_json(tree, ringprof::TimersFormat::List);
    write_text(dir.str() + "/a.json", text);
    write_text(dir.str() + "/b.json", text);
    const ToolExec r = run_tool(dir.str(), {"merge-timers", "a.json", "b.json", "-o", "b.json"});
    ASSERT_TRUE(r.finished);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(lines_of(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("b.json: -o names an input file"), std::string::npos) << r.err;
    EXPECT_TRUE(ringprof::testing::read_text(dir.path() / "b.json") == text) << "the input was replaced";
}

TEST(CliOutput, MergeWithEveryInputSkippedWritesNoFile) {
    TempDir dir;
    const std::string root = dir.str();
    const std::string path = pythontimeline_path(root, "broken");
    write_text(path, R"([{"name": "a", "ph": "X", "ts": 1, "dur")");
    const ToolExec r = run_tool(root, {"merge", root, "-o", root + "/out"});
    ASSERT_TRUE(r.finished);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("skipped " + path + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("no merged file written"), std::string::npos) << r.err;
    EXPECT_FALSE(has_merged_file(root + "/out")) << r.err;
}

// A tree of `n` nodes as a timers file, list form: several megabytes for a few hundred thousand.
std::string big_timers_text(std::size_t n) {
    ringprof::TimerTree tree;
    for (std::size_t i = 0; i < n; ++i) {
        ringprof::TimerNode c("a_scope_with_a_long_enough_name_" + std::to_string(i));
        c.total = 1.0;
        c.count = 1;
        tree.root.children.push_back(std::move(c));
    }
    return ringprof::write_timers_json(tree, ringprof::TimersFormat::List);
}

TEST(CliMemory, OutOfMemoryIsReportedNamingTheFile) {
    if (ringprof::testing::kSanitized) GTEST_SKIP() << "an address-space limit is meaningless under a sanitizer";
    TempDir dir;
    write_text(dir.str() + "/big_timers.json", big_timers_text(200000));
    const std::size_t limit = std::size_t{32} << 20;
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"flame", "big_timers.json"},
          std::vector<std::string>{"merge-timers", "big_timers.json", "big_timers.json", "-o", "merged.json"}}) {
        const ToolExec r = run_tool(dir.str(), args, limit);
        ASSERT_TRUE(r.finished);
        EXPECT_EQ(r.code, 1) << args[0] << ": " << r.err;
        EXPECT_NE(r.err.find("big_timers.json: out of memory"), std::string::npos) << args[0] << ": " << r.err;
        EXPECT_EQ(r.err.find("std::bad_alloc"), std::string::npos) << args[0] << ": " << r.err;
    }
    EXPECT_FALSE(fs::exists(dir.path() / "merged.json"));
    // The limit leaves room for the program itself: a small file goes through under it.
    write_text(dir.str() + "/small_timers.json", big_timers_text(10));
    const ToolExec small = run_tool(dir.str(), {"flame", "small_timers.json"}, limit);
    ASSERT_TRUE(small.finished);
    EXPECT_EQ(small.code, 0) << small.err;
}

}  // namespace

#endif
