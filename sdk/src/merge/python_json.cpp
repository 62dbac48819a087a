#include "merge/python_json.hpp"

#include "trace/trace_number.hpp"

#include <charconv>
#include <cstdint>

namespace ringprof::merge {

namespace {

void append_u_escape(std::string& out, unsigned cp) {
    static const char hex[] = "0123456789abcdef";
    char buf[6] = {'\\', 'u', hex[(cp >> 12) & 0xF], hex[(cp >> 8) & 0xF], hex[(cp >> 4) & 0xF], hex[cp & 0xF]};
    out.append(buf, 6);
}

// Decodes one UTF-8 sequence at s[i]; the parser has validated the text, so no error paths.
unsigned decode_utf8(std::string_view s, std::size_t& i) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    auto cont = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(s[i + k]) & 0x3F); };
    unsigned cp;
    if (b0 < 0xE0) { cp = ((b0 & 0x1F) << 6) | cont(1); i += 2; }
    else if (b0 < 0xF0) { cp = ((b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2); i += 3; }
    else { cp = ((b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3); i += 4; }
    return cp;
}

}  // namespace

void append_python_string(std::string& out, std::string_view s) {
    out += '"';
    std::size_t i = 0;
    while (i < s.size()) {
        // Copy the longest run that needs no escaping in one go.
        std::size_t j = i;
        while (j < s.size()) {
            const auto c = static_cast<unsigned char>(s[j]);
            if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') break;
            ++j;
        }
        out.append(s.data() + i, j - i);
        i = j;
        if (i >= s.size()) break;
        const auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
            case '"': out += "\\\""; ++i; continue;
            case '\\': out += "\\\\"; ++i; continue;
            case '\n': out += "\\n"; ++i; continue;
            case '\r': out += "\\r"; ++i; continue;
            case '\t': out += "\\t"; ++i; continue;
            case '\b': out += "\\b"; ++i; continue;
            case '\f': out += "\\f"; ++i; continue;
            default: break;
        }
        if (c < 0x80) { append_u_escape(out, c); ++i; continue; }
        if (i + ((c >= 0xF0) ? 4u : (c >= 0xE0) ? 3u : 2u) > s.size()) {  // defensive: cut sequence
            append_u_escape(out, 0xFFFD);
            break;
        }
        const unsigned cp = decode_utf8(s, i);
        if (cp > 0xFFFF) {
            const unsigned v = cp - 0x10000;
            append_u_escape(out, 0xD800 + (v >> 10));
            append_u_escape(out, 0xDC00 + (v & 0x3FF));
        } else {
            append_u_escape(out, cp);
        }
    }
    out += '"';
}

bool append_python_value(std::string& out, simdjson::ondemand::value v) {
    using simdjson::ondemand::json_type;
    json_type type;
    if (v.type().get(type)) return false;
    switch (type) {
        case json_type::object: {
            simdjson::ondemand::object obj;
            if (v.get_object().get(obj)) return false;
            out += '{';
            bool first = true;
            for (auto field : obj) {
                std::string_view key;
                if (field.unescaped_key().get(key)) return false;
                if (!first) out += ", ";
                first = false;
                append_python_string(out, key);
                out += ": ";
                simdjson::ondemand::value child;
                if (field.value().get(child)) return false;
                if (!append_python_value(out, child)) return false;
            }
            out += '}';
            return true;
        }
        case json_type::array: {
            simdjson::ondemand::array arr;
            if (v.get_array().get(arr)) return false;
            out += '[';
            bool first = true;
            for (auto element : arr) {
                simdjson::ondemand::value child;
                if (element.get(child)) return false;
                if (!first) out += ", ";
                first = false;
                if (!append_python_value(out, child)) return false;
            }
            out += ']';
            return true;
        }
        case json_type::string: {
            std::string_view s;
            if (v.get_string().get(s)) return false;
            append_python_string(out, s);
            return true;
        }
        case json_type::number: {
            simdjson::ondemand::number_type nt;
            if (v.get_number_type().get(nt)) return false;
            if (nt == simdjson::ondemand::number_type::floating_point_number) {
                double d;
                if (v.get_double().get(d)) return false;
                append_python_float(out, d);
            } else {
                // Integers keep their exact digits (Python ints are unbounded).
                std::string_view token;
                token = v.raw_json_token();
                while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                                          token.back() == '\t'))
                    token.remove_suffix(1);
                out += token;
            }
            return true;
        }
        case json_type::boolean: {
            bool b;
            if (v.get_bool().get(b)) return false;
            out += b ? "true" : "false";
            return true;
        }
        case json_type::null: {
            bool is_null = false;
            if (v.is_null().get(is_null) || !is_null) return false;
            out += "null";
            return true;
        }
    }
    return false;
}

}  // namespace ringprof::merge
