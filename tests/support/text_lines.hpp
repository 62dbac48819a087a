// Reading what a program said: how many lines of a text (stderr, a log) contain a phrase.
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

}  // namespace ringprof::testing
