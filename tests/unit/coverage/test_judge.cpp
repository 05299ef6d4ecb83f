// The verdicts (coverage/judge.cpp, gpus.cpp): native, generic with the
// runtime that loads it, only with an override (and its ISA safety), missing
// with the reason, per install the worst library.
#include "software/libdirs.hpp"
#include "coverage/render.hpp"
#include "software/scan.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace rdnafix::coverage;
using rdnafix::core::codeobj::Feature;
using rdnafix::core::codeobj::TargetId;

namespace {

Library lib(std::string name, std::vector<std::string> targets)
{
	Library l;
	l.name = std::move(name);
	l.kind = LibraryKind::tensile_files;
	for (const auto &t : targets)
		l.targets.push_back(*target_in_file_name(t));
	return l;
}

Gpu gpu(std::string gfx, bool xnack = false)
{
	Gpu g;
	g.device = "0000:03:00.0";
	g.gfx = std::move(gfx);
	g.xnack_on = xnack;
	if (g.gfx.size() == 7)
		g.sramecc = false;
	return g;
}

const std::vector<std::string> kTorch251 = {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"};

} // namespace

TEST_CASE("native code is native")
{
	auto v = judge_library(lib("libtorch_hip.so", kTorch251), "6.2.41133-dd7f95766", gpu("gfx1030"));
	CHECK(v.verdict == Verdict::native);
	CHECK(v.via == "gfx1030");
}

TEST_CASE("gfx1031 with a gfx1030-only library: only with the ISA-safe 10.3.0")
{
	auto v = judge_library(lib("libtorch_hip.so", kTorch251), "6.2.41133", gpu("gfx1031"));
	CHECK(v.verdict == Verdict::override_only);
	CHECK(v.override_value == "10.3.0");
	REQUIRE(v.override_safety);
	CHECK(*v.override_safety == rdnafix::rules::OverrideVerdict::isa_safe);
	CHECK(v.via == "gfx1030");
	CHECK(v.reason == "has gfx1030 but not gfx1031 or gfx10-3-generic");
	CHECK(v.override_reason.find("gfx10-3-generic") != std::string::npos);
}

TEST_CASE("RDNA1 with gfx1030 code: the only override is unsafe, and said so")
{
	auto v = judge_library(lib("libtorch_hip.so", kTorch251), "6.2", gpu("gfx1010"));
	CHECK(v.verdict == Verdict::override_only);
	CHECK(v.override_value == "10.3.0");
	CHECK(*v.override_safety == rdnafix::rules::OverrideVerdict::unsafe);
}

TEST_CASE("gfx1151 with gfx1100 code: 11.0.0 is unsafe; equally safe candidates: the family base")
{
	auto v = judge_library(lib("l", kTorch251), "6.2", gpu("gfx1151"));
	CHECK(v.verdict == Verdict::override_only);
	CHECK(v.override_value == "11.0.0");
	CHECK(*v.override_safety == rdnafix::rules::OverrideVerdict::unsafe);
	auto w = judge_library(lib("l", {"gfx1100", "gfx1101"}), "", gpu("gfx1102"));
	CHECK(w.verdict == Verdict::override_only);
	CHECK(*w.override_safety == rdnafix::rules::OverrideVerdict::works_not_guaranteed);
	CHECK(w.override_value == "11.0.0"); // the lowest of the equally safe candidates
}

TEST_CASE("generic code counts with a ROCm 6.4+ runtime, not with an older one")
{
	auto l = lib("l", {"gfx10-3-generic", "gfx1100"});
	auto v = judge_library(l, "6.4.1", gpu("gfx1032"));
	CHECK(v.verdict == Verdict::generic);
	CHECK(v.via == "gfx10-3-generic");
	auto unknown = judge_library(l, "", gpu("gfx1032"));
	CHECK(unknown.verdict == Verdict::generic);
	auto old = judge_library(l, "6.2.41133-dd7f95766", gpu("gfx1032"));
	CHECK(old.verdict == Verdict::missing);
	CHECK(old.reason.find("ROCm 6.4") != std::string::npos);
	// A restricted family says so.
	auto g11 = judge_library(lib("l", {"gfx11-generic"}), "7.0.2", gpu("gfx1103"));
	CHECK(g11.verdict == Verdict::generic);
	CHECK(g11.reason.find("restrictions") != std::string::npos);
}

TEST_CASE("xnack mismatch is missing with the reason")
{
	auto v = judge_library(lib("l", {"gfx90a:xnack+"}), "6.4", gpu("gfx90a", false));
	CHECK(v.verdict == Verdict::missing);
	CHECK(v.reason == "gfx90a:xnack+ needs XNACK on; the GPU runs XNACK off");
	auto on = judge_library(lib("l", {"gfx90a:xnack-"}), "6.4", gpu("gfx90a", true));
	CHECK(on.verdict == Verdict::missing);
	CHECK(on.reason.find("needs XNACK off") != std::string::npos);
	CHECK(judge_library(lib("l", {"gfx90a:xnack-", "gfx90a:xnack+"}), "6.4", gpu("gfx90a", true)).verdict ==
	      Verdict::native);
	CHECK(judge_library(lib("l", {"gfx90a"}), "6.4", gpu("gfx90a", true)).verdict == Verdict::native);
	// sramecc+ code on an RDNA GPU (no SRAM ECC).
	auto s = judge_library(lib("l", {"gfx1030:sramecc+"}), "6.4", gpu("gfx1030"));
	CHECK(s.verdict == Verdict::missing);
}

TEST_CASE("nothing for the family: missing, listing what there is; no targets: no code")
{
	auto v = judge_library(lib("l", {"gfx1100", "gfx1151"}), "7.0", gpu("gfx1032"));
	CHECK(v.verdict == Verdict::missing);
	CHECK(v.reason == "has only gfx1100 gfx1151: no code for gfx1032 or gfx10-3-generic");
	CHECK(judge_library(lib("l", {}), "7.0", gpu("gfx1032")).verdict == Verdict::no_code);
	Library unread;
	unread.file = FatbinFile{};
	unread.file->kind = FileKind::unreadable;
	unread.file->unreadable = "truncated bundle";
	auto u = judge_library(unread, "", gpu("gfx1030"));
	CHECK(u.verdict == Verdict::missing);
	CHECK(u.reason == "could not be read: truncated bundle");
}

TEST_CASE("summarize: per install the worst library decides; host-only libraries do not count")
{
	Install torch;
	torch.label = "PyTorch";
	torch.runtime_version = "6.2";
	torch.libraries = {lib("libtorch_hip.so", {"gfx1030", "gfx1031"}), lib("rocBLAS", {"gfx1030"}),
			   lib("libhost.so", {})};
	Install empty;
	empty.libraries = {lib("libhost.so", {})};
	Library db = lib("MIOpen database", {"gfx900"}); // tuning data only: never decides
	db.kind = LibraryKind::miopen_db;
	torch.libraries.push_back(db);
	std::vector<Install> installs{torch, empty};
	std::vector<Gpu> gpus{gpu("gfx1031")};
	auto j = judge(installs, gpus);
	REQUIRE(j.size() == 5);
	auto s = summarize(installs, gpus, j);
	REQUIRE(s.size() == 1); // the host-only install has no verdict
	CHECK(s[0].install == 0);
	CHECK(s[0].verdict.verdict == Verdict::override_only);
	CHECK(s[0].library == "rocBLAS");
	Report r;
	r.summary = s;
	CHECK(exit_code_for(r) == 1);
	r.summary[0].verdict.verdict = Verdict::generic;
	CHECK(exit_code_for(r) == 0);
	CHECK(verdict_phrase(s[0].verdict) == "only with HSA_OVERRIDE_GFX_VERSION=10.3.0 (isa_safe)");
}

TEST_CASE("extra targets (the --gfx option): valid spellings, and errors that name the input")
{
	rdnafix::machine::Snapshot snap;
	auto ok = gpus_of(snap, {"gfx1031", "gfx90a:xnack+", "gfx942:sramecc+:xnack-"});
	REQUIRE(ok);
	REQUIRE(ok->size() == 3);
	CHECK((*ok)[0].gfx == "gfx1031");
	CHECK(!(*ok)[0].xnack_on);
	CHECK((*ok)[1].xnack_on);
	CHECK((*ok)[2].sramecc == true);
	for (const char *bad : {"1031", "gfx10-3-generic", "GFX1031", "gfx1031:xnack", "gfx1031:foo+",
				"gfx1031:", "gfx90a:xnack+:xnack-", "gfx103"}) {
		auto r = gpus_of(snap, {bad});
		INFO(bad);
		REQUIRE(!r);
		CHECK(r.error().message.find(std::string("'") + bad + "'") != std::string::npos);
	}
}

TEST_CASE("devices of the snapshot: AMD with a gfx target; HSA_XNACK=1 is ignored on RDNA")
{
	rdnafix::machine::Snapshot snap;
	rdnafix::machine::Device d;
	d.is_amd = true;
	d.pci_bdf = "0000:03:00.0";
	d.gfx_target = "gfx1031";
	d.gc_version = "10.3.2";
	snap.devices.push_back(d);
	rdnafix::machine::Device other;
	other.pci_bdf = "0000:00:02.0";
	snap.devices.push_back(other);
	snap.driver.kernel_release = "6.12.48+deb13-amd64";
	snap.environment.vars["HSA_XNACK"] = "1";
	auto g = gpus_of(snap, {});
	REQUIRE(g);
	REQUIRE(g->size() == 1);
	CHECK((*g)[0].device == "0000:03:00.0");
	CHECK(!(*g)[0].xnack_on);
	CHECK((*g)[0].note.find("ignored") != std::string::npos);
}
