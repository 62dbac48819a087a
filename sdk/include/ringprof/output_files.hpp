// Writing output files safely: a file is written under a temporary name and renamed, so a
// reader never sees half a file and a failed write (full disk) leaves the previous one intact.
// Errors throw OutputError with a message naming the path and the problem.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace ringprof {

class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Creates `dir` and its parents if missing, and checks that files can be created in it.
void ensure_output_dir(const std::string& dir);

// Replaces `path` with `content` atomically (write "<path>.tmp", flush, rename).
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace ringprof
