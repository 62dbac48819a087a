#include "profile_hook.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "call_signature.hpp"
#include "open_scopes.hpp"
#include "ringprof/profile.hpp"
#include "ringprof/session.hpp"
#include "site_interner.hpp"
#include "without_gil.hpp"

#include <sys/syscall.h>
#include <unistd.h>

namespace py = pybind11;

namespace ringprof::detail {
// Starts the default session if none runs (sdk/src/record/default_session.hpp; exported by libringprof.so).
void ensure_default_session();
}  // namespace ringprof::detail

namespace ringprof::python {
namespace {

// ThreadState::hook_frames counts the frames the hook opened on a thread and has not closed:
// after disable() the hook stays installed until they have returned, so that every scope it
// opened is closed in order.

struct KeyHash {
    std::size_t operator()(const std::vector<std::uint64_t>& key) const noexcept {
        std::uint64_t h = 0xcbf29ce484222325ull;
        for (std::uint64_t w : key) h = (h ^ w) * 0x100000001b3ull;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};
using SiteTable = std::unordered_map<std::vector<std::uint64_t>, const Site*, KeyHash>;
// Never destroyed (sites are referred to until the process ends). Keys hold references to the
// objects whose addresses they contain, so an address is never reused for another function.
SiteTable* const g_site_table = new SiteTable;
SiteTable& site_table() { return *g_site_table; }

// In front of the table: one entry per slot, chosen by the code object (or C function), holding
// the last key seen there. A loop calling the same functions with the same argument types hits
// it with one word-by-word compare, instead of hashing the key and walking a bucket (measured:
// without it, the table's find is the hook's largest cost).
struct CachedKey {
    std::uint64_t words[14];
    std::uint32_t size = 0;
    const Site* site = nullptr;
};
constexpr std::size_t kCacheSlots = 1024;
CachedKey* const g_key_cache = new CachedKey[kCacheSlots];

CachedKey& cache_slot(const std::vector<std::uint64_t>& key) {
    return g_key_cache[(key[1] >> 4) % kCacheSlots];  // key[1]: the code object or C function
}

const Site* cached_site(const std::vector<std::uint64_t>& key) {
    const CachedKey& c = cache_slot(key);
    if (c.size != key.size()) return nullptr;
    for (std::size_t i = 0; i < key.size(); ++i) {
        if (c.words[i] != key[i]) return nullptr;
    }
    return c.site;
}

// Looks the key up (cache, then table); null when it was never seen.
const Site* find_site(const std::vector<std::uint64_t>& key) {
    if (const Site* site = cached_site(key)) return site;
    auto it = site_table().find(key);
    if (it == site_table().end()) return nullptr;
    CachedKey& c = cache_slot(key);
    if (key.size() <= std::size(c.words)) {
        std::copy(key.begin(), key.end(), c.words);
        c.size = static_cast<std::uint32_t>(key.size());
        c.site = it->second;
    }
    return it->second;
}

// Frames of ringprof's own Python layer (Profile.disable, __exit__, getstats, ...) and what they
// call are no rows, but for the profiler's own C methods: with cProfile those are what the user
// calls directly. Their code objects map to this site, which the hook never opens.
const Site g_hidden_site{"", "", "", 0};
std::vector<PyObject*>* const g_hidden_code = new std::vector<PyObject*>;  // references kept
// The C-level methods of the profiler (its disable() is the one row of the profiler cProfile
// also shows), named as cProfile names its own, `<method 'disable' of '_lsprof.Profiler'
// objects>`, after ringprof's class.
std::vector<const PyMethodDef*>* const g_profiler_methods = new std::vector<const PyMethodDef*>;

bool is_hidden(PyCodeObject* code) {
    const auto& hidden = *g_hidden_code;
    return std::find(hidden.begin(), hidden.end(), reinterpret_cast<PyObject*>(code)) != hidden.end();
}

enum KeyKind : std::uint64_t { kPythonCall = 1, kCFunction = 2 };

std::string utf8(PyObject* text) {
    const char* s = text != nullptr ? PyUnicode_AsUTF8(text) : nullptr;
    if (s == nullptr) {
        PyErr_Clear();
        return "?";
    }
    return s;
}

const Site* remember(std::vector<std::uint64_t>& key, const std::string& name, const std::string& file,
                     std::uint32_t line, std::uint32_t variant = 0) {
    const Site* site = intern_site(name, file, line, variant);
    site_table().emplace(key, site);
    return site;
}

// The code object of each Python function's site (a reference the site table's key holds), so
// getstats() can give cProfile's code objects.
std::unordered_map<const Site*, PyObject*>* const g_site_codes = new std::unordered_map<const Site*, PyObject*>;
// The code objects seen under each row label (name, file, line), in order: the n-th is variant n
// of that label, a row of its own (cProfile counts code objects apart: two lambdas on one line,
// a notebook cell's statements).
std::unordered_map<std::string, std::vector<PyObject*>>* const g_label_codes =
    new std::unordered_map<std::string, std::vector<PyObject*>>;

std::uint32_t variant_of(PyObject* code, const std::string& name, const std::string& file, std::uint32_t line) {
    std::vector<PyObject*>& codes = (*g_label_codes)[name + '\0' + file + '\0' + std::to_string(line)];
    const auto it = std::find(codes.begin(), codes.end(), code);
    if (it != codes.end()) return static_cast<std::uint32_t>(it - codes.begin());
    codes.push_back(code);  // kept alive by the site table's key
    return static_cast<std::uint32_t>(codes.size() - 1);
}

// `key` is the thread's scratch vector: a lookup allocates nothing.
const Site* site_for_python_call(PyFrameObject* frame, std::vector<std::uint64_t>& key, bool signatures) {
    PyCodeObject* code = PyFrame_GetCode(frame);  // a new reference
    key.clear();
    key.push_back(kPythonCall);
    key.push_back(reinterpret_cast<std::uintptr_t>(code));
    if (signatures) append_signature_key(frame, code, key);
    if (const Site* site = find_site(key)) {
        Py_DECREF(code);
        return site;
    }
    if (is_hidden(code)) {  // the table keeps the reference taken above
        site_table().emplace(key, &g_hidden_site);
        return &g_hidden_site;
    }
    // co_name, not the qualified name: cProfile's (file, line, name) label of a function.
    std::string name = utf8(code->co_name);
    if (signatures && !signature_text(frame, code, name)) PyErr_Clear();
    // The table keeps the reference taken above.
    const std::string file = utf8(code->co_filename);
    const auto line = static_cast<std::uint32_t>(code->co_firstlineno);
    const Site* site =
        remember(key, name, file, line, variant_of(reinterpret_cast<PyObject*>(code), name, file, line));
    g_site_codes->try_emplace(site, reinterpret_cast<PyObject*>(code));
    return site;
}

bool is_profiler_method(PyObject* callable) {
    if (!PyCFunction_Check(callable)) return false;
    const PyMethodDef* method = reinterpret_cast<PyCFunctionObject*>(callable)->m_ml;
    const auto& own = *g_profiler_methods;
    return std::find(own.begin(), own.end(), method) != own.end();
}

std::string utf8_or(PyObject* text, const std::string& otherwise) {
    const char* s = text != nullptr && PyUnicode_Check(text) ? PyUnicode_AsUTF8(text) : nullptr;
    if (s == nullptr) {
        PyErr_Clear();
        return otherwise;
    }
    return s;
}

// cProfile's name for a C function (_lsprof's normalizeUserObj), so that rows, pstats files and
// the tools reading them match cProfile's: a function without `self` is <module.name> (<name> for
// builtins); a method is the repr of what its type holds under that name, "<method 'append' of
// 'list' objects>"; otherwise "<built-in method module.name>" (builtins.len: `self` is a module).
std::string c_function_name(PyCFunctionObject* fn) {
    const char* name = fn->m_ml->ml_name;
    if (is_profiler_method(reinterpret_cast<PyObject*>(fn))) {
        return std::string("<method '") + name + "' of 'ringprof.Profile' objects>";
    }
    PyObject* module = fn->m_module;
    if (fn->m_self == nullptr) {
        std::string module_name;
        if (module != nullptr && PyUnicode_Check(module)) {
            module_name = utf8_or(module, "");
        } else if (module != nullptr && PyModule_Check(module)) {
            PyObject* n = PyModule_GetNameObject(module);
            module_name = utf8_or(n, "");
            Py_XDECREF(n);
        }
        if (!module_name.empty() && module_name != "builtins") return "<" + module_name + "." + name + ">";
        return std::string("<") + name + ">";
    }
    if (PyObject* attr_name = PyUnicode_FromString(name)) {
        PyObject* held = _PyType_Lookup(Py_TYPE(fn->m_self), attr_name);  // borrowed
        Py_XINCREF(held);
        Py_DECREF(attr_name);
        if (held != nullptr) {
            PyObject* repr = PyObject_Repr(held);
            Py_DECREF(held);
            if (repr != nullptr) {
                std::string text = utf8_or(repr, "");
                Py_DECREF(repr);
                if (!text.empty()) return text;
            }
        }
    }
    PyErr_Clear();
    if (module != nullptr && PyUnicode_Check(module)) {
        return "<built-in method " + utf8_or(module, "?") + "." + name + ">";
    }
    return std::string("<built-in method ") + name + ">";
}

// C functions are named as cProfile names them, in file "~" line 0 (pstats prints them in
// braces). Like cProfile, only C functions proper are rows; null for any other callable.
const Site* site_for_c_call(PyObject* callable, std::vector<std::uint64_t>& key) {
    if (!PyCFunction_Check(callable)) return nullptr;
    key.clear();
    auto* fn = reinterpret_cast<PyCFunctionObject*>(callable);
    PyObject* self = fn->m_self;
    const bool module_function = self == nullptr || PyModule_Check(self);
    // What the name depends on besides the method table: the module, or the type of `self`.
    PyObject* owner = module_function ? self : reinterpret_cast<PyObject*>(Py_TYPE(self));
    key.push_back(kCFunction);
    key.push_back(reinterpret_cast<std::uintptr_t>(fn->m_ml));
    key.push_back(reinterpret_cast<std::uintptr_t>(owner));
    if (const Site* site = find_site(key)) return site;
    const std::string name = c_function_name(fn);
    Py_XINCREF(owner);
    return remember(key, name, "~", 0);
}

// The frame is written field by field into its slot, and read back the same way below: a
// whole OpenFrame built on the stack and copied made each call wait on a store-to-load
// forwarding stall (perf annotate: a fifth of open_call's samples, a sixth of close_call's).
void open_call(ThreadState& state, const Site* site, const void* owner) {
    auto& frames = state.frames;
    if (frames.size() == frames.capacity()) frames.reserve(2 * frames.capacity());  // bad_alloc: left out
    OpenFrame& f = frames.emplace_back();
    f.closing = detail::open_scope(site);
    f.close_tag = detail::make_tag(site, detail::EventKind::End);
    f.owner = owner;
    ++state.hook_frames;
}

void close_call(ThreadState& state, const void* owner) {
    auto& frames = state.frames;
    if (frames.empty() || frames.back().owner != owner) return;  // a call that began before enable()
    const detail::Closing closing = frames.back().closing;
    const std::uint64_t close_tag = frames.back().close_tag;
    frames.pop_back();
    --state.hook_frames;
    detail::close_scope(closing, close_tag);
}

void remove_hook();
void end_closing_window(ThreadState& state);
int profile_hook(PyObject*, PyFrameObject* frame, int what, PyObject* arg);

// A frame the hook opened (owned by an interpreter frame or a C function), not a scope or step.
bool is_call_frame(const OpenFrame& f) {
    return detail::kind_of(f.close_tag) == detail::EventKind::End && f.owner != detail::pointer_of(f.close_tag);
}

}  // namespace

// sys.setprofile(None), or cProfile enabled or disabled, takes the hook off the thread while calls
// it opened are running: their returns never reach it, and they would stay open below everything
// the thread does next. Each is closed once it is the thread's innermost frame, at the thread's
// next scope, step or Profile call: its time runs until then. Said once.
void close_calls_of_a_removed_hook(ThreadState& state) noexcept {
    if (state.hook_frames == 0 || PyThreadState_Get()->c_profilefunc == profile_hook) return;
    static bool said = false;  // the GIL is held
    if (!said) {
        said = true;
        std::fprintf(stderr,
                     "ringprof: the profile hook of a ringprof.Profile was replaced or removed (sys.setprofile, "
                     "cProfile) while calls it timed were running; they end at the thread's next ringprof call\n");
    }
    std::vector<OpenFrame>& frames = state.frames;
    while (state.hook_frames > 0 && !frames.empty() && is_call_frame(frames.back())) {
        const OpenFrame f = frames.back();
        frames.pop_back();
        --state.hook_frames;
        detail::close_scope(f.closing, f.close_tag);
    }
}

namespace {

// Never raises: a call it cannot name (out of memory) is left out, the program goes on.
int profile_hook(PyObject*, PyFrameObject* frame, int what, PyObject* arg) {
    ThreadState* state = thread_state();
    if (state == nullptr) return 0;  // out of memory: this thread's calls go unrecorded
    try {
        switch (what) {
            case PyTrace_CALL:
                if (state->hook_active && state->hidden_frame == nullptr) {
                    const Site* site = site_for_python_call(frame, state->key, state->hook_signatures);
                    if (site != &g_hidden_site)
                        open_call(*state, site, frame);
                    else
                        state->hidden_frame = frame;
                }
                break;
            case PyTrace_RETURN:
                if (frame == state->hidden_frame)
                    state->hidden_frame = nullptr;
                else
                    close_call(*state, frame);
                break;
            case PyTrace_C_CALL:
                if (state->hook_active && state->hook_builtins && (state->hidden_frame == nullptr || is_profiler_method(arg))) {
                    if (const Site* site = site_for_c_call(arg, state->key)) open_call(*state, site, arg);
                }
                break;
            case PyTrace_C_RETURN:
            case PyTrace_C_EXCEPTION:
                close_call(*state, arg);
                break;
            default:
                break;
        }
    } catch (...) {
        PyErr_Clear();
    }
    if (!state->hook_active && state->hook_frames == 0) {
        remove_hook();
        end_closing_window(*state);
    }
    return 0;
}

py::dict counts_dict(const CallCounts& c) {
    py::dict d;
    d["ncalls"] = c.ncalls;
    d["primitive_calls"] = c.primitive_calls;
    d["tottime"] = c.tottime;
    d["cumtime"] = c.cumtime;
    return d;
}

class PythonProfile;
// Every Profile alive, by id (ThreadState::recording_profile, closing_profile name them, so a
// Profile destroyed while a thread still names it is simply not found). GIL-protected.
std::unordered_map<std::uint64_t, PythonProfile*>* const g_profiles = new std::unordered_map<std::uint64_t, PythonProfile*>;
std::uint64_t g_next_profile_id = 1;

PythonProfile* profile_of(std::uint64_t id) {
    const auto it = g_profiles->find(id);
    return it != g_profiles->end() ? it->second : nullptr;
}

std::uint32_t thread_id(ThreadState& state) {
    if (state.tid == 0) state.tid = static_cast<std::uint32_t>(::syscall(SYS_gettid));
    return state.tid;
}

// The program's own profile hook (sys.setprofile, another profiler) found when a Profile was
// enabled on this thread: put back when it is disabled, and named in a warning, once.
struct PreviousHook {
    Py_tracefunc func = nullptr;
    PyObject* obj = nullptr;  // a reference
};
thread_local PreviousHook t_previous_hook;
bool g_warned_previous_hook = false;

void save_previous_hook() {
    PyThreadState* ts = PyThreadState_Get();
    if (ts->c_profilefunc == nullptr || ts->c_profilefunc == profile_hook) return;
    if (!g_warned_previous_hook) {
        g_warned_previous_hook = true;
        PyErr_WarnEx(PyExc_RuntimeWarning,
                     "ringprof.Profile.enable(): this thread already has a profile hook (sys.setprofile or "
                     "another profiler); it is suspended while the Profile records and put back by disable()",
                     1);
    }
    Py_XDECREF(t_previous_hook.obj);
    t_previous_hook.func = ts->c_profilefunc;
    t_previous_hook.obj = ts->c_profileobj;
    Py_XINCREF(t_previous_hook.obj);
}

// Removes the hook, putting back the program's own if enable() found one. A hook that is not
// ringprof's (the program replaced it since) is left alone.
void remove_hook() {
    PreviousHook previous = t_previous_hook;
    t_previous_hook = PreviousHook{};
    if (PyThreadState_Get()->c_profilefunc == profile_hook) PyEval_SetProfile(previous.func, previous.obj);
    Py_XDECREF(previous.obj);
}

// accelerate's Profile over the engine's per-thread statistics. Like cProfile's, it records the
// threads it was enabled on, each from enable() to disable() on that thread (a window): it holds
// the sum of its windows, each the difference of that thread's rows between the window's ends.
// A thread records for one Profile at a time, so Profiles on other threads, and scopes or C++
// markers there, never reach its table.
class PythonProfile {
public:
    PythonProfile(bool builtins, bool signatures)
        : id_(g_next_profile_id++), builtins_(builtins), signatures_(signatures) {
        detail::ensure_default_session();
        if (Session::current() == nullptr) throw std::runtime_error("ringprof.Profile: no session could be started");
        (*g_profiles)[id_] = this;
    }

    // As cProfile's: the calling thread stops recording for it; other threads' hooks find it gone.
    ~PythonProfile() {
        g_profiles->erase(id_);
        ThreadState* state = t_state;
        if (state != nullptr && state->recording_profile == id_) {
            state->recording_profile = 0;
            state->hook_active = false;
        }
    }

    // Records the calling thread's calls from now on (cProfile's enable(): the calling thread's
    // hook). `builtins`, when given, changes the setting from now on.
    void enable(std::optional<bool> builtins) {
        if (builtins) builtins_ = *builtins;
        ThreadState* state = thread_state();
        if (state == nullptr) throw std::bad_alloc();
        // A window left to close on this thread ends now: this one begins.
        end_closing_window(*state);
        // A hidden frame left open when the hook was last removed never returned through it.
        state->hidden_frame = nullptr;
        close_calls_of_a_removed_hook(*state);
        // Another Profile recording on this thread stops, as a cProfile's hook replaced by another.
        if (state->recording_profile != 0 && state->recording_profile != id_) {
            if (PythonProfile* other = profile_of(state->recording_profile)) other->close_window(thread_id(*state));
        }
        const std::uint32_t tid = thread_id(*state);
        if (windows_.find(tid) == windows_.end()) {
            windows_.emplace(tid, without_gil([tid] { return detail::running_thread_stats(tid); }));
        }
        state->recording_profile = id_;
        state->hook_active = true;
        state->hook_builtins = builtins_;
        state->hook_signatures = signatures_;
        save_previous_hook();
        PyEval_SetProfile(profile_hook, nullptr);
    }

    // Stops recording the calling thread: calls still running there are counted whole when they
    // return (the disable() call itself, at least), as cProfile counts them; nothing new opens.
    void disable() {
        ThreadState* state = t_state;
        if (state == nullptr || state->recording_profile != id_) return;
        state->recording_profile = 0;
        state->hook_active = false;
        close_calls_of_a_removed_hook(*state);
        if (state->hook_frames == 0) {
            remove_hook();
            close_window(thread_id(*state));
        } else {
            state->closing_profile = id_;  // see end_closing_window()
        }
    }

    void clear() {
        recorded_.clear();
        for (auto& [tid, start] : windows_) {
            const std::uint32_t t = tid;
            start = without_gil([t] { return detail::running_thread_stats(t); });
        }
    }

    py::list rows() {
        std::vector<FunctionStats> stats = recorded_;
        for (const auto& [tid, start] : windows_) stats = detail::stats_sum(std::move(stats), window_rows(tid, start));
        py::list out;
        for (const FunctionStats& f : stats) {
            py::dict d;
            d["file"] = f.file;
            d["line"] = f.line;
            d["name"] = f.name;
            d["signature"] = f.signature;
            d["function"] = f.function;
            d["counts"] = counts_dict(f.counts);
            py::list callees;
            for (const CalleeStats& c : f.callees) callees.append(py::make_tuple(c.callee, counts_dict(c.counts)));
            d["callees"] = callees;
            out.append(d);
        }
        return out;
    }

    // Adds what thread `tid` collected since its window began to what this Profile holds.
    void close_window(std::uint32_t tid) {
        const auto it = windows_.find(tid);
        if (it == windows_.end()) return;
        std::vector<FunctionStats> window = window_rows(tid, it->second);
        windows_.erase(it);
        recorded_ = detail::stats_sum(std::move(recorded_), window);
    }

private:
    static std::vector<FunctionStats> window_rows(std::uint32_t tid, const std::vector<FunctionStats>& start) {
        return without_gil(
            [&] { return detail::stats_difference(detail::running_thread_stats(tid), start); });
    }

    std::uint64_t id_;
    bool builtins_;
    bool signatures_;
    std::vector<FunctionStats> recorded_;                             // the closed windows
    std::unordered_map<std::uint32_t, std::vector<FunctionStats>> windows_;  // open: the thread's rows at enable()
};

void end_closing_window(ThreadState& state) {
    const std::uint64_t closing = state.closing_profile;
    state.closing_profile = 0;
    if (PythonProfile* p = closing != 0 ? profile_of(closing) : nullptr) p->close_window(thread_id(state));
}

// The calling thread is ending (ringprof._profile's thread-end sentinel): the window of the
// Profile recording it closes while its rows can still be read, as cProfile keeps what a
// thread recorded until it ended.
void end_thread_profiles() {
    ThreadState* state = t_state;
    if (state == nullptr) return;
    end_closing_window(*state);
    if (state->recording_profile == 0) return;
    PythonProfile* p = profile_of(state->recording_profile);
    state->recording_profile = 0;
    state->hook_active = false;
    if (p != nullptr) p->close_window(thread_id(*state));
}

// Python code objects of ringprof's own layer, left out of the table (see g_hidden_site).
void hide_from_profile(py::args codes) {
    for (const py::handle code : codes) {
        if (!PyCode_Check(code.ptr())) throw py::type_error("ringprof._hide_from_profile: expects code objects");
        g_hidden_code->push_back(code.inc_ref().ptr());
    }
}

// {(file, line, function): code object} of every Python function the hook has named.
py::dict python_site_codes() {
    py::dict out;
    for (const auto& [site, code] : *g_site_codes) {
        out[py::make_tuple(site->file, site->line, site->function)] = py::reinterpret_borrow<py::object>(code);
    }
    return out;
}

}  // namespace

void add_profile_hook(py::module_& m) {
    auto profile =
        py::class_<PythonProfile>(m, "_Profile")
            .def(py::init<bool, bool>(), py::arg("builtins"), py::arg("signatures"))
            .def("enable", &PythonProfile::enable, py::arg("builtins") = py::none())
            .def("disable", &PythonProfile::disable)
            .def("clear", &PythonProfile::clear)
            .def("getstats", &PythonProfile::rows);  // named as its row should read (cProfile's getstats)
    // The methods' function objects; their method table entries name the profiler's rows.
    for (const char* method : {"enable", "disable", "clear", "getstats"}) {
        PyObject* f = profile.attr(method).ptr();
        if (PyInstanceMethod_Check(f)) f = PyInstanceMethod_GET_FUNCTION(f);
        if (PyCFunction_Check(f)) g_profiler_methods->push_back(reinterpret_cast<PyCFunctionObject*>(f)->m_ml);
    }
    m.def("_hide_from_profile", &hide_from_profile);
    m.def("_end_thread_profiles", &end_thread_profiles);
    m.def("_python_site_codes", &python_site_codes);
}

}  // namespace ringprof::python
