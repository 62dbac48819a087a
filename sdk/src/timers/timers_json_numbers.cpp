// The numbers a timers JSON file may hold. Every reader of the file (ringprof's, Python's json,
// a browser's JSON.parse) must read back what was written, so a total is a finite double and a
// count is a whole number no greater than 2^53 (beyond it a JSON number read as a double names
// no single integer, and ringprof's own reader refuses it, json/value_checks.hpp). A live run
// cannot reach either limit; sums of many files can (merge-timers), and such a tree is refused
// with the node named rather than written as "null" or a count no reader takes.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ringprof/timers_json.hpp"

namespace ringprof {

namespace {

constexpr std::uint64_t kMaxExactCount = std::uint64_t{1} << 53;

std::optional<std::string> bad_count(const char* field, std::uint64_t n) {
    if (n <= kMaxExactCount) return std::nullopt;
    return fmt::format("{} {} is above 2^53, where a JSON number stops naming one integer", field, n);
}

std::optional<std::string> bad_seconds(const char* field, double v) {
    if (std::isfinite(v)) return std::nullopt;
    return fmt::format("{} is {} (a sum beyond the largest double)", field, v);
}

}  // namespace

std::optional<std::string> unwritable_timers_number(const TimerTree& tree) {
    for (const auto& [name, g] : tree.gauges) {
        std::optional<std::string> why = bad_count("count", g.count);
        if (!why) why = bad_count("non_finite", g.non_finite);
        const std::pair<const char*, double> values[] = {{"value", g.value}, {"min", g.min}, {"max", g.max}};
        for (const auto& [field, v] : values) {
            if (!why) why = bad_seconds(field, v);
        }
        if (why) return fmt::format("gauge '{}': {}", name, *why);
    }
    // Depth first with an explicit stack: a tree as deep as a user's recursion cannot overflow
    // this thread's stack. Each entry: a node and the path of its parent.
    std::vector<std::pair<const TimerNode*, std::string>> todo{{&tree.root, std::string()}};
    while (!todo.empty()) {
        auto [node, parent] = std::move(todo.back());
        todo.pop_back();
        std::string path = parent.empty() ? node->name : parent + "/" + node->name;
        std::optional<std::string> why = bad_seconds("total", node->total);
        if (!why) why = bad_count("count", node->count);
        if (!why) why = bad_seconds("self", node->self());
        if (why) return fmt::format("node '{}': {}", path, *why);
        for (auto c = node->children.rbegin(); c != node->children.rend(); ++c) todo.emplace_back(&*c, path);
    }
    return std::nullopt;
}

}  // namespace ringprof
