#include <unordered_map>

#include "flame/profile_from_trace.hpp"
#include "tree/children_by_name.hpp"
#include "tree/parallel_rule.hpp"

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
        const std::size_t mark = path.size();
        path += '\x1f';
        path += c.name;
        // Threads are merged one after another: a node one thread fed is fed by a second when
        // its path was first seen on another thread.
        const auto [it, inserted] = first_thread.emplace(path, thread);
        const std::uint32_t threads = inserted || it->second == thread ? 1 : kParallelThreads;
        d.is_parallel = parallel_with_threads(parallel_after_merge(d.is_parallel, c.is_parallel, false), threads);
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
