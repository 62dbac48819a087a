// Gauges: a value to watch (loss, queue length), kept as ML-Agents keeps them — the latest
// value, its min and max, and how many times it was set. NaN is ignored.
#pragma once

#include "ringprof/detail/recorder.hpp"

#if RINGPROF_ENABLED
// `name` must be a string literal; `value` is converted to double.
#define PROF_GAUGE(name, value)                                                                  \
    do {                                                                                         \
        static constexpr ::ringprof::Site ringprof_gauge_site{name, __func__, __FILE__, __LINE__}; \
        ::ringprof::detail::Event ringprof_gauge_events[2] = {                                   \
            {0, ::ringprof::detail::make_tag(&ringprof_gauge_site, ::ringprof::detail::EventKind::Gauge)}, \
            {::ringprof::detail::bits_of(static_cast<double>(value)), 0}};                       \
        ::ringprof::detail::write_record(ringprof_gauge_events, 2);                              \
    } while (false)
#else
#define PROF_GAUGE(name, value) static_cast<void>(0)
#endif
