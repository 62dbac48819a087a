// A loop of recorded empty scopes for callgrind (bench/check_instructions_per_scope.sh): the
// instructions counted inside record_scopes(), divided by the scopes it recorded, are what one
// PROF_SCOPE executes. Instruction counts do not depend on the machine's load, unlike times.
#include <cstdio>
#include <cstdlib>

#include "ringprof/ringprof.hpp"

// Batches fit the default ring (32K scopes) so the fast path never meets a full ring; the ring is
// drained between batches, outside the counted function.
constexpr int kBatch = 8192;
constexpr int kBatches = 8;

extern "C" __attribute__((noinline)) void record_scopes(int n) {
    for (int i = 0; i < n; ++i) {
        PROF_SCOPE("empty");
        asm volatile("" ::: "memory");  // the scope's body: nothing, but not merged away
    }
}

int main() {
    ringprof::Config c;
    c.output_dir = "./ringprof_callgrind_out";
    c.run_id = "scope_instruction_loop";
    c.backends = {"timers"};
    ringprof::Session session(c);
    { PROF_SCOPE("warm_up"); }  // the thread's first event registers its ring (slow path)
    session.snapshot();
    for (int b = 0; b < kBatches; ++b) {
        record_scopes(kBatch);
        session.snapshot();
    }
    const ringprof::Snapshot s = session.snapshot();
    const ringprof::TimerNode* empty = s.tree.root.find("empty");
    const unsigned long long recorded = empty != nullptr ? empty->count : 0;
    std::printf("scopes %d recorded %llu dropped %llu\n", kBatch * kBatches, recorded,
                static_cast<unsigned long long>(s.dropped));
    return recorded == static_cast<unsigned long long>(kBatch) * kBatches && s.dropped == 0 ? 0 : 1;
}
