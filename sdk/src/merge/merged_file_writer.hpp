// Writes the merged file: events in the order given, pids chosen per phase name by smdebug's
// ranges, a tid per thread track, and the process/thread metadata events just before the first
// event that needs them. The file appears only when complete (an AtomicFile).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "merge/background_writer.hpp"
#include "merge/record_store.hpp"
#include "merge/text_buffer.hpp"
#include "ringprof/output_files.hpp"

namespace ringprof::detail {

class MergedFileWriter {
public:
    // Throws OutputError naming the path when the file cannot be created; destroyed before
    // finish() succeeded, it leaves nothing behind.
    explicit MergedFileWriter(std::string final_path);
    MergedFileWriter(const MergedFileWriter&) = delete;
    MergedFileWriter& operator=(const MergedFileWriter&) = delete;

    // phase/thread are ids into the tables; labels are looked up on first use.
    void write(const StoredEvent& e, const std::vector<std::string>& phase_names,
               const std::vector<std::string>& thread_labels);
    void finish();  // "[]" when nothing was written

    std::uint64_t events() const { return events_; }
    std::uint64_t metadata() const { return metadata_; }

private:
    static constexpr std::size_t kFlushBytes = 1 << 20;
    void line_start();
    void append_int(std::int64_t v);
    void append_string(std::string_view s);  // as a JSON string, ASCII only
    void drain(bool all);
    std::size_t write_ts(char* out, std::int64_t v);  // as write_decimal

    AtomicFile file_;
    BackgroundWriter writer_{file_};  // after file_: stopped before the file is dropped
    TextBuffer out_;
    std::string scratch_;
    std::vector<std::int64_t> pid_of_phase_;   // -1 until first seen
    std::vector<std::int64_t> tid_of_thread_;  // 0 until first seen
    std::vector<std::string> middle_of_thread_;  // the text from the name's end to ts, per track
    std::int64_t next_tid_ = 1;
    std::int64_t next_in_range_[11];
    std::int64_t ts_high_ = -1;  // v / 10^8 of the last ts above 10^8, and its text
    char ts_high_text_[24];
    std::size_t ts_high_size_ = 0;
    bool first_line_ = true;
    std::uint64_t events_ = 0, metadata_ = 0;
};

}  // namespace ringprof::detail
