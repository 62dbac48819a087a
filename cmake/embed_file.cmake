# Writes OUTPUT, a C++ source defining `std::string_view NAMESPACE::NAME()` as the bytes of
# INPUT (cmake/RingprofEmbed.cmake runs it at build time). The bytes go in as numbers, not as a
# string literal: no delimiter, escape, line ending or encoding of the file can change them.
#   cmake -DINPUT=<file> -DSHOWN=<name in the comment> -DOUTPUT=<file.cpp> -DNAMESPACE=<ns>
#         -DNAME=<function> -DHEADER=<header declaring it> -P embed_file.cmake
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
# 0x3c,0x21,... sixteen to a line.
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)"
       "\\1\n    " bytes "${bytes}")
file(WRITE ${OUTPUT}.tmp
"// Generated from ${SHOWN} by cmake/embed_file.cmake at build time: edit that file, not this one.
#include \"${HEADER}\"

#include <string_view>

namespace ${NAMESPACE} {

namespace {
// ${size} bytes and a terminating 0, so that an empty file is still an array.
const unsigned char k_${NAME}[] = {
    ${bytes}0};
}  // namespace

std::string_view ${NAME}() { return {reinterpret_cast<const char*>(k_${NAME}), sizeof k_${NAME} - 1}; }

}  // namespace ${NAMESPACE}
")
# Renamed into place: a build stopped half-way never leaves a truncated source behind.
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
