#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "flame_test_trees.hpp"
#include "folded_lines.hpp"
#include "ringprof/flame.hpp"

namespace {

using flame_test::parse_folded;
using flame_test::training_tree;

std::int64_t micros(double s) { return static_cast<std::int64_t>(std::llround(s * 1e6)); }

std::string folded_path(const std::string& slash_path) {
    std::string s = slash_path;
    for (char& c : s)
        if (c == '/') c = ';';
    return s;
}

TEST(Folded, EachStackCarriesItsSelfTimeInMicroseconds) {
    const ringprof::TimerNode tree = training_tree();
    const auto stacks = parse_folded(ringprof::render_folded(tree));
    std::size_t expected_lines = 0;
    flame_test::for_each_path(tree,
                              [&](const std::string& path, const ringprof::TimerNode& n, const ringprof::TimerNode*) {
                                  std::int64_t self = micros(n.total);
                                  for (const auto& c : n.children) self -= micros(c.total);
                                  const auto it = stacks.find(folded_path(path));
                                  if (self > 0) {
                                      ++expected_lines;
                                      ASSERT_NE(it, stacks.end()) << path;
                                      EXPECT_EQ(it->second, self) << path;
                                      EXPECT_NEAR(static_cast<double>(it->second), n.self() * 1e6, 1.0) << path;
                                  } else {
                                      EXPECT_EQ(it, stacks.end()) << "zero-self stack written: " << path;
                                  }
                              });
    EXPECT_EQ(stacks.size(), expected_lines);
}

TEST(Folded, LinesUnderASequentialNodeSumToItsTotal) {
    // Every node is checked, the root included. Below a node whose children hold more than it
    // (parallel work), the stacks hold that excess on top: each node's lines sum to its total
    // plus the excess of every oversubscribed node in its subtree, and to exactly its total
    // where there is none.
    const ringprof::TimerNode tree = training_tree();
    const auto stacks = parse_folded(ringprof::render_folded(tree));
    std::size_t checked = 0, exact = 0;
    flame_test::for_each_path(tree, [&](const std::string& path, const ringprof::TimerNode& n,
                                        const ringprof::TimerNode*) {
        std::int64_t excess = 0;
        flame_test::for_each_path(n, [&](const std::string&, const ringprof::TimerNode& d, const ringprof::TimerNode*) {
            std::int64_t children = 0;
            for (const auto& c : d.children) children += micros(c.total);
            excess += std::max<std::int64_t>(0, children - micros(d.total));
        });
        const std::string prefix = folded_path(path);
        std::int64_t sum = 0;
        for (const auto& [stack, value] : stacks) {
            if (stack == prefix || stack.rfind(prefix + ";", 0) == 0) sum += value;
        }
        EXPECT_EQ(sum, micros(n.total) + excess) << path;
        ++checked;
        if (excess == 0) ++exact;
    });
    EXPECT_EQ(checked, flame_test::node_count(tree));
    EXPECT_LT(exact, checked) << "the tree must hold parallel work, or the excess rule is untested";
    // The sequential parents of the parallel subtree are the nodes that matter: root, train_step,
    // env_step and workers carry the worker excess (3.0 s under a 1.0 s node) exactly once.
    std::int64_t root_sum = 0;
    for (const auto& [stack, value] : stacks) root_sum += value;
    EXPECT_EQ(root_sum, micros(10.0) + micros(2.0));
}

TEST(Folded, SeparatorsInsideNamesAreReplaced) {
    const ringprof::TimerNode tree = flame_test::node(
        "root", 1.0, 1, false, {flame_test::node("a;b", 0.5, 1), flame_test::node("line\nbreak", 0.25, 1)});
    const auto stacks = parse_folded(ringprof::render_folded(tree));
    EXPECT_EQ(stacks.at("root;a:b"), 500000);
    EXPECT_EQ(stacks.at("root;line break"), 250000);
    EXPECT_EQ(stacks.at("root"), 250000);
}

TEST(Folded, EmptyTreeGivesNoLines) { EXPECT_EQ(ringprof::render_folded(ringprof::TimerNode("root")), ""); }

}  // namespace
