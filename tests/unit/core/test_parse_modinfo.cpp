// core::parse_module_info on real modules (data/modsig/SOURCE.md): the
// values kmod's `modinfo -F version|srcversion|vermagic|name` prints for the
// same files, and damaged ELF files give errors that name what is wrong.
#include "core/parse_modinfo.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstring>
#include "modsig_sample.hpp"

#include <string>

using namespace rdnafix::core;
using Catch::Matchers::ContainsSubstring;

namespace {

void put_le16(std::string &d, std::size_t off, unsigned v)
{
	d[off] = char(v & 0xff);
	d[off + 1] = char((v >> 8) & 0xff);
}

void put_le64(std::string &d, std::size_t off, std::uint64_t v)
{
	for (int i = 0; i < 8; ++i)
		d[off + i] = char((v >> (8 * i)) & 0xff);
}

} // namespace

TEST_CASE("modinfo: rdnafix built by kbuild for Debian 6.1", "[modinfo]")
{
	std::string ko = modsig_sample("rdnafix-0.1.0-6.1.0-56-amd64.ko");
	REQUIRE(ko.size() == 102040);
	auto m = parse_module_info(ko);
	REQUIRE(m);
	CHECK(m->name == "rdnafix");
	CHECK(m->version == "0.1.0");
	CHECK(m->srcversion == "0C47AC38E13F86CCA9AE188");
	CHECK(m->vermagic == "6.1.0-56-amd64 SMP preempt mod_unload modversions ");
	CHECK(m->release() == "6.1.0-56-amd64");
}

TEST_CASE("modinfo: an in-tree Debian module has no version", "[modinfo]")
{
	auto m = parse_module_info(modsig_sample("nhc_dest-6.1.0-56-amd64.ko"));
	REQUIRE(m);
	CHECK(m->name == "nhc_dest");
	CHECK(m->version.empty());
	CHECK(m->release() == "6.1.0-56-amd64");
	auto t = parse_module_info(modsig_sample("tiny-unsigned-6.1.0-56-amd64.ko"));
	REQUIRE(t);
	CHECK(t->name == "tiny");
	CHECK(t->srcversion.empty());
}

TEST_CASE("modinfo: damaged files are errors naming the problem", "[modinfo]")
{
	const std::string ko = modsig_sample("rdnafix-0.1.0-6.1.0-56-amd64.ko");
	SECTION("not an ELF file")
	{
		auto r = parse_module_info("\x28\xb5\x2f\xfd compressed bytes");
		REQUIRE_FALSE(r);
		CHECK_THAT(r.error().message, ContainsSubstring("kernel module"));
	}
	SECTION("empty")
	{
		REQUIRE_FALSE(parse_module_info(""));
	}
	SECTION("truncated: the section table is past the end")
	{
		auto r = parse_module_info(std::string_view(ko).substr(0, ko.size() / 2));
		REQUIRE_FALSE(r);
		CHECK_THAT(r.error().message, ContainsSubstring("section table"));
	}
	SECTION("a section count that does not fit")
	{
		std::string bad = ko;
		put_le16(bad, 60, 0xff00);
		auto r = parse_module_info(bad);
		REQUIRE_FALSE(r);
		CHECK_THAT(r.error().message, ContainsSubstring("do not fit"));
	}
	SECTION("a name-table index past the sections")
	{
		std::string bad = ko;
		put_le16(bad, 62, 0xfff0);
		auto r = parse_module_info(bad);
		REQUIRE_FALSE(r);
		CHECK_THAT(r.error().message, ContainsSubstring("section name table index"));
	}
	SECTION("no .modinfo: its name renamed")
	{
		std::string bad = ko;
		auto at = bad.find(std::string(".modinfo") + '\0');
		REQUIRE(at != std::string::npos);
		bad[at + 1] = 'X';
		auto r = parse_module_info(bad);
		REQUIRE_FALSE(r);
		CHECK_THAT(r.error().message, ContainsSubstring("no .modinfo section"));
	}
	SECTION("the section table offset beyond the file")
	{
		std::string bad = ko;
		put_le64(bad, 40, bad.size() + 10);
		auto r = parse_module_info(bad);
		REQUIRE_FALSE(r);
		CHECK_THAT(r.error().message, ContainsSubstring("outside the file"));
	}
}

TEST_CASE("modinfo: every truncation of a real module is an error or a value, never a crash", "[modinfo]")
{
	const std::string ko = modsig_sample("tiny-unsigned-6.1.0-56-amd64.ko");
	for (std::size_t n = 0; n < ko.size(); n += 97) {
		auto r = parse_module_info(std::string_view(ko).substr(0, n));
		if (r)
			CHECK(r->name == "tiny");
	}
	// Flipping each byte of the ELF and section headers.
	for (std::size_t i = 0; i < 64; ++i) {
		std::string bad = ko;
		bad[i] = char(~bad[i]);
		(void)parse_module_info(bad);
	}
}
