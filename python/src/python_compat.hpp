// The few CPython interfaces the module uses that are younger than the oldest interpreter it
// serves (3.8), written for the older ones from what they expose. Each block ends at the version
// that brought the real interface, so a newer interpreter compiles the real one.
#pragma once

#include <Python.h>
#include <frameobject.h>  // PyFrameObject's fields: public through 3.10, behind accessors from 3.11

#if PY_VERSION_HEX < 0x03090000
// A new reference to the code object a frame runs.
inline PyCodeObject* PyFrame_GetCode(PyFrameObject* frame) {
    Py_INCREF(frame->f_code);
    return frame->f_code;
}
#endif

#if PY_VERSION_HEX < 0x030A0000
// 3.10's flag; older interpreters get the same effect from a type without tp_new
// (see disallow_instantiation).
#define Py_TPFLAGS_DISALLOW_INSTANTIATION 0
#endif

#if PY_VERSION_HEX < 0x030B0000
// A new reference to the tuple of a code object's local variable names, arguments first.
inline PyObject* PyCode_GetVarnames(PyCodeObject* code) {
    Py_INCREF(code->co_varnames);
    return code->co_varnames;
}
#endif

namespace ringprof::python {

// The Python frame the calling code runs in, as an identity only (never dereferenced). A
// coroutine's frame lives in its coroutine object, so it stays the same across awaits, and two
// asyncio tasks interleaving their `with` blocks on one thread have different ones.
inline const void* running_frame_identity() noexcept {
    PyThreadState* ts = PyThreadState_Get();
#if PY_VERSION_HEX >= 0x030D0000
    return ts->current_frame;
#elif PY_VERSION_HEX >= 0x030B0000
    return ts->cframe->current_frame;
#else
    return ts->frame;
#endif
}

// Makes `type` refuse `Type()` from Python: what Py_TPFLAGS_DISALLOW_INSTANTIATION does from 3.10.
inline void disallow_instantiation(PyTypeObject* type) {
#if PY_VERSION_HEX < 0x030A0000
    type->tp_new = nullptr;
#else
    (void)type;
#endif
}

}  // namespace ringprof::python
