// A plugin that records scopes, a gauge and a signature scope whose sites (and every string they
// name) live in the plugin itself: after dlclose they are unmapped. Built twice with another
// PLUGIN_TAG, so that two plugins of the same layout, loaded one after the other, tend to be
// mapped at the same address with different names at the same offsets.
#include <thread>
#include <vector>

#include "ringprof/markers.hpp"
#include "ringprof/signature.hpp"

#ifndef PLUGIN_TAG
#error "PLUGIN_TAG names the plugin's scopes"
#endif
#define PLUGIN_CAT_(a, b) a##b
#define PLUGIN_CAT(a, b) PLUGIN_CAT_(a, b)
#define PLUGIN_STR_(x) #x
#define PLUGIN_STR(x) PLUGIN_STR_(x)
#define PLUGIN_NAME(suffix) "plugin_" PLUGIN_STR(PLUGIN_TAG) "_" suffix

namespace {

void PLUGIN_CAT(signature_of_plugin_, PLUGIN_TAG)(const std::vector<float>& v) { PROF_FUNCTION_SIG(v); }

void record(int n) {
    const std::vector<float> v(4);
    for (int i = 0; i < n; ++i) {
        PROF_SCOPE(PLUGIN_NAME("outer"));
        {
            PROF_SCOPE(PLUGIN_NAME("inner"));
            PROF_GAUGE(PLUGIN_NAME("gauge"), i);
        }
        PLUGIN_CAT(signature_of_plugin_, PLUGIN_TAG)(v);
    }
}

}  // namespace

// `n` iterations on the calling thread and `n` on a thread of the plugin's own, which exits.
extern "C" __attribute__((visibility("default"))) void plugin_record(int n) {
    std::thread t([n] { record(n); });
    record(n);
    t.join();
}
