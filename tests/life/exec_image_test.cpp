// A program that execs keeps its pid, and so its default run id: the new image must not replace
// the files the earlier one wrote, whether it flushed or ended its session before the exec. The second image is this
// test program again, started with RINGPROF_TEST_SECOND_IMAGE set: it records its own scope and exits normally.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bounded_process.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "text_lines.hpp"

// A namespace of its own: the test programs are unity builds.
namespace ringprof::testing::exec_image {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSecondImage = "RINGPROF_TEST_SECOND_IMAGE";

class SecondImage : public ::testing::Environment {
public:
    void SetUp() override {
        if (std::getenv(kSecondImage) == nullptr) return;
        for (int i = 0; i < 7; ++i) {
            PROF_SCOPE("second_image");
        }
        std::exit(0);  // the exit handler writes this image's files
    }
};
[[maybe_unused]] ::testing::Environment* const g_second_image = ::testing::AddGlobalTestEnvironment(new SecondImage);

// Runs `first_image` (which records five "first_image" scopes) in a bounded child that then
// execs this program as the second image, and checks that each image's files are whole and apart:
// the second writes as the first's run id with "_exec", and says so once.
void expect_each_image_keeps_its_files(const std::function<void()>& first_image) {
    TempDir dir;
    const std::string err_path = dir.str() + "/stderr.txt";
    const std::string out = dir.str() + "/out";
    const Outcome o = run_bounded(
        [&] {
            set_env("RINGPROF_OUTPUT_DIR", out);
            ::unsetenv("RINGPROF_RUN_ID");  // the default: "<program>_<pid>", which exec keeps
            set_env("RINGPROF_BACKENDS", "timers,trace");
            first_image();
            // The program's real path, so that the new image has the same program name.
            char exe[PATH_MAX] = {};
            if (::readlink("/proc/self/exe", exe, sizeof exe - 1) <= 0) return 9;
            set_env(kSecondImage, "1");
            std::string filter = "--gtest_filter=ExecImage.*";
            char* argv[] = {exe, filter.data(), nullptr};
            ::execv(exe, argv);
            return 8;
        },
        stderr_to(err_path));
    const std::string err = read_text(err_path);
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << err;
    std::vector<std::string> timers;
    for (const auto& e : fs::directory_iterator(out)) {
        const std::string name = e.path().filename().string();
        if (name.size() > 12 && name.compare(name.size() - 12, 12, "_timers.json") == 0) timers.push_back(name);
    }
    ASSERT_EQ(timers.size(), 2u) << "one image's timers replaced the other's\n" << err;
    int first = 0, second = 0;
    std::string second_name;
    for (const std::string& name : timers) {
        const TimerTree t = load_timers_json(out + "/" + name);
        const TimerNode* f = t.root.find("first_image");
        const TimerNode* s = t.root.find("second_image");
        first += f != nullptr && f->count == 5;
        second += s != nullptr && s->count == 7;
        if (s != nullptr) second_name = name;
    }
    EXPECT_EQ(first, 1) << err;
    EXPECT_EQ(second, 1) << err;
    // Named apart and said: the earlier image's run id with "_exec".
    const std::string second_run_id = second_name.substr(0, second_name.size() - 12);
    EXPECT_EQ(second_run_id.size() > 5 ? second_run_id.substr(second_run_id.size() - 5) : "", "_exec") << second_name;
    EXPECT_EQ(lines_naming(err, "'" + second_run_id + "'"), 1) << err;
    EXPECT_TRUE(fs::exists(out + "/" + second_run_id + "_trace.json.gz")) << err;
}

TEST(ExecImage, AnExecdImageKeepsTheFilesOfTheImageBeforeIt) {
    expect_each_image_keeps_its_files([] {
        for (int i = 0; i < 5; ++i) {
            PROF_SCOPE("first_image");
        }
        ringprof::flush();
    });
}

// The earlier image ended its session (its claim released, its files final) before it execs.
TEST(ExecImage, AnImageExecdAfterItsSessionEndedKeepsTheFilesOfTheImageBeforeIt) {
    expect_each_image_keeps_its_files([] {
        Session session;
        for (int i = 0; i < 5; ++i) {
            PROF_SCOPE("first_image");
        }
    });
}

// The claim file an ended session leaves names this image: a later session of it is not an exec'd
// image, and takes the run id again without a word.
TEST(ExecImage, ALaterSessionOfTheSameImageTakesItsRunIdAgain) {
    TempDir dir;
    const std::string err_path = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            Config c;
            c.output_dir = dir.str() + "/out";
            c.run_id = "again";
            c.backends = {"timers"};
            for (int session = 0; session < 2; ++session) {
                Session s(c);
                PROF_SCOPE("work");
            }
            return 0;
        },
        stderr_to(err_path));
    const std::string err = read_text(err_path);
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << err;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir.str() + "/out")) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{".again.ringprof_claim", "again_timers.json"})) << err;
    EXPECT_EQ(lines_naming(err, "'again"), 0) << err;
}

}  // namespace
}  // namespace ringprof::testing::exec_image
