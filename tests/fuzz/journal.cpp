// Fuzz target: the `rdnactl config` journal's manifest reader
// (config/journal.cpp, Journal::newest), which `config undo` trusts.  The
// input is written as the manifest.json of entry 000001 of a journal in a
// private temporary root that also holds that entry's prev/0, prev/1, new/0
// and new/1 (the files a real manifest names); the reader goes through io::RootWriter as
// `config undo --root` does.  Seeds: tests/fuzz/corpus/SOURCE.md.
#include "config/journal.hpp"
#include "fuzz.hpp"

#include <cstdio>
#include <string>

#include <stdlib.h>
#include <sys/stat.h>

using namespace rdnafix;

namespace {

const std::string kEntry = std::string(config::kJournalDir) + "/000001";
std::string root_made;

void write(const std::string &path, std::string_view content)
{
	std::FILE *f = std::fopen(path.c_str(), "wb");
	fuzz::check(f != nullptr, "create a file of the temporary root");
	fuzz::check(std::fwrite(content.data(), 1, content.size(), f) == content.size() && std::fclose(f) == 0,
		    "write a file of the temporary root");
}

void remove_root()
{
	const std::string cmd = "rm -rf -- '" + root_made + "'";
	(void)std::system(cmd.c_str());
}

std::string make_root()
{
	const char *tmp = std::getenv("TMPDIR");
	std::string root = std::string(tmp && *tmp ? tmp : "/tmp") + "/rdnafix-fuzz-journal.XXXXXX";
	fuzz::check(mkdtemp(root.data()) != nullptr, "mkdtemp for the root");
	root_made = root;
	std::atexit(remove_root);
	std::string dir = root;
	for (std::string_view part : {"var", "lib", "rdnafix", "config", "journal", "000001"}) {
		dir += "/" + std::string(part);
		::mkdir(dir.c_str(), 0755);
	}
	::mkdir((dir + "/prev").c_str(), 0755);
	::mkdir((dir + "/new").c_str(), 0755);
	write(dir + "/prev/0", "options amdgpu noretry=0\n");
	write(dir + "/prev/1", "[Service]\nUser=bob\n");
	write(dir + "/new/0", "# written by rdnactl config\noptions rdnafix noretry=1\n");
	write(dir + "/new/1", "[Service]\nUser=alice\n");
	return root;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	static const std::string root = make_root();
	write(root + "/" + kEntry + "/manifest.json", fuzz::text(data, size));
	io::RootWriter w(root);
	config::Journal j(w);
	io::WriteError error;
	const auto t = j.newest(&error);
	fuzz::check(t.has_value() != !error.message.empty(), "newest() gives an entry or an error, not both");
	if (t) {
		fuzz::check(t->id == "000001", "the entry read is the one there");
		for (const auto &f : t->files)
			(void)f.path.size();
	}
	return 0;
}
