#include "system/nvml_gpus.hpp"

#include <dlfcn.h>

#include <cmath>

namespace ringprof::detail {

namespace {
// nvml.h's types, as far as the calls below need them (the ABI, not the header: no build
// dependency). nvmlReturn_t is an enum (int); nvmlDevice_t an opaque pointer.
using nvmlReturn = int;
constexpr nvmlReturn kSuccess = 0;
struct NvmlUtilization {
    unsigned int gpu;
    unsigned int memory;
};
struct NvmlMemory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
}  // namespace

struct NvmlGpus::Api {
    nvmlReturn (*init)() = nullptr;
    nvmlReturn (*shutdown)() = nullptr;
    const char* (*error_string)(nvmlReturn) = nullptr;
    nvmlReturn (*device_count)(unsigned int*) = nullptr;
    nvmlReturn (*device_by_index)(unsigned int, void**) = nullptr;
    // The out-structs as the ABI passes them, a plain pointer: a pointer-to-struct type here would
    // be a type of this file alone, and the function-type check of UBSan (-fsanitize=function)
    // refuses a call through it to any library built with it, the tests' fake NVML included.
    nvmlReturn (*utilization)(void*, void*) = nullptr;
    nvmlReturn (*memory)(void*, void*) = nullptr;
};

namespace {
template <typename F>
bool bind(void* library, const char* name, F& f, std::string& missing) {
    f = reinterpret_cast<F>(::dlsym(library, name));
    if (f == nullptr && missing.empty()) missing = name;
    return f != nullptr;
}
}  // namespace

NvmlGpus::NvmlGpus(const std::string& library) {
    library_ = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) {
        const char* e = ::dlerror();
        why_ = "no NVIDIA driver library (" + (e != nullptr ? std::string(e) : library) + ")";
        return;
    }
    api_ = std::make_unique<Api>();
    std::string missing;
    bind(library_, "nvmlInit_v2", api_->init, missing);
    bind(library_, "nvmlShutdown", api_->shutdown, missing);
    bind(library_, "nvmlErrorString", api_->error_string, missing);
    bind(library_, "nvmlDeviceGetCount_v2", api_->device_count, missing);
    bind(library_, "nvmlDeviceGetHandleByIndex_v2", api_->device_by_index, missing);
    bind(library_, "nvmlDeviceGetUtilizationRates", api_->utilization, missing);
    bind(library_, "nvmlDeviceGetMemoryInfo", api_->memory, missing);
    if (!missing.empty()) {
        why_ = library + " has no " + missing;
        return;
    }
    if (const nvmlReturn r = api_->init(); r != kSuccess) {
        why_ = "nvmlInit_v2 failed: " + error_text(r);
        return;
    }
    initialized_ = true;
    unsigned int count = 0;
    if (const nvmlReturn r = api_->device_count(&count); r != kSuccess) {
        why_ = "nvmlDeviceGetCount_v2 failed: " + error_text(r);
        count = 0;
    }
    for (unsigned int i = 0; i < count; ++i) {
        Device d;
        if (api_->device_by_index(i, &d.handle) != kSuccess) d.lost = true;
        devices_.push_back(d);
    }
    if (devices_.empty() && why_.empty()) why_ = "NVML sees no GPU";
}

NvmlGpus::~NvmlGpus() {
    if (initialized_) api_->shutdown();
    api_.reset();
    if (library_ != nullptr) ::dlclose(library_);
}

std::string NvmlGpus::error_text(int code) const {
    const char* s = api_ != nullptr && api_->error_string != nullptr ? api_->error_string(code) : nullptr;
    return (s != nullptr ? std::string(s) : std::string("error")) + " (" + std::to_string(code) + ")";
}

void NvmlGpus::append_metrics(std::vector<SystemMetric>& out, std::vector<std::string>& problems) {
    if (!initialized_) return;
    for (std::size_t i = 0; i < devices_.size(); ++i) {
        Device& d = devices_[i];
        if (d.lost) continue;
        const std::string name = "gpu" + std::to_string(i);
        NvmlUtilization u{};
        NvmlMemory m{};
        nvmlReturn r = api_->utilization(d.handle, &u);
        const char* call = "nvmlDeviceGetUtilizationRates";
        if (r == kSuccess) {
            r = api_->memory(d.handle, &m);
            call = "nvmlDeviceGetMemoryInfo";
        }
        if (r != kSuccess) {
            d.lost = true;
            problems.push_back(name + ": " + call + " failed: " + error_text(r) + "; no more rows for this GPU");
            continue;
        }
        out.push_back({"gpu", name, "GPUUtilization", static_cast<double>(u.gpu)});
        const double memory = m.total > 0 ? 100.0 * static_cast<double>(m.used) / static_cast<double>(m.total) : 0.0;
        out.push_back({"gpu", name, "GPUMemoryUtilization", std::round(memory * 100.0) / 100.0});
    }
}

}  // namespace ringprof::detail
