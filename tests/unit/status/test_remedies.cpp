// Each finding's remedy as data: the variant alternative and its values (not
// the prose), and `rdnactl env` as a filter over the environment remedies.
#include "machine/interpret.hpp"
#include "model.hpp"
#include "snapshot_builders.hpp"

#include "core/parse.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <set>

using namespace rdnafix::status;
using namespace rdnafix::machine;
using rdnafix::test::amd;
using rdnafix::test::set_env;

namespace {

Snapshot base()
{
	Snapshot s = rdnafix::test::base();
	s.driver.kernel_release = "6.12.0";
	return s;
}

const Finding &find(const std::vector<Finding> &f, const std::string &id)
{
	auto it = std::find_if(f.begin(), f.end(), [&](const Finding &x) { return x.id == id; });
	REQUIRE(it != f.end());
	return *it;
}

template <class T> const T &only(const Finding &f)
{
	INFO(f.id);
	REQUIRE(f.remedies.size() == 1);
	const T *r = std::get_if<T>(&f.remedies[0]);
	REQUIRE(r != nullptr);
	return *r;
}

const Export *exported(const std::vector<Export> &env, const std::string &name)
{
	auto it = std::find_if(env.begin(), env.end(), [&](const Export &e) { return e.name == name; });
	return it == env.end() ? nullptr : &*it;
}

Param param(std::string name, ParamSource src, std::string value, std::string file = "")
{
	Param p;
	p.module = "amdgpu";
	p.name = std::move(name);
	p.live_value = value;
	p.source = src;
	p.configured_value = std::move(value);
	p.source_file = std::move(file);
	p.source_line = file.empty() ? 0 : 1;
	return p;
}

} // namespace

TEST_CASE("env: expandable_segments is removed, as status asks", "[remedy][env]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1030", "rdna2", false, 1, 0)};
	set_env(s, "PYTORCH_HIP_ALLOC_CONF=garbage_collection_threshold:0.6,expandable_segments:True\n"
		   "PYTORCH_CUDA_ALLOC_CONF=Expandable_Segments:TRUE\n");
	auto f = evaluate(s);
	// Keep the other options; unset a variable that held only this one.
	for (const auto &x : f)
		if (x.id == "RDNA-ENV-010" && x.subject == "PYTORCH_HIP_ALLOC_CONF") {
			auto set = only<SetEnv>(x);
			CHECK(set.name == "PYTORCH_HIP_ALLOC_CONF");
			CHECK(set.value == "garbage_collection_threshold:0.6");
		} else if (x.id == "RDNA-ENV-010") {
			CHECK(only<UnsetEnv>(x).name == "PYTORCH_CUDA_ALLOC_CONF");
		}
	auto env = recommend_env(s);
	const Export *hip = exported(env, "PYTORCH_HIP_ALLOC_CONF");
	REQUIRE(hip != nullptr); // before: env printed nothing for RDNA-ENV-010
	CHECK_FALSE(hip->unset);
	CHECK(hip->value == "garbage_collection_threshold:0.6");
	CHECK(hip->check_id == "RDNA-ENV-010");
	const Export *cuda = exported(env, "PYTORCH_CUDA_ALLOC_CONF");
	REQUIRE(cuda != nullptr);
	CHECK(cuda->unset);
}

TEST_CASE("env: never unsets a variable that is not set", "[remedy][env]")
{
	// One APU, no discrete GPU: RDNA-ENV-007 for an index out of range, with
	// ROCR_VISIBLE_DEVICES unset.
	auto s = base();
	s.devices = {amd("0000:c5:00.0", "gfx1151", "rdna3.5", true, 1, 0)};
	set_env(s, "HIP_VISIBLE_DEVICES=3\n");
	auto f = evaluate(s);
	const Finding &x = find(f, "RDNA-ENV-007");
	REQUIRE(x.remedies.size() == 1);
	CHECK(std::get<UnsetEnv>(x.remedies[0]).name == "HIP_VISIBLE_DEVICES");
	auto env = recommend_env(s);
	CHECK(exported(env, "HIP_VISIBLE_DEVICES") != nullptr);
	CHECK(exported(env, "ROCR_VISIBLE_DEVICES") == nullptr); // before: "unset ROCR_VISIBLE_DEVICES"
	for (const auto &e : env)
		if (e.unset)
			CHECK(s.environment.vars.count(e.name) == 1);
	// When it is set, it is unset.
	set_env(s, "ROCR_VISIBLE_DEVICES=2\n");
	auto with_rocr = recommend_env(s);
	const Export *rocr = exported(with_rocr, "ROCR_VISIBLE_DEVICES");
	REQUIRE(rocr != nullptr);
	CHECK(rocr->unset);
}

TEST_CASE("env: the dGPU selection and the overrides", "[remedy][env]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1031", "rdna2", false, 2, 1),
		     amd("0000:16:00.0", "gfx1036", "rdna2", true, 1, 0)};
	SECTION("iGPU first: select the dGPU, and the override the dGPU needs")
	{
		set_env(s, "");
		auto f = evaluate(s);
		auto rocr = only<SetEnv>(find(f, "RDNA-ENV-006"));
		CHECK(rocr.name == "ROCR_VISIBLE_DEVICES");
		CHECK(rocr.value == "1");
		// The override rides on the dGPU's RDNA-GPU-002 finding.
		bool carried = false;
		for (const auto &x : f)
			if (x.id == "RDNA-GPU-002" && x.subject.rfind("0000:03:00.0", 0) == 0) {
				auto set = only<SetEnv>(x);
				CHECK(set.name == "HSA_OVERRIDE_GFX_VERSION");
				CHECK(set.value == "10.3.0");
				carried = true;
			} else if (x.id == "RDNA-GPU-002") {
				CHECK(std::holds_alternative<NoChange>(x.remedies.at(0)));
			}
		CHECK(carried);
	}
	SECTION("the HIP selection conflicts: unset it, select the dGPU with ROCR")
	{
		set_env(s, "HIP_VISIBLE_DEVICES=0,1\n");
		auto f = evaluate(s);
		const Finding &x = find(f, "RDNA-ENV-007");
		REQUIRE(x.remedies.size() == 2);
		CHECK(std::get<UnsetEnv>(x.remedies[0]).name == "HIP_VISIBLE_DEVICES");
		CHECK(std::get<SetEnv>(x.remedies[1]).name == "ROCR_VISIBLE_DEVICES");
		CHECK(std::get<SetEnv>(x.remedies[1]).value == "1");
	}
	SECTION("an invalid override is replaced by the ISA-safe value")
	{
		set_env(s, "HSA_OVERRIDE_GFX_VERSION=gfx1031\n");
		auto set = only<SetEnv>(find(evaluate(s), "RDNA-ENV-001"));
		CHECK(set.name == "HSA_OVERRIDE_GFX_VERSION");
		CHECK(set.value == "10.3.0");
	}
	SECTION("a working override needs no change")
	{
		set_env(s, "HSA_OVERRIDE_GFX_VERSION_2=10.3.0\n");
		auto f = evaluate(s);
		CHECK(kind_of(find(f, "RDNA-ENV-004").remedies.at(0)) == RemedyKind::none);
	}
}

TEST_CASE("env: a cross-family override and slow switches are unset", "[remedy][env]")
{
	auto s = base();
	s.devices = {amd("0000:05:00.0", "gfx1010", "rdna1", false, 1, 0)};
	set_env(s, "HSA_OVERRIDE_GFX_VERSION=10.3.0\nHIP_LAUNCH_BLOCKING=1\nAMD_SERIALIZE_KERNEL=3\nHSA_XNACK=1\n");
	auto f = evaluate(s);
	CHECK(only<UnsetEnv>(find(f, "RDNA-ENV-002")).name == "HSA_OVERRIDE_GFX_VERSION");
	const Finding &slow = find(f, "RDNA-ENV-008");
	REQUIRE(slow.remedies.size() == 2);
	// In name order (the Environment section's order).
	CHECK(std::get<UnsetEnv>(slow.remedies[0]).name == "AMD_SERIALIZE_KERNEL");
	CHECK(std::get<UnsetEnv>(slow.remedies[1]).name == "HIP_LAUNCH_BLOCKING");
	CHECK(only<UnsetEnv>(find(f, "RDNA-ENV-009")).name == "HSA_XNACK");
}

TEST_CASE("env: an officially supported GPU gets no override", "[remedy][env]")
{
	// gfx1201 has an ISA-twin (12.0.0) but needs none: no RDNA-GPU-002, so no
	// override (env used to propose one that no finding asked for).
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1201", "rdna4", false, 1, 0)};
	set_env(s, "");
	auto f = evaluate(s);
	CHECK(std::none_of(f.begin(), f.end(), [](const Finding &x) { return x.id == "RDNA-GPU-002"; }));
	CHECK(recommend_env(s).empty());
}

TEST_CASE("driver and memory remedies: module options and the kernel command line", "[remedy][driver]")
{
	auto s = base();
	s.devices = {amd("0000:05:00.0", "gfx1010", "rdna1", false, 1, 0)};
	s.devices[0].gc_version = "10.1.10";
	SECTION("noretry set on the command line: change it there")
	{
		s.driver.params = {param("noretry", ParamSource::cmdline, "0", "proc/cmdline")};
		auto k = only<KernelParam>(find(evaluate(s), "RDNA-DRV-003"));
		CHECK(k.action == KernelParam::Action::add);
		CHECK(k.param == "amdgpu.noretry");
		CHECK(k.value == "1");
	}
	SECTION("noretry set in modprobe.d: set in the owned file, which rdnactl config writes")
	{
		s.driver.params = {param("noretry", ParamSource::modprobe_d, "0", "/etc/modprobe.d/gpu.conf")};
		auto f = find(evaluate(s), "RDNA-DRV-003");
		auto m = only<ModuleOption>(f);
		CHECK(m.module == "amdgpu");
		CHECK(m.name == "noretry");
		CHECK(m.value == "1");
		CHECK(m.file == "/etc/modprobe.d/rdnafix.conf");
		CHECK(f.fix ==
		      "rdnactl config set amdgpu.noretry=1, then reboot"); // gpu.conf is read before rdnafix.conf
		s.driver.params = {param("noretry", ParamSource::modprobe_d, "0", "/etc/modprobe.d/zz-gpu.conf")};
		CHECK_THAT(find(evaluate(s), "RDNA-DRV-003").fix,
			   Catch::Matchers::ContainsSubstring(
				   "of /etc/modprobe.d/zz-gpu.conf: it is read after rdnafix.conf"));
	}
	SECTION("the kernel default: a new option in the owned file")
	{
		auto m = only<ModuleOption>(find(evaluate(s), "RDNA-DRV-003"));
		CHECK(m.value == "1");
		CHECK(m.file == "/etc/modprobe.d/rdnafix.conf");
	}
	SECTION("gttsize: removed where it is set")
	{
		s.driver.params = {param("gttsize", ParamSource::cmdline, "65536", "proc/cmdline"),
				   param("gtt_size", ParamSource::modprobe_d, "1", "/etc/modprobe.d/gtt.conf")};
		auto f = evaluate(s);
		for (const auto &x : f) {
			if (x.id != "RDNA-DRV-005")
				continue;
			if (x.subject == "amdgpu.gttsize") {
				auto k = only<KernelParam>(x);
				CHECK(k.action == KernelParam::Action::remove);
				CHECK(k.param == "amdgpu.gttsize");
			} else {
				auto m = only<ModuleOption>(x);
				CHECK(m.name == "gtt_size");
				CHECK_FALSE(m.value.has_value());
				CHECK(m.file == "/etc/modprobe.d/gtt.conf");
			}
		}
	}
	SECTION("APU memory ceiling: ttm pages_limit for 3/4 of RAM")
	{
		s.devices = {amd("0000:c5:00.0", "gfx1151", "rdna3.5", true, 1, 0)};
		s.devices[0].gtt_total_bytes = 64ull << 30;
		s.driver.mem_total_bytes = 128ull << 30;
		auto m = only<ModuleOption>(find(evaluate(s), "RDNA-MEM-003"));
		CHECK(m.module == "ttm");
		CHECK(m.name == "pages_limit");
		CHECK(m.value == "25165824"); // 96 GiB * 262144
		CHECK(m.file == "/etc/modprobe.d/rdnafix.conf");
		CHECK(find(evaluate(s), "RDNA-MEM-003").fix.rfind("rdnactl config set ttm-limit=96G, then reboot", 0) ==
		      0);
	}
}

TEST_CASE("access and rdnafix remedies", "[remedy][access]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1030", "rdna2", false, 1, 0)};
	s.access.nodes[0].mode = 0660;
	auto g = only<JoinGroup>(find(evaluate(s), "RDNA-ACC-002"));
	CHECK(g.group == "render");
	CHECK(g.user == "alice");
	s.rdnafix.loaded = true;
	s.rdnafix.abi_version = "1";
	s.rdnafix.dry_run = "1";
	auto m = only<ModuleOption>(find(evaluate(s), "RDNA-MOD-004"));
	CHECK(m.module == "rdnafix");
	CHECK(m.name == "dry_run");
	CHECK(m.value == "0");
}

TEST_CASE("every finding states its remedy; env is exactly its env remedies", "[remedy]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1031", "rdna2", false, 2, 1),
		     amd("0000:16:00.0", "gfx1036", "rdna2", true, 1, 0)};
	set_env(s, "HSA_OVERRIDE_GFX_VERSION=gfx1031\nHIP_VISIBLE_DEVICES=0\nCUDA_LAUNCH_BLOCKING=1\n"
		   "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True\n");
	auto f = evaluate(s);
	std::set<std::string> wanted;
	for (const auto &x : f) {
		INFO(x.id);
		REQUIRE_FALSE(x.remedies.empty());
		if (std::holds_alternative<NoChange>(x.remedies[0]))
			CHECK(x.remedies.size() == 1); // NoChange stands alone
		for (const auto &r : x.remedies) {
			if (const auto *set = std::get_if<SetEnv>(&r))
				wanted.insert(set->name);
			if (const auto *unset = std::get_if<UnsetEnv>(&r))
				wanted.insert(unset->name);
		}
	}
	std::set<std::string> printed;
	for (const auto &e : recommend_env(s)) {
		printed.insert(e.name);
		CHECK(std::any_of(f.begin(), f.end(), [&](const Finding &x) { return x.id == e.check_id; }));
	}
	CHECK(printed == wanted);
	CHECK(to_string(RemedyKind::module_option) == "module_option");
	CHECK(kind_of(Remedy{BiosSetting{"UMA frame buffer size", "2G"}}) == RemedyKind::bios_setting);
}
