#include "process/output_problems.hpp"

#include <algorithm>
#include <cstdio>

#include "ringprof/output_files.hpp"

namespace ringprof::detail {

std::string OutputProblems::folder_for(const std::string& folder) const {
    if (output_dir_.empty()) return folder;
    if (folder == output_dir_) return folder;
    if (folder.size() > output_dir_.size() && folder.compare(0, output_dir_.size(), output_dir_) == 0 &&
        folder[output_dir_.size()] == '/') {
        return output_dir_;
    }
    // A parent of the output folder (it could not be created): still the output folder's problem.
    if (output_dir_.size() > folder.size() && output_dir_.compare(0, folder.size(), folder) == 0 &&
        output_dir_[folder.size()] == '/') {
        return output_dir_;
    }
    return folder;
}

bool OutputProblems::report(const std::string& who, const char* stage, const std::exception& e) {
    std::string key;
    std::string line;
    if (dynamic_cast<const OutputRefused*>(&e) != nullptr) {
        // One line per refused name: each is something another user may have planted.
        key = std::string("refused\n") + e.what();
        line = std::string("ringprof: ") + e.what() + (who.empty() ? "" : " (" + who + " output not written)") +
               "; recording goes on and the other outputs are written";
    } else if (const auto* out = dynamic_cast<const OutputError*>(&e); out != nullptr && !out->folder().empty()) {
        const std::string folder = folder_for(out->folder());
        key = folder + '\n' + out->reason();
        line = "ringprof: output folder '" + folder + "': " + out->reason() + " (" + e.what() +
               (who.empty() ? "" : ", " + who) + "); recording goes on and the data collected so far is kept";
    } else {
        key = who + '\n' + stage + '\n' + e.what();
        line = "ringprof: backend " + who + " (" + stage + "): " + e.what() + "; the data collected so far is kept";
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(seen_.begin(), seen_.end(), key) != seen_.end()) return false;
    seen_.push_back(std::move(key));
    std::fprintf(stderr, "%s\n", line.c_str());
    return true;
}

}  // namespace ringprof::detail
