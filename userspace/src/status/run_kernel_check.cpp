// run_kernel_check: `rdnactl kernel-check RELEASE`, what a kernel postinst
// hook runs after DKMS: collect the machine, decide (kernel_builds.hpp),
// print, exit code.  The only I/O besides the collection: `mokutil
// --sb-state`, on the live machine when it is installed and rdnafix is
// missing (the banner shows its answer besides the EFI variable).
#include "status/status.hpp"

#include "kernel_builds.hpp"

#include "core/text_safe.hpp"
#include "core/text_util.hpp"
#include "io/process_run.hpp"
#include "io/rootfs.hpp"

#include <cstdio>
#include <fmt/format.h>

namespace rdnafix::status {

namespace {

// A release that can name a directory of lib/modules: what the hook passes on.
std::string release_error(const std::string &r)
{
	if (r.empty())
		return "is empty";
	if (r == "." || r == ".." || r.find('/') != std::string::npos)
		return "is not a directory name";
	// what `uname -r` prints, and lib/modules/ names
	constexpr std::string_view valid = "a kernel release is printable ASCII without spaces, as `uname -r` prints "
					   "it: 6.1.0-18-amd64, 6.12.12+bpo-amd64";
	if (core::utf8_valid(r) != r)
		return fmt::format("is not valid UTF-8, so it names no kernel release ({})", valid);
	for (unsigned char ch : r) {
		if (ch == ' ')
			return fmt::format("has a space ({})", valid);
		if (ch < 0x20 || ch == 0x7f)
			return fmt::format("has a control character ({})", valid);
		if (ch > 0x7e)
			return fmt::format("has a character that is not ASCII ({})", valid);
	}
	return "";
}

// mokutil's own answer ("SecureBoot enabled"), when it is installed.
std::string mokutil_state(io::RootFs &fs)
{
	if (!fs.is_live())
		return "";
	for (const char *p : {"/usr/bin/mokutil", "/bin/mokutil", "/usr/sbin/mokutil"}) {
		if (!fs.exists(p))
			continue;
		auto r = io::run_command({p, "--sb-state"}, 10, 64 * 1024);
		if (!r.started || r.timed_out)
			return r.timed_out ? "timed out" : r.start_error;
		std::string last;
		for (auto line : core::detail::split_lines(r.output))
			if (!core::trim(line).empty())
				last = std::string(core::trim(line));
		return last.empty() ? fmt::format("exit status {}", r.exit_code) : last;
	}
	return "";
}

void print(const std::string &s, std::FILE *to)
{
	std::fwrite(s.data(), 1, s.size(), to);
}

} // namespace

int run_kernel_check(const KernelCheckOptions &opts)
{
	if (auto e = release_error(opts.release); !e.empty()) {
		std::fprintf(stderr, "rdnactl kernel-check: kernel release '%s' %s\n",
			     core::terminal_safe(opts.release).c_str(), e.c_str());
		return 2;
	}
	auto snap = machine::collect(opts.machine);
	if (snap.nothing_readable) {
		std::fprintf(stderr, "rdnactl kernel-check: %s\n", snap.nothing_readable_reason.c_str());
		return 2;
	}
	const auto a = assess(snap);
	const KernelCheck k = kernel_check(snap, a, opts.release);
	if (opts.json) {
		print(kernel_check_json(snap, k).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
		      stdout);
		return exit_code_for(k);
	}
	// A kernel that is not installed is a verdict too (exit 2), on stdout: a
	// headers hook runs before the kernel's own package may be configured.
	print(kernel_check_line(k), stdout);
	print(kernel_check_amdgpu_line(snap, k), stdout);
	if (k.verdict == KernelVerdict::missing) {
		io::RootFs fs(opts.machine.root);
		print(kernel_check_banner(snap, k, mokutil_state(fs)), stderr);
	}
	return exit_code_for(k);
}

} // namespace rdnafix::status
