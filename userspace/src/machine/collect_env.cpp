// Reader: the environment to audit (this process's, or the --env file).
#include "machine/collect_internal.hpp"

#include "io/process.hpp"

namespace rdnafix::machine {

namespace detail {

Environment collect_environment(const std::optional<std::string> &file)
{
	if (file) {
		std::string abs = io::absolute_path(*file);
		io::RootFs host("/");
		auto t = host.read_text(abs, {.max_bytes = 1 << 20, .allow_empty = true});
		if (!t) {
			Environment e;
			e.source = *file;
			e.unreadable.push_back({"environment", *file, t.error().reason()});
			return e;
		}
		return build_environment(core::parse_env_file(*t), *file);
	}
	return build_environment(core::parse_environ(io::process_environ()), "process");
}

} // namespace detail

} // namespace rdnafix::machine
