// read_fatbin on damaged and hostile copies of the real fat binaries:
// truncated at every length, counts and sizes of 2^64, entries that overlap
// or point back into the header, e_flags that contradict the entry id, zip
// bombs, several bundles in a row.  Each yields "unreadable" with a reason
// (or the disagreement), never a crash, with bounded memory.
#include "core/codeobj_bytes.hpp"
#include "fatbin_test_util.hpp"

#include <catch2/catch_test_macros.hpp>

#include <sys/resource.h>
#include <zlib.h>
#include <zstd.h>

#include <memory>

namespace cov = rdnafix::coverage;
using fatbin_test::ccob;
using fatbin_test::put64;
using fatbin_test::zlib_compress;

namespace {

bool any_unreadable(const cov::FatbinFile &f)
{
	if (f.kind == cov::FileKind::unreadable)
		return !f.unreadable.empty();
	for (const auto &b : f.bundles)
		if (!b.unreadable.empty())
			return true;
	return false;
}

// The uncompressed payload of the first CCOB in `d` (libzstd directly, not
// the code under test).
std::string ccob_payload(const std::string &d)
{
	std::size_t at = fatbin_test::find_bundle(d);
	auto h = rdnafix::core::codeobj::parse_ccob_header(d.substr(at, 32));
	std::string out(h->uncompressed_size, '\0');
	std::size_t n =
		ZSTD_decompress(out.data(), out.size(), d.data() + at + h->header_size, h->total_size - h->header_size);
	REQUIRE_FALSE(ZSTD_isError(n));
	return out;
}

// A zstd frame of `n` zero bytes, compressed in 1 MiB steps.
std::string zstd_zeros(std::uint64_t n)
{
	std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx *)> c(ZSTD_createCCtx(), ZSTD_freeCCtx);
	std::string zero(1 << 20, '\0'), out, buf(ZSTD_CStreamOutSize(), '\0');
	for (std::uint64_t done = 0; done <= n;) {
		std::size_t step = static_cast<std::size_t>(std::min<std::uint64_t>(zero.size(), n - done));
		bool last = done + step == n;
		ZSTD_inBuffer in{zero.data(), step, 0};
		std::size_t left = 0;
		do {
			ZSTD_outBuffer o{buf.data(), buf.size(), 0};
			left = ZSTD_compressStream2(c.get(), &o, &in, last ? ZSTD_e_end : ZSTD_e_continue);
			REQUIRE_FALSE(ZSTD_isError(left));
			out.append(buf.data(), o.pos);
		} while (in.pos < in.size || (last && left != 0));
		done += step;
		if (last)
			break;
	}
	return out;
}

long max_rss_kib()
{
	rusage u{};
	getrusage(RUSAGE_SELF, &u);
	return u.ru_maxrss;
}

} // namespace

TEST_CASE("read_fatbin hostile: truncated at every length", "[read_fatbin][hostile]")
{
	fatbin_test::TempRoot root;
	for (const char *name : {"k2_bundle.hipfb", "k2_ccob2.hipfb", "libk3_plain.so", "libk8_ccob3.so"}) {
		const std::string full = fatbin_test::data(name);
		for (std::size_t n = 0; n < full.size(); n += (n < 256 ? 1 : 61)) {
			INFO(name << " cut at " << n);
			auto f = root.read(full.substr(0, n));
			CHECK(f.size == n);
			if (n < 4 || (n < 24 && name[3] == 'b')) // too short to carry a magic
				CHECK((f.kind == cov::FileKind::not_device_code ||
				       f.kind == cov::FileKind::unreadable));
			else
				CHECK(any_unreadable(f));
		}
	}
}

TEST_CASE("read_fatbin hostile: huge counts and sizes, overlaps, loops", "[read_fatbin][hostile]")
{
	fatbin_test::TempRoot root;
	const std::string good = fatbin_test::data("libk3_plain.so");
	const std::size_t at = fatbin_test::find_bundle(good);
	auto reason = [&](std::size_t off, std::uint64_t v) {
		std::string d = good;
		put64(d, at + off, v);
		auto f = root.read(d);
		REQUIRE(f.bundles.size() == 1);
		return f.bundles[0].unreadable;
	};
	// Entry 0 is at +32: offset, size, id length.
	CHECK(reason(24, UINT64_MAX).find("entries (limit 4096)") != std::string::npos);
	CHECK(reason(24, 0).find("0 entries") != std::string::npos);
	CHECK(reason(32 + 16, UINT64_MAX).find("id length") != std::string::npos);
	CHECK(reason(32 + 16, 0).find("id length of 0") != std::string::npos);
	const std::size_t e1 = 32 + 24 + 30; // entry 1 (gfx1030) after the host entry's 30-byte id
	CHECK(reason(e1 + 8, UINT64_MAX).find("runs past") != std::string::npos);
	CHECK(reason(e1, UINT64_MAX - 10).find("runs past") != std::string::npos);
	CHECK(reason(e1, 0).find("overlaps the bundle header") != std::string::npos); // points at itself
	CHECK(reason(e1, 4096 + 8192).find("overlap") != std::string::npos);          // onto gfx1100's
	// The section header table: a section count of 65535 past the end of the file.
	std::string elf = good;
	elf[60] = '\xff';
	elf[61] = '\xff';
	auto f = root.read(elf);
	CHECK(f.kind == cov::FileKind::unreadable);
	CHECK(f.unreadable.find("runs past") != std::string::npos);
	// A 32-bit or big-endian ELF carries no HIP device code: not unreadable.
	std::string elf32 = good;
	elf32[4] = 1;
	CHECK(root.read(elf32).kind == cov::FileKind::elf_without);
	std::string strndx = good;
	strndx[62] = 0x70;
	CHECK(root.read(strndx).unreadable.find("section-name table index") != std::string::npos);
}

TEST_CASE("read_fatbin hostile: e_flags that contradict the entry id", "[read_fatbin][hostile]")
{
	fatbin_test::TempRoot root;
	std::string d = fatbin_test::data("libk3_plain.so");
	const std::size_t at = fatbin_test::find_bundle(d);
	// gfx1030's code object is at bundle + 4096; e_flags at +48.
	REQUIRE(d[at + 4096 + 48] == 0x36);
	d[at + 4096 + 48] = 0x37;
	auto f = root.read(d);
	REQUIRE(f.bundles.size() == 1);
	const auto &e = f.bundles[0].entries[1];
	CHECK(e.id.raw == "hipv4-amdgcn-amd-amdhsa--gfx1030");
	CHECK(e.disagreement == "entry says gfx1030, e_flags say gfx1031 (0x00000037)");
	d[at + 4096] = 'X'; // no ELF magic
	auto g = root.read(d);
	CHECK(g.bundles[0].entries[1].disagreement.find("code object header unreadable: no ELF magic") == 0);
	d[at + 4096 + 48] = 0x4d; // and a reserved MACH value
	d[at + 4096] = 0x7f;
	CHECK(root.read(d).bundles[0].entries[1].disagreement.find("0x04d") != std::string::npos);
}

TEST_CASE("read_fatbin hostile: zip bombs stay bounded", "[read_fatbin][hostile]")
{
	fatbin_test::TempRoot root;
	// 1 GiB of zeros declared as such (v3): only the first KiBs are inflated.
	const std::string bomb = zstd_zeros(1ull << 30);
	long rss0 = max_rss_kib();
	auto f = root.read(ccob(3, 1, bomb, 1ull << 30));
	REQUIRE(f.bundles.size() == 1);
	CHECK(f.bundles[0].unreadable.find("no offload-bundle magic") != std::string::npos);
	CHECK(max_rss_kib() - rss0 < 64 * 1024);
	CHECK(f.bytes_read < 1 << 20);
	// The same stream declared as 4 KiB: inflating past it is refused.
	auto g = root.read(ccob(2, 1, bomb, 4096));
	CHECK(g.bundles[0].unreadable.find("inflates to more than the 4096 bytes") != std::string::npos);
	// A real payload whose code objects lie past a small inflate limit.
	const std::string payload = ccob_payload(fatbin_test::data("libk8_ccob2.so"));
	cov::ReadLimits lim;
	lim.max_inflate = 8192;
	auto h = root.read(fatbin_test::data("libk8_ccob2.so"), lim);
	REQUIRE(h.bundles.size() == 1);
	CHECK(h.bundles[0].unreadable.empty());
	CHECK(h.bundles[0].entries.size() == 9);
	CHECK(h.bundles[0].entries.back().disagreement.find("inflate limit") != std::string::npos);
	// A stream shorter than declared, and corrupt data.
	std::string zs(ZSTD_compressBound(payload.size()), '\0');
	zs.resize(ZSTD_compress(zs.data(), zs.size(), payload.data(), payload.size(), 3));
	CHECK(root.read(ccob(2, 1, zs.substr(0, 40), payload.size())).bundles[0].unreadable.find("zstd") == 0);
	std::string bad = zs;
	bad[10] ^= 0x55;
	bad[11] ^= 0x55;
	CHECK_FALSE(root.read(ccob(2, 1, bad, payload.size())).bundles[0].unreadable.empty());
}

TEST_CASE("read_fatbin: zlib CCOB v1 and v2 from a real payload", "[read_fatbin]")
{
	fatbin_test::TempRoot root;
	const std::string payload = ccob_payload(fatbin_test::data("libk8_ccob2.so"));
	const std::string z = zlib_compress(payload);
	for (unsigned v : {1u, 2u, 3u}) {
		INFO("version " << v);
		auto f = root.read(ccob(v, 0, z, payload.size()));
		CHECK(f.kind == cov::FileKind::bundle);
		REQUIRE(f.bundles.size() == 1);
		CHECK(f.bundles[0].unreadable.empty());
		CHECK(f.bundles[0].compression == "zlib");
		CHECK(f.bundles[0].ccob_version == v);
		CHECK(f.bundles[0].entries.size() == 9);
		for (const auto &e : f.bundles[0].entries)
			CHECK(e.disagreement.empty());
	}
	auto short_z = root.read(ccob(2, 0, z.substr(0, 40), payload.size()));
	CHECK_FALSE(short_z.bundles[0].unreadable.empty());
}

TEST_CASE("read_fatbin: several bundles in a row, aligned or not, and the bundle limit", "[read_fatbin]")
{
	fatbin_test::TempRoot root;
	const std::string plain = fatbin_test::data("k2_bundle.hipfb");
	const std::string packed = fatbin_test::data("k2_ccob2.hipfb");
	auto pad = [](std::string s, std::size_t to) {
		s.resize((s.size() + to - 1) / to * to, '\0');
		return s;
	};
	std::string three = pad(plain, 4096) + pad(packed, 4096) + plain;
	auto f = root.read(three);
	REQUIRE(f.bundles.size() == 3);
	CHECK(f.bundles[1].format == cov::BundleFormat::ccob);
	CHECK(f.bundles[1].file_offset == 20480);
	for (const auto &b : f.bundles) {
		CHECK(b.unreadable.empty());
		CHECK(b.entries.size() == 3);
	}
	// 8-byte alignment instead of 4096: found by the search that follows.
	auto g = root.read(pad(plain, 8) + pad(packed, 8) + plain);
	CHECK(g.bundles.size() == 3);
	// Junk between bundles: skipped by the search for the next magic.
	auto j = root.read(pad(plain, 4096) + std::string(5000, 'J') + plain);
	REQUIRE(j.bundles.size() == 2);
	CHECK(j.bundles[1].unreadable.empty());
	cov::ReadLimits lim;
	lim.max_bundles = 2;
	auto l = root.read(three, lim);
	REQUIRE(l.bundles.size() == 3);
	CHECK(l.bundles[2].unreadable == "more than 2 bundles; the rest is not read");
}
