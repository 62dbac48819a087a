# The library's layers: one folder each, and the layers whose headers it may include. This file is
# the one place the rule is written: sdk/CMakeLists.txt builds a target per layer from it, and the
# test suite (tests/layers/check_includes.cmake) reads it to refuse any `#include "..."` in
# sdk/src, backends/, tools/ or python/ that reaches a layer not named here. A layer names only
# layers listed above it, so the graph has no cycle by construction.
#
#   ringprof_layer(<name> [DIR <folder, from the project's root>] [USES <layer>...] [PROGRAM])
#
# DIR defaults to sdk/src/<name>. PROGRAM: the folder's sources belong to a program built
# elsewhere (the ringprof tool), so only the include rule applies. Every layer may include the
# public headers (ringprof/...), which are the library's interface, not a layer: they include only
# each other and the standard library (checked by the same test).
#
# Two stacks meet in the library. The offline one, under the ringprof tool's subcommands: readers
# of JSON and trace files at the bottom, then the trees, statistics, flame graphs, merge and
# steps built on them. The live one, under PROF_SCOPE: the process's settings, files and fork
# safety; then what runs on the user's thread (record: rings, their room, the registry, the
# markers' slow path); then what turns rings into aggregates on the drainer thread (drain); then
# spans to timeline writers (timeline); then the session and the API that start, set, read and
# end it all (session); then the built-in backends.
#
# Two declarations let a layer call one above it without including it, on purpose:
# - record/default_session.hpp, defined in session/: the first marker's slow path starts the
#   default session. The values recording takes from a session (ring size, custom clock, full-ring
#   policy) are handed down when it starts, into record/, so they add no edge.
# - session/builtin_backends.hpp, defined in backends/: the default session, started from that
#   slow path, needs the built-in outputs; registering them from backends/ by a static
#   initializer instead would be dropped silently by the linker from a static archive.
# Functions a public header declares are defined in some layer, and calls through the public
# headers are link edges this file does not order: ringprof/markers.hpp's module_unloading, defined
# in drain/, is referred to by every file that has markers, record/'s included.
#
# Words kept to one meaning each. Trees: CallNode is a thread's call tree in the drainer (nodes
# by call site); AggNode (tree/) is a tree summed from several threads, which counts the threads
# that fed each node; TimerNode (ringprof/timer_tree.hpp) is the timers.json tree every output
# takes. Trees are merged (TimerTree::merge, `ringprof merge-timers`, a worker's tree, threads
# summed for a flame graph) by tree/merge_nodes.hpp alone. The merge/ folder is `ringprof merge`:
# the timelines of many processes into one. "profile" is ringprof::Profile (cProfile's
# counterpart, session/profile.cpp, which the Python module's Profile wraps) or a FlameProfile
# (flame/), nothing else.

# Shared bottom: pieces both stacks use.
ringprof_layer(tree)                                  # tree nodes: child lookups, merge, parallel rule
ringprof_layer(json)                                  # JSON text out, checked JSON values in
ringprof_layer(process)                               # settings, files, fork safety, quiet threads

# The offline stack.
ringprof_layer(trace USES json)                       # reading trace and timeline files
ringprof_layer(timers USES tree json process)         # timers.json trees
ringprof_layer(stats USES json process)               # cProfile-style statistics files and tables
ringprof_layer(merge USES json process trace)         # ringprof merge
ringprof_layer(steps USES json trace merge)           # ringprof steps
ringprof_layer(system_stats USES json trace merge steps)  # ringprof utilization, job, rules: smdebug's analyses
ringprof_layer(flame USES tree json trace merge system_stats)  # flame graphs (a folder read as merge reads it)

# The live stack.
ringprof_layer(system USES json process)              # system metrics: /proc, NVML, smdebug's system files
ringprof_layer(record USES process)                   # what runs on the user's thread: rings, registry, slow path
ringprof_layer(drain USES tree process record)        # rings to aggregates: drainer, call trees, statistics
ringprof_layer(timeline USES json process record drain)  # spans to the timeline writers
ringprof_layer(session USES json process system record drain timeline)  # start, settings, end, the API
ringprof_layer(backends DIR backends USES json process session)  # the built-in outputs

# Programs on the public API only: the command-line tool and the Python module.
ringprof_layer(tools DIR tools PROGRAM)
ringprof_layer(python DIR python PROGRAM)
