// GPU rows through a stand-in NVML library (fake_nvml/fake_nvml.cpp) with known answers: the
// library missing, an entry point missing, initialization failing, a device lost mid-run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "system/nvml_gpus.hpp"

namespace {

using ringprof::detail::NvmlGpus;
using ringprof::detail::SystemMetric;

// Sets the fake library's answers for one test and clears them after it.
struct FakeNvmlEnvironment {
    explicit FakeNvmlEnvironment(const char* devices = "2") {
        ::setenv("FAKE_NVML_DEVICES", devices, 1);
        ::unsetenv("FAKE_NVML_LOST");
        ::unsetenv("FAKE_NVML_INIT_FAILS");
    }
    ~FakeNvmlEnvironment() {
        ::unsetenv("FAKE_NVML_DEVICES");
        ::unsetenv("FAKE_NVML_LOST");
        ::unsetenv("FAKE_NVML_INIT_FAILS");
    }
};

std::string describe(const std::vector<SystemMetric>& rows) {
    std::string out;
    for (const auto& r : rows) out += r.type + "/" + r.name + "/" + r.dimension + "=" + std::to_string(r.value) + " ";
    return out;
}

TEST(NvmlGpus, GiveEachDevicesUtilizationAndMemoryInUse) {
    FakeNvmlEnvironment fake("2");
    NvmlGpus gpus(RINGPROF_FAKE_NVML);
    ASSERT_TRUE(gpus.available()) << gpus.why();
    EXPECT_EQ(gpus.device_count(), 2u);
    std::vector<SystemMetric> rows;
    std::vector<std::string> problems;
    gpus.append_metrics(rows, problems);
    EXPECT_TRUE(problems.empty());
    ASSERT_EQ(rows.size(), 4u) << describe(rows);
    EXPECT_EQ(describe(rows),
              "gpu/gpu0/GPUUtilization=10.000000 gpu/gpu0/GPUMemoryUtilization=25.000000 "
              "gpu/gpu1/GPUUtilization=20.000000 gpu/gpu1/GPUMemoryUtilization=50.000000 ");
}

TEST(NvmlGpus, WithoutTheLibraryAreUnavailableAndSayWhy) {
    NvmlGpus gpus("libringprof-no-such-nvml.so.1");
    EXPECT_FALSE(gpus.available());
    EXPECT_NE(gpus.why().find("no NVIDIA driver library"), std::string::npos) << gpus.why();
    std::vector<SystemMetric> rows;
    std::vector<std::string> problems;
    gpus.append_metrics(rows, problems);
    EXPECT_TRUE(rows.empty());
}

TEST(NvmlGpus, NameTheMissingEntryPointOfALibraryThatIsNotNvml) {
    NvmlGpus gpus(RINGPROF_FAKE_NVML_EMPTY);
    EXPECT_FALSE(gpus.available());
    EXPECT_NE(gpus.why().find("has no nvmlInit_v2"), std::string::npos) << gpus.why();
}

TEST(NvmlGpus, SayTheDriversErrorWhenInitializationFails) {
    FakeNvmlEnvironment fake;
    ::setenv("FAKE_NVML_INIT_FAILS", "1", 1);
    NvmlGpus gpus(RINGPROF_FAKE_NVML);
    EXPECT_FALSE(gpus.available());
    EXPECT_NE(gpus.why().find("nvmlInit_v2 failed: Driver Not Loaded (9)"), std::string::npos) << gpus.why();
}

TEST(NvmlGpus, StopAskingADeviceThatIsLostAndSayItOnce) {
    FakeNvmlEnvironment fake("3");
    NvmlGpus gpus(RINGPROF_FAKE_NVML);
    ASSERT_TRUE(gpus.available()) << gpus.why();
    std::vector<SystemMetric> rows;
    std::vector<std::string> problems;
    gpus.append_metrics(rows, problems);
    EXPECT_EQ(rows.size(), 6u);
    ::setenv("FAKE_NVML_LOST", "1", 1);  // gpu1 falls off the bus
    for (int sample = 0; sample < 3; ++sample) {
        rows.clear();
        gpus.append_metrics(rows, problems);
        EXPECT_EQ(describe(rows),
                  "gpu/gpu0/GPUUtilization=10.000000 gpu/gpu0/GPUMemoryUtilization=25.000000 "
                  "gpu/gpu2/GPUUtilization=30.000000 gpu/gpu2/GPUMemoryUtilization=75.000000 ");
    }
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0], "gpu1: nvmlDeviceGetUtilizationRates failed: GPU is lost (15); no more rows for this GPU");
    ::unsetenv("FAKE_NVML_LOST");  // a lost device stays out even if it answers again
    rows.clear();
    gpus.append_metrics(rows, problems);
    EXPECT_EQ(rows.size(), 4u);
}

}  // namespace
