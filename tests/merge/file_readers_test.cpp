// FileReaders: files read on worker threads reach the one consumer whole, each file's messages in
// order and every file once, finished files before those still being read, with bounded queues;
// and the pipeline always ends (consumer giving up, reader failing, every worker's room full).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "bounded_process.hpp"
#include "merge/file_readers.hpp"
#include "temp_dir.hpp"

namespace {

using ringprof::detail::FileMessage;
using ringprof::detail::FileReaders;
using namespace std::chrono_literals;
using ringprof::testing::without_exit_handlers;

// File f sends (f * 7) % kBatchesModulus batches, batch k holding the text "f:k"; readers jitter
// so that workers overtake each other and fill their queues. Up to more than the files ahead of
// the consumer may hold together, so that workers ahead wait for room.
constexpr std::size_t kBatchesModulus = FileReaders::kQueuedAhead + 37;

FileMessage numbered_batches(std::size_t f, FileReaders::Outbox& out, std::atomic<int>& in_flight_max,
                             std::atomic<int>& in_flight) {
    std::minstd_rand jitter(static_cast<unsigned>(f));
    const std::size_t batches = (f * 7) % kBatchesModulus;
    for (std::size_t k = 0; k < batches; ++k) {
        FileMessage m;
        m.batch.text.append(std::to_string(f) + ":" + std::to_string(k));
        if (jitter() % 4 == 0) std::this_thread::yield();
        const int now = ++in_flight;
        int seen = in_flight_max.load();
        while (now > seen && !in_flight_max.compare_exchange_weak(seen, now)) {
        }
        out.send(std::move(m));
    }
    FileMessage done;
    done.outcome.events = batches;
    return done;
}

TEST(FileReaders, ConsumerSeesEveryFileOnceWithItsMessagesInOrder) {
    const std::size_t files = static_cast<std::size_t>(ringprof::testing::scaled(400));
    for (unsigned threads : {1u, 2u, 5u}) {
        const auto outcome = ringprof::testing::run_bounded(
            [&] {
                std::atomic<int> in_flight{0}, in_flight_max{0};
                FileReaders readers(files, threads, [&](std::size_t f, FileReaders::Outbox& out) {
                    return numbered_batches(f, out, in_flight_max, in_flight);
                });
                std::vector<bool> seen(files, false);
                for (std::size_t n = 0; n < files; ++n) {
                    const std::size_t f = readers.next_file();
                    if (f >= files || seen[f]) return 4;
                    seen[f] = true;
                    std::size_t k = 0;
                    for (;;) {
                        FileMessage m = readers.next();
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
                if (in_flight_max.load() >
                    static_cast<int>(FileReaders::max_in_flight(std::min(threads, static_cast<unsigned>(files))) +
                                     threads))
                    return 3;
                return 0;
            },
            without_exit_handlers(60s));
        ASSERT_TRUE(outcome.finished) << threads << " threads: the pipeline hung";
        EXPECT_EQ(outcome.exit_code, 0) << threads
                                        << " threads (1: wrong count, 2: out of order, 3: unbounded, 4: a file twice)";
    }
}

TEST(FileReaders, AFileReadToTheEndIsConsumedBeforeAnEarlierOneStillBeingRead) {
    const auto outcome = ringprof::testing::run_bounded(
        [] {
            // File 0 cannot finish until the consumer has taken file 1 whole: a consumer that
            // waits for files in their order would see file 0 give up after 10 s instead.
            // File 2 starts only once file 1 is done (file 0 holds the other worker), so when the
            // consumer next chooses, every file has started and file 2 may still be being read:
            // then file 0 is as good a choice as file 2, and either order of the two is right.
            std::atomic<bool> file1_consumed{false};
            FileReaders readers(3, 2, [&](std::size_t f, FileReaders::Outbox& out) {
                out.send(FileMessage{});
                FileMessage done;
                if (f == 0) {
                    const auto give_up = std::chrono::steady_clock::now() + 10s;
                    while (!file1_consumed.load() && std::chrono::steady_clock::now() < give_up)
                        std::this_thread::sleep_for(1ms);
                    done.outcome.events = file1_consumed.load() ? 1 : 0;
                }
                return done;
            });
            std::vector<std::size_t> taken;
            for (int n = 0; n < 3; ++n) {
                const std::size_t f = readers.next_file();
                taken.push_back(f);
                FileMessage m;
                while ((m = readers.next()).kind != FileMessage::Kind::done) {
                }
                if (f == 1) file1_consumed = true;
                if (f == 0 && m.outcome.events != 1) return 1;
            }
            const auto at = [&](std::size_t f) { return std::find(taken.begin(), taken.end(), f) - taken.begin(); };
            return at(0) < 3 && at(2) < 3 && at(1) < at(0) ? 0 : 2;
        },
        without_exit_handlers(30s));
    ASSERT_TRUE(outcome.finished) << "the pipeline hung";
    EXPECT_EQ(outcome.exit_code, 0)
        << "1: file 0 waited for file 1 in vain, 2: file 0 taken before file 1, or a file not taken";
}

TEST(FileReaders, ConsumerTakesAFileStillBeingReadWhenNoneCanFinish) {
    const auto outcome = ringprof::testing::run_bounded(
        [] {
            // Each file sends more than the room ahead holds, so neither finishes unless the
            // consumer takes one while it is still being read.
            constexpr std::size_t kBatches = 3 * FileReaders::kQueuedAhead;
            FileReaders readers(2, 2, [&](std::size_t, FileReaders::Outbox& out) {
                for (std::size_t k = 0; k < kBatches; ++k) out.send(FileMessage{});
                return FileMessage{};
            });
            for (int n = 0; n < 2; ++n) {
                readers.next_file();
                std::size_t batches = 0;
                while (readers.next().kind != FileMessage::Kind::done) ++batches;
                if (batches != kBatches) return 1;
            }
            return 0;
        },
        without_exit_handlers(30s));
    ASSERT_TRUE(outcome.finished) << "the consumer waited for a file to finish while every worker waited for room";
    EXPECT_EQ(outcome.exit_code, 0) << "a file's batches were lost";
}

TEST(FileReaders, ConsumerGivingUpEarlyStopsEveryWorker) {
    const auto outcome = ringprof::testing::run_bounded(
        [] {
            std::atomic<int> started{0};
            {
                // Every file sends far more than the queues hold: workers ahead of the consumer
                // wait for room, and must be woken and ended when the consumer leaves.
                FileReaders readers(50, 4, [&](std::size_t, FileReaders::Outbox& out) {
                    ++started;
                    for (int k = 0; k < 1000; ++k) out.send(FileMessage{});
                    return FileMessage{};
                });
                readers.next_file();
                readers.next();
                readers.next();
            }
            return started.load() >= 1 ? 0 : 1;
        },
        without_exit_handlers(30s));
    ASSERT_TRUE(outcome.finished) << "destroying the pipeline with workers waiting for room hung";
    EXPECT_EQ(outcome.exit_code, 0);
}

TEST(FileReaders, ReaderExceptionReachesTheConsumerAtItsFile) {
    const auto outcome = ringprof::testing::run_bounded(
        [] {
            FileReaders readers(6, 3, [](std::size_t f, FileReaders::Outbox& out) {
                out.send(FileMessage{});
                if (f == 3) throw std::logic_error("reader of file 3 failed");
                return FileMessage{};
            });
            for (std::size_t n = 0; n < 6; ++n) {
                const std::size_t f = readers.next_file();
                try {
                    while (readers.next().kind != FileMessage::Kind::done) {
                    }
                } catch (const std::logic_error& e) {
                    return f == 3 && std::string(e.what()) == "reader of file 3 failed" ? 0 : 1;
                }
            }
            return 2;  // never rethrown
        },
        without_exit_handlers(30s));
    ASSERT_TRUE(outcome.finished) << "the pipeline hung";
    EXPECT_EQ(outcome.exit_code, 0) << "1: rethrown at the wrong file, 2: not rethrown";
}

}  // namespace
