#include "system/metric_files.hpp"

#include <time.h>

#include <cmath>
#include <cstdio>

#include "json/json_text.hpp"

namespace ringprof::detail {

std::string system_node_name(unsigned node_rank) { return "algo-" + std::to_string(std::uint64_t{node_rank} + 1); }

std::string system_metric_lines(const SystemSample& sample, const std::string& node) {
    std::string out;
    out.reserve(sample.metrics.size() * 120);
    for (const SystemMetric& m : sample.metrics) {
        out += "{\"Type\":";
        append_json_string(out, m.type);
        out += ",\"Name\":";
        append_json_string(out, m.name);
        out += ",\"Dimension\":";
        append_json_string(out, m.dimension);
        out += ",\"Value\":";
        append_python_float(out, m.value);
        out += ",\"NodeId\":";
        append_json_string(out, node);
        out += ",\"Timestamp\":";
        append_python_float(out, sample.timestamp);
        out += "}\n";
    }
    return out;
}

std::string hour_folder_name(long long epoch_seconds) {
    const time_t t = static_cast<time_t>(epoch_seconds);
    struct tm utc {};
    ::gmtime_r(&t, &utc);
    char text[32];
    std::snprintf(text, sizeof text, "%04d%02d%02d%02d", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour);
    return text;
}

std::string minute_file_name(long long epoch_seconds, const std::string& node) {
    const long long minute = epoch_seconds - ((epoch_seconds % 60) + 60) % 60;
    return std::to_string(minute) + "." + node + ".json";
}

SystemMetricFiles::SystemMetricFiles(std::string output_dir, std::string node)
    : output_dir_(std::move(output_dir)), node_(std::move(node)) {}

void SystemMetricFiles::open_minute(long long minute) {
    close();
    if (!incremental_.is_open())
        incremental_ = OutputFolder::open(output_dir_).subfolder("system").subfolder("incremental");
    const OutputFolder hour = incremental_.subfolder(hour_folder_name(minute));
    const std::string preferred = minute_file_name(minute, node_);
    std::string name;
    const int fd = create_new_file(hour, preferred, &name);
    file_.adopt(fd, hour.path_of(name));
    minute_ = minute;
    if (name != preferred) {
        std::fprintf(stderr,
                     "ringprof: '%s' already exists (an earlier run's); this minute's system metrics go to '%s', "
                     "which smdebug does not read\n",
                     hour.path_of(preferred).c_str(), name.c_str());
    }
}

void SystemMetricFiles::write(const SystemSample& sample) {
    if (sample.metrics.empty()) return;
    const long long second = static_cast<long long>(std::floor(sample.timestamp));
    const long long minute = second - ((second % 60) + 60) % 60;
    if (minute != minute_ || !file_.is_open()) open_minute(minute);
    file_.write(system_metric_lines(sample, node_));
}

void SystemMetricFiles::close() {
    if (file_.is_open()) file_.close();
    minute_ = -1;
}

}  // namespace ringprof::detail
