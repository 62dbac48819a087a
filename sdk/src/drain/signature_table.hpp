// Interns call signatures on the drainer thread: a SigBegin record (site + runtime words) maps to
// a small id, which keys the call-tree node, so each distinct signature is formatted once. A
// repeated signature costs a hash of a few words and no allocation.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ringprof/detail/event.hpp"
#include "ringprof/detail/ring.hpp"
#include "ringprof/detail/signature_site.hpp"

namespace ringprof::detail {

class SignatureTable {
public:
    // Events a SigBegin record of `site` occupies, itself included.
    static std::uint64_t record_length(const SignatureSite& site) { return 1 + site.payload_events; }

    // The id (1, 2, ...; 0 is "no signature") of the signature recorded at ring[index], whose
    // site is `site` (the drainer's own copy, site_table.hpp: it is also the key).
    std::uint64_t intern(const SignatureSite& site, const Ring& ring, std::uint64_t index);

    // "(a:vector<float>(shape=(16,)))" for an id from intern(); empty for 0 or unknown ids.
    const std::string& text(std::uint64_t id) const;

private:
    struct WordsHash {
        std::size_t operator()(const std::vector<std::uint64_t>& w) const noexcept;
    };

    std::vector<std::uint64_t> scratch_;   // the key being looked up, reused
    std::vector<std::uint64_t> last_key_;  // the previous record's key and id
    std::uint64_t last_id_ = 0;
    std::unordered_map<std::vector<std::uint64_t>, std::uint64_t, WordsHash> ids_;
    std::unordered_map<std::string, std::uint64_t> text_ids_;
    std::vector<std::string> texts_{std::string()};
};

}  // namespace ringprof::detail
