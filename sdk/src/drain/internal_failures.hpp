// A failure inside ringprof's own threads (an allocation that fails under a memory limit, an
// exception out of a pass) must never end the program: it is caught where the work it spoils is
// known, that work is given up (the pass's spans, one command, one snapshot), counted here, and
// said once on stderr per kind of work. The count reaches every snapshot as the metadata entry
// "profiler_failures", so a reader knows the numbers are short.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>

namespace ringprof::detail {

// One kind of work that can fail: said on stderr the first time only.
struct FailingWork {
    const char* name;  // "a drainer pass", "the timeline writer", ...
    std::atomic<bool> said{false};
};

// Counts one failure of `work`; `e` is the exception caught, or null for one of unknown type.
void note_internal_failure(FailingWork& work, const std::exception* e) noexcept;

// Failures so far in this process.
std::uint64_t internal_failures() noexcept;

// Runs `fn`, catching anything it throws as a failure of `work`; false if it threw.
template <typename Fn>
bool survive(FailingWork& work, Fn&& fn) noexcept {
    try {
        fn();
        return true;
    } catch (const std::exception& e) {
        note_internal_failure(work, &e);
    } catch (...) {
        note_internal_failure(work, nullptr);
    }
    return false;
}

}  // namespace ringprof::detail
