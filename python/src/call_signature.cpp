// CPython keeps a frame's arguments in its "localsplus" array (public through 3.10, internal in
// 3.11); reading them there costs nothing, while the public route (PyFrame_GetLocals) builds a
// dict on every call. 3.12+ has PyFrame_GetVar, which reads one variable without the dict.
#include <patchlevel.h>  // PY_VERSION_HEX alone: Py_BUILD_CORE must come before Python.h
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#define RINGPROF_FRAME_INTERNALS 1
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#endif

#include "call_signature.hpp"

#include <cstring>
#include <unordered_map>

namespace ringprof::python {
namespace {

// The head of NumPy's PyArrayObject_fields (numpy/ndarraytypes.h), unchanged from NumPy 1.7
// through 2.x: read directly so that a signature needs no attribute lookups and no allocation.
struct NumpyArrayHead {
    PyObject_HEAD char* data;
    int nd;
    Py_ssize_t* dimensions;
    Py_ssize_t* strides;
    PyObject* base;
    PyObject* descr;
};

PyTypeObject* g_ndarray = nullptr;  // numpy.ndarray, once an array has been seen

bool is_ndarray(PyObject* obj) {
    PyTypeObject* type = Py_TYPE(obj);
    if (g_ndarray == nullptr) {
        // The first letter turns away nearly every other type without a call (measured: a strcmp
        // for every argument costs 1% of a profiled program's time).
        if (type->tp_name[0] != 'n' || std::strcmp(type->tp_name, "numpy.ndarray") != 0) return false;
        Py_INCREF(type);  // kept: its address identifies arrays from now on
        g_ndarray = type;
    }
    return PyObject_TypeCheck(obj, g_ndarray) != 0;
}

int argument_count(PyCodeObject* code) { return code->co_argcount + code->co_kwonlyargcount; }

// The i-th argument of the call `frame` starts (a new reference), or null.
PyObject* argument(PyFrameObject* frame, PyCodeObject* code, int i) {
#ifdef RINGPROF_FRAME_INTERNALS
    (void)code;
    PyObject* value = frame->f_frame->localsplus[i];
    if (value != nullptr && PyCell_Check(value)) value = PyCell_GET(value);  // captured by a closure
    Py_XINCREF(value);
    return value;
#elif PY_VERSION_HEX < 0x030B0000
    // Through 3.10 the frame's array is public. An argument a closure captures was moved into
    // its cell before the call began, leaving its own slot empty; co_cell2arg says which cell.
    PyObject* value = frame->f_localsplus[i];
    if (value == nullptr && code->co_cell2arg != nullptr) {
        const Py_ssize_t cells = PyTuple_GET_SIZE(code->co_cellvars);
        for (Py_ssize_t c = 0; c < cells; ++c) {
            if (code->co_cell2arg[c] != i) continue;
            PyObject* cell = frame->f_localsplus[code->co_nlocals + c];
            if (cell != nullptr) value = PyCell_GET(cell);
            break;
        }
    }
    Py_XINCREF(value);
    return value;
#else
    PyObject* names = PyCode_GetVarnames(code);
    if (names == nullptr) return nullptr;
    PyObject* value = PyFrame_GetVar(frame, PyTuple_GET_ITEM(names, i));
    Py_DECREF(names);
    if (value == nullptr) PyErr_Clear();
    return value;
#endif
}

void append_shape(std::string& out, const NumpyArrayHead* a) {
    out += "shape=(";
    for (int d = 0; d < a->nd; ++d) {
        if (d > 0) out += ", ";
        out += std::to_string(a->dimensions[d]);
    }
    if (a->nd == 1) out += ',';
    out += ')';
}

bool append_type(std::string& out, PyObject* value) {
    if (value == nullptr) {
        out += '?';
        return true;
    }
    if (is_ndarray(value)) {
        const auto* a = reinterpret_cast<const NumpyArrayHead*>(value);
        PyObject* dtype = PyObject_Str(a->descr);
        if (dtype == nullptr) return false;
        const char* text = PyUnicode_AsUTF8(dtype);
        if (text == nullptr) {
            Py_DECREF(dtype);
            return false;
        }
        out += "ndarray(dtype=";
        out += text;
        Py_DECREF(dtype);
        out += ", ";
        append_shape(out, a);
        out += ')';
        return true;
    }
    out += _PyType_Name(Py_TYPE(value));
    return true;
}

// Methods: the instance is not part of the signature (accelerate shows `disable()`).
int first_shown_argument(PyCodeObject* code, PyObject* names) {
    if (code->co_argcount == 0) return 0;
    const char* first = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, 0));
    return first != nullptr && (std::strcmp(first, "self") == 0 || std::strcmp(first, "cls") == 0) ? 1 : 0;
}

// The key words of one argument's value: its type, and for an array its dtype and shape.
void append_value_key(PyObject* value, std::vector<std::uint64_t>& key) {
    if (value == nullptr) {
        key.push_back(0);
        return;
    }
    key.push_back(reinterpret_cast<std::uintptr_t>(Py_TYPE(value)));
    if (is_ndarray(value)) {
        const auto* a = reinterpret_cast<const NumpyArrayHead*>(value);
        // Built-in dtypes are singletons; the row keeps a reference to any other (below),
        // so the address cannot be reused for another dtype.
        key.push_back(reinterpret_cast<std::uintptr_t>(a->descr));
        key.push_back(static_cast<std::uint64_t>(a->nd));
        for (int d = 0; d < a->nd; ++d) key.push_back(static_cast<std::uint64_t>(a->dimensions[d]));
    }
}

}  // namespace

bool append_signature_key(PyFrameObject* frame, PyCodeObject* code, std::vector<std::uint64_t>& key) {
    const int n = argument_count(code);
    key.push_back(static_cast<std::uint64_t>(n));
    for (int i = 0; i < n; ++i) {
        PyObject* value = argument(frame, code, i);
        append_value_key(value, key);
        Py_XDECREF(value);
    }
    // What *args and **kwargs received: the same code object takes different arguments there
    // (a wrapper, np.copyto-style functions), and the row shows what was passed.
    int slot = n;
    if ((code->co_flags & CO_VARARGS) != 0) {
        PyObject* args = argument(frame, code, slot++);
        const Py_ssize_t count = args != nullptr && PyTuple_Check(args) ? PyTuple_GET_SIZE(args) : 0;
        key.push_back(static_cast<std::uint64_t>(count));
        for (Py_ssize_t i = 0; i < count; ++i) append_value_key(PyTuple_GET_ITEM(args, i), key);
        Py_XDECREF(args);
    }
    if ((code->co_flags & CO_VARKEYWORDS) != 0) {
        PyObject* kwargs = argument(frame, code, slot);
        const bool dict = kwargs != nullptr && PyDict_Check(kwargs);
        key.push_back(static_cast<std::uint64_t>(dict ? PyDict_GET_SIZE(kwargs) : 0));
        Py_ssize_t pos = 0;
        PyObject* name = nullptr;
        PyObject* value = nullptr;
        while (dict && PyDict_Next(kwargs, &pos, &name, &value)) {
            // A name by its string hash (cached in the string): the key holds no reference to it.
            const Py_hash_t h = PyObject_Hash(name);
            if (h == -1) PyErr_Clear();
            key.push_back(static_cast<std::uint64_t>(h));
            append_value_key(value, key);
        }
        Py_XDECREF(kwargs);
    }
    return true;
}

namespace {

// "name:type" of one value, keeping a reference to an array's dtype (see append_value_key).
bool append_argument(std::string& out, const char* name, PyObject* value) {
    out += name;
    out += ':';
    if (value != nullptr && is_ndarray(value)) Py_INCREF(reinterpret_cast<NumpyArrayHead*>(value)->descr);
    return append_type(out, value);
}

bool append_variable_arguments(PyFrameObject* frame, PyCodeObject* code, PyObject* names, std::string& out) {
    int slot = argument_count(code);
    bool ok = true;
    if ((code->co_flags & CO_VARARGS) != 0) {
        const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, slot));
        PyObject* args = argument(frame, code, slot++);
        if (name == nullptr) ok = false;
        if (ok && args != nullptr && PyTuple_Check(args)) {
            if (out.back() != '(') out += ", ";
            out += '*';
            out += name;
            out += ":(";
            for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(args); ++i) {
                if (i > 0) out += ", ";
                PyObject* value = PyTuple_GET_ITEM(args, i);
                if (is_ndarray(value)) Py_INCREF(reinterpret_cast<NumpyArrayHead*>(value)->descr);
                ok = append_type(out, value);
            }
            if (PyTuple_GET_SIZE(args) == 1) out += ',';  // Python's 1-tuple
            out += ')';
        }
        Py_XDECREF(args);
    }
    if (ok && (code->co_flags & CO_VARKEYWORDS) != 0) {
        const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, slot));
        PyObject* kwargs = argument(frame, code, slot);
        if (name == nullptr) ok = false;
        if (ok && kwargs != nullptr && PyDict_Check(kwargs)) {
            if (out.back() != '(') out += ", ";
            out += "**";
            out += name;
            out += ":{";
            Py_ssize_t pos = 0;
            PyObject* key = nullptr;
            PyObject* value = nullptr;
            bool first = true;
            while (ok && PyDict_Next(kwargs, &pos, &key, &value)) {
                if (!first) out += ", ";
                first = false;
                const char* text = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : nullptr;
                if (text == nullptr) PyErr_Clear();
                ok = append_argument(out, text != nullptr ? text : "?", value);
            }
            out += '}';
        }
        Py_XDECREF(kwargs);
    }
    return ok;
}

}  // namespace

bool signature_text(PyFrameObject* frame, PyCodeObject* code, std::string& out) {
    PyObject* names = PyCode_GetVarnames(code);
    if (names == nullptr) return false;
    out += '(';
    const int n = argument_count(code);
    bool ok = true;
    for (int i = first_shown_argument(code, names); ok && i < n; ++i) {
        if (out.back() != '(') out += ", ";
        const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, i));
        if (name == nullptr) {
            ok = false;
            break;
        }
        PyObject* value = argument(frame, code, i);
        ok = append_argument(out, name, value);
        Py_XDECREF(value);
    }
    if (ok) ok = append_variable_arguments(frame, code, names, out);
    out += ')';
    Py_DECREF(names);
    return ok;
}

}  // namespace ringprof::python
