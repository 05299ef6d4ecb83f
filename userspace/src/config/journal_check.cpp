// Which journal entries `config undo` replays (journal_check.hpp).
#include "config/journal_check.hpp"

#include "config/owned_file.hpp"
#include "config/service_dropin.hpp"
#include "core/text_safe.hpp"
#include "machine/boot.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace rdnafix::config {

namespace {

constexpr std::string_view kKernelCmdline = "etc/kernel/cmdline";

bool only(std::string_view s, std::string_view allowed)
{
	return s.find_first_not_of(allowed) == std::string_view::npos;
}

constexpr std::string_view kAlnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

// A kernel release as lib/modules names it: "6.1.0-18-amd64", "6.12.57+deb13-amd64".
bool release(std::string_view r)
{
	return !r.empty() && r.size() <= 128 && r[0] != '-' && r[0] != '.' && only(r, std::string(kAlnum) + "._+~-");
}

// Kernel command-line words as the planners join them: "amdgpu.noretry=1 quiet".
bool param_words(std::string_view w)
{
	if (w.empty() || w.size() > 4096 || !only(w, std::string(kAlnum) + "._,:=+- "))
		return false;
	std::size_t p = 0;
	for (std::size_t e = w.find(' '); p <= w.size(); e = w.find(' ', p)) {
		const std::string_view word = w.substr(p, e == std::string_view::npos ? w.npos : e - p);
		if (word.empty() || word[0] == '-')
			return false;
		if (e == std::string_view::npos)
			break;
		p = e + 1;
	}
	return true;
}

bool own_command(const std::vector<std::string> &a)
{
	const auto n = a.size();
	if (n == 0)
		return false;
	const std::string &p = a[0];
	if (p == "update-initramfs")
		return n == 4 && a[1] == "-u" && a[2] == "-k" && release(a[3]);
	if (p == "dracut")
		return n == 5 && a[1] == "--force" && a[2] == "--kver" && release(a[3]) && a[4].starts_with("/boot/") &&
		       a[4].find("..") == std::string::npos && only(a[4], std::string(kAlnum) + "._+~-/");
	if (p == "mkinitcpio")
		return n == 2 && a[1] == "-P";
	if (p == "update-grub")
		return n == 1;
	if (p == "grub-mkconfig")
		return n == 3 && a[1] == "-o" && a[2] == "/boot/grub/grub.cfg";
	if (p == "grub2-mkconfig")
		return n == 3 && a[1] == "-o" && a[2] == "/boot/grub2/grub.cfg";
	if (p == "kernel-install")
		return n == 4 && a[1] == "add" && release(a[2]) &&
		       (a[3] == "/boot/vmlinuz-" + a[2] || a[3] == "/lib/modules/" + a[2] + "/vmlinuz");
	if (p == "kernelstub")
		return n == 3 && (a[1] == "-a" || a[1] == "-d") && param_words(a[2]);
	if (p == "grubby") {
		if (n < 3 || n > 4 || a[1] != "--update-kernel=ALL")
			return false;
		return std::all_of(a.begin() + 2, a.end(), [](const std::string &x) {
			for (std::string_view pre : {"--args=", "--remove-args="})
				if (x.starts_with(pre))
					return param_words(std::string_view(x).substr(pre.size()));
			return false;
		});
	}
	return false;
}

std::string quoted(const std::vector<std::string> &argv)
{
	std::string out;
	for (const auto &a : argv)
		out += (out.empty() ? "" : " ") + fmt::format("'{}'", core::terminal_safe(a));
	return out;
}

} // namespace

bool is_managed_path(std::string_view rel)
{
	if (rel == kKernelCmdline || rel == kValidateDropin)
		return true;
	return std::find(std::begin(machine::kOwnedFiles), std::end(machine::kOwnedFiles), rel) !=
	       std::end(machine::kOwnedFiles);
}

std::vector<std::string> check_entry(const Transaction &t, bool commands)
{
	std::vector<std::string> bad;
	for (const auto &f : t.files) {
		const std::string path = core::terminal_safe(f.path);
		if (!is_managed_path(f.path)) {
			bad.push_back(fmt::format("file '{}' is not one rdnactl config manages", path));
			continue;
		}
		if (f.previous && f.path == machine::kOwnedModprobe &&
		    !parse_owned(*f.previous, f.path).foreign.empty())
			bad.push_back(fmt::format("the previous content of {} has lines rdnactl never writes", path));
		if (f.previous && f.path == kValidateDropin && !parse_validate_dropin(*f.previous).foreign.empty())
			bad.push_back(fmt::format("the previous content of {} has lines rdnactl never writes", path));
	}
	for (const auto &d : t.created_dirs) {
		const bool parent = std::any_of(t.files.begin(), t.files.end(), [&](const JournalFile &f) {
			return is_managed_path(f.path) && f.path.size() > d.size() + 1 && f.path.starts_with(d) &&
			       f.path[d.size()] == '/';
		});
		if (!parent || d.empty() || d.find("..") != std::string::npos)
			bad.push_back(fmt::format("created directory '{}' is not a parent of a file rdnactl manages",
						  core::terminal_safe(d)));
	}
	for (const auto &c : t.commands)
		if (commands && !own_command(c.argv))
			bad.push_back(fmt::format("command {} is not one rdnactl runs", quoted(c.argv)));
	return bad;
}

} // namespace rdnafix::config
