// A statistics row is one function with one signature: every component of a signature (each
// argument's type, run-time dtype, rank and each dimension, at every argument position) splits
// the row when it alone changes, and two calls that differ in nothing are one row. Read back from
// the printed table, as a user sees it.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fake_clock.hpp"
#include "ringprof/ringprof.hpp"

namespace sig_keys {

// A tensor whose element type is known only at run time.
struct Tensor {
    std::vector<std::size_t> shape;
    const char* dtype;
};

}  // namespace sig_keys

template <>
struct ringprof::signature_traits<sig_keys::Tensor> {
    static constexpr const char* name = "Tensor";
    static constexpr std::size_t max_rank = 4;
    static std::size_t rank(const sig_keys::Tensor& t) noexcept { return t.shape.size(); }
    static std::uint64_t dim(const sig_keys::Tensor& t, std::size_t i) noexcept { return t.shape[i]; }
    static const char* dtype(const sig_keys::Tensor& t) noexcept { return t.dtype; }
};

namespace {

using sig_keys::Tensor;

// Three argument positions: a run-time typed tensor, a vector whose element type is a template
// parameter (its type), and a second tensor last (the last words of the record).
template <class V>
void kernel(const Tensor& t, const V& v, const Tensor& last) {
    PROF_FUNCTION_SIG(t, v, last);
}

struct Call {
    Tensor t{{2, 3}, "float32"};
    std::vector<float> v = std::vector<float>(4);
    Tensor last{{5, 1, 1, 1}, "int8"};  // every recorded dimension in use
    bool double_vector = false;         // v as vector<double> of the same length: only its type differs

    void run() const {
        if (double_vector)
            kernel(t, std::vector<double>(v.size()), last);
        else
            kernel(t, v, last);
    }
};

struct KeyCase {
    const char* component;
    Call second;    // called after the base call
    bool separate;  // two rows (true) or one row of two calls
};

std::vector<KeyCase> cases() {
    static const char other_float32[] = "float32";  // same text at another address
    std::vector<KeyCase> out;
    const auto add = [&](const char* component, bool separate, auto change) {
        Call second;
        change(second);
        out.push_back(KeyCase{component, std::move(second), separate});
    };
    add("nothing", false, [](Call&) {});
    add("nothing (dtype text at another address)", false, [](Call& c) { c.t.dtype = other_float32; });
    add("first argument: dtype", true, [](Call& c) { c.t.dtype = "float64"; });
    add("first argument: first dimension", true, [](Call& c) { c.t.shape = {7, 3}; });
    add("first argument: last dimension", true, [](Call& c) { c.t.shape = {2, 7}; });
    add("first argument: rank", true, [](Call& c) { c.t.shape = {2, 3, 1}; });
    add("second argument: type", true, [](Call& c) { c.double_vector = true; });
    add("second argument: length", true, [](Call& c) { c.v.resize(9); });
    add("last argument: dtype", true, [](Call& c) { c.last.dtype = "uint8"; });
    add("last argument: first dimension", true, [](Call& c) { c.last.shape = {6, 1, 1, 1}; });
    add("last argument: last dimension", true, [](Call& c) { c.last.shape = {5, 1, 1, 2}; });
    add("last argument: rank", true, [](Call& c) { c.last.shape = {5, 1, 1}; });
    return out;
}

// The table's rows of `function`: label -> ncalls, parsed from the printed text.
std::map<std::string, std::string> rows_of(const std::string& table, const std::string& function) {
    std::map<std::string, std::string> rows;
    std::istringstream in(table);
    const std::string file = "signature_keys_test.cpp:";
    for (std::string line; std::getline(in, line);) {
        const std::size_t at = line.find(file);
        if (at == std::string::npos) continue;
        const std::size_t open = line.find('(', at);
        const std::string label = line.substr(open + 1, line.size() - open - 2);
        if (label.rfind(function + "(", 0) != 0) continue;
        std::istringstream fields(line);
        std::string ncalls;
        fields >> ncalls;
        EXPECT_EQ(rows.count(label), 0u) << "one label printed twice: " << label;
        rows[label] = ncalls;
    }
    return rows;
}

TEST(SignatureKeys, EachComponentAloneMakesASeparateRowAndNoChangeMakesOne) {
    for (const KeyCase& c : cases()) {
        SCOPED_TRACE(c.component);
        ringprof::testing::TempDir dir;
        ringprof::Profile profile(ringprof::testing::fake_clock_options(dir));
        profile.enable();
        const Call base;
        base.run();
        c.second.run();
        profile.disable();
        std::ostringstream table;
        profile.print_stats(table);
        const auto rows = rows_of(table.str(), "kernel");
        // Every case is checked whatever an earlier one found.
        EXPECT_EQ(rows.size(), c.separate ? 2u : 1u) << table.str();
        for (const auto& [label, ncalls] : rows) EXPECT_EQ(ncalls, c.separate ? "1" : "2") << label;
    }
}

// Two overloads: one name, one signature text, two markers.
void twice(const Tensor& t) { PROF_FUNCTION_SIG(t); }
void twice(const Tensor& t, int) { PROF_FUNCTION_SIG(t); }

TEST(SignatureKeys, TheSameSignatureAtTwoMarkersIsTwoRows) {
    // The site is part of a row's identity: one name and signature at two lines are two rows.
    ringprof::testing::TempDir dir;
    ringprof::Profile profile(ringprof::testing::fake_clock_options(dir));
    profile.enable();
    const Tensor t{{2}, "float32"};
    twice(t);
    twice(t, 0);
    profile.disable();
    std::ostringstream table;
    profile.print_stats(table);
    std::size_t rows = 0;
    std::istringstream in(table.str());
    for (std::string line; std::getline(in, line);)
        rows += line.find("(twice(t:Tensor(dtype=float32, shape=(2,))))") != std::string::npos;
    EXPECT_EQ(rows, 2u) << table.str();
}

}  // namespace
