#include "json/python_json.hpp"

#include "json/json_text.hpp"

namespace ringprof::detail {

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
                detail::append_json_string(out, key, detail::NonAscii::escape);
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
            detail::append_json_string(out, s, detail::NonAscii::escape);
            return true;
        }
        case json_type::number: {
            simdjson::ondemand::number_type nt;
            if (v.get_number_type().get(nt)) return false;
            if (nt == simdjson::ondemand::number_type::floating_point_number) {
                double d;
                if (v.get_double().get(d)) return false;
                detail::append_python_float(out, d);
            } else {
                // Integers keep their exact digits (Python ints are unbounded).
                std::string_view token;
                token = v.raw_json_token();
                while (!token.empty() &&
                       (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' || token.back() == '\t'))
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

}  // namespace ringprof::detail
