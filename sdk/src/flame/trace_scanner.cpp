#include "flame/trace_scanner.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace ringprof::flame_detail {

namespace {
constexpr std::size_t kChunk = 256 * 1024;
inline bool is_space(int c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
}  // namespace

TraceScanner::TraceScanner(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr) {
        throw TraceSyntaxError(std::string("cannot open the file: ") +
                               (errno != 0 ? std::strerror(errno) : "out of memory"));
    }
    gzbuffer(f, kChunk);
    file_ = f;
}

TraceScanner::~TraceScanner() {
    if (file_ != nullptr) gzclose(static_cast<gzFile>(file_));
}

void TraceScanner::fail(const std::string& what) const {
    throw TraceSyntaxError(what + " (near byte " + std::to_string(offset()) + ")");
}

bool TraceScanner::fill() {
    if (eof_) return false;
    // Drop what has been handed out, keeping the value under scan.
    const std::size_t keep_from = mark_ == std::string::npos ? pos_ : mark_;
    if (keep_from > 0) {
        buf_.erase(0, keep_from);
        consumed_ += keep_from;
        pos_ -= keep_from;
        if (mark_ != std::string::npos) mark_ = 0;
    }
    const std::size_t old = buf_.size();
    buf_.resize(old + kChunk);
    const int n = gzread(static_cast<gzFile>(file_), &buf_[old], static_cast<unsigned>(kChunk));
    buf_.resize(old + static_cast<std::size_t>(n > 0 ? n : 0));
    if (n <= 0) {
        int code = Z_OK;
        const char* msg = gzerror(static_cast<gzFile>(file_), &code);
        // zlib reports a gzip stream that stops early as Z_BUF_ERROR, with or without a -1.
        if (code == Z_BUF_ERROR) fail("the compressed data ends early (truncated file?)");
        if (n < 0) fail(std::string("cannot read: ") + (code == Z_ERRNO ? std::strerror(errno) : msg));
        eof_ = true;
        return false;
    }
    return true;
}

int TraceScanner::peek() {
    for (;;) {
        while (pos_ < buf_.size() && is_space(static_cast<unsigned char>(buf_[pos_]))) ++pos_;
        if (pos_ < buf_.size()) return static_cast<unsigned char>(buf_[pos_]);
        if (!fill()) return -1;
    }
}

void TraceScanner::skip_string() {
    ++pos_;  // the opening quote
    for (;;) {
        while (pos_ < buf_.size()) {
            const char c = buf_[pos_];
            if (c == '"') {
                ++pos_;
                return;
            }
            if (c == '\\') {
                if (pos_ + 1 >= buf_.size()) break;  // the escaped byte is not read yet
                pos_ += 2;
            } else {
                ++pos_;
            }
        }
        if (!fill()) fail("the input ends inside a string");
    }
}

void TraceScanner::skip_value() {
    int c = peek();
    if (c < 0) fail("the input ends where a value was expected");
    if (c == '"') {
        skip_string();
        return;
    }
    if (c == '{' || c == '[') {
        int depth = 0;
        for (;;) {
            if (pos_ >= buf_.size() && !fill()) fail("the input ends inside an object or array");
            const char ch = buf_[pos_];
            if (ch == '"') {
                skip_string();
                continue;
            }
            ++pos_;
            if (ch == '{' || ch == '[') ++depth;
            else if ((ch == '}' || ch == ']') && --depth == 0) return;
        }
    }
    // A number, true, false or null: up to the next delimiter.
    const std::size_t start = pos_;
    for (;;) {
        while (pos_ < buf_.size()) {
            const char ch = buf_[pos_];
            if (ch == ',' || ch == '}' || ch == ']' || is_space(static_cast<unsigned char>(ch))) {
                if (pos_ == start) fail("unexpected '" + std::string(1, ch) + "'");
                return;
            }
            ++pos_;
        }
        if (!fill()) return;
    }
}

std::string TraceScanner::read_key() {
    if (peek() != '"') fail("an object key was expected");
    mark_ = pos_;
    skip_string();
    std::string key = buf_.substr(mark_ + 1, pos_ - mark_ - 2);
    mark_ = std::string::npos;
    if (peek() != ':') fail("':' was expected after a key");
    ++pos_;
    return key;
}

TraceScanner::Shape TraceScanner::open() {
    const int c = peek();
    if (c < 0) return Shape::empty;
    if (c == '[') {
        ++pos_;
        in_array_ = true;
        return Shape::event_array;
    }
    if (c != '{') return Shape::other;
    ++pos_;
    if (peek() == '}') return Shape::other_object;
    for (;;) {
        if (read_key() == "traceEvents") {
            if (peek() != '[') fail("\"traceEvents\" is not an array");
            ++pos_;
            in_array_ = true;
            return Shape::event_array;
        }
        skip_value();
        const int sep = peek();
        if (sep == ',') {
            ++pos_;
            continue;
        }
        if (sep == '}') return Shape::other_object;
        fail(sep < 0 ? "the input ends inside the top-level object" : "',' or '}' was expected");
    }
}

bool TraceScanner::next(std::string_view& element) {
    if (!in_array_) return false;
    int c = peek();
    if (!first_) {
        if (c == ',') {
            ++pos_;
            c = peek();
        } else if (c != ']') {
            fail(c < 0 ? "the input ends inside the event array" : "',' or ']' was expected between events");
        }
    }
    if (c == ']') {
        // Whatever follows the array (other members of the object) is not needed.
        ++pos_;
        in_array_ = false;
        return false;
    }
    if (c < 0) fail("the input ends inside the event array");
    first_ = false;
    mark_ = pos_;
    skip_value();
    element = std::string_view(buf_).substr(mark_, pos_ - mark_);
    mark_ = std::string::npos;
    return true;
}

}  // namespace ringprof::flame_detail
