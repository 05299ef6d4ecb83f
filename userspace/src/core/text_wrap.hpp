#pragma once
// Text shaping for the terminal report (pure): wrapping at a width, dropping
// source citations from prose, and splitting a finding's sentence into its
// headline and the rest.  No I/O: the width comes from io/terminal.hpp.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace rdnafix::core {

// The columns `s` takes on a terminal: UTF-8 code points, with ANSI SGR
// sequences ("\033[...m") taking none.
std::size_t display_width(std::string_view s);

// Each line of `text` that is wider than `width` columns is broken at spaces;
// its continuation lines are indented by the line's own leading spaces plus
// `hang`, or aligned with the text after a "- " or "| " marker (at most
// width / 2).  A word wider than the room left is cut.  Lines
// that fit, and width 0, are left as they are; a trailing newline is kept.
std::string wrap_text(std::string_view text, std::size_t width, std::size_t hang = 4);

// `s` without its parenthesized source citations: a " (...)" group whose
// words name a source file ("drivers/gpu/drm/amd/amdgpu/amdgpu_gmc.c:",
// "llvm/docs/AMDGPUUsage.rst", "gmc_v10_0.c") or an issue ("ROCm/ROCm#2353", "#9283").
// Other parentheses stay ("(RDNA2+)", "(retry faults off)").
std::string strip_citations(std::string_view s);

// A finding's sentence split where its headline ends: at the first ": " or
// "; " outside parentheses after the 24th character, or before a
// parenthetical of 40 characters or more that closes at the very end (a
// short one such as "(gfx1036)" stays in the headline).  {s, ""} when
// there is no such place.  head + sep + rest == s, where sep is ": ", "; " or " ".
std::pair<std::string, std::string> split_headline(std::string_view s);

} // namespace rdnafix::core
