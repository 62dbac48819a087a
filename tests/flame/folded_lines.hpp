// The folded-stacks format read back: stack -> value, each line checked for the shape
// flamegraph.pl and speedscope expect.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>

namespace flame_test {

inline std::map<std::string, std::int64_t> parse_folded(const std::string& text) {
    std::map<std::string, std::int64_t> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        // "<frames> <digits>": the count is after the last space, frames never end in a space.
        const auto space = line.rfind(' ');
        const bool ok = space != std::string::npos && space > 0 && space + 1 < line.size() && line[space - 1] != ' ' &&
                        line[0] != ' ' && line.find_first_not_of("0123456789", space + 1) == std::string::npos;
        EXPECT_TRUE(ok) << "bad line: " << line;
        if (!ok) continue;
        const std::string stack = line.substr(0, space);
        EXPECT_EQ(out.count(stack), 0u) << "stack twice: " << stack;
        out[stack] = std::stoll(line.substr(space + 1));
    }
    return out;
}

}  // namespace flame_test
