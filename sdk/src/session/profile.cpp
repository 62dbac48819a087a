#include "ringprof/profile.hpp"

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "ringprof/detail/signature_scope.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/session.hpp"
#include "session/session_impl.hpp"

namespace ringprof {

namespace {

using RowId = std::tuple<std::string, std::uint32_t, std::string, std::string, std::string>;

RowId id_of(const FunctionStats& f) { return RowId{f.file, f.line, f.name, f.signature, f.function}; }

void subtract(CallCounts& c, const CallCounts& base) {
    c.ncalls -= std::min(c.ncalls, base.ncalls);
    c.primitive_calls -= std::min(c.primitive_calls, base.primitive_calls);
    // Seconds of two snapshots: with a recalibrated TSC the difference can dip just below zero.
    c.tottime = std::max(0.0, c.tottime - base.tottime);
    c.cumtime = std::max(0.0, c.cumtime - base.cumtime);
}

// `now` minus `base`, row by row: every figure is a sum over calls, so what was collected after
// `base` is the difference. Rows and callees left without calls are dropped.
std::vector<FunctionStats> difference(const std::vector<FunctionStats>& now, const std::vector<FunctionStats>& base) {
    if (base.empty()) return now;
    std::map<RowId, const FunctionStats*> before;
    for (const FunctionStats& f : base) before.emplace(id_of(f), &f);
    std::vector<FunctionStats> out;
    std::vector<std::size_t> new_index(now.size(), SIZE_MAX);
    for (std::size_t i = 0; i < now.size(); ++i) {
        FunctionStats f = now[i];
        const auto it = before.find(id_of(f));
        if (it != before.end()) subtract(f.counts, it->second->counts);
        if (f.counts.ncalls == 0) continue;
        new_index[i] = out.size();
        out.push_back(std::move(f));
    }
    // A callee of `base` as the row of `now` it is: callees are then matched by index, not by
    // comparing every pair (a function with n callees cost n^2 comparisons of four fields).
    std::vector<std::size_t> now_of_base(base.size(), SIZE_MAX);
    for (std::size_t i = 0; i < now.size(); ++i) {
        const auto it = before.find(id_of(now[i]));
        if (it != before.end()) now_of_base[static_cast<std::size_t>(it->second - base.data())] = i;
    }
    std::unordered_multimap<std::size_t, const CallCounts*> base_callees;  // by row of `now`
    for (FunctionStats& f : out) {
        const auto it = before.find(id_of(f));
        base_callees.clear();
        if (it != before.end()) {
            for (const CalleeStats& b : it->second->callees) {
                if (now_of_base[b.callee] != SIZE_MAX) base_callees.emplace(now_of_base[b.callee], &b.counts);
            }
        }
        std::vector<CalleeStats> kept;
        for (CalleeStats c : f.callees) {
            const auto [from, to] = base_callees.equal_range(c.callee);
            for (auto b = from; b != to; ++b) subtract(c.counts, *b->second);
            if (c.counts.ncalls == 0 || new_index[c.callee] == SIZE_MAX) continue;
            c.callee = new_index[c.callee];
            kept.push_back(c);
        }
        f.callees = std::move(kept);
    }
    return out;
}

// The statistics of the session a Profile records into: the one it started (alive as long as
// the Profile), or the one that was running when it was made, held for the length of the call
// (PinnedSession) so that a call racing with that session's end (process exit, the program's
// own session destroyed) completes or finds it gone. Gone, or replaced: nothing.
std::optional<std::vector<FunctionStats>> stats_of(Session* owned, const Session* borrowed) {
    if (owned != nullptr) return owned->snapshot().stats;
    detail::PinnedSession s;
    if (!s || s.get() != borrowed) return std::nullopt;
    return s->snapshot().stats;
}

ProfilerCode code_of(const FunctionStats& f) { return ProfilerCode{f.file, f.line, f.name, f.signature}; }

void add(CallCounts& c, const CallCounts& more) {
    c.ncalls += more.ncalls;
    c.primitive_calls += more.primitive_calls;
    c.tottime += more.tottime;
    c.cumtime += more.cumtime;
}

}  // namespace

namespace detail {

std::vector<FunctionStats> stats_difference(const std::vector<FunctionStats>& now,
                                            const std::vector<FunctionStats>& base) {
    return difference(now, base);
}

std::vector<FunctionStats> stats_sum(std::vector<FunctionStats> into, const std::vector<FunctionStats>& more) {
    std::map<RowId, std::size_t> index;
    for (std::size_t i = 0; i < into.size(); ++i) index.emplace(id_of(into[i]), i);
    std::vector<std::size_t> into_of_more(more.size());
    for (std::size_t i = 0; i < more.size(); ++i) {
        const auto [it, added] = index.emplace(id_of(more[i]), into.size());
        if (added) {
            FunctionStats row = more[i];
            row.counts = CallCounts{};
            row.callees.clear();
            into.push_back(std::move(row));
        }
        into_of_more[i] = it->second;
        add(into[it->second].counts, more[i].counts);
    }
    for (std::size_t i = 0; i < more.size(); ++i) {
        std::vector<CalleeStats>& callees = into[into_of_more[i]].callees;
        for (const CalleeStats& c : more[i].callees) {
            const std::size_t callee = into_of_more[c.callee];
            auto same = std::find_if(callees.begin(), callees.end(),
                                     [&](const CalleeStats& have) { return have.callee == callee; });
            if (same == callees.end()) {
                callees.push_back(CalleeStats{callee, c.counts});
            } else {
                add(same->counts, c.counts);
            }
        }
    }
    return into;
}

std::vector<FunctionStats> running_thread_stats(std::uint32_t tid) {
    PinnedSession s;  // held for the call: a session ending meanwhile completes it or is gone
    return s ? s->thread_stats(tid) : std::vector<FunctionStats>{};
}

}  // namespace detail

Profile::Profile(ProfileOptions options) : options_(std::move(options)) {
    {
        detail::PinnedSession s;
        if (s) {
            if (options_.custom_timer != nullptr && s->config().custom_clock != options_.custom_timer) {
                throw std::logic_error(
                    "ringprof::Profile: a session with another clock is already recording; a custom_timer "
                    "can only be used by a Profile that starts the session");
            }
            baseline_ = s->snapshot().stats;  // what the running session collected before us
            borrowed_ = s.get();
            return;
        }
    }
    Config config = options_.session ? *options_.session : Config::from_environment();
    config.start_enabled = false;  // accelerate's Profile records from enable() on
    if (options_.custom_timer != nullptr) {
        config.custom_clock = options_.custom_timer;
        config.custom_clock_seconds_per_tick = options_.time_unit;
    }
    owned_ = std::make_unique<Session>(std::move(config));
}

Profile::~Profile() {
    if (owned_) ringprof::disable();
    detail::g_record_signatures.store(true, std::memory_order_relaxed);  // the process default
}

void Profile::enable() { enable(options_.subcalls); }

void Profile::enable(bool subcalls) {
    options_.subcalls = subcalls;
    detail::g_record_signatures.store(options_.signatures, std::memory_order_relaxed);
    ringprof::enable();
}

void Profile::disable() { ringprof::disable(); }

void Profile::clear() {
    std::optional<std::vector<FunctionStats>> now = stats_of(owned_.get(), borrowed_);
    baseline_ = now ? std::move(*now) : std::vector<FunctionStats>{};
}

std::vector<FunctionStats> Profile::stats() {
    const std::optional<std::vector<FunctionStats>> now = stats_of(owned_.get(), borrowed_);
    return now ? difference(*now, baseline_) : std::vector<FunctionStats>{};
}

std::vector<ProfilerEntry> Profile::getstats() {
    const std::vector<FunctionStats> rows = stats();
    std::vector<ProfilerEntry> entries;
    entries.reserve(rows.size());
    for (const FunctionStats& f : rows) {
        ProfilerEntry e;
        e.code = code_of(f);
        e.callcount = f.counts.ncalls;
        e.reccallcount = f.counts.ncalls - f.counts.primitive_calls;
        e.totaltime = f.counts.cumtime;
        e.inlinetime = f.counts.tottime;
        if (options_.subcalls) {
            e.calls.emplace();
            for (const CalleeStats& c : f.callees) {
                ProfilerSubEntry s;
                s.code = code_of(rows[c.callee]);
                s.callcount = c.counts.ncalls;
                s.reccallcount = c.counts.ncalls - c.counts.primitive_calls;
                s.totaltime = c.counts.cumtime;
                s.inlinetime = c.counts.tottime;
                e.calls->push_back(std::move(s));
            }
        }
        entries.push_back(std::move(e));
    }
    return entries;
}

void Profile::print_stats(std::ostream& out, StatsSort sort) {
    StatsTableOptions options;
    options.sort = sort;
    print_stats_table(out, stats(), options);
}

void Profile::print_stats(std::ostream& out, std::string_view sort) {
    const std::optional<StatsSort> key = parse_stats_sort(sort);
    if (!key) {
        throw std::invalid_argument("ringprof::Profile::print_stats: unknown sort key '" + std::string(sort) +
                                    "' (known: " + stats_sort_keys() + ")");
    }
    print_stats(out, *key);
}

void Profile::print_stats(StatsSort sort) { print_stats(std::cout, sort); }

}  // namespace ringprof
