#include "scope_types.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <string_view>

#include "open_scopes.hpp"
#include "python_compat.hpp"
#include "ringprof/context.hpp"
#include "ringprof/gauge.hpp"
#include "ringprof/steps.hpp"
#include "site_interner.hpp"

namespace ringprof::python {
namespace {

using detail::Closing;
using detail::Event;
using detail::EventKind;
using detail::make_tag;

// ---- names -------------------------------------------------------------------------------

// The UTF-8 text of a marker name, or null with TypeError/ValueError set.
const char* name_text(PyObject* name, const char* what, Py_ssize_t* size) {
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "ringprof.%s: the name must be a str, not %.100s", what, Py_TYPE(name)->tp_name);
        return nullptr;
    }
    const char* text = PyUnicode_AsUTF8AndSize(name, size);
    if (text == nullptr) return nullptr;
    if (*size == 0) {
        PyErr_Format(PyExc_ValueError, "ringprof.%s: the name must not be empty", what);
        return nullptr;
    }
    if (std::memchr(text, '\0', static_cast<std::size_t>(*size)) != nullptr) {
        PyErr_Format(PyExc_ValueError, "ringprof.%s: the name %R contains a NUL character", what, name);
        return nullptr;
    }
    return text;
}

const Site* intern_or_raise(std::string_view name, std::string_view file, std::uint32_t line) {
    try {
        return intern_site(name, file, line);
    } catch (const std::bad_alloc&) {
        PyErr_NoMemory();
    } catch (const std::exception& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    }
    return nullptr;
}

// ---- the frame stack -----------------------------------------------------------------------

bool push_frame(Closing closing, std::uint64_t close_tag, const void* owner, const void* opened_in) {
    try {
        ThreadState* state = thread_state();
        if (state == nullptr) throw std::bad_alloc();
        state->frames.push_back(OpenFrame{closing, close_tag, owner, opened_in});
        return true;
    } catch (const std::bad_alloc&) {
        detail::close_scope(closing, close_tag);  // the marker is closed at once: nesting stays whole
        PyErr_NoMemory();
        return false;
    }
}

// A frame closed while frames opened after it are still open: `with` blocks of asyncio tasks
// interleave on one thread. A scope is detached (EventKind::Detach): the drainer closes it where
// it was opened and keeps the scopes opened after it where they ran. A step ends as it is.
void close_out_of_order(const OpenFrame& f) {
    if (detail::kind_of(f.close_tag) == EventKind::End) {
        detail::close_scope(f.closing, make_tag(detail::pointer_of(f.close_tag), EventKind::Detach));
    } else {
        detail::close_scope(f.closing, f.close_tag);
    }
}

// The innermost open frame of `owner` opened in the Python frame `closed_in` (null: any), or
// frames.size() if none.
std::size_t find_frame(const std::vector<OpenFrame>& frames, const void* owner, const void* closed_in) {
    for (std::size_t k = frames.size(); k-- > 0;) {
        if (frames[k].owner == owner && (closed_in == nullptr || frames[k].opened_in == closed_in)) return k;
    }
    return frames.size();
}

// Closes the frame `owner` opened on this thread: the innermost, or one below it (out of order).
// A scope is looked for first among those opened in the closing Python frame (an asyncio task
// closes its own), then among all (a context manager wrapping a scope enters and exits it from
// two functions). Never raises: a frame not open on this thread (closed twice, or opened on
// another thread) is ignored and said once on stderr; the user's code goes on.
void pop_frame(const void* owner, const void* closed_in, const char* scope_name) {
    ThreadState* state = thread_state();
    if (state != nullptr) {
        std::vector<OpenFrame>& frames = state->frames;
        std::size_t k = find_frame(frames, owner, closed_in);
        if (k == frames.size() && closed_in != nullptr) k = find_frame(frames, owner, nullptr);
        if (k != frames.size()) {
            const OpenFrame f = frames[k];
            const bool innermost = k + 1 == frames.size();
            frames.erase(frames.begin() + static_cast<std::ptrdiff_t>(k));
            if (innermost) {
                detail::close_scope(f.closing, f.close_tag);
            } else {
                close_out_of_order(f);
            }
            close_calls_of_a_removed_hook(*state);
            return;
        }
    }
    static bool said = false;  // the GIL is held
    if (!said) {
        said = true;
        std::fprintf(stderr,
                     "ringprof: %s%s%s closed but not open on this thread (closed twice, or opened on another "
                     "thread): ignored\n",
                     scope_name != nullptr ? "ringprof.scope('" : "a ringprof.step",
                     scope_name != nullptr ? scope_name : "", scope_name != nullptr ? "')" : "");
    }
}

// ---- _Scope --------------------------------------------------------------------------------

struct ScopeObject {
    PyObject_HEAD const Site* site;
};

PyTypeObject* g_scope_type = nullptr;
PyObject* g_scope_cache = nullptr;  // name (str) -> _Scope: scope("x") allocates only once per name

PyObject* new_scope(const Site* site) {
    auto* self = PyObject_New(ScopeObject, g_scope_type);
    if (self == nullptr) return nullptr;
    self->site = site;
    return reinterpret_cast<PyObject*>(self);
}

PyObject* scope_enter(PyObject* self, PyObject*) {
    const Site* site = reinterpret_cast<ScopeObject*>(self)->site;
    // Before the scope opens: it must not open inside a call the removed hook can never close.
    if (ThreadState* state = t_state; state != nullptr && state->hook_frames != 0) {
        close_calls_of_a_removed_hook(*state);
    }
    if (!push_frame(detail::open_scope(site), make_tag(site, EventKind::End), site, running_frame_identity())) {
        return nullptr;
    }
    Py_INCREF(self);
    return self;
}

PyObject* scope_exit(PyObject* self, PyObject* const*, Py_ssize_t) {
    const Site* site = reinterpret_cast<ScopeObject*>(self)->site;
    ThreadState* state = t_state;
    const void* closed_in = running_frame_identity();
    if (__builtin_expect(state != nullptr && !state->frames.empty() && state->frames.back().owner == site &&
                             state->frames.back().opened_in == closed_in,
                         1)) {
        const OpenFrame f = state->frames.back();
        state->frames.pop_back();
        detail::close_scope(f.closing, f.close_tag);
        if (state->hook_frames != 0) close_calls_of_a_removed_hook(*state);
        Py_RETURN_FALSE;
    }
    pop_frame(site, closed_in, site->name);
    Py_RETURN_FALSE;
}

PyObject* scope_repr(PyObject* self) {
    return PyUnicode_FromFormat("ringprof.scope('%s')", reinterpret_cast<ScopeObject*>(self)->site->name);
}

PyObject* scope_get_name(PyObject* self, void*) {
    return PyUnicode_FromString(reinterpret_cast<ScopeObject*>(self)->site->name);
}

PyMethodDef scope_methods[] = {
    {"__enter__", scope_enter, METH_NOARGS, "Opens the scope on the calling thread."},
    {"__exit__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(scope_exit)), METH_FASTCALL,
     "Closes the scope; out of order (interleaved asyncio tasks) it is closed where it opened."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef scope_getset[] = {{"name", scope_get_name, nullptr, "The timer's name.", nullptr},
                              {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot scope_slots[] = {
    {Py_tp_doc, const_cast<char*>("A named timer: `with ringprof.scope(\"name\"):`. One object per name.")},
    {Py_tp_methods, scope_methods},
    {Py_tp_getset, scope_getset},
    {Py_tp_repr, reinterpret_cast<void*>(scope_repr)},
    {0, nullptr}};

PyType_Spec scope_spec = {"ringprof._Scope", sizeof(ScopeObject), 0,
                          Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, scope_slots};

// scope(name): the interned _Scope for `name` (a dict lookup after the first call).
PyObject* scope_function(PyObject*, PyObject* name) {
    if (PyUnicode_CheckExact(name)) {
        PyObject* cached = PyDict_GetItemWithError(g_scope_cache, name);
        if (cached != nullptr) {
            Py_INCREF(cached);
            return cached;
        }
        if (PyErr_Occurred()) return nullptr;
    }
    Py_ssize_t size = 0;
    const char* text = name_text(name, "scope", &size);
    if (text == nullptr) return nullptr;
    const Site* site = intern_or_raise(std::string_view(text, static_cast<std::size_t>(size)), "<python>", 0);
    if (site == nullptr) return nullptr;
    PyObject* scope = new_scope(site);
    if (scope == nullptr) return nullptr;
    if (PyUnicode_CheckExact(name) && PyDict_SetItem(g_scope_cache, name, scope) != 0) {
        Py_DECREF(scope);
        return nullptr;
    }
    return scope;
}

// _scope_at(name, file, line): a _Scope whose statistics row says where the code is (used by
// @ringprof.function with the function's file and first line). Not cached: made once per
// decorated function.
PyObject* scope_at_function(PyObject*, PyObject* args) {
    PyObject* name = nullptr;
    const char* file = nullptr;
    unsigned int line = 0;
    if (!PyArg_ParseTuple(args, "OsI:_scope_at", &name, &file, &line)) return nullptr;
    Py_ssize_t size = 0;
    const char* text = name_text(name, "function", &size);
    if (text == nullptr) return nullptr;
    const Site* site = intern_or_raise(std::string_view(text, static_cast<std::size_t>(size)), file, line);
    return site == nullptr ? nullptr : new_scope(site);
}

// ---- gauge ---------------------------------------------------------------------------------

PyObject* g_gauge_sites = nullptr;  // name (str) -> int(address of its Site)

const Site* gauge_site(PyObject* name) {
    if (PyUnicode_CheckExact(name)) {
        PyObject* cached = PyDict_GetItemWithError(g_gauge_sites, name);
        if (cached != nullptr) return static_cast<const Site*>(PyLong_AsVoidPtr(cached));
        if (PyErr_Occurred()) return nullptr;
    }
    Py_ssize_t size = 0;
    const char* text = name_text(name, "gauge", &size);
    if (text == nullptr) return nullptr;
    const Site* site = intern_or_raise(std::string_view(text, static_cast<std::size_t>(size)), "<python gauge>", 0);
    if (site == nullptr) return nullptr;
    if (PyUnicode_CheckExact(name)) {
        PyObject* address = PyLong_FromVoidPtr(const_cast<Site*>(site));
        if (address == nullptr || PyDict_SetItem(g_gauge_sites, name, address) != 0) {
            Py_XDECREF(address);
            return nullptr;
        }
        Py_DECREF(address);
    }
    return site;
}

PyObject* gauge_function(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "ringprof.gauge(name, value) takes 2 arguments (%zd given)", nargs);
        return nullptr;
    }
    const Site* site = gauge_site(args[0]);
    if (site == nullptr) return nullptr;
    const double value = PyFloat_AsDouble(args[1]);
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "ringprof.gauge('%s', value): value must be a real number, not %.100s",
                     site->name, Py_TYPE(args[1])->tp_name);
        return nullptr;
    }
    Event events[2] = {{0, make_tag(site, EventKind::Gauge)}, {detail::bits_of(value), 0}};
    detail::write_record(events, 2);
    Py_RETURN_NONE;
}

// ---- _Step ---------------------------------------------------------------------------------

struct StepObject {
    PyObject_HEAD long long step;
    int mode;
};

PyTypeObject* g_step_type = nullptr;

PyObject* step_enter(PyObject* self, PyObject*) {
    auto* s = reinterpret_cast<StepObject*>(self);
    const auto m = static_cast<std::uint64_t>(s->mode) & 3u;
    Event record[2] = {Event{0, make_tag(m, EventKind::StepBegin)},
                       detail::payload(static_cast<std::uint64_t>(s->step))};
    if (ThreadState* state = t_state; state != nullptr && state->hook_frames != 0) {
        close_calls_of_a_removed_hook(*state);
    }
    const Closing closing = detail::open_record(record, 2);
    if (!push_frame(closing, make_tag(m, EventKind::StepEnd), self, nullptr)) return nullptr;
    Py_INCREF(self);
    return self;
}

PyObject* step_exit(PyObject* self, PyObject* const*, Py_ssize_t) {
    pop_frame(self, nullptr, nullptr);
    Py_RETURN_FALSE;
}

PyMethodDef step_methods[] = {{"__enter__", step_enter, METH_NOARGS, "Starts the step on the calling thread."},
                              {"__exit__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(step_exit)),
                               METH_FASTCALL, "Ends the step."},
                              {nullptr, nullptr, 0, nullptr}};

PyType_Slot step_slots[] = {{Py_tp_doc, const_cast<char*>("A training step: `with ringprof.step(n):`.")},
                            {Py_tp_methods, step_methods},
                            {0, nullptr}};

PyType_Spec step_spec = {"ringprof._Step", sizeof(StepObject), 0,
                         Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, step_slots};

int mode_of(PyObject* mode) {
    if (mode == nullptr) return 0;
    static constexpr const char* kModes[4] = {"TRAIN", "EVAL", "PREDICT", "GLOBAL"};
    if (PyUnicode_Check(mode)) {
        const char* text = PyUnicode_AsUTF8(mode);
        if (text == nullptr) return -1;
        for (int m = 0; m < 4; ++m) {
            if (std::strcmp(text, kModes[m]) == 0) return m;
        }
    }
    PyErr_Format(PyExc_ValueError, "ringprof.step: mode must be 'TRAIN', 'EVAL', 'PREDICT' or 'GLOBAL', not %R", mode);
    return -1;
}

PyObject* step_function(PyObject*, PyObject* args, PyObject* kwargs) {
    static const char* keywords[] = {"step", "mode", nullptr};
    PyObject* number = nullptr;
    PyObject* mode = nullptr;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:step", const_cast<char**>(keywords), &number, &mode)) {
        return nullptr;
    }
    if (!PyLong_Check(number)) {
        PyErr_Format(PyExc_TypeError, "ringprof.step: the step number must be an int, not %.100s",
                     Py_TYPE(number)->tp_name);
        return nullptr;
    }
    const long long n = PyLong_AsLongLong(number);
    if (n == -1 && PyErr_Occurred()) return nullptr;
    const int m = mode_of(mode);
    if (m < 0) return nullptr;
    auto* self = PyObject_New(StepObject, g_step_type);
    if (self == nullptr) return nullptr;
    self->step = n;
    self->mode = m;
    return reinterpret_cast<PyObject*>(self);
}

// ---- Context, AdoptContext -------------------------------------------------------------------
// C++'s capture_context() / AdoptContext for Python threads: the thread's scopes nest under the
// scope where the context was captured, instead of at its own root.

struct ContextObject {
    PyObject_HEAD std::uint64_t id;  // 0: the root (nothing captured)
};

PyTypeObject* g_context_type = nullptr;

PyObject* context_repr(PyObject* self) {
    return PyUnicode_FromFormat("ringprof.Context(id=%llu)",
                                static_cast<unsigned long long>(reinterpret_cast<ContextObject*>(self)->id));
}

PyObject* context_get_id(PyObject* self, void*) {
    return PyLong_FromUnsignedLongLong(reinterpret_cast<ContextObject*>(self)->id);
}

PyGetSetDef context_getset[] = {
    {"id", context_get_id, nullptr, "The capture's id (0: the root, when nothing could be recorded).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot context_slots[] = {
    {Py_tp_doc, const_cast<char*>("Where ringprof.capture_context() was called: hand it to other threads, which "
                                  "nest under it inside `with ringprof.AdoptContext(ctx):`.")},
    {Py_tp_getset, context_getset},
    {Py_tp_repr, reinterpret_cast<void*>(context_repr)},
    {0, nullptr}};

PyType_Spec context_spec = {"ringprof.Context", sizeof(ContextObject), 0,
                            Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, context_slots};

// capture_context(): records one event at the calling thread's current scope (capture once, hand
// the context to many threads).
PyObject* capture_context_function(PyObject*, PyObject*) {
    auto* self = PyObject_New(ContextObject, g_context_type);
    if (self == nullptr) return nullptr;
    self->id = ringprof::capture_context().id;
    return reinterpret_cast<PyObject*>(self);
}

struct AdoptObject {
    PyObject_HEAD std::uint64_t id;
};

PyObject* adopt_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
    static const char* keywords[] = {"context", nullptr};
    PyObject* context = nullptr;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:AdoptContext", const_cast<char**>(keywords), &context)) {
        return nullptr;
    }
    if (!PyObject_TypeCheck(context, g_context_type)) {
        PyErr_Format(PyExc_TypeError,
                     "ringprof.AdoptContext: expects a ringprof.Context (from ringprof.capture_context()), not %.100s",
                     Py_TYPE(context)->tp_name);
        return nullptr;
    }
    auto* self = reinterpret_cast<AdoptObject*>(type->tp_alloc(type, 0));
    if (self == nullptr) return nullptr;
    self->id = reinterpret_cast<ContextObject*>(context)->id;
    return reinterpret_cast<PyObject*>(self);
}

// The adoption is a frame of the thread's stack, as a scope is: it ends with its `with` block,
// and one closed out of order (asyncio) ends as it is.
PyObject* adopt_enter(PyObject* self, PyObject*) {
    const std::uint64_t id = reinterpret_cast<AdoptObject*>(self)->id;
    if (ThreadState* state = t_state; state != nullptr && state->hook_frames != 0) {
        close_calls_of_a_removed_hook(*state);
    }
    // The root: nothing to adopt, and a frame that records nothing keeps the nesting whole.
    Event record{0, make_tag(id, EventKind::AdoptBegin)};
    const Closing closing = id != 0 ? detail::open_record(&record, 1) : detail::kNotRecording;
    if (!push_frame(closing, make_tag(id, EventKind::AdoptEnd), self, running_frame_identity())) return nullptr;
    Py_INCREF(self);
    return self;
}

PyObject* adopt_exit(PyObject* self, PyObject* const*, Py_ssize_t) {
    pop_frame(self, running_frame_identity(), nullptr);
    Py_RETURN_FALSE;
}

PyMethodDef adopt_methods[] = {
    {"__enter__", adopt_enter, METH_NOARGS, "The calling thread's scopes nest under the context from now on."},
    {"__exit__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(adopt_exit)), METH_FASTCALL,
     "The calling thread's scopes nest where they did before."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot adopt_slots[] = {
    {Py_tp_doc, const_cast<char*>("AdoptContext(ctx): `with ringprof.AdoptContext(ctx):` nests the calling "
                                  "thread's scopes under the scope where `ctx` was captured (C++'s AdoptContext).")},
    {Py_tp_new, reinterpret_cast<void*>(adopt_new)},
    {Py_tp_methods, adopt_methods},
    {0, nullptr}};

PyType_Spec adopt_spec = {"ringprof.AdoptContext", sizeof(AdoptObject), 0, Py_TPFLAGS_DEFAULT, adopt_slots};

// _open_scope_names(): the names of the calling thread's open Python scopes, outermost first
// (ringprof.mlagents records where a merge happened).
}  // namespace

PyObject* open_scope_name_list() {
    PyObject* names = PyList_New(0);
    if (names == nullptr) return nullptr;
    ThreadState* state = t_state;
    if (state == nullptr) return names;
    for (const OpenFrame& f : state->frames) {
        if (detail::kind_of(f.close_tag) != EventKind::End) continue;  // a step, not a timer
        // The site comes from the closing tag: a frame's owner is a Site only for scopes (the
        // profile hook's frames are owned by interpreter frames and C functions).
        PyObject* name = PyUnicode_FromString(static_cast<const Site*>(detail::pointer_of(f.close_tag))->name);
        if (name == nullptr || PyList_Append(names, name) != 0) {
            Py_XDECREF(name);
            Py_DECREF(names);
            return nullptr;
        }
        Py_DECREF(name);
    }
    return names;
}

namespace {

PyObject* open_scope_names(PyObject*, PyObject*) { return open_scope_name_list(); }

PyMethodDef module_functions[] = {
    {"_open_scope_names", open_scope_names, METH_NOARGS, "Names of the calling thread's open scopes."},
    {"scope", scope_function, METH_O,
     "scope(name) -> the timer `name`, for `with ringprof.scope(name):`. The name is interned on first use."},
    {"capture_context", capture_context_function, METH_NOARGS,
     "capture_context() -> a Context: the calling thread's current scope, for other threads to adopt "
     "(records one event)."},
    {"_scope_at", scope_at_function, METH_VARARGS, "_scope_at(name, file, line) -> a timer with a source location."},
    {"gauge", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(gauge_function)), METH_FASTCALL,
     "gauge(name, value): sets the gauge `name` (value, min, max and count are kept)."},
    {"step", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(step_function)), METH_VARARGS | METH_KEYWORDS,
     "step(n, mode='TRAIN') -> a context manager: training step n until the end of the `with` block."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_scope_types(PyObject* module) {
    g_scope_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&scope_spec));
    g_step_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&step_spec));
    g_scope_cache = PyDict_New();
    g_gauge_sites = PyDict_New();
    g_context_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&context_spec));
    auto* adopt_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&adopt_spec));
    if (g_scope_type == nullptr || g_step_type == nullptr || g_scope_cache == nullptr || g_gauge_sites == nullptr ||
        g_context_type == nullptr || adopt_type == nullptr) {
        return false;
    }
    disallow_instantiation(g_context_type);
    Py_INCREF(g_context_type);
    if (PyModule_AddObject(module, "Context", reinterpret_cast<PyObject*>(g_context_type)) != 0) return false;
    if (PyModule_AddObject(module, "AdoptContext", reinterpret_cast<PyObject*>(adopt_type)) != 0) return false;
    disallow_instantiation(g_scope_type);
    disallow_instantiation(g_step_type);
    // The module keeps a reference to each: they live as long as the interpreter.
    Py_INCREF(g_scope_type);
    Py_INCREF(g_step_type);
    if (PyModule_AddObject(module, "_Scope", reinterpret_cast<PyObject*>(g_scope_type)) != 0) return false;
    if (PyModule_AddObject(module, "_Step", reinterpret_cast<PyObject*>(g_step_type)) != 0) return false;
    return PyModule_AddFunctions(module, module_functions) == 0;
}

}  // namespace ringprof::python
