#include "merge/trace_files.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <system_error>

#include <simdjson.h>

#include "merge/event_order.hpp"
#include "process/node_id.hpp"
#include "trace/byte_source.hpp"
#include "trace/event_stream.hpp"

namespace fs = std::filesystem;

namespace ringprof::detail {

namespace {

constexpr std::int64_t kNameTimeMarginUs = 3LL * 60 * 1000 * 1000;

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool parse_int64(std::string_view s, std::int64_t& out) {
    if (s.empty() || s.size() > 18) return false;
    std::int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    out = v;
    return true;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    std::size_t b = 0;
    for (;;) {
        const std::size_t e = s.find(sep, b);
        parts.push_back(s.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
        if (e == std::string_view::npos) return parts;
        b = e + 1;
    }
}

// Candidate names are those smdebug's listing admits: *.json, *.csv, *.json.gz.
bool is_candidate(std::string_view name) {
    return (ends_with(name, ".json") && name.size() > 5) || (ends_with(name, ".csv") && name.size() > 4) ||
           (ends_with(name, ".json.gz") && name.size() > 8);
}

int kind_of(std::string_view name, SourceKind& kind) {
    const auto& suffixes = known_suffixes();
    for (std::size_t i = 0; i < suffixes.size(); ++i) {
        if (ends_with(name, suffixes[i])) {
            kind = static_cast<SourceKind>(i);
            return 1;
        }
    }
    return 0;
}

struct Marker {
    bool found = false;
    std::string error;
    std::int64_t start = 0, end = 0;
};

// The marker lives four folders above the trace (the step folder); any *.metadata below it counts,
// the first in name order so that the answer does not depend on directory order.
Marker find_marker(const fs::path& trace, std::map<std::string, Marker>& cache) {
    fs::path folder = trace;
    for (int i = 0; i < 4 && folder.has_parent_path(); ++i) folder = folder.parent_path();
    const std::string key = folder.string();
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    Marker m;
    std::vector<fs::path> markers;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        if (ends_with(it->path().filename().string(), ".metadata")) markers.push_back(it->path());
    }
    std::sort(markers.begin(), markers.end());
    if (markers.empty()) {
        m.error = "no <node>_<start_us>_<end_us>.metadata marker under " + key + " to give the time base";
    } else {
        const std::string name = markers.front().filename().string();
        const auto parts = split(std::string_view(name).substr(0, name.size() - 9), '_');
        if (parts.size() != 3 || !parse_int64(parts[1], m.start) || !parse_int64(parts[2], m.end)) {
            m.error = "marker " + markers.front().string() + " is not named <node>_<start_us>_<end_us>.metadata";
        } else {
            m.found = true;
        }
    }
    cache.emplace(key, m);
    return m;
}

void walk(const fs::path& dir, std::vector<fs::path>& files, std::vector<FileProblem>& problems) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
        problems.push_back({dir.string(), "cannot list folder: " + ec.message()});
        return;
    }
    std::vector<fs::path> subdirs;
    for (fs::directory_iterator end; it != end; it.increment(ec)) {
        if (ec) {
            problems.push_back({dir.string(), "cannot list folder: " + ec.message()});
            break;
        }
        std::error_code sec;
        const auto st = it->symlink_status(sec);
        if (fs::is_directory(st)) {
            subdirs.push_back(it->path());
        } else if (it->is_regular_file(sec)) {
            files.push_back(it->path());
        }
    }
    for (const auto& sub : subdirs) walk(sub, files, problems);
}

}  // namespace

const std::vector<std::string>& known_suffixes() {
    static const std::vector<std::string> s{"pythontimeline.json", "model_timeline.json", "trace.json.gz",
                                            "horovod_timeline.json", "smdataparallel_timeline.json"};
    return s;
}

std::string display_node_id(std::string_view node_id) {
    const std::size_t at = node_id.rfind("-algo");
    if (at == std::string_view::npos) return std::string(node_id);
    return std::string(node_id.substr(at + 1)) + "-" + std::string(node_id.substr(0, at));
}

namespace {

// `ringprof merge --suffix`: an empty filter passes every file, else the path ends with one of them.
bool passes_suffix_filter(const std::string& path, const std::vector<std::string>& filter) {
    return filter.empty() ||
           std::any_of(filter.begin(), filter.end(), [&](const std::string& s) { return ends_with(path, s); });
}

// ringprof's Chrome trace (<run_id>_trace.json.gz) sits directly in its output folder. Its time base
// is inside the file and its name has no end time, so it is read whatever the range.
std::vector<TraceFile> ringprof_traces(const fs::path& root, const std::vector<std::string>& suffix_filter) {
    std::vector<TraceFile> out;
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const std::string full = it->path().string();
        std::error_code fec;
        if (!it->is_regular_file(fec) || !ends_with(name, "_trace.json.gz") || !passes_suffix_filter(full, suffix_filter))
            continue;
        TraceFile f;
        f.path = full;
        f.kind = SourceKind::trace_gz;
        f.always_read = true;
        f.node_id = name.substr(0, name.size() - std::string_view("_trace.json.gz").size());
        std::replace(f.node_id.begin(), f.node_id.end(), '_', '-');
        f.size = fs::file_size(it->path(), fec);
        out.push_back(std::move(f));
    }
    return out;
}

// The node a ringprof trace was written by, in the form pythontimeline file names use
// ("<pid>-<host>"): its first events are process_name (the pid) and process_labels
// ("host <host>, ..."). Empty when the head of the file does not say.
std::string ringprof_trace_node(const std::string& path) {
    try {
        auto src = open_trace_file(path);
        EventStream stream(*src, 1 << 14);
        simdjson::ondemand::parser parser;
        std::string pid, host;
        std::string_view element;
        for (int i = 0; i < 4 && (pid.empty() || host.empty()) && stream.next(element); ++i) {
            simdjson::ondemand::document doc;
            simdjson::ondemand::object obj;
            if (parser.iterate(element.data(), element.size(), stream.capacity_from(element.data())).get(doc) ||
                doc.get_object().get(obj)) {
                continue;
            }
            std::string name, event_pid, labels;
            for (auto field : obj) {
                std::string_view key;
                if (field.unescaped_key().get(key)) break;
                simdjson::ondemand::value v;
                if (field.value().get(v)) break;
                if (key == "name") {
                    std::string_view n;
                    if (!v.get_string().get(n)) name = std::string(n);
                } else if (key == "pid") {
                    std::int64_t n;
                    if (!v.get_int64().get(n)) event_pid = std::to_string(n);
                } else if (key == "args") {
                    simdjson::ondemand::object args;
                    if (v.get_object().get(args)) continue;
                    for (auto a : args) {
                        std::string_view akey, text;
                        if (a.unescaped_key().get(akey)) break;
                        if (akey == "labels" && !a.value().get_string().get(text)) labels = std::string(text);
                    }
                }
            }
            if (name == "process_name") pid = event_pid;
            if (name == "process_labels" && labels.rfind("host ", 0) == 0)
                host = labels.substr(5, labels.find(',') - 5);
        }
        if (pid.empty() || host.empty()) return "";
        return display_node_id(node_id(pid, host));
    } catch (const std::exception&) {
        return "";  // unreadable: the merge itself reports it
    }
}

void drop_duplicate_runs(Discovery& d) {
    std::set<std::string> python_nodes;
    for (const TraceFile& f : d.files) {
        if (f.kind == SourceKind::pythontimeline) python_nodes.insert(f.node_id);
    }
    if (python_nodes.empty()) return;
    std::vector<TraceFile> kept;
    for (TraceFile& f : d.files) {
        if (f.always_read && f.kind == SourceKind::trace_gz) {
            const std::string node = ringprof_trace_node(f.path);
            if (!node.empty() && python_nodes.count(node)) {
                d.duplicates.push_back({f.path, "left out: the same run (node " + node +
                                                    ") wrote pythontimeline files, which are merged instead"});
                continue;
            }
        }
        kept.push_back(std::move(f));
    }
    d.files = std::move(kept);
}

}  // namespace

Discovery discover_trace_files(const std::string& root, const std::vector<std::string>& suffix_filter) {
    const fs::path framework = fs::path(root) / "framework";
    std::error_code ec;
    Discovery d;
    d.files = ringprof_traces(root, suffix_filter);
    if (!fs::is_directory(framework, ec)) {
        if (!d.files.empty()) return d;
        throw std::runtime_error(framework.string() + ": no such folder (expected the traces under PATH/framework/)");
    }
    std::vector<fs::path> paths;
    walk(framework, paths, d.problems);
    std::map<std::string, Marker> markers;
    for (const auto& p : paths) {
        const std::string name = p.filename().string();
        const std::string full = p.string();
        if (!is_candidate(name)) continue;
        if (!passes_suffix_filter(full, suffix_filter)) continue;
        TraceFile f;
        f.path = full;
        if (!kind_of(name, f.kind)) {
            std::string list;
            for (const auto& s : known_suffixes()) list += (list.empty() ? "" : ", ") + s;
            d.problems.push_back({full, "unknown suffix (not one of " + list + ")"});
            continue;
        }
        f.size = fs::file_size(p, ec);
        if (ec) f.size = 0;
        f.tensorflow =
            f.kind == SourceKind::trace_gz && full.find("tensorflow/detailed_profiling") != std::string::npos;
        if (f.tensorflow) {
            const Marker m = find_marker(p, markers);
            if (!m.found) {
                d.problems.push_back({full, m.error});
                continue;
            }
            f.timestamp = m.end;
            f.has_base = true;
            f.base = TraceNumber::integer(m.start);
            f.node_id = display_node_id(name.substr(0, name.find('.')));
        } else {
            const auto parts = split(name, '_');
            if (parts.size() < 3 || !parse_int64(parts[0], f.timestamp) || parts[1].empty()) {
                d.problems.push_back({full, "file name has no timestamp: expected <end_us>_<node>_" +
                                                known_suffixes()[static_cast<std::size_t>(f.kind)]});
                continue;
            }
            f.node_id = display_node_id(parts[1]);
        }
        d.files.push_back(std::move(f));
    }
    std::sort(d.files.begin(), d.files.end(), reads_before);
    std::sort(d.problems.begin(), d.problems.end(),
              [](const FileProblem& a, const FileProblem& b) { return a.path < b.path; });
    drop_duplicate_runs(d);
    return d;
}

std::vector<TraceFile> select_for_range(const std::vector<TraceFile>& files, TraceNumber start, TraceNumber end) {
    std::vector<std::int64_t> stamps;
    for (const auto& f : files) {
        if (!f.always_read) stamps.push_back(f.timestamp);
    }
    std::sort(stamps.begin(), stamps.end());
    stamps.erase(std::unique(stamps.begin(), stamps.end()), stamps.end());
    const TraceNumber lo_t = subtract(start, TraceNumber::integer(kNameTimeMarginUs));
    const TraceNumber hi_t = add(end, TraceNumber::integer(kNameTimeMarginUs));
    auto first_at_or_after = [&](TraceNumber t) {
        return std::find_if(stamps.begin(), stamps.end(),
                            [&](std::int64_t s) { return compare(TraceNumber::integer(s), t) >= 0; }) -
               stamps.begin();
    };
    const auto lo = first_at_or_after(lo_t);
    const auto hi = first_at_or_after(hi_t);
    std::vector<TraceFile> out;
    const bool any_named = lo < static_cast<std::ptrdiff_t>(stamps.size());
    const std::int64_t min_stamp = any_named ? stamps[static_cast<std::size_t>(lo)] : 0;
    const std::int64_t max_stamp = any_named ? stamps[static_cast<std::size_t>(std::min<std::ptrdiff_t>(
                                                   hi, static_cast<std::ptrdiff_t>(stamps.size()) - 1))]
                                             : 0;
    for (const auto& f : files) {
        if (f.always_read || (any_named && f.timestamp >= min_stamp && f.timestamp <= max_stamp)) out.push_back(f);
    }
    return out;
}

}  // namespace ringprof::detail
