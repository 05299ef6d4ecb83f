// Deterministic fuzz of read_fatbin and the core parsers: random mutations
// (byte flips, 2^64-ish values poked into counts / sizes / offsets, cuts,
// splices) of the real fat binaries in data/.  The seed is printed; set
// RDNAFIX_FUZZ_SEED / RDNAFIX_FUZZ_ITERATIONS to replay or to run longer.
#include "core/codeobj.hpp"
#include "core/codeobj_bytes.hpp"
#include "fatbin_test_util.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdio>
#include <random>

namespace cov = rdnafix::coverage;
namespace co = rdnafix::core::codeobj;

namespace {

std::uint64_t env_or(const char *name, std::uint64_t fallback)
{
	const char *v = std::getenv(name);
	return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// One random mutation of `d`, aimed at the bundle header region half the time.
void mutate(std::string &d, std::mt19937_64 &rng, std::size_t hot)
{
	if (d.empty())
		return;
	auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
	std::size_t at =
		(rng() & 1) && hot < d.size() ? hot + pick(std::min<std::size_t>(512, d.size() - hot)) : pick(d.size());
	static const std::uint64_t kValues[] = {
		0, 1, 0x7f, 0xff, 4096, 0xffffffffull, 0x100000000ull, UINT64_MAX, UINT64_MAX - 7, 1ull << 40};
	switch (rng() % 6) {
	case 0:
		d[at] = static_cast<char>(d[at] ^ (1u << pick(8)));
		break;
	case 1:
		d[at] = static_cast<char>(rng());
		break;
	case 2:
		fatbin_test::put64(d, at & ~std::size_t(7), kValues[pick(std::size(kValues))]);
		break;
	case 3:
		d.resize(pick(d.size()) + 1);
		break;
	case 4: { // copy a slice onto another place (entry tables pointing at themselves)
		std::size_t from = pick(d.size()), len = std::min<std::size_t>(pick(64) + 1, d.size() - from);
		std::size_t to = pick(d.size() - len + 1);
		d.replace(to, len, d.substr(from, len));
		break;
	}
	default:
		d.insert(at, std::string(pick(16) + 1, static_cast<char>(rng())));
		break;
	}
}

} // namespace

TEST_CASE("read_fatbin fuzz: mutated real fat binaries never crash, stay bounded", "[read_fatbin][fuzz]")
{
	const std::uint64_t seed = env_or("RDNAFIX_FUZZ_SEED", 20261124);
	const std::uint64_t iterations = env_or("RDNAFIX_FUZZ_ITERATIONS", 4000);
	std::printf("read_fatbin fuzz: seed %llu, %llu iterations (RDNAFIX_FUZZ_SEED to replay)\n",
		    static_cast<unsigned long long>(seed), static_cast<unsigned long long>(iterations));
	std::mt19937_64 rng(seed);
	const char *names[] = {"libk3_plain.so",  "libk8_ccob2.so", "libk8_ccob3.so",
			       "k2_bundle.hipfb", "k2_ccob2.hipfb", "k_gfx1031.co"};
	std::vector<std::string> inputs;
	for (const char *n : names)
		inputs.push_back(fatbin_test::data(n));
	fatbin_test::TempRoot root;
	cov::ReadLimits lim;
	lim.max_inflate = 4 << 20;
	std::size_t unreadable = 0, read_ok = 0;
	for (std::uint64_t i = 0; i < iterations; ++i) {
		std::string d = inputs[i % inputs.size()];
		const std::size_t hot = fatbin_test::find_bundle(d);
		for (unsigned m = 0, n = 1 + static_cast<unsigned>(rng() % 4); m < n; ++m)
			mutate(d, rng, hot);
		INFO("seed " << seed << " iteration " << i << " input " << names[i % inputs.size()]);
		cov::FatbinFile f = root.read(d, lim);
		// Bounded: no more than a few passes over the input plus the inflate limit.
		CHECK(f.bytes_read <= 8 * d.size() + lim.max_inflate + (1 << 20));
		CHECK(f.bundles.size() <= lim.max_bundles + 1);
		if (f.kind == cov::FileKind::unreadable)
			CHECK_FALSE(f.unreadable.empty());
		for (const auto &b : f.bundles) {
			CHECK(b.entries.size() <= lim.max_entries);
			if (!b.unreadable.empty())
				++unreadable;
			else
				++read_ok;
		}
		// The pure parsers on the same bytes directly.
		std::string_view v(d);
		(void)co::decode_amdgpu_elf_header(v.substr(0, 64));
		if (hot < d.size()) {
			(void)co::parse_ccob_header(v.substr(hot, 32));
			(void)co::parse_bundle_table(v.substr(hot), co::BundleLimits{});
		}
	}
	std::printf("read_fatbin fuzz: %zu bundles read, %zu unreadable\n", read_ok, unreadable);
	CHECK(read_ok > 0);    // some mutations leave a readable bundle
	CHECK(unreadable > 0); // and many do not
}
