// Calls into the engine that may wait (a flush, a snapshot) run with the GIL released. Taking it
// back is where a daemon thread meets interpreter exit: CPython ends such a thread right there,
// with pthread_exit, whose unwinding must not cross a destructor — destructors are noexcept, so
// pybind11's gil_scoped_release, which takes the GIL back in its destructor, turns the end of
// the thread into an abort of the whole process ("terminate called without an active
// exception"). without_gil() takes it back in ordinary code, and the thread ends quietly.
#pragma once

#include <Python.h>

#include <type_traits>

namespace ringprof::python {

template <class F>
decltype(auto) without_gil(F&& f) {
    PyThreadState* const saved = PyEval_SaveThread();
    if constexpr (std::is_void_v<decltype(f())>) {
        try {
            f();
        } catch (...) {
            PyEval_RestoreThread(saved);
            throw;
        }
        PyEval_RestoreThread(saved);
    } else {
        auto result = [&] {
            try {
                return f();
            } catch (...) {
                PyEval_RestoreThread(saved);
                throw;
            }
        }();
        PyEval_RestoreThread(saved);
        return result;
    }
}

}  // namespace ringprof::python
