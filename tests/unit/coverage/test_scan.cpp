// The whole scan on real fat binaries made by hipcc (data/, SOURCE.md): PATH
// arguments read by read_fatbin, targets from entries whose ids and e_flags
// agree, verdicts for --gfx targets.
#include "software/libdirs.hpp"
#include "software/scan.hpp"

#include "io/rootfs.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>

using namespace rdnafix::coverage;

namespace {

std::string data(const char *f)
{
	return std::string(RDNAFIX_FATBIN_DATA) + "/" + f;
}

std::string targets(const Library &l)
{
	std::string s;
	for (const auto &t : l.targets)
		s += (s.empty() ? "" : " ") + spelled(t);
	return s;
}

const DeviceVerdict &verdict(const Report &r, std::size_t install, const std::string &gfx)
{
	for (const auto &s : r.summary)
		if (s.install == install && s.verdict.gfx == gfx)
			return s.verdict;
	FAIL("no verdict for " << gfx);
	throw;
}

} // namespace

TEST_CASE("scan of real fat binaries: CCOB v2 with eight targets, plain with three, a bare code object")
{
	rdnafix::io::RootFs fs("/");
	rdnafix::machine::Snapshot snap;
	ScanOptions o;
	o.paths = {data("libk8_ccob2.so"), data("libk3_plain.so"), data("k_gfx1031.co")};
	o.gfx = {"gfx1031", "gfx1032", "gfx1012", "gfx90a", "gfx90a:xnack+", "gfx1201"};
	Report r = scan(fs, snap, o);
	REQUIRE(r.installs.size() == 3);
	REQUIRE(r.gpus.size() == 6);
	CHECK(targets(r.installs[0].libraries.at(0)) ==
	      "gfx90a:xnack+ gfx90a:xnack- gfx1010 gfx1030 gfx1031 gfx10-3-generic gfx1100 gfx1151");
	CHECK(targets(r.installs[1].libraries.at(0)) == "gfx90a:xnack- gfx1030 gfx1100");
	CHECK(targets(r.installs[2].libraries.at(0)) == "gfx1031");
	CHECK(r.installs[0].libraries[0].problems.empty());
	CHECK(r.bytes_read > 0);

	CHECK(verdict(r, 0, "gfx1031").verdict == Verdict::native);
	CHECK(verdict(r, 0, "gfx1032").verdict == Verdict::generic);
	CHECK(verdict(r, 0, "gfx1032").via == "gfx10-3-generic");
	CHECK(verdict(r, 0, "gfx90a").via == "gfx90a:xnack-");
	CHECK(verdict(r, 0, "gfx1012").verdict == Verdict::override_only); // gfx1010 code, within RDNA1
	CHECK(verdict(r, 0, "gfx1012").override_value == "10.1.0");
	CHECK(verdict(r, 0, "gfx1201").verdict == Verdict::missing);

	// The plain library: only xnack- for gfx90a; gfx1031 only through 10.3.0.
	auto on = std::find_if(r.summary.begin(), r.summary.end(), [](const InstallVerdict &s) {
		return s.install == 1 && s.verdict.gfx == "gfx90a" && s.verdict.verdict == Verdict::missing;
	});
	REQUIRE(on != r.summary.end());
	CHECK(on->verdict.reason == "gfx90a:xnack- needs XNACK off; the GPU runs XNACK on");
	CHECK(verdict(r, 1, "gfx1031").override_value == "10.3.0");
	CHECK(verdict(r, 2, "gfx1031").verdict == Verdict::native);
	CHECK(exit_code_for(r) == 1);
}
