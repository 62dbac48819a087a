// A ring size that is not a power of two of events is rounded up, and the session says so once.
#include <gtest/gtest.h>

#include "bounded_process.hpp"
#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {
namespace {

std::string stderr_of_a_session_with_ring_bytes(std::size_t bytes) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            Config c;
            c.output_dir = dir.str() + "/out";
            c.run_id = "ring";
            c.backends = {"timers"};
            c.ring_bytes = bytes;
            Session session(c);
            { PROF_SCOPE("one"); }
            return 0;
        },
        stderr_to(err));
    EXPECT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 0);
    return read_text(err);
}

TEST(RingSizeNote, ASizeThatIsNotAPowerOfTwoOfEventsIsRoundedUpAndSaid) {
    const std::string said = stderr_of_a_session_with_ring_bytes(3000);
    EXPECT_NE(said.find("ringprof: RINGPROF_RING_BYTES (Config::ring_bytes) = 3000 is not a power of two of 16-byte "
                        "events; a thread's ring grows to 4096 bytes\n"),
              std::string::npos)
        << said;
}

TEST(RingSizeNote, APowerOfTwoIsTakenWithoutAWord) {
    EXPECT_EQ(stderr_of_a_session_with_ring_bytes(4096).find("RINGPROF_RING_BYTES"), std::string::npos);
}

}  // namespace
}  // namespace ringprof::testing
