// Every ringprof marker, enabled and disabled, in one place: the header to include where you
// only mark code.
//
//     #include <ringprof/markers.hpp>
//     void train_step(int step) {
//         PROF_STEP(step);                 // training step `step` until the end of the block
//         PROF_FUNCTION();                 // a timer named "train_step"
//         { PROF_SCOPE("env_step"); ... }  // nested under it
//         PROF_GAUGE("loss", loss);
//     }
//
// It brings the hot path (detail/recorder.hpp) and nothing of the statistics, signatures, flame
// graphs, merging or backends. <ringprof/ringprof.hpp> includes it along with the rest of the API.
// PROF_FUNCTION_SIG is defined here too, but its expansion needs the argument-type templates of
// <ringprof/signature.hpp> (included by ringprof.hpp): include that where you use it.
//
// Compile with -DRINGPROF_ENABLED=0 to remove every marker: nothing is recorded and no argument
// is evaluated.
#pragma once

// The one default of the compile-out switch.
#ifndef RINGPROF_ENABLED
#define RINGPROF_ENABLED 1
#endif

#include <cstdint>

#include "ringprof/detail/recorder.hpp"
#include "ringprof/site.hpp"
#include "ringprof/steps.hpp"

namespace ringprof::detail {
// Never called: PROF_FUNCTION_SIG compiled out names its arguments here, unevaluated.
template <class... A>
char ignore_arguments(const A&...) noexcept;
}  // namespace ringprof::detail

#define RINGPROF_CAT_(a, b) a##b
#define RINGPROF_CAT(a, b) RINGPROF_CAT_(a, b)
#define RINGPROF_UNIQUE(prefix) RINGPROF_CAT(prefix, __LINE__)
#define RINGPROF_STEP_CAT_(a, b) a##b
#define RINGPROF_STEP_VAR_(line) RINGPROF_STEP_CAT_(ringprof_step_, line)
#define RINGPROF_SIG_CAT_(a, b) a##b
#define RINGPROF_SIG_CAT(a, b) RINGPROF_SIG_CAT_(a, b)
#define RINGPROF_SIG_LIST_(...) decltype(::ringprof::detail::signature_of(__VA_ARGS__))

#if RINGPROF_ENABLED

namespace ringprof::detail {
// A module's markers point their events at Sites in that module. Before it is unloaded, the
// drainer reads its events still in the rings and copies their sites (sdk/src/drain/
// module_unload.cpp). Hence one ModuleWatch per module that holds markers: hidden, so each shared
// object has its own; inline and kept, so it is one per module, not one per file. Its destructor
// runs at dlclose (or at exit), before the module's memory goes.
RINGPROF_HOT_PATH_GLOBAL void module_unloading(const void* address_in_module) noexcept;
struct ModuleWatch {
    ~ModuleWatch() { module_unloading(this); }
};
__attribute__((visibility("hidden"), used)) inline ModuleWatch g_module_watch;
}  // namespace ringprof::detail

#define RINGPROF_SITE_(var, name_expr) \
    static constexpr ::ringprof::Site var { name_expr, __func__, __FILE__, __LINE__ }

// A timer covering the rest of the enclosing block. `name` must be a string literal.
#define PROF_SCOPE(name)                                   \
    RINGPROF_SITE_(RINGPROF_UNIQUE(ringprof_site_), name); \
    ::ringprof::detail::Scope RINGPROF_UNIQUE(ringprof_scope_) { &RINGPROF_UNIQUE(ringprof_site_) }

// A timer named after the enclosing function.
#define PROF_FUNCTION()                                        \
    RINGPROF_SITE_(RINGPROF_UNIQUE(ringprof_site_), __func__); \
    ::ringprof::detail::Scope RINGPROF_UNIQUE(ringprof_scope_) { &RINGPROF_UNIQUE(ringprof_site_) }

// Gauges: a value to watch (loss, queue length), kept as ML-Agents keeps them — the latest
// value, its min and max, and how many times it was set. NaN is ignored.
// `name` must be a string literal; `value` is converted to double.
#define PROF_GAUGE(name, value)                                                                            \
    do {                                                                                                   \
        static constexpr ::ringprof::Site ringprof_gauge_site{name, __func__, __FILE__, __LINE__};         \
        ::ringprof::detail::Event ringprof_gauge_events[2] = {                                             \
            {0, ::ringprof::detail::make_tag(&ringprof_gauge_site, ::ringprof::detail::EventKind::Gauge)}, \
            {::ringprof::detail::bits_of(static_cast<double>(value)), 0}};                                 \
        ::ringprof::detail::write_record(ringprof_gauge_events, 2);                                        \
    } while (false)

// Step `n` in `mode` (a ringprof::StepMode) from here to the end of the enclosing block
// (ringprof/steps.hpp says what a step is).
#define PROF_STEP_MODE(n, mode) \
    ::ringprof::detail::StepScope RINGPROF_STEP_VAR_(__LINE__) { static_cast<std::int64_t>(n), (mode) }
// Training step `n` (mode TRAIN) from here to the end of the enclosing block.
#define PROF_STEP(n) PROF_STEP_MODE(n, ::ringprof::StepMode::Train)

// A timer named after the enclosing function, one statistics row per distinct signature of the
// arguments given (each an expression; its text names it in the signature). Needs
// <ringprof/signature.hpp>.
#define PROF_FUNCTION_SIG(...)                                                                                      \
    static constexpr ::ringprof::detail::SignatureSite RINGPROF_SIG_CAT(ringprof_sig_site_, __LINE__){              \
        {__func__, __func__, __FILE__, __LINE__},                                                                   \
        #__VA_ARGS__,                                                                                               \
        RINGPROF_SIG_LIST_(__VA_ARGS__)::kTypes,                                                                    \
        RINGPROF_SIG_LIST_(__VA_ARGS__)::kCount,                                                                    \
        RINGPROF_SIG_LIST_(__VA_ARGS__)::kPayloadEvents};                                                           \
    const ::ringprof::detail::SignatureScope<RINGPROF_SIG_LIST_(__VA_ARGS__)> RINGPROF_SIG_CAT(ringprof_sig_scope_, \
                                                                                               __LINE__) {          \
        &RINGPROF_SIG_CAT(ringprof_sig_site_, __LINE__), __VA_ARGS__                                                \
    }

#else

// Compiled out. Arguments stay "used" through sizeof (no unused warnings) and are never
// evaluated.
#define PROF_SCOPE(name) static_cast<void>(0)
#define PROF_FUNCTION() static_cast<void>(0)
#define PROF_GAUGE(name, value) static_cast<void>(0)
#define PROF_STEP_MODE(n, mode) static_cast<void>(sizeof(n) + sizeof(mode))
#define PROF_STEP(n) static_cast<void>(sizeof(n))
#define PROF_FUNCTION_SIG(...) static_cast<void>(sizeof(::ringprof::detail::ignore_arguments(__VA_ARGS__)))

#endif
