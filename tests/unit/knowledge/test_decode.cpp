// knowledge: the decoders with the built-in tables (tables.toml), and the OOM
// judgement over decoded figures (fragmentation, a ceiling, an APU's TTM limit).
#include "explain/knowledge_load.hpp"
#include "explain/model.hpp"
#include "knowledge/builtin.hpp"
#include "knowledge/decode.hpp"

#include "../status/snapshot_builders.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace rdnafix;
using Catch::Matchers::ContainsSubstring;

namespace {

const explain::Loaded &kb()
{
	static const auto l = explain::load_knowledge(knowledge::builtin_files(), false);
	return *l;
}

knowledge::Entry entry_with(std::vector<knowledge::Capture> caps)
{
	knowledge::Entry e;
	e.id = "RDNA-LOG-999";
	e.captures = std::move(caps);
	return e;
}

std::string value_of(const std::vector<knowledge::Fact> &f, const std::string &name)
{
	for (const auto &x : f)
		if (x.name == name)
			return x.value;
	return "(none)";
}

} // namespace

TEST_CASE("sizes as PyTorch, ollama and the kernel print them", "[knowledge]")
{
	using knowledge::parse_bytes;
	REQUIRE(parse_bytes("20.00 MiB") == 20ull << 20);
	REQUIRE(parse_bytes("15.98 GiB") == 17158394348ull); // 15.98 x 2^30, rounded
	REQUIRE(parse_bytes("512 MB") == 512ull << 20);
	REQUIRE(parse_bytes("0 B") == 0);
	REQUIRE(parse_bytes("0 bytes") == 0);
	REQUIRE(parse_bytes("1,024 KiB") == 1ull << 20);
	REQUIRE(parse_bytes("123456") == 123456);
	REQUIRE_FALSE(parse_bytes("lots"));
	REQUIRE_FALSE(parse_bytes("1.2.3 GiB"));
	REQUIRE_FALSE(parse_bytes("99999999999999999999999 TiB"));
	REQUIRE(knowledge::format_bytes(3554085437ull) == "3.31 GiB");
}

TEST_CASE("HIP error numbers, HSA status codes and errno decode through the built-in tables", "[knowledge]")
{
	using knowledge::Decoder;
	const auto &t = kb().base.tables;
	const auto e = entry_with({{"hip", Decoder::hip_error},
				   {"hsa", Decoder::hsa_status},
				   {"err", Decoder::errno_name},
				   {"arch", Decoder::gfx},
				   {"list", Decoder::gfx_list},
				   {"addr", Decoder::hex},
				   {"lib", Decoder::library}});
	auto f = knowledge::decode(e, t,
				   {{"hip", "0100"},
				    {"hsa", "0x29"},
				    {"err", "-2"},
				    {"arch", "gfx90a:sramecc+:xnack-"},
				    {"list", "[gfx1030 gfx1100]"},
				    {"list", "gfx1100 gfx1101"},
				    {"addr", "0x00007f5e85f94000"},
				    {"lib", "/opt/rocm/lib/libamdhip64.so.6"}});
	REQUIRE(value_of(f, "hip") == "hipErrorNoDevice");
	REQUIRE(value_of(f, "hsa") == "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION");
	REQUIRE(value_of(f, "err") == "ENOENT");
	REQUIRE(value_of(f, "arch") == "gfx90a:sramecc+:xnack-");
	REQUIRE(value_of(f, "list") == "gfx1030,gfx1100,gfx1101");
	REQUIRE(value_of(f, "addr") == "0x7f5e85f94000");
	REQUIRE(value_of(f, "lib") == "libamdhip64.so.6");
	// by name too, and what no table knows says so
	f = knowledge::decode(e, t, {{"hip", "hipErrorSharedObjectInitFailed"}, {"hsa", "0x7777"}});
	REQUIRE(value_of(f, "hip") == "hipErrorSharedObjectInitFailed");
	for (const auto &x : f)
		if (x.name == "hsa")
			REQUIRE_THAT(x.text, ContainsSubstring("not a known HSA status code"));
	REQUIRE(knowledge::substitute("GPU {arch}: {missing}", f) == "GPU (not printed): (not printed)");
}

TEST_CASE("OOM figures: fragmentation, a ceiling, and an APU's TTM limit", "[knowledge][explain]")
{
	const auto &base = kb().base;
	const auto *oom = base.find("RDNA-LOG-014");
	REQUIRE(oom);
	auto snap = test::base();
	snap.devices.push_back(test::amd("0000:c6:00.0", "gfx1151", "rdna3.5", true, 1, 0));
	snap.driver.ttm_limit_bytes = 64ull << 30;
	const auto judge = [&](const std::string &line) {
		const auto matches = explain::match_log(explain::read_log(line), *kb().matcher);
		REQUIRE(matches.size() == 1);
		REQUIRE(matches[0].entry == oom);
		const auto r = explain::judge(matches, snap, nullptr, base);
		std::string all;
		for (const auto &l : r.explanations.at(0).decoded)
			all += l + "\n";
		for (const auto &l : r.explanations.at(0).here)
			all += l + "\n";
		for (const auto &l : r.explanations.at(0).fix)
			all += l + "\n";
		return all;
	};
	// reserved-but-unallocated larger than the request: fragmentation
	auto out =
		judge("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
		      "capacity of 63.98 GiB of which 1.50 GiB is free. Of the allocated memory 50.00 GiB is allocated "
		      "by PyTorch, and 7.10 GiB is reserved by PyTorch but unallocated.");
	REQUIRE_THAT(out, ContainsSubstring("fragmentation: 7.10 GiB is reserved by PyTorch but unallocated"));
	REQUIRE_THAT(out, ContainsSubstring("the log's total capacity is this limit"));
	REQUIRE_THAT(out, ContainsSubstring("rdnactl config set ttm-limit="));
	// little reserved, little free: a ceiling
	out = judge(
		"torch.OutOfMemoryError: HIP out of memory. Tried to allocate 3.31 GiB. GPU 0 has a total capacity "
		"of 128.00 GiB of which 780.24 MiB is free. Of the allocated memory 57.70 GiB is allocated by PyTorch, "
		"and 75.82 MiB is reserved by PyTorch but unallocated.");
	REQUIRE_THAT(out, ContainsSubstring("a ceiling: 3.31 GiB was asked for and 780.2 MiB was free of 128.00 GiB"));
	REQUIRE_THAT(out,
		     ContainsSubstring("69.46 GiB of the 128.00 GiB was in use but not held by PyTorch's allocator"));
}
