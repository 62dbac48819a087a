// The merged file's X line: put_line sizes it exactly as it writes it, and it reads back as the
// event it stands for.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include <simdjson.h>

#include "merge/merged_line.hpp"

namespace m = ringprof::detail;
namespace line = ringprof::detail::merged_line;
using ringprof::detail::TraceNumber;

namespace {

struct Append {
    std::string out;
    void text(std::string_view s) { out.append(s); }
    void ts(TraceNumber t) { m::append_number(out, t); }
};

std::string record_tail(std::string_view dur, std::string_view args) {
    std::string tail(line::tail_size(dur, args), '\0');
    EXPECT_EQ(line::write_tail(tail.data(), dur, args), tail.data() + tail.size());
    return tail;
}

}  // namespace

TEST(MergedLine, ItsMeasuredSizeIsTheBytesItWrites) {
    const std::string middle = line::middle(1000000, 7);
    const std::string tail = record_tail("12", "{\"step_num\": \"3\"}");
    const std::string announce =
        ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1000000, \"tid\": 7, \"args\": {\"name\": \"x\"}}";
    const TraceNumber starts[] = {TraceNumber::integer(0),
                                  TraceNumber::integer(9),
                                  TraceNumber::integer(10),
                                  TraceNumber::integer(-123456789),
                                  TraceNumber::integer(1594662605528850),
                                  TraceNumber::integer(std::numeric_limits<std::int64_t>::min()),
                                  TraceNumber::floating(0.5),
                                  TraceNumber::floating(1e-7),
                                  TraceNumber::floating(1.5e16),
                                  TraceNumber::floating(-2.0)};
    for (const TraceNumber start : starts) {
        for (const std::string_view a : {std::string_view(), std::string_view(announce)}) {
            const line::Line l{a, "\"name\"", middle, start, line::kDur, tail};
            Append written;
            line::put_line(written, l);
            line::LineSize measured;
            line::put_line(measured, l);
            EXPECT_EQ(measured.bytes, written.out.size()) << written.out;
            EXPECT_LE(written.out.size(), line::room_for(l)) << written.out;
        }
    }
}

TEST(MergedLine, ALineReadsBackAsItsEvent) {
    std::string head(line::plain_head_size("forward"), '\0');
    line::write_plain_head(head.data(), "forward");
    const std::string middle = line::middle(20001, 3);
    const std::string tail = record_tail("2.5", "{\"a\": 1}");
    Append written;
    line::put_line(written, line::Line{{}, head, middle, TraceNumber::integer(1594662605528850), line::kDur, tail});
    ASSERT_EQ(written.out.rfind(",\n", 0), 0u);
    simdjson::dom::parser parser;
    const simdjson::dom::element e = parser.parse(written.out.substr(2)).value();
    EXPECT_EQ(std::string_view(e["name"]), "forward");
    EXPECT_EQ(std::int64_t(e["pid"]), 20001);
    EXPECT_EQ(std::int64_t(e["tid"]), 3);
    EXPECT_EQ(std::string_view(e["ph"]), "X");
    EXPECT_EQ(std::int64_t(e["ts"]), 1594662605528850);
    EXPECT_EQ(double(e["dur"]), 2.5);
    EXPECT_EQ(std::int64_t(e["args"]["a"]), 1);
}
