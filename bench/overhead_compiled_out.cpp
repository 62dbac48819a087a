// The same marker as BM_ProfScope, with ringprof compiled out: what is left is the call.
#define RINGPROF_ENABLED 0
#include "overhead_compiled_out.hpp"

#include "ringprof/ringprof.hpp"

void bench_compiled_out_scope() { PROF_SCOPE("bench_scope_compiled_out"); }
