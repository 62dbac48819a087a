// Feeds arbitrary bytes to the trace readers, plain and through the gzip decoder. Any outcome is
// fine except a crash, a hang or a sanitizer report: bad input must become an InputError.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trace/byte_source.hpp"
#include "trace/trace_reader.hpp"

namespace {

class CountingSink final : public ringprof::detail::EventSink {
public:
    std::size_t bytes = 0;
    void on_event(const ringprof::detail::ReadEvent& e) override {
        bytes += e.name.size() + e.phase.size() + e.thread_label.size() + e.args_json.size();
    }
};

void read(std::unique_ptr<ringprof::detail::ByteSource> src, bool with_base) {
    ringprof::detail::ReaderSetup setup;
    setup.node_id = "fuzz";
    setup.has_base = with_base;
    setup.base = ringprof::detail::TraceNumber::integer(1000);
    setup.chunk_bytes = 64;  // many refills: elements and escapes straddle chunk boundaries
    CountingSink sink;
    try {
        ringprof::detail::read_trace_events(*src, setup, sink);
    } catch (const ringprof::detail::InputError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    // The first byte picks the path so one corpus covers both readers.
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    if (data[0] & 1) {
        read(ringprof::detail::gzip_source(ringprof::detail::memory_source(bytes)), data[0] & 2);
    } else {
        read(ringprof::detail::memory_source(bytes), data[0] & 2);
    }
    return 0;
}
