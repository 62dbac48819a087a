#include "merge_fixtures.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "gzip_text.hpp"

namespace merge_test {

void write_file(const fs::path& p, const std::string& content) {
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + p.string());
}

void write_gzip(const fs::path& p, const std::string& content) {
    fs::create_directories(p.parent_path());
    if (!ringprof::testing::write_gzip_file(p, content)) throw std::runtime_error("cannot write " + p.string());
}

fs::path pevents_file(const fs::path& root, std::int64_t end_us, const std::string& node, const std::string& suffix) {
    return root / "framework" / "pevents" / "2020071317" / (std::to_string(end_us) + "_" + node + "_" + suffix);
}

std::string smdebug_timeline(std::int64_t base_us, const std::vector<PhaseEvent>& events) {
    std::ostringstream s;
    s << "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\": "
      << base_us << "}},\n{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"sort_index\": 0}}";
    std::vector<std::string> phases;
    for (const auto& e : events) {
        std::size_t pid = 0;
        while (pid < phases.size() && phases[pid] != e.phase) ++pid;
        if (pid == phases.size()) {
            phases.push_back(e.phase);
            s << ",\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " << pid + 1 << ", \"args\": {\"name\": \""
              << e.phase << "\"}}";
        }
        s << ",\n{\"name\": \"" << e.name << "\", \"pid\": " << pid + 1 << ", \"ph\": \"X\", \"ts\": " << e.ts
          << ", \"dur\": " << e.dur;
        if (!e.args.empty()) s << ", \"args\": " << e.args;
        s << "}";
    }
    s << "\n]\n";
    return s.str();
}

std::vector<OutEvent> read_output(const std::string& path) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load(path);  // throws on invalid JSON: the test fails
    std::vector<OutEvent> out;
    for (simdjson::dom::element e : doc.get_array()) {
        OutEvent o;
        o.name = std::string(std::string_view(e["name"]));
        o.ph = std::string(std::string_view(e["ph"]));
        o.pid = int64_t(e["pid"]);
        if (auto tid = e["tid"]; !tid.error()) o.tid = int64_t(tid);
        if (auto ts = e["ts"]; !ts.error()) o.ts = double(ts);
        if (auto dur = e["dur"]; !dur.error()) o.dur = double(dur);
        if (auto args = e["args"]; !args.error()) {
            o.args_json = simdjson::minify(args.value());
            if (auto n = args["name"]; !n.error() && n.is_string()) o.meta_name = std::string(std::string_view(n));
        }
        out.push_back(std::move(o));
    }
    return out;
}

std::vector<OutEvent> only_x(const std::vector<OutEvent>& all) {
    std::vector<OutEvent> x;
    for (const auto& e : all)
        if (e.ph == "X") x.push_back(e);
    return x;
}

std::string thread_name_of(const std::vector<OutEvent>& all, std::int64_t pid, std::int64_t tid) {
    for (const auto& e : all)
        if (e.ph == "M" && e.name == "thread_name" && e.pid == pid && e.tid == tid) return e.meta_name;
    return {};
}

}  // namespace merge_test
