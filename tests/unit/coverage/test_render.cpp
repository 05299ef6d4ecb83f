// Text and JSON of a hand-built report (coverage/render_*.cpp).
#include "software/libdirs.hpp"
#include "coverage/render.hpp"
#include "software/scan.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace rdnafix::coverage;
using Catch::Matchers::ContainsSubstring;

namespace {

Report report()
{
	Report r;
	Gpu g;
	g.device = "0000:03:00.0";
	g.gfx = "gfx1031";
	g.sramecc = false;
	r.gpus.push_back(g);
	Gpu x;
	x.gfx = "gfx1100";
	r.gpus.push_back(x);
	Install in;
	in.kind = InstallKind::pytorch;
	in.found_by = FoundBy::virtual_env;
	in.label = "PyTorch 2.5.1+rocm6.2";
	in.version = "2.5.1+rocm6.2";
	in.runtime_version = "6.2.41133-dd7f95766";
	in.path = "home/u/venv/lib/python3.13/site-packages/torch";
	in.via = "VIRTUAL_ENV=/home/u/venv";
	Library l;
	l.name = "libtorch_hip.so";
	l.path = in.path + "/lib/libtorch_hip.so";
	for (const char *t : {"gfx1030", "gfx1100"})
		l.targets.push_back(*target_in_file_name(t));
	l.file = FatbinFile{};
	l.file->kind = FileKind::elf_with_fatbin;
	in.libraries.push_back(l);
	Library host;
	host.name = "libMIOpen.so";
	host.path = in.path + "/lib/libMIOpen.so";
	host.file = FatbinFile{};
	host.file->kind = FileKind::elf_without;
	in.libraries.push_back(host);
	r.installs.push_back(in);
	r.judgements = judge(r.installs, r.gpus);
	r.summary = summarize(r.installs, r.gpus, r.judgements);
	r.notes.push_back("no python3 on PATH");
	return r;
}

} // namespace

TEST_CASE("text: GPUs, installations with their libraries and targets, the verdict per GPU, notes")
{
	auto t = render_text(report(), "/");
	CHECK_THAT(t, ContainsSubstring("rdnactl coverage — root /\n"));
	CHECK_THAT(t, ContainsSubstring("  gfx1031 @ 0000:03:00.0       XNACK off\n"));
	CHECK_THAT(t, ContainsSubstring("  gfx1100 (--gfx)              XNACK off\n"));
	CHECK_THAT(t, ContainsSubstring("PyTorch 2.5.1+rocm6.2 (HIP 6.2.41133-dd7f95766)\n"));
	CHECK_THAT(t,
		   ContainsSubstring("  where                    /home/u/venv/lib/python3.13/site-packages/torch  (via "
				     "VIRTUAL_ENV=/home/u/venv)\n"));
	CHECK_THAT(t, ContainsSubstring("  libtorch_hip.so          gfx1030 gfx1100\n"));
	CHECK_THAT(t, ContainsSubstring("  libMIOpen.so             no device code\n"));
	// the reason an override is safe (with its sources) only with --verbose
	CHECK_THAT(t, ContainsSubstring(
			      "  => gfx1031 @ 0000:03:00.0: only with HSA_OVERRIDE_GFX_VERSION=10.3.0 (isa_safe)\n"
			      "       libtorch_hip.so: has gfx1030 but not gfx1031 or gfx10-3-generic\n"
			      "  => gfx1100"));
	CHECK_THAT(t,
		   ContainsSubstring("Why an override is safe or unsafe, with sources: rdnactl coverage --verbose\n"));
	CHECK_THAT(
		render_text(report(), "/", TextOptions{true, {}}),
		ContainsSubstring("  => gfx1031 @ 0000:03:00.0: only with HSA_OVERRIDE_GFX_VERSION=10.3.0 (isa_safe)\n"
				  "       libtorch_hip.so: has gfx1030 but not gfx1031 or gfx10-3-generic\n"
				  "       isa_safe: gfx1031 and gfx1030 are both in gfx10-3-generic"));
	// several GPU x installation verdicts: one line each first
	CHECK_THAT(t, ContainsSubstring(
			      "Verdicts\n  gfx1031 @ 0000:03:00.0  PyTorch 2.5.1+rocm6.2: only with "
			      "HSA_OVERRIDE_GFX_VERSION=10.3.0 (isa_safe)\n  gfx1100 (--gfx)  PyTorch 2.5.1+rocm6.2: "
			      "native\n"));
	CHECK_THAT(t, ContainsSubstring("  => gfx1100 (--gfx): native\n"));
	CHECK_THAT(t, ContainsSubstring("Notes\n  no python3 on PATH\n"));
	CHECK_THAT(t, ContainsSubstring("Verdict: 1 GPU x installation pair without native or generic code\n"));
	auto lines = summary_lines(report());
	REQUIRE(lines.size() == 2);
	CHECK(lines[1] == "gfx1100 (--gfx)  PyTorch 2.5.1+rocm6.2: native");
}

TEST_CASE("json: every library with targets and verdicts; files only when asked")
{
	auto j = to_json(report());
	REQUIRE(j["installs"].size() == 1);
	const auto &in = j["installs"][0];
	CHECK(in["kind"] == "pytorch");
	CHECK(in["found_by"] == "virtual_env");
	CHECK(in["runtime_version"] == "6.2.41133-dd7f95766");
	CHECK(in["libraries"][0]["targets"] == nlohmann::ordered_json({"gfx1030", "gfx1100"}));
	CHECK(in["libraries"][0]["file"]["kind"] == "elf_with_fatbin");
	const auto &v = in["libraries"][0]["verdicts"][0];
	CHECK(v["verdict"] == "override_only");
	CHECK(v["override_value"] == "10.3.0");
	CHECK(v["override_safety"] == "isa_safe");
	CHECK(in["libraries"][1]["verdicts"][0]["verdict"] == "no_code");
	CHECK(in["verdicts"][0]["decided_by"] == "libtorch_hip.so");
	CHECK(in["verdicts"][1]["verdict"] == "native");
	CHECK(j["gpus"][1]["pci_bdf"].is_null());
	CHECK(j.contains("bytes_read"));
	auto lean = to_json(report(), false);
	CHECK(!lean.contains("bytes_read"));
	CHECK(!lean["installs"][0]["libraries"][0].contains("file"));
}
