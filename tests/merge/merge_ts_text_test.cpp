// The merged file's ts is printed by the writer from each event's stored start, its leading
// digits kept from the event before: every start must come out exact, whichever digits change
// from one event to the next, and the text must be how Python prints the number.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"

using namespace merge_test;
using ringprof::MergedTimeline;

namespace {

// The "ts" texts of the X events, in file order.
std::vector<std::string> ts_texts(const std::string& merged) {
    std::vector<std::string> out;
    static const std::regex ts(R"re("ph": "X", "ts": ([-0-9.e+]+),)re");
    for (auto it = std::sregex_iterator(merged.begin(), merged.end(), ts); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1].str());
    return out;
}

TEST(MergeTsText, StartsComeOutExactAcrossEveryChangeOfLeadingDigits) {
    TempDir dir;
    // Absolute starts stepping over 10^8 and 10^15 boundaries (the leading part changes), below
    // 10^8 (printed whole), between a float start and integer ones, and repeating.
    const std::vector<std::int64_t> base_of_file = {999999999999990, 99999990, 1599999999999995};
    std::vector<std::string> expected;
    int file = 0;
    for (const std::int64_t base : base_of_file) {
        std::vector<PhaseEvent> events;
        for (int k = 0; k < 20; ++k) events.push_back({"Forward", "e" + std::to_string(k), k, 1, ""});
        write_file(pevents_file(dir.path(), base + 100, std::to_string(++file) + "-h", "pythontimeline.json"),
                   smdebug_timeline(base, events));
    }
    std::vector<std::int64_t> starts;
    for (const std::int64_t base : base_of_file)
        for (int k = 0; k < 20; ++k) starts.push_back(base + k);
    std::sort(starts.begin(), starts.end());
    for (const std::int64_t s : starts) expected.push_back(std::to_string(s));
    // A float start between integer ones, in a trace whose times are absolute.
    write_gzip(dir.path() / "framework" / "pevents" / "2020071317" / "1599999999999999_9-t_trace.json.gz",
               R"({"traceEvents":[{"name":"process_name","ph":"M","pid":1,"args":{"name":"T"}},)"
               R"({"name":"f","ph":"X","pid":1,"tid":1,"ts":1599999999999999.5,"dur":1}]})");
    expected.insert(std::find(expected.begin(), expected.end(), "1600000000000000"), "1599999999999999.5");
    MergedTimeline merger(dir.path().string(), {}, (dir.path() / "out").string());
    const auto r = merger.merge_all();
    ASSERT_TRUE(r.complete());
    const auto texts = ts_texts(read_text(r.output_path));
    EXPECT_EQ(texts, expected);
}

}  // namespace
