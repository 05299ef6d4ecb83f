#pragma once
// Helpers of the read_fatbin tests: the real fat binaries of data/, a
// temporary root to write damaged copies into, little-endian pokes, and the
// compressed-bundle (CCOB) writer: header v1-v3 (docs/rocm-facts.md §4)
// around a zstd or zlib stream made by libzstd / zlib.
#include "software/read_fatbin.hpp"
#include "io/rootfs.hpp"

#include <catch2/catch_test_macros.hpp>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fatbin_test {

inline std::string slurp(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	if (!in)
		throw std::runtime_error("cannot read " + path);
	std::ostringstream s;
	s << in.rdbuf();
	return s.str();
}

inline std::string data(const std::string &name)
{
	return slurp(std::string(RDNAFIX_FATBIN_DATA) + "/" + name);
}

inline void put64(std::string &d, std::size_t off, std::uint64_t v)
{
	if (d.size() < off + 8)
		d.resize(off + 8, '\0');
	for (int i = 0; i < 8; ++i)
		d[off + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// A CCOB bundle: the header of `version` (1: 20 bytes, no total size; 2: u32
// total and uncompressed sizes; 3: u64 ones), `method` (0 zlib, 1 zstd), a
// zero hash, then `compressed`, which inflates to `usize` bytes.
inline std::string ccob(unsigned version, unsigned method, const std::string &compressed, std::uint64_t usize)
{
	std::string h("CCOB", 4);
	h += static_cast<char>(version);
	h += '\0';
	h += static_cast<char>(method);
	h += '\0';
	if (version == 1) {
		put64(h, 8, usize);
		h.resize(12);
		put64(h, 12, 0);
	} else if (version == 2) {
		put64(h, 8, 24 + compressed.size());
		put64(h, 12, usize);
		put64(h, 16, 0);
	} else {
		put64(h, 8, 32 + compressed.size());
		put64(h, 16, usize);
		put64(h, 24, 0);
	}
	return h + compressed;
}

inline std::string zlib_compress(const std::string &d)
{
	uLongf n = compressBound(d.size());
	std::string out(n, '\0');
	REQUIRE(compress2(reinterpret_cast<Bytef *>(out.data()), &n, reinterpret_cast<const Bytef *>(d.data()),
			  d.size(), 6) == Z_OK);
	out.resize(n);
	return out;
}

inline std::string zstd_compress(const std::string &d, int level = 3)
{
	std::string out(ZSTD_compressBound(d.size()), '\0');
	std::size_t n = ZSTD_compress(out.data(), out.size(), d.data(), d.size(), level);
	REQUIRE_FALSE(ZSTD_isError(n));
	out.resize(n);
	return out;
}

// A temporary directory used as the --root; removed at the end.
class TempRoot {
public:
	TempRoot()
	{
		// /dev/shm when there is one: the fuzz run writes thousands of files.
		std::error_code ec;
		std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec)
						     ? std::filesystem::path("/dev/shm")
						     : std::filesystem::temp_directory_path();
		std::string tmpl = (base / "rdnafix-fatbin.XXXXXX").string();
		if (!::mkdtemp(tmpl.data()))
			throw std::runtime_error("mkdtemp failed");
		dir_ = tmpl;
	}
	~TempRoot()
	{
		std::error_code ec;
		std::filesystem::remove_all(dir_, ec);
	}
	TempRoot(const TempRoot &) = delete;
	TempRoot &operator=(const TempRoot &) = delete;
	void write(const std::string &name, const std::string &bytes) const
	{
		std::ofstream(dir_ / name, std::ios::binary | std::ios::trunc) << bytes;
	}
	// Writes `bytes` as `name` and reads it back with read_fatbin.
	rdnafix::coverage::FatbinFile read(const std::string &bytes, const rdnafix::coverage::ReadLimits &lim = {},
					   const std::string &name = "f") const
	{
		write(name, bytes);
		rdnafix::io::RootFs fs(dir_.string());
		return rdnafix::coverage::read_fatbin(fs, name, lim);
	}
	[[nodiscard]] const std::filesystem::path &dir() const { return dir_; }

private:
	std::filesystem::path dir_;
};

// The file offset of a bundle magic in `d` (the .hip_fatbin of a data file).
inline std::size_t find_bundle(const std::string &d)
{
	std::size_t p = d.find("__CLANG_OFFLOAD_BUNDLE__");
	return p != std::string::npos ? p : d.find("CCOB");
}

} // namespace fatbin_test
