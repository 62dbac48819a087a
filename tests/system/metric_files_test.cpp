// The files smdebug reads: names, folders, one object per line, read back.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <string>

#include "system/metric_files.hpp"
#include "temp_dir.hpp"

namespace {

using namespace ringprof::detail;
namespace fs = std::filesystem;

TEST(SystemNodeName, IsAlgoAndTheRankFromOne) {
    EXPECT_EQ(system_node_name(0), "algo-1");
    EXPECT_EQ(system_node_name(7), "algo-8");
}

TEST(SystemMetricFileNames, AreTheWholeMinuteInTheUtcHoursFolder) {
    EXPECT_EQ(hour_folder_name(1591748109), "2020061000");
    EXPECT_EQ(minute_file_name(1591748109, "algo-2"), "1591748100.algo-2.json");
    EXPECT_EQ(minute_file_name(1591748160, "algo-1"), "1591748160.algo-1.json");
}

TEST(SystemMetricLines, AreSageMakersObjects) {
    SystemSample s;
    s.timestamp = 1591748109.2321954;
    s.metrics = {{"cpu", "cpu5", "CPUUtilization", 1.36}, {"i/o", "sda", "ReadIOPS", 100}};
    EXPECT_EQ(
        system_metric_lines(s, "algo-1"),
        "{\"Type\":\"cpu\",\"Name\":\"cpu5\",\"Dimension\":\"CPUUtilization\",\"Value\":1.36,\"NodeId\":\"algo-1\","
        "\"Timestamp\":1591748109.2321954}\n"
        "{\"Type\":\"i/o\",\"Name\":\"sda\",\"Dimension\":\"ReadIOPS\",\"Value\":100.0,\"NodeId\":\"algo-1\","
        "\"Timestamp\":1591748109.2321954}\n");
}

TEST(SystemMetricFiles, StartAFileEachMinuteAndAppendWholeLines) {
    ringprof::testing::TempDir dir;
    SystemMetricFiles files(dir.str(), "algo-1");
    SystemSample s;
    s.metrics = {{"cpu", "cpu0", "CPUUtilization", 5}};
    for (double t : {1591748159.5, 1591748159.9, 1591748160.4}) {
        s.timestamp = t;
        files.write(s);
    }
    files.close();
    const fs::path hour = dir.path() / "system" / "incremental" / "2020061000";
    const std::string first = ringprof::testing::read_text(hour / "1591748100.algo-1.json");
    const std::string second = ringprof::testing::read_text(hour / "1591748160.algo-1.json");
    simdjson::dom::parser parser;
    int lines = 0;
    for (const std::string* text : {&first, &second}) {
        std::size_t start = 0;
        while (start < text->size()) {
            const std::size_t end = text->find('\n', start);
            ASSERT_NE(end, std::string::npos) << "a line without its end";
            simdjson::dom::element row = parser.parse(text->substr(start, end - start));
            EXPECT_EQ(std::string_view(row["NodeId"]), "algo-1");
            EXPECT_EQ(double(row["Value"]), 5.0);
            const double t = double(row["Timestamp"]);
            EXPECT_EQ(text == &first, t < 1591748160.0) << t;
            ++lines;
            start = end + 1;
        }
    }
    EXPECT_EQ(lines, 3);
    EXPECT_EQ(std::distance(fs::directory_iterator(hour), fs::directory_iterator()), 2);
}

TEST(SystemMetricFiles, NeverWriteIntoAFileAlreadyThere) {
    ringprof::testing::TempDir dir;
    const fs::path hour = dir.path() / "system" / "incremental" / "2020061000";
    fs::create_directories(hour);
    { std::ofstream(hour / "1591748100.algo-1.json") << "earlier run\n"; }
    SystemMetricFiles files(dir.str(), "algo-1");
    SystemSample s;
    s.timestamp = 1591748109.0;
    s.metrics = {{"cpu", "cpu0", "CPUUtilization", 5}};
    files.write(s);
    files.close();
    EXPECT_EQ(ringprof::testing::read_text(hour / "1591748100.algo-1.json"), "earlier run\n");
    EXPECT_NE(files.current_path(), (hour / "1591748100.algo-1.json").string());
    EXPECT_NE(ringprof::testing::read_text(files.current_path()).find("\"cpu0\""), std::string::npos);
}

}  // namespace
