// A library named like NVML that has none of its entry points: the sampler must say which one
// is missing and write no GPU rows.
extern "C" __attribute__((visibility("default"))) int not_nvml() { return 0; }
