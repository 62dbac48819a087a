// Worker processes, as ML-Agents runs them: each worker periodically sends its timer tree to the
// main process and resets its own; the main process grafts every tree it receives under a named
// node (default "workers/worker_root") below its current scope, marked parallel.
//
//     worker:  ringprof::send_worker_tree(pipe_write_fd);
//     parent:  { PROF_SCOPE("env_step"); ringprof::receive_worker_tree(pipe_read_fd); }
//
// fork() is safe: a child gets a profiler of its own (fresh rings and drainer, its own output
// files named with its pid) and none of the parent's data.
#pragma once

#include <string>
#include <string_view>

namespace ringprof {

// This process's tree since the last take (timers JSON, dict form, with gauges); then resets
// this process's timers and gauges. Empty if no session runs.
std::string take_worker_tree();

// Grafts a tree (timers JSON of either form) under `graft_path` below the calling thread's
// current scope, marking every merged node parallel. Throws TimersJsonError on bad input, in
// which case nothing is merged.
void merge_worker_tree(std::string_view timers_json, std::string_view graft_path = "workers/worker_root");

// Length-prefixed transport over any file descriptor (pipe, socket). send: false on a write
// error. receive: false at end of stream; throws std::runtime_error on a broken message.
bool send_worker_tree(int fd);
bool receive_worker_tree(int fd, std::string_view graft_path = "workers/worker_root");

}  // namespace ringprof
