#pragma once
// The layout of a Debian 12 system with DKMS 3.0.10 and rdnafix, for the
// per-kernel build tests: a kernel with rdnafix built and installed by DKMS,
// one where DKMS's build failed (its make.log left in build/, as dkms's
// actual_build leaves it), the module a real one (tests/unit/core/data/modsig,
// built from kmod/ for 6.1.0-56-amd64).
#include "tree.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rdnafix::test {

inline constexpr const char *kBuiltRel = "6.1.0-56-amd64";
inline constexpr const char *kNewRel = "6.12.117+deb12-amd64";
inline constexpr const char *kDkms = "var/lib/dkms/rdnafix";

inline std::string modsig_sample(const std::string &name)
{
	std::ifstream f(std::string(RDNAFIX_MODSIG_DATA) + "/" + name, std::ios::binary);
	std::ostringstream s;
	s << f.rdbuf();
	return s.str();
}

// make.log as dkms writes it: its header line, the date, make's output.
inline std::string make_log(const std::string &rel, int lines, bool fail)
{
	std::string log =
		"DKMS make.log for rdnafix-0.1.0 for kernel " + rel + " (x86_64)\nTue Nov 24 10:00:00 UTC 2026\n";
	log += "make -C /lib/modules/" + rel + "/build M=/var/lib/dkms/rdnafix/0.1.0/build modules\n";
	for (int i = 1; i <= lines; ++i)
		log += "  CC [M]  /var/lib/dkms/rdnafix/0.1.0/build/step" + std::to_string(i) + ".o\n";
	if (fail)
		log += "/var/lib/dkms/rdnafix/0.1.0/build/rdnafix_hooks.c:41:10: fatal error: linux/kprobes.h: No such "
		       "file or directory\nmake[2]: *** [scripts/Makefile.build:250: rdnafix_hooks.o] Error 1\n";
	return log;
}

enum class NewKernel {
	failed, // DKMS's build failed: no module, make.log left in build/
	built,  // DKMS built and installed rdnafix.ko.xz (the real 6.12 build)
	copied, // the 6.1 module copied under it (built for another kernel)
};

// Configured (the softdep), a kernel with rdnafix built by DKMS and a newer one.
inline void kbuild_tree(const Tree &t, bool configured = true, NewKernel fresh = NewKernel::failed)
{
	t.write("proc/sys/kernel/osrelease", std::string(kBuiltRel) + "\n");
	t.write("etc/os-release", "ID=debian\nVERSION_ID=\"12\"\n");
	if (configured)
		t.write("usr/lib/modprobe.d/rdnafix.conf", "softdep amdgpu pre: rdnafix\n");
	const std::string ko = modsig_sample("rdnafix-0.1.0-6.1.0-56-amd64.ko");
	for (const std::string rel : {kBuiltRel, kNewRel}) {
		t.write("boot/vmlinuz-" + rel, "image");
		t.write("lib/modules/" + rel + "/modules.dep", "");
		t.write("lib/modules/" + rel + "/build/Makefile", "");
	}
	const std::string built = std::string(kDkms) + "/0.1.0/" + kBuiltRel + "/x86_64";
	t.write(built + "/module/rdnafix.ko", ko);
	t.write(built + "/log/make.log", make_log(kBuiltRel, 3, false));
	std::filesystem::create_directory_symlink("0.1.0/" + std::string(kBuiltRel) + "/x86_64",
						  t.root() / kDkms / ("kernel-" + std::string(kBuiltRel) + "-x86_64"));
	std::filesystem::create_directory_symlink("/usr/src/rdnafix-0.1.0", t.root() / kDkms / "0.1.0/source");
	t.write("lib/modules/" + std::string(kBuiltRel) + "/updates/dkms/rdnafix.ko", ko);
	const std::string dir = "lib/modules/" + std::string(kNewRel) + "/updates/dkms/";
	if (fresh == NewKernel::built) {
		const std::string xz = modsig_sample("rdnafix-0.1.0-6.12.117+deb12-amd64.ko.xz");
		t.write(std::string(kDkms) + "/0.1.0/" + kNewRel + "/x86_64/module/rdnafix.ko.xz", xz);
		t.write(dir + "rdnafix.ko.xz", xz);
	} else if (fresh == NewKernel::copied) {
		t.write(dir + "rdnafix.ko", ko);
	} else {
		t.write(std::string(kDkms) + "/0.1.0/build/make.log", make_log(kNewRel, 40, true));
	}
}

} // namespace rdnafix::test
