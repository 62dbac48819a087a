// The aggregate tree as ML-Agents' timers.json describes it, in seconds. It is what backends
// receive at flush and exit, what `ringprof merge-timers` and `ringprof flame` read back, and
// what a worker process sends to its parent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringprof {

// Timer trees keep at most this many levels below the root, whoever builds them (the session,
// `merge-timers`, a flame graph of a trace): a scope nested deeper is folded into its ancestor at
// this level, whose total and count stay exact and whose self time then includes it. Every
// reader accepts what every writer writes, and the recursive tree walks (merging, writing,
// drawing, freeing) stay within a thread's stack even under sanitizers (a level costs them about
// 8 KiB there; 1,000 levels overflowed). The session says how many nodes it folded in the
// metadata ("folded_deep_nodes").
inline constexpr std::size_t kMaxTreeDepth = 256;

struct TimerNode {
    TimerNode() = default;
    explicit TimerNode(std::string node_name) : name(std::move(node_name)) {}
    TimerNode(const TimerNode&) = default;
    TimerNode(TimerNode&&) noexcept = default;
    TimerNode& operator=(const TimerNode&) = default;
    TimerNode& operator=(TimerNode&&) noexcept = default;
    // Frees a tree of any depth without recursion (a tree a program builds by hand may be deeper
    // than kMaxTreeDepth).
    ~TimerNode();

    std::string name;
    double total = 0.0;  // seconds
    std::uint64_t count = 0;
    bool is_parallel = false;
    std::vector<TimerNode> children;  // first-seen order

    // max(0, total - sum(children.total)); parallel children count in the sum.
    double self() const;

    // The child called `child_name`, created (appended) if missing.
    TimerNode& child(std::string_view child_name);
    const TimerNode* find(std::string_view child_name) const;
    // Follows a '/'-separated path of child names ("workers/worker_root").
    const TimerNode* find_path(std::string_view path) const;

    // ML-Agents' merge: sums total and count with `other` recursively by child name and ORs
    // `parallel` into every node it touches. Both trees keep first-seen child order.
    void merge(const TimerNode& other, bool parallel);
};

struct Gauge {
    double value = 0.0;
    double min = 0.0;
    double max = 0.0;
    std::uint64_t count = 0;
    // Monotonic time of the latest update, so a merge can keep the later value.
    std::uint64_t updated_ns = 0;
    // NaN and infinite values: counted here, kept out of value/min/max/count so those stay
    // finite numbers that every JSON reader accepts.
    std::uint64_t non_finite = 0;

    void set(double v, std::uint64_t when_ns);
    void merge(const Gauge& other);
};

// A whole profile: the tree plus what rides at its root.
struct TimerTree {
    TimerNode root{"root"};
    std::vector<std::pair<std::string, Gauge>> gauges;          // first-set order
    std::vector<std::pair<std::string, std::string>> metadata;  // insertion order

    Gauge& gauge(std::string_view name);
    void set_metadata(std::string_view key, std::string_view value);
    const std::string* find_metadata(std::string_view key) const;

    // Grafts `other` under `graft_path` ("a/b", created as needed; empty merges at the root)
    // with the parallel flag, and merges its gauges. Metadata of `other` is not copied.
    void merge(const TimerTree& other, std::string_view graft_path, bool parallel);
};

}  // namespace ringprof
