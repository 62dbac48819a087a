// A stand-in for NVIDIA's libnvidia-ml.so.1 with the few entry points ringprof calls and their
// C ABI, so the sampler's GPU rows are tested on machines without a GPU. What it answers is set
// through the environment, read at every call:
//   FAKE_NVML_INIT_FAILS=1   nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED (9)
//   FAKE_NVML_DEVICES=N      N devices (default 2); device i is (10 * (i + 1)) % busy and has
//                            (25 * (i + 1)) % of its 16 GiB in use
//   FAKE_NVML_LOST=I         device I answers NVML_ERROR_GPU_IS_LOST (15) from now on
#include <cstdlib>
#include <cstring>

namespace {
int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}
struct Device {
    int index;
};
Device g_devices[64];
}  // namespace

extern "C" {

struct FakeUtilization {
    unsigned int gpu;
    unsigned int memory;
};
struct FakeMemory {
    unsigned long long total, free, used;
};

__attribute__((visibility("default"))) int nvmlInit_v2() { return env_int("FAKE_NVML_INIT_FAILS", 0) != 0 ? 9 : 0; }
__attribute__((visibility("default"))) int nvmlShutdown() { return 0; }
__attribute__((visibility("default"))) const char* nvmlErrorString(int code) {
    switch (code) {
        case 9:
            return "Driver Not Loaded";
        case 15:
            return "GPU is lost";
        default:
            return "Unknown Error";
    }
}
__attribute__((visibility("default"))) int nvmlDeviceGetCount_v2(unsigned int* count) {
    *count = static_cast<unsigned int>(env_int("FAKE_NVML_DEVICES", 2));
    return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
    if (index >= 64) return 2;  // NVML_ERROR_INVALID_ARGUMENT
    g_devices[index].index = static_cast<int>(index);
    *device = &g_devices[index];
    return 0;
}
// Out-structs as plain pointers, as the sampler declares them (nvml_gpus.cpp).
__attribute__((visibility("default"))) int nvmlDeviceGetUtilizationRates(void* device, void* out) {
    auto* u = static_cast<FakeUtilization*>(out);
    const int i = static_cast<Device*>(device)->index;
    if (env_int("FAKE_NVML_LOST", -1) == i) return 15;
    u->gpu = static_cast<unsigned int>(10 * (i + 1));
    u->memory = 0;
    return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetMemoryInfo(void* device, void* out) {
    auto* m = static_cast<FakeMemory*>(out);
    const int i = static_cast<Device*>(device)->index;
    if (env_int("FAKE_NVML_LOST", -1) == i) return 15;
    m->total = 16ULL << 30;
    m->used = m->total / 100 * static_cast<unsigned long long>(25 * (i + 1));
    m->free = m->total - m->used;
    return 0;
}
}
