// run_coverage: collect the machine (devices, environment), scan, render.
#include "coverage/run.hpp"

#include "software/find.hpp"
#include "coverage/render.hpp"

#include "core/text_safe.hpp"
#include "io/process.hpp"
#include "io/rootfs.hpp"

#include <fmt/format.h>

#include "rdnafix_version.hpp"

#include <cstdio>

namespace rdnafix::coverage {

namespace {

int usage(const std::string &message)
{
	std::fprintf(stderr, "rdnactl coverage: %s\n", core::terminal_safe(message).c_str());
	return 2;
}

// `coverage --json`: the identity keys first (schema_version, rdnactl_version,
// root, exit_code), then the scan's own object (software/render_json.cpp).
nlohmann::ordered_json document(const Report &r, const std::string &root)
{
	nlohmann::ordered_json j;
	j["schema_version"] = 1;
	j["rdnactl_version"] = RDNAFIX_VERSION;
	j["root"] = root.empty() ? "/" : root;
	j["exit_code"] = exit_code_for(r);
	auto body = to_json(r);
	for (auto it = body.begin(); it != body.end(); ++it)
		j[it.key()] = std::move(it.value());
	return j;
}

} // namespace

int run_coverage(const CoverageOptions &opts)
{
	auto snap = machine::collect(opts.machine);
	if (snap.nothing_readable) {
		std::fprintf(stderr, "rdnactl coverage: %s\n", snap.nothing_readable_reason.c_str());
		return 2;
	}
	auto bad_gfx = gpus_of(snap, opts.scan.gfx, false);
	if (!bad_gfx) {
		std::fprintf(stderr, "rdnactl coverage: %s\n", bad_gfx.error().message.c_str());
		return 2;
	}
	// An empty PATH or --python names nothing (and has no absolute form).
	for (const auto &p : opts.scan.paths)
		if (p.empty())
			return usage("an empty PATH argument; give a file or directory to read (a .so, a code "
				     "object, a bundle, a rocblas/library directory)");
	for (const auto &p : opts.scan.pythons)
		if (p.empty())
			return usage("--python: an empty path; give an interpreter (…/bin/python3) or a venv or "
				     "conda directory");
	io::RootFs fs(opts.machine.root);
	ScanOptions so = opts.scan;
	// PATH arguments and --python name files of the machine: on the live
	// machine relative to the working directory, under --root relative to DIR.
	if (fs.is_live()) {
		for (auto &p : so.paths)
			p = io::absolute_path(p);
		for (auto &p : so.pythons)
			p = io::absolute_path(p);
	}
	// A PATH argument must exist and be a file or directory: judging nothing
	// would read as "nothing with GPU code" with exit 0.
	for (std::size_t i = 0; i < so.paths.size(); ++i) {
		const std::string where =
			fs.is_live() ? "" : fmt::format(" (PATH is read inside --root {})", opts.machine.root);
		auto st = fs.stat(so.paths[i]);
		if (!st)
			return usage(fmt::format("{}: {}{}; give an existing file or directory", opts.scan.paths[i],
						 st.error().detail, where));
		if (st->type != io::FileType::regular && st->type != io::FileType::directory)
			return usage(fmt::format("{}: {}, not a regular file or a directory (not opened)",
						 opts.scan.paths[i], detail::file_type_phrase(st->type)));
	}
	Report r = scan(fs, snap, so);
	std::string out =
		opts.json
			? document(r, opts.machine.root).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
				  "\n"
			: render_text(r, opts.machine.root, TextOptions{opts.verbose, opts.style});
	std::fwrite(out.data(), 1, out.size(), stdout);
	if (opts.stats)
		std::fprintf(stderr,
			     "rdnactl coverage: %zu installation(s), %llu bytes read, %llu bytes inflated, %.3f s\n",
			     r.installs.size(), static_cast<unsigned long long>(r.bytes_read),
			     static_cast<unsigned long long>(r.bytes_inflated), r.seconds);
	return exit_code_for(r);
}

} // namespace rdnafix::coverage
