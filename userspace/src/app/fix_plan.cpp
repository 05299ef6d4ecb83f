// plan_fix: remedies -> config changes and instructions (see fix_plan.hpp).
#include "fix_plan.hpp"

#include "machine/boot.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <type_traits>

namespace rdnafix::app {

namespace {

std::string install_command(const status::InstallPackage &p, const std::string &os_id)
{
	if (p.kind == status::InstallPackage::Kind::wheel)
		return fmt::format("pip install {}", p.name);
	if (os_id == "fedora" || os_id == "rhel" || os_id == "centos")
		return fmt::format("sudo dnf install {}", p.name);
	if (os_id == "arch" || os_id == "manjaro" || os_id == "endeavouros" || os_id == "cachyos")
		return fmt::format("sudo pacman -S {}", p.name);
	if (os_id == "opensuse-tumbleweed" || os_id == "opensuse-leap")
		return fmt::format("sudo zypper install {}", p.name);
	return fmt::format("sudo apt install {}", p.name);
}

bool owned_modprobe(std::string_view file)
{
	if (!file.empty() && file.front() == '/')
		file.remove_prefix(1);
	return file.empty() || file == machine::kOwnedModprobe;
}

template <class C, class Key> bool has(const C &c, const Key &key)
{
	return std::any_of(c.begin(), c.end(), key);
}

} // namespace

FixPlan plan_fix(const std::vector<status::Finding> &findings, const std::string &os_id)
{
	FixPlan plan;
	for (const auto &f : findings) {
		bool applied = false;
		for (const auto &r : f.remedies) {
			std::visit(
				[&](const auto &v) {
					using T = std::decay_t<decltype(v)>;
					Instruction in{f.id, f.subject, status::kind_of(r), {}};
					if constexpr (std::is_same_v<T, status::ModuleOption>) {
						// rdnactl writes only its own file: an option in another
						// modprobe.d file is the user's to remove (applying the
						// owned file would leave the finding in place, issue 21).
						if (!v.value && !owned_modprobe(v.file)) {
							in.text =
								!f.fix.empty()
									? f.fix
									: fmt::format("remove the {}.{} option from {}",
										      v.module, v.name, v.file);
							plan.instructions.push_back(std::move(in));
							return;
						}
						applied = true;
						if (plan.modules_by.empty() || plan.modules_by.back() != f.id)
							plan.modules_by.push_back(f.id);
						if (!has(plan.modules, [&](const config::ModuleChange &m) {
							    return m.module == v.module && m.name == v.name;
						    }))
							plan.modules.push_back({v.module, v.name, v.value});
						return;
					} else if constexpr (std::is_same_v<T, status::KernelParam>) {
						applied = true;
						if (plan.cmdline_by.empty() || plan.cmdline_by.back() != f.id)
							plan.cmdline_by.push_back(f.id);
						if (!has(plan.cmdline, [&](const config::CmdlineChange &c) {
							    return c.param == v.param;
						    }))
							plan.cmdline.push_back(
								{v.param, v.action == status::KernelParam::Action::add
										  ? std::optional<std::string>(v.value)
										  : std::nullopt});
						return;
					} else if constexpr (std::is_same_v<T, status::SetEnv>) {
						in.text = fmt::format("{}={} in the environment of the program that "
								      "uses the GPU (`eval \"$(rdnactl env)\"`)",
								      v.name, v.value);
					} else if constexpr (std::is_same_v<T, status::UnsetEnv>) {
						in.text = fmt::format("unset {} in the environment of the program that "
								      "uses the GPU (`eval \"$(rdnactl env)\"`)",
								      v.name);
					} else if constexpr (std::is_same_v<T, status::JoinGroup>) {
						in.text = fmt::format("sudo usermod -aG {} {}, then log in again",
								      core::shell_word(v.group),
								      v.user.empty() ? "\"$USER\""
										     : core::shell_word(v.user));
					} else if constexpr (std::is_same_v<T, status::InstallPackage>) {
						in.text = install_command(v, os_id);
					} else if constexpr (std::is_same_v<T, status::ContainerOption>) {
						in.text = fmt::format("create the container again with {} {} ({})",
								      v.option, core::shell_word(v.value), v.engine);
					} else if constexpr (std::is_same_v<T, status::BiosSetting>) {
						in.text = fmt::format("in the firmware setup: {} = {}", v.setting,
								      v.value);
					} else if (f.severity != status::Severity::info) {
						in.text = f.fix; // NoChange: the finding's own words
					}
					if (!in.text.empty())
						plan.instructions.push_back(std::move(in));
				},
				r);
		}
		if (applied)
			plan.applied_by.push_back(f.id);
	}
	return plan;
}

} // namespace rdnafix::app
