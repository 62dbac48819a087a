// smdebug's metadata lines, as both the pythontimeline backend and the merge write them, parsed back.
#include <gtest/gtest.h>

#include <string>

#include <simdjson.h>

#include "json/smdebug_metadata.hpp"

namespace m = ringprof::detail;

namespace {

// The lines as a JSON array: each starts with ",\n", so "[" + first line's text without it + "]".
simdjson::dom::array parse_lines(simdjson::dom::parser& parser, const std::string& lines) {
    EXPECT_EQ(lines.rfind(",\n", 0), 0u);
    return parser.parse("[" + lines.substr(2) + "]").get_array().value();
}

}  // namespace

TEST(SmdebugMetadata, APhaseIsNamedAndSortedByItsPid) {
    std::string out;
    m::append_phase_metadata(out, 20001, "Backward \xc3\xa9", m::NonAscii::escape);
    EXPECT_EQ(out.find_first_of("\xc3"), std::string::npos) << "escaped for smdebug's json.dumps";
    simdjson::dom::parser parser;
    const auto lines = parse_lines(parser, out);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(std::string_view(lines.at(0)["name"]), "process_name");
    EXPECT_EQ(std::string_view(lines.at(0)["ph"]), "M");
    EXPECT_EQ(std::int64_t(lines.at(0)["pid"]), 20001);
    EXPECT_EQ(std::string_view(lines.at(0)["args"]["name"]), "Backward \xc3\xa9");
    EXPECT_EQ(std::string_view(lines.at(1)["name"]), "process_sort_index");
    EXPECT_EQ(std::int64_t(lines.at(1)["args"]["sort_index"]), 20001);
}

TEST(SmdebugMetadata, AThreadIsNamedWithinItsPhase) {
    std::string out;
    m::append_thread_metadata(out, 3, 42, "worker \"a\"", m::NonAscii::keep);
    simdjson::dom::parser parser;
    const auto lines = parse_lines(parser, out);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(std::string_view(lines.at(0)["name"]), "thread_name");
    EXPECT_EQ(std::int64_t(lines.at(0)["pid"]), 3);
    EXPECT_EQ(std::int64_t(lines.at(0)["tid"]), 42);
    EXPECT_EQ(std::string_view(lines.at(0)["args"]["name"]), "worker \"a\"");
}

TEST(SmdebugMetadata, TheTimeBaseIsPidZerosProcessName) {
    std::string out = "[\n";
    m::append_time_base(out, 1594662605425850);
    out += "]";
    simdjson::dom::parser parser;
    const auto lines = parser.parse(out).get_array().value();
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(std::int64_t(lines.at(0)["pid"]), 0);
    EXPECT_EQ(std::int64_t(lines.at(0)["args"]["start_time_since_epoch_in_micros"]), 1594662605425850);
    EXPECT_EQ(std::int64_t(lines.at(1)["args"]["sort_index"]), 0);
}
