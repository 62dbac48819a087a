// The fixed workload of the golden tests, on the fake clock (times in milliseconds):
//   top (3 self) -> dot(16) x2 (16 each), dot(8) (8), recurse(2) -> recurse(1) -> leaf; leaf
// Line numbers of its markers are exported so the goldens follow edits of scenario.cpp.
#pragma once

namespace stats_scenario {

extern const int kLeafLine;
extern const int kDotLine;
extern const int kRecurseLine;
extern const int kTopLine;

void top();

}  // namespace stats_scenario
