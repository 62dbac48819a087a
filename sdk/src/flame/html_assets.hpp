// The fixed parts of the report page, kept apart from the C++ that fills in the data. Each is a
// real file in flame/assets/, built into the library byte for byte (ringprof_embed_file in
// sdk/CMakeLists.txt): the page must open from one file, offline, so nothing is read at run time.
#pragma once

#include <string_view>

namespace ringprof::detail {

std::string_view flame_page_css();   // assets/flame.css: the page's style sheet
std::string_view flame_page_body();  // assets/flame_body.html: the markup, from <body> to the data block
std::string_view flame_page_js();    // assets/flame.js: the viewer, run after the data block

}  // namespace ringprof::detail
