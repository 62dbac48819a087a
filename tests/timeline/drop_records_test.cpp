// What the timelines say they left out: the pythontimeline's `ringprof_drops` record and the
// trace's `ringprof_status` carry the writer's own counts, read back from the files.
#include <gtest/gtest.h>

#include <simdjson.h>

#include "ringprof/ringprof.hpp"
#include "timeline_test_support.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

void nest_levels(int depth) {
    PROF_SCOPE("level");
    if (depth > 1) nest_levels(depth - 1);
}

// The args of the first M event named `name` in a JSON text holding a traceEvents array or a
// bare array of events.
std::map<std::string, std::int64_t> record_counts(const std::string& text, const std::string& name) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.parse(text);
    simdjson::dom::array events = doc.is_array() ? doc.get_array() : doc["traceEvents"].get_array();
    std::map<std::string, std::int64_t> out;
    for (simdjson::dom::element e : events) {
        std::string_view n;
        if (e["name"].get(n) || n != name) continue;
        for (auto field : simdjson::dom::object(e["args"])) out[std::string(field.key)] = int64_t(field.value);
        break;
    }
    return out;
}

TEST(DropRecords, BothTimelinesReportTheSpansTheFiltersLeftOut) {
    TempDir dir;
    Config config = timeline_config(dir.str(), {"pythontimeline", "trace"});
    config.timeline_max_depth = 2;
    {
        Session session(config);
        for (int i = 0; i < 10; ++i) nest_levels(5);  // 3 levels of 5 below the depth limit: 30 left out
    }
    const auto files = pevents_files(dir.path());
    ASSERT_EQ(files.size(), 1u);
    const auto drops = record_counts(read_text(files[0]), "ringprof_drops");
    EXPECT_EQ(drops, (std::map<std::string, std::int64_t>{{"dropped_spans", 0}, {"filtered_spans", 30},
                                                          {"dropped_scopes", 0}}))
        << files[0];

    const auto status = record_counts(gunzip(read_text(dir.path() / "t_trace.json.gz")), "ringprof_status");
    EXPECT_EQ(status, (std::map<std::string, std::int64_t>{{"timeline_dropped_spans", 0},
                                                           {"timeline_filtered_spans", 30},
                                                           {"dropped_scopes", 0}}));
}

}  // namespace
}  // namespace ringprof
