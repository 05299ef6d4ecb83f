// `rdnactl history`: read the history store, find regressions (pure), print.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "history.hpp"
#include "render.hpp"
#include "run.hpp"

namespace rdnafix::validate {

int run_history(const HistoryOptions &o)
{
	const std::string path = history_path(o.history_db);
	if (path.empty()) {
		std::fprintf(stderr, "rdnactl history: no history location: neither $XDG_STATE_HOME nor $HOME is set "
				     "(use --history-db PATH)\n");
		return 2;
	}
	if (!std::filesystem::exists(path)) {
		if (o.json)
			std::cout << render_history_json({}, {}).dump(2) << "\n";
		else
			std::cout << fmt::format("no validation history at {} (rdnactl validate records one)\n", path);
		return 0;
	}
	try {
		History h(path);
		const auto runs = h.runs();
		const auto regs = find_regressions(runs, o.threshold);
		if (o.json)
			std::cout << render_history_json(runs, regs).dump(2) << "\n";
		else
			std::cout << render_history(runs, regs);
		return regs.empty() ? 0 : 1;
	} catch (const std::exception &e) {
		std::fprintf(stderr, "rdnactl history: %s\n", e.what());
		return 2;
	}
}

} // namespace rdnafix::validate
