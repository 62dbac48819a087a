// ringprof.Profile's hook: the interpreter's C profiling hook (what cProfile uses, installed per
// thread with PyEval_SetProfile) turning every Python call, and every call of a C function when
// `builtins` is on, into a scope of the engine. Each function (each distinct argument signature,
// with `signatures` on) is one interned site, looked up without allocating after its first call.
#pragma once

#include <pybind11/pybind11.h>

namespace ringprof::python {

// Adds _Profile (the C++ ringprof::Profile with this hook) to the module.
void add_profile_hook(pybind11::module_& m);

}  // namespace ringprof::python
