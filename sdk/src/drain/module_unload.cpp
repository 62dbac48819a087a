// A module that holds markers is unloading (markers.hpp's ModuleWatch, from its static
// destructors at dlclose): every event its markers left in the rings is decoded now, while its
// sites are still mapped, and then its sites stop being keys of the site table (site_table.hpp),
// so nothing the drainer keeps points into it and a module mapped at its address later is not
// taken for it.
#include <link.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "drain/drainer.hpp"
#include "drain/site_table.hpp"
#include "ringprof/markers.hpp"

namespace ringprof::detail {

namespace {

// A drainer that made no progress for that long (a backend hung on a full disk or a lock) is not
// waited for: the program's dlclose goes on, and the module's events still in the rings are said on
// stderr. A drainer that works on is waited for, as the session's end waits.
constexpr std::chrono::seconds kUnloadDrainWait{10};

struct ModuleRange {
    std::uintptr_t address;
    std::uintptr_t lo = 0;
    std::uintptr_t hi = 0;
    bool main_program = false;
};

// Set once exit() runs the handlers registered after the first drainer started: the modules
// whose destructors run after that are not unmapped (exit unmaps nothing), so a drainer blocked
// in a backend, which the session's end has already given up on, is not waited for again.
std::atomic<bool> g_exiting{false};

// dl_iterate_phdr, not dladdr: the loader's list lock, not its load lock, which dlclose holds
// while it runs the module's destructors (a recursive lock here, but not one to rely on).
int find_module(dl_phdr_info* info, std::size_t, void* data) {
    auto& range = *static_cast<ModuleRange*>(data);
    std::uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD) continue;
        lo = std::min<std::uintptr_t>(lo, info->dlpi_addr + ph.p_vaddr);
        hi = std::max<std::uintptr_t>(hi, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
    }
    if (range.address < lo || range.address >= hi) return 0;
    range.lo = lo;
    range.hi = hi;
    range.main_program = info->dlpi_name == nullptr || info->dlpi_name[0] == '\0';
    return 1;
}

}  // namespace

void watch_for_exit() noexcept {
    static std::once_flag once;
    std::call_once(once, [] { std::atexit([] { g_exiting.store(true, std::memory_order_relaxed); }); });
}

void module_unloading(const void* address_in_module) noexcept {
    ModuleRange range{reinterpret_cast<std::uintptr_t>(address_in_module)};
    if (g_exiting.load(std::memory_order_relaxed)) return;
    if (dl_iterate_phdr(find_module, &range) == 0) return;  // not a module the loader knows
    if (range.main_program) return;                         // never unmapped: its destructors run at exit
    if (!Drainer::drain_running(kUnloadDrainWait)) {
        std::fprintf(stderr,
                     "ringprof: a module unloads (%p-%p) while the drainer has made no progress for %llds: events "
                     "its markers recorded and that are not read yet point into memory being unmapped\n",
                     reinterpret_cast<void*>(range.lo), reinterpret_cast<void*>(range.hi),
                     static_cast<long long>(kUnloadDrainWait.count()));
    }
    try {
        SiteTable::instance().forget_range(range.lo, range.hi);
    } catch (...) {
        // Out of memory for a key: the module's sites stay keys (a module mapped at its address
        // later may be named after it); nothing points into it either way.
    }
}

}  // namespace ringprof::detail
