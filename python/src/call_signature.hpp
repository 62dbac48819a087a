// accelerate.profiler's signatures for Python calls: "dot(a:ndarray(dtype=float32, shape=(16,)))".
// A call is first reduced to a key of words (code object, each argument's type, and for NumPy
// arrays the dtype and shape); the text is made only the first time a key is seen.
#pragma once

#include "python_compat.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ringprof::python {

// Appends the key words of the call that `frame` is starting. False (no exception set) when
// the arguments cannot be read.
bool append_signature_key(PyFrameObject* frame, PyCodeObject* code, std::vector<std::uint64_t>& key);

// The row label for that call: "qualname(a:int, b:ndarray(dtype=float32, shape=(16,)))".
// Null with a Python exception set on failure.
bool signature_text(PyFrameObject* frame, PyCodeObject* code, std::string& out);

}  // namespace ringprof::python
