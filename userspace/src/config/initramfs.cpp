// Initramfs plans (config/initramfs.hpp).  initramfs-tools: a hook calling
// manual_add_modules (mkinitramfs copies /etc/modprobe.d/*.conf itself);
// dracut: add_drivers/install_items in /etc/dracut.conf.d; mkinitcpio:
// MODULES/FILES in /etc/mkinitcpio.conf.d.  docs/boot-config-facts.md has the
// upstream sources.
#include "config/initramfs.hpp"

#include "machine/boot.hpp"

#include <fmt/format.h>

namespace rdnafix::config {

namespace {

using machine::InitramfsGenerator;

constexpr std::string_view kHeader = "# Managed by rdnactl (rdnafix). Edit with 'rdnactl config'.\n";

constexpr InitramfsGenerator kGenerators[] = {InitramfsGenerator::initramfs_tools, InitramfsGenerator::dracut,
					      InitramfsGenerator::mkinitcpio};

const machine::ConfigFile *owned(const machine::Snapshot &s, std::string_view path)
{
	for (const auto &f : s.boot.owned)
		if (f.path == path)
			return &f;
	return nullptr;
}

// The file change that brings `path` to `content` (nullopt: absent), or
// nothing when it is there already.
std::optional<FileChange> change_for(const machine::Snapshot &s, const std::string &path,
				     std::optional<std::string> content, unsigned mode)
{
	const machine::ConfigFile *f = owned(s, path);
	bool exists = f && f->exists;
	if (!content)
		return exists ? std::optional<FileChange>(FileChange{path, std::nullopt, mode}) : std::nullopt;
	if (exists && f->content == *content)
		return std::nullopt;
	return FileChange{path, std::move(content), mode};
}

unsigned mode_of(InitramfsGenerator g)
{
	return g == InitramfsGenerator::initramfs_tools ? 0755 : 0644;
}

std::string abs(const std::string &rel)
{
	return rel.empty() || rel[0] == '/' ? rel : "/" + rel;
}

void add_regeneration(const machine::Snapshot &s, bool want, Plan &p)
{
	const InitramfsGenerator g = s.boot.initramfs;
	std::vector<const machine::InstalledKernel *> with_image;
	for (const auto &k : s.boot.kernels) {
		if (k.initramfs_image.empty()) {
			p.notes.push_back(fmt::format(
				"kernel {} has no initramfs image in /boot: nothing to regenerate for it", k.release));
			continue;
		}
		with_image.push_back(&k);
		if (want && k.rdnafix_modules.empty())
			p.notes.push_back(fmt::format("rdnafix is not built for kernel {}: its initramfs cannot "
						      "contain it (DKMS builds it when that "
						      "kernel's headers are installed)",
						      k.release));
	}
	if (with_image.empty()) {
		p.notes.push_back("no installed kernel has an initramfs image: nothing to regenerate");
		return;
	}
	const std::string what = want ? "put rdnafix and its options into" : "take rdnafix out of";
	if (g == InitramfsGenerator::mkinitcpio) {
		// One run over every preset (linux, linux-lts, ...): mkinitcpio knows
		// which image belongs to which kernel, the snapshot may not.
		p.commands.push_back({{"mkinitcpio", "-P"}, fmt::format("{} the initramfs of every preset", what)});
		return;
	}
	for (const auto *k : with_image) {
		std::string why = fmt::format("{} the initramfs of {} ({})", what, k->release, abs(k->initramfs_image));
		if (g == InitramfsGenerator::initramfs_tools)
			p.commands.push_back({{"update-initramfs", "-u", "-k", k->release}, std::move(why)});
		else
			p.commands.push_back(
				{{"dracut", "--force", "--kver", k->release, abs(k->initramfs_image)}, std::move(why)});
	}
}

} // namespace

std::string initramfs_owned_file(InitramfsGenerator g)
{
	switch (g) {
	case InitramfsGenerator::initramfs_tools:
		return "etc/initramfs-tools/hooks/rdnafix";
	case InitramfsGenerator::dracut:
		return "etc/dracut.conf.d/rdnafix.conf";
	case InitramfsGenerator::mkinitcpio:
		return "etc/mkinitcpio.conf.d/rdnafix.conf";
	case InitramfsGenerator::none:
		break;
	}
	return {};
}

std::string initramfs_owned_content(InitramfsGenerator g)
{
	switch (g) {
	case InitramfsGenerator::initramfs_tools:
		return fmt::format("#!/bin/sh\n"
				   "{}"
				   "# initramfs-tools hook: puts the rdnafix module into the initramfs, so that\n"
				   "# 'softdep amdgpu pre: rdnafix' loads it before amdgpu there. mkinitramfs copies\n"
				   "# /etc/modprobe.d/*.conf (rdnafix.conf with it) into every image itself.\n"
				   "PREREQ=\"\"\n"
				   "prereqs()\n"
				   "{{\n"
				   "\techo \"$PREREQ\"\n"
				   "}}\n"
				   "\n"
				   "case $1 in\n"
				   "prereqs)\n"
				   "\tprereqs\n"
				   "\texit 0\n"
				   "\t;;\n"
				   "esac\n"
				   "\n"
				   ". /usr/share/initramfs-tools/hook-functions\n"
				   "manual_add_modules rdnafix\n",
				   kHeader);
	case InitramfsGenerator::dracut:
		return fmt::format("{}"
				   "# dracut: the rdnafix module and its options go into every initramfs.\n"
				   "add_drivers+=\" rdnafix \"\n"
				   "install_items+=\" /etc/modprobe.d/rdnafix.conf \"\n",
				   kHeader);
	case InitramfsGenerator::mkinitcpio:
		return fmt::format("{}"
				   "# mkinitcpio: the rdnafix module and its options go into every initramfs.\n"
				   "MODULES+=(rdnafix)\n"
				   "FILES+=(/etc/modprobe.d/rdnafix.conf)\n",
				   kHeader);
	case InitramfsGenerator::none:
		break;
	}
	return {};
}

Plan plan_initramfs(const machine::Snapshot &s, bool want, bool modprobe_changed)
{
	Plan p;
	if (s.boot.immutable != machine::ImmutableKind::none) {
		p.refusal = fmt::format("{} ({}) builds its initramfs itself: rdnactl does not write generator files "
					"or regenerate images there",
					machine::to_string(s.boot.immutable), abs(s.boot.immutable_evidence));
		return p;
	}
	const InitramfsGenerator g = s.boot.initramfs;
	for (InitramfsGenerator other : kGenerators) {
		std::optional<std::string> content;
		if (other == g && want)
			content = initramfs_owned_content(other);
		if (auto c = change_for(s, initramfs_owned_file(other), std::move(content), mode_of(other)))
			p.files.push_back(std::move(*c));
	}
	if (g == InitramfsGenerator::none) {
		p.notes.push_back(
			"no initramfs generator (initramfs-tools, dracut, mkinitcpio) is installed: amdgpu then "
			"loads from the root file system, where /etc/modprobe.d is read directly; the change "
			"takes effect at the next boot, with nothing to regenerate");
		return p;
	}
	bool generator_file_changed = false;
	for (const auto &f : p.files)
		if (f.path == initramfs_owned_file(g))
			generator_file_changed = true;
	if (generator_file_changed || modprobe_changed)
		add_regeneration(s, want, p);
	return p;
}

std::optional<Command> list_command(const machine::Snapshot &s, const machine::InstalledKernel &k)
{
	if (k.initramfs_image.empty())
		return std::nullopt;
	const std::string lister(machine::lister_for(s.boot.initramfs));
	if (lister.empty())
		return std::nullopt;
	return Command{{lister, abs(k.initramfs_image)},
		       fmt::format("list the initramfs of {} ({})", k.release, abs(k.initramfs_image))};
}

} // namespace rdnafix::config
