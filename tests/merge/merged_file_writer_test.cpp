// MergedFileWriter: the merged file is the same byte for byte however many slices write it and
// whether the store kept its events in memory or spilled them, and every track is announced just
// before its first event.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "merge/event_order.hpp"
#include "merge/merged_file_writer.hpp"
#include "process/quiet_thread.hpp"
#include "temp_dir.hpp"

namespace {

namespace m = ringprof::detail;

constexpr std::uint32_t kThreads = 40;
constexpr int kFiles = 7;

// Seven files of events on 40 tracks (each file on some of them), nearly in time order, integer
// and float starts (12.5, and floats equal to integers), ties across files; the first events of
// tracks fall anywhere, slice boundaries included.
struct Merge {
    m::RecordStore store;
    std::vector<std::string> phases{"Step:ModeKeys.TRAIN", "Forward", "other"};
    std::vector<std::string> labels;
    std::vector<std::string> text;  // the records' heads, kept alive
    m::TrackNumbering tracks;
    std::size_t events = 0;

    Merge(std::size_t budget, const std::string& temp, std::size_t per_file) : store(budget, temp) {
        for (std::uint32_t t = 0; t < kThreads; ++t) labels.push_back("host" + std::to_string(t) + "_0");
        text.reserve(kFiles * per_file);
        std::mt19937 rng(11);
        std::map<std::uint32_t, m::TrackFirst> first;
        for (int f = 0; f < kFiles; ++f) {
            store.begin_file(static_cast<std::uint64_t>(kFiles - 1 - f));  // stored in the reverse of reading order
            std::int64_t t = 1594662605000000 + f * 3;
            for (std::size_t k = 0; k < per_file; ++k) {
                t += static_cast<std::int64_t>(rng() % 4);
                m::StoredEvent e;
                const unsigned kind = rng() % 8;
                e.start = kind == 0   ? m::TraceNumber::floating(static_cast<double>(t) + 0.5)
                          : kind == 1 ? m::TraceNumber::floating(static_cast<double>(t))
                                      : m::TraceNumber::integer(t);
                e.thread = static_cast<std::uint32_t>((rng() % 6) * kFiles + f) % kThreads;
                text.push_back("\"op" + std::to_string(rng() % 50) + "\"");
                e.head = text.back();
                e.tail = kind == 2 ? "2.5, \"args\": {\"step_num\": \"3\"}}" : "7}";
                const m::TrackFirst candidate{e.thread, e.thread % 3, e.start,
                                              m::event_seq(static_cast<std::uint64_t>(kFiles - 1 - f), k)};
                auto [it, fresh] = first.try_emplace(e.thread, candidate);
                if (!fresh && m::event_before(candidate.start, candidate.seq, it->second.start, it->second.seq))
                    it->second = candidate;
                store.add(e);
            }
            store.commit_file();
        }
        std::vector<m::TrackFirst> firsts;
        for (const auto& [thread, f] : first) firsts.push_back(f);
        tracks = m::TrackNumbering(firsts, phases, labels);
        events = kFiles * per_file;
    }

    std::string write(const std::string& path, unsigned threads) {
        m::MergedFileWriter writer(path, tracks);
        writer.write_sorted(store, threads);
        writer.finish();
        EXPECT_EQ(writer.events(), events) << threads << " threads";
        std::ifstream in(path, std::ios::binary);
        std::stringstream bytes;
        bytes << in.rdbuf();
        return bytes.str();
    }
};

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

constexpr std::size_t kPerFile = 9000;  // 63,000 events: up to 7 slices of kMinSliceEvents

TEST(MergedFileWriter, EverySliceCountWritesTheSameFile) {
    static_assert(kFiles * kPerFile >= 5 * m::MergedFileWriter::kMinSliceEvents, "five slices at least");
    ringprof::testing::TempDir tmp;
    Merge merge(std::size_t{1} << 30, tmp.str(), kPerFile);
    const std::string one = merge.write(tmp.str() + "/one.json", 1);
    for (unsigned threads : {2u, 3u, 5u, 16u}) {
        EXPECT_TRUE(merge.write(tmp.str() + "/many.json", threads) == one)
            << threads << " slices wrote a different file";
    }
}

TEST(MergedFileWriter, SlicesWhoseThreadsTheSystemRefusesAreWrittenByTheCaller) {
    ringprof::testing::TempDir tmp;
    Merge merge(std::size_t{1} << 30, tmp.str(), kPerFile);
    const std::string one = merge.write(tmp.str() + "/one.json", 1);
    m::fail_thread_starts_for_testing(5);  // both passes of a 4-slice write lose threads
    const std::string refused = merge.write(tmp.str() + "/refused.json", 4);
    m::fail_thread_starts_for_testing(0);
    EXPECT_TRUE(refused == one) << "a write that lost threads wrote a different file";
}

TEST(MergedFileWriter, ASpilledStoreWritesTheSameFileAsOneInMemory) {
    ringprof::testing::TempDir tmp;
    Merge in_memory(std::size_t{1} << 30, tmp.str(), 3000);
    Merge spilled(64 * 1024, tmp.str(), 3000);
    ASSERT_GT(spilled.store.runs(), 1u);
    EXPECT_TRUE(spilled.write(tmp.str() + "/spilled.json", 2) == in_memory.write(tmp.str() + "/memory.json", 2));
}

// Read back line by line: an array of one object per line, every X line's tid announced by a
// thread_name line before it (and its pid by a process_name line), starts never going back.
TEST(MergedFileWriter, EachTrackIsAnnouncedJustBeforeItsFirstEventAndStartsNeverGoBack) {
    ringprof::testing::TempDir tmp;
    Merge merge(std::size_t{1} << 30, tmp.str(), kPerFile);
    const std::string text = merge.write(tmp.str() + "/out.json", 4);
    ASSERT_EQ(text.substr(0, 2), "[\n");
    ASSERT_EQ(text.substr(text.size() - 2), "\n]");
    const auto lines = split_lines(text.substr(2, text.size() - 4));
    const auto field = [](const std::string& line, const std::string& key) {
        const std::size_t at = line.find("\"" + key + "\": ");
        if (at == std::string::npos) return std::string();
        const std::size_t from = at + key.size() + 4;
        return line.substr(from, line.find_first_of(",}", from) - from);
    };
    std::map<std::string, std::string> pid_of_tid;
    std::map<std::string, bool> process_named;
    std::size_t x_lines = 0;
    double last_ts = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        ASSERT_EQ(line.front(), '{') << "line " << i;
        ASSERT_EQ(line.substr(line.size() - (i + 1 < lines.size() ? 2 : 1)), i + 1 < lines.size() ? "}," : "}") << line;
        const std::string name = field(line, "name"), pid = field(line, "pid"), tid = field(line, "tid");
        if (name == "\"process_name\"") {
            EXPECT_FALSE(process_named[pid]) << "pid " << pid << " named twice";
            process_named[pid] = true;
        } else if (name == "\"thread_name\"") {
            EXPECT_TRUE(process_named[pid]) << "thread named before its process: " << line;
            EXPECT_TRUE(pid_of_tid.emplace(tid, pid).second) << "tid " << tid << " named twice";
            EXPECT_EQ(tid, std::to_string(pid_of_tid.size())) << "tids count up in order of appearance";
        } else if (name != "\"process_sort_index\"") {
            ++x_lines;
            ASSERT_EQ(pid_of_tid.count(tid), 1u) << "an event before its thread was announced: " << line;
            EXPECT_EQ(pid_of_tid[tid], pid) << line;
            const double ts = std::stod(field(line, "ts"));
            EXPECT_GE(ts, last_ts) << line;
            last_ts = ts;
        }
    }
    EXPECT_EQ(x_lines, merge.events);
    EXPECT_EQ(pid_of_tid.size(), kThreads);
}

TEST(MergedFileWriter, NothingStoredIsAnEmptyArray) {
    ringprof::testing::TempDir tmp;
    m::RecordStore store(std::size_t{1} << 30, tmp.str());
    const m::TrackNumbering none;
    {
        m::MergedFileWriter writer(tmp.str() + "/empty.json", none);
        writer.write_sorted(store, 4);
        writer.finish();
    }
    std::ifstream in(tmp.str() + "/empty.json");
    std::stringstream bytes;
    bytes << in.rdbuf();
    EXPECT_EQ(bytes.str(), "[]");
}

}  // namespace
