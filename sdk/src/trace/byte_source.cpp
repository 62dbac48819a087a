#include "trace/byte_source.hpp"

#include <cerrno>
#include <cstdint>
#include <string>
#include <cstring>
#include <vector>

#include <zlib.h>

namespace ringprof::detail {

namespace {

class FileSource final : public ByteSource {
public:
    explicit FileSource(std::FILE* f) : f_(f) {}
    ~FileSource() override { std::fclose(f_); }
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;

    std::size_t read(char* dst, std::size_t cap) override {
        const std::size_t n = std::fread(dst, 1, cap, f_);
        if (n == 0 && std::ferror(f_)) throw InputError(std::string("read failed: ") + std::strerror(errno));
        return n;
    }

private:
    std::FILE* f_;
};

class MemorySource final : public ByteSource {
public:
    explicit MemorySource(std::string_view b) : rest_(b) {}
    std::size_t read(char* dst, std::size_t cap) override {
        const std::size_t n = std::min(cap, rest_.size());
        std::memcpy(dst, rest_.data(), n);
        rest_.remove_prefix(n);
        return n;
    }

private:
    std::string_view rest_;
};

class GzipSource final : public ByteSource {
public:
    explicit GzipSource(std::unique_ptr<ByteSource> in) : in_(std::move(in)), buf_(1 << 16) {
        std::memset(&z_, 0, sizeof z_);
        if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) throw InputError("cannot start gzip decoder");
    }
    ~GzipSource() override { inflateEnd(&z_); }
    GzipSource(const GzipSource&) = delete;
    GzipSource& operator=(const GzipSource&) = delete;

    std::size_t read(char* dst, std::size_t cap) override {
        z_.next_out = reinterpret_cast<Bytef*>(dst);
        z_.avail_out = static_cast<uInt>(std::min<std::size_t>(cap, 1u << 30));
        while (z_.avail_out > 0) {
            if (z_.avail_in == 0 && !in_eof_) {
                const std::size_t n = in_->read(buf_.data(), buf_.size());
                if (n == 0) in_eof_ = true;
                compressed_ += n;
                z_.next_in = reinterpret_cast<Bytef*>(buf_.data());
                z_.avail_in = static_cast<uInt>(n);
            }
            if (member_done_) {
                if (z_.avail_in == 0 && in_eof_) break;  // clean end after a complete member
                if (z_.avail_in == 0) continue;
                inflateReset(&z_);  // another gzip member follows
                member_done_ = false;
            }
            const int rc = inflate(&z_, Z_NO_FLUSH);
            if (rc == Z_STREAM_END) {
                member_done_ = true;
                continue;
            }
            if (rc == Z_BUF_ERROR || (rc == Z_OK && z_.avail_in == 0 && in_eof_)) {
                if (in_eof_ && z_.avail_in == 0) throw InputError("truncated gzip stream (compressed data ends early)");
                continue;
            }
            if (rc != Z_OK) {
                throw InputError(std::string("corrupt gzip stream: ") + (z_.msg ? z_.msg : "inflate error"));
            }
        }
        const std::size_t produced = static_cast<std::size_t>(reinterpret_cast<char*>(z_.next_out) - dst);
        if (produced == 0 && !member_done_) throw InputError("truncated gzip stream (no data)");
        inflated_ += produced;
        if (inflated_ > kGzipRatioCheckedFrom && inflated_ / kMaxGzipRatio > compressed_) {
            throw InputError("gzip data inflates to over " + std::to_string(kMaxGzipRatio) +
                             " times its compressed size (" + std::to_string(inflated_ >> 20) + " MiB from " +
                             std::to_string(compressed_ >> 10) +
                             " KiB so far), past the limit no trace reaches: "
                             "a gzip bomb, read no further");
        }
        return produced;
    }

private:
    std::unique_ptr<ByteSource> in_;
    std::vector<char> buf_;
    z_stream z_;
    bool in_eof_ = false;
    bool member_done_ = false;
    std::uint64_t compressed_ = 0;  // bytes taken from `in_`
    std::uint64_t inflated_ = 0;    // bytes handed out
};

}  // namespace

std::unique_ptr<ByteSource> open_file_source(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw InputError(std::string("cannot open: ") + std::strerror(errno));
    return std::make_unique<FileSource>(f);
}

std::unique_ptr<ByteSource> open_trace_file(const std::string& path) {
    unsigned char magic[2] = {0, 0};
    {
        std::FILE* f = std::fopen(path.c_str(), "rb");
        if (!f) throw InputError(std::string("cannot open the file: ") + std::strerror(errno));
        const std::size_t n = std::fread(magic, 1, 2, f);
        const bool failed = n < 2 && std::ferror(f);
        const int err = errno;
        std::fclose(f);
        if (failed) throw InputError(std::string("cannot read the file: ") + std::strerror(err));
    }
    auto raw = open_file_source(path);
    if (magic[0] == 0x1f && magic[1] == 0x8b) return gzip_source(std::move(raw));
    return raw;
}

std::unique_ptr<ByteSource> memory_source(std::string_view bytes) { return std::make_unique<MemorySource>(bytes); }

std::unique_ptr<ByteSource> gzip_source(std::unique_ptr<ByteSource> compressed) {
    return std::make_unique<GzipSource>(std::move(compressed));
}

}  // namespace ringprof::detail
