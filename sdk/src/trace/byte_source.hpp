// Where trace bytes come from: a plain file, a gzip stream over another source, or memory (tests,
// fuzzing). Reading in chunks is what keeps memory bounded for inputs of any size.
#pragma once

#include <cstddef>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ringprof::detail {

// A read failure; the message names the problem, the caller adds the file name.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The input is not an event list at all (neither a JSON array nor an object with "traceEvents"),
// as opposed to a trace that is broken: a reader of several formats can then try another.
class NotATraceError : public InputError {
public:
    using InputError::InputError;
};

class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Fills up to `cap` bytes; returns 0 only at the end of the data. Throws InputError.
    virtual std::size_t read(char* dst, std::size_t cap) = 0;
};

std::unique_ptr<ByteSource> open_file_source(const std::string& path);  // throws InputError
std::unique_ptr<ByteSource> memory_source(std::string_view bytes);      // bytes must outlive it
// Inflates gzip (several members allowed, as Python's gzip reads them). Gzip data that inflates
// to more than kMaxGzipRatio times its compressed size, once past kGzipRatioCheckedFrom bytes,
// is refused as it is read (InputError): a gzip bomb, not a trace (Chrome traces inflate about
// 25 times; deflate's own maximum is about 1,000).
inline constexpr std::size_t kMaxGzipRatio = 200;
inline constexpr std::size_t kGzipRatioCheckedFrom = std::size_t{64} << 20;
std::unique_ptr<ByteSource> gzip_source(std::unique_ptr<ByteSource> compressed);
// A file, inflated when it starts with gzip's magic bytes, whatever its name.
std::unique_ptr<ByteSource> open_trace_file(const std::string& path);

}  // namespace ringprof::detail
