// Names inside the flame graph's pages: the SVG (XML) and the HTML page share one escaper, so
// both pages read a name the same way.
#pragma once

#include <string>
#include <string_view>

namespace ringprof::detail {

enum class Markup {
    Html,  // & < > " become entities
    Xml,   // also ', and the control characters XML 1.0 forbids become '?' (the file would not open)
};

// Appends `raw` as text or an attribute value; bytes that are not UTF-8 become U+FFFD.
void append_markup_text(std::string& out, std::string_view raw, Markup markup);

}  // namespace ringprof::detail
