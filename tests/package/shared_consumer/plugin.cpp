#include <ringprof/ringprof.hpp>

__attribute__((visibility("default"))) void plugin_kernel() { PROF_SCOPE("plugin_kernel"); }
