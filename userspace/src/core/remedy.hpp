#pragma once
// A finding's remedy as data (status findings, explain matches): each change that fixes it, from a small closed
// set.  The text renderer prints the finding's human `fix`; `rdnactl env` (and
// later `config` and `fix`) act on these values and never read that text.
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace rdnafix::core {

// Nothing rdnactl can state as a change: nothing is needed, or the fix text
// asks a person to look (dmesg, udev rules), choose (libraries, which of two
// settings to keep) or restart (log in again, reboot).
struct NoChange {};
// Set an environment variable; `note` is the one-line reason `env` prints.
struct SetEnv {
	std::string name, value, note;
};
// Unset an environment variable that is set.
struct UnsetEnv {
	std::string name, note;
};
// A module option in a modprobe.d file ("/etc/modprobe.d/amdgpu.conf");
// value nullopt: remove the option.
struct ModuleOption {
	std::string module, name;
	std::optional<std::string> value;
	std::string file;
};
// A kernel command-line parameter ("amdgpu.noretry"): add it with `value`
// (replacing the one there), or remove it.
struct KernelParam {
	enum class Action { add, remove };
	Action action = Action::add;
	std::string param, value;
};
// `s` as one POSIX shell word: unchanged when it is only letters, digits and
// "._-+@%/:=," (and not empty), else single-quoted with ' written as '\''.
std::string shell_word(std::string_view s);
// Add a user to a group; user "" is the user running rdnactl.
struct JoinGroup {
	std::string group, user;
};
// Install a distribution package or a Python wheel.
struct InstallPackage {
	enum class Kind { package, wheel };
	Kind kind = Kind::package;
	std::string name;
};
// A firmware setup option.
struct BiosSetting {
	std::string setting, value;
};

// An option of the command that creates the container ("--group-add",
// "keep-groups"): takes effect when the container is created again.  engine
// "podman", "docker" or "distrobox" (whose --additional-flags pass it on).
struct ContainerOption {
	std::string engine, option, value;
};
using Remedy = std::variant<NoChange, SetEnv, UnsetEnv, ModuleOption, KernelParam, JoinGroup, InstallPackage,
			    BiosSetting, ContainerOption>;

// The kind of a remedy, for filters and output.
enum class RemedyKind {
	none,
	set_env,
	unset_env,
	module_option,
	kernel_param,
	join_group,
	install_package,
	bios_setting,
	container_option
};
RemedyKind kind_of(const Remedy &r);
std::string_view to_string(RemedyKind k); // "none", "set_env", "unset_env", ...

} // namespace rdnafix::core
