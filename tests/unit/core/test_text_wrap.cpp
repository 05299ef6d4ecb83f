#include "core/text_wrap.hpp"

#include <catch2/catch_test_macros.hpp>

#include <sstream>
#include <string>

using rdnafix::core::display_width;
using rdnafix::core::split_headline;
using rdnafix::core::strip_citations;
using rdnafix::core::wrap_text;

namespace {

std::size_t widest(const std::string &s)
{
	std::istringstream in(s);
	std::string l;
	std::size_t w = 0;
	while (std::getline(in, l))
		w = std::max(w, display_width(l));
	return w;
}

} // namespace

TEST_CASE("display_width counts code points and skips SGR sequences")
{
	CHECK(display_width("abc") == 3);
	CHECK(display_width("a — b") == 5); // U+2014 is 3 bytes, one column
	CHECK(display_width("\033[1;31m[error]\033[0m x") == 9);
}

TEST_CASE("wrap_text breaks long lines at spaces with a hanging indent")
{
	const std::string l = "  why: the runtime expects three decimal numbers major.minor.stepping (e.g. 10.3.0)";
	const std::string w = wrap_text(l + "\n", 40);
	CHECK(w == "  why: the runtime expects three decimal\n"
		   "      numbers major.minor.stepping (e.g.\n"
		   "      10.3.0)\n");
	CHECK(widest(w) <= 40);
	// Lines that fit, and width 0, are left alone.
	CHECK(wrap_text("short\n\nline\n", 40) == "short\n\nline\n");
	CHECK(wrap_text(l, 0) == l);
	// A word wider than the room is cut; nothing is lost but the break spaces.
	const std::string path = "/usr/lib/python3/site-packages/torch/lib/libtorch_hip.so";
	const std::string c = wrap_text("  " + path, 20);
	CHECK(widest(c) <= 20);
	std::string joined;
	for (char ch : c)
		if (ch != '\n' && ch != ' ')
			joined += ch;
	CHECK(joined == path);
	// Colour codes do not count: a styled line of 30 visible columns fits 33 columns.
	const std::string styled = "\033[1;33m[warn]\033[0m RDNA-GPU-002 is not listed";
	CHECK(display_width(styled) == 33);
	CHECK(wrap_text(styled, 33) == styled);
	CHECK(widest(wrap_text(styled, 20)) <= 20);
}

TEST_CASE("strip_citations drops source citations and keeps other parentheses")
{
	CHECK(strip_citations("default noretry=1 for GC >= 10.3.0 (RDNA2+) and the GC 9 list, 0 for RDNA1 (GC 10.1.x) "
			      "(drivers/gpu/drm/amd/amdgpu/amdgpu_gmc.c: amdgpu_gmc_noretry_set, Linux 6.1 and "
			      "6.12); GC 10.3.2 -> 1 (retry faults off)") ==
	      "default noretry=1 for GC >= 10.3.0 (RDNA2+) and the GC 9 list, 0 for RDNA1 (GC 10.1.x); GC 10.3.2 -> 1 "
	      "(retry faults off)");
	CHECK(strip_citations("users report it (AUTOMATIC1111 #9283, #11942). No RDNA2 override") ==
	      "users report it. No RDNA2 override");
	CHECK(strip_citations("used widely (ROCm/ROCm#2353); the faults") == "used widely; the faults");
	CHECK(strip_citations("generic code (llvm/docs/AMDGPUUsage.rst: Generic processors)") == "generic code");
	CHECK(strip_citations("set in gart_init (gmc_v10_0.c, amdgpu_gart.c, Linux 6.1-7.2); retry") ==
	      "set in gart_init; retry");
	CHECK(strip_citations("no citation (e.g. 10.3.0) here") == "no citation (e.g. 10.3.0) here");
	CHECK(strip_citations("unbalanced (drivers/x.c") == "unbalanced (drivers/x.c");
}

TEST_CASE("split_headline cuts at the first ': ' or '; ' outside parentheses, or a trailing parenthetical")
{
	auto [h, r] = split_headline("HSA_OVERRIDE_GFX_VERSION value 'gfx1031' is invalid: ROCr does not accept");
	CHECK(h == "HSA_OVERRIDE_GFX_VERSION value 'gfx1031' is invalid");
	CHECK(r == "ROCr does not accept");
	auto [h2, r2] = split_headline(
		"noretry=0 in effect on an RDNA1 GPU (amdgpu.noretry=0 is set explicitly: it overrides)");
	CHECK(h2 == "noretry=0 in effect on an RDNA1 GPU");
	CHECK(r2 == "(amdgpu.noretry=0 is set explicitly: it overrides)");
	auto [h3, r3] = split_headline("gfx1031 is not on ROCm's official Linux support list; hidden");
	CHECK(h3 == "gfx1031 is not on ROCm's official Linux support list");
	CHECK(r3 == "hidden");
	// A short trailing parenthetical stays.
	CHECK(split_headline("the first visible GPU is the iGPU 0000:16:00.0 (gfx1036)").second.empty());
	// A parenthetical in the middle is part of the headline.
	CHECK(split_headline("PyTorch 2.5.1 (libtorch_hip.so) has gfx1030 but not gfx1031: the override").first ==
	      "PyTorch 2.5.1 (libtorch_hip.so) has gfx1030 but not gfx1031");
	// Not before the 24th character, not inside parentheses, nothing to cut.
	CHECK(split_headline("debug switches set: AMD_LOG_LEVEL=4").second.empty());
	CHECK(split_headline("/dev/kfd is missing").first == "/dev/kfd is missing");
}
