// A folder where smdebug's LowGPUUtilization rule triggers: 1100 samples of algo-1's gpu0 at 40 %
// every 0.5 s, and 550 TRAIN steps of 0.9 s every second from the first sample's time.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace flame_test {

inline void write_low_gpu_folder(const std::filesystem::path& root) {
    const std::filesystem::path& dir_path = root;
    const std::filesystem::path sys = dir_path / "system" / "incremental" / "2020071317";
    std::filesystem::create_directories(sys);
    {
        std::ofstream out(sys / "1594662600.algo-1.json");
        for (int i = 0; i < 1100; ++i) {
            char ts[32];
            std::snprintf(ts, sizeof ts, "%.1f", 1594662600 + i * 0.5);
            out << "{\"Type\":\"gpu\",\"Name\":\"gpu0\",\"Dimension\":\"GPUUtilization\",\"Value\":40"
                << ",\"NodeId\":\"algo-1\",\"Timestamp\":" << ts << "}\n";
        }
    }
    const std::filesystem::path fw = dir_path / "framework" / "pevents" / "2020071317";
    std::filesystem::create_directories(fw);
    {
        std::ofstream out(fw / "1594663150000000_1-algo-1_pythontimeline.json");
        out << "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": "
               "{\"start_time_since_epoch_in_micros\": 1594662600000000}},\n"
               "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"Step:ModeKeys.TRAIN\"}}";
        for (int s = 0; s < 550; ++s)
            out << ",\n{\"name\": \"Step:ModeKeys.TRAIN\", \"pid\": 1, \"ph\": \"X\", \"ts\": " << s * 1000000LL
                << ", \"dur\": 900000, \"args\": {\"step_num\": \"" << s << "\"}}";
        out << "\n]";
    }
}

}  // namespace flame_test
