#include "arguments.hpp"

namespace ringprof::cli {

Arguments::Arguments(int argc, char** argv, const Option* options, std::size_t count)
    : argc_(argc), argv_(argv), options_(options), count_(count) {}

bool Arguments::next() {
    if (++at_ >= argc_) return false;
    const std::string_view arg = argv_[at_];
    option_ = nullptr;
    written_.clear();
    if (arg.size() < 2 || arg[0] != '-') {
        value_ = arg;
        return true;
    }
    // Only a long name carries a value after '=': "-o=x" is an unknown option, not a file "=x".
    const std::size_t equals = arg.rfind("--", 0) == 0 ? arg.find('=') : std::string_view::npos;
    written_ = arg.substr(0, equals);
    for (std::size_t i = 0; i < count_ && option_ == nullptr; ++i) {
        const Option& o = options_[i];
        if (written_ == o.name || (equals == std::string_view::npos && !o.alias.empty() && written_ == o.alias)) {
            option_ = &o;
        }
    }
    if (option_ == nullptr) throw UsageError("unknown option '" + std::string(arg) + "'");
    if (!option_->takes_value) {
        if (equals != std::string_view::npos) throw UsageError(written_ + " takes no value");
        value_.clear();
    } else if (equals != std::string_view::npos) {
        value_ = arg.substr(equals + 1);
    } else if (at_ + 1 < argc_) {
        value_ = argv_[++at_];
    } else {
        throw UsageError(written_ + " needs a value");
    }
    return true;
}

bool Arguments::is(std::string_view name) const { return option_ != nullptr && option_->name == name; }

}  // namespace ringprof::cli
