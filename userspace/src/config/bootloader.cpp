// Kernel command-line plans (config/bootloader.hpp).  Sources for every
// mechanism are in docs/boot-config-facts.md.
#include "config/bootloader.hpp"

#include "config/bootloader_notes.hpp"
#include "config/cmdline_tokens.hpp"
#include "config/distro.hpp"
#include "config/grub_dropin.hpp"
#include "config/immutable.hpp"

#include <fmt/format.h>

namespace rdnafix::config {

namespace {

using detail::edit_words;
using detail::normalize_param;
using detail::word_of;
using detail::words_for;

std::string join(const std::vector<std::string> &v, std::string_view sep = " ")
{
	std::string out;
	for (const auto &w : v) {
		if (!out.empty())
			out += sep;
		out += w;
	}
	return out;
}

// "remove amdgpu.noretry=0, add amdgpu.noretry=1" for a manual step.
std::string manual_words(const machine::Snapshot &s, const std::vector<CmdlineChange> &changes)
{
	std::vector<std::string> del, add;
	for (const auto &c : changes) {
		for (auto &w : words_for(s.driver.cmdline, c.param))
			del.push_back(std::move(w));
		if (c.value)
			add.push_back(word_of(c));
	}
	std::vector<std::string> parts;
	if (!del.empty())
		parts.push_back("remove " + join(del));
	if (!add.empty())
		parts.push_back("add " + join(add));
	if (del.empty() && add.empty())
		parts.push_back("make sure no word for " + changes.front().param + " is left");
	return join(parts, ", ");
}

// update-grub where it is installed, else grub-mkconfig / grub2-mkconfig with
// the distribution's grub.cfg.
Command grub_update(const machine::Snapshot &s)
{
	const std::string &ev = s.boot.bootloader_evidence;
	auto base = ev.substr(ev.rfind('/') == std::string::npos ? 0 : ev.rfind('/') + 1);
	if (base == "update-grub")
		return {{"update-grub"}, "write /boot/grub/grub.cfg with the new kernel command line"};
	if (base == "grub2-mkconfig")
		return {{"grub2-mkconfig", "-o", "/boot/grub2/grub.cfg"},
			"write /boot/grub2/grub.cfg with the new kernel command line"};
	return {{"grub-mkconfig", "-o", "/boot/grub/grub.cfg"},
		"write /boot/grub/grub.cfg with the new kernel command line"};
}

// The GRUB variable assignments that hold a word for `param` (not rdnactl's).
std::vector<const machine::CmdlineVar *> holders(const machine::Snapshot &s, const std::string &param,
						 std::string_view variable)
{
	std::vector<const machine::CmdlineVar *> out;
	for (const auto &v : s.boot.cmdline_vars)
		if (v.file != detail::kGrubDropin && v.variable == variable && !words_for(v.value, param).empty())
			out.push_back(&v);
	return out;
}

void grub_dropin(const machine::Snapshot &s, const std::vector<CmdlineChange> &changes, Plan &p)
{
	std::string old;
	bool exists = false;
	for (const auto &f : s.boot.owned)
		if (f.path == detail::kGrubDropin && f.exists) {
			old = f.content;
			exists = true;
		}
	auto state = detail::merge_state(detail::grub_dropin_state(old), changes);
	std::optional<std::string> content;
	if (!state.empty())
		content = detail::render_grub_dropin(state);
	if ((content && exists && *content == old) || (!content && !exists))
		return;
	p.files.push_back({std::string(detail::kGrubDropin), content, 0644});
	p.commands.push_back(grub_update(s));
	for (const auto &c : changes) {
		if (!c.value)
			continue;
		auto in_linux = holders(s, c.param, "GRUB_CMDLINE_LINUX");
		if (!in_linux.empty())
			p.notes.push_back(fmt::format("{}: GRUB_CMDLINE_LINUX holds it ({} line {}), so the drop-in "
						      "puts {} there: normal and "
						      "recovery entries get it",
						      c.param, in_linux.front()->file, in_linux.front()->line,
						      word_of(c)));
		else
			p.notes.push_back(fmt::format("{}: added to GRUB_CMDLINE_LINUX_DEFAULT: normal entries get it, "
						      "recovery entries boot without it",
						      word_of(c)));
	}
	// grub-mkconfig sources grub.d/*.cfg in name order: a later file wins.
	const std::string_view mine = detail::kGrubDropin.substr(detail::kGrubDropin.rfind('/') + 1);
	for (const auto &v : s.boot.cmdline_vars) {
		if (v.file.rfind("etc/default/grub.d/", 0) != 0 || v.file == detail::kGrubDropin)
			continue;
		if (v.file.substr(v.file.rfind('/') + 1) <= mine)
			continue;
		std::vector<std::string> back;
		for (const auto &c : state)
			for (auto &w : words_for(v.value, c.param))
				back.push_back(std::move(w));
		if (!back.empty())
			p.notes.push_back(
				fmt::format("{} line {} is read after rdnactl's drop-in and sets {} again in {}: "
					    "remove it there",
					    v.file, v.line, join(back), v.variable));
		else if (!v.appends_self)
			p.notes.push_back(
				fmt::format("{} line {} is read after rdnactl's drop-in and replaces {} "
					    "whole, dropping rdnactl's words: make it append ({}=\"${} ...\")",
					    v.file, v.line, v.variable, v.variable, v.variable));
	}
}

void grubby(const machine::Snapshot &s, const std::vector<CmdlineChange> &changes, Plan &p)
{
	std::vector<std::string> add, del;
	for (const auto &c : changes) {
		if (c.value)
			add.push_back(word_of(c));
		else
			del.push_back(c.param);
	}
	Command cmd{{"grubby", "--update-kernel=ALL"}, "change the kernel command line of every boot entry"};
	if (!add.empty())
		cmd.argv.push_back("--args=" + join(add));
	if (!del.empty())
		cmd.argv.push_back("--remove-args=" + join(del));
	p.commands.push_back(std::move(cmd));
	for (const auto &c : changes)
		for (const auto *v : holders(s, c.param, "GRUB_CMDLINE_LINUX"))
			p.notes.push_back(fmt::format(
				"{} line {} still has {} in GRUB_CMDLINE_LINUX: grubby changes the boot entries, not "
				"that "
				"file, and a later grub2-mkconfig would bring it back: change that line to match",
				v->file, v->line, join(words_for(v->value, c.param))));
}

void kernel_cmdline_file(const machine::Snapshot &s, const std::vector<CmdlineChange> &changes, Plan &p)
{
	std::optional<std::string> base;
	for (const auto &v : s.boot.cmdline_vars)
		if (v.file == "etc/kernel/cmdline")
			base = v.value;
	const bool existed = base.has_value();
	const bool mkinitcpio = s.boot.initramfs == machine::InitramfsGenerator::mkinitcpio;
	if (!existed && mkinitcpio) {
		p.refusal =
			fmt::format("systemd-boot without /etc/kernel/cmdline on {}: the boot entries are written by "
				    "hand; edit the 'options' line of each /boot/loader/entries/*.conf: {}",
				    detail::os_name(s.boot.os), manual_words(s, changes));
		return;
	}
	if (!existed) {
		// kernel-install's fallback when the file is absent (90-loaderentry.install).
		std::vector<std::string> words;
		for (auto &w : detail::split_cmdline(s.driver.cmdline))
			if (w.rfind("BOOT_IMAGE=", 0) != 0 && w.rfind("initrd=", 0) != 0)
				words.push_back(std::move(w));
		base = join(words);
		p.notes.push_back("/etc/kernel/cmdline does not exist: it is created from the running command line "
				  "(without BOOT_IMAGE= and initrd=), which is what kernel-install uses without it");
	}
	std::string next = detail::edit_cmdline(*base, changes);
	if (existed && next == *base)
		return;
	p.files.push_back({"etc/kernel/cmdline", next + "\n", 0644});
	if (mkinitcpio) {
		p.commands.push_back(
			{{"mkinitcpio", "-P"}, "rebuild the unified kernel images with /etc/kernel/cmdline"});
		return;
	}
	for (const auto &k : s.boot.kernels)
		p.commands.push_back({{"kernel-install", "add", k.release, detail::kernel_image(s.boot.os, k.release)},
				      fmt::format("write the boot entry of {} with /etc/kernel/cmdline", k.release)});
	if (s.boot.kernels.empty())
		p.notes.push_back(
			"no installed kernel was found: the next kernel-install run uses /etc/kernel/cmdline");
}

void kernelstub(const machine::Snapshot &s, const std::vector<CmdlineChange> &changes, Plan &p)
{
	auto [del, add] = edit_words(s.driver.cmdline, changes);
	if (!del.empty())
		p.commands.push_back(
			{{"kernelstub", "-d", join(del)}, "delete the old words from kernelstub's options"});
	if (!add.empty())
		p.commands.push_back({{"kernelstub", "-a", join(add)}, "add the new words to kernelstub's options"});
	if (!del.empty() || !add.empty())
		p.notes.push_back("kernelstub keeps its options in /etc/kernelstub/configuration; the words to delete "
				  "were taken from the running command line (/proc/cmdline)");
}

} // namespace

Plan plan_cmdline(const machine::Snapshot &s, const std::vector<CmdlineChange> &changes)
{
	Plan p;
	if (auto why = detail::invalid_changes(changes); !why.empty()) {
		p.refusal = why;
		return p;
	}
	if (changes.empty())
		return p;
	if (auto native = native_way(s, {}, changes)) {
		p.refusal = *native;
		return p;
	}
	switch (s.boot.bootloader) {
	case machine::BootloaderKind::grub:
		if (detail::fedora_like(s.boot.os))
			grubby(s, changes, p);
		else if (detail::debian_like(s.boot.os))
			grub_dropin(s, changes, p);
		else
			p.refusal = fmt::format(
				"GRUB on {}: rdnactl writes its drop-in only where grub-mkconfig reads "
				"/etc/default/grub.d (Debian, Ubuntu) and uses grubby on Fedora; edit "
				"GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub by hand ({}), then run {}",
				detail::os_name(s.boot.os), manual_words(s, changes), join(grub_update(s).argv));
		break;
	case machine::BootloaderKind::systemd_boot:
		kernel_cmdline_file(s, changes, p);
		break;
	case machine::BootloaderKind::kernelstub:
		kernelstub(s, changes, p);
		break;
	case machine::BootloaderKind::unknown:
		p.refusal = fmt::format("no boot loader configuration rdnactl can change was found (/etc/default/grub "
					"with grub-mkconfig, /etc/kernel/cmdline or systemd-boot's loader.conf, "
					"kernelstub): change the kernel command line by hand: {}",
					manual_words(s, changes));
		break;
	}
	if (!p.refusal)
		for (auto &n : detail::removal_notes(s, changes))
			p.notes.push_back(std::move(n));
	return p;
}

} // namespace rdnafix::config
