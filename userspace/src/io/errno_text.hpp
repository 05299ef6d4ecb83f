#pragma once
// The one spelling of an errno in rdnactl's messages.  Its own small library
// (no fmt), so that the child runner, which the GPU backend's test program
// links with libc alone, spells errors as everything else does.
#include <string>

namespace rdnafix::io {

// The symbolic name of errno `e`: "ENOENT", "EACCES", "ENOSPC", ...; "errno
// 4242" only for a number the C library has no name for.
std::string errno_name(int e);
// The C library's description of `e` with a lower-case first letter: "no
// space left on device".
std::string errno_description(int e);
// Both, as every message prints an errno: "no space left on device (ENOSPC)".
std::string errno_text(int e);

} // namespace rdnafix::io
