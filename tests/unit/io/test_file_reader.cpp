// RootFs::open_read + FileReader (random-access reads below the root) and
// inflate_prefix (the first bytes of a zstd / zlib stream, zip-bomb safe).
#include <catch2/catch_test_macros.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/decompress.hpp"
#include "io/file_reader.hpp"
#include "io/rootfs.hpp"

namespace fs = std::filesystem;
using rdnafix::io::Codec;
using rdnafix::io::FsErrorKind;
using rdnafix::io::RootFs;

namespace {

struct Tree {
	fs::path dir;
	Tree()
	{
		std::string t = (fs::temp_directory_path() / "rdnafix-reader-XXXXXX").string();
		REQUIRE(::mkdtemp(t.data()));
		dir = t;
		fs::create_directories(dir / "root/lib");
		std::ofstream(dir / "root/lib/a.bin", std::ios::binary) << std::string("0123456789abcdef");
		std::ofstream(dir / "outside.bin") << "secret";
		fs::create_symlink("/lib/a.bin", dir / "root/abs-link");       // re-rooted
		fs::create_symlink("../../outside.bin", dir / "root/lib/esc"); // ".." stops at the root
	}
	~Tree() { fs::remove_all(dir); }
};

// Hands `d` out in chunks of `step` bytes.
rdnafix::io::ChunkSource chunks(const std::string &d, std::size_t step)
{
	auto pos = std::make_shared<std::size_t>(0);
	return [&d, step, pos]() -> rdnafix::core::Result<std::string_view> {
		std::string_view v = std::string_view(d).substr(std::min(*pos, d.size()), step);
		*pos += v.size();
		return v;
	};
}

std::string zstd_of(const std::string &d)
{
	std::string out(ZSTD_compressBound(d.size()), '\0');
	out.resize(ZSTD_compress(out.data(), out.size(), d.data(), d.size(), 3));
	return out;
}

std::string zlib_of(const std::string &d)
{
	uLongf n = compressBound(d.size());
	std::string out(n, '\0');
	compress2(reinterpret_cast<Bytef *>(out.data()), &n, reinterpret_cast<const Bytef *>(d.data()), d.size(), 6);
	out.resize(n);
	return out;
}

} // namespace

TEST_CASE("open_read: random access below the root", "[io][file_reader]")
{
	Tree t;
	RootFs root((t.dir / "root").string());
	auto r = root.open_read("lib/a.bin");
	REQUIRE(r);
	CHECK(r->size() == 16);
	auto reader = std::move(r).value();
	CHECK(*reader.read_at(10, 4) == "abcd");
	CHECK(*reader.read_at(14, 100) == "ef"); // short at the end
	CHECK(reader.read_at(16, 4)->empty());   // none past it
	CHECK(reader.read_at(UINT64_MAX, 4)->empty());
	CHECK(reader.bytes_read() == 6);
	auto big = reader.read_at(0, rdnafix::io::FileReader::max_read + 1);
	REQUIRE_FALSE(big);
	CHECK(big.error().kind == FsErrorKind::too_large);
	// Symlinks resolve inside the root.
	auto abs = root.open_read("abs-link");
	REQUIRE(abs);
	CHECK(abs->size() == 16);
	auto esc = root.open_read("lib/esc");
	REQUIRE_FALSE(esc);
	CHECK(esc.error().kind == FsErrorKind::not_found);
	// Not a regular file.
	CHECK(root.open_read("lib").error().kind == FsErrorKind::is_directory);
	RootFs live("/");
	auto null = live.open_read("dev/null");
	REQUIRE_FALSE(null);
	CHECK(null.error().detail.find("not a regular file") != std::string::npos);
	RootFs missing((t.dir / "nope").string());
	CHECK_FALSE(missing.open_read("lib/a.bin"));
}

TEST_CASE("inflate_prefix: only the bytes asked for, never more than declared", "[io][decompress]")
{
	std::string data;
	for (int i = 0; i < 200000; ++i)
		data += static_cast<char>('a' + i % 23);
	for (Codec c : {Codec::zstd, Codec::zlib}) {
		INFO((c == Codec::zstd ? "zstd" : "zlib"));
		const std::string z = c == Codec::zstd ? zstd_of(data) : zlib_of(data);
		auto p = rdnafix::io::inflate_prefix(c, chunks(z, 7), 1000, data.size(), 1 << 20);
		REQUIRE(p);
		CHECK(p->data == data.substr(0, 1000));
		CHECK_FALSE(p->whole);
		auto all = rdnafix::io::inflate_prefix(c, chunks(z, 4096), 1 << 20, data.size(), 1 << 20);
		REQUIRE(all);
		CHECK(all->whole);
		CHECK(all->data == data);
		// Declared smaller than the stream: refused (a zip bomb's signature).
		auto bomb = rdnafix::io::inflate_prefix(c, chunks(z, 4096), 1 << 20, 5000, 1 << 20);
		REQUIRE_FALSE(bomb);
		CHECK(bomb.error().message.find("more than the 5000 bytes") != std::string::npos);
		// Declared larger: the stream ends early.
		auto shortd = rdnafix::io::inflate_prefix(c, chunks(z, 4096), 1 << 20, data.size() + 1, 1 << 20);
		REQUIRE_FALSE(shortd);
		CHECK(shortd.error().message.find("header declares") != std::string::npos);
		// Over the cap, truncated, corrupt.
		CHECK_FALSE(rdnafix::io::inflate_prefix(c, chunks(z, 4096), 2 << 20, data.size(), 1 << 20));
		auto cut = rdnafix::io::inflate_prefix(c, chunks(z.substr(0, z.size() / 2), 4096), 1 << 20, data.size(),
						       1 << 20);
		REQUIRE_FALSE(cut);
		CHECK(cut.error().message.find(c == Codec::zstd ? "zstd" : "zlib") == 0);
		std::string bad = z;
		for (std::size_t i = 2; i < 40 && i < bad.size(); ++i)
			bad[i] = static_cast<char>(~bad[i]);
		CHECK_FALSE(rdnafix::io::inflate_prefix(c, chunks(bad, 4096), 1 << 20, data.size(), 1 << 20));
	}
	// A failed read of the input is passed through.
	rdnafix::io::ChunkSource failing = []() -> rdnafix::core::Result<std::string_view> {
		return rdnafix::core::Error{"read failed"};
	};
	auto f = rdnafix::io::inflate_prefix(Codec::zstd, failing, 10, 10, 10);
	REQUIRE_FALSE(f);
	CHECK(f.error().message == "read failed");
}
