// The "C++ kernels" of the Python tests: plain PROF_SCOPE markers in an extension module that is
// not part of ringprof.
#include <pybind11/pybind11.h>
#include <ringprof/ringprof.hpp>

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

// C++ calling back into Python: Python scopes opened in `callback` nest under cpp_callback.
void call_back(const py::function& callback) {
    PROF_SCOPE("cpp_callback");
    callback();
}

}  // namespace

PYBIND11_MODULE(test_kernels, m) {
    m.def("kernel", &kernel, py::arg("n"), py::call_guard<py::gil_scoped_release>());
    m.def("call_back", &call_back);
}
