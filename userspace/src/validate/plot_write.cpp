// `rdnactl history --plot FILE`: read the history, write plot_svg() to FILE
// atomically (see plot_svg.hpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "core/text_safe.hpp"
#include "io/atomic_file.hpp"
#include "plot_svg.hpp"

namespace rdnafix::validate {

int write_history_plot(const std::string &db_path, const std::string &out_path)
{
	const std::string shown = core::terminal_safe(out_path);
	const std::filesystem::path out(out_path);
	if (out_path.empty() || !out.has_filename()) {
		std::cerr << "rdnactl history: --plot '" << shown
			  << "' names no file (valid: a file path like plot.svg)\n";
		return 2;
	}
	std::vector<StoredRun> runs;
	std::error_code ec;
	if (std::filesystem::exists(db_path, ec)) {
		try {
			runs = History::open_read_only(db_path).runs();
		} catch (const std::exception &e) {
			std::cerr << "rdnactl history: --plot: cannot read history database "
				  << core::terminal_safe(db_path) << ": " << core::terminal_safe(e.what()) << "\n";
			return 2;
		}
	}
	const std::string svg = plot_svg(runs);

	// The file's own directory is the root of the write: temp file beside it,
	// fsync, rename over it (io::RootWriter::replace).
	const std::string dir = out.has_parent_path() ? out.parent_path().string() : std::string(".");
	io::RootWriter w(dir);
	io::WriteStatus st = w.root_error();
	if (!st)
		st = w.replace(out.filename().string(), svg, 0644);
	if (st) {
		std::cerr << "rdnactl history: --plot " << shown << ": " << core::terminal_safe(st->message)
			  << " (nothing written)\n";
		return 2;
	}
	std::size_t cases = 0;
	{
		std::vector<std::string> names;
		for (const auto &r : runs)
			for (const auto &c : r.cases)
				names.push_back(c.name);
		std::sort(names.begin(), names.end());
		cases = std::size_t(std::unique(names.begin(), names.end()) - names.begin());
	}
	std::cerr << fmt::format("rdnactl history: wrote {} ({} run{}, {} case{})\n", shown, runs.size(),
				 runs.size() == 1 ? "" : "s", cases, cases == 1 ? "" : "s");
	return 0;
}

} // namespace rdnafix::validate
