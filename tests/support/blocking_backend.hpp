// Backends that hold the drainer inside a snapshot: BlockingBackend in its next one until released
// (while it is held, nothing is drained and no segment is prepared ahead, whatever the machine's
// speed); HoldsTheFinalSnapshot in the session's last one while a flag says so, which is what an end
// that gives up on its drainer meets.
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

// The flag outlives the backend: an end that gave up leaves the drainer, and the backend, running.
class HoldsTheFinalSnapshot : public Backend {
public:
    explicit HoldsTheFinalSnapshot(const std::atomic<bool>& hold) : hold_(hold) {}
    const char* name() const override { return "blocks_in_the_final_snapshot"; }
    void on_snapshot(const Snapshot& s) override {
        while (s.final && hold_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }

private:
    const std::atomic<bool>& hold_;
};

}  // namespace ringprof::testing
