// The fixed-size record a marker writes into its thread's ring.
#pragma once

#include <cstdint>

namespace ringprof::detail {

// Stored in the low four bits of Event::tag; the rest of the tag is a Site pointer (16-aligned)
// or, for kinds without a site, a small integer shifted left by four.
enum class EventKind : std::uint64_t {
    Begin = 0,           // tag: Site*
    End = 1,             // tag: Site*
    StepBegin = 2,       // tag: step mode (0..3) << 4; payload: step number
    StepEnd = 3,         // tag: step mode << 4
    Gauge = 4,           // tag: Site* (the gauge's name); payload: double value
    ContextCapture = 5,  // tag: context id << 4
    AdoptBegin = 6,      // tag: context id << 4
    AdoptEnd = 7,        // tag: context id << 4
    SigBegin = 8,        // tag: Site*; payload: signature id (interned)
    // A scope of this thread closed while scopes opened after it are still open (Python `with`
    // blocks of interleaved asyncio tasks): tag: Site*. The drainer takes it out of the nesting
    // and leaves the scopes above it open, one level up.
    Detach = 9,
    // Written by the thread that ended a scope another thread opened (a coroutine resumed
    // elsewhere), into its own ring: tag: the opener's Ring* (64-aligned); payload: the scope's
    // closing tag. The drainer closes the scope in the opener's nesting at this event's time.
    EndElsewhere = 10,
    Payload = 15,        // raw 16 bytes belonging to the event before it
};

constexpr std::uint64_t kKindMask = 0xF;

// 16 bytes: four events per cache line. `tsc` is raw clock ticks; the drainer converts.
struct Event {
    std::uint64_t tsc;
    std::uint64_t tag;
};
static_assert(sizeof(Event) == 16, "events are fixed-size");

inline std::uint64_t make_tag(const void* p, EventKind k) noexcept {
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p)) | static_cast<std::uint64_t>(k);
}
constexpr std::uint64_t make_tag(std::uint64_t value, EventKind k) noexcept {
    return (value << 4) | static_cast<std::uint64_t>(k);
}
constexpr EventKind kind_of(std::uint64_t tag) noexcept { return static_cast<EventKind>(tag & kKindMask); }
constexpr std::uint64_t value_of(std::uint64_t tag) noexcept { return tag >> 4; }
inline const void* pointer_of(std::uint64_t tag) noexcept {
    return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(tag & ~kKindMask));
}

}  // namespace ringprof::detail
