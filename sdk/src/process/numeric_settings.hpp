// The accepted range of every numeric RINGPROF_* setting, in one table: Config::from_environment
// reads each setting with its row, and the tests check each row at its bounds and against the
// README's settings table. A value outside its row is refused with a message and the default kept.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace ringprof::detail {

struct NumericSetting {
    const char* name;
    std::uint64_t min, max;
};

// The largest ring: the setting's bound here, and the clamp of the engine's ring sizes.
inline constexpr std::uint64_t kMaxRingBytes = std::uint64_t{1} << 30;

// 64 events: less cannot hold one deep stack.
inline constexpr NumericSetting kRingBytesSetting{"RINGPROF_RING_BYTES", 1024, kMaxRingBytes};
inline constexpr NumericSetting kFlushIntervalSetting{"RINGPROF_FLUSH_INTERVAL_MS", 0, 86400000};     // a day
inline constexpr NumericSetting kTimelineMinNsSetting{"RINGPROF_TIMELINE_MIN_NS", 0, 3600000000000};  // an hour
inline constexpr NumericSetting kTimelineMaxDepthSetting{"RINGPROF_TIMELINE_MAX_DEPTH", 0, 1000000};
// At most about 3 GiB at 48 bytes a span.
inline constexpr NumericSetting kTimelineQueueSpansSetting{"RINGPROF_TIMELINE_QUEUE_SPANS", 16, std::uint64_t{1} << 26};
// A pythontimeline file of less than 64 KiB holds a few hundred spans: smaller limits only
// multiply files (0 once wrote 107,037 files in 0.3 s).
inline constexpr NumericSetting kPythonTimelineBytesSetting{"RINGPROF_PYTHONTIMELINE_MAX_BYTES",
                                                            std::uint64_t{64} << 10, std::uint64_t{1} << 40};
inline constexpr NumericSetting kPythonTimelineSecondsSetting{"RINGPROF_PYTHONTIMELINE_MAX_SECONDS", 0,
                                                              604800};  // a week; 0: no age limit

// SageMaker's own range for its system-metrics interval.
inline constexpr NumericSetting kSystemIntervalSetting{"RINGPROF_SYSTEM_INTERVAL_MS", 100, 60000};
inline constexpr NumericSetting kNodeRankSetting{"RINGPROF_NODE_RANK", 0, 1000000};
inline constexpr NumericSetting kDrainersSetting{"RINGPROF_DRAINERS", 0, 64};

inline constexpr std::array<NumericSetting, 10> kNumericSettings = {
    kRingBytesSetting,          kFlushIntervalSetting,       kTimelineMinNsSetting,         kTimelineMaxDepthSetting,
    kTimelineQueueSpansSetting, kPythonTimelineBytesSetting, kPythonTimelineSecondsSetting, kSystemIntervalSetting,
    kNodeRankSetting,           kDrainersSetting,
};

}  // namespace ringprof::detail
