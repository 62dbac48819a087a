// Loads plugins that record, unloads them, records on, flushes and exits: the scenario of
// tests/life/plugin_unload_test.cpp, built against the static library (the plugins bind to the
// program's symbols) and against libringprof.so. Usage: unload_host PLUGIN_A PLUGIN_B.
// Exit 0; 2-4: a plugin did not load, did not unload, or stayed mapped.
#include <dlfcn.h>

#include <cstdio>

#include "ringprof/ringprof.hpp"

namespace {

int load_record_unload(const char* path, int n) {
    void* plugin = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (plugin == nullptr) {
        std::fprintf(stderr, "unload_host: %s\n", ::dlerror());
        return 2;
    }
    auto* record = reinterpret_cast<void (*)(int)>(::dlsym(plugin, "plugin_record"));
    if (record == nullptr) return 2;
    record(n);
    if (::dlclose(plugin) != 0) return 3;
    if (::dlopen(path, RTLD_NOW | RTLD_NOLOAD) != nullptr) {
        std::fprintf(stderr, "unload_host: %s is still mapped after dlclose\n", path);
        return 4;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return 1;
    { PROF_SCOPE("host_start"); }
    if (const int rc = load_record_unload(argv[1], 1000)) return rc;
    for (int i = 0; i < 1000; ++i) {
        PROF_SCOPE("host_after_unload");
    }
    ringprof::flush();
    if (const int rc = load_record_unload(argv[2], 700)) return rc;
    ringprof::flush();
    if (const int rc = load_record_unload(argv[1], 500)) return rc;
    for (int i = 0; i < 1000; ++i) {
        PROF_SCOPE("host_after_unload");
    }
    return 0;
}
