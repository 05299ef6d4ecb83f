// run_coverage: collect the machine (devices, environment), scan, render.
#include "coverage/run.hpp"

#include "coverage/render.hpp"

#include "io/process.hpp"
#include "io/rootfs.hpp"

#include <cstdio>

namespace rdnafix::coverage {

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
	Report r = scan(fs, snap, so);
	std::string out = opts.json ? to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
				    : render_text(r, opts.machine.root);
	std::fwrite(out.data(), 1, out.size(), stdout);
	if (opts.stats)
		std::fprintf(stderr, "rdnactl coverage: %zu installation(s), %llu bytes read, %.3f s\n",
			     r.installs.size(), static_cast<unsigned long long>(r.bytes_read), r.seconds);
	return exit_code_for(r);
}

} // namespace rdnafix::coverage
