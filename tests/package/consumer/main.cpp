#include <ringprof/markers.hpp>  // installed, and enough for the markers
#include <ringprof/ringprof.hpp>
#include <ringprof/timers_json.hpp>

#include <cstdio>
#include <thread>

static void work() { PROF_FUNCTION(); }

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    ringprof::Config c;
    c.output_dir = argv[1];
    c.run_id = "consumer";
    {
        ringprof::Session session(c);
        std::thread t([] {
            for (int i = 0; i < 1000; ++i) work();
        });
        for (int i = 0; i < 1000; ++i) work();
        t.join();
    }
    const auto tree = ringprof::load_timers_json(std::string(argv[1]) + "/consumer_timers.json");
    const auto* node = tree.root.find("work");
    if (node == nullptr || node->count != 2000 || !node->is_parallel) {
        std::fprintf(stderr, "unexpected tree\n");
        return 1;
    }
    std::printf("consumer: work x%llu, parallel\n", static_cast<unsigned long long>(node->count));
    return 0;
}
