// plan_fix: which remedies `rdnactl fix` writes through config and which it
// prints for a person.
#include <catch2/catch_test_macros.hpp>

#include "fix_plan.hpp"

using namespace rdnafix;
using status::Finding;
using status::Severity;

namespace {

Finding finding(std::string id, Severity sev, std::vector<status::Remedy> r, std::string fix = "")
{
	Finding f;
	f.id = std::move(id);
	f.severity = sev;
	f.subject = "0000:03:00.0";
	f.fix = std::move(fix);
	f.remedies = std::move(r);
	return f;
}

} // namespace

TEST_CASE("fix: module options and kernel parameters become config changes, first one wins", "[fix]")
{
	auto plan = app::plan_fix(
		{finding("RDNA-DRV-003", Severity::warn,
			 {status::KernelParam{status::KernelParam::Action::add, "amdgpu.noretry", "1"}}),
		 finding("RDNA-DRV-006", Severity::info,
			 {status::KernelParam{status::KernelParam::Action::add, "amdgpu.noretry", "0"},
			  status::KernelParam{status::KernelParam::Action::remove, "amdgpu.gttsize", ""}}),
		 finding("RDNA-MEM-001", Severity::warn,
			 {status::ModuleOption{"ttm", "pages_limit", "6291456", "/etc/modprobe.d/rdnafix.conf"}}),
		 finding("RDNA-DRV-005", Severity::warn,
			 {status::ModuleOption{"ttm", "pages_limit", "1", "/etc/modprobe.d/rdnafix.conf"},
			  status::ModuleOption{"amdgpu", "gttsize", std::nullopt, "/etc/modprobe.d/amdgpu.conf"}})},
		"debian");
	REQUIRE(plan.cmdline.size() == 2);
	CHECK(plan.cmdline[0].param == "amdgpu.noretry");
	CHECK(plan.cmdline[0].value == "1"); // the first finding's value; DRV-006's is not also applied
	CHECK(plan.cmdline[1].param == "amdgpu.gttsize");
	CHECK_FALSE(plan.cmdline[1].value.has_value()); // remove
	// rdnactl writes only its own modprobe.d file: removing gttsize from amdgpu.conf is the user's
	// step, an instruction (applying it to rdnafix.conf would leave the finding: issue 21's fix loop).
	REQUIRE(plan.modules.size() == 1);
	CHECK(plan.modules[0].module == "ttm");
	CHECK(plan.modules[0].value == "6291456");
	CHECK(plan.applied_by ==
	      std::vector<std::string>{"RDNA-DRV-003", "RDNA-DRV-006", "RDNA-MEM-001", "RDNA-DRV-005"});
	REQUIRE(plan.instructions.size() == 1);
	CHECK(plan.instructions[0].check_id == "RDNA-DRV-005");
}

TEST_CASE("fix: what only a person can do is an instruction naming its finding", "[fix]")
{
	auto plan = app::plan_fix(
		{finding("RDNA-ENV-010", Severity::warn,
			 {status::SetEnv{"PYTORCH_HIP_ALLOC_CONF", "garbage_collection_threshold:0.8", "why"}}),
		 finding("RDNA-ENV-008", Severity::warn, {status::UnsetEnv{"AMD_SERIALIZE_KERNEL", "slow"}}),
		 finding("RDNA-ACC-002", Severity::error, {status::JoinGroup{"render", ""}}),
		 finding("RDNA-GPU-002", Severity::warn,
			 {status::InstallPackage{status::InstallPackage::Kind::package, "librocblas0"},
			  status::InstallPackage{status::InstallPackage::Kind::wheel, "torch"}}),
		 finding("RDNA-MEM-002", Severity::warn, {status::BiosSetting{"UMA Frame Buffer Size", "512M"}}),
		 finding("RDNA-DRV-002", Severity::error, {status::NoChange{}}, "look at dmesg"),
		 finding("RDNA-GPU-001", Severity::info, {status::NoChange{}}, "nothing")},
		"fedora");
	CHECK(plan.modules.empty());
	CHECK(plan.cmdline.empty());
	CHECK(plan.applied_by.empty());
	REQUIRE(plan.instructions.size() == 7);
	CHECK(plan.instructions[0].check_id == "RDNA-ENV-010");
	CHECK(plan.instructions[0].kind == status::RemedyKind::set_env);
	CHECK(plan.instructions[0].text.find("PYTORCH_HIP_ALLOC_CONF=garbage_collection_threshold:0.8") == 0);
	CHECK(plan.instructions[1].text.find("unset AMD_SERIALIZE_KERNEL") == 0);
	CHECK(plan.instructions[2].text == "sudo usermod -aG render \"$USER\", then log in again");
	CHECK(plan.instructions[3].text == "sudo dnf install librocblas0"); // the distribution's own tool
	CHECK(plan.instructions[4].text == "pip install torch");
	CHECK(plan.instructions[5].text == "in the firmware setup: UMA Frame Buffer Size = 512M");
	CHECK(plan.instructions[6].text == "look at dmesg"); // an info finding's NoChange is not an instruction
	CHECK(app::plan_fix({finding("X", Severity::warn, {status::InstallPackage{{}, "x"}})}, "debian")
		      .instructions[0]
		      .text == "sudo apt install x");
}
