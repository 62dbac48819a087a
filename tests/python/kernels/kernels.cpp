// The "C++ kernels" of the Python tests: plain PROF_SCOPE markers in an extension module that is
// not part of ringprof.
#include <pybind11/pybind11.h>
#include <ringprof/ringprof.hpp>

#include <string>

namespace py = pybind11;

namespace {

double kernel(int n) {
    PROF_SCOPE("cpp_kernel");
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        PROF_SCOPE("cpp_inner");
        sum += i * 0.5;
    }
    return sum;
}

// A C++ function with argument signatures: one statistics row per distinct signature (a string's
// length is part of its signature).
std::size_t labelled(const std::string& label) {
    PROF_FUNCTION_SIG(label);
    return label.size();
}

// C++ calling back into Python: Python scopes opened in `callback` nest under cpp_callback.
void call_back(const py::function& callback) {
    PROF_SCOPE("cpp_callback");
    callback();
}

}  // namespace

PYBIND11_MODULE(test_kernels, m) {
    m.def("kernel", &kernel, py::arg("n"), py::call_guard<py::gil_scoped_release>());
    m.def("call_back", &call_back);
    m.def("labelled", &labelled, py::arg("label"));
}
