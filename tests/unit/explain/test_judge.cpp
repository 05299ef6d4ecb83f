// explain: the judge against hand-built machines (the likely cause ON THIS
// machine, typed remedies), the catalogue's consistency with status and the
// docs, and the real binary.
#include "explain/knowledge_load.hpp"
#include "explain/model.hpp"

#include "knowledge/builtin.hpp"
#include "status/model.hpp"

#include "../status/snapshot_builders.hpp"

#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string_view>

using namespace rdnafix::explain;
using Catch::Matchers::ContainsSubstring;

namespace {

// The built-in knowledge base (userspace/data/knowledge), built once.
const Loaded &kb()
{
	static const auto k = load_knowledge(rdnafix::knowledge::builtin_files(), false);
	return *k;
}

std::string id_of(const Match &m)
{
	return m.entry ? m.entry->id : std::string("?");
}

std::string slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

Report judge_text(const std::string &text, const rdnafix::machine::Snapshot &s)
{
	return judge(match_log(read_log(text), *kb().matcher), s, nullptr, kb().base);
}

template <class T> const T *remedy(const Explanation &e)
{
	for (const auto &r : e.remedies)
		if (const auto *x = std::get_if<T>(&r))
			return x;
	return nullptr;
}

std::string joined(const std::vector<std::string> &v)
{
	std::string s;
	for (const auto &x : v)
		s += x + "\n";
	return s;
}

struct Run {
	int rc = -1;
	std::string out;
};

Run rdnactl(const std::string &args)
{
	Run r;
	const std::string cmd = std::string(RDNACTL_PATH) + " " + args + " 2>&1";
	FILE *p = ::popen(cmd.c_str(), "r");
	REQUIRE(p);
	char buf[4096];
	std::size_t n;
	while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
		r.out.append(buf, n);
	const int st = ::pclose(p);
	r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return r;
}

std::string fmt_id(std::size_t n)
{
	char b[16];
	std::snprintf(b, sizeof b, "RDNA-LOG-%03zu", n);
	return b;
}

const char *kNoBinary1031 =
	"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
	"  Devices:\n"
	"    amdgcn-amd-amdhsa--gfx1031 - [Not Found]\n"
	"  Bundled Code Objects:\n"
	"    host-x86_64-unknown-linux-- - [Unsupported]\n"
	"    hipv4-amdgcn-amd-amdhsa--gfx1030 - [code object targetID is amdgcn-amd-amdhsa--gfx1030]\n"
	"    hipv4-amdgcn-amd-amdhsa--gfx1100 - [code object targetID is amdgcn-amd-amdhsa--gfx1100]\n";

} // namespace

TEST_CASE("gfx1031 without code, gfx1030 bundled: the ISA-safe override is the fix", "[explain]")
{
	auto s = rdnafix::test::base();
	s.devices.push_back(rdnafix::test::amd("0000:03:00.0", "gfx1031", "rdna2", false, 1, 0));
	const auto r = judge_text(kNoBinary1031, s);
	REQUIRE(r.explanations.size() == 1);
	const auto &e = r.explanations[0];
	REQUIRE(e.match.nobinary->missing == std::vector<std::string>{"gfx1031"});
	const auto *set = remedy<rdnafix::status::SetEnv>(e);
	REQUIRE(set);
	REQUIRE(set->name == "HSA_OVERRIDE_GFX_VERSION");
	REQUIRE(set->value == "10.3.0");
	REQUIRE_THAT(joined(e.here), ContainsSubstring("was not checked (no code-object scan"));
	REQUIRE(r.errors() == 1);
}

TEST_CASE("RDNA1 has no safe override: only a build with gfx1010 fixes it", "[explain]")
{
	auto s = rdnafix::test::base();
	s.devices.push_back(rdnafix::test::amd("0000:03:00.0", "gfx1010", "rdna1", false, 1, 0));
	const auto r = judge_text(std::string(kNoBinary1031), s);
	const auto &e = r.explanations[0];
	REQUIRE_FALSE(remedy<rdnafix::status::SetEnv>(e));
	REQUIRE_THAT(joined(e.fix), ContainsSubstring("install a build that contains gfx1010"));
	REQUIRE_THAT(joined(e.here), ContainsSubstring("is not among the devices of the log (gfx1031)"));
}

TEST_CASE("an unsafe override is named as the cause of a memory access fault", "[explain]")
{
	auto s = rdnafix::test::base();
	s.devices.push_back(rdnafix::test::amd("0000:03:00.0", "gfx1010", "rdna1", false, 1, 0));
	rdnafix::test::set_env(s, "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
	const auto r = judge_text("Memory access fault by GPU node-1 (Agent handle: 0x55f8b54eec30) on address "
				  "0x7f2a53193000. Reason: Page not present or supervisor privilege.\n",
				  s);
	const auto &e = r.explanations.at(0);
	REQUIRE(id_of(e.match) == "RDNA-LOG-006");
	REQUIRE_THAT(joined(e.here), ContainsSubstring("node 1 is 0000:03:00.0 (gfx1010"));
	REQUIRE_THAT(joined(e.here), ContainsSubstring("unsafe"));
	const auto *un = remedy<rdnafix::status::UnsetEnv>(e);
	REQUIRE(un);
	REQUIRE(un->name == "HSA_OVERRIDE_GFX_VERSION");
}

TEST_CASE("a VM fault on an RDNA1 GPU with noretry=0 asks for amdgpu.noretry=1; mmhub decoded per GPU", "[explain]")
{
	auto s = rdnafix::test::base();
	s.devices.push_back(rdnafix::test::amd("0000:0b:00.0", "gfx1010", "rdna1", false, 1, 0));
	s.devices.back().gc_version = "10.1.10";
	s.driver.kernel_release = "6.12.48+deb13-amd64";
	s.driver.kernel_version_line = "Linux version 6.12.48+deb13-amd64 (gcc 14) #1 SMP Debian 6.12.48-1";
	const auto r =
		judge_text("[  629.844077] amdgpu 0000:0b:00.0: amdgpu: [mmhub] page fault (src_id:0 ring:8 "
			   "vmid:1 pasid:32770, for process python pid 1796 thread python pid 1796)\n"
			   "[  629.844087] amdgpu 0000:0b:00.0: amdgpu:   in page starting at address "
			   "0x00007f5279bab000 from client 0x12 (VMC)\n"
			   "[  629.844265] amdgpu 0000:0b:00.0: amdgpu: MMVM_L2_PROTECTION_FAULT_STATUS:0x00140A00\n",
			   s);
	const auto &e = r.explanations.at(0);
	REQUIRE(id_of(e.match) == "RDNA-LOG-066"); // the VM fault entry of the multimedia hub
	// CID 5 written on Navi10's mmhub is DCEVGA (mmhub_client_ids_navi1x[5][1])
	REQUIRE_THAT(joined(e.decoded), ContainsSubstring("client DCEVGA"));
	REQUIRE_THAT(joined(e.decoded), ContainsSubstring("process python pid 1796"));
	// The JSON says the same client as the text (the GPU's own table, not the default one).
	const auto j = nlohmann::json::parse(render_json(r));
	REQUIRE(j["explanations"][0]["fault_status"]["client"] == "DCEVGA");
	REQUIRE(j["explanations"][0]["fault_status"]["rw"] == "write");
	const auto *kp = remedy<rdnafix::status::KernelParam>(e);
	REQUIRE(kp);
	REQUIRE(kp->param == "amdgpu.noretry");
	REQUIRE(kp->value == "1");
}

TEST_CASE("a vm-fault entry's line the fault parser did not take is judged as a kernel event", "[explain]")
{
	// found by the explain_log fuzz target: the status word's first copy is damaged ("::00.0"), the
	// line still matches RDNA-LOG-007's pattern, and the judge read a fault block the match did not have
	auto s = rdnafix::test::base();
	s.devices.push_back(rdnafix::test::amd("0000:0d:00.0", "gfx1030", "rdna2", false, 1, 0));
	const auto r = judge_text("amdgpu 0000:0d:00.0: GCVM_L2_PROTECTION_FAULT_STATUS::00.0: "
				  "GCVM_L2_PROTECTION_FAULT_STATUS:0x00401031\n",
				  s);
	REQUIRE(r.explanations.size() == 1);
	const auto &e = r.explanations[0];
	REQUIRE(id_of(e.match) == "RDNA-LOG-007");
	REQUIRE_FALSE(e.match.fault);
	std::string decoded;
	for (const auto &l : e.decoded)
		decoded += l + "\n";
	REQUIRE_THAT(decoded, ContainsSubstring("device 0000:0d:00.0"));
}

TEST_CASE("the knowledge base's ids are unique and agree with the status catalogue; docs cover its ids", "[explain]")
{
	// The ids of the knowledge base (userspace/data/knowledge/*.toml) are
	// well-formed, unique and in order, each in docs/explain.md's generated
	// table; the status catalogue holds no RDNA-LOG id (one table of them).
	const std::string doc = slurp(std::string(RDNAFIX_TOP) + "/docs/explain.md");
	const std::string checks = slurp(std::string(RDNAFIX_TOP) + "/docs/checks.md");
	const auto &base = kb().base;
	std::string prev;
	for (const auto &e : base.entries) {
		INFO(e.id);
		REQUIRE(std::regex_match(e.id, std::regex("RDNA-LOG-[0-9]{3}")));
		REQUIRE(e.id > prev); // unique, in id order
		prev = e.id;
		REQUIRE(base.find(e.id) == &e);
		for (const auto &src : e.sources) // printed: upstream only, never a file of this repository
			for (const char *own : {"docs/", "tests/", "userspace/", "kernel/"})
				REQUIRE_FALSE(src.starts_with(own));
		REQUIRE_THAT(doc, ContainsSubstring("| " + e.id + " |")); // the generated catalogue table
	}
	// one table of RDNA-LOG ids: the knowledge base; the status catalogue has none (its prefixes differ)
	for (const auto &st : rdnafix::status::catalogue()) {
		INFO(st.id);
		REQUIRE_FALSE(std::string_view(st.id).starts_with("RDNA-LOG-"));
	}
	REQUIRE_THAT(checks, ContainsSubstring("## RDNA-LOG-NNN"));
	for (std::size_t n = 1; n <= 15; ++n) // the first fifteen ids keep their numbers
		REQUIRE(base.find(fmt_id(n)));
	REQUIRE(base.entries.size() >= 60);
	REQUIRE_FALSE(base.find("RDNA-LOG-999"));
}

TEST_CASE("with the code-object scan: the libraries without the GPU's target are named", "[explain][cli]")
{
	// tests/fixtures/rx6750xt-torch-gfx1030: a gfx1031 machine whose venv torch has gfx1030 code only
	const std::string fx = std::string(RDNAFIX_TOP) + "/tests/fixtures/rx6750xt-torch-gfx1030";
	auto r =
		rdnactl("explain " + std::string(RDNAFIX_TOP) +
			"/tests/fixtures/logs/open-oasis-27-traceback.txt --root " + fx + "/root --env " + fx + "/env");
	REQUIRE(r.rc == 1);
	REQUIRE_THAT(r.out, ContainsSubstring("code objects: 1 installation(s) scanned"));
	REQUIRE_THAT(r.out,
		     ContainsSubstring("coverage: libtorch_hip.so (PyTorch 2.5.1+rocm6.2): only with an override "
				       "for gfx1031 (HSA_OVERRIDE_GFX_VERSION=10.3.0)"));
	REQUIRE_THAT(r.out, ContainsSubstring("export HSA_OVERRIDE_GFX_VERSION=10.3.0"));
	r = rdnactl("explain " + std::string(RDNAFIX_TOP) + "/tests/fixtures/logs/open-oasis-27-traceback.txt --root " +
		    fx + "/root --env " + fx + "/env --no-coverage");
	REQUIRE_THAT(r.out, ContainsSubstring("code objects: not scanned (--no-coverage)"));
	REQUIRE_THAT(r.out, !ContainsSubstring("coverage: libtorch_hip.so"));
}

TEST_CASE("the override is not offered where the scan shows the libraries lack its target too", "[explain][cli]")
{
	// tests/fixtures/rx6600-torch-gfx110x: a gfx1032 machine whose PyTorch has gfx110x code only; the log
	// is rocBLAS's "Cannot read TensileLibrary.dat ... for GPU arch : gfx1032" (LostRuins/koboldcpp#676)
	const std::string top = RDNAFIX_TOP;
	const std::string fx = top + "/tests/fixtures/rx6600-torch-gfx110x";
	auto r = rdnactl("explain " + top + "/tests/explain/corpus/RDNA-LOG-016/lostruins-koboldcpp-676.log --root " +
			 fx + "/root --no-overlays");
	REQUIRE(r.rc == 1);
	REQUIRE_THAT(r.out, ContainsSubstring("HSA_OVERRIDE_GFX_VERSION=10.3.0 would not help: libtorch_hip.so, "
					      "rocBLAS Tensile library have no gfx1030 code either"));
	REQUIRE_THAT(r.out, !ContainsSubstring("export HSA_OVERRIDE_GFX_VERSION"));
	REQUIRE_THAT(r.out, ContainsSubstring("install a build that contains gfx1032"));
	// without the scan nothing says the libraries lack gfx1030: the override is the offered fix
	r = rdnactl("explain " + top + "/tests/explain/corpus/RDNA-LOG-016/lostruins-koboldcpp-676.log --root " + fx +
		    "/root --no-overlays --no-coverage");
	REQUIRE_THAT(r.out, ContainsSubstring("export HSA_OVERRIDE_GFX_VERSION=10.3.0"));
}

TEST_CASE("rdnactl explain: exit codes, stdin, ids, --pid", "[explain][cli]")
{
	const std::string top = RDNAFIX_TOP;
	const std::string root = " --root " + top + "/tests/fixtures/rx5600xt-k614/root";
	auto r = rdnactl("explain " + top + "/tests/fixtures/logs/therock-737-mes-reset.txt" + root);
	REQUIRE(r.rc == 1);
	REQUIRE_THAT(r.out, ContainsSubstring("RDNA-LOG-010"));
	r = rdnactl("explain - < " + top + "/tests/fixtures/logs/rocm-legacy-rocm-build-5943-amdgpu-ids.txt" + root);
	REQUIRE(r.rc == 0);
	REQUIRE_THAT(r.out, ContainsSubstring("0 known failure(s), 1 harmless message(s)"));
	r = rdnactl("explain /nonexistent/x.log" + root);
	REQUIRE(r.rc == 2);
	REQUIRE_THAT(r.out, ContainsSubstring("cannot open /nonexistent/x.log: no such file or directory (ENOENT)"));
	r = rdnactl("explain " + top + "/tests" + root);
	REQUIRE(r.rc == 2);
	REQUIRE_THAT(r.out, ContainsSubstring("is a directory"));
	r = rdnactl("explain RDNA-LOG-002");
	REQUIRE(r.rc == 0);
	REQUIRE_THAT(r.out, ContainsSubstring("hipErrorNoBinaryForGpu"));
	r = rdnactl("explain RDNA-LOG-099");
	REQUIRE(r.rc == 2);
	REQUIRE_THAT(r.out, ContainsSubstring("RDNA-LOG-099 is not in the catalogue"));
	r = rdnactl("explain --list --json");
	REQUIRE(r.rc == 0);
	REQUIRE_THAT(r.out, ContainsSubstring("\"id\": \"RDNA-LOG-015\""));
	// --pid: this test's own environment, with a marker variable the judge reports
	r = rdnactl("explain --pid " + std::to_string(::getpid()) + " - < /dev/null" + root);
	REQUIRE(r.rc == 0);
	REQUIRE_THAT(r.out, ContainsSubstring("environment: the one process " + std::to_string(::getpid())));
	r = rdnactl("explain --pid 4194000 - < /dev/null" + root);
	REQUIRE(r.rc == 0);
	REQUIRE_THAT(r.out, ContainsSubstring("cannot read /proc/4194000/environ"));
	r = rdnactl("explain --pid 0 - < /dev/null");
	REQUIRE(r.rc == 2);
	// --pid with an override the process really has
	const std::string withenv = "env HSA_OVERRIDE_GFX_VERSION=10.3.0 sh -c 'sleep 5 & p=$!; " +
				    std::string(RDNACTL_PATH) + " explain --pid $p - < /dev/null" + root + "; kill $p'";
	FILE *p = ::popen(withenv.c_str(), "r");
	REQUIRE(p);
	std::string out;
	char buf[4096];
	std::size_t n;
	while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
		out.append(buf, n);
	::pclose(p);
	REQUIRE_THAT(out, ContainsSubstring("HSA_OVERRIDE_GFX_VERSION=10.3.0 (unsafe)"));
}
