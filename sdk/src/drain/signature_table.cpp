#include "signature_table.hpp"

#include "signature_format.hpp"

namespace ringprof::detail {

std::size_t SignatureTable::WordsHash::operator()(const std::vector<std::uint64_t>& w) const noexcept {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const std::uint64_t x : w) h = (h ^ x) * 0x100000001b3ull + (h >> 29);
    return static_cast<std::size_t>(h);
}

std::uint64_t SignatureTable::intern(const SignatureSite& site, const Ring& ring, std::uint64_t index) {
    scratch_.clear();
    scratch_.push_back(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&site)));
    for (std::uint32_t k = 0; k < site.payload_events; ++k) {
        const Event& p = ring.at(index + 1 + k);
        scratch_.push_back(p.tsc);
        scratch_.push_back(p.tag);
    }
    // Hot loops call with the same signature again and again: skip the hash for a repeat.
    if (scratch_ == last_key_) return last_id_;
    const auto it = ids_.find(scratch_);
    if (it != ids_.end()) {
        last_key_ = scratch_;
        last_id_ = it->second;
        return it->second;
    }
    // Different words can read the same (a runtime dtype string at two addresses): one row.
    std::string text = format_signature(site, scratch_.data() + 1);
    auto [t, added] = text_ids_.emplace(std::move(text), texts_.size());
    if (added) texts_.push_back(t->first);
    ids_.emplace(scratch_, t->second);
    last_key_ = scratch_;
    last_id_ = t->second;
    return t->second;
}

const std::string& SignatureTable::text(std::uint64_t id) const { return id < texts_.size() ? texts_[id] : texts_[0]; }

}  // namespace ringprof::detail
