#include "merge/event_stream.hpp"

#include <cstring>

#include <simdjson.h>

namespace ringprof::merge {

namespace {
inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
constexpr std::size_t kMaxKeptMember = 64 * 1024;
}  // namespace

EventStream::EventStream(ByteSource& src, std::size_t chunk)
    : src_(src), buf_(chunk + simdjson::SIMDJSON_PADDING), cap_(chunk) {}

std::size_t EventStream::padding() { return simdjson::SIMDJSON_PADDING; }

std::size_t EventStream::capacity_from(const char* p) const {
    return static_cast<std::size_t>(buf_.data() + buf_.size() - p);
}

void EventStream::fail(const char* what) const {
    // Broken before any event list turned up: whether this was meant as a trace is unknown.
    if (object_form_ && !array_seen_) not_a_trace(what);
    throw InputError(std::string(what) + " (at byte " + std::to_string(consumed_ + pos_) + ")");
}

void EventStream::not_a_trace(const char* what) const {
    throw NotATraceError(std::string(what) + " (at byte " + std::to_string(consumed_ + pos_) + ")");
}

bool EventStream::fill() {
    if (eof_) return false;
    // Keep the value being scanned (from mark_); drop what is already handed out.
    if (mark_ > 0) {
        std::memmove(buf_.data(), buf_.data() + mark_, end_ - mark_);
        consumed_ += mark_;
        pos_ -= mark_;
        end_ -= mark_;
        mark_ = 0;
    }
    if (end_ == cap_) {  // one value larger than the buffer: grow
        cap_ *= 2;
        buf_.resize(cap_ + simdjson::SIMDJSON_PADDING);
    }
    const std::size_t n = src_.read(buf_.data() + end_, cap_ - end_);
    if (n == 0) { eof_ = true; return false; }
    end_ += n;
    return true;
}

int EventStream::peek_nonspace() {
    for (;;) {
        while (pos_ < end_ && is_space(buf_[pos_])) ++pos_;
        if (pos_ < end_) return static_cast<unsigned char>(buf_[pos_]);
        mark_ = pos_;
        if (!fill()) return -1;
    }
}

void EventStream::scan_string() {
    ++pos_;  // opening quote
    for (;;) {
        const char* base = buf_.data();
        while (pos_ < end_) {
            const char c = base[pos_];
            if (c == '"') { ++pos_; return; }
            pos_ += (c == '\\') ? 2 : 1;
        }
        if (pos_ > end_) {  // an escape's second byte is not read yet
            --pos_;
            if (!fill()) fail("input ends inside a string (truncated file)");
            pos_ += 1;
            continue;
        }
        if (!fill()) fail("input ends inside a string (truncated file)");
    }
}

void EventStream::scan_value() {
    const int first = peek_nonspace();
    if (first < 0) fail("input ends where a value was expected");
    mark_ = pos_;
    if (first == '"') { scan_string(); return; }
    if (first == '{' || first == '[') {
        char stack[256];
        std::size_t depth = 0;
        for (;;) {
            while (pos_ < end_) {
                const char c = buf_[pos_];
                if (c == '"') {
                    scan_string();
                    continue;
                }
                ++pos_;
                if (c == '{' || c == '[') {
                    if (depth == sizeof stack) {
                        --pos_;  // name the bracket that goes too deep
                        fail("a value nested deeper than 256 levels");
                    }
                    stack[depth++] = c;
                } else if (c == '}' || c == ']') {
                    if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '[')) fail("mismatched bracket");
                    if (--depth == 0) return;
                }
            }
            if (!fill()) fail("input ends inside an event (truncated file)");
        }
    }
    // A scalar runs to the next delimiter; its own syntax is checked by the parser.
    for (;;) {
        while (pos_ < end_) {
            const char c = buf_[pos_];
            if (c == ',' || c == ']' || c == '}' || is_space(c)) return;
            ++pos_;
        }
        if (!fill()) return;
    }
}

bool EventStream::read_object_members() {
    // Entered after '{' (where '}' may close an empty object) or after ',' (a member must follow).
    for (;;) {
        const int c = peek_nonspace();
        if (c == '}' && !member_expected_) { ++pos_; state_ = State::done; return false; }
        if (c != '"') fail(c < 0 ? "input ends inside the top-level object (truncated file)"
                                 : "expected a member name in the top-level object");
        mark_ = pos_;
        scan_string();
        std::string key(buf_.data() + mark_ + 1, pos_ - mark_ - 2);
        if (peek_nonspace() != ':') fail("expected ':' after a member name");
        ++pos_;
        if (key == "traceEvents") {
            if (peek_nonspace() != '[') {
                array_seen_ = true;  // a trace after all, only a broken one
                fail("traceEvents is not an array");
            }
            if (array_seen_) fail("traceEvents appears twice");
            ++pos_;
            array_seen_ = true;
            state_ = State::in_array;
            return true;
        }
        scan_value();
        if (pos_ - mark_ <= kMaxKeptMember) members_.emplace_back(std::move(key), std::string(buf_.data() + mark_, pos_ - mark_));
        const int after = peek_nonspace();
        if (after == '}') { ++pos_; state_ = State::done; return false; }
        if (after != ',') fail(after < 0 ? "input ends inside the top-level object (truncated file)"
                                         : "expected ',' or '}' in the top-level object");
        ++pos_;
        member_expected_ = true;
    }
}

bool EventStream::next(std::string_view& element) {
    for (;;) {
        switch (state_) {
            case State::start: {
                int c = peek_nonspace();
                if (c == 0xEF && end_ - pos_ >= 3 && std::memcmp(buf_.data() + pos_, "\xEF\xBB\xBF", 3) == 0) {
                    pos_ += 3;  // byte-order mark
                    c = peek_nonspace();
                }
                if (c < 0) fail("file is empty");
                if (c != '[' && c != '{') not_a_trace("not a JSON array or object");
                ++pos_;
                if (c == '[') { array_seen_ = true; state_ = State::in_array; break; }
                object_form_ = true;
                state_ = State::object_key;
                break;
            }
            case State::object_key:
                read_object_members();
                break;
            case State::in_array: {
                const int c = peek_nonspace();
                if (c < 0) fail("input ends inside the event array (truncated file)");
                if (c == ']') { ++pos_; state_ = State::after_array; break; }
                scan_value();
                element = std::string_view(buf_.data() + mark_, pos_ - mark_);
                state_ = State::after_element;
                return true;
            }
            case State::after_element: {
                const int c = peek_nonspace();
                if (c < 0) fail("input ends inside the event array (truncated file)");
                if (c == ']') { ++pos_; state_ = State::after_array; break; }
                if (c != ',') fail("expected ',' or ']' between events");
                ++pos_;
                const int d = peek_nonspace();
                if (d == ']') fail("trailing ',' before ']'");
                if (d < 0) fail("input ends inside the event array (truncated file)");
                state_ = State::in_array;
                break;
            }
            case State::after_array:
                if (object_form_) {
                    const int c = peek_nonspace();
                    if (c == '}') { ++pos_; state_ = State::done; break; }
                    if (c != ',') fail(c < 0 ? "input ends inside the top-level object (truncated file)"
                                             : "expected ',' or '}' after traceEvents");
                    ++pos_;
                    member_expected_ = true;
                    state_ = State::object_key;
                    break;
                }
                state_ = State::done;
                break;
            case State::done: {
                if (peek_nonspace() >= 0) fail("extra data after the end of the JSON value");
                if (object_form_ && !array_seen_) not_a_trace("no traceEvents array");
                return false;
            }
        }
    }
}

}  // namespace ringprof::merge
