// Frame colours shared by the SVG and the HTML legend: warm for ordinary frames, cool for
// parallel ones, varied by a hash of the name so neighbours stay distinguishable and the same
// name keeps its colour across renders.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ringprof::detail {

std::uint32_t name_hash(std::string_view name);
// "rgb(r,g,b)"
std::string frame_color(std::string_view name, bool parallel);

}  // namespace ringprof::detail
