// core::rules::param_default: what a parameter becomes when nothing sets it.
#include "core/parse.hpp"
#include "core/rules_defaults.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace rdnafix;

namespace {

core::KernelVersion kv(const char *rel)
{
	auto v = core::parse_kernel_release(rel);
	REQUIRE(v);
	return *v;
}

core::GcVersion gc(const char *dotted)
{
	auto g = core::parse_gc_version(dotted);
	REQUIRE(g);
	return *g;
}

} // namespace

TEST_CASE("param_default: amdgpu.noretry follows the kernel's history per GC version", "[rules][defaults]")
{
	auto rdna1_61 = rules::param_default("amdgpu", "noretry", kv("6.1.0-18-amd64"), gc("10.1.10"));
	REQUIRE(rdna1_61);
	CHECK(rdna1_61->param_value == "-1");
	CHECK(rdna1_61->effective == "0");
	CHECK(rdna1_61->explanation.find("amdgpu_gmc_noretry_set") != std::string::npos);
	CHECK(rules::param_default("amdgpu", "noretry", kv("6.14.0-27-generic"), gc("10.1.10"))->effective == "0");
	CHECK(rules::param_default("amdgpu", "noretry", kv("6.1.0-18-amd64"), gc("10.3.0"))->effective == "1");
	CHECK(rules::param_default("amdgpu", "noretry", kv("6.0.9"), gc("10.3.0"))->effective == "0");
	CHECK(rules::param_default("amdgpu", "noretry", kv("7.2"), gc("10.1.10"))->effective == "1");
	auto backport = rules::param_default("amdgpu", "noretry", kv("6.18.3"), gc("10.1.10"));
	CHECK(backport->effective == "1");
	CHECK_FALSE(backport->certain);
	auto nogpu = rules::param_default("amdgpu", "noretry", kv("6.1.0"));
	CHECK_FALSE(nogpu->effective);
}

TEST_CASE("param_default: vm_fragment_size, rdnafix, ttm, unknown", "[rules][defaults]")
{
	auto frag = rules::param_default("amdgpu", "vm-fragment-size", kv("6.12.0"), gc("10.3.2"));
	REQUIRE(frag);
	CHECK(frag->effective == "9");
	CHECK_FALSE(rules::param_default("amdgpu", "vm_fragment_size", kv("6.12.0"), gc("11.0.0"))->effective);
	CHECK(rules::param_default("rdnafix", "targets", kv("6.1.0"))->param_value == "rdna1,rdna2");
	CHECK(rules::param_default("rdnafix", "mtype_sysmem", kv("6.1.0"))->param_value == "keep");
	CHECK(rules::param_default("ttm", "pages_limit", kv("6.1.0"))->explanation.find("half of RAM") !=
	      std::string::npos);
	CHECK_FALSE(rules::param_default("amdgpu", "dc", kv("6.1.0")));
	CHECK_FALSE(rules::param_default("rdnafix", "bogus", kv("6.1.0")));
	CHECK_FALSE(rules::param_default("i915", "enable_guc", kv("6.1.0")));
}
