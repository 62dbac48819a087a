#include "merge/system_metric_events.hpp"

#include <optional>
#include <utility>

#include "json/json_text.hpp"

namespace ringprof::detail {

namespace {

std::string json_name(const std::string& text) {
    std::string out;
    append_json_string(out, text, NonAscii::escape);
    return out;
}

// A Python dict: a key set again keeps its place and takes the new value.
using Args = std::vector<std::pair<std::string, double>>;
void put(Args& args, std::string key, double value) {
    for (auto& [k, v] : args)
        if (k == key) {
            v = value;
            return;
        }
    args.emplace_back(std::move(key), value);
}

std::string args_json(const Args& args) {
    std::string out = "{";
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (i) out += ", ";
        append_json_string(out, args[i].first, NonAscii::escape);
        out += ": ";
        append_python_float(out, args[i].second);
    }
    return out + "}";
}

bool within(std::int64_t sample, std::int64_t ts) {
    return sample - kBottleneckWindowUs <= ts && ts <= sample + kBottleneckWindowUs;
}

}  // namespace

std::vector<SystemTraceEvent> system_trace_events(const std::vector<SystemRow>& rows) {
    std::vector<std::int64_t> low;  // the low-GPU samples' times, one per row
    for (const SystemRow& r : rows)
        if (r.dimension == "GPUUtilization" && r.value < kLowGpuUtilization) low.push_back(r.ts_us);
    std::vector<SystemTraceEvent> out;
    std::size_t cur = 0;
    std::optional<std::int64_t> prev;
    Args args;
    const auto emit_instant = [&] { out.push_back({*prev, true, "\"sys_metrics_bottlenecks\"", args_json(args)}); };
    for (const SystemRow& row : rows) {
        if (cur >= low.size()) break;
        std::int64_t sample = low[cur];
        if (within(sample, row.ts_us)) {
            prev = sample;
            put(args, row.name + "_" + row.dimension + "_" + row.node, row.value);
        } else {
            if (prev) emit_instant();
            prev.reset();
            args.clear();
            if (row.ts_us > sample) {
                if (++cur >= low.size()) break;
                sample = low[cur];
            }
            if (within(sample, row.ts_us)) {
                prev = sample;
                put(args, row.name + "_" + row.dimension + row.node, row.value);
            }
        }
        std::string value = "{\"value\": ";
        append_python_float(value, row.value);
        out.push_back({row.ts_us, false, json_name(row.name + "_" + row.dimension + "_" + row.node), value + "}"});
    }
    if (!args.empty() && prev) emit_instant();
    return out;
}

}  // namespace ringprof::detail
