// What reading compressed bundles may cost: a 2 KB CCOB declaring 64 MiB is
// inflated to its last code-object header, so a directory of them, or one
// file of many, is bounded by the decompression budget (bytes per file, bytes
// and seconds per scan); what the budget stops is "not read: decompression
// budget", never "no device code".  And entry tables longer than the first
// 4096-byte read (clang-offload-bundler with 78 targets, data/SOURCE.md).
#include "core/codeobj_bytes.hpp"
#include "software/libdirs.hpp"
#include "coverage/render.hpp"
#include "software/scan.hpp"
#include "fatbin_test_util.hpp"

#include <catch2/catch_test_macros.hpp>

namespace cov = rdnafix::coverage;
using fatbin_test::ccob;
using fatbin_test::put64;
using rdnafix::io::InflateBudget;

namespace {

constexpr std::uint64_t kMiB = 1 << 20;

// The first 4096 bytes of the real gfx1030 code object in libk3_plain.so.
std::string gfx1030_object()
{
	fatbin_test::TempRoot root;
	const std::string so = fatbin_test::data("libk3_plain.so");
	auto f = root.read(so);
	REQUIRE(f.bundles.size() == 1);
	for (const auto &e : f.bundles[0].entries)
		if (e.id.raw == "hipv4-amdgcn-amd-amdhsa--gfx1030")
			return so.substr(f.bundles[0].file_offset + e.offset, std::min<std::uint64_t>(e.size, 4096));
	FAIL("no gfx1030 entry in libk3_plain.so");
	return {};
}

// A CCOB v2 (zstd) bomb: a valid plain bundle of `size` bytes (host entry,
// gfx1030 entry) whose code object lies at its very end, zeros before it:
// a few KB that inflate to `size`.
std::string bomb(std::uint64_t size)
{
	static const std::string obj = gfx1030_object();
	const std::string host = "host-x86_64-unknown-linux-gnu-", dev = "hipv4-amdgcn-amd-amdhsa--gfx1030";
	std::string p(size, '\0');
	std::string head = "__CLANG_OFFLOAD_BUNDLE__";
	put64(head, 24, 2);
	std::size_t at = 32;
	for (const auto &[id, off, len] : {std::tuple{host, std::uint64_t{4096}, std::uint64_t{0}},
					   std::tuple{dev, size - obj.size(), std::uint64_t{obj.size()}}}) {
		put64(head, at, off);
		put64(head, at + 8, len);
		put64(head, at + 16, id.size());
		head += id;
		at += 24 + id.size();
	}
	p.replace(0, head.size(), head);
	p.replace(size - obj.size(), obj.size(), obj);
	return ccob(2, 1, fatbin_test::zstd_compress(p, 1), size);
}

bool has_gfx1030(const cov::FatbinFile &f)
{
	for (const auto &b : f.bundles)
		for (const auto &e : b.entries)
			if (e.elf && e.disagreement.empty() && e.elf->target.canonical() == "gfx1030")
				return true;
	return false;
}

} // namespace

TEST_CASE("read_fatbin: an entry table over 4096 bytes (78 targets from clang-offload-bundler), plain and CCOB",
	  "[read_fatbin]")
{
	fatbin_test::TempRoot root;
	const std::string plain = fatbin_test::data("kmany_bundle.hipfb");
	auto check = [](const cov::FatbinFile &f) {
		CHECK(f.kind == cov::FileKind::bundle);
		REQUIRE(f.bundles.size() == 1);
		CHECK(f.bundles[0].unreadable == "");
		REQUIRE(f.bundles[0].entries.size() == 79);
		std::size_t agree = 0;
		for (const auto &e : f.bundles[0].entries) {
			INFO(e.id.raw);
			CHECK(e.disagreement == "");
			agree += e.elf.has_value();
		}
		CHECK(agree == 78);
		CHECK(f.bundles[0].entries.back().id.raw == "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+");
	};
	check(root.read(plain));
	for (unsigned v : {2u, 3u}) {
		INFO("CCOB v" << v << " zstd");
		check(root.read(ccob(v, 1, fatbin_test::zstd_compress(plain), plain.size())));
	}
	INFO("CCOB v2 zlib");
	check(root.read(ccob(2, 0, fatbin_test::zlib_compress(plain), plain.size())));
	// The table is longer than the bundle: unreadable, with both sizes.
	auto cut = root.read(plain.substr(0, 4500));
	REQUIRE(cut.bundles.size() == 1);
	CHECK(cut.bundles[0].unreadable.find("runs past the end of the bundle (4500 bytes)") != std::string::npos);
}

TEST_CASE("an unreadable bundle is never 'no device code'", "[read_fatbin][judge]")
{
	fatbin_test::TempRoot root;
	cov::Library lib;
	lib.name = "kmany_bundle.hipfb";
	lib.file = root.read(fatbin_test::data("kmany_bundle.hipfb").substr(0, 3000));
	cov::fill_targets(lib);
	REQUIRE(lib.file->kind == cov::FileKind::bundle);
	CHECK(lib.targets.empty());
	cov::Gpu gpu;
	gpu.gfx = "gfx1030";
	auto v = cov::judge_library(lib, "", gpu);
	CHECK(v.verdict == cov::Verdict::missing);
	CHECK(v.reason.find("could not be read: bundle at offset 0: unreadable: ") == 0);
}

TEST_CASE("decompression budget: bytes per scan, across files", "[read_fatbin][budget]")
{
	fatbin_test::TempRoot root;
	const std::string b16 = bomb(16 * kMiB);
	CHECK(b16.size() < 8192);
	InflateBudget budget;
	budget.bytes_left = 40 * kMiB;
	cov::ReadLimits lim;
	std::vector<cov::FatbinFile> files;
	for (int i = 0; i < 4; ++i) {
		root.write("b" + std::to_string(i), b16);
		rdnafix::io::RootFs fs(root.dir().string());
		files.push_back(cov::read_fatbin(fs, "b" + std::to_string(i), lim, &budget));
	}
	CHECK(has_gfx1030(files[0]));
	CHECK(has_gfx1030(files[1]));
	for (int i : {2, 3}) {
		INFO("file " << i);
		CHECK(files[i].kind == cov::FileKind::over_budget);
		CHECK(files[i].unreadable == "not read: decompression budget (the scan's bytes for inflating "
					     "compressed bundles are spent)");
		CHECK(files[i].bundles.empty());
	}
	CHECK(budget.bytes_left == 0);
	CHECK(budget.spent == InflateBudget::Spent::bytes);
	// Files without compressed bundles are still read.
	rdnafix::io::RootFs fs(root.dir().string());
	root.write("plain.so", fatbin_test::data("libk3_plain.so"));
	auto plain = cov::read_fatbin(fs, "plain.so", lim, &budget);
	CHECK(plain.kind == cov::FileKind::elf_with_fatbin);
	CHECK(has_gfx1030(plain));
	// What the budget stopped is judged "missing" with the reason, never no_code.
	cov::Library lib;
	lib.file = files[3];
	cov::fill_targets(lib);
	cov::Gpu gpu;
	gpu.gfx = "gfx1030";
	auto v = cov::judge_library(lib, "", gpu);
	CHECK(v.verdict == cov::Verdict::missing);
	CHECK(v.reason.find("not read: decompression budget") == 0);
}

TEST_CASE("decompression budget: one file of many bundles stops at the per-file limit", "[read_fatbin][budget]")
{
	fatbin_test::TempRoot root;
	const std::string b16 = bomb(16 * kMiB);
	std::string many;
	for (int i = 0; i < 8; ++i)
		many += b16;
	CHECK(many.size() < 64 * 1024);
	InflateBudget budget;
	budget.bytes_left = 1024 * kMiB;
	cov::ReadLimits lim;
	lim.max_inflate_file = 40 * kMiB;
	root.write("many.hipfb", many);
	root.write("one.hipfb", b16);
	rdnafix::io::RootFs fs(root.dir().string());
	auto f = cov::read_fatbin(fs, "many.hipfb", lim, &budget);
	CHECK(f.kind == cov::FileKind::over_budget);
	CHECK(f.unreadable == "not read: decompression budget (its compressed bundles inflate to more than 40 MiB, "
			      "the limit per file)");
	// Charged what was inflated (the per-file limit, not 8 x 16 MiB).
	CHECK(budget.bytes_left == 1024 * kMiB - 40 * kMiB);
	CHECK(budget.spent == InflateBudget::Spent::no);
	// The next file has its own share.
	CHECK(has_gfx1030(cov::read_fatbin(fs, "one.hipfb", lim, &budget)));
	// Without the limit every bundle is read.
	lim.max_inflate_file = 1024 * kMiB;
	auto all = cov::read_fatbin(fs, "many.hipfb", lim, &budget);
	CHECK(all.bundles.size() == 8);
	CHECK(has_gfx1030(all));
}

TEST_CASE("decompression budget: seconds per scan", "[read_fatbin][budget]")
{
	fatbin_test::TempRoot root;
	InflateBudget budget;
	budget.seconds_left = 0;
	root.write("ccob.so", fatbin_test::data("libk8_ccob2.so"));
	root.write("plain.so", fatbin_test::data("libk3_plain.so"));
	rdnafix::io::RootFs fs(root.dir().string());
	auto c = cov::read_fatbin(fs, "ccob.so", {}, &budget);
	CHECK(c.kind == cov::FileKind::over_budget);
	CHECK(c.unreadable.find("the scan's time for inflating compressed bundles is spent") != std::string::npos);
	CHECK(budget.spent == InflateBudget::Spent::seconds);
	CHECK(has_gfx1030(cov::read_fatbin(fs, "plain.so", {}, &budget)));
	// With time left the same file reads, and the time it took is charged.
	InflateBudget more;
	more.seconds_left = 60;
	CHECK(has_gfx1030(cov::read_fatbin(fs, "ccob.so", {}, &more)));
	CHECK(more.seconds_left < 60);
	CHECK(more.seconds_left > 0);
}

TEST_CASE("scan: 100 compressed-bundle bombs of 64 MiB each are bounded by the budget", "[scan][budget]")
{
	fatbin_test::TempRoot root;
	const std::string b64 = bomb(64 * kMiB);
	CHECK(b64.size() < 8192);
	rdnafix::io::RootFs fs(root.dir().string());
	for (int i = 0; i < 100; ++i)
		root.write("bomb" + std::to_string(100 + i) + ".hipfb", b64);
	// Counts the bombs read (gfx1030 found) and those the budget stopped.
	auto tally = [](const cov::Report &r, std::size_t &read, std::size_t &over) {
		REQUIRE(r.installs.size() == 1);
		REQUIRE(r.installs[0].libraries.size() == 100);
		read = over = 0;
		for (const auto &l : r.installs[0].libraries) {
			INFO(l.name);
			REQUIRE(l.file);
			if (l.file->kind == cov::FileKind::over_budget)
				++over;
			else if (l.targets.size() == 1 && cov::spelled(l.targets[0]) == "gfx1030")
				++read;
		}
	};
	cov::ScanOptions o;
	o.paths = {"/"};
	o.gfx = {"gfx1030"};
	// The defaults: 6.4 GiB inflated in all, only the headers kept; bounded
	// by 10 s of inflating (main took 18-24 s for this directory).
	cov::Report all = cov::scan(fs, rdnafix::machine::Snapshot{}, o);
	std::size_t read = 0, over = 0;
	tally(all, read, over);
	CHECK(read + over == 100);
	CHECK(all.seconds < 15);
	CHECK(all.bytes_inflated <= o.max_inflate_total);
	// A budget of 1 GiB: at most 16 of them, the rest "not read".
	o.max_inflate_total = 1024 * kMiB;
	cov::Report r = cov::scan(fs, rdnafix::machine::Snapshot{}, o);
	tally(r, read, over);
	CHECK(read + over == 100);
	CHECK(read >= 1);
	CHECK(read <= 16);
	CHECK(r.bytes_inflated <= o.max_inflate_total);
	REQUIRE_FALSE(r.notes.empty());
	CHECK(r.notes.back() == std::to_string(over) +
					" files not read: decompression budget (compressed bundles may inflate to "
					"1024 MiB in 10 s per scan, 2048 MiB per file)");
	// Text: the library line says so; never "no device code".
	const std::string text = cov::render_text(r, root.dir().string());
	CHECK(text.find("not read: decompression budget") != std::string::npos);
	CHECK(text.find("no device code") == std::string::npos);
}
