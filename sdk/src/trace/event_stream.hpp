// Splits a trace file into its events without holding the file: finds the event array (a bare
// top-level array, or the "traceEvents" member of a top-level object) and hands out one element's
// text at a time. Only structure is checked here (strings, nesting, commas, the end of the input);
// each element's own syntax is checked when it is parsed. Memory: one chunk plus the largest
// single element, which may hold at most kMaxValueBytes (a longer one is refused as it is read,
// before it is held whole: a single field of a gigabyte would otherwise cost several).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/byte_source.hpp"

namespace ringprof::detail {

// The most one event (or one other top-level value) of a trace may hold. Real events are at most
// a few kilobytes; a value this long is refused, with where it starts.
inline constexpr std::size_t kMaxValueBytes = std::size_t{64} << 20;

class EventStream {
public:
    explicit EventStream(ByteSource& src, std::size_t chunk = 1 << 20);
    ~EventStream();
    EventStream(const EventStream&) = delete;
    EventStream& operator=(const EventStream&) = delete;

    // Gives the next element's JSON text, valid until the next call, with at least
    // `padding()` readable bytes after it. Returns false after the last one (the whole input
    // has then been checked to its end). Throws InputError on truncated or malformed structure.
    bool next(std::string_view& element);
    static std::size_t padding();
    // Readable bytes from `p` (inside the last element) to the end of the buffer.
    std::size_t capacity_from(const char* p) const;

    // The fast path: as many consecutive object elements as the buffer holds whole (none when the
    // next element is not an object, is cut by the buffer's end, nests deeper than 256 levels or
    // anything else needs the careful path: then call next()). The batch is returned as the text
    // of one JSON array, bracketed in place ("[e1, ..., en]", valid until the next call) with
    // `capacity` readable bytes, and each element's bounds are appended to `elements`.
    std::string_view next_batch(std::vector<std::string_view>& elements, std::size_t& capacity);
    // The fastest way through the array: when the next element is an object that `read` takes
    // whole from the buffer (read(begin, end) returns where the object ends, or nullptr), steps
    // over it and returns its text; otherwise returns an empty view and leaves the stream as it
    // was (next_batch or next then give the element). Spares the bounds scan of next_batch.
    template <class Read>
    std::string_view next_read(Read&& read) {
        unbracket();
        if (state_ != State::in_array && state_ != State::after_element) return {};
        char* const text = data();
        std::size_t i = pos_;
        while (i < end_ && is_space_byte(text[i])) ++i;
        if (state_ == State::after_element) {
            if (i >= end_ || text[i] != ',') return {};
            ++i;
            while (i < end_ && is_space_byte(text[i])) ++i;
        }
        if (i >= end_ || text[i] != '{') return {};
        const char* close = read(static_cast<const char*>(text + i), static_cast<const char*>(text + end_));
        if (!close) return {};
        pos_ = mark_ = static_cast<std::size_t>(close - text);
        state_ = State::after_element;
        return std::string_view(text + i, static_cast<std::size_t>(close - (text + i)));
    }
    // The elements from `first` to `last` (of the last batch, in order) bracketed in place as an
    // array of their own, for parsing a run of them apart from the rest; undoes the previous
    // run's brackets. Valid, like the batch, until the next call of next_batch or next.
    std::string_view bracket_run(std::string_view first, std::string_view last, std::size_t& capacity);
    // Offset in the whole input of a byte inside the current buffer.
    std::uint64_t offset_of(const char* p) const { return consumed_ + static_cast<std::uint64_t>(p - data()); }

    bool object_form() const { return object_form_; }
    // Top-level members of the object form other than traceEvents, as raw JSON (values longer
    // than 64 KiB are skipped, not kept). Complete only once next() has returned false.
    const std::vector<std::pair<std::string, std::string>>& members() const { return members_; }
    std::size_t bytes_consumed() const { return consumed_ + pos_; }

private:
    enum class State { start, object_key, in_array, after_element, after_array, done };

    static bool is_space_byte(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
    char* data() { return buf_.data() + 1; }
    const char* data() const { return buf_.data() + 1; }
    void unbracket();
    bool fill();  // reads more; returns false at end of input
    [[noreturn]] void fail(const char* what) const;
    [[noreturn]] void not_a_trace(const char* what) const;
    int peek_nonspace();         // -1 at end of input
    void scan_value();           // advances pos_ over one JSON value starting at pos_
    void scan_string();          // pos_ at the opening quote
    bool read_object_members();  // true when positioned inside traceEvents' array

    ByteSource& src_;
    std::vector<char> buf_;
    std::size_t cap_;
    std::size_t mark_ = 0, pos_ = 0, end_ = 0, consumed_ = 0;
    bool eof_ = false;
    bool object_form_ = false;
    bool array_seen_ = false;
    bool member_expected_ = false;
    State state_ = State::start;
    char* bracket_open_ = nullptr;  // bytes overwritten by next_batch, with their old values
    char* bracket_close_ = nullptr;
    char saved_open_ = 0, saved_close_ = 0;
    char* run_open_ = nullptr;  // likewise for bracket_run, restored before the batch's
    char* run_close_ = nullptr;
    char run_saved_open_ = 0, run_saved_close_ = 0;
    void unbracket_run();
    std::vector<std::pair<std::string, std::string>> members_;
};

}  // namespace ringprof::detail
