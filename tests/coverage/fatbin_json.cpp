// Test tool: prints coverage::read_fatbin's result for each FILE as one JSON
// object per line, for tests/coverage/run.sh (which compares it with
// clang-offload-bundler --list and llvm-readelf) and the benchmark.
//
// Usage: fatbin_json [--root DIR] FILE...   (FILE relative to DIR, default /)
#include "software/read_fatbin.hpp"
#include "io/rootfs.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <string>

namespace cov = rdnafix::coverage;
namespace co = rdnafix::core::codeobj;

static const char *kind_name(cov::FileKind k)
{
	switch (k) {
	case cov::FileKind::elf_with_fatbin:
		return "elf_with_fatbin";
	case cov::FileKind::elf_without:
		return "elf_without";
	case cov::FileKind::bundle:
		return "bundle";
	case cov::FileKind::code_object:
		return "code_object";
	case cov::FileKind::not_device_code:
		return "not_device_code";
	case cov::FileKind::unreadable:
		return "unreadable";
	case cov::FileKind::over_budget:
		return "not_read_budget";
	}
	return "?";
}

static nlohmann::json elf_json(const co::ElfTarget &t)
{
	nlohmann::json j{{"target", t.target.canonical()},
			 {"e_flags", t.e_flags},
			 {"code_object_version", t.code_object_version},
			 {"xnack", co::to_string(t.target.xnack)},
			 {"sramecc", co::to_string(t.target.sramecc)}};
	if (t.generic_version)
		j["generic_version"] = *t.generic_version;
	return j;
}

int main(int argc, char **argv)
{
	std::string root = "/";
	int i = 1;
	if (argc > 2 && std::strcmp(argv[1], "--root") == 0) {
		root = argv[2];
		i = 3;
	}
	if (i >= argc) {
		std::fprintf(stderr, "usage: fatbin_json [--root DIR] FILE...\n");
		return 2;
	}
	rdnafix::io::RootFs fs(root);
	int rc = 0;
	for (; i < argc; ++i) {
		cov::FatbinFile f = cov::read_fatbin(fs, argv[i]);
		nlohmann::json j{
			{"path", f.path}, {"size", f.size}, {"kind", kind_name(f.kind)}, {"bytes_read", f.bytes_read}};
		if (!f.unreadable.empty()) {
			j["unreadable"] = f.unreadable;
			rc = 1;
		}
		if (f.code_object)
			j["code_object"] = elf_json(*f.code_object);
		nlohmann::json bundles = nlohmann::json::array();
		for (const cov::FatbinBundle &b : f.bundles) {
			nlohmann::json bj{{"file_offset", b.file_offset},
					  {"format", b.format == cov::BundleFormat::plain ? "plain" : "ccob"},
					  {"stored_size", b.stored_size},
					  {"uncompressed_size", b.uncompressed_size}};
			if (b.format == cov::BundleFormat::ccob) {
				bj["ccob_version"] = b.ccob_version;
				bj["compression"] = b.compression;
			}
			if (!b.unreadable.empty()) {
				bj["unreadable"] = b.unreadable;
				rc = 1;
			}
			nlohmann::json entries = nlohmann::json::array();
			for (const cov::FatbinEntry &e : b.entries) {
				nlohmann::json ej{{"id", e.id.raw}, {"offset", e.offset}, {"size", e.size}};
				if (e.elf)
					ej["elf"] = elf_json(*e.elf);
				if (!e.disagreement.empty())
					ej["disagreement"] = e.disagreement;
				entries.push_back(std::move(ej));
			}
			bj["entries"] = std::move(entries);
			bundles.push_back(std::move(bj));
		}
		j["bundles"] = std::move(bundles);
		std::printf("%s\n", j.dump().c_str());
	}
	return rc;
}
