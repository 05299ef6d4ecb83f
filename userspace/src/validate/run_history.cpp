// `rdnactl history`: read the history store (read-only: the listing never
// creates, migrates or writes the file), compare the runs and find the
// regressions (pure), print as the runs are read (one run in memory at a
// time).  Exit 0: no regression; 1: at least one; 2: the
// database could not be read (or no location).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "core/text_safe.hpp"
#include "history/history.hpp"
#include "render.hpp"
#include "run.hpp"

namespace rdnafix::validate {

namespace {
constexpr std::size_t kFlushBytes = 64 * 1024;
} // namespace

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
		if (o.json) {
			std::string doc;
			HistoryJsonWriter(doc).finish({}, {});
			std::cout << doc;
		} else
			std::cout << fmt::format("no validation history at {} (rdnactl validate records one)\n",
						 core::terminal_safe(path));
		return 0;
	}
	try {
		// Printed while read: memory holds a run at a time, the comparison
		// state per device and case, and the comparisons that are listed.
		auto h = History::open_read_only(path);
		RunComparer cmp(o.threshold);
		std::vector<RunComparison> cmps;
		std::string buf;
		HistoryJsonWriter json(buf);
		bool any = false;
		h.for_each_run([&](StoredRun &&r) {
			if (o.json)
				json.run(r);
			else
				buf += (any ? "" : render_history_header()) + render_history_row(r);
			any = true;
			if (auto c = cmp.add(std::move(r)))
				cmps.push_back(std::move(*c));
			if (buf.size() >= kFlushBytes) {
				std::cout << buf;
				buf.clear();
			}
		});
		if (o.json)
			json.finish(cmp.regressions(), cmps);
		else if (!any)
			buf += "no validation runs recorded yet (rdnactl validate records one)\n";
		else
			buf += render_history_tail(cmp.regressions(), cmps);
		std::cout << buf;
		return cmp.regressions().empty() ? 0 : 1;
	} catch (const SQLite::Exception &e) { // e.g. a table missing from a damaged file
		std::cerr << "rdnactl history: cannot read history database " << core::terminal_safe(path) << ": "
			  << core::terminal_safe(io::sqlite::describe(e, kListReadLimits)) << "\n";
		return 2;
	} catch (const std::exception &e) {
		std::cerr << "rdnactl history: " << core::terminal_safe(e.what()) << "\n";
		return 2;
	}
}

} // namespace rdnafix::validate
