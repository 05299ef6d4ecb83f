// /proc/cmdline parsing with the kernel's quoting rules.
#include <catch2/catch_test_macros.hpp>

#include "core/parse.hpp"

using namespace rdnafix::core;

TEST_CASE("cmdline: plain args, values and flags", "[parse][cmdline]")
{
	// A Debian cmdline as /proc/cmdline prints it (trailing newline).
	auto c = parse_kernel_cmdline(
		"BOOT_IMAGE=/boot/vmlinuz-6.12.117+deb12-amd64 root=UUID=1b2c ro quiet amdgpu.noretry=0 "
		"amdgpu.vm_fragment_size=9\n");
	REQUIRE(c.args.size() == 6);
	CHECK(c.args[0].param == "BOOT_IMAGE");
	CHECK(c.args[1].param == "root");
	CHECK(c.args[1].value == "UUID=1b2c"); // only the first '=' splits
	CHECK(c.args[3].param == "quiet");
	CHECK_FALSE(c.args[3].value.has_value());
	CHECK(c.module_param("amdgpu", "noretry")->value == "0");
	CHECK(c.module_param("amdgpu", "vm_fragment_size")->value == "9");
	CHECK(c.module_param("amdgpu", "gttsize") == std::nullopt);
	CHECK(c.param("quiet").has_value());
	CHECK(c.init_args.empty());
}

TEST_CASE("cmdline: double quotes group words and are removed", "[parse][cmdline]")
{
	auto c = parse_kernel_cmdline("dyndbg=\"file amdgpu_vm.c +p\" \"acpi_osi=Linux Foo\" a=b\"c d\"e x=\"\" y=\"");
	REQUIRE(c.args.size() == 5);
	CHECK(c.args[0].param == "dyndbg");
	CHECK(c.args[0].value == "file amdgpu_vm.c +p");
	CHECK(c.args[1].param == "acpi_osi"); // a leading quote around the whole arg
	CHECK(c.args[1].value == "Linux Foo");
	CHECK(c.args[2].param == "a");
	CHECK(c.args[2].value == "b\"c d\"e"); // quotes inside a value stay (kernel next_arg)
	CHECK(c.args[3].value == "");
	CHECK(c.args[4].param == "y");
	CHECK(c.args[4].value == ""); // an unterminated quote runs to the end
}

TEST_CASE("cmdline: '-' and '_' are equivalent and the last one wins", "[parse][cmdline]")
{
	auto c = parse_kernel_cmdline("amdgpu.noretry=1 amdgpu.vm-fragment-size=4 amdgpu.noretry=0 amd-gpu.x=1");
	auto nr = c.module_param("amdgpu", "noretry");
	REQUIRE(nr);
	CHECK(nr->value == "0");
	CHECK(nr->index == 2);
	CHECK(c.module_param("amdgpu", "vm_fragment_size")->value == "4");
	CHECK(c.module_param("amd_gpu", "x")->value == "1");
	auto all = c.module_params("amdgpu");
	REQUIRE(all.size() == 2);
	CHECK(all[0].first == "noretry");
	CHECK(all[0].second.value == "0");
	CHECK(all[1].first == "vm_fragment_size");
}

TEST_CASE("cmdline: '--' ends the kernel's args", "[parse][cmdline]")
{
	auto c = parse_kernel_cmdline("ro amdgpu.noretry=1 -- amdgpu.noretry=0 single");
	CHECK(c.module_param("amdgpu", "noretry")->value == "1");
	REQUIRE(c.init_args.size() == 2);
	CHECK(c.init_args[0] == "amdgpu.noretry=0");
	// "--=x" is an ordinary parameter, not the separator.
	auto d = parse_kernel_cmdline("--=x a=1");
	CHECK(d.args.size() == 2);
	CHECK(d.init_args.empty());
}

TEST_CASE("cmdline: odd input never crashes", "[parse][cmdline]")
{
	CHECK(parse_kernel_cmdline("").args.empty());
	CHECK(parse_kernel_cmdline(" \n\t ").args.empty());
	auto c = parse_kernel_cmdline(std::string("a=1\0b=2", 7)); // NUL separates
	REQUIRE(c.args.size() == 2);
	CHECK(c.args[1].param == "b");
	auto e = parse_kernel_cmdline("=x .y amdgpu. .noretry=1");
	CHECK(e.args.size() == 4);
	CHECK(e.args[0].param == "=x"); // '=' in the first position does not split (kernel)
	CHECK(e.module_param("amdgpu", "") == std::nullopt);
	auto bare = parse_kernel_cmdline("amdgpu.dc");
	CHECK(bare.module_param("amdgpu", "dc")->value == "");
}

TEST_CASE("module option strings use the same rules", "[parse][cmdline]")
{
	auto p = split_module_params("noretry=0 ppfeaturemask=0xfff7bfff  lockup-timeout=\"10000,10000\" dc");
	REQUIRE(p.size() == 4);
	CHECK(p[0].name == "noretry");
	CHECK(p[1].value == "0xfff7bfff");
	CHECK(p[2].name == "lockup_timeout");
	CHECK(p[2].value == "10000,10000");
	CHECK(p[3].name == "dc");
	CHECK_FALSE(p[3].value.has_value());
}
