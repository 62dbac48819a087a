// The fixed parts of the report page, kept apart from the C++ that fills in the data.
#pragma once

#include <string_view>

namespace ringprof::detail {

std::string_view html_page_head();    // up to the text of <title>
std::string_view html_page_body();    // from </title> to the data block
std::string_view html_page_script();  // the viewer, run after the data block

}  // namespace ringprof::detail
