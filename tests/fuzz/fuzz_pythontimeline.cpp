// Feeds arbitrary bytes as a pythontimeline file through the whole `ringprof merge` path (file
// discovery, the trace reader with smdebug's rules, the record store, the merged file writer) and
// through `ringprof flame`'s loader. Bad input must become a skipped file or a FlameInputError.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "ringprof/flame.hpp"
#include "ringprof/merged_timeline.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path& work_dir() {
    static const fs::path dir = [] {
        fs::path d = fs::temp_directory_path() / ("ringprof_fuzz_pythontimeline_" + std::to_string(::getpid()));
        fs::create_directories(d / "framework" / "pevents" / "2020071317");
        return d;
    }();
    return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fs::path file =
        work_dir() / "framework" / "pevents" / "2020071317" / "1594662624718694_1-fuzz_pythontimeline.json";
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    std::error_code ec;
    fs::remove_all(work_dir() / "out", ec);  // output names follow the input's times: keep one at most
    try {
        ringprof::MergedTimeline merger(work_dir().string(), {}, (work_dir() / "out").string());
        (void)merger.merge_all();
    } catch (const ringprof::MergeError&) {
    }
    try {
        (void)ringprof::load_flame_profile(file.string());
    } catch (const ringprof::FlameInputError&) {
    }
    return 0;
}
