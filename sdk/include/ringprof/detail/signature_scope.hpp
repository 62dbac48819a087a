// The hot path of PROF_FUNCTION_SIG: one record of a SigBegin plus the arguments' runtime
// extents (sizes, ranks), closed by an ordinary End. The types were described at compile time;
// nothing here allocates, locks or calls the system.
#pragma once

#include <atomic>
#include <cstdint>

#include "ringprof/detail/event.hpp"
#include "ringprof/detail/recorder.hpp"
#include "ringprof/detail/signature_codec.hpp"
#include "ringprof/detail/signature_site.hpp"

namespace ringprof::detail {

// Off: signature markers record plain scopes, one row per function (Profile's `signatures`).
extern RINGPROF_HOT_PATH_GLOBAL std::atomic<bool> g_record_signatures;  // hot_path_globals.cpp

template <class List>
class SignatureScope {
public:
    template <class... A>
    SignatureScope(const SignatureSite* s, const A&... args) noexcept {
        if (is_off()) return;  // before the arguments are read: a disabled marker stays cheap
        const std::uint64_t end_tag = make_tag(&s->site, EventKind::End);
        if (__builtin_expect(g_record_signatures.load(std::memory_order_relaxed), 1)) {
            Event events[1 + List::kPayloadEvents] = {};
            events[0].tag = make_tag(&s->site, EventKind::SigBegin);
            List::write(events + 1, args...);
            scope_.open(events, 1 + List::kPayloadEvents, end_tag);
        } else {
            Event begin{0, make_tag(&s->site, EventKind::Begin)};
            scope_.open(&begin, 1, end_tag);
        }
    }
    SignatureScope(const SignatureScope&) = delete;
    SignatureScope& operator=(const SignatureScope&) = delete;

private:
    RecordScope scope_;
};

}  // namespace ringprof::detail
