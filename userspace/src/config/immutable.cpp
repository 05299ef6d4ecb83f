// Native instructions for immutable and declarative systems
// (config/immutable.hpp); sources in docs/boot-config-facts.md.
#include "config/immutable.hpp"

#include "config/cmdline_tokens.hpp"

#include <fmt/format.h>

namespace rdnafix::config {

namespace {

using detail::edit_words;
using detail::word_of;
using detail::words_for;

std::string join(const std::vector<std::string> &v)
{
	std::string out;
	for (const auto &w : v)
		out += (out.empty() ? "" : " ") + w;
	return out;
}

bool mentions_rdnafix(const std::vector<std::string> &lines)
{
	for (const auto &l : lines)
		if (l.find("rdnafix") != std::string::npos)
			return true;
	return false;
}

// Text inside a Nix indented string ''...'': '' and ${ are escaped.
std::string nix_indented(std::string_view s)
{
	std::string out;
	for (std::size_t i = 0; i < s.size(); ++i) {
		if (s.substr(i, 2) == "''") {
			out += "'''";
			++i;
		} else if (s.substr(i, 2) == "${") {
			out += "''${";
			++i;
		} else {
			out += s[i];
		}
	}
	return out;
}

std::string nixos(const machine::Snapshot &s, const std::vector<std::string> &lines,
		  const std::vector<CmdlineChange> &cmdline)
{
	std::string out = fmt::format("NixOS builds /etc/modprobe.d and the boot entries from its configuration ({}): "
				      "rdnactl writes nothing here. Put this into /etc/nixos/configuration.nix (or a "
				      "module of your flake), then run 'sudo nixos-rebuild boot' and reboot:\n",
				      "/" + s.boot.immutable_evidence);
	if (!lines.empty()) {
		out += "\n  boot.extraModprobeConfig = ''\n";
		for (const auto &l : lines)
			out += "    " + nix_indented(l) + "\n";
		out += "  '';\n";
	}
	std::vector<std::string> add;
	for (const auto &c : cmdline)
		if (c.value)
			add.push_back(fmt::format("\"{}\"", word_of(c)));
	if (!add.empty()) {
		out += "  boot.kernelParams = [";
		for (const auto &a : add)
			out += " " + a;
		out += " ];\n";
	}
	out += "\n";
	for (const auto &c : cmdline)
		out += fmt::format(
			"Remove every {}\"{}=...\" word from boot.kernelParams where your configuration sets "
			"it: NixOS joins the lists of all modules and has no option that deletes a word.\n",
			c.value ? "other " : "", c.param);
	if (mentions_rdnafix(lines))
		out += "rdnafix is an out-of-tree module: NixOS loads it only when it is built for the configured "
		       "kernel and listed in boot.extraModulePackages (a derivation that builds kmod/ against "
		       "config.boot.kernelPackages.kernel.dev; rdnactl does not write it). If amdgpu is in "
		       "boot.initrd.kernelModules, add \"rdnafix\" there too, and give rdnafix's options as "
		       "boot.kernelParams words (rdnafix.noretry=1 ...), which reach the module wherever it loads "
		       "from.\n";
	return out;
}

std::string steamos(const machine::Snapshot &s, const std::vector<std::string> &lines,
		    const std::vector<CmdlineChange> &cmdline)
{
	std::string out = fmt::format("SteamOS ({}) runs from a read-only image that each update replaces whole: "
				      "rdnactl writes nothing here.\n",
				      "/" + s.boot.immutable_evidence);
	if (mentions_rdnafix(lines))
		out += "Not possible to keep: the rdnafix module. It must be built against the running kernel, and "
		       "SteamOS ships neither its headers nor DKMS; 'steamos-readonly disable' lets pacman install "
		       "them, but the next SteamOS update replaces the root file system and drops them and the built "
		       "module.\n";
	if (!lines.empty()) {
		out += "Module options (/etc/modprobe.d): these lines would go into /etc/modprobe.d/rdnafix.conf:\n";
		for (const auto &l : lines)
			out += "  " + l + "\n";
		out += "but amdgpu loads from the image's own initramfs, which rdnactl cannot rebuild here, so amdgpu "
		       "options there may not apply; kernel command-line words do.\n";
	}
	if (!cmdline.empty()) {
		std::vector<std::string> add, del;
		for (const auto &c : cmdline) {
			for (auto &w : words_for(s.driver.cmdline, c.param))
				del.push_back(std::move(w));
			if (c.value)
				add.push_back(word_of(c));
		}
		out += "Kernel command line: change GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub";
		if (!del.empty())
			out += fmt::format(" (remove {})", join(del));
		if (!add.empty())
			out += fmt::format(" (add {})", join(add));
		out += " and run 'sudo update-grub'; a SteamOS update may regenerate the boot configuration, so check "
		       "/proc/cmdline after each update.\n";
	}
	return out;
}

std::string ostree(const machine::Snapshot &s, const std::vector<std::string> &lines,
		   const std::vector<CmdlineChange> &cmdline)
{
	std::string out = fmt::format("This is an rpm-ostree/ostree system ({}): /usr and the boot entries belong to "
				      "the deployed image, so rdnactl writes nothing here. The native way:\n",
				      "/" + s.boot.immutable_evidence);
	if (!cmdline.empty()) {
		std::vector<std::string> args;
		auto edit = edit_words(s.driver.cmdline, cmdline);
		for (const auto &w : edit.remove)
			args.push_back("--delete=" + w);
		for (const auto &w : edit.add)
			args.push_back("--append=" + w);
		if (args.empty())
			out += "Kernel arguments: already as configured (rpm-ostree kargs shows them).\n";
		else
			out += fmt::format("Kernel arguments (native, applied to a new deployment at the next boot):\n"
					   "  sudo rpm-ostree kargs {}\n",
					   join(args));
	}
	if (!lines.empty()) {
		out += "Module options (native: /etc is writable here and carried into every new deployment):\n"
		       "  sudo tee /etc/modprobe.d/rdnafix.conf <<'EOF'\n";
		for (const auto &l : lines)
			out += "  " + l + "\n";
		out += "  EOF\n"
		       "  sudo rpm-ostree initramfs-etc --track=/etc/modprobe.d/rdnafix.conf\n"
		       "The second command adds the file to the initramfs, where amdgpu loads from; without it the "
		       "options reach only modules loaded later from the root file system.\n";
	}
	if (mentions_rdnafix(lines))
		out += "Not native: the rdnafix module. /usr is read-only, so DKMS cannot install it; it needs a kmod "
		       "package layered with 'rpm-ostree install' and rebuilt for every new kernel (as akmods does), "
		       "which rdnactl does not provide.\n";
	return out;
}

} // namespace

std::optional<std::string> native_way(const machine::Snapshot &s, const std::vector<std::string> &modprobe_lines,
				      const std::vector<CmdlineChange> &cmdline)
{
	switch (s.boot.immutable) {
	case machine::ImmutableKind::none:
		return std::nullopt;
	case machine::ImmutableKind::nixos:
		return nixos(s, modprobe_lines, cmdline);
	case machine::ImmutableKind::steamos:
		return steamos(s, modprobe_lines, cmdline);
	case machine::ImmutableKind::ostree:
		return ostree(s, modprobe_lines, cmdline);
	}
	return std::nullopt;
}

} // namespace rdnafix::config
