# The library's layers: one folder each, the layers whose headers it may include, and the public
# headers it implements. This file is the one place the rule is written: sdk/CMakeLists.txt builds a
# target per layer from it, and the test suite (tests/layers/check_includes.cmake) reads it to refuse
# any `#include "..."` in sdk/src, backends/, tools/, python/ or sdk/include that reaches a layer not
# named here. A layer names only layers listed above it, so the graph has no cycle by construction.
#
#   ringprof_layer(<name> [DIR <folder, from the project's root>] [USES <layer>...] [PROGRAM]
#                  [PUBLIC <ringprof/header>...])
#
# DIR defaults to sdk/src/<name>. PROGRAM: the folder's sources belong to a program built
# elsewhere (the ringprof tool), so only the include rule applies, and it may include every public
# header (the library it links is whole).
#
# PUBLIC: the public headers (sdk/include/ringprof/...) of this layer, the one whose sources define
# what they declare; a header that declares nothing out of line (types, inline code) belongs to the
# lowest layer that makes or fills what it describes. Every public header belongs to exactly one
# layer, and a public header is a header of its layer like any other: a file, public headers
# included, may include one only if it may use that header's layer. So a call through a public
# header is an edge this file declares, and the users' compilers still see only ringprof/...
# (public headers include only each other and the standard library).
#
# Two stacks meet in the library. The offline one, under the ringprof tool's subcommands: readers
# of JSON and trace files at the bottom, then the timers files, statistics, merge and steps built
# on them. The live one, under PROF_SCOPE: the process's settings, files and fork
# safety; then what runs on the user's thread (record: rings, their room, the registry, the
# markers' slow path); then what turns rings into aggregates on the drainer thread (drain); then
# spans to timeline writers (timeline); then the session and the API that start, set, read and
# end it all (session); then the built-in backends. Flame graphs are drawn from both (a folder
# read as merge reads it, `ringprof flame`; a session's aggregates, the flame backends), so they
# sit above the drain.
#
# Three declarations let a layer call one above it without including it, on purpose:
# - record/default_session.hpp, defined in session/: the first marker's slow path starts the
#   default session. The values recording takes from a session (ring size, custom clock, full-ring
#   policy) are handed down when it starts, into record/, so they add no edge.
# - session/builtin_backends.hpp, defined in backends/: the default session, started from that
#   slow path, needs the built-in outputs; registering them from backends/ by a static
#   initializer instead would be dropped silently by the linker from a static archive.
# - ringprof/markers.hpp (record) declares module_unloading, defined in drain/: a module's static
#   destructors call it at dlclose, so its events are drained while its sites are still mapped.
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
ringprof_layer(tree                                   # timer trees and their nodes: child lookups, merge, parallel rule
               PUBLIC ringprof/timer_tree.hpp)
ringprof_layer(json)                                  # JSON text out, checked JSON values in
ringprof_layer(process                                # settings, files, fork safety, quiet threads
               PUBLIC ringprof/config.hpp ringprof/output_files.hpp
                      ringprof/version.hpp)           # generated from project(VERSION): constants only

# The offline stack.
ringprof_layer(trace USES json)                       # reading trace and timeline files
ringprof_layer(timers USES tree json process          # timers.json files
               PUBLIC ringprof/timers_json.hpp)
ringprof_layer(stats USES json process                # cProfile-style statistics files and tables
               PUBLIC ringprof/stats.hpp)
ringprof_layer(merge USES json process trace          # ringprof merge
               PUBLIC ringprof/merged_timeline.hpp)
ringprof_layer(steps USES json trace merge            # ringprof steps
               PUBLIC ringprof/step_statistics.hpp)
ringprof_layer(system_stats USES json trace merge steps  # ringprof utilization, job, rules: smdebug's analyses
               PUBLIC ringprof/system_statistics.hpp ringprof/system_rules.hpp)

# The live stack.
ringprof_layer(system USES json process)              # system metrics: /proc, NVML, smdebug's system files
ringprof_layer(record USES process                    # what runs on the user's thread: rings, registry, slow path
               PUBLIC ringprof/markers.hpp ringprof/gauge.hpp ringprof/steps.hpp ringprof/signature.hpp
                      ringprof/site.hpp ringprof/context.hpp ringprof/signal_handler.hpp
                      ringprof/detail/recorder.hpp ringprof/detail/ring.hpp ringprof/detail/event.hpp
                      ringprof/detail/clock.hpp ringprof/detail/signature_scope.hpp
                      ringprof/detail/signature_codec.hpp ringprof/detail/signature_site.hpp)
ringprof_layer(drain USES tree process record stats   # rings to aggregates: drainer, call trees, statistics
               PUBLIC ringprof/backend.hpp)           # the aggregates (Snapshot) and the spans it hands on
ringprof_layer(flame USES tree json process trace timers merge steps system_stats drain  # flame graphs
               PUBLIC ringprof/flame.hpp)
ringprof_layer(timeline USES json process record drain  # spans to the timeline writers
               PUBLIC ringprof/timeline_backend.hpp)
ringprof_layer(session USES tree json process timers stats system record drain timeline  # start, settings, end, the API
               PUBLIC ringprof/ringprof.hpp ringprof/session.hpp ringprof/profile.hpp ringprof/worker_tree.hpp)
ringprof_layer(backends DIR backends                  # the built-in outputs
               USES json process timers stats record drain flame timeline session
               PUBLIC ringprof/snapshot_file_backend.hpp)

# Programs on the public API only: the command-line tool and the Python module.
ringprof_layer(tools DIR tools PROGRAM)
ringprof_layer(python DIR python PROGRAM)
