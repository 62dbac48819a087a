#include "drain/site_table.hpp"

#include <algorithm>

namespace ringprof::detail {

namespace {
const char* or_empty(const char* s) { return s != nullptr ? s : ""; }
}  // namespace

SiteTable& SiteTable::instance() {
    static SiteTable* table = new SiteTable;  // never destroyed: a writer may still name a copy at exit
    return *table;
}

const Site* SiteTable::own(const Site* foreign, bool with_signature) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto known = by_address_.find(foreign);
    if (known != by_address_.end()) {
        OwnedSite& owned = *known->second;
        // First seen through a plain Begin (signatures off), now through a SigBegin: completed in
        // place, so the scopes already open on the copy still match their Ends.
        if (with_signature && !owned.has_signature) copy_signature(owned, *reinterpret_cast<const SignatureSite*>(foreign));
        return &owned.sig.site;
    }
    std::unique_ptr<OwnedSite> made = copy(foreign, with_signature);
    OwnedSite* owned = nullptr;
    const auto range = unbound_.equal_range(made->content);
    if (range.first != range.second) {
        owned = range.first->second;  // a module loaded again: its sites read as before
        unbound_.erase(range.first);
    } else {
        owned = made.get();
        all_.push_back(std::move(made));
    }
    by_address_.emplace(foreign, owned);
    return &owned->sig.site;
}

void SiteTable::forget_range(std::uintptr_t lo, std::uintptr_t hi) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = by_address_.begin(); it != by_address_.end();) {
        const auto address = reinterpret_cast<std::uintptr_t>(it->first);
        if (address < lo || address >= hi) {
            ++it;
            continue;
        }
        it->second->content = content_of(*it->second);
        unbound_.emplace(it->second->content, it->second);
        it = by_address_.erase(it);
    }
    generation_.fetch_add(1, std::memory_order_release);
}

std::unique_ptr<OwnedSite> SiteTable::copy(const Site* foreign, bool with_signature) const {
    auto owned = std::make_unique<OwnedSite>();
    owned->name = or_empty(foreign->name);
    owned->function = or_empty(foreign->function);
    owned->file = or_empty(foreign->file);
    owned->sig.site = Site{owned->name.c_str(), owned->function.c_str(), owned->file.c_str(), foreign->line};
    if (with_signature) copy_signature(*owned, *reinterpret_cast<const SignatureSite*>(foreign));
    owned->content = content_of(*owned);
    return owned;
}

// The descriptors form chains (an element, its element...), copied by walking them: a loop, so
// no nesting of types can run the drainer out of stack.
void SiteTable::copy_signature(OwnedSite& owned, const SignatureSite& foreign) {
    owned.arg_names = or_empty(foreign.arg_names);
    owned.types.clear();
    for (std::uint32_t a = 0; a < foreign.arg_count; ++a) {
        std::vector<const TypeDesc*> chain;
        for (const TypeDesc* d = foreign.types[a]; d != nullptr; d = d->element) chain.push_back(d);
        const TypeDesc* element = nullptr;
        for (auto d = chain.rbegin(); d != chain.rend(); ++d) {
            TypeDesc copy = **d;
            copy.name = owned.type_names.emplace_back(or_empty((*d)->name)).c_str();
            copy.element = element;
            element = &owned.type_storage.emplace_back(copy);
        }
        owned.types.push_back(element);
    }
    owned.sig.arg_names = owned.arg_names.c_str();
    owned.sig.types = owned.types.data();
    owned.sig.arg_count = foreign.arg_count;
    owned.sig.payload_events = foreign.payload_events;
    owned.has_signature = true;
}

std::string SiteTable::content_of(const OwnedSite& owned) {
    std::string c = owned.name + '\0' + owned.function + '\0' + owned.file + '\0' + std::to_string(owned.sig.site.line);
    if (!owned.has_signature) return c;
    c += '\0' + owned.arg_names + '\0' + std::to_string(owned.sig.payload_events);
    for (const TypeDesc* t : owned.types) {
        c += '\1';
        for (const TypeDesc* d = t; d != nullptr; d = d->element) {
            c += std::string(d->name) + '\2' + std::to_string(d->extent) + '\2' +
                 std::to_string(static_cast<int>(d->kind)) + '\2' + std::to_string(d->rank) + '\2' +
                 std::to_string(d->dynamic_rank) + std::to_string(d->runtime_dtype);
        }
    }
    return c;
}

const Site* SiteCache::miss(std::size_t i, const Site* foreign, bool with_signature) {
    const Site* owned = SiteTable::instance().own(foreign, with_signature);
    entries_[i] = Entry{foreign, owned};
    // A later SigBegin of a site first cached without one asks the table again, which completes it.
    signature_[i] = with_signature;
    return owned;
}

void SiteCache::clear(std::uint64_t generation) {
    entries_.fill(Entry{});
    signature_.fill(false);
    generation_ = generation;
}

}  // namespace ringprof::detail
