// OrderedReaders: files read on worker threads reach the one consumer strictly in file order,
// with bounded queues, and the pipeline always ends (consumer giving up, reader failing).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "bounded_child.hpp"
#include "merge/ordered_readers.hpp"
#include "temp_dir.hpp"

namespace {

using ringprof::detail::FileMessage;
using ringprof::detail::OrderedReaders;
using namespace std::chrono_literals;

// File f sends (f * 7) % kBatchesModulus batches, batch k holding the text "f:k"; readers jitter
// so that workers overtake each other and fill their queues. Up to more than the files ahead of
// the consumer may hold together, so that workers ahead wait for room.
constexpr std::size_t kBatchesModulus = OrderedReaders::kQueuedAhead + 37;

FileMessage numbered_batches(std::size_t f, OrderedReaders::Outbox& out, std::atomic<int>& in_flight_max,
                             std::atomic<int>& in_flight) {
    std::minstd_rand jitter(static_cast<unsigned>(f));
    const std::size_t batches = (f * 7) % kBatchesModulus;
    for (std::size_t k = 0; k < batches; ++k) {
        FileMessage m;
        m.batch.text.append(std::to_string(f) + ":" + std::to_string(k));
        if (jitter() % 4 == 0) std::this_thread::yield();
        const int now = ++in_flight;
        int seen = in_flight_max.load();
        while (now > seen && !in_flight_max.compare_exchange_weak(seen, now)) {}
        out.send(std::move(m));
    }
    FileMessage done;
    done.outcome.events = batches;
    return done;
}

TEST(OrderedReaders, ConsumerSeesEveryFilesMessagesInFileOrder) {
    const std::size_t files = static_cast<std::size_t>(ringprof::testing::scaled(400));
    for (unsigned threads : {1u, 2u, 5u}) {
        const auto outcome = ringprof::testing::run_bounded(
            [&] {
                std::atomic<int> in_flight{0}, in_flight_max{0};
                OrderedReaders readers(files, threads, [&](std::size_t f, OrderedReaders::Outbox& out) {
                    return numbered_batches(f, out, in_flight_max, in_flight);
                });
                for (std::size_t f = 0; f < files; ++f) {
                    std::size_t k = 0;
                    for (;;) {
                        FileMessage m = readers.next(f);
                        if (m.kind == FileMessage::Kind::done) {
                            if (m.outcome.events != k || k != (f * 7) % kBatchesModulus) return 1;
                            break;
                        }
                        --in_flight;
                        if (m.batch.text.view() != std::to_string(f) + ":" + std::to_string(k)) return 2;
                        ++k;
                    }
                }
                // One more per worker than the bound: a worker counts its next batch before the
                // consumer has uncounted the one it took.
                if (in_flight_max.load() > static_cast<int>(OrderedReaders::max_in_flight(std::min(threads, static_cast<unsigned>(files))) + threads)) return 3;
                return 0;
            },
            60s);
        ASSERT_TRUE(outcome.finished) << threads << " threads: the pipeline hung";
        EXPECT_EQ(outcome.exit_code, 0) << threads << " threads (1: wrong count, 2: out of order, 3: unbounded)";
    }
}

TEST(OrderedReaders, ConsumerGivingUpEarlyStopsEveryWorker) {
    const auto outcome = ringprof::testing::run_bounded(
        [] {
            std::atomic<int> started{0};
            {
                // Every file sends far more than the queues hold: workers ahead of the consumer
                // wait for room, and must be woken and ended when the consumer leaves.
                OrderedReaders readers(50, 4, [&](std::size_t, OrderedReaders::Outbox& out) {
                    ++started;
                    for (int k = 0; k < 1000; ++k) out.send(FileMessage{});
                    return FileMessage{};
                });
                readers.next(0);
                readers.next(0);
            }
            return started.load() >= 1 ? 0 : 1;
        },
        30s);
    ASSERT_TRUE(outcome.finished) << "destroying the pipeline with workers waiting for room hung";
    EXPECT_EQ(outcome.exit_code, 0);
}

TEST(OrderedReaders, ReaderExceptionReachesTheConsumerAtItsFile) {
    const auto outcome = ringprof::testing::run_bounded(
        [] {
            OrderedReaders readers(6, 3, [](std::size_t f, OrderedReaders::Outbox& out) {
                out.send(FileMessage{});
                if (f == 3) throw std::logic_error("reader of file 3 failed");
                return FileMessage{};
            });
            for (std::size_t f = 0; f < 6; ++f) {
                try {
                    while (readers.next(f).kind != FileMessage::Kind::done) {}
                } catch (const std::logic_error& e) {
                    return f == 3 && std::string(e.what()) == "reader of file 3 failed" ? 0 : 1;
                }
            }
            return 2;  // never rethrown
        },
        30s);
    ASSERT_TRUE(outcome.finished) << "the pipeline hung";
    EXPECT_EQ(outcome.exit_code, 0) << "1: rethrown at the wrong file, 2: not rethrown";
}

}  // namespace
