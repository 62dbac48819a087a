// Finds the events of a Chrome trace or pythontimeline file (a bare array, or the "traceEvents"
// member of an object) and hands them out one element at a time, reading through zlib so plain
// and gzip-compressed files read alike. Memory: one chunk plus the largest element.
//
// Only structure is checked here; each element is parsed by the caller. Issue 7's
// merge/event_stream does the same for `ringprof merge`; the two should become one once that
// module has a public reader.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ringprof::flame_detail {

// Structural problems; the message says what and where, the caller adds the file name.
class TraceSyntaxError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class TraceScanner {
public:
    enum class Shape {
        empty,        // nothing but white space
        event_array,  // positioned at the first element of the events array
        other_object, // a JSON object without "traceEvents" (e.g. a timers file)
        other,        // starts with something else
    };

    explicit TraceScanner(const std::string& path);  // throws TraceSyntaxError if unreadable
    ~TraceScanner();
    TraceScanner(const TraceScanner&) = delete;
    TraceScanner& operator=(const TraceScanner&) = delete;

    Shape open();
    // The next element's text (valid until the next call), false after the last one.
    bool next(std::string_view& element);
    std::uint64_t offset() const { return consumed_ + pos_; }  // bytes of (decompressed) input

private:
    bool fill();
    int peek();  // next non-space byte, -1 at end
    [[noreturn]] void fail(const std::string& what) const;
    void skip_string();
    void skip_value();
    std::string read_key();

    void* file_ = nullptr;  // gzFile, kept out of the header
    std::string buf_;
    std::size_t pos_ = 0;
    std::size_t mark_ = std::string::npos;  // start of the value being scanned, kept across fills
    std::uint64_t consumed_ = 0;
    bool eof_ = false;
    bool in_array_ = false;
    bool first_ = true;
};

}  // namespace ringprof::flame_detail
