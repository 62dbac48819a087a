#include "path_command_line.hpp"

#include <fmt/format.h>

namespace ringprof::cli {

std::string not_one_of(std::string_view option, const std::vector<std::string_view>& names, std::string_view got) {
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i) {
        list += i == 0 ? "" : i + 1 < names.size() ? ", " : " or ";
        list += names[i];
    }
    return fmt::format("{} must be {} (got '{}')", option, list, got);
}

void take_path(const Arguments& args, std::string& path) {
    if (!path.empty()) throw UsageError(fmt::format("more than one PATH given ('{}' and '{}')", path, args.operand()));
    path = args.operand();
}

void require_path(const std::string& path) {
    if (path.empty()) throw UsageError("PATH is missing");
}

}  // namespace ringprof::cli
