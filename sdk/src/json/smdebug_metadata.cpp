#include "json/smdebug_metadata.hpp"

namespace ringprof::detail {

void append_phase_metadata(std::string& out, std::int64_t pid, std::string_view phase, NonAscii non_ascii) {
    const std::string pid_text = std::to_string(pid);
    out += ",\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": ";
    out += pid_text;
    out += ", \"args\": {\"name\": ";
    append_json_string(out, phase, non_ascii);
    out += "}},\n{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": ";
    out += pid_text;
    out += ", \"args\": {\"sort_index\": ";
    out += pid_text;
    out += "}}";
}

void append_thread_metadata(std::string& out, std::int64_t pid, std::int64_t tid, std::string_view name,
                            NonAscii non_ascii) {
    out += ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": ";
    out += std::to_string(pid);
    out += ", \"tid\": ";
    out += std::to_string(tid);
    out += ", \"args\": {\"name\": ";
    append_json_string(out, name, non_ascii);
    out += "}}";
}

void append_time_base(std::string& out, std::int64_t base_us) {
    out += "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\": ";
    out += std::to_string(base_us);
    out += "}},\n{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"sort_index\": 0}}";
}

}  // namespace ringprof::detail
