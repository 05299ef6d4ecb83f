// `rdnactl history`: read the history store (read-only: the listing never
// creates, migrates or writes the file), compare the runs and find the
// regressions (pure), print.  Exit 0: no regression; 1: at least one; 2: the
// database could not be read (or no location).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "core/text_safe.hpp"
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
	std::error_code ec;
	if (!std::filesystem::exists(path, ec) && !ec) {
		if (!o.history_db.empty()) {
			// A path the user named that is not there is likely a typo: say so.
			std::cerr << "rdnactl history: no history database at " << core::terminal_safe(path)
				  << " (--history-db names a file that does not exist; rdnactl validate creates it)\n";
			return 2;
		}
		// The default location before the first recorded run: nothing to report.
		if (o.json)
			std::cout << json_text(render_history_json({}, {}));
		else
			std::cout << fmt::format("no validation history at {} (rdnactl validate records one)\n",
						 core::terminal_safe(path));
		return 0;
	}
	try {
		auto h = History::open_read_only(path);
		const auto runs = h.runs();
		const auto regs = find_regressions(runs, o.threshold);
		const auto cmps = compare_runs(runs, o.threshold);
		if (o.json)
			std::cout << json_text(render_history_json(runs, regs, cmps));
		else
			std::cout << render_history(runs, regs, cmps);
		return regs.empty() ? 0 : 1;
	} catch (const SQLite::Exception &e) { // e.g. a table missing from a damaged file
		std::cerr << "rdnactl history: cannot read history database " << core::terminal_safe(path) << ": "
			  << core::terminal_safe(e.what()) << "\n";
		return 2;
	} catch (const std::exception &e) {
		std::cerr << "rdnactl history: " << core::terminal_safe(e.what()) << "\n";
		return 2;
	}
}

} // namespace rdnafix::validate
