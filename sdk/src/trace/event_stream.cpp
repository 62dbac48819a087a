#include "trace/event_stream.hpp"

#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <simdjson.h>

namespace ringprof::detail {

namespace {
inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
constexpr std::size_t kMaxKeptMember = 64 * 1024;
}  // namespace

namespace {
// The last stream's buffer on this thread, kept for the next one: a fresh zeroed megabyte per file
// was a memset and 256 page faults per file (a merge reads one file after another per thread).
// Only bytes read into the buffer are ever looked at, so old contents do not matter.
constexpr std::size_t kKeptBuffer = std::size_t{4} << 20;
std::vector<char>& spare_buffer() {
    thread_local std::vector<char> spare;
    return spare;
}
}  // namespace

// One spare byte before the data and one after it (plus simdjson's padding), so that a batch of
// elements can be bracketed into a JSON array in place.
EventStream::EventStream(ByteSource& src, std::size_t chunk) : src_(src), cap_(chunk) {
    buf_.swap(spare_buffer());
    buf_.resize(chunk + simdjson::SIMDJSON_PADDING + 2);
}

EventStream::~EventStream() {
    if (buf_.capacity() <= kKeptBuffer) spare_buffer().swap(buf_);
}

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
        std::memmove(data(), data() + mark_, end_ - mark_);
        consumed_ += mark_;
        pos_ -= mark_;
        end_ -= mark_;
        mark_ = 0;
    }
    if (end_ == cap_) {  // one value larger than the buffer: grow, up to the bound
        if (end_ >= kMaxValueBytes) {
            const std::string what = "an event longer than " + std::to_string(kMaxValueBytes >> 20) +
                                     " MiB, the most one event may hold (it starts at byte " +
                                     std::to_string(consumed_) + ")";
            if (object_form_ && !array_seen_) throw NotATraceError(what);
            throw InputError(what);
        }
        cap_ *= 2;
        buf_.resize(cap_ + simdjson::SIMDJSON_PADDING + 2);
    }
    const std::size_t n = src_.read(data() + end_, cap_ - end_);
    if (n == 0) {
        eof_ = true;
        return false;
    }
    end_ += n;
    return true;
}

int EventStream::peek_nonspace() {
    for (;;) {
        while (pos_ < end_ && is_space(data()[pos_])) ++pos_;
        if (pos_ < end_) return static_cast<unsigned char>(data()[pos_]);
        mark_ = pos_;
        if (!fill()) return -1;
    }
}

void EventStream::scan_string() {
    ++pos_;  // opening quote
    for (;;) {
        const char* base = data();
        while (pos_ < end_) {
            const char c = base[pos_];
            if (c == '"') {
                ++pos_;
                return;
            }
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
    if (first == '"') {
        scan_string();
        return;
    }
    if (first == '{' || first == '[') {
        char stack[256];
        std::size_t depth = 0;
        for (;;) {
            while (pos_ < end_) {
                const char c = data()[pos_];
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
            const char c = data()[pos_];
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
        if (c == '}' && !member_expected_) {
            ++pos_;
            state_ = State::done;
            return false;
        }
        if (c != '"')
            fail(c < 0 ? "input ends inside the top-level object (truncated file)"
                       : "expected a member name in the top-level object");
        mark_ = pos_;
        scan_string();
        std::string key(data() + mark_ + 1, pos_ - mark_ - 2);
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
        if (pos_ - mark_ <= kMaxKeptMember)
            members_.emplace_back(std::move(key), std::string(data() + mark_, pos_ - mark_));
        const int after = peek_nonspace();
        if (after == '}') {
            ++pos_;
            state_ = State::done;
            return false;
        }
        if (after != ',')
            fail(after < 0 ? "input ends inside the top-level object (truncated file)"
                           : "expected ',' or '}' in the top-level object");
        ++pos_;
        member_expected_ = true;
    }
}

void EventStream::unbracket_run() {
    if (run_open_) *run_open_ = run_saved_open_;
    if (run_close_) *run_close_ = run_saved_close_;
    run_open_ = run_close_ = nullptr;
}

void EventStream::unbracket() {
    unbracket_run();
    if (bracket_open_) *bracket_open_ = saved_open_;
    if (bracket_close_) *bracket_close_ = saved_close_;
    bracket_open_ = bracket_close_ = nullptr;
}

namespace {

// The 64 bytes at p, classified: bit i of each mask says what p[i] is.
struct BlockMasks {
    std::uint64_t quote = 0, backslash = 0, bracket = 0;  // bracket: any of {}[]
};

inline BlockMasks classify(const char* p) {
    BlockMasks m;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
    // '{' 0x7B / '[' 0x5B and '}' 0x7D / ']' 0x5D differ only in bit 0x20.
    const __m128i fold = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    for (int i = 0; i < 4; ++i) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
        const __m128i f = _mm_or_si128(v, fold);
        const auto bits = [](__m128i x) {
            return static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(x)));
        };
        m.quote |= bits(_mm_cmpeq_epi8(v, quote)) << (16 * i);
        m.backslash |= bits(_mm_cmpeq_epi8(v, slash)) << (16 * i);
        m.bracket |= bits(_mm_or_si128(_mm_cmpeq_epi8(f, open), _mm_cmpeq_epi8(f, close))) << (16 * i);
    }
#else
    for (int i = 0; i < 64; ++i) {
        const char c = p[i];
        m.quote |= static_cast<std::uint64_t>(c == '"') << i;
        m.backslash |= static_cast<std::uint64_t>(c == '\\') << i;
        m.bracket |= static_cast<std::uint64_t>(c == '{' || c == '[' || c == '}' || c == ']') << i;
    }
#endif
    return m;
}

// Bit i of the result: an odd number of bits of x at or below i (inside a string, for quotes).
inline std::uint64_t prefix_xor(std::uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

// Where the object starting at text[from] ('{') closes: the index just past its '}', or 0 when
// it does not close within [from, end), nests deeper than 256 levels or has a mismatched
// bracket (the careful scanner then says which). Reads up to 63 bytes past `end` (padding).
// A block without backslashes (nearly all) finds its strings by prefix XOR of its quotes and
// looks only at the brackets outside them; a block with backslashes is walked quote by quote.
std::size_t object_end(const char* text, std::size_t from, std::size_t end) {
    char stack[256];
    std::size_t depth = 0;
    bool in_string = false;
    std::size_t skip_to = 0;                          // a byte escaped by a backslash is not looked at
    const auto bracket = [&](std::size_t i) -> int {  // 1: the object closed at i, -1: give up
        const char c = text[i];
        if (c == '{' || c == '[') {
            if (depth == sizeof stack) return -1;
            stack[depth++] = c;
            return 0;
        }
        if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '[')) return -1;
        return --depth == 0 ? 1 : 0;
    };
    for (std::size_t block = from; block < end; block += 64) {
        const BlockMasks m = classify(text + block);
        const std::uint64_t in_range = end - block < 64 ? (std::uint64_t{1} << (end - block)) - 1 : ~std::uint64_t{0};
        if (m.backslash == 0 && skip_to <= block) {
            const std::uint64_t inside = prefix_xor(m.quote) ^ (in_string ? ~std::uint64_t{0} : 0);
            std::uint64_t todo = m.bracket & ~inside & in_range;
            while (todo) {
                const std::size_t i = block + static_cast<std::size_t>(__builtin_ctzll(todo));
                todo &= todo - 1;
                const int r = bracket(i);
                if (r != 0) return r > 0 ? i + 1 : 0;
            }
            in_string = (inside >> 63) != 0;
            continue;
        }
        std::uint64_t any = (m.quote | m.backslash | m.bracket) & in_range;
        while (any) {
            const std::size_t i = block + static_cast<std::size_t>(__builtin_ctzll(any));
            any &= any - 1;
            if (i < skip_to) continue;
            const char c = text[i];
            if (in_string) {
                if (c == '"')
                    in_string = false;
                else if (c == '\\')
                    skip_to = i + 2;
                continue;
            }
            if (c == '"') {
                in_string = true;
            } else if (c != '\\') {
                const int r = bracket(i);
                if (r != 0) return r > 0 ? i + 1 : 0;
            }
        }
    }
    return 0;
}

inline std::size_t skip_space(const char* text, std::size_t i, std::size_t end) {
    while (i < end && is_space(text[i])) ++i;
    return i;
}

}  // namespace

std::string_view EventStream::next_batch(std::vector<std::string_view>& elements, std::size_t& capacity) {
    unbracket();
    if (state_ != State::in_array && state_ != State::after_element) return {};
    char* const text = data();
    std::size_t i = skip_space(text, pos_, end_);
    if (state_ == State::after_element) {
        if (i >= end_ || text[i] != ',') return {};
        i = skip_space(text, i + 1, end_);
    }
    const std::size_t first = i;
    std::size_t last_end = 0;
    const std::size_t before = elements.size();
    while (i < end_ && text[i] == '{') {
        const std::size_t close = object_end(text, i, end_);
        if (close == 0) break;
        elements.emplace_back(text + i, close - i);
        last_end = close;
        std::size_t j = skip_space(text, close, end_);
        if (j >= end_ || text[j] != ',') break;
        i = skip_space(text, j + 1, end_);
    }
    if (elements.size() == before) return {};
    // "[" over the byte before the first element (a separator, or the spare byte in front of
    // the data), "]" over the byte after the last one (a separator, or padding).
    bracket_open_ = text + first - 1;
    bracket_close_ = text + last_end;
    saved_open_ = *bracket_open_;
    saved_close_ = *bracket_close_;
    *bracket_open_ = '[';
    *bracket_close_ = ']';
    pos_ = last_end;
    mark_ = pos_;
    state_ = State::after_element;
    capacity = capacity_from(bracket_open_);
    return std::string_view(bracket_open_, last_end + 1 - (first - 1));
}

std::string_view EventStream::bracket_run(std::string_view first, std::string_view last, std::size_t& capacity) {
    unbracket_run();
    // The bytes around a run are separators, whitespace or the batch's own brackets.
    run_open_ = const_cast<char*>(first.data()) - 1;
    run_close_ = const_cast<char*>(last.data() + last.size());
    run_saved_open_ = *run_open_;
    run_saved_close_ = *run_close_;
    *run_open_ = '[';
    *run_close_ = ']';
    capacity = capacity_from(run_open_);
    return std::string_view(run_open_, static_cast<std::size_t>(run_close_ + 1 - run_open_));
}

bool EventStream::next(std::string_view& element) {
    unbracket();
    for (;;) {
        switch (state_) {
            case State::start: {
                int c = peek_nonspace();
                if (c == 0xEF && end_ - pos_ >= 3 && std::memcmp(data() + pos_, "\xEF\xBB\xBF", 3) == 0) {
                    pos_ += 3;  // byte-order mark
                    c = peek_nonspace();
                }
                if (c < 0) fail("file is empty");
                if (c != '[' && c != '{') not_a_trace("not a JSON array or object");
                ++pos_;
                if (c == '[') {
                    array_seen_ = true;
                    state_ = State::in_array;
                    break;
                }
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
                if (c == ']') {
                    ++pos_;
                    state_ = State::after_array;
                    break;
                }
                scan_value();
                element = std::string_view(data() + mark_, pos_ - mark_);
                state_ = State::after_element;
                return true;
            }
            case State::after_element: {
                const int c = peek_nonspace();
                if (c < 0) fail("input ends inside the event array (truncated file)");
                if (c == ']') {
                    ++pos_;
                    state_ = State::after_array;
                    break;
                }
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
                    if (c == '}') {
                        ++pos_;
                        state_ = State::done;
                        break;
                    }
                    if (c != ',')
                        fail(c < 0 ? "input ends inside the top-level object (truncated file)"
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

}  // namespace ringprof::detail
