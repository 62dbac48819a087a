// The three built-in backends write what the render functions produce, where the docs say.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "session/builtin_backends.hpp"
#include "flame_html_backend.hpp"
#include "flame_test_trees.hpp"
#include "ringprof/flame.hpp"
#include "ringprof/snapshot_file_backend.hpp"

namespace {

ringprof::Snapshot snapshot() {
    ringprof::Snapshot s;
    s.tree.root = flame_test::training_tree();
    ringprof::ThreadInfo main;
    main.tid = 11;
    main.name = "main";
    main.tree = flame_test::node("root", 10.0, 1, false, {flame_test::node("train_step", 8.0, 100)});
    ringprof::ThreadInfo gone;
    gone.tid = 12;
    gone.exited = true;  // its tree is empty: no view of its own
    s.threads = {main, gone};
    s.final = true;
    return s;
}

// The built-in backend of that name, if it is of kind B.
template <class B = ringprof::SnapshotFileBackend>
std::unique_ptr<B> builtin(const char* name) {
    ringprof::Config c;
    c.backends = {name};
    auto made = ringprof::backends::make_builtin_backends(c);
    if (made.size() != 1) return nullptr;
    auto* typed = dynamic_cast<B*>(made[0].get());
    if (typed != nullptr) made[0].release();
    return std::unique_ptr<B>(typed);
}

TEST(FlameBackends, AreBuiltIns) {
    const auto names = ringprof::backends::builtin_backend_names();
    for (const char* n : {"flame", "flame_svg", "folded"}) {
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
    }
}

TEST(FlameBackends, WriteTheirFilesAtSnapshot) {
    ringprof::RunInfo run;
    run.output_dir = std::string(RINGPROF_TEST_BINARY_DIR) + "/flame_backends";
    run.run_id = "demo";
    std::filesystem::remove_all(run.output_dir);
    std::filesystem::create_directories(run.output_dir);
    const ringprof::Snapshot snap = snapshot();

    const auto html = builtin<ringprof::backends::FlameHtmlBackend>("flame");
    const auto svg = builtin("flame_svg");
    const auto folded = builtin("folded");
    ASSERT_TRUE(html && svg && folded);
    for (ringprof::Backend* b : std::initializer_list<ringprof::Backend*>{html.get(), svg.get(), folded.get()}) {
        b->on_start(run);
        b->on_snapshot(snap);
    }
    ASSERT_EQ(html->path(), run.output_dir + "/demo_flame.html");
    ASSERT_EQ(svg->paths(), std::vector<std::string>{run.output_dir + "/demo_flame.svg"});
    ASSERT_EQ(folded->paths(), std::vector<std::string>{run.output_dir + "/demo_folded.txt"});

    const ringprof::FlameProfile profile = ringprof::flame_profile(snap, "demo");
    ASSERT_EQ(profile.threads.size(), 1u);
    EXPECT_EQ(profile.threads[0].label, "main");
    EXPECT_EQ(profile.threads[0].detail, "tid 11");
    EXPECT_EQ(flame_test::read_text(html->path()), ringprof::render_html(profile));
    EXPECT_EQ(flame_test::read_text(folded->paths()[0]), ringprof::render_folded(snap.tree.root));
    EXPECT_NE(flame_test::read_text(svg->paths()[0]).find("demo - flame graph"), std::string::npos);
}

TEST(FlameBackends, UnwritableDirectoryThrowsNamingThePath) {
    ringprof::RunInfo run;
    run.output_dir = "/proc/ringprof_no_such_dir";
    run.run_id = "x";
    const auto folded = builtin("folded");
    ASSERT_TRUE(folded);
    folded->on_start(run);
    try {
        folded->on_snapshot(snapshot());
        ADD_FAILURE() << "no error";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("/proc/ringprof_no_such_dir/x_folded.txt"), std::string::npos) << e.what();
    }
}

}  // namespace
