// The trace reader parses whole batches of events at once and falls back to one event at a time
// where a batch cannot serve (an element cut by the buffer's end, a non-object element, a
// syntax error). Whatever the path, the events and the error positions are the same.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trace/byte_source.hpp"
#include "trace/trace_reader.hpp"
#include "events_read_back.hpp"

using namespace ringprof::detail;
using ringprof::testing::EventSeen;
using ringprof::testing::read_all_events;

namespace {

// Strings holding brackets, quotes and backslashes, nested args, elements that are not objects
// and a re-declared process: everything the batch scanner must step over exactly.
std::string awkward_trace(int events) {
    std::string t =
        "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"Forward\", "
        "\"start_time_since_epoch_in_micros\": 1000}}";
    for (int i = 0; i < events; ++i) {
        t += ",\n{\"ph\": \"X\", \"name\": \"op\\\"}{[\\\\" + std::to_string(i) +
             "]\", \"ts\": " + std::to_string(i * 10) + ", \"dur\": " + std::to_string(i % 7) +
             ", \"pid\": 1, \"tid\": " + std::to_string(i % 3) +
             ", \"args\": {\"deep\": [[{\"k\": \"}\"}]], \"step_num\": \"" + std::to_string(i / 10) + "\"}}";
        if (i % 97 == 0) t += ", 5, \"text\", [1, {\"a\": 2}]";
        if (i == events / 2)
            t += ",{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"Backward\"}}";
    }
    return t + "\n]";
}

TEST(TraceReaderBatches, EveryBufferSizeReadsTheSameEvents) {
    const std::string text = awkward_trace(3000);
    const std::vector<EventSeen> whole = read_all_events(text, 1 << 22);
    ASSERT_EQ(whole.size(), 3000u);
    EXPECT_EQ(whole[5].name, "op\"}{[\\5]");
    EXPECT_EQ(whole[5].args, "{\"deep\": [[{\"k\": \"}\"}]], \"step_num\": \"0\"}");
    EXPECT_EQ(whole[5].phase, "Forward");
    EXPECT_EQ(whole[2999].phase, "Backward");
    EXPECT_EQ(whole[2999].start, ringprof::testing::show(TraceNumber::integer(1000 + 29990)));
    for (std::size_t chunk : {16, 17, 63, 64, 65, 200, 4096, 65536}) {
        EXPECT_TRUE(read_all_events(text, chunk) == whole) << "buffer of " << chunk << " bytes";
    }
}

TEST(TraceReaderBatches, ASyntaxErrorInsideABatchNamesItsEventAndByte) {
    std::string text = awkward_trace(2000);
    const std::string marker = "\"ts\": 15000,";  // event #1500 (the M event is #0, plus non-objects)
    const std::size_t at = text.find(marker);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, marker.size(), "\"ts\": 15000@,");
    const std::size_t bad = at + std::string("\"ts\": 15000").size();
    for (std::size_t chunk : {std::size_t{64}, std::size_t{4096}, std::size_t{1} << 22}) {
        try {
            read_all_events(text, chunk);
            ADD_FAILURE() << "accepted a broken event with a buffer of " << chunk;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("(at byte " + std::to_string(bad) + ")"), std::string::npos)
                << e.what() << " (buffer " << chunk << ")";
            EXPECT_NE(std::string(e.what()).find("in event #"), std::string::npos) << e.what();
        }
    }
}

}  // namespace

namespace {

// Keys are read without copying when they hold no escape; a key written with escapes must still
// mean what it says once unescaped, as in Python's json module.
TEST(TraceReaderKeys, EscapedKeysMeanTheSameAsPlainOnes) {
    const std::string plain =
        R"([{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": 1000}},
{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Forward"}},
{"name": "a", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "args": {"name": "x", "k\u00e9y": "v"}}])";
    const std::string escaped =
        R"([{"n\u0061me": "process_name", "\u0070h": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": 1000}},
{"name": "process_n\u0061me", "ph": "M", "p\u0069d": 1, "\u0061rgs": {"n\u0061me": "Forward"}},
{"name": "a", "p\u0068": "X", "t\u0073": 1, "\u0064ur": 2, "pid": 1, "args": {"n\u0061me": "x", "k\u00e9y": "v"}}])";
    for (std::size_t chunk : {std::size_t{1} << 20, std::size_t{16}}) {
        const auto expected = read_all_events(plain, chunk);
        ASSERT_EQ(expected.size(), 1u);
        EXPECT_EQ(expected[0].phase, "Forward");
        EXPECT_EQ(expected[0].start, ringprof::testing::show(TraceNumber::integer(1001)));
        EXPECT_EQ(expected[0].args, R"({"name": "x", "k\u00e9y": "v"})");
        EXPECT_EQ(read_all_events(escaped, chunk), expected) << "chunk " << chunk;
    }
}

}  // namespace
