#include "flame/markup_text.hpp"

#include "json/json_text.hpp"

namespace ringprof::detail {

void append_markup_text(std::string& out, std::string_view raw, Markup markup) {
    const bool xml = markup == Markup::Xml;
    for (char ch : valid_utf8(raw)) {
        switch (ch) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += xml ? "&apos;" : "'";
                break;
            default: {
                const bool forbidden = static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r';
                out += xml && forbidden ? '?' : ch;
            }
        }
    }
}

}  // namespace ringprof::detail
