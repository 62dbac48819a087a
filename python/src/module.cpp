// The Python module `ringprof._ringprof`: the markers (scope_types.cpp), the session controls,
// and the aggregates as Python data for ringprof.mlagents and ringprof.Profile. It links the
// shared library, so a user's C++ extension linking ringprof::shared records into the same
// session as Python code.
#include <dlfcn.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "profile_hook.hpp"
#include "ringprof/flame.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "scope_types.hpp"
#include "site_interner.hpp"
#include "without_gil.hpp"

namespace py = pybind11;

namespace ringprof::detail {
// Ends the default session as the exit handler does (sdk/src/session/session_impl.hpp).
void stop_default_session();
}  // namespace ringprof::detail

namespace {

py::dict node_dict(const ringprof::TimerNode& n) {
    py::dict d;
    d["name"] = n.name;
    d["total"] = n.total;
    d["count"] = n.count;
    d["is_parallel"] = n.is_parallel;
    py::list children;
    for (const auto& c : n.children) children.append(node_dict(c));
    d["children"] = children;
    return d;
}

py::dict gauges_dict(const ringprof::TimerTree& tree) {
    py::dict gauges;
    for (const auto& [name, g] : tree.gauges) {
        py::dict d;
        d["value"] = g.value;
        d["min"] = g.min;
        d["max"] = g.max;
        d["count"] = g.count;
        gauges[py::str(name)] = d;
    }
    return gauges;
}

py::dict metadata_dict(const ringprof::TimerTree& tree) {
    py::dict metadata;
    for (const auto& [k, v] : tree.metadata) metadata[py::str(k)] = v;
    return metadata;
}

ringprof::Session* current_session() {
    ringprof::Session* s = ringprof::Session::current();
    if (s == nullptr) throw std::runtime_error("ringprof: no session is recording (record a scope first)");
    return s;
}

// The aggregates now (after draining every ring): the process tree, each thread's own tree,
// gauges and metadata. None when no session has started.
py::object snapshot() {
    if (ringprof::Session::current() == nullptr) return py::none();
    ringprof::Snapshot snap;
    // The drainer may wait for a thread that wants the GIL.
    snap = ringprof::python::without_gil([] { return current_session()->snapshot(); });
    py::dict d;
    d["tree"] = node_dict(snap.tree.root);
    d["gauges"] = gauges_dict(snap.tree);
    d["metadata"] = metadata_dict(snap.tree);
    py::list threads;
    for (const auto& t : snap.threads) {
        py::dict td;
        td["tid"] = t.tid;
        td["name"] = t.name;
        td["exited"] = t.exited;
        td["tree"] = node_dict(t.tree);
        threads.append(td);
    }
    d["threads"] = threads;
    d["dropped"] = snap.dropped;
    return d;
}

// Returns the tree since the last take (as snapshot()'s "tree"), then resets the session's
// timers and gauges.
py::object take_tree() {
    if (ringprof::Session::current() == nullptr) return py::none();
    ringprof::TimerTree tree;
    tree = ringprof::python::without_gil([] { return current_session()->take_tree(); });
    py::dict d;
    d["tree"] = node_dict(tree.root);
    d["gauges"] = gauges_dict(tree);
    return d;
}

py::object run_info() {
    ringprof::Session* s = ringprof::Session::current();
    if (s == nullptr) return py::none();
    const ringprof::RunInfo& r = s->run_info();
    py::dict d;
    d["output_dir"] = r.output_dir;
    d["run_id"] = r.run_id;
    d["pid"] = r.pid;
    d["start_epoch_ns"] = r.start_epoch_ns;
    return d;
}

// Where ringprof.mlagents' merge() is called: a context captured at the calling thread's current
// scope (for the engine's graft, later) and the names of the open scopes (for the thread's own
// view). The graft itself is deferred: it is a round trip to the drainer, far dearer than
// ML-Agents' merge of a small tree, so merges accumulate in Python and are grafted in batches.
py::tuple merge_point() {
    PyObject* path = ringprof::python::open_scope_name_list();
    if (path == nullptr) throw py::error_already_set();
    py::list names = py::reinterpret_steal<py::list>(path);
    return py::make_tuple(ringprof::capture_context().id, names);
}

// Grafts a tree (timers JSON) under `graft_path` below the scope `context_id` was captured in.
void graft_at(std::uint64_t context_id, const std::string& json, const std::string& graft_path) {
    ringprof::TimerTree tree;
    try {
        tree = ringprof::parse_timers_json(json, "merged tree");
    } catch (const ringprof::TimersJsonError& e) {
        throw py::value_error(std::string("ringprof: the tree to merge is not a timers tree: ") + e.what());
    }
    ringprof::Session* s = ringprof::Session::current();
    if (s == nullptr) return;
    ringprof::python::without_gil([&] { s->graft(ringprof::Context{context_id}, graft_path, tree); });
}

// The interactive flame page of the session's tree now, written to `path`.
void write_flame_page(const std::string& path, const std::string& title) {
    std::string page;
    page = ringprof::python::without_gil(
        [&] { return ringprof::render_html(ringprof::flame_profile(current_session()->snapshot(), title)); });
    try {
        ringprof::write_file_atomically(path, page);  // never through a link someone else put at `path`
    } catch (const ringprof::OutputError& e) {
        throw std::runtime_error(std::string("ringprof.plot: ") + e.what());
    }
}

// Where this copy of the extension was loaded from.
std::string extension_path() {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<const void*>(&extension_path), &info) == 0 || info.dli_fname == nullptr) {
        return "?";
    }
    return info.dli_fname;
}

// One engine per interpreter. The same package reached under a second name (a symlink to it, a
// parent folder also on sys.path) would run this initialization again: pybind11 would re-make
// the module definition the first module still uses and register its types twice in its
// interpreter-wide registry — an ImportError on the clash, then memory freed twice at exit. The
// second load is refused before any of that. pybind11's shared data is interpreter-wide, so a
// second copy of the file (another build or installation) is refused too.
struct FirstLoad {
    std::string path;
    PyObject* module;  // a reference kept: its __name__ is the full name once imported
};
constexpr char kFirstLoadKey[] = "ringprof._ringprof: first load";

// False with an ImportError set when the engine is loaded already.
bool first_load() {
    const auto* first = static_cast<const FirstLoad*>(py::get_shared_data(kFirstLoadKey));
    if (first == nullptr) return true;
    PyObject* name = PyObject_GetAttrString(first->module, "__name__");
    const char* text = name != nullptr ? PyUnicode_AsUTF8(name) : nullptr;
    PyErr_Clear();
    const std::string message =
        std::string("ringprof: the engine is already loaded in this process, as ") + (text ? text : "?") + " from " +
        first->path + "; this import would load it a second time (from " + extension_path() +
        "). Import ringprof by one name only: check sys.path for a second way to the same package";
    Py_XDECREF(name);
    PyErr_SetString(PyExc_ImportError, message.c_str());
    return false;
}

void remember_first_load(const py::module_& m) {
    py::set_shared_data(kFirstLoadKey, new FirstLoad{extension_path(), m.inc_ref().ptr()});  // for the process's life
}

void init_engine(py::module_& m);

py::module_::module_def g_module_def;

}  // namespace

// PYBIND11_MODULE, with the check first_load() needs before the module is made.
extern "C" PYBIND11_EXPORT PyObject* PyInit__ringprof() {
    PYBIND11_CHECK_PYTHON_VERSION
    PYBIND11_ENSURE_INTERNALS_READY
    if (!first_load()) return nullptr;
    auto m = py::module_::create_extension_module("_ringprof", nullptr, &g_module_def);
    try {
        init_engine(m);
        remember_first_load(m);
        return m.ptr();
    }
    PYBIND11_CATCH_INIT_EXCEPTIONS
}

namespace {

void init_engine(py::module_& m) {
    m.doc() = "ringprof's engine: markers, session controls and aggregates (see docs/python.md)";
    if (!ringprof::python::add_scope_types(m.ptr())) throw py::error_already_set();

    m.def("enable", &ringprof::enable, "Records from now on (the whole process).");
    m.def("disable", &ringprof::disable, "Stops recording (a disabled scope costs a load and a branch).");
    m.def("is_enabled", &ringprof::is_enabled, "True while recording (see enable() and disable()).");
    m.def(
        "flush", [] { ringprof::python::without_gil(&ringprof::flush); },
        "Drains every ring and rewrites the output files now.");
    m.def(
        "add_metadata", [](const std::string& key, const std::string& value) { ringprof::add_metadata(key, value); },
        py::arg("key"), py::arg("value"), "Adds key/value to the timers file's metadata.");
    m.def(
        "set_thread_name", [](const std::string& name) { ringprof::set_thread_name(name); }, py::arg("name"),
        "Names the calling thread in every output (otherwise its OS name is used).");
    m.def("dropped_scopes", &ringprof::dropped_scopes,
          "Scopes refused because a ring was full, over all threads of the session.");
    m.def(
        "_stop_session", [] { ringprof::python::without_gil(&ringprof::detail::stop_default_session); },
        "Ends the process's session now, as at exit; nothing records after it.");
    m.def("_snapshot", &snapshot);
    m.def("_take_tree", &take_tree);
    m.def("_run_info", &run_info);
    m.def("_merge_point", &merge_point);
    m.def("_graft_at", &graft_at, py::arg("context_id"), py::arg("timers_json"), py::arg("graft_path"));
    m.def("_write_flame_page", &write_flame_page, py::arg("path"), py::arg("title"));
    ringprof::python::add_profile_hook(m);
    m.def("_interned_site_count", &ringprof::python::interned_site_count);
}

}  // namespace
