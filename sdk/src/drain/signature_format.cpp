#include "signature_format.hpp"

#include <algorithm>

namespace ringprof::detail {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
    return s;
}

// Positions of the commas not nested in brackets.
std::vector<std::string_view> split_top_level(std::string_view text) {
    std::vector<std::string_view> parts;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '(' || c == '[' || c == '{')
            ++depth;
        else if (c == ')' || c == ']' || c == '}')
            --depth;
        else if (c == ',' && depth == 0) {
            parts.push_back(trim(text.substr(start, i - start)));
            start = i + 1;
        }
    }
    const std::string_view last = trim(text.substr(start));
    if (!last.empty() || !parts.empty()) parts.push_back(last);
    return parts;
}

std::string argument_name(std::string_view expr) {
    // span_of(p, n) describes the pointer p: name the argument after it.
    constexpr std::string_view kSpanOf = "span_of";
    const std::size_t open = expr.find('(');
    if (open != std::string_view::npos && !expr.empty() && expr.back() == ')') {
        const std::string_view callee = trim(expr.substr(0, open));
        if (callee.size() >= kSpanOf.size() && callee.substr(callee.size() - kSpanOf.size()) == kSpanOf) {
            const auto inner = split_top_level(expr.substr(open + 1, expr.size() - open - 2));
            if (!inner.empty() && !inner.front().empty()) return std::string(inner.front());
        }
    }
    std::string out;
    bool space = false;  // collapse the whitespace the preprocessor kept
    for (const char c : expr) {
        if (c == ' ' || c == '\t' || c == '\n') {
            space = true;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += c;
    }
    return out;
}

class Words {
public:
    explicit Words(const std::uint64_t* w) : w_(w) {}
    std::uint64_t next() { return *w_++; }

private:
    const std::uint64_t* w_;
};

void append_shape(std::string& out, Words& words, std::size_t recorded, std::size_t rank) {
    out += "(";
    for (std::size_t i = 0; i < recorded; ++i) {
        const std::uint64_t d = words.next();
        if (i < rank) {
            if (i != 0) out += ", ";
            out += std::to_string(d);
        }
    }
    if (rank > recorded) out += ", ...";  // deeper than the trait's max_rank
    if (rank == 1) out += ",";            // a Python 1-tuple, as accelerate prints shapes
    out += ")";
}

void append_type(std::string& out, const TypeDesc& d, Words* words);

void append_static_type(std::string& out, const TypeDesc& d) { append_type(out, d, nullptr); }

void append_type(std::string& out, const TypeDesc& d, Words* words) {
    switch (d.kind) {
        case TypeKind::Plain:
            out += d.name;
            return;
        case TypeKind::Unknown:
            out += type_name_from_probe(d.name);
            return;
        case TypeKind::Template:
            out += d.name;
            out += "<";
            append_static_type(out, *d.element);
            if (d.extent != 0) out += ", " + std::to_string(d.extent);
            out += ">";
            break;
        case TypeKind::CArray: {
            const TypeDesc* base = &d;
            std::string dims;
            while (base->kind == TypeKind::CArray) {
                dims += "[" + std::to_string(base->extent) + "]";
                base = base->element;
            }
            append_static_type(out, *base);
            out += dims;
            return;
        }
        case TypeKind::Pointer:
            append_static_type(out, *d.element);
            out += "*";
            break;
        case TypeKind::Length:
            out += d.name;
            if (words != nullptr) out += "(len=" + std::to_string(words->next()) + ")";
            return;
        case TypeKind::User: {
            out += d.name;
            if (d.element != nullptr) {
                out += "<";
                append_static_type(out, *d.element);
                out += ">";
            }
            if (words == nullptr) return;
            out += "(";
            if (d.runtime_dtype) {
                const auto* dtype = reinterpret_cast<const char*>(static_cast<std::uintptr_t>(words->next()));
                out += "dtype=";
                out += dtype != nullptr ? dtype : "?";
                out += ", ";
            }
            const std::uint64_t rank = words->next();
            out += "shape=";
            append_shape(out, *words, d.rank, static_cast<std::size_t>(rank));
            out += ")";
            return;
        }
    }
    if (words != nullptr && d.rank != 0) {
        out += "(shape=";
        append_shape(out, *words, d.rank, d.rank);
        out += ")";
    }
}

}  // namespace

std::vector<std::string> split_argument_names(std::string_view text) {
    std::vector<std::string> names;
    for (const std::string_view part : split_top_level(text)) names.push_back(argument_name(part));
    return names;
}

std::string type_name_from_probe(std::string_view pretty) {
    // GCC: "... [with T = std::map<int, int>]"; Clang: "... [T = std::map<int, int>]".
    const std::size_t at = pretty.find("T = ");
    if (at == std::string_view::npos) return "?";
    std::string_view rest = pretty.substr(at + 4);
    int depth = 0;
    std::size_t end = 0;
    for (; end < rest.size(); ++end) {
        const char c = rest[end];
        if (c == '<' || c == '(' || c == '[')
            ++depth;
        else if (c == '>' || c == ')')
            --depth;
        else if (c == ']') {
            if (depth == 0) break;
            --depth;
        } else if (c == ';' && depth == 0) {
            break;
        }
    }
    return std::string(trim(rest.substr(0, end)));
}

std::string format_signature(const SignatureSite& site, const std::uint64_t* words) {
    const std::vector<std::string> names = split_argument_names(site.arg_names);
    Words w(words);
    std::string out = "(";
    for (std::uint32_t i = 0; i < site.arg_count; ++i) {
        if (i != 0) out += ", ";
        out += i < names.size() ? names[i] : "arg" + std::to_string(i);
        out += ":";
        append_type(out, *site.types[i], &w);
    }
    out += ")";
    return out;
}

}  // namespace ringprof::detail
