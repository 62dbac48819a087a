#pragma once
// Defined in a translation unit compiled with RINGPROF_ENABLED=0.
void bench_compiled_out_scope();
