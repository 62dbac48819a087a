// Holds every ringprof thread at its first line (GatedThread's test edge) until released, so a
// test can put events before the drainer's first work (its claim of the run id, the signal thread)
// whatever the machine's load.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

#include "process/fork_gate.hpp"

namespace ringprof::testing {

class HeldRingprofThreads {
public:
    HeldRingprofThreads() {
        held() = true;
        detail::set_gated_thread_edges_for_testing(wait_while_held);
    }
    ~HeldRingprofThreads() {
        release();
        detail::set_gated_thread_edges_for_testing(nullptr);
    }
    HeldRingprofThreads(const HeldRingprofThreads&) = delete;
    HeldRingprofThreads& operator=(const HeldRingprofThreads&) = delete;

    void release() { held() = false; }

private:
    static std::atomic<bool>& held() {
        static std::atomic<bool> flag{false};
        return flag;
    }
    static void wait_while_held() {
        while (held()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
};

}  // namespace ringprof::testing
