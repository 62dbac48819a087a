// GPU utilization through NVML, the NVIDIA driver's management library, loaded at run time with
// dlopen: ringprof never links against it, so it builds and runs on machines without a driver,
// and a machine without one simply has no GPU rows.
//
// Only a handful of entry points are used, all with the C ABI of nvml.h since CUDA 8
// (nvmlInit_v2, nvmlShutdown, nvmlErrorString, nvmlDeviceGetCount_v2,
// nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetUtilizationRates, nvmlDeviceGetMemoryInfo); the
// tests put a library of their own with the same entry points in its place. A device whose call
// fails (NVML_ERROR_GPU_IS_LOST when it falls off the bus) is said once and asked no more: its
// rows stop, the other devices' go on.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "system/system_metric.hpp"

namespace ringprof::detail {

class NvmlGpus {
public:
    static constexpr const char* kLibrary = "libnvidia-ml.so.1";

    // Loads `library` and initializes NVML. Nothing throws: without the library, an entry
    // point or a working driver, available() is false and why() says why.
    explicit NvmlGpus(const std::string& library = kLibrary);
    ~NvmlGpus();
    NvmlGpus(const NvmlGpus&) = delete;
    NvmlGpus& operator=(const NvmlGpus&) = delete;

    bool available() const { return initialized_; }
    // The library was found (whether or not it then worked).
    bool library_found() const { return library_ != nullptr; }
    const std::string& why() const { return why_; }
    unsigned device_count() const { return static_cast<unsigned>(devices_.size()); }

    // Appends "gpu"/gpuN/GPUUtilization (the share of the last sample period a kernel ran, %)
    // and GPUMemoryUtilization (memory in use over the device's total, %) for each device that
    // answers. Each device that stops answering adds one line to `problems`, once.
    void append_metrics(std::vector<SystemMetric>& out, std::vector<std::string>& problems);

private:
    struct Api;
    struct Device {
        void* handle = nullptr;
        bool lost = false;
    };
    std::string error_text(int code) const;

    void* library_ = nullptr;
    std::unique_ptr<Api> api_;
    bool initialized_ = false;
    std::string why_;
    std::vector<Device> devices_;
};

}  // namespace ringprof::detail
