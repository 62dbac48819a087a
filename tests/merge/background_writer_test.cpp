// BackgroundWriter: buffers handed over reach the file whole, each at its place, and a write error
// on the writing thread reaches the caller as the file's OutputError instead of being lost.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include <signal.h>
#include <sys/resource.h>

#include "bounded_process.hpp"
#include "merge/background_writer.hpp"
#include "temp_dir.hpp"

namespace {

using ringprof::detail::BackgroundWriter;
using ringprof::detail::TextBuffer;
using namespace std::chrono_literals;
using ringprof::testing::without_exit_handlers;

TEST(BackgroundWriter, BuffersReachTheFileWholeEachAtItsPlace) {
    ringprof::testing::TempDir tmp;
    const std::string path = tmp.str() + "/out.txt";
    std::string expected;
    const long rounds = ringprof::testing::scaled(2000);
    for (long k = 0; k < rounds; ++k)
        expected += std::to_string(k) + std::string(static_cast<std::size_t>(k % 5000), 'x') + "\n";
    // In a child with a deadline: a lost wake-up between the two threads would hang.
    const auto outcome = ringprof::testing::run_bounded(
        [&] {
            ringprof::AtomicFile file(path);
            BackgroundWriter writer(file);
            TextBuffer buf;
            std::uint64_t offset = 0;
            for (long k = 0; k < rounds; ++k) {
                buf.append(std::to_string(k) + std::string(static_cast<std::size_t>(k % 5000), 'x') + "\n");
                if (k % 3 == 0) {
                    const std::size_t size = buf.size();
                    writer.hand_over(offset, buf);
                    offset += size;
                    if (buf.size() != 0) return 10;  // the buffer given back must be empty
                }
            }
            writer.hand_over(offset, buf);
            writer.wait();
            file.commit();
            return 0;
        },
        without_exit_handlers(60s));
    ASSERT_TRUE(outcome.finished) << "hung";
    ASSERT_EQ(outcome.exit_code, 0);
    EXPECT_EQ(ringprof::testing::read_text(path), expected);
}

TEST(BackgroundWriter, AWriteErrorOfTheWritingThreadReachesTheCaller) {
    ringprof::testing::TempDir tmp;
    const std::string path = tmp.str() + "/limited.txt";
    // In a child with a deadline: the file size limit (RLIMIT_FSIZE) makes the second write fail.
    const auto outcome = ringprof::testing::run_bounded(
        [&] {
            ::signal(SIGXFSZ, SIG_IGN);  // a failing write() instead of a signal
            rlimit lim{1 << 20, 1 << 20};
            if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) return 10;
            ringprof::AtomicFile file(path);
            BackgroundWriter writer(file);
            TextBuffer buf;
            for (int k = 0; k < 8; ++k) {
                buf.append(std::string(std::size_t{1} << 19, 'y'));
                try {
                    writer.hand_over((std::uint64_t{1} << 19) * static_cast<std::uint64_t>(k), buf);
                    if (k == 7) writer.wait();
                } catch (const ringprof::OutputError& e) {
                    return std::string(e.what()).find("limited.txt") != std::string::npos ? 0 : 11;
                }
            }
            return 12;  // the error was lost
        },
        without_exit_handlers(20s));
    ASSERT_TRUE(outcome.finished) << "hung";
    EXPECT_EQ(outcome.exit_code, 0);
}

}  // namespace
