#include <unordered_map>

#include "flame/profile_from_trace.hpp"
#include "tree/children_by_name.hpp"

namespace ringprof::detail {

namespace {

// Paths, not node pointers, identify merged nodes: children vectors reallocate as they grow.
void add(TimerNode& dst, const TimerNode& src, std::string& path, std::size_t thread,
         std::unordered_map<std::string, std::size_t>& first_thread) {
    ChildrenByName children(dst.children);
    for (const TimerNode& c : src.children) {
        TimerNode& d = children.child(c.name);
        d.total += c.total;
        d.count += c.count;
        d.is_parallel = d.is_parallel || c.is_parallel;
        const std::size_t mark = path.size();
        path += '\x1f';
        path += c.name;
        const auto [it, inserted] = first_thread.emplace(path, thread);
        if (!inserted && it->second != thread) d.is_parallel = true;
        add(d, c, path, thread, first_thread);
        path.resize(mark);
    }
}

}  // namespace

void merge_thread_trees(const std::vector<const TimerNode*>& threads, TimerNode& merged) {
    std::unordered_map<std::string, std::size_t> first_thread;
    std::string path;
    for (std::size_t i = 0; i < threads.size(); ++i) add(merged, *threads[i], path, i, first_thread);
}

}  // namespace ringprof::detail
