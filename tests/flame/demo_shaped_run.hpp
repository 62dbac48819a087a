// A run shaped like the demo, small: a "trainer" thread stepping (forward and backward) while
// four workers, adopting its "training" context, collect rollouts and exit before the session
// ends. Run in a forked child with a deadline; its outputs are what the tests read back.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bounded_process.hpp"
#include "ringprof/ringprof.hpp"

namespace flame_test {

struct DemoShapedRun {
    std::string dir, html, trace;
    std::vector<std::string> worker_tids;  // of the unnamed workers, as decimal text
    bool finished = false;
    int exit_code = -1;
};

inline void spin_for(std::chrono::microseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) {
    }
}

// Workers 0 and 1 name themselves; 2 and 3 keep the default name ("thread <tid>").
inline DemoShapedRun run_demo_shaped(const std::string& name) {
    DemoShapedRun r;
    r.dir = std::string(RINGPROF_TEST_BINARY_DIR) + "/" + name;
    std::filesystem::remove_all(r.dir);
    std::filesystem::create_directories(r.dir);
    r.html = r.dir + "/" + name + "_flame.html";
    r.trace = r.dir + "/" + name + "_trace.json.gz";
    const std::string tids = r.dir + "/unnamed_tids.txt";
    const auto outcome = ringprof::testing::run_bounded(
        [&] {
            ringprof::Config c;
            c.output_dir = r.dir;
            c.run_id = name;
            c.backends = {"flame", "trace"};
            ringprof::Session session(c);
            ringprof::set_thread_name("trainer");
            {
                PROF_SCOPE("training");
                const ringprof::Context training = ringprof::current_context();
                std::vector<std::thread> workers;
                std::ofstream tid_file(tids);
                std::vector<long> unnamed(4, 0);
                for (int w = 0; w < 4; ++w) {
                    workers.emplace_back([w, training, &unnamed] {
                        if (w < 2)
                            ringprof::set_thread_name("env_worker_" + std::to_string(w));
                        else
                            unnamed[w] = ::syscall(SYS_gettid);
                        ringprof::AdoptContext adopt(training);
                        for (int i = 0; i < 12; ++i) {
                            PROF_SCOPE("collect_rollout");
                            for (int k = 0; k < 20; ++k) {
                                PROF_SCOPE("env_step");
                                spin_for(std::chrono::microseconds(150));
                            }
                        }
                    });
                }
                for (int step = 0; step < 12; ++step) {
                    PROF_STEP(step);
                    PROF_SCOPE("train_step");
                    {
                        PROF_SCOPE("policy_forward");
                        spin_for(std::chrono::microseconds(1000));
                    }
                    {
                        PROF_SCOPE("policy_backward");
                        spin_for(std::chrono::microseconds(2000));
                    }
                }
                for (auto& t : workers) t.join();
                tid_file << unnamed[2] << '\n' << unnamed[3] << '\n';
            }
            return 0;
        },
        ringprof::testing::without_exit_handlers(std::chrono::seconds(60)));
    r.finished = outcome.finished;
    r.exit_code = outcome.exit_code;
    std::ifstream in(tids);
    for (std::string line; std::getline(in, line);) r.worker_tids.push_back(line);
    return r;
}

}  // namespace flame_test
