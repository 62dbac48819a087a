// RecordStore: whatever the files' sizes and orders, events come back by start time, ties in the
// order they were added, rolled-back files left out, in memory or spilled to run files alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "merge/record_store.hpp"
#include "temp_dir.hpp"

namespace {

using ringprof::detail::RecordStore;
using ringprof::detail::StoredEvent;
using ringprof::detail::TraceNumber;

struct Added {
    TraceNumber start;
    std::string id;
};

// Files of many sizes (1 to 3000 events) in four shapes: in time order, reversed, shuffled, and in
// order but overlapping the previous files' times. Starts collide often (ties) and mix integers
// with floats, including floats equal to integers. Every fifth file is rolled back.
std::vector<Added> fill(RecordStore& store, unsigned seed, int files) {
    std::mt19937 rng(seed);
    std::vector<Added> kept;
    long serial = 0;
    for (int f = 0; f < files; ++f) {
        const int n = 1 + static_cast<int>(rng() % (f % 7 == 0 ? 3000 : 300));
        const std::int64_t base = static_cast<std::int64_t>(rng() % 5000);
        std::vector<Added> events;
        for (int k = 0; k < n; ++k) {
            const std::int64_t t = base + k * static_cast<std::int64_t>(rng() % 3);
            Added a;
            switch (rng() % 4) {
                case 0:
                    a.start = TraceNumber::floating(static_cast<double>(t) + 0.5);
                    break;
                case 1:
                    a.start = TraceNumber::floating(static_cast<double>(t));
                    break;
                default:
                    a.start = TraceNumber::integer(t);
            }
            a.id = "e" + std::to_string(serial++);
            events.push_back(a);
        }
        const int shape = f % 4;
        if (shape == 1) std::reverse(events.begin(), events.end());
        if (shape == 2) std::shuffle(events.begin(), events.end(), rng);
        for (const Added& a : events) {
            StoredEvent e;
            e.start = a.start;
            e.thread = static_cast<std::uint32_t>(f);
            e.head = a.id;
            e.tail = "}";
            store.add(e);
        }
        if (f % 5 == 4) {
            store.rollback_file();
        } else {
            store.commit_file();
            kept.insert(kept.end(), events.begin(), events.end());
        }
    }
    return kept;
}

void expect_visited_in_order(RecordStore& store, std::vector<Added> kept) {
    std::stable_sort(kept.begin(), kept.end(),
                     [](const Added& a, const Added& b) { return ringprof::detail::compare(a.start, b.start) < 0; });
    std::vector<std::string> seen;
    store.for_each_sorted([&](const StoredEvent& e) { seen.emplace_back(e.head); });
    ASSERT_EQ(seen.size(), kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) {
        ASSERT_EQ(seen[i], kept[i].id) << "position " << i;
    }
}

TEST(RecordStore, VisitsEventsByStartThenInsertionOrderAcrossManyFilesInMemory) {
    ringprof::testing::TempDir tmp;
    for (unsigned seed = 1; seed <= 4; ++seed) {
        RecordStore store(std::size_t{1} << 30, tmp.str());
        const auto kept = fill(store, seed, static_cast<int>(ringprof::testing::scaled(60)) + 3);
        EXPECT_EQ(store.runs(), 0u);  // everything stayed in memory
        expect_visited_in_order(store, kept);
    }
}

TEST(RecordStore, VisitsEventsByStartThenInsertionOrderWhenSpilledToRunFiles) {
    ringprof::testing::TempDir tmp;
    RecordStore store(64 * 1024, tmp.str());
    const auto kept = fill(store, 7, static_cast<int>(ringprof::testing::scaled(60)) + 3);
    EXPECT_GT(store.runs(), 1u);
    expect_visited_in_order(store, kept);
}

TEST(RecordStore, OneFileOutOfOrderIsSortedStably) {
    ringprof::testing::TempDir tmp;
    RecordStore store(std::size_t{1} << 30, tmp.str());
    std::vector<Added> kept;
    for (int k = 0; k < 100; ++k) kept.push_back({TraceNumber::integer((k * 37) % 10), "e" + std::to_string(k)});
    for (const Added& a : kept) {
        StoredEvent e;
        e.start = a.start;
        e.head = a.id;
        store.add(e);
    }
    store.commit_file();
    expect_visited_in_order(store, kept);
}

}  // namespace

namespace {

// The merge stores the largest file first; ties must still follow the files' reading order.
TEST(RecordStore, TiesFollowFileRankNotTheOrderFilesWereStored) {
    ringprof::testing::TempDir tmp;
    for (const std::size_t budget : {std::size_t{1} << 30, std::size_t{4096}}) {
        RecordStore store(budget, tmp.str());
        // Ranks stored as 2, 0, 1; every file has events at the same three times.
        const std::uint64_t stored_order[] = {2, 0, 1};
        for (const std::uint64_t rank : stored_order) {
            store.begin_file(rank);
            for (int t = 0; t < 3; ++t) {
                for (int k = 0; k < 50; ++k) {
                    const std::string id = std::to_string(t) + "/" + std::to_string(rank) + "/" + std::to_string(k);
                    StoredEvent e;
                    e.start = t == 1 ? TraceNumber::floating(1.0) : TraceNumber::integer(t);
                    e.head = id;
                    store.add(e);
                }
            }
            store.commit_file();
        }
        std::vector<std::string> expected;
        for (int t = 0; t < 3; ++t)
            for (int rank = 0; rank < 3; ++rank)
                for (int k = 0; k < 50; ++k)
                    expected.push_back(std::to_string(t) + "/" + std::to_string(rank) + "/" + std::to_string(k));
        std::vector<std::string> seen;
        store.for_each_sorted([&](const StoredEvent& e) { seen.emplace_back(e.head); });
        EXPECT_EQ(seen, expected) << "budget " << budget;
    }
}

}  // namespace
