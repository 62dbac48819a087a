// Every tree finds a node's child in constant time: four times the sibling names costs at most
// about five times the lookup work, where a scan of the siblings costs sixteen. Work is counted
// (candidates compared against the key, ChildLookupWork) rather than timed, so a loaded machine
// cannot make these flake.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "tree/agg_node.hpp"
#include "tree/merge_nodes.hpp"
#include "drain/call_tree.hpp"
#include "flame/profile_from_trace.hpp"
#include "ringprof/detail/recorder.hpp"
#include "ringprof/session.hpp"
#include "ringprof/timer_tree.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "tree/child_index.hpp"
#include "timers_only_config.hpp"

namespace ringprof {
namespace {

using detail::ChildLookupWork;

constexpr std::size_t kFew = 2000;
constexpr std::size_t kMany = 4 * kFew;
constexpr double kMostGrowth = 5.0;  // linear is 4; a sibling scan is 16

std::string name_of(std::size_t i) { return "scope_" + std::to_string(i); }

// The lookup work of `build(n)` for kFew and kMany siblings, checked to grow linearly.
void expect_linear(const std::function<void(std::size_t)>& build) {
    std::uint64_t work[2];
    const std::size_t sizes[2] = {kFew, kMany};
    for (int k = 0; k < 2; ++k) {
        const std::uint64_t before = ChildLookupWork::read();
        build(sizes[k]);
        work[k] = ChildLookupWork::read() - before;
    }
    ASSERT_GE(work[0], kFew) << "every lookup compares at least one candidate: the count is not fed";
    EXPECT_LE(static_cast<double>(work[1]), kMostGrowth * static_cast<double>(work[0]))
        << kFew << " siblings: " << work[0] << " compared, " << kMany << ": " << work[1];
}

std::vector<Site> sites_named(const std::vector<std::string>& names) {
    std::vector<Site> sites(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) sites[i] = Site{names[i].c_str(), "f", "file.cpp", 1};
    return sites;
}

std::vector<std::string> names(std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(name_of(i));
    return out;
}

TEST(ChildLookup, ACallTreeFindsSiblingsWithoutScanningThem) {
    expect_linear([](std::size_t n) {
        const std::vector<std::string> all = names(n);
        const std::vector<Site> sites = sites_named(all);
        detail::CallTree tree;
        std::vector<std::uint32_t> first(n);
        for (std::size_t i = 0; i < n; ++i) first[i] = tree.child(detail::CallTree::kRoot, &sites[i], 0);
        // Entered again in another order: every one a lookup of a known child (not the last hit).
        for (std::size_t i = n; i-- > 0;) ASSERT_EQ(tree.child(detail::CallTree::kRoot, &sites[i], 0), first[i]);
        // The same site under another parent, or with another key, is another node.
        EXPECT_NE(tree.child(first[0], &sites[0], 0), first[0]);
        EXPECT_NE(tree.child(detail::CallTree::kRoot, &sites[0], 7), first[0]);
    });
}

TEST(ChildLookup, TheProcessTreeFindsChildrenByNameInConstantTime) {
    expect_linear([](std::size_t n) {
        detail::AggNode root;
        for (std::size_t i = 0; i < n; ++i) root.child(name_of(i)).charge(1.0, 1, 1);
        detail::AggNode copy = root;  // a snapshot starts from a copy of the retired threads' tree
        for (std::size_t i = n; i-- > 0;) copy.child(name_of(i)).charge(1.0, 1, 2);
        detail::merge_nodes(copy, root, false);
        ASSERT_EQ(copy.children.size(), n);
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(copy.children[i].name, name_of(i));  // first-seen order
            ASSERT_EQ(copy.children[i].count, 3u);
        }
    });
}

TimerNode flat_tree(std::size_t n, bool reversed) {
    TimerNode root("root");
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = reversed ? n - 1 - k : k;
        TimerNode c(name_of(i));
        c.total = 1.0;
        c.count = 1;
        root.children.push_back(std::move(c));
    }
    return root;
}

TEST(ChildLookup, MergingTimerTreesIsLinearInTheirSizes) {
    expect_linear([](std::size_t n) {
        TimerTree merged;
        TimerTree a, b;
        a.root = flat_tree(n, false);
        b.root = flat_tree(n + n / 2, true);  // half of its names are new
        merged.merge(a, "", true);
        merged.merge(b, "", true);
        ASSERT_EQ(merged.root.children.size(), n + n / 2);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(merged.root.children[i].count, 2u);
        // New names follow in the order the second tree gave them (its reversed order).
        ASSERT_EQ(merged.root.children[n].name, name_of(n + n / 2 - 1));
    });
}

TEST(ChildLookup, MergeTimersOfParsedFilesIsLinear) {
    expect_linear([](std::size_t n) {
        TimerTree one;
        one.root = flat_tree(n, false);
        const std::string text = write_timers_json(one, TimersFormat::List);
        TimerTree merged;
        for (int file = 0; file < 2; ++file) merged.merge(parse_timers_json(text, "x.json"), "", true);
        ASSERT_EQ(merged.root.children.size(), n);
        ASSERT_EQ(merged.root.children.back().count, 2u);
    });
}

TEST(ChildLookup, SummingThreadTreesForAFlameGraphIsLinear) {
    expect_linear([](std::size_t n) {
        const TimerNode a = flat_tree(n, false), b = flat_tree(n, true);
        TimerNode merged("root");
        detail::sum_thread_trees({&a, &b}, merged);
        ASSERT_EQ(merged.children.size(), n);
        ASSERT_EQ(merged.children.front().name, name_of(0));
        ASSERT_TRUE(merged.children.front().is_parallel);
    });
}

TEST(ChildLookup, AFlameGraphOfATraceWithManySiblingsIsLinear) {
    testing::TempDir dir;
    expect_linear([&](std::size_t n) {
        const std::string path = dir.str() + "/siblings_" + std::to_string(n) + ".json";
        {
            std::ofstream out(path);
            out << "[";
            // Each name twice, so that half the spans look up a child that exists.
            for (std::size_t k = 0; k < 2 * n; ++k) {
                out << (k ? ",\n" : "") << R"({"name":")" << name_of(k % n) << R"(","ph":"X","ts":)" << 10 * k
                    << R"(,"dur":5,"pid":1,"tid":1})";
            }
            out << "]";
        }
        const FlameProfile p = detail::read_trace_profile(path);
        ASSERT_EQ(p.merged.children.size(), n);
        for (std::size_t i = 0; i < n; i += n / 7) {
            ASSERT_EQ(p.merged.children[i].name, name_of(i));
            ASSERT_EQ(p.merged.children[i].count, 2u);
        }
    });
}

TEST(ChildLookup, ASessionWithManyDistinctScopeNamesSnapshotsInLinearWork) {
    testing::TempDir dir;
    expect_linear([&](std::size_t n) {
        const std::vector<std::string> all = names(n);
        const std::vector<Site> sites = sites_named(all);
        Session session(testing::timers_only(dir, ("siblings" + std::to_string(n)).c_str()));
        for (int round = 0; round < 2; ++round) {
            for (const Site& s : sites) detail::Scope scope(&s);
        }
        const Snapshot snap = session.snapshot();
        ASSERT_EQ(snap.dropped, 0u);
        ASSERT_EQ(snap.tree.root.children.size(), n);
        ASSERT_EQ(snap.tree.root.children.back().name, name_of(n - 1));
        ASSERT_EQ(snap.tree.root.children.back().count, 2u);
    });
}

}  // namespace
}  // namespace ringprof
