// Reads back what a flame page carries: the JSON data block inside it.
#pragma once

#include <string>

namespace flame_test {

// The text of <script id="flame-data">, which is JSON ('<' is escaped inside strings).
inline std::string page_data(const std::string& html) {
    const std::string open = "<script type=\"application/json\" id=\"flame-data\">";
    const std::size_t begin = html.find(open);
    if (begin == std::string::npos) return "";
    const std::size_t from = begin + open.size();
    const std::size_t end = html.find("</script>", from);
    return end == std::string::npos ? "" : html.substr(from, end - from);
}

}  // namespace flame_test
