#include "process/streamed_file.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

namespace ringprof::detail {

namespace {
// Names tried for a file given up, before its temporary name is kept instead.
constexpr unsigned kIncompleteNames = 16;
}  // namespace

void StreamedFile::open(OutputFolder folder, const std::string& name, const std::string& temp_name) {
    folder_ = std::move(folder);
    name_ = name;
    refuse_unless_file_or_free(folder_, name_);
    const int fd = create_new_file(folder_, temp_name, &temp_name_);
    file_.adopt(fd, folder_.path_of(temp_name_));
    pending_.clear();
    failing_errno_ = 0;
    problem_said_ = false;
}

void StreamedFile::append(std::string_view data) {
    if (!file_.is_open()) return;
    int err = 0;
    if (!pending_.empty()) {
        pending_.erase(0, file_.write_some(pending_, &err));
        if (!pending_.empty()) {
            failing_errno_ = err;
            if (pending_.size() + data.size() > kMaxPendingBytes) give_up(err);
            pending_.append(data);
            return;
        }
        failing_errno_ = 0;
        problem_said_ = false;
    }
    if (data.empty()) return;
    const std::size_t written = file_.write_some(data, &err);
    if (written == data.size()) return;
    failing_errno_ = err;
    if (data.size() - written > kMaxPendingBytes) give_up(err);
    pending_.assign(data.substr(written));
}

void StreamedFile::throw_new_problem() {
    if (pending_.empty() || failing_errno_ == 0 || problem_said_ || !file_.is_open()) return;
    problem_said_ = true;
    OutputError e = output_error("cannot write", temp_path(), failing_errno_);
    throw OutputError(std::string(e.what()) + " (what it did not take is kept in memory and written when it does; '" +
                          final_path() + "' appears only when complete)",
                      e.folder(), e.reason());
}

bool StreamedFile::close_complete() {
    if (!file_.is_open()) return false;
    retry();
    if (!pending_.empty()) give_up(failing_errno_);
    try {
        file_.close();
    } catch (const OutputError&) {
        give_up(EIO);
    }
    return true;
}

void StreamedFile::finish() {
    if (close_complete()) replace_file(folder_, temp_name_, folder_, name_);
}

void StreamedFile::give_up(int err) {
    try {
        file_.close();
    } catch (const OutputError&) {
        // Given up anyway.
    }
    pending_.clear();
    std::string kept = temp_path();
    for (unsigned n = 0; n < kIncompleteNames; ++n) {
        const std::string candidate = name_ + (n == 0 ? "" : "." + std::to_string(n)) + ".incomplete";
        try {
            if (rename_if_free(folder_, temp_name_, folder_, candidate)) {
                kept = folder_.path_of(candidate);
                break;
            }
        } catch (const OutputError&) {
            break;  // it keeps its temporary name, which no reader takes for finished either
        }
    }
    // No folder: this message names its own file, so it is never merged with an earlier report
    // of the same cause.
    throw OutputError("'" + final_path() + "' cannot be completed (" + std::strerror(err != 0 ? err : EIO) +
                      "): what was written is kept as '" + kept + "', never under the final name");
}

}  // namespace ringprof::detail
