#include "trace_range_options.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ringprof::cli {
namespace {

bool parse_int(const std::string& s, std::int64_t& out) {
    if (s.empty()) return false;
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno != 0 || *end != '\0') return false;
    out = v;
    return true;
}

}  // namespace

bool TraceRangeOptions::take(const Arguments& args, std::string& error) {
    const std::string& v = args.value();
    error.clear();
    if (args.is("--suffix")) {
        if (v.empty())
            error = "--suffix needs a value";
        else
            suffixes.push_back(v);
    } else if (args.is("--start") || args.is("--end")) {
        std::int64_t n = 0;
        if (!parse_int(v, n))
            error = fmt::format("{} needs an integer (got '{}')", args.written(), v);
        else
            (args.is("--start") ? start : end) = n;
    } else if (args.is("--unit")) {
        if (v == "time")
            unit = MergeUnit::time;
        else if (v == "step")
            unit = MergeUnit::step;
        else
            error = fmt::format("--unit must be 'time' or 'step' (got '{}')", v);
    } else {
        return false;
    }
    return true;
}

std::string TraceRangeOptions::check() const {
    if (start.has_value() != end.has_value()) return "--start and --end go together";
    if (!start && unit == MergeUnit::step) return "--unit step needs --start and --end";
    return "";
}

std::optional<int> answer_read_failure(const char* command, const char* usage_line, const std::string& path,
                                       const char* doing, const std::function<void()>& read) {
    try {
        read();
        return std::nullopt;
    } catch (const std::bad_alloc&) {
        report(command, fmt::format("{}: out of memory while {}", path, doing));
        return kExitFailed;
    } catch (const MergeError& e) {
        const bool range_error =
            std::strstr(e.what(), "before start") != nullptr || std::strstr(e.what(), "must be after") != nullptr;
        if (range_error) return usage_error(command, usage_line, e.what());
        report(command, e.what());
        return kExitFailed;
    }
}

void report_inputs(const char* command, const std::vector<SkippedInput>& skipped,
                   const std::vector<std::string>& notes) {
    for (const auto& s : skipped) report(command, fmt::format("skipped {}: {}", s.path, s.reason));
    for (const auto& n : notes) report(command, fmt::format("warning: {}", n));
}

}  // namespace ringprof::cli
