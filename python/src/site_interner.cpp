#include "site_interner.hpp"

#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ringprof::python {
namespace {

struct Interner {
    std::mutex mutex;
    std::unordered_map<std::string, const Site*> by_key;
    // Deques never move their elements: the strings' characters and the Sites stay where the
    // events point.
    std::deque<std::string> texts;
    std::deque<Site> sites;
};

// Never destroyed: Python threads and the library's exit handler may still read sites after
// static destructors have run.
Interner& interner() {
    static Interner* instance = new Interner;
    return *instance;
}

}  // namespace

const Site* intern_site(std::string_view name, std::string_view file, std::uint32_t line, std::uint32_t variant) {
    Interner& in = interner();
    std::string key;
    key.reserve(name.size() + file.size() + 24);
    key.append(name).append(1, '\0').append(file).append(1, '\0').append(std::to_string(line));
    if (variant != 0) key.append(1, '\0').append(std::to_string(variant));
    std::lock_guard<std::mutex> lock(in.mutex);
    if (auto it = in.by_key.find(key); it != in.by_key.end()) return it->second;
    const char* name_text = in.texts.emplace_back(name).c_str();
    const char* file_text = in.texts.emplace_back(file).c_str();
    const char* function_text =
        variant == 0 ? name_text : in.texts.emplace_back(std::string(name) + "#" + std::to_string(variant)).c_str();
    const Site* site = &in.sites.emplace_back(Site{name_text, function_text, file_text, line});
    in.by_key.emplace(std::move(key), site);
    return site;
}

std::uint64_t interned_site_count() {
    Interner& in = interner();
    std::lock_guard<std::mutex> lock(in.mutex);
    return in.sites.size();
}

}  // namespace ringprof::python
