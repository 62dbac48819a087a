// A backend that holds the drainer inside its next snapshot until released: while it is held,
// nothing is drained and no segment is prepared ahead, whatever the machine's speed.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

#include "ringprof/backend.hpp"

namespace ringprof::testing {

class BlockingBackend : public Backend {
public:
    const char* name() const override { return "blocking"; }
    void on_snapshot(const Snapshot&) override {
        entered.store(true);
        while (!released.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    void wait_until_entered() const {
        while (!entered.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::atomic<bool> entered{false};
    std::atomic<bool> released{false};
};

}  // namespace ringprof::testing
