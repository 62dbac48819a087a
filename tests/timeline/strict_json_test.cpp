// Every output is strict JSON (or well-formed XML, or UTF-8 text) whatever bytes the program
// puts in names and whatever doubles in gauges: invalid UTF-8, control characters, quotes,
// "</script>", NaN and infinities. Checked with simdjson (which validates UTF-8) and with
// Python's json module told to refuse NaN/Infinity; the flame page stays inert.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "json/json_text.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "timeline_test_support.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

constexpr const char* kHostileThread = "caf\xe9 \x01\x1f\"q\" </script><script>alert(1)</script>";

void hostile_workload() {
    std::thread other([] {
        set_thread_name(kHostileThread);
        PROF_SCOPE("\xff\xfe bad \x80 utf8");
        PROF_SCOPE("ctl \x01\x02\x7f\t\n\r end");
    });
    other.join();
    {
        PROF_SCOPE("</script><img src=x onerror=alert(1)> \"quoted\" \\ back");
        PROF_SCOPE("half \xe2\x82 then \xed\xa0\x80 surrogate \xf4\x90\x80\x80 big");
    }
    PROF_GAUGE("inf", INFINITY);
    PROF_GAUGE("minus_inf", -INFINITY);
    PROF_GAUGE("nan", std::nan(""));
    PROF_GAUGE("mixed", 1.5);
    PROF_GAUGE("mixed", INFINITY);
    add_metadata("key \xff \"</script>", "value \x01\xc0\xaf");
}

void expect_strict_json(const std::string& text, const std::string& what) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    const auto error = parser.parse(text).get(doc);
    EXPECT_EQ(error, simdjson::SUCCESS) << what << ": " << simdjson::error_message(error);
}

// Python's json refuses bare NaN/Infinity only when told to; invalid UTF-8 fails the decode.
void expect_python_reads(const std::filesystem::path& file, bool gzipped) {
    const std::string opener = gzipped ? "gzip.open" : "open";
    const std::string cmd =
        "timeout 60 python3 -c \"import gzip, json, sys\n"
        "def refuse(c): raise ValueError('non-JSON constant ' + c)\n"
        "json.loads(" +
        opener + "(sys.argv[1], 'rb').read().decode('utf-8'), parse_constant=refuse)\" '" + file.string() + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << "python3's json refused " << file;
}

TEST(StrictJson, HostileNamesAndNonFiniteGaugesLeaveEveryOutputParseable) {
    TempDir dir;
    {
        Config c = timeline_config(dir.str(), {});  // every built-in output
        Session session(c);
        hostile_workload();
    }
    const auto p = dir.path();
    const std::vector<std::pair<std::filesystem::path, bool>> json_files = {
        {p / "t_trace.json.gz", true}, {p / "t_timers.json", false}, {p / "t_stats.json", false}};
    for (const auto& [file, gz] : json_files) {
        ASSERT_TRUE(std::filesystem::exists(file)) << file;
        const std::string raw = read_text(file);
        expect_strict_json(gz ? gunzip(raw) : raw, file.string());
        expect_python_reads(file, gz);
    }
    const auto pevents = pevents_files(p);
    ASSERT_FALSE(pevents.empty());
    for (const auto& file : pevents) {
        expect_strict_json(read_text(file), file.string());
        expect_python_reads(file, false);
    }

    // Non-finite gauge values are counted apart; value, min and max stay finite numbers.
    const TimerTree timers = load_timers_json((p / "t_timers.json").string());
    const std::string timers_text = read_text(p / "t_timers.json");
    EXPECT_EQ(timers_text.find("Infinity"), std::string::npos);
    EXPECT_EQ(timers_text.find("NaN"), std::string::npos);
    for (const auto& [name, g] : timers.gauges) {
        EXPECT_TRUE(std::isfinite(g.value) && std::isfinite(g.min) && std::isfinite(g.max)) << name;
    }
    // inf, -inf, NaN and the infinite sample of "mixed": one non-finite value each.
    std::size_t counted = 0;
    for (std::size_t at = 0; (at = timers_text.find("\"non_finite\": 1", at)) != std::string::npos; ++at) ++counted;
    EXPECT_EQ(counted, 4u) << timers_text;

    // The flame page: the data element is the only place names go, and it cannot end early.
    const std::string html = read_text(p / "t_flame.html");
    const std::string open_tag = "<script type=\"application/json\" id=\"flame-data\">";
    const std::size_t data_at = html.find(open_tag);
    ASSERT_NE(data_at, std::string::npos);
    const std::size_t data_end = html.find("</script>", data_at);
    const std::string data = html.substr(data_at + open_tag.size(), data_end - data_at - open_tag.size());
    EXPECT_EQ(data.find('<'), std::string::npos) << "a '<' inside the data could close the element";
    expect_strict_json(data, "flame data");
    EXPECT_EQ(html.find("<img"), std::string::npos);
    EXPECT_EQ(html.find("<script>alert"), std::string::npos);
    EXPECT_EQ(detail::valid_utf8(html), html) << "the page is not valid UTF-8";

    // The SVG is well-formed XML, the folded stacks valid UTF-8 text.
    const std::string svg_cmd =
        "timeout 60 python3 -c \"import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])\" '" +
        (p / "t_flame.svg").string() + "'";
    EXPECT_EQ(std::system(svg_cmd.c_str()), 0) << "the SVG is not well-formed XML";
    const std::string folded = read_text(p / "t_folded.txt");
    EXPECT_FALSE(folded.empty());
    EXPECT_EQ(detail::valid_utf8(folded), folded);
}

TEST(StrictJson, InvalidUtf8BecomesReplacementCharactersAndControlsAreEscaped) {
    std::string out;
    detail::append_json_string(out, std::string("a\xe9z\x01\"\\\xf0\x9f\x98\x80\xed\xa0\x80", 13));
    EXPECT_EQ(out, "\"a\xEF\xBF\xBDz\\u0001\\\"\\\\\xf0\x9f\x98\x80\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
    std::string num;
    detail::append_python_float(num, INFINITY);
    detail::append_python_float(num, std::nan(""));
    EXPECT_EQ(num, "nullnull");
}

TEST(ReservedMetadata, AddMetadataCannotReplaceAKeyRingprofWrites) {
    TempDir dir;
    {
        Session session(timeline_config(dir.str(), {"timers"}));
        { PROF_SCOPE("work"); }
        ::testing::internal::CaptureStderr();
        add_metadata("dropped_scopes", "0");
        add_metadata("run_id", "forged");
        add_metadata("mine", "kept");
        const std::string err = ::testing::internal::GetCapturedStderr();
        EXPECT_NE(err.find("'dropped_scopes' is written by ringprof itself"), std::string::npos) << err;
        EXPECT_NE(err.find("'user.run_id'"), std::string::npos) << err;
        EXPECT_EQ(err.find("mine"), std::string::npos) << err;
    }
    const TimerTree t = load_timers_json((dir.path() / "t_timers.json").string());
    ASSERT_NE(t.find_metadata("run_id"), nullptr);
    EXPECT_EQ(*t.find_metadata("run_id"), "t");
    ASSERT_NE(t.find_metadata("user.dropped_scopes"), nullptr);
    EXPECT_EQ(*t.find_metadata("user.dropped_scopes"), "0");
    EXPECT_EQ(*t.find_metadata("user.run_id"), "forged");
    EXPECT_EQ(*t.find_metadata("mine"), "kept");
    int dropped_keys = 0;
    for (const auto& [k, v] : t.metadata) dropped_keys += k == "dropped_scopes";
    EXPECT_EQ(dropped_keys, 1);
}

}  // namespace
}  // namespace ringprof
