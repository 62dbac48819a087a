// N recorded empty PROF_SCOPEs in a row, for instructions_per_scope.sh: callgrind counts only
// run_scopes(), and the difference between two N is the marginal cost of one scope (loop
// included), free of the session's start-up and the drainer's work.
#include <cstdio>
#include <cstdlib>

#include "ringprof/ringprof.hpp"

__attribute__((noinline)) void run_scopes(int n) {
    for (int i = 0; i < n; ++i) {
        PROF_SCOPE("scope_loop");
        asm volatile("" ::: "memory");  // an empty body the compiler cannot merge scopes across
    }
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 10000;
    ringprof::Config c;
    c.output_dir = argc > 2 ? argv[2] : "./ringprof_scope_loop_out";
    c.run_id = "scope_loop";
    c.backends = {"timers"};
    ringprof::Session session(c);
    ringprof::enable();
    run_scopes(16);  // the thread's first events register its ring: not what is measured
    run_scopes(n);
    const unsigned long long dropped = ringprof::dropped_scopes();
    if (dropped != 0) {
        std::fprintf(stderr, "scope_loop: %llu scopes dropped: the count would not be of recorded scopes\n", dropped);
        return 1;
    }
    return 0;
}
