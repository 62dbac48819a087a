#include "json/json_error_position.hpp"

#include <vector>

namespace ringprof::detail {

namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

class Walker {
public:
    explicit Walker(std::string_view t) : s_(t) {}

    JsonSyntaxProblem run() {
        // Containers are a stack of '{' / '[' on the heap: depth costs memory, never stack.
        std::vector<char> open;
        bool expect_value = true;
        skip();
        while (true) {
            if (expect_value) {
                if (at_end()) return fail("the input ends where a value was expected (truncated?)");
                const char c = s_[p_];
                if (c == '{' || c == '[') {
                    open.push_back(c);
                    ++p_;
                    skip();
                    if (at_end())
                        return fail(c == '{' ? "the input ends inside an object (truncated?)"
                                             : "the input ends inside an array (truncated?)");
                    if (s_[p_] == (c == '{' ? '}' : ']')) {
                        ++p_;
                        open.pop_back();
                        expect_value = false;
                    } else if (c == '{') {
                        if (!key()) return problem_;
                    }
                    continue;
                }
                if (!scalar()) return problem_;
                expect_value = false;
                continue;
            }
            skip();
            if (open.empty()) {
                if (!at_end()) return fail("extra data after the end of the JSON value");
                return {};
            }
            if (at_end())
                return fail(open.back() == '{' ? "the input ends inside an object (truncated?)"
                                               : "the input ends inside an array (truncated?)");
            const char c = s_[p_];
            const char close = open.back() == '{' ? '}' : ']';
            if (c == close) {
                ++p_;
                open.pop_back();
                continue;
            }
            if (c != ',')
                return fail(open.back() == '{' ? "expected ',' or '}' in an object"
                                               : "expected ',' or ']' in an array");
            ++p_;
            skip();
            if (open.back() == '{' && !key()) return problem_;
            expect_value = true;
        }
    }

private:
    bool at_end() const { return p_ >= s_.size(); }
    void skip() {
        while (p_ < s_.size() && is_space(s_[p_])) ++p_;
    }
    JsonSyntaxProblem fail(const char* what) {
        problem_ = {true, p_, what};
        return problem_;
    }
    bool failed(const char* what) {
        fail(what);
        return false;
    }

    // A member name and its ':', leaving p_ at the value.
    bool key() {
        if (at_end()) return failed("the input ends inside an object (truncated?)");
        if (s_[p_] != '"') return failed("expected a member name in quotes");
        if (!string()) return false;
        skip();
        if (at_end()) return failed("the input ends inside an object (truncated?)");
        if (s_[p_] != ':') return failed("expected ':' after a member name");
        ++p_;
        skip();
        return true;
    }

    bool scalar() {
        const char c = s_[p_];
        if (c == '"') return string();
        if (c == '-' || is_digit(c)) return number();
        for (std::string_view word : {std::string_view("true"), std::string_view("false"), std::string_view("null")}) {
            if (c == word[0]) {
                const std::size_t start = p_;
                for (char w : word) {
                    if (at_end()) return failed("the input ends inside a literal (truncated?)");
                    if (s_[p_] != w) {
                        p_ = start;  // the value that is wrong, not the letter where it went wrong
                        return failed("not a JSON value (a misspelt true, false or null?)");
                    }
                    ++p_;
                }
                return true;
            }
        }
        if (c == '\0') return failed("a NUL byte where a value was expected");
        return failed("not a JSON value");
    }

    bool number() {
        if (s_[p_] == '-') ++p_;
        if (at_end() || !is_digit(s_[p_])) return failed("a number without digits");
        if (s_[p_] == '0')
            ++p_;
        else
            while (!at_end() && is_digit(s_[p_])) ++p_;
        if (!at_end() && s_[p_] == '.') {
            ++p_;
            if (at_end() || !is_digit(s_[p_])) return failed("a number without digits after '.'");
            while (!at_end() && is_digit(s_[p_])) ++p_;
        }
        if (!at_end() && (s_[p_] == 'e' || s_[p_] == 'E')) {
            ++p_;
            if (!at_end() && (s_[p_] == '+' || s_[p_] == '-')) ++p_;
            if (at_end() || !is_digit(s_[p_])) return failed("a number without digits in its exponent");
            while (!at_end() && is_digit(s_[p_])) ++p_;
        }
        return true;
    }

    bool string() {
        ++p_;  // opening quote
        while (true) {
            if (at_end()) return failed("the input ends inside a string (truncated?)");
            const unsigned char c = static_cast<unsigned char>(s_[p_]);
            if (c == '"') {
                ++p_;
                return true;
            }
            if (c < 0x20) return failed("an unescaped control character inside a string");
            if (c == '\\') {
                ++p_;
                if (at_end()) return failed("the input ends inside a string (truncated?)");
                const char e = s_[p_];
                if (e == 'u') {
                    for (int i = 0; i < 4; ++i) {
                        ++p_;
                        if (at_end()) return failed("the input ends inside a string (truncated?)");
                        if (!is_hex(s_[p_])) return failed("a \\u escape without four hex digits");
                    }
                } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
                    return failed("an unknown escape in a string");
                }
                ++p_;
                continue;
            }
            if (c < 0x80) {
                ++p_;
                continue;
            }
            if (!utf8()) return false;
        }
    }

    bool utf8() {
        const unsigned char c = static_cast<unsigned char>(s_[p_]);
        int more = 0;
        unsigned min = 0;
        unsigned cp = 0;
        if (c >= 0xC2 && c <= 0xDF) {
            more = 1;
            cp = c & 0x1F;
            min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            more = 2;
            cp = c & 0x0F;
            min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            more = 3;
            cp = c & 0x07;
            min = 0x10000;
        } else
            return failed("invalid UTF-8 in a string");
        const std::size_t start = p_;
        for (int i = 1; i <= more; ++i) {
            if (start + i >= s_.size()) return failed("the input ends inside a string (truncated?)");
            const unsigned char d = static_cast<unsigned char>(s_[start + i]);
            if ((d & 0xC0) != 0x80) return failed("invalid UTF-8 in a string");
            cp = (cp << 6) | (d & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return failed("invalid UTF-8 in a string");
        p_ = start + more + 1;
        return true;
    }

    std::string_view s_;
    std::size_t p_ = 0;
    JsonSyntaxProblem problem_;
};

}  // namespace

JsonSyntaxProblem find_json_syntax_problem(std::string_view text) {
    // A UTF-8 byte-order mark is accepted, as simdjson and Python's json (utf-8-sig) do.
    std::size_t skip = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    JsonSyntaxProblem p = Walker(text.substr(skip)).run();
    if (p.found) p.offset += skip;
    return p;
}

std::string describe_offset(std::string_view text, std::size_t offset) {
    const bool at_end = offset >= text.size();
    if (at_end) offset = text.size();
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return std::string(at_end ? "at the end of the input, byte " : "at byte ") + std::to_string(offset) + " (line " +
           std::to_string(line) + ", column " + std::to_string(column) + ")";
}

}  // namespace ringprof::detail
