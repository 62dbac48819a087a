// The markers' Python types, written against the C API rather than pybind11: a `with` block
// costs three calls (scope(), __enter__, __exit__), and pybind11's generic argument dispatch
// triples the cost of each (measured side by side). What a scope costs: docs/python.md.
#pragma once

#include <Python.h>

namespace ringprof::python {

// Adds _Scope, _Step, scope(), gauge(), step() and _scope_at() to `module`. Returns false with a
// Python exception set on failure.
bool add_scope_types(PyObject* module);

// The names of the calling thread's open scopes (ringprof.scope, @function and the profile
// hook's calls), outermost first: the path a graft made now lands at. A new list, or null with
// an exception set.
PyObject* open_scope_name_list();

}  // namespace ringprof::python
