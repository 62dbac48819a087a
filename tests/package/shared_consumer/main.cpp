#include <ringprof/ringprof.hpp>
#include <ringprof/timers_json.hpp>

#include <cstdio>

void plugin_kernel();

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    ringprof::Config c;
    c.output_dir = argv[1];
    c.run_id = "shared_consumer";
    {
        ringprof::Session session(c);
        for (int i = 0; i < 100; ++i) {
            PROF_SCOPE("program_loop");
            plugin_kernel();
        }
    }
    const auto tree = ringprof::load_timers_json(std::string(argv[1]) + "/shared_consumer_timers.json");
    const auto* node = tree.root.find_path("program_loop/plugin_kernel");
    if (node == nullptr || node->count != 100 || tree.root.find("plugin_kernel") != nullptr) {
        std::fprintf(stderr, "the plugin's scopes are not nested under the program's (two engines?)\n");
        return 1;
    }
    std::printf("shared_consumer: program_loop/plugin_kernel x%llu\n", static_cast<unsigned long long>(node->count));
    return 0;
}
