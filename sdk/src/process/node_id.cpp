#include "process/node_id.hpp"

#include <algorithm>

#include <unistd.h>

namespace ringprof::detail {

std::string node_id(std::string_view pid, std::string_view host) {
    std::string id;
    id.reserve(pid.size() + 1 + host.size());
    id.append(pid);
    id += '-';
    id.append(host);
    std::replace(id.begin(), id.end(), '_', '-');
    return id;
}

std::string node_id(long long pid, std::string_view host) { return node_id(std::to_string(pid), host); }

std::string this_node_id() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    return node_id(static_cast<long long>(::getpid()), host);
}

}  // namespace ringprof::detail
