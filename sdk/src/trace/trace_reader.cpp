#include "trace/trace_reader.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <simdjson.h>

#include "json/json_error_position.hpp"
#include "json/json_text.hpp"
#include "json/python_json.hpp"
#include "trace/event_stream.hpp"
#include "trace/flat_event.hpp"
#include "trace/parsed_event.hpp"

namespace ringprof::detail {

namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::number_type;
using simdjson::ondemand::value;

std::string_view trim_token(std::string_view t) {
    while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
        t.remove_suffix(1);
    return t;
}

// A number with a fraction or exponent and 19 or more digits: simdjson 3.0.1's get_number()
// reads those as 0.0 (123456789012345678.5 -> 0.0), while get_double() rounds them right.
bool long_float(std::string_view token) {
    std::size_t digits = 0;
    bool is_float = false;
    for (const char c : token) {
        if (c >= '0' && c <= '9')
            ++digits;
        else if (c == '.')
            is_float = true;
        else if (c == 'e' || c == 'E') {
            is_float = true;
            break;
        }
    }
    return is_float && digits >= 19;
}

bool read_number(value v, TraceNumber& out) {
    if (long_float(v.raw_json_token())) {
        double d;
        if (v.get_double().get(d) || !std::isfinite(d)) return false;
        out = TraceNumber::floating(d);
        return true;
    }
    // One parse of the digits (asking the type first parsed them twice).
    simdjson::ondemand::number n;
    if (!v.get_number().get(n)) {
        if (n.get_number_type() == number_type::signed_integer) {
            out = TraceNumber::integer(n.get_int64());
            return true;
        }
        const double d =
            n.get_number_type() == number_type::unsigned_integer ? static_cast<double>(n.get_uint64()) : n.get_double();
        if (!std::isfinite(d)) return false;
        out = TraceNumber::floating(d);
        return true;
    }
    number_type nt;
    if (v.get_number_type().get(nt)) return false;
    double d;
    if (nt == number_type::signed_integer || v.get_double().get(d) || !std::isfinite(d)) return false;
    out = TraceNumber::floating(d);
    return true;
}

// The text a scalar id (pid, tid, thread_id) is known by: strings unquoted, numbers as written.
bool read_id_text(value v, std::string_view& out) {
    json_type t;
    if (v.type().get(t)) return false;
    if (t == json_type::string) return !v.get_string().get(out);
    if (t == json_type::number) {
        TraceNumber n;
        std::string_view tok;
        tok = v.raw_json_token();
        out = trim_token(tok);
        return read_number(v, n);
    }
    if (t == json_type::boolean) {
        bool b;
        if (v.get_bool().get(b)) return false;
        out = b ? "True" : "False";
        return true;
    }
    if (t == json_type::null) {
        bool n = false;
        if (v.is_null().get(n) || !n) return false;
        out = "None";
        return true;
    }
    return false;
}

// Ondemand parsing checks a value only when it is read; reading every value we do not otherwise
// use makes a corrupt file fail as a whole, as it does in Python.
bool validate(value v) {
    json_type t;
    if (v.type().get(t)) return false;
    switch (t) {
        case json_type::object: {
            simdjson::ondemand::object o;
            if (v.get_object().get(o)) return false;
            for (auto f : o) {
                std::string_view k;
                value c;
                if (f.unescaped_key().get(k) || f.value().get(c) || !validate(c)) return false;
            }
            return true;
        }
        case json_type::array: {
            simdjson::ondemand::array a;
            if (v.get_array().get(a)) return false;
            for (auto e : a) {
                value c;
                if (e.get(c) || !validate(c)) return false;
            }
            return true;
        }
        case json_type::string: {
            std::string_view s;
            return !v.get_string().get(s);
        }
        case json_type::number: {
            TraceNumber n;
            return read_number(v, n);
        }
        case json_type::boolean: {
            bool b;
            return !v.get_bool().get(b);
        }
        case json_type::null: {
            bool n = false;
            return !v.is_null().get(n) && n;
        }
    }
    return false;
}

using Parsed = ParsedEvent;

bool read_args(value v, Parsed& p) {
    json_type t;
    if (v.type().get(t)) return false;
    if (t == json_type::null) {
        bool n = false;
        return !v.is_null().get(n) && n;
    }
    if (t != json_type::object) {
        p.args_bad = true;
        return validate(v);
    }
    simdjson::ondemand::object o;
    if (v.get_object().get(o)) return false;
    std::string& out = p.args;
    out += '{';
    bool first = true;
    for (auto member : o) {
        std::string_view key;
        value c;
        if (member.unescaped_key().get(key) || member.value().get(c)) return false;
        if (!first) out += ", ";
        first = false;
        detail::append_json_string(out, key, detail::NonAscii::escape);
        out += ": ";
        json_type ct;
        if (c.type().get(ct)) return false;
        if (ct == json_type::string) {
            std::string_view s;
            if (c.get_string().get(s)) return false;
            detail::append_json_string(out, s, detail::NonAscii::escape);
            note_string_arg(p, key, s);
        } else if (ct == json_type::number) {
            TraceNumber n;
            std::string_view tok;
            tok = c.raw_json_token();
            if (!read_number(c, n)) return false;
            if (n.is_float)
                detail::append_python_float(out, n.d);
            else
                out += trim_token(tok);
            note_number_arg(p, key, n, trim_token(tok));
        } else {
            if (!append_python_value(out, c)) return false;
        }
    }
    out += '}';
    if (first) out.clear();  // {} is falsy in Python: no args
    return true;
}

bool parse_event_object(simdjson::ondemand::object obj, Parsed& p);

// Returns false when the element is not valid JSON.
bool parse_element(simdjson::ondemand::parser& parser, std::string_view text, std::size_t capacity, Parsed& p,
                   bool& is_object) {
    simdjson::ondemand::document doc;
    if (parser.iterate(text.data(), text.size(), capacity).get(doc)) return false;
    json_type t;
    if (doc.type().get(t)) return false;
    is_object = t == json_type::object;
    if (!is_object) {
        value v;
        if (t == json_type::object || t == json_type::array) {
            if (doc.get_value().get(v)) return false;
            return validate(v);
        }
        // A lone scalar element: read it to check it.
        switch (t) {
            case json_type::string: {
                std::string_view s;
                return !doc.get_string().get(s);
            }
            case json_type::number: {
                double d;
                return !doc.get_double().get(d);
            }
            case json_type::boolean: {
                bool b;
                return !doc.get_bool().get(b);
            }
            default: {
                bool n = false;
                return !doc.is_null().get(n) && n;
            }
        }
    }
    simdjson::ondemand::object obj;
    if (doc.get_object().get(obj)) return false;
    return parse_event_object(obj, p);
}

// Parses a whole batch (EventStream::next_batch) in one pass: one simdjson document for
// thousands of events instead of one each (per-event documents spent more instructions setting
// up than parsing). Calls on_event(p, k) for each element k in order and returns how many were
// read; the caller reads the rest one by one, which names the problem exactly.
template <class OnEvent>
std::size_t parse_batch(simdjson::ondemand::parser& parser, std::string_view text, std::size_t capacity, Parsed& p,
                        OnEvent on_event) {
    simdjson::ondemand::document doc;
    simdjson::ondemand::array events;
    if (parser.iterate(text.data(), text.size(), capacity).get(doc) || doc.get_array().get(events)) return 0;
    std::size_t k = 0;
    for (auto element : events) {
        simdjson::ondemand::object obj;
        p.reset();
        if (element.get_object().get(obj) || !parse_event_object(obj, p)) return k;
        on_event(p, k);
        ++k;
    }
    return k;
}

bool parse_event_object(simdjson::ondemand::object obj, Parsed& p) {
    for (auto member : obj) {
        std::string_view key;
        value v;
        if (member.unescaped_key().get(key) || member.value().get(v)) return false;
        if (key == "ph") {
            json_type vt;
            if (v.type().get(vt)) return false;
            if (vt == json_type::string) {
                if (v.get_string().get(p.ph)) return false;
                p.has_ph = true;
            } else {
                p.has_ph = false;
                if (!validate(v)) return false;
            }
        } else if (key == "name") {
            json_type vt;
            if (v.type().get(vt)) return false;
            p.has_name = true;
            p.name_ok = vt == json_type::string;
            if (p.name_ok) {
                if (v.get_string().get(p.name)) return false;
            } else if (!validate(v))
                return false;
        } else if (key == "pid" || key == "tid") {
            std::string_view id;
            if (!read_id_text(v, id)) {
                p.bad_field = true;
                if (!validate(v)) return false;
                continue;
            }
            if (key == "pid") {
                p.pid = id;
                p.has_pid = true;
            } else {
                p.tid = id;
                p.has_tid = true;
            }
        } else if (key == "ts" || key == "dur") {
            TraceNumber n;
            json_type vt;
            if (v.type().get(vt)) return false;
            if (vt != json_type::number) {
                p.bad_field = true;
                if (!validate(v)) return false;
                continue;
            }
            if (!read_number(v, n)) return false;
            // A time must be a microsecond count an int64 can hold: 1e300 named the output file
            // "-9223372036854775808_...". Such an event is malformed, like a string ts.
            if (!time_in_range(n)) {
                p.bad_field = true;
                continue;
            }
            if (key == "ts") {
                p.ts = n;
                p.has_ts = true;
            } else {
                p.dur = n;
                p.has_dur = true;
            }
        } else if (key == "args") {
            p.args.clear();
            if (!read_args(v, p)) return false;
        } else if (!validate(v)) {
            return false;
        }
    }
    return true;
}

struct Pending {
    std::string name, args, pid, tid, thread_id;
    bool has_tid = false, has_thread_id = false, has_step = false;
    TraceNumber ts;
    std::int64_t step = 0;
};

class FileState {
public:
    FileState(const ReaderSetup& s, EventSink& sink, ReadOutcome& out) : setup_(s), sink_(sink), out_(out) {
        has_base_ = s.has_base;
        base_ = s.base;
    }

    void handle(const Parsed& p, std::uint64_t index) {
        if (!p.has_ph) return;
        if (setup_.close_open_spans && p.has_pid && p.has_ts && !p.bad_field &&
            (p.ph == "X" || p.ph == "B" || p.ph == "E")) {
            const TraceNumber end = p.ph == "X" && p.has_dur ? add(p.ts, p.dur) : p.ts;
            auto [it, inserted] = last_ts_.emplace(stack_key(p), end);
            if (!inserted && compare(end, it->second) > 0) it->second = end;
        }
        if (p.ph == "M") return meta(p);
        if (p.ph == "X") return complete(p, index);
        if (p.ph == "B") return begin(p, index);
        if (p.ph == "E") return end(p, index);
    }

    void finish() {
        std::uint64_t open = 0;
        for (auto& [k, st] : stacks_) {
            open += st.size();
            if (!setup_.close_open_spans) continue;
            const auto last = last_ts_.find(k);
            for (const Pending& b : st) {
                const TraceNumber start = absolute(b.ts);
                TraceNumber end = last == last_ts_.end() ? start : absolute(last->second);
                TraceNumber dur = subtract(end, start);
                if (compare(dur, TraceNumber::integer(0)) < 0) {
                    dur = TraceNumber::integer(0);
                    end = start;
                }
                deliver(start, dur, end, b.name, b.pid, b.has_tid, b.tid, b.has_thread_id, b.thread_id, b.args,
                        b.has_step, b.step);
            }
        }
        if (open && !setup_.close_open_spans) note(std::to_string(open) + " B event(s) without a matching E left out");
        if (dropped_) {
            out_.dropped += dropped_;
            note(std::to_string(dropped_) + " malformed event(s) left out, first: " + first_drop_);
        }
    }

    void not_an_event(std::uint64_t index) { drop(index, "is not an object"); }

    bool used_events_without_base() const { return events_without_base_; }
    void set_base(TraceNumber b) {
        base_ = b;
        has_base_ = true;
    }
    bool base_seen() const { return has_base_; }

private:
    void note(std::string s) { out_.notes.push_back(std::move(s)); }

    void drop(std::uint64_t index, const char* why) {
        if (dropped_++ == 0) first_drop_ = "event #" + std::to_string(index) + " " + why;
    }

    void meta(const Parsed& p) {
        if (p.has_base) {
            base_ = p.base;
            has_base_ = true;
        }
        if (!p.has_name || !p.name_ok || !p.has_pid) return;
        forget_tracks();
        const std::string pid(p.pid);
        if (p.name == "process_name") {
            phases_[pid] = p.has_arg_name ? std::string(p.arg_name) : std::string("Unknown");
            // A re-declared process starts with no named threads, as in smdebug.
            for (auto it = threads_.begin(); it != threads_.end();) {
                if (it->first.compare(0, pid.size() + 1, pid + '\x1f') == 0)
                    it = threads_.erase(it);
                else
                    ++it;
            }
        } else if (p.name == "thread_name" && p.has_tid && p.has_arg_name) {
            threads_[pid + '\x1f' + std::string(p.tid)] = std::string(p.arg_name);
        }
    }

    TraceNumber absolute(TraceNumber ts) {
        if (!has_base_) events_without_base_ = true;
        return has_base_ ? add(ts, base_) : ts;
    }

    const std::string& phase_of(std::string_view pid) {
        static const std::string unknown = "Unknown";
        if (auto it = phases_.find(std::string(pid)); it != phases_.end()) return it->second;
        return unknown;
    }

    struct Track {
        std::string phase, pid, thread_key, thread_name, label;
    };

    // A declaration may rename what earlier events' tracks resolve to: start new ids.
    void forget_tracks() {
        if (track_ids_.empty()) return;
        track_ids_.clear();
        tracks_.clear();
        last_valid_ = false;
        track_base_ += std::uint64_t{1} << 32;
    }

    // The (phase, thread) an event belongs to, resolved once per distinct pid/thread: looking
    // phases and thread names up per event cost an allocation and three hashes each.
    std::uint64_t track_of(std::string_view pid, bool has_tid, std::string_view tid, bool has_thread_id,
                           std::string_view thread_id) {
        // Consecutive events are mostly on one track: building and hashing the key per event
        // was about 5% of a merge's instructions (callgrind, bench_merge input).
        const std::string_view thread = has_thread_id ? thread_id : has_tid ? tid : std::string_view();
        if (last_valid_ && has_thread_id == last_has_thread_id_ && has_tid == last_has_tid_ && pid == last_pid_ &&
            thread == last_thread_) {
            return last_track_;
        }
        key_.assign(pid);
        key_ += '\x1f';
        key_ += has_thread_id ? 'a' : has_tid ? 't' : 'n';
        key_ += thread;
        const auto [it, fresh] = track_ids_.try_emplace(key_, static_cast<std::uint32_t>(tracks_.size()));
        if (fresh) {
            Track t;
            t.phase = phase_of(pid);
            t.pid = std::string(pid);
            t.label = setup_.node_id + '_';
            if (has_thread_id) {
                t.thread_key = std::string(thread_id);
                t.label += thread_id;
            } else {
                t.thread_key = has_tid ? std::string(tid) : std::string("0");
                const auto named =
                    has_tid ? threads_.find(std::string(pid) + '\x1f' + std::string(tid)) : threads_.end();
                if (named != threads_.end()) t.thread_name = named->second;
                t.label += named != threads_.end() ? named->second : t.thread_key;
            }
            tracks_.push_back(std::move(t));
        }
        last_valid_ = true;
        last_has_thread_id_ = has_thread_id;
        last_has_tid_ = has_tid;
        last_pid_.assign(pid);
        last_thread_.assign(thread);
        last_track_ = track_base_ | it->second;
        return last_track_;
    }

    void deliver(TraceNumber start, TraceNumber dur, TraceNumber end, std::string_view name, std::string_view pid,
                 bool has_tid, std::string_view tid, bool has_thread_id, std::string_view thread_id,
                 std::string_view args, bool has_step, std::int64_t step, bool name_plain = false,
                 std::string_view dur_text = {}) {
        const std::uint64_t track = track_of(pid, has_tid, tid, has_thread_id, thread_id);
        const Track& t = tracks_[static_cast<std::uint32_t>(track)];
        // Every member given, so each is written once: `ReadEvent e;` zeroed its 230 bytes first
        // with `rep stos`, whose start-up cost was about half of this function's time (perf).
        const ReadEvent e{start,         dur,  end,      name, t.phase,    t.thread_key, t.label, t.pid,
                          t.thread_name, args, has_step, step, name_plain, dur_text,     track};
        sink_.on_event(e);
        ++out_.events;
    }

    void complete(const Parsed& p, std::uint64_t index) {
        if (!p.has_name || !p.name_ok || !p.has_pid || !p.has_ts || !p.has_dur || p.bad_field || p.args_bad) {
            return drop(index,
                        "(X) lacks a string name, pid, numeric ts or dur within +-2^62 us, or has non-object args");
        }
        deliver(absolute(p.ts), p.dur, has_base_ ? span_end(base_, p.ts, p.dur) : add(p.ts, p.dur), p.name, p.pid,
                p.has_tid, p.tid, p.has_thread_id, p.thread_id, p.args, p.has_step, p.step, p.name_plain, p.dur_text);
    }

    static std::string stack_key(const Parsed& p) {
        return std::string(p.pid) + '\x1f' + std::string(p.has_tid ? p.tid : "");
    }

    void begin(const Parsed& p, std::uint64_t index) {
        if (!p.has_name || !p.name_ok || !p.has_pid || !p.has_ts || p.bad_field || p.args_bad) {
            return drop(index, "(B) lacks a string name, pid or numeric ts within +-2^62 us, or has non-object args");
        }
        Pending b;
        b.name = p.name;
        b.args = p.args;
        b.pid = p.pid;
        b.ts = p.ts;
        b.has_tid = p.has_tid;
        b.tid = p.tid;
        b.has_thread_id = p.has_thread_id;
        b.thread_id = p.thread_id;
        b.has_step = p.has_step;
        b.step = p.step;
        stacks_[stack_key(p)].push_back(std::move(b));
    }

    void end(const Parsed& p, std::uint64_t index) {
        if (!p.has_pid || !p.has_ts || p.bad_field || p.args_bad) {
            return drop(index, "(E) lacks a pid or numeric ts within +-2^62 us, or has non-object args");
        }
        auto it = stacks_.find(stack_key(p));
        if (it == stacks_.end() || it->second.empty()) {
            ++unmatched_;
            if (unmatched_ == 1) note("E event #" + std::to_string(index) + " has no open B on its pid/tid; left out");
            return;
        }
        Pending b = std::move(it->second.back());
        it->second.pop_back();
        const TraceNumber start = absolute(b.ts);
        const TraceNumber finish = absolute(p.ts);
        const TraceNumber dur = subtract(finish, start);
        if (compare(dur, TraceNumber::integer(0)) < 0) {
            note("E event #" + std::to_string(index) + " ends before its B begins; left out");
            return;
        }
        // smdebug keeps the E event's args; we fall back to the B event's when E has none.
        const bool use_e = !p.args.empty();
        deliver(start, dur, finish, b.name, p.pid, b.has_tid, b.tid, use_e ? p.has_thread_id : b.has_thread_id,
                use_e ? p.thread_id : std::string_view(b.thread_id),
                use_e ? std::string_view(p.args) : std::string_view(b.args), use_e ? p.has_step : b.has_step,
                use_e ? p.step : b.step);
    }

    const ReaderSetup& setup_;
    EventSink& sink_;
    ReadOutcome& out_;
    bool has_base_ = false;
    bool events_without_base_ = false;
    TraceNumber base_;
    std::unordered_map<std::string, std::string> phases_;
    std::unordered_map<std::string, std::string> threads_;
    std::unordered_map<std::string, std::vector<Pending>> stacks_;
    std::unordered_map<std::string, TraceNumber> last_ts_;  // per pid/tid, for close_open_spans
    std::vector<Track> tracks_;
    std::unordered_map<std::string, std::uint32_t> track_ids_;
    std::uint64_t track_base_ = 0;  // high half: how many times the tracks were forgotten
    std::string key_;
    // The last track looked up, and what it was looked up by.
    bool last_valid_ = false, last_has_thread_id_ = false, last_has_tid_ = false;
    std::string last_pid_, last_thread_;
    std::uint64_t last_track_ = 0;
    std::uint64_t dropped_ = 0, unmatched_ = 0;
    std::string first_drop_;
};

// A start time given beside the events: {"otherData": {"start_time_since_epoch_in_micros": N}}
// (or under "metadata").
bool member_base(const EventStream& stream, TraceNumber& base) {
    simdjson::ondemand::parser parser;
    for (const auto& [key, text] : stream.members()) {
        if (key != "otherData" && key != "metadata") continue;
        simdjson::padded_string padded(text);
        simdjson::ondemand::document doc;
        simdjson::ondemand::object obj;
        if (parser.iterate(padded).get(doc) || doc.get_object().get(obj)) continue;
        value v;
        if (obj.find_field_unordered("start_time_since_epoch_in_micros").get(v)) continue;
        if (read_number(v, base)) return true;
    }
    return false;
}

}  // namespace

bool parse_event_with_simdjson(std::string_view text, ParsedEvent& p, bool& is_object) {
    // Kept, with the padded copy, because p's strings may point into either.
    thread_local simdjson::ondemand::parser parser;
    thread_local simdjson::padded_string padded;
    padded = simdjson::padded_string(text);
    p.reset();
    is_object = false;
    return parse_element(parser, padded, padded.size() + simdjson::SIMDJSON_PADDING, p, is_object);
}

ReadOutcome read_trace_events(ByteSource& src, const ReaderSetup& setup, EventSink& sink) {
    ReadOutcome out;
    EventStream stream(src, std::max<std::size_t>(setup.chunk_bytes, 16));
    // One parser per thread, reused file after file: a fresh one allocated (and faulted in) its
    // buffers again for every file.
    thread_local simdjson::ondemand::parser parser;
    FileState state(setup, sink, out);
    Parsed p, ahead;
    std::uint64_t index = 0;
    TraceNumber base;
    const auto handle = [&](const Parsed& parsed, bool is_object) {
        if (index == 0 && !setup.has_base && stream.object_form() && member_base(stream, base)) state.set_base(base);
        if (is_object)
            state.handle(parsed, index);
        else
            state.not_an_event(index);
        ++index;
    };
    // One element on its own: the careful path, which names a problem's byte exactly.
    const auto read_one = [&](std::string_view element) {
        p.reset();
        bool is_object = false;
        if (!parse_element(parser, element, stream.capacity_from(element.data()), p, is_object)) {
            // simdjson does not say where in the element; the walker does, to the byte.
            const std::uint64_t element_start = stream.offset_of(element.data());
            const detail::JsonSyntaxProblem syntax = detail::find_json_syntax_problem(element);
            const std::uint64_t at = element_start + (syntax.found ? syntax.offset : 0);
            throw InputError("invalid JSON in event #" + std::to_string(index) + ": " +
                             (syntax.found ? syntax.what : std::string("a number out of range")) + " (at byte " +
                             std::to_string(at) + ")");
        }
        handle(p, is_object);
    };
    std::vector<std::string_view> batch;
    std::string_view element;
    FlatEventReader flat;  // the stream's buffer has the padding it needs
    static_assert(FlatEventReader::kGap <= simdjson::SIMDJSON_PADDING, "readable past the buffer's end");
    const auto read_flat = [&](const char* begin, const char* end) { return flat.read(begin, end, p); };
    for (;;) {
        p.reset();
        if (!stream.next_read(read_flat).empty()) {
            handle(p, true);
            continue;
        }
        batch.clear();
        std::size_t capacity = 0;
        stream.next_batch(batch, capacity);
        if (!batch.empty()) {
            // Flat events take the fast path; each run of events it is not sure of is parsed by
            // simdjson as one array, and whatever that cannot take, one by one.
            std::size_t k = 0;
            while (k < batch.size()) {
                p.reset();
                if (parse_flat_event(batch[k], p)) {
                    handle(p, true);
                    ++k;
                    continue;
                }
                std::size_t end = k + 1;
                bool ahead_taken = false;
                for (; end < batch.size() && !ahead_taken; ++end) {
                    ahead.reset();
                    ahead_taken = parse_flat_event(batch[end], ahead);
                }
                if (ahead_taken) --end;  // batch[end] is in `ahead`
                std::size_t run_capacity = 0;
                const std::string_view run = stream.bracket_run(batch[k], batch[end - 1], run_capacity);
                const std::size_t read = parse_batch(parser, run, run_capacity, p,
                                                     [&](const Parsed& parsed, std::size_t) { handle(parsed, true); });
                for (std::size_t j = k + read; j < end; ++j) read_one(batch[j]);
                if (ahead_taken) handle(ahead, true);
                k = ahead_taken ? end + 1 : end;
            }
            continue;
        }
        if (!stream.next(element)) break;
        read_one(element);
    }
    state.finish();
    if (!setup.has_base && state.used_events_without_base() && out.events > 0 && member_base(stream, base)) {
        out.reread_with_base = true;
        out.late_base = base;
    }
    return out;
}

}  // namespace ringprof::detail
