// Fuzz target: `rdnactl coverage`'s reader of one file's device code
// (software/read_fatbin.cpp, read_fatbin_walk.cpp): ELF section table,
// .hip_fatbin, plain and compressed (CCOB, zlib/zstd through io/decompress)
// offload bundles, each entry's code object header.  The input is written to
// a file in a private temporary directory and read through io::RootFs, as
// `coverage --root` reads a library.  Seeds: tests/fuzz/corpus/SOURCE.md.
#include "software/read_fatbin.hpp"
#include "fuzz.hpp"
#include "io/rootfs.hpp"

#include <cstdio>
#include <string>

#include <stdlib.h>

using namespace rdnafix;

namespace {

std::string dir_made;

void remove_dir()
{
	std::remove((dir_made + "/lib.so").c_str());
	std::remove(dir_made.c_str());
}

std::string make_dir()
{
	const char *tmp = std::getenv("TMPDIR");
	std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/rdnafix-fuzz-fatbin.XXXXXX";
	fuzz::check(mkdtemp(tmpl.data()) != nullptr, "mkdtemp for the input file");
	dir_made = tmpl;
	std::atexit(remove_dir);
	return tmpl;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	static const std::string dir = make_dir();
	const std::string path = dir + "/lib.so";
	std::FILE *f = std::fopen(path.c_str(), "wb");
	fuzz::check(f != nullptr, "open the input file");
	fuzz::check(std::fwrite(data, 1, size, f) == size && std::fclose(f) == 0, "write the input file");
	io::RootFs fs(dir);
	const coverage::FatbinFile r = coverage::read_fatbin(fs, "lib.so");
	fuzz::check(r.size == size || r.kind == coverage::FileKind::unreadable, "the size read is the file's");
	for (const auto &b : r.bundles)
		fuzz::check(b.entries.size() <= coverage::ReadLimits{}.max_entries, "at most max_entries per bundle");
	return 0;
}
