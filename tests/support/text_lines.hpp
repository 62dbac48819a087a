// Reading what a program said: how many lines of a text (stderr, a log) contain a phrase, how many
// times a phrase stands in it, one line of it by its place.
#pragma once

#include <string>
#include <string_view>

namespace ringprof::testing {

inline int lines_naming(std::string_view text, std::string_view what) {
    int n = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        if (text.substr(start, end - start).find(what) != std::string_view::npos) ++n;
        start = end + 1;
    }
    return n;
}

inline int occurrences(std::string_view text, std::string_view what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// Line `index` (0 the first) of `text`, without its newline; "" past the last.
inline std::string line_at(std::string_view text, std::size_t index) {
    std::size_t start = 0;
    for (; index > 0 && start < text.size(); --index) {
        const std::size_t end = text.find('\n', start);
        start = end == std::string_view::npos ? text.size() : end + 1;
    }
    if (start >= text.size()) return "";
    return std::string(text.substr(start, text.find('\n', start) - start));
}

}  // namespace ringprof::testing
