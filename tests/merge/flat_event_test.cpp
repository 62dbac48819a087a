// The flat-event fast path is an optimisation only: for every event it takes, it must fill the
// event's fields exactly as the simdjson path does, and anything it is not sure of it must leave
// to simdjson. Every case here is held to simdjson's reading of the same text.
#include <gtest/gtest.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "json/json_text.hpp"
#include "trace/byte_source.hpp"
#include "trace/flat_event.hpp"
#include "trace/parsed_event.hpp"
#include "trace/trace_reader.hpp"
#include "events_read_back.hpp"

using namespace ringprof::detail;
using ringprof::testing::EventSeen;
using ringprof::testing::read_all_events;

namespace {

using ringprof::testing::show;  // beside the ParsedEvent overload below

// Every field, so that a difference names itself.
std::string show(const ParsedEvent& p) {
    std::string s;
    const auto field = [&](const char* k, bool has, std::string_view v) {
        s += k;
        s += has ? "=" : "(unset)=";
        s += v;
        s += " ";
    };
    field("ph", p.has_ph, p.ph);
    field("name", p.has_name, p.name);
    s += p.name_ok ? "name_ok " : "";
    field("pid", p.has_pid, p.pid);
    field("tid", p.has_tid, p.tid);
    field("ts", p.has_ts, show(p.ts));
    field("dur", p.has_dur, show(p.dur));
    s += p.bad_field ? "bad_field " : "";
    s += p.args_bad ? "args_bad " : "";
    field("args", true, p.args);
    field("arg_name", p.has_arg_name, p.arg_name);
    field("thread_id", p.has_thread_id, p.thread_id);
    field("base", p.has_base, show(p.base));
    field("step", p.has_step, std::to_string(p.step));
    return s;
}

// What the fast path says of `text`: taken or not; when taken, checks simdjson agrees.
bool taken_and_agreed(const std::string& text) {
    ParsedEvent fast;
    if (!parse_flat_event(text, fast)) return false;
    ParsedEvent reference;
    bool is_object = false;
    const bool valid = parse_event_with_simdjson(text, reference, is_object);
    EXPECT_TRUE(valid && is_object) << "the fast path took what simdjson refuses: " << text;
    EXPECT_EQ(show(fast), show(reference)) << text;
    // The hint that lets the writer copy the name as it is must be true.
    if (fast.name_plain) {
        EXPECT_TRUE(json_plain_ascii(fast.name)) << text;
    }
    EXPECT_EQ(fast.name_plain, fast.has_name) << text;
    // So must the duration's text that the writer copies instead of printing the number.
    if (!fast.dur_text.empty()) {
        std::string printed;
        append_number(printed, fast.dur);
        EXPECT_EQ(printed, fast.dur_text) << text;
    }
    return true;
}

TEST(FlatEventFastPath, TakesFlatEventsAsSimdjsonReadsThem) {
    const char* cases[] = {
        R"({"ph": "X", "name": "forward", "ts": 17127479, "pid": 2, "dur": 30000})",
        R"({"pid":49,"tid":7,"ts":2000,"name":"op1:MatMul","ph":"X","dur":2.5,"args":{"id":"-1","iter_num":"0"}})",
        R"({"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": 1594662597687738}})",
        R"({"name": "Step:ModeKeys.TRAIN", "pid": 1, "ph": "X", "ts": 5, "dur": 84000, "args": {"pid": 905, "step_num": "12"}})",
        R"({"name": "thread_name", "ph": "M", "pid": "7", "tid": 3.0, "args": {"name": "worker"}})",
        "{\n\t\"ph\" :\r\n \"X\" , \"name\":\"a\",\"ts\" : 1.5e3 ,\"dur\":-2.5E-2 ,\"pid\":0.1}\n",
        R"({"ph": "X", "name": "n", "ts": 123456789012345678, "dur": 0, "pid": -7, "tid": -12.5e-1})",
        R"({"ts": 1, "ts": 2.5, "ph": "X", "args": {"name": "a"}, "args": {"step_num": 3}})",
        R"({"ph": "X", "args": null, "name": "x"})",
        R"({"ph": "X", "args": {}, "name": "x"})",
        R"({"s": "g", "cat": true, "id": null, "bp": false, "ph": "i", "ts": 1, "w": 0, "v": 1e5})",
        R"({})",
        R"({"ph": "X", "ts": 1e300, "dur": 5e18, "name": "out of range times are malformed"})",
        R"({"ph": "X", "ts": -4.611686018427387904e18, "dur": 461168601842738790, "name": "edges"})",
        R"({"ph": "X", "args": {"thread_id": 77, "name": 5, "f": 1e-06, "g": 100.0, "h": 1E2, "step_num": 3.7}})",
        R"({"ph": "X", "args": {"step_num": " -4 ", "thread_id": "t9", "x": "y"}})",
        R"({"ph": "X", "args": {"step_num": "1.5"}})",
        R"({"ph": "X", "args": {"step_num": -2.9}})",
        R"({"name": "", "ph": "", "pid": "", "tid": "", "args": {"": ""}})",
        R"({"name": "~ !#$%&'()*+,-./:;<=>?@[]^_`{|}", "ph": "X"})",
        R"({"ph": "X", "ts": 0.1, "dur": 0.30000000000000004, "pid": 1.7976931348623157e308})",
        R"({"ph": "X", "ts": 2.2250738585072014e-308, "dur": 123456789012345678.5})",
    };
    for (const char* text : cases) EXPECT_TRUE(taken_and_agreed(text)) << "not taken: " << text;
}

TEST(FlatEventFastPath, LeavesToSimdjsonWhatItIsNotSureOf) {
    const char* cases[] = {
        R"({"ph": "X", "name": "a\"b"})",              // escape
        R"({"ph": "X", "name": "caf\u00e9"})",         // escape
        "{\"ph\": \"X\", \"name\": \"caf\xc3\xa9\"}",  // non-ASCII
        "{\"ph\": \"X\", \"name\": \"a\x01\"}",        // control byte
        "{\"ph\": \"X\", \"name\": \"a\x7f\"}",        // DEL
        R"({"p\u0068": "X"})",                         // escaped key
        R"({"ph": "X", "args": {"a": [1]}})",          // nested args
        R"({"ph": "X", "args": {"a": {"b": 1}}})",
        R"({"ph": "X", "args": {"a": true}})",
        R"({"ph": "X", "args": "x"})",  // args not an object
        R"({"ph": 1})",                 // ph not a string
        R"({"name": 5, "ph": "X"})",
        R"({"pid": true, "ph": "X"})",
        R"({"ts": "5", "ph": "X"})",
        R"({"ts": 1234567890123456789, "ph": "X"})",  // 19 digits
        R"({"ts": -0, "ph": "X"})",
        R"({"ts": 01, "ph": "X"})",
        R"({"ts": 1., "ph": "X"})",
        R"({"ts": .5, "ph": "X"})",
        R"({"ts": 1e, "ph": "X"})",
        R"({"ts": +1, "ph": "X"})",
        R"({"ts": 1e400, "ph": "X"})",
        R"({"ts": 12345678901234567890.5, "ph": "X"})",  // 20 digits
        R"({"ts": 0.12345678901234567890, "ph": "X"})",
        R"({"ts": 1e-400, "ph": "X"})",
        R"({"ts": NaN, "ph": "X"})",
        R"({"ts": Infinity, "ph": "X"})",
        R"({"ts": 1,})",  // trailing comma
        R"({"ts" 1})",
        R"({"ts": 1 "ph": "X"})",
        R"({"ts": 12a})",
        R"({"ts": 12:})",  // bytes just above '9', read a word at a time
        R"({"ts": 1234567;, "ph": "X"})",
        R"({"dur": 12345678?, "ph": "X"})",
        R"({"pid": 1/})",  // and just below '0'
        R"({"ts": tru})",
        R"({"other": {"a": 1}, "ph": "X"})",  // unknown key, nested value
        R"({"other": [], "ph": "X"})",
        R"({"a": 1}x)",
        R"({"a": 1)",
        R"({"a": "unterminated)",
        R"([1, 2])",
        R"("text")",
        R"(5)",
    };
    for (const char* text : cases) EXPECT_FALSE(taken_and_agreed(text)) << "taken: " << text;
}

// A float step_num is Python's int() of it; one beyond int64 is no step at all (it equals no step
// a merge can ask for), on both paths, where casting it was undefined behaviour.
TEST(FlatEventFastPath, AFloatStepBeyondInt64IsNoStep) {
    for (const char* text :
         {R"({"ph": "X", "args": {"step_num": 9.5e18}})", R"({"ph": "X", "args": {"step_num": -1e300}})"}) {
        ParsedEvent fast, careful;
        bool is_object = false;
        ASSERT_TRUE(parse_flat_event(text, fast)) << text;
        ASSERT_TRUE(parse_event_with_simdjson(text, careful, is_object)) << text;
        EXPECT_FALSE(fast.has_step) << text;
        EXPECT_FALSE(careful.has_step) << text;
    }
    ParsedEvent p;
    ASSERT_TRUE(parse_flat_event(R"({"ph": "X", "args": {"step_num": -7.9}})", p));
    EXPECT_TRUE(p.has_step);
    EXPECT_EQ(p.step, -7);
}

// The fast path writes args back in a buffer of its own (1 KiB): args that fit are taken, longer
// ones left to simdjson, whole, never cut.
TEST(FlatEventFastPath, LongArgsAreLeftToSimdjsonNotCut) {
    const auto event = [](std::size_t bytes) {
        return R"({"ph": "X", "args": {"a": 1, "long": ")" + std::string(bytes, 'x') + R"(", "b": 2.5}})";
    };
    EXPECT_TRUE(taken_and_agreed(event(900)));
    EXPECT_FALSE(taken_and_agreed(event(1100)));
    ParsedEvent p;
    bool is_object = false;
    ASSERT_TRUE(parse_event_with_simdjson(event(1100), p, is_object));
    EXPECT_EQ(p.args.size(), 1100 + std::string(R"({"a": 1, "long": "", "b": 2.5})").size());
}

// simdjson 3.0.1's get_number() reads a float of 19 or more digits as 0.0; Python reads it
// rounded, and so must both paths.
TEST(FlatEventFastPath, LongFloatsAreReadRoundedNotAsZero) {
    ParsedEvent p;
    bool is_object = false;
    ASSERT_TRUE(parse_event_with_simdjson(
        R"({"ts": 123456789012345678.5, "dur": -4.611686018427387904e18, "args": {"v": 1234567890123456789012.5}})", p,
        is_object));
    EXPECT_EQ(show(p.ts), show(TraceNumber::floating(123456789012345678.5)));
    EXPECT_TRUE(p.bad_field);  // the dur: out of range, not 0
    EXPECT_EQ(p.args, R"({"v": 1.2345678901234568e+21})");
}

// Random events from a grammar that mixes what the fast path takes with what it must decline
// (escapes, nesting, odd numbers, broken syntax), with random whitespace, key order and
// duplicate keys: every event it takes agrees with simdjson field by field.
std::string random_event(std::mt19937_64& rng) {
    const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    const auto ws = [&] {
        static const char* spaces[] = {"", "", "", " ", "\n", "\t ", "\r\n"};
        return std::string(spaces[pick(7)]);
    };
    static const char* strings[] = {"\"X\"",           "\"M\"",         "\"B\"",   "\"E\"",      "\"process_name\"",
                                    "\"thread_name\"", "\"op:MatMul\"", "\"\"",    "\"a\\\"b\"", "\"caf\\u00e9\"",
                                    "\"\xc3\xa9\"",    "\"12\"",        "\" 7 \"", "\"t1\""};
    static const char* numbers[] = {"0",
                                    "1",
                                    "-3",
                                    "17127479",
                                    "2.5",
                                    "1e5",
                                    "-1.25E-3",
                                    "123456789012345678",
                                    "1234567890123456789",
                                    "-0",
                                    "01",
                                    "1.",
                                    "1e400",
                                    "4611686018427387904",
                                    "0.30000000000000004",
                                    "1594662597687738",
                                    "9.5e18",
                                    "0.0001",
                                    "0.00001",
                                    "-0.0",
                                    "2.0",
                                    "2.50",
                                    "12345678901234.5",
                                    "123456789012345.5"};
    static const char* others[] = {"true", "false", "null", "[1, 2]", "{\"k\": 1}", "{}", "tru", "nul"};
    const auto value = [&]() -> std::string {
        switch (pick(10)) {
            case 0:
            case 1:
            case 2:
            case 3:
                return strings[pick(std::size(strings))];
            case 4:
            case 5:
            case 6:
            case 7:
                return numbers[pick(std::size(numbers))];
            default:
                return others[pick(std::size(others))];
        }
    };
    static const char* keys[] = {"ph", "name", "pid", "tid", "ts", "dur", "args", "cat", "s", "id"};
    static const char* arg_keys[] = {"name",       "thread_id", "step_num", "start_time_since_epoch_in_micros",
                                     "sort_index", "x"};
    std::string e = "{" + ws();
    const std::size_t members = pick(8);
    for (std::size_t m = 0; m < members; ++m) {
        if (m) e += ws() + "," + ws();
        const std::string key = keys[pick(std::size(keys))];
        e += "\"" + key + "\"" + ws() + ":" + ws();
        if (key == "args" && pick(4) != 0) {
            e += "{" + ws();
            const std::size_t n = pick(4);
            for (std::size_t a = 0; a < n; ++a) {
                if (a) e += "," + ws();
                e +=
                    std::string("\"") + arg_keys[pick(std::size(arg_keys))] + "\"" + ws() + ":" + ws() + value() + ws();
            }
            e += "}";
        } else {
            e += value();
        }
    }
    e += ws() + "}";
    if (pick(50) == 0) e.insert(pick(e.size()), 1, ",:\"{}"[pick(5)]);  // now and then, broken syntax
    return e;
}

TEST(FlatEventFastPath, AgreesWithSimdjsonOnRandomEvents) {
    std::mt19937_64 rng(20261201);
    int taken = 0, declined = 0;
    for (int i = 0; i < 20000; ++i) {
        const std::string text = random_event(rng);
        (taken_and_agreed(text) ? taken : declined)++;
        if (::testing::Test::HasFailure()) break;
    }
    // Both sides of the decision are exercised (else this test could not fail).
    EXPECT_GT(taken, 2000);
    EXPECT_GT(declined, 2000);
}

// Integers of every length (the digits are read a word at a time: every count of digits in a
// word, and words cut by the end of the text), and floats of every digit count and exponent,
// inside the range read by one exact multiplication or division (up to 2^53 and 10^±22) and
// outside it (where from_chars reads them): each is the very number simdjson reads.
TEST(FlatEventFastPath, ReadsEveryNumberAsSimdjsonReadsIt) {
    std::mt19937_64 rng(2261);
    const auto digits = [&](std::size_t n) {
        std::string d;
        for (std::size_t i = 0; i < n; ++i) d += static_cast<char>('0' + rng() % 10);
        return d;
    };
    int taken = 0;
    for (std::size_t length = 1; length <= 19; ++length) {
        for (int i = 0; i < 50; ++i) {
            const std::string number = (i % 2 ? "-" : "") + std::to_string(1 + rng() % 9) + digits(length - 1);
            taken +=
                taken_and_agreed(R"({"ph": "X", "args": {"v": )" + number + R"(, "dur": 0}, "pid": )" + number + "}");
            ParsedEvent at_end;  // the number is the text's last bytes but the closing brace
            if (parse_flat_event(R"({"dur":)" + number + "}", at_end)) {
                EXPECT_EQ(show(at_end.dur), show(TraceNumber::integer(std::stoll(number)))) << number;
            }
        }
    }
    for (int i = 0; i < 20000; ++i) {
        const std::size_t whole = 1 + rng() % 10, fraction = rng() % 10;
        std::string number = (rng() % 4 == 0 ? "-" : "") + std::to_string(1 + rng() % 9) + digits(whole - 1);
        if (fraction || rng() % 2) number += "." + digits(fraction ? fraction : 1);
        if (rng() % 2)
            number += std::string("eE"[rng() % 2] + std::string(rng() % 2 ? "-" : "")) + std::to_string(rng() % 40);
        taken += taken_and_agreed(R"({"ph": "X", "args": {"v": )" + number + R"(, "dur": 0}, "ts": 1})") &&
                 taken_and_agreed(R"({"ph": "X", "dur": )" + number + "}");
        if (::testing::Test::HasFailure()) break;
    }
    EXPECT_GT(taken, 15000 + 800);  // the fast path took nearly all of them
}

// The rule for copying a number's text: whenever it says yes, Python's json.dumps (repr for
// floats) prints the number exactly as written; it says yes for the usual durations.
TEST(FlatEventFastPath, NumberTextIsCopiedOnlyWhenPythonPrintsItSo) {
    std::mt19937_64 rng(42);
    const auto digits = [&](std::size_t n, bool first_nonzero) {
        std::string d;
        for (std::size_t i = 0; i < n; ++i)
            d += static_cast<char>('0' + (i == 0 && first_nonzero ? 1 + rng() % 9 : rng() % 10));
        return d;
    };
    int copied = 0;
    for (int i = 0; i < 200000; ++i) {
        std::string token = rng() % 4 == 0 ? "-" : "";
        const std::size_t whole = rng() % 17;
        token += whole == 0 ? "0" : digits(whole, true);
        token += "." + digits(1 + rng() % 17, false);
        if (rng() % 8 == 0) token += "e" + std::to_string(static_cast<int>(rng() % 40) - 20);
        double d = 0;
        std::from_chars(token.data(), token.data() + token.size(), d);
        if (!python_number_text(token, TraceNumber::floating(d))) continue;
        ++copied;
        std::string printed;
        append_number(printed, TraceNumber::floating(d));
        ASSERT_EQ(printed, token);
    }
    EXPECT_GT(copied, 20000);
    for (const char* yes :
         {"2.5", "0.5", "-0.0", "0.0", "2.0", "100.0", "0.0001", "123456789012345.0", "0.30000000000001"}) {
        double d = 0;
        std::from_chars(yes, yes + std::strlen(yes), d);
        EXPECT_TRUE(python_number_text(yes, TraceNumber::floating(d))) << yes;
    }
    for (const char* no : {"2.50", "0.00001", "1e5", "1.5E3", "1234567890123456.0", "0.30000000000000004", "2.00"}) {
        double d = 0;
        std::from_chars(no, no + std::strlen(no), d);
        EXPECT_FALSE(python_number_text(no, TraceNumber::floating(d))) << no;
    }
    EXPECT_TRUE(python_number_text("17127479", TraceNumber::integer(17127479)));
}

// Runs of events the fast path declines (one, or several in a row, at a batch's start, middle
// and end) are read by simdjson in their place: the events and their order are the same as when
// every event is read on its own (the smallest buffers hold no batch).
TEST(FlatEventFastPath, EventsItDeclinesKeepTheirPlaceInTheFile) {
    std::string t =
        R"([{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Forward", "start_time_since_epoch_in_micros": 1000}})";
    std::mt19937_64 rng(7);
    for (int i = 0; i < 4000; ++i) {
        const int run = static_cast<int>(rng() % 4);
        for (int j = 0; j < run && rng() % 3 == 0; ++j) {
            t += ", {\"ph\": \"X\", \"name\": \"esc\\u00e9" + std::to_string(i) + "\", \"ts\": " + std::to_string(i) +
                 ", \"dur\": 1, \"pid\": 1, \"args\": {\"deep\": [" + std::to_string(j) + "]}}";
        }
        t += ",\n{\"ph\": \"X\", \"name\": \"flat" + std::to_string(i) + "\", \"ts\": " + std::to_string(i) +
             ".5, \"dur\": 2, \"pid\": 1, \"tid\": " + std::to_string(i % 3) + ", \"args\": {\"step_num\": \"" +
             std::to_string(i / 10) + "\"}}";
    }
    t += "]";
    const std::vector<EventSeen> one_by_one = read_all_events(t, 16);
    std::size_t flat = 0, declined = 0;
    for (const EventSeen& e : one_by_one) (e.name.rfind("flat", 0) == 0 ? flat : declined)++;
    EXPECT_EQ(flat, 4000u);
    EXPECT_GT(declined, 500u);
    for (std::size_t chunk : {std::size_t{300}, std::size_t{4096}, std::size_t{65536}, std::size_t{1} << 22}) {
        EXPECT_TRUE(read_all_events(t, chunk) == one_by_one) << "buffer of " << chunk << " bytes";
    }
}

// FlatEventReader reads an event whose bytes between its values are those of the event before by
// comparing them and reading only the values: it must give exactly what read_flat_event gives,
// whatever the values are this time (another kind, malformed, cut by the end of the text), and
// must never compare bytes past the end it is given, though it may read them.
struct ReaderOutcome {
    std::ptrdiff_t end;  // -1: not taken
    std::string fields;
};

ReaderOutcome read_with(FlatEventReader* reader, const std::string& text, std::size_t size) {
    // The bytes past `size` are the rest of the text and then padding, as in a stream buffer.
    std::string padded = text + std::string(FlatEventReader::kGap, '}');
    ParsedEvent p;
    const char* begin = padded.data();
    const char* end = reader ? reader->read(begin, begin + size, p) : read_flat_event(begin, begin + size, p);
    return {end ? end - begin : -1, end ? show(p) : std::string()};
}

struct Layout {
    std::vector<std::string> keys;
    std::vector<std::string> before;  // the bytes before each value; the first opens the object
    std::string close;
};

Layout random_layout(std::mt19937_64& rng) {
    const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    const auto ws = [&] {
        static const char* spaces[] = {"", "", " ", " ", "\n", "  "};
        return std::string(spaces[pick(6)]);
    };
    static const char* keys[] = {"ph", "name", "pid", "tid", "ts", "dur", "args", "cat", "id"};
    Layout l;
    const std::size_t members = 1 + pick(7);
    for (std::size_t m = 0; m < members; ++m) {
        l.keys.push_back(keys[pick(std::size(keys))]);
        l.before.push_back((m ? ws() + "," + ws() : "{" + ws()) + "\"" + l.keys.back() + "\"" + ws() + ":" + ws());
    }
    l.close = ws() + "}";
    return l;
}

// Mostly a value of the member's usual kind; one in ten, any value at all, good or bad.
std::string random_value(const std::string& key, std::mt19937_64& rng) {
    static const char* strings[] = {"\"X\"", "\"M\"", "\"op:MatMul\"", "\"\"", "\"12\""};
    static const char* numbers[] = {"0", "7", "17127479", "12345678", "1234567890123456", "2.5", "1e5", "-3"};
    static const char* args[] = {"{\"step_num\": \"3\", \"x\": 1.5}", "{\"name\": \"w\"}", "{}", "null"};
    static const char* any[] = {"\"X\"",
                                "7",
                                "2.5",
                                "true",
                                "null",
                                "{}",
                                "\"a\\\"b\"",
                                "\"\xc3\xa9\"",
                                "-0",
                                "01",
                                "1e400",
                                "[1]",
                                "{\"a\": {\"b\": 1}}",
                                "\"unterminated"};
    const auto from = [&](const auto& list) { return std::string(list[rng() % std::size(list)]); };
    if (rng() % 10 == 0) return from(any);
    if (key == "ts" || key == "dur") return from(numbers);
    if (key == "pid" || key == "tid") return rng() % 2 ? from(numbers) : from(strings);
    if (key == "args") return from(args);
    return from(strings);
}

std::string instance(const Layout& l, std::mt19937_64& rng) {
    std::string e;
    for (std::size_t m = 0; m < l.keys.size(); ++m) e += l.before[m] + random_value(l.keys[m], rng);
    return e + l.close;
}

TEST(FlatEventReader, ReadsEveryEventOfAFileAsReadFlatEventDoes) {
    std::mt19937_64 rng(20261202);
    FlatEventReader reader;
    Layout layout = random_layout(rng);
    int taken = 0, declined = 0;
    for (int i = 0; i < 40000; ++i) {
        if (rng() % 20 == 0) layout = random_layout(rng);  // the file's next kind of event
        std::string text = instance(layout, rng);
        if (rng() % 25 == 0) text.insert(rng() % text.size(), 1, " ,:\"{}"[rng() % 6]);  // one event differs
        // Now and then the text ends inside the event, its remaining bytes still readable after.
        const std::size_t size = rng() % 10 == 0 ? rng() % (text.size() + 1) : text.size();
        const ReaderOutcome expected = read_with(nullptr, text, size);
        const ReaderOutcome got = read_with(&reader, text, size);
        ASSERT_EQ(got.end, expected.end) << text.substr(0, size);
        ASSERT_EQ(got.fields, expected.fields) << text.substr(0, size);
        (expected.end >= 0 ? taken : declined)++;
    }
    EXPECT_GT(taken, 5000);
    EXPECT_GT(declined, 5000);
}

// The cases that matter most, spelled out: the same layout with a value of another kind, a
// malformed value, more bytes of space, another key in the same place, one member fewer.
TEST(FlatEventReader, AnEventOfAnotherLayoutOrKindOfValueIsReadAfresh) {
    const char* learned = R"({"ph": "X", "name": "a", "ts": 5, "pid": 1, "dur": 2})";
    const char* others[] = {
        R"({"ph": "X", "name": "a", "ts": 5, "pid": "1", "dur": 2.5})",
        R"({"ph": "X", "name": "a", "ts": "5", "pid": 1, "dur": 2})",
        R"({"ph": "X", "name": "a\"", "ts": 5, "pid": 1, "dur": 2})",
        R"({"ph": "X", "name": "a", "ts": 5,  "pid": 1, "dur": 2})",
        R"({"ph": "X", "name": "a", "tid": 5, "pid": 1, "dur": 2})",
        R"({"ph": "X", "name": "a", "ts": 5, "pid": 1})",
        R"({"ph": "X", "name": "a", "ts": 5, "pid": 1, "dur": 2, "tid": 3})",
        R"({"ph": "X", "name": "a", "ts": 5, "pid": 1, "dur": {"x": 1}})",
        R"({"ph": "X", "name": "a", "ts": 5, "pid": 1, "dur": 2})",
    };
    for (const char* other : others) {
        FlatEventReader reader;
        ASSERT_GT(read_with(&reader, learned, std::strlen(learned)).end, 0);
        const ReaderOutcome expected = read_with(nullptr, other, std::strlen(other));
        const ReaderOutcome got = read_with(&reader, other, std::strlen(other));
        EXPECT_EQ(got.end, expected.end) << other;
        EXPECT_EQ(got.fields, expected.fields) << other;
    }
}

}  // namespace

// reset() zeroes the fields as bytes (for speed): that must be exactly a new event's fields.
TEST(ParsedEventReset, LeavesEveryFieldAsInANewEvent) {
    ParsedEvent p;
    ASSERT_TRUE(parse_flat_event(
        R"({"ph": "X", "name": "n", "pid": 3, "tid": "t", "ts": 2.5, "dur": 7, "args": {"step_num": "4", "thread_id": 9, "name": "w", "start_time_since_epoch_in_micros": 5}})",
        p));
    p.bad_field = p.args_bad = true;
    p.reset();
    EXPECT_EQ(show(p), show(ParsedEvent{}));
    EXPECT_TRUE(p.args.empty());
    EXPECT_FALSE(p.name_plain);
    EXPECT_TRUE(p.dur_text.empty());
    EXPECT_EQ(p.dur_text.data(), nullptr);
}
