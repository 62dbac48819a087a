// Gzip in the tests, read back the way a consumer reads it: the text, whether the stream ended
// (its CRC checked), and what follows its end; and a file written as a producer writes one.
// Written once for every test area.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "temp_dir.hpp"

namespace ringprof::testing {

struct Inflated {
    std::string text;          // what the stream holds, up to a cut if it was cut short
    bool ended = false;        // the stream's end and its CRC were read
    std::size_t trailing = 0;  // bytes after the stream's end
    bool whole() const { return ended && trailing == 0; }
};

inline Inflated inflate_gzip(std::string_view data) {
    Inflated out;
    z_stream z{};
    if (inflateInit2(&z, 15 + 16) != Z_OK) return out;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.text.append(buf, sizeof buf - z.avail_out);
        if (z.avail_in == 0 && z.avail_out != 0 && rc == Z_OK) break;  // cut short: nothing more to read
    }
    out.ended = rc == Z_STREAM_END;
    out.trailing = z.avail_in;
    inflateEnd(&z);
    return out;
}

// The text of the gzip file at `path`; what precedes a cut if it was cut short.
inline std::string gunzip_file(const std::filesystem::path& path) { return inflate_gzip(read_text(path)).text; }

// Writes `text` gzipped to `path`; false if it could not be written whole.
inline bool write_gzip_file(const std::filesystem::path& path, std::string_view text) {
    gzFile f = gzopen(path.c_str(), "wb");
    if (f == nullptr) return false;
    const bool whole = gzwrite(f, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size());
    return gzclose(f) == Z_OK && whole;
}

}  // namespace ringprof::testing
